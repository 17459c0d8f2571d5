"""`course report`: what the class misunderstood, per assignment, as HTML and CSV.

Writes DIR/reports/<assignment>.html (one self-contained file: figures are base64 PNGs, no
network needed) and DIR/reports/<assignment>.csv with one row per (exercise, outcome):

    assignment, exercise, misconception, students, share, of, description

``exercise`` is a solution grade_id, or ``(assignment)`` for students with that outcome in
at least one exercise (for ``correct``: in every exercise). ``misconception`` is an
identifier from the checks' ``[mc:...]`` markers, or one of ``unclassified`` (lost points,
no identifier), ``unanswered``, ``not graded`` (nothing ran), ``correct``. ``of`` counts
every student in the gradebook for the assignment; ``share`` is students / of.

The HTML also lists the submissions the static review flagged (graders.autograde.review),
each with its quoted lines: their scores stand until a grader has read them.
"""

from __future__ import annotations

import base64
import csv
import html
from pathlib import Path

from helpers.misconceptions import CATALOGUE

from . import draw
from .model import (
    CORRECT,
    NOT_GRADED,
    RESERVED,
    UNANSWERED,
    UNCLASSIFIED,
    AssignmentResults,
    ReportError,
    assignment_counts,
    exercise_counts,
    flagged,
    graded_assignments,
    load,
    misconceptions,
    problems,
)

WHOLE = "(assignment)"
COLUMNS = ("assignment", "exercise", "misconception", "students", "share", "of", "description")
MEANING = {
    UNCLASSIFIED: "lost points, but the failing check names no misconception (older release or plain assert)",
    UNANSWERED: "not answered yet",
    NOT_GRADED: "nothing ran for it: missing, invalid, crashed, or the run stopped before it",
    CORRECT: "full points",
}


def describe(outcome: str) -> str:
    if outcome in MEANING:
        return MEANING[outcome]
    entry = CATALOGUE.get(outcome)
    return entry.description if entry else "(not in the catalogue)"


def report(course_dir: Path, assignments: list[str] | None = None) -> list[Path]:
    """Write the HTML and CSV of each assignment (default: every graded one); return the paths."""
    course_dir = Path(course_dir).resolve()
    names = list(assignments) if assignments else graded_assignments(course_dir)
    if not names:
        raise ReportError(f"nothing graded yet in {course_dir}: run `course autograde` first")
    loaded = [load(course_dir, name) for name in names]  # every input checked before writing
    target = course_dir / "reports"
    target.mkdir(exist_ok=True)
    written = []
    for results in loaded:
        csv_path = target / f"{results.assignment}.csv"
        write_csv(results, csv_path)
        html_path = target / f"{results.assignment}.html"
        html_path.write_text(render_html(results), encoding="utf-8")
        written += [html_path, csv_path]
    return written


# -- CSV ----------------------------------------------------------------------------------

def rows(results: AssignmentResults) -> list[tuple]:
    of = len(results.students)
    out = []

    def emit(exercise: str, counter, candidates: set[str]) -> None:
        for name in set(candidates) - set(counter):
            counter[name] = 0
        for name, n in misconceptions(counter) + [(r, counter[r]) for r in RESERVED]:
            out.append((results.assignment, exercise, name, n, round(n / of, 4) if of else 0.0, of,
                        describe(name)))

    # catalogue entries that could have been raised but were not still get a row (0 students)
    possible = {e.name: {mc for mc, entry in CATALOGUE.items() if e.name in entry.exercises}
                for e in results.exercises}
    for name, counter in exercise_counts(results).items():
        emit(name, counter, possible[name])
    emit(WHOLE, assignment_counts(results), set().union(*possible.values()) if possible else set())
    return out


