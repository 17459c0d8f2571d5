"""The course's configuration: DIR/nbgrader_config.py, read by `course` as nbgrader reads it.

One file serves both `course` and nbgrader's own tools (`nbgrader generate_feedback`, the
formgrader's buttons, Release/Collect): it carries the exchange root, the student copy's
extra release step and the hidden-test scrubber of the feedback, so that every path
through nbgrader sees the same course. `course` loads it the way nbgrader's apps do
(Jupyter's config path, then the course directory's file) and layers on top only what
its own design needs; each of those overrides that collides with a setting in the file is
said once at start-up, with its reason (``Course.notes``).
"""

from __future__ import annotations

import copy
from pathlib import Path

from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from graders.sandbox.limits import Limits

COURSE_ID = "torch-mental-model"
FILENAME = "nbgrader_config.py"
SCRUBBER = "graders.feedback.scrub.ScrubHiddenTests"
BANNER = "graders.feedback.banner.StatusBanner"
SUMMARY = "graders.feedback.summary.FeedbackSummary"
PAGE = "graders.feedback.summary.FeedbackPage"
GET_GRADES = "nbgrader.preprocessors.GetGrades"
TAGGER = "graders.course.student_copy.TagCellsThatMayFail"
SANDBOXED = "graders.autograde.sandboxed.SandboxedExecute"
MARKERS = "graders.course.student_copy.ClearMarkers"
SANITIZER = "graders.feedback.sanitize.SanitizeOutputs"
# every exchange action, with the course's class for it (graders.course.exchange, .collect)
FACTORY = {
    "fetch_assignment": "graders.course.exchange.Fetch",
    "fetch_feedback": "graders.course.exchange.FetchFeedback",
    "list": "graders.course.exchange.List",
    "submit": "graders.course.exchange.PrivateSubmit",
    "release_assignment": "graders.course.exchange.PublishingRelease",
    "release_feedback": "graders.course.exchange.ReleaseFeedback",
    "collect": "graders.course.collect.CheckedCollect",
}
FACTORY_LINES = "\n".join(f"c.ExchangeFactory.{action} = {name!r}" for action, name in FACTORY.items())
ROSTER_DEFAULT = "# c.CheckedCollect.roster = '/path/to/roster.csv'  # only its students' submissions are collected"

LOCAL_ROOT = 'c.CourseDirectory.root = __file__.rsplit("/", 1)[0]'
LOCAL_EXCHANGE = 'c.Exchange.root = c.CourseDirectory.root + "/exchange"'

CONFIG_TEXT = f'''\
# Written by `course`; edit freely; `course` only rewrites this file when it is missing.
# nbgrader's own tools (nbgrader generate_feedback, the formgrader) read this file too.
c = get_config()  # noqa
c.CourseDirectory.course_id = "{COURSE_ID}"
{LOCAL_ROOT}
# nbgrader's exchange, where releases go out and submissions and feedback travel. The course
# directory's own (the default) serves the formgrader's Release/Collect alone; a hub's shared
# one (deploy/hub/setup.py writes its path here) is what students' Assignment List reads, and
# `course release` then publishes there too (graders.course.exchange).
{LOCAL_EXCHANGE}
# Students' copies go to <course_id>/<assignment>, so one exchange serves several courses.
c.Exchange.path_includes_course = True
# nbgrader's exchange classes with the course's checks (graders.course.exchange): a submission
# is its Unix user's, readable by the course's group only; the exchange root need not be
# world-writable; collect takes regular files only, from their real owner, at a time the
# student cannot set (graders.course.collect.CheckedCollect: its limits and roster below).
{FACTORY_LINES}
# c.CheckedCollect.max_file_mb = 50
# c.CheckedCollect.max_submission_mb = 100
{ROSTER_DEFAULT}
# Student-made HTML and JavaScript never run where an instructor or a student reads a notebook:
# the formgrader's pages and the feedback pages (both HTMLExporters) render outputs and
# markdown sanitized (graders.feedback.sanitize: scripts, event handlers, javascript: links,
# iframes, JavaScript and widget output removed).
c.HTMLExporter.preprocessors = ["{SANITIZER}"]
# The per-cell time limit of autograding (notebooks that train small models need more than
# nbgrader's 30 s); `course autograde --cell-timeout` overrides it for one run.
c.Execute.timeout = 120
# nbgrader's own autograde (the formgrader's Autograde button, `nbgrader autograde`) runs a
# submission as `course autograde` does, never in a plain kernel as the instructor: the
# sandbox, the judges outside the kernel, the guard and the review
# (graders.autograde.sandboxed.SandboxedExecute in Execute's place).
c.Autograde.autograde_preprocessors = [
    "{SANDBOXED}", "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor", "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades", "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
]
# The student copy tags answer and test cells raises-exception, so Run All goes past them,
# and its test cells show no misconception markers (they are for `course report`).
c.GenerateAssignment.preprocessors = [
    "nbgrader.preprocessors.IncludeHeaderFooter", "nbgrader.preprocessors.InstantiateTests",
    "nbgrader.preprocessors.LockCells", "nbgrader.preprocessors.ClearSolutions",
    "nbgrader.preprocessors.ClearOutput", "nbgrader.preprocessors.CheckCellMetadata",
    "nbgrader.preprocessors.ComputeChecksums", "nbgrader.preprocessors.SaveCells",
    "nbgrader.preprocessors.ClearHiddenTests", "nbgrader.preprocessors.ClearMarkScheme",
    "nbgrader.preprocessors.ComputeChecksums", "nbgrader.preprocessors.CheckCellMetadata",
    "{MARKERS}", "{TAGGER}",
]
# Feedback (from `course feedback` and from the formgrader alike): hidden tests' code and
# misconception markers removed, the grading status on top, then a summary of every exercise
# (its name, score and, for lost points, what its checks said) in place of nbgrader's list.
c.GenerateFeedback.preprocessors = [
    "{SCRUBBER}", "{BANNER}",
    "{GET_GRADES}", "{SUMMARY}", "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
# The page's template belongs to the feedback's own exporter (an HTMLExporter subclass), so
# that every other HTMLExporter, the formgrader's manual-grading page among them, keeps its own.
import graders.feedback.summary  # noqa: E402
c.GenerateFeedback.exporter_class = "{PAGE}"
c.FeedbackPage.template_name = graders.feedback.summary.TEMPLATE
c.FeedbackPage.template_file = graders.feedback.summary.TEMPLATE_FILE
c.FeedbackPage.extra_template_basedirs = graders.feedback.summary.template_dirs()
# Limits of `course autograde` per submission (flags of the same name override these):
# c.Limits.memory_mb = 2048
# c.Limits.notebook_timeout_s = 600
# c.Limits.max_processes = 64
# c.Limits.max_output_chars = 100000
# An assignment that calls torch.compile is graded with a private copy of a compile cache
# warmed by one run of its reference notebook (DIR/compile_cache): False compiles cold.
# c.CompileCache.enabled = True
'''


