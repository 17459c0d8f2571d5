"""FeedbackSummary: the top of a feedback page lists every exercise by its name, with its
score and, where points were lost, the one-line message the student's test cell showed (what
they probably believed), each linked to its cell.

A preprocessor of GenerateFeedback (listed in the course's nbgrader_config.py after the
scrubber and nbgrader's GetGrades, so that it reads scrubbed outputs and the grades), read by
the course's feedback template (templates/course_feedback, in place of nbgrader's list of
"Test cell (Score: …)" lines). Names and messages come from helpers.verdicts, which the
student's Validate uses too.
"""

from __future__ import annotations

from pathlib import Path

from nbconvert.exporters import HTMLExporter
from nbgrader.preprocessors import NbGraderPreprocessor

from graders.feedback.sanitize import SanitizeOutputs
from helpers import verdicts

TEMPLATE = "course_feedback"  # graders/feedback/templates/course_feedback, on nbgrader's 'feedback'
TEMPLATE_FILE = "course.html.j2"


def template_dirs() -> list[str]:
    """HTMLExporter.extra_template_basedirs for the course's page: nbgrader's templates (its
    'feedback', which ours extends; naming these dirs replaces nbgrader's default) and ours."""
    import nbgrader
    nbgrader_templates = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
    return [str(nbgrader_templates), str(Path(__file__).resolve().parent / "templates")]


def rows(nb) -> list[dict]:
    """One row per graded test cell: name, anchor (the cell's grade_id: nbgrader's template
    puts an anchor there), score text, lost or not, message (empty for full marks: the page
    then says so in words)."""
    found = []
    for v in verdicts.verdicts(nb):
        score = "not run" if v.score is None else f"{v.score:g} / {v.points:g}"
        if v.score is None:
            message = v.message or "This cell did not run (see the status above)."
        elif v.lost:
            message = v.message or "Some of its checks failed, the hidden ones included."
        else:
            message = "Every check passed."
        found.append({"name": v.name, "anchor": v.grade_id, "score_text": score,
                      "lost": v.score is None or v.lost, "message": message})
    return found


class FeedbackSummary(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        resources["course_summary"] = rows(nb)
        return nb, resources


class FeedbackPage(HTMLExporter):
    """GenerateFeedback's exporter (``c.GenerateFeedback.exporter_class``): an HTMLExporter
    whose own config section (``c.FeedbackPage.*``) names the course's template. Set on
    HTMLExporter itself, the template would reach every HTMLExporter the course's config
    feeds, and the formgrader's manual-grading page would look for it (and fail)."""

    def from_notebook_node(self, nb, resources=None, **kw):
        # The sanitizer is one of c.HTMLExporter.preprocessors, which nbconvert registers
        # before GenerateFeedback's steps: it would turn the markdown into HTML before the
        # summary reads the exercises' names from its headings. On this page it runs right
        # after the summary, still before anything is rendered.
        sanitizers = [p for p in self._preprocessors if isinstance(p, SanitizeOutputs)]
        rest = [p for p in self._preprocessors if not isinstance(p, SanitizeOutputs)]
        at = next((i + 1 for i, p in enumerate(rest) if isinstance(p, FeedbackSummary)), len(rest))
        self._preprocessors = rest[:at] + sanitizers + rest[at:]
        return super().from_notebook_node(nb, resources, **kw)