def write_csv(results: AssignmentResults, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(rows(results))


# -- HTML ---------------------------------------------------------------------------------

def _img(data: bytes, alt: str) -> str:
    encoded = base64.b64encode(data).decode("ascii")
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/png;base64,{encoded}">'


def _table(header: tuple[str, ...], body: list[tuple]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    lines = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                    for row in body)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{lines}</tbody></table>"


def _pct(n: int, of: int) -> str:
    return f"{100 * n / of:.0f}%" if of else "-"


def render_html(results: AssignmentResults) -> str:
    of = len(results.students)
    per_exercise = exercise_counts(results)
    whole = assignment_counts(results)
    parts = [f"<h1>{html.escape(results.assignment)}: what the class misunderstood</h1>",
             f"<p>{of} students in the gradebook; {sum(s.status == 'ok' for s in results.students)} "
             f"graded to the end; {whole[CORRECT]} with full marks on every exercise.</p>"]

    parts.append("<h2>Scores</h2>")
    parts.append(_img(draw.overall_histogram([s.score for s in results.students], results.max_score),
                      "total score histogram"))
    if results.exercises:
        parts.append(_img(draw.exercise_histograms(
            [(e.name.removeprefix(f"{results.assignment}-"), [s.scores[e.name] for s in results.students],
              e.max_score) for e in results.exercises]),
            "score histogram per exercise"))

    parts.append("<h2>Most common misconceptions</h2>")
    common = [(n, k) for n, k in misconceptions(whole) if k > 0][:12]
    if common:
        parts.append(_img(draw.share_bars(common, of, "students holding it in at least one exercise"),
                          "most common misconceptions"))
        where = {mc: [e for e, c in per_exercise.items() if c[mc]] for mc, _ in common}
        parts.append(_table(("misconception", "what the student believes", "students", "share", "seen in"),
                            [(mc, describe(mc), n, _pct(n, of), ", ".join(where[mc])) for mc, n in common]))
    else:
        parts.append("<p>No failing check named a misconception.</p>")
    parts.append(_table(("outcome", "meaning", "students", "share"),
                        [(r, MEANING[r], whole[r], _pct(whole[r], of)) for r in RESERVED if r != CORRECT]))

    parts.append("<h2>Per exercise</h2>")
    for exercise in results.exercises:
        counter = per_exercise[exercise.name]
        shown = [(n, k) for n, k in misconceptions(counter) if k > 0] + \
                [(r, counter[r]) for r in (UNCLASSIFIED, UNANSWERED, NOT_GRADED) if counter[r] > 0]
        mean = sum(s.scores[exercise.name] for s in results.students) / of if of else 0
        parts.append(f'<section class="exercise"><h3>{html.escape(exercise.name)}</h3>'
                     f"<p>{exercise.max_score:g} points, mean {mean:.2f}; "
                     f"{counter[CORRECT]}/{of} with full points.</p>")
        if shown:
            parts.append(_img(draw.share_bars(shown, of, exercise.name), f"outcomes of {exercise.name}"))
            parts.append(_table(("outcome", "what it means", "students", "share"),
                                [(n, describe(n), k, _pct(k, of)) for n, k in shown]))
        parts.append("</section>")

    parts.append("<h2>Students to look at</h2>")
    trouble = problems(results)
    if trouble:
        parts.append(_table(("student", "status", "score", "reason"),
                            [(s.student, s.status, f"{s.score:g}/{s.max_score:g}", s.reason) for s in trouble]))
    else:
        parts.append("<p>Every submission ran to the end (status ok).</p>")
    parts.append(_flagged_section(flagged(results)))
    return PAGE.format(title=html.escape(f"{results.assignment} report"), body="\n".join(parts))


def _flagged_section(students: list) -> str:
    """The submissions whose code reaches for the grader, each with its quoted lines."""
    head = ('<h2 id="flagged">Flagged by the static review</h2>\n<p>Code that reaches for the grader or the '
            "test machinery. The score stands; the test cells concerned wait for a grade by hand in the "
            "formgrader.</p>")
    if not students:
        return head.split("\n")[0] + "\n<p>No submission was flagged.</p>"
    rows = "".join(f"<tr><td>{html.escape(s.student)}</td><td>{s.score:g}/{s.max_score:g}</td><td><ul>"
                   + "".join(f"<li><code>{html.escape(q)}</code></li>" for q in s.flags) + "</ul></td></tr>"
                   for s in students)
    return (f"{head}\n<table class=\"flagged\"><thead><tr><th>student</th><th>score</th><th>quoted lines</th>"
            f"</tr></thead><tbody>{rows}</tbody></table>")


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 1.5rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left; vertical-align: top; }}
th {{ background: #f0f0f0; }}
img.plot {{ display: block; max-width: 100%; margin: 0.5rem 0; }}
section.exercise {{ border-top: 1px solid #ddd; margin-top: 1rem; }}
table.flagged ul {{ margin: 0; padding-left: 1rem; }}
table.flagged code {{ white-space: pre-wrap; }}
</style></head>
<body>
{body}
</body></html>
"""