def config_text(exchange_root: str | None = None, root: str | None = None, roster: str | None = None) -> str:
    """CONFIG_TEXT, with a shared exchange at ``exchange_root`` instead of the course's own,
    the course directory named (``root``) rather than found beside the file, for a file
    that is also read from elsewhere (a hub's students read it from a shared folder), and
    the roster whose students alone are collected."""
    text = CONFIG_TEXT
    if roster is not None:
        text = text.replace(ROSTER_DEFAULT, f"c.CheckedCollect.roster = {str(roster)!r}")
    if exchange_root is not None:
        text = text.replace(LOCAL_EXCHANGE, f"c.Exchange.root = {str(exchange_root)!r}")
    if root is not None:
        text = text.replace(LOCAL_ROOT, f"c.CourseDirectory.root = {str(root)!r}")
    return text


def load(course_dir: Path) -> Config:
    """What nbgrader's apps load: nbgrader_config.py from Jupyter's config path (lowest
    priority first), then the one in the course directory."""
    from jupyter_core.paths import jupyter_config_path

    config = Config()
    folders = [*reversed(jupyter_config_path()), str(course_dir)]
    for folder in dict.fromkeys(folders):
        if (Path(folder) / FILENAME).is_file():
            config.merge(PyFileConfigLoader(FILENAME, folder).load_config())
    return config


def _name(step) -> str:
    return step if isinstance(step, str) else f"{step.__module__}.{step.__qualname__}"


