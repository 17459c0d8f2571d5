"""nbgrader's own autograde, made safe: the formgrader's Autograde button and `nbgrader
autograde` run a submission the way `course autograde` does.

nbgrader's Autograde executes a submission with its Execute preprocessor: a plain kernel, as
whoever runs it, the instructor when the formgrader's button is pressed, with every hidden
test's verdict reached inside the student's interpreter. The course's nbgrader_config.py
puts ``SandboxedExecute`` in Execute's place (``c.Autograde.autograde_preprocessors``), and it
does what a `course autograde` worker does between nbgrader's two halves
(graders.autograde.pipeline): the static review, judged test cells split, the integrity
canaries, execution in the bubblewrap sandbox with the course's limits, the observations
judged here against the reference run's (graders.course.reference). nbgrader's remaining
steps (SaveAutoGrades and the rest) then score the verdicts the outputs carry.

`course autograde` itself never runs this step: its finishing half swaps any Execute, this
one included, for ExecutedElsewhere (graders.autograde.finish).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_output
from nbgrader.coursedir import CourseDirectory
from nbgrader.preprocessors import Execute

from . import integrity, judging, review, worker


class SandboxedExecute(Execute):
    def preprocess(self, nb, resources):
        from graders.course import reference
        from graders.course.config import Course

        coursedir = CourseDirectory(config=self.config)
        course = Course(Path(coursedir.root))
        assignment = resources["nbgrader"]["assignment"]
        limits = course.limits()
        prepared = reference.prepare(course.dir, assignment, limits, cache=True, log=self.log.info)
        released = course.dir / "release" / assignment / f"{assignment}.ipynb"
        flags = review.review(nb, nbformat.read(str(released), as_version=4)) if released.exists() else []
        run_nb, plan = judging.prepare(nb)
        run_nb, check = integrity.instrument(run_nb, integrity.structure(nb))
        folder = Path(resources.get("metadata", {}).get("path") or ".")
        outcome = worker.execute_in(folder, run_nb, limits.values(), True, check.prologue,
                                    str(prepared.cache) if prepared.cache else None, check.nonce)
        observed = judging.collect(outcome.notebook) if outcome.notebook is not None else judging.Observations()
        outcome = integrity.conclude(outcome, check)
        findings = outcome.findings + observed.findings
        graded = outcome.notebook if outcome.notebook is not None else nbformat.from_dict(nb)
        if findings or outcome.notebook is None:
            why = "tampering: " + "; ".join(findings) if findings else f"{outcome.status}: {outcome.reason}"
            for cell in graded.cells:
                if judging.is_test_cell(cell):
                    cell.source = plan.sources.get(cell.metadata["nbgrader"]["grade_id"], cell.source)
                    cell.outputs = [new_output("error", ename="NotRun", evalue=f"not graded ({why})", traceback=[])]
        elif plan:
            verdicts = judging.judge_all(plan, observed, prepared.observations or judging.Observations())
            judging.apply(graded, plan, verdicts)
        self._note(graded, review.affected(nb, flags), [f.quote() for f in flags])
        if outcome.status != "ok":
            self.log.warning("%s: %s", outcome.status, outcome.reason)
        return graded, resources

    @staticmethod
    def _note(nb, grade_ids: list[str], quoted: list[str]) -> None:
        """The review's flags, said under each test cell they affect (nbgrader's own steps
        have no place for them; `course autograde` also marks the cells for grading by hand)."""
        if not quoted:
            return
        text = "Flagged for a grader's look (the static review):\n" + "\n".join(f"  {q}" for q in quoted) + "\n"
        for cell in nb.cells:
            if judging.is_test_cell(cell) and cell.metadata["nbgrader"]["grade_id"] in grade_ids:
                cell.outputs = list(cell.get("outputs", [])) + [new_output("stream", name="stdout", text=text)]
