"""ScrubHiddenTests: the feedback shows hidden tests' results and messages, never their code.

nbgrader's feedback is rendered from the autograded notebook, whose test cells hold the
hidden tests in full (jupyter/nbgrader #917). Code can also leave through outputs: a
traceback quotes the failing line, and a student's function, called by a hidden test, can
print ``inspect.stack()`` or ``get_ipython().history``. So, before rendering:
- each hidden block in a cell's source becomes a one-line placeholder (the block is what
  nbgrader's ClearHiddenTests removes from the release: the lines from one containing its
  ``begin_test_delimeter`` to one containing its ``end_test_delimeter``, as the course configures them);
- each error output is reduced to ``ename: evalue`` (no traceback frames), a failed check to
  its message as the notebook shows it ("Check failed: …", "Not answered yet: …");
- in every output of every cell, any line containing a line of hidden-test source (raw,
  repr/JSON-escaped or HTML-escaped) is replaced by a placeholder line;
- a judge's own message (the error output graders.autograde.judging puts first in a test
  cell whose judge failed) may quote what the judge's string literals say (a case named by
  its code, "t[[0, 1]] = t[[1, 0]] (a swap)"): those lines are the instructor's words, shown
  on purpose; any other hidden line in it is removed as everywhere;
- a hidden line that the notebook also shows (in a visible part or any other cell) is not
  removed: quoting it reveals nothing;
- misconception markers (``[mc:...]``, helpers.checks.MARKER) are removed from sources and
  outputs: they are for the instructor's report, not for the student.
"""

from __future__ import annotations

import ast
import html
import json

from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor
from traitlets import Integer

from helpers.grading import JUDGE_MARK
from helpers.misconceptions import MARKER
from helpers.verdicts import check_text

PLACEHOLDER = "# [hidden tests: their code is not shown; their results are below]"
REMOVED = "[line removed: it quoted hidden test code]"


class ScrubHiddenTests(NbGraderPreprocessor):
    # shorter lines (")", "x = 1") are too common to identify test code, and would blank
    # unrelated output
    min_chars = Integer(6).tag(config=True)

    def preprocess(self, nb, resources):
        clear = ClearHiddenTests(parent=self)
        begin, end = clear.begin_test_delimeter, clear.end_test_delimeter
        needles: set[str] = {begin, end}  # a printed cell source shows the delimiters too
        quoted: dict[int, list[str]] = {}  # cell index: its judge's string literals
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            kept, hidden = _split_hidden(cell.source, begin, end)
            needles |= self._needles(hidden)
            quoted[index] = judge_strings(hidden)
            cell.source = MARKER.sub("", "\n".join(kept)).rstrip("\n")
        # a hidden line that the notebook shows anyway (a visible check's case written alike)
        # hides nothing: output quoting it keeps the line
        shown = "\n".join(cell.source for cell in nb.cells)
        needles = {n for n in needles if n not in shown or n in (begin, end)}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            judged = cell.metadata.get("graders", {}).get("verdict", {}).get("judge") in ("fail", "error")
            outputs = []
            for output in cell.outputs:
                if judged and output.output_type == "error" and quoted[index]:
                    judged = False  # the first error output is the judge's own message
                    own = {n for n in needles if not any(n in text for text in quoted[index])}
                    outputs.append(self._scrub_output(output, own))
                else:
                    outputs.append(self._scrub_output(output, needles))
            cell.outputs = outputs
        return nb, resources

    def _needles(self, hidden: list[str]) -> set[str]:
        found = set()
        for line in hidden:
            line = line.strip()
            if len(line) >= self.min_chars:
                found |= {line, json.dumps(line)[1:-1], repr(line)[1:-1], html.escape(line)}
        return found

    def _scrub_output(self, output, needles):
        if output.output_type == "error":
            output.evalue = _drop_lines(output.evalue, needles)
            # a failed check reads as in the notebook ("Check failed: …"), any other error
            # as its name and value
            output.traceback = [check_text(output.evalue) if output.ename == "CheckFailed"
                                else f"{output.ename}: {output.evalue}"]
        elif output.output_type == "stream":
            output.text = _drop_lines(output.text, needles)
        elif "data" in output:
            for mime, value in output.data.items():
                if isinstance(value, str) and not mime.startswith("image/"):
                    output.data[mime] = _drop_lines(value, needles)
                elif isinstance(value, list):
                    output.data[mime] = _drop_lines("".join(value), needles)
        return output


def _split_hidden(source: str, begin: str, end: str) -> tuple[list[str], list[str]]:
    """(the source's lines with each hidden block as one placeholder, the hidden lines)."""
    kept, hidden, inside = [], [], False
    for line in source.splitlines():
        if not inside and begin in line:
            inside = True
            kept.append(line[:len(line) - len(line.lstrip())] + PLACEHOLDER)
        elif inside:
            if end in line:
                inside = False
            else:
                hidden.append(line)
        else:
            kept.append(line)
    return kept, hidden


def _drop_lines(text: str, needles: set[str]) -> str:
    text = MARKER.sub("", text)
    return "".join(REMOVED + ("\n" if line.endswith("\n") else "")
                   if any(n in line for n in needles) else line
                   for line in text.splitlines(keepends=True))


def judge_strings(hidden: list[str]) -> list[str]:
    """The string literals of a hidden block's judge (what follows its JUDGE_MARK line), f-strings'
    literal parts included; none when the block has no judge or it does not parse."""
    marks = [i for i, line in enumerate(hidden) if line.strip() == JUDGE_MARK]
    if not marks:
        return []
    try:
        tree = ast.parse("\n".join(hidden[marks[0] + 1:]))
    except SyntaxError:
        return []
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