class Course:
    """The course's Config with `course`'s necessary overrides, and what they overrode."""

    def __init__(self, course_dir: Path):
        self.dir = Path(course_dir).resolve()
        self.file = load(self.dir)
        self.config = copy.deepcopy(self.file)  # (Config.merge would share its sections)
        self.notes: list[str] = []
        self._set("CourseDirectory", "root", str(self.dir),
                  "the course directory is the one `course` was given (--course-dir)")
        if "course_id" not in self.config.CourseDirectory:
            self.config.CourseDirectory.course_id = COURSE_ID
        if "root" not in self.config.Exchange:
            self._missing("Exchange.root", "the formgrader's Release/Collect would look for "
                          "nbgrader's default exchange")
            self.config.Exchange.root = str(self.dir / "exchange")
        listed = list(map(_name, self.config.GenerateAssignment.get("preprocessors", [])))
        if TAGGER not in listed or MARKERS not in listed:
            from nbgrader.converters import GenerateAssignment
            steps = list(self.config.GenerateAssignment.get(
                "preprocessors", GenerateAssignment.class_traits()["preprocessors"].default()))
            self.config.GenerateAssignment.preprocessors = steps + [
                step for step in (MARKERS, TAGGER) if step not in listed]
        feedback = list(map(_name, self.config.GenerateFeedback.get("preprocessors", [])))
        if SCRUBBER not in feedback or BANNER not in feedback:
            self._missing("GenerateFeedback.preprocessors (the scrubber and the status banner)",
                          "nbgrader generate_feedback and the formgrader would show hidden tests")
            from nbgrader.converters import GenerateFeedback
            steps = feedback or list(map(_name, GenerateFeedback.class_traits()["preprocessors"].default()))
            self.config.GenerateFeedback.preprocessors = (
                [SCRUBBER, BANNER] + [s for s in steps if s not in (SCRUBBER, BANNER)])
        self._feedback_summary()
        self._sanitizer()
        # nbconvert validates the whole notebook after each of autograde's preprocessors (13
        # schema checks, about 45 ms of the main process per submission); once, after the
        # last, is enough to refuse a malformed result. A value in the file wins.
        if "optimistic_validation" not in self.config.Exporter:
            self.config.Exporter.optimistic_validation = True
        # deleted test cells come back from the gradebook rather than silently scoring nothing
        self._set("OverwriteCells", "add_missing_cells", True,
                  "a test cell deleted from a submission is restored from the gradebook")
        ignored = sorted(k for k in self.file.get("Execute", {}) if k != "timeout") + \
            sorted(k for k in self.file.get("ExecutePreprocessor", {}) if k != "timeout")
        if ignored:
            self.notes.append(f"Execute.{', Execute.'.join(ignored)} not used: `course autograde` "
                              "executes in its own sandboxed runner (Execute.timeout and c.Limits.* apply)")

    def _feedback_summary(self) -> None:
        """The page's summary (graders.feedback.summary), for a course file written before it:
        its step after GetGrades and its template."""
        from graders.feedback import summary
        steps = list(map(_name, self.config.GenerateFeedback.preprocessors))
        if SUMMARY not in steps:
            self._missing("the feedback summary (GenerateFeedback and FeedbackPage settings)",
                          "feedback pages would list 'Test cell' scores without names or reasons")
            at = steps.index(GET_GRADES) + 1 if GET_GRADES in steps else len(steps)
            self.config.GenerateFeedback.preprocessors = steps[:at] + [SUMMARY] + steps[at:]
        if "exporter_class" not in self.config.GenerateFeedback:
            self.config.GenerateFeedback.exporter_class = PAGE
        if "template_name" not in self.config.FeedbackPage:
            self.config.FeedbackPage.template_name = summary.TEMPLATE
            self.config.FeedbackPage.template_file = summary.TEMPLATE_FILE
            self.config.FeedbackPage.extra_template_basedirs = summary.template_dirs()

    def _sanitizer(self) -> None:
        """Sanitized pages (graders.feedback.sanitize), for a course file written before them:
        `course feedback` adds it here; the formgrader reads the file and needs the lines."""
        steps = list(map(_name, self.config.HTMLExporter.get("preprocessors", [])))
        if SANITIZER not in steps:
            self._missing("the sanitizer (c.HTMLExporter.preprocessors)",
                          "the formgrader would run scripts a submission's outputs carry")
            self.config.HTMLExporter.preprocessors = steps + [SANITIZER]

    @property
    def db_url(self) -> str:
        """The gradebook: ``c.CourseDirectory.db_url`` (PostgreSQL, say), else nbgrader's
        default, sqlite:///DIR/gradebook.db."""
        from nbgrader.coursedir import CourseDirectory
        return CourseDirectory(config=self.config).db_url

    def _set(self, section: str, key: str, value, why: str) -> None:
        given = self.file.get(section, {}).get(key, value)
        if given != value:
            self.notes.append(f"{section}.{key} = {given!r} overridden by {value!r}: {why}")
        getattr(self.config, section)[key] = value

    def _missing(self, option: str, why: str) -> None:
        self.notes.append(f"{option} missing from {FILENAME}: added for this run ({why}; "
                          f"delete the file and run `course release` to regenerate it)")

    def limits(self, **flags) -> Limits:
        """Limits from ``c.Limits.*``, the per-cell one from ``c.Execute.timeout``, each
        overridden by a flag given (None: not given). The result is written back into the
        config, so nbgrader's Execute and the runner agree on one per-cell limit."""
        given = {k: v for k, v in flags.items() if v is not None}
        if "cell_timeout_s" not in given:
            from_limits = self.file.get("Limits", {}).get("cell_timeout_s")
            from_execute = self.file.get("Execute", {}).get(
                "timeout", self.file.get("ExecutePreprocessor", {}).get("timeout"))
            if from_limits is not None and from_execute is not None and from_limits != from_execute:
                self.notes.append(f"Execute.timeout = {from_execute!r} overridden by "
                                  f"Limits.cell_timeout_s = {from_limits!r}: one per-cell limit")
            cell = from_limits if from_limits is not None else from_execute
            if cell is not None and cell > 0:
                given["cell_timeout_s"] = float(cell)
        limits = Limits(config=self.config, **given)
        self.config.Execute.timeout = int(limits.cell_timeout_s)
        return limits

    def nbgrader(self, **overrides) -> Config:
        """A copy of the config with `course`'s internal per-step settings on top."""
        config = copy.deepcopy(self.config)
        for section, values in overrides.items():
            for key, value in values.items():
                getattr(config, section)[key] = value
        return config
