"""One line per graded test cell: the exercise's name, its score and, when points were lost,
the message a student reads (what they probably believed, in words).

Shared by the student's Validate (helpers.lab.validate) and the feedback page's summary
(graders.feedback.summary), so both say the same thing in the same words. Works on an
executed notebook (nbformat): names come from the markdown above each exercise, messages
from its test cell's outputs, with misconception markers and ANSI colours taken out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from helpers.misconceptions import MARKER

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
POINTS = re.compile(r"\s*\(\d+(\.\d+)?\s+points?\)\s*$")
NUMBERED = re.compile(r"^\d+(\.\d+)*\.\s+")
EXERCISE = re.compile(r"\bExercise\s+\d+\b")
QUIZ = re.compile(r"\*\*Quick quiz\b", re.I)
ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=", re.M)
# a quiz's test cell names the variable it reads (what a release's stub answer cell does not)
ANSWER_READ = re.compile(r"checks\.answer\(\s*[\"'][^\"']*[\"']\s*,\s*([A-Za-z_]\w*)")
MESSAGE_CHARS = 300  # a message is one paragraph; longer ones are cut at a word


@dataclass(frozen=True)
class Verdict:
    grade_id: str        # the test cell's
    name: str            # "Exercise 2: where does an element live?", "Quick quiz in “…”: quiz_offset"
    score: float | None  # None where it is not known (a cell that did not run)
    points: float
    message: str         # "" when nothing was lost or nothing was said

    @property
    def lost(self) -> bool:
        return self.score is not None and self.score < self.points


def _nbgrader(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {}) or {}


def _is_test(cell) -> bool:
    meta = _nbgrader(cell)
    return bool(meta.get("grade")) and not meta.get("solution") and cell.get("cell_type") == "code"


def exercise_name(cells: list, index: int) -> str:
    """The name of the exercise that cell ``index`` (a test cell) grades, from the markdown
    above its answer: an "Exercise N: …" heading, or the section of a "Quick quiz" (with the
    variable its answer sets), else the nearest heading."""
    start = index
    test_id = _nbgrader(cells[index]).get("grade_id", "")
    for k in range(index - 1, -1, -1):  # its answer: the nearest solution cell above it
        if _nbgrader(cells[k]).get("solution"):
            start = k
            break
        if _is_test(cells[k]):
            break
    heading, prose, own = "", [], True  # own: still within this exercise's own prose
    for k in range(start - 1, -1, -1):
        cell = cells[k]
        if cell.get("cell_type") != "markdown":
            own = own and not _is_test(cell)  # above the previous exercise: its section only
            continue
        lines = cell.get("source", "").splitlines()
        found = [HEADING.match(line) for line in lines]
        last = max((i for i, m in enumerate(found) if m), default=None)
        if own:
            prose.append("\n".join(lines if last is None else lines[last + 1:]))
        if last is not None:
            heading = found[last].group(1)
            break
    title = POINTS.sub("", NUMBERED.sub("", heading.replace("`", ""))).strip()
    answer = (ASSIGNED.search(cells[start].get("source", "")) if start != index else None) \
        or ANSWER_READ.search(cells[index].get("source", ""))
    variable = answer.group(1) if answer else ""
    if EXERCISE.search(title):
        return title[EXERCISE.search(title).start():]
    if any(QUIZ.search(text) for text in prose):
        return f"Quick quiz in “{title}”" + (f": {variable}" if variable else "") if title else "Quick quiz"
    if title:
        return f"{title}" + (f": {variable}" if variable else "")
    return test_id


def plain(text: str) -> str:
    """Text as a student reads it: no ANSI colours, no [mc:…] markers, one line."""
    return " ".join(MARKER.sub("", ANSI.sub("", text)).split())


def check_text(evalue: str) -> str:
    """A failed check's message as the notebook shows it: "Not answered yet: …" or
    "Check failed: …" (a CheckFailed's evalue carries the message and its marker)."""
    text = plain(evalue)
    return text if text.lower().startswith(("not answered yet", "check failed")) else f"Check failed: {text}"


def cell_message(cell) -> str:
    """What a test cell's outputs say went wrong, in one paragraph: a check's message (what
    helpers.checks renders in place of a traceback), else the error's last line, else the
    first line written to stderr; each said once."""
    said = []
    outputs = cell.get("outputs", [])
    verdict = cell.get("metadata", {}).get("graders", {}).get("verdict", {})
    if verdict.get("judge") in ("fail", "error") and any(o.get("output_type") == "error" for o in outputs):
        # graded outside the kernel: the judge's error comes first and is the verdict; the
        # kernel's own errors after it are what the student already saw in the lab
        errors = [k for k, o in enumerate(outputs) if o.get("output_type") == "error"]
        outputs = [o for k, o in enumerate(outputs) if o.get("output_type") != "error" or k == errors[0]]
    for output in outputs:
        if output.get("output_type") == "error" and output.get("ename") == "CheckFailed":
            said.append(check_text(str(output.get("evalue", ""))))  # the message itself
        elif output.get("output_type") == "error":
            lines = [plain(line) for line in output.get("traceback", [])]
            lines = [line for line in lines if line]
            framed = any(line.startswith(("Traceback", "---", "File ", "Cell In")) for line in lines)
            if lines and not framed:
                said.append(" ".join(lines))
            else:
                evalue = plain(str(output.get("evalue", "")).strip().splitlines()[0]
                               if str(output.get("evalue", "")).strip() else "")
                said.append(f"{output.get('ename', 'Error')}: {evalue}".rstrip(": "))
        elif output.get("output_type") == "stream" and output.get("name") == "stderr":
            first = next((plain(line) for line in output.get("text", "").splitlines() if plain(line)), "")
            if first:
                said.append(first)
    text = " ".join(dict.fromkeys(said))
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS].rsplit(" ", 1)[0] + " …"
    return text


def verdicts(nb, scores: dict | None = None) -> list[Verdict]:
    """A Verdict for every graded test cell of an executed notebook, in order. ``scores``
    ({grade_id: score}) where the grader has them; otherwise each cell's
    ``metadata.nbgrader.score``, else full points unless it shows an error."""
    cells = nb.get("cells", [])
    found = []
    for index, cell in enumerate(cells):
        if not _is_test(cell):
            continue
        meta = _nbgrader(cell)
        grade_id, points = meta.get("grade_id", ""), float(meta.get("points", 0) or 0)
        message = cell_message(cell)
        if scores is not None and grade_id in scores:
            score = scores[grade_id]
        elif meta.get("score") is not None:
            score = float(meta["score"])
        elif cell.get("execution_count") is None and not cell.get("outputs"):
            score = None
        else:
            score = 0.0 if message else points
        found.append(Verdict(grade_id, exercise_name(cells, index), score, points,
                             message if score is None or score < points else ""))
    # two cells of one section that the prose names alike are told apart by their grade ids
    names = [v.name for v in found]
    return [v if names.count(v.name) == 1 else
            Verdict(v.grade_id, f"{v.name} ({v.grade_id.removesuffix('-test').split('-', 1)[-1]})",
                    v.score, v.points, v.message)
            for v in found]
