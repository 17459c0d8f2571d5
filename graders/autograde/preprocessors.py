"""Two small nbgrader preprocessors for the main process's half of autograding.

``ExecutedElsewhere`` takes Execute's place in ``Autograde.autograde_preprocessors``: the
notebook arrives already executed by a worker, so nothing runs here. When the worker did not
finish (timeout, memory, crash), test cells that never ran have no outputs, and nbgrader's
``determine_grade`` would give such a cell full marks; they get an error output saying why,
so they score 0 and the feedback tells the student what happened. So does the cell the run
stopped in (the last one with an execution count): it started but never finished.

``KeepPointsOnWarnings`` goes just before SaveAutoGrades: ``determine_grade`` scores any
stderr stream as 0 (jupyter/nbgrader PR #1904), so a correct answer that makes torch warn
would lose its points. In a test cell without an error output, stderr streams become
display_data (text kept, marked in metadata): the warning stays visible, the grade depends
on errors only.
"""

from __future__ import annotations

from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor


class ExecutedElsewhere(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        outcome = resources.get("graders", {})
        if outcome.get("status", "ok") != "ok":
            reason = outcome.get("reason", outcome["status"])
            code = [c for c in nb.cells if c.cell_type == "code"]
            counts = [c.get("execution_count") or 0 for c in code]
            stopped_in = code[counts.index(max(counts))] if code and max(counts) else None
            for cell in code:
                unfinished = cell.get("execution_count") is None or cell is stopped_in
                if utils.is_grade(cell) and unfinished:
                    cell.outputs = cell.get("outputs", []) + [new_output(
                        "error", ename="NotRun", evalue=f"this test did not finish: {reason}", traceback=[])]
        return nb, resources


class KeepPointsOnWarnings(NbGraderPreprocessor):
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and utils.is_grade(cell):
            outputs = cell.get("outputs", [])
            if not any(o.output_type == "error" for o in outputs):
                cell.outputs = [self._as_display(o) if o.output_type == "stream" and o.name == "stderr" else o
                                for o in outputs]
        return cell, resources

    @staticmethod
    def _as_display(output):
        return new_output("display_data", data={"text/plain": output.text},
                          metadata={"graders": {"stderr": True}})
