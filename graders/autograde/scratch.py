"""One submission's nbgrader course directory, made on the worker that grades it.

nbgrader's converters work on a course directory: Autograde reads DIR/submitted/<s>/<a>/,
copies the master files of DIR/source/<a>/ over it, asks the gradebook what the
assignment's cells were, and writes DIR/autograded/<s>/<a>/ and the grades. A worker (a
grading thread, a Dask worker on another machine) sees none of the course, so it makes a
scratch one holding this submission only: the master files and the gradebook's record of
the assignment come with the Assignment (graders.autograde.pipeline), the submitted files
and the student's grades so far with the Submission. nbgrader's own converters run on it,
configured by the course's nbgrader_config.py (carried with the Assignment) with the
course directory and the gradebook pointed at the scratch ones.

The scratch gradebook of an assignment is built once per worker process and copied per
submission (a file copy); each submission's course is deleted when it is done with.

Where: a folder of this process's own under the course directory, DIR/.scratch/<host>-<pid>-
<start>/ (the scratch gradebooks hold the hidden tests: they stay inside the instructor's
course directory, never in the system's temporary folder), removed when the process ends
(atexit, and multiprocessing's finalizers in a worker process, which never runs atexit); the
folder of a process that ended otherwise (killed) is removed by the next process that makes
one. A worker that does not see the course directory (a Dask worker on another machine) uses
a folder of the same name in its temporary folder, swept the same way.
"""

from __future__ import annotations

import copy
import logging
import multiprocessing.util
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path

import nbformat
import nbgrader.api
from nbconvert.writers import FilesWriter
from nbgrader.converters import Autograde, GenerateFeedback
from nbgrader.converters.base import BaseConverter
from nbgrader.coursedir import CourseDirectory
from sqlalchemy import create_engine as _create_engine

from . import recorded
from .finish import FinishAutograde, sanitizing_preprocessors
from .status import Record, StatusStore
from .worker import read_files, write_files

_LOG = logging.getLogger("graders.nbgrader")  # nbgrader's warnings about a submission: its status says it
_LOG.setLevel(logging.ERROR)


SCRATCH = ".scratch"


def _started(pid: int) -> str | None:
    """A process's start time (clock ticks since boot), None when it is not running."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


class _Scratch:
    """This process's scratch folder (see the module's docstring)."""

    def __init__(self, short: bool = False):
        self.lock = threading.Lock()
        self.pid, self.folder = None, None
        self.short = short

    def folder_for(self, course_root: str | None) -> Path:
        with self.lock:
            if self.pid != os.getpid() or self.folder is None or not self.folder.is_dir():
                self.pid = os.getpid()
                base = Path(course_root) / SCRATCH if course_root and os.access(course_root, os.W_OK) \
                    and not self.short else Path(tempfile.gettempdir()) / "graders-scratch"
                base.mkdir(mode=0o700, exist_ok=True)
                host = socket.gethostname()
                _sweep(base, host)
                self.folder = base / f"{host}-{self.pid}-{_started(self.pid)}"
                self.folder.mkdir(mode=0o700, exist_ok=True)
                # removed at exit by multiprocessing's finalizers (they run in a worker process
                # too, which ends without atexit), after multiprocessing's own temporary folder
                # (priority -100), which may live inside it
                multiprocessing.util.Finalize(None, shutil.rmtree, args=(self.folder, True), exitpriority=-200)
            return self.folder


def _sweep(base: Path, host: str) -> None:
    """Remove the folders of this host's processes that have ended."""
    for folder in base.glob(f"{host}-*"):
        try:
            pid, started = folder.name[len(host) + 1:].split("-", 1)
            if _started(int(pid)) != started:
                shutil.rmtree(folder, ignore_errors=True)
        except ValueError:
            continue


_SCRATCH = _Scratch()
_SHORT = _Scratch(short=True)


def process_scratch(course_root: str | None) -> Path:
    """This process's scratch folder (under ``course_root`` when it can write there)."""
    return _SCRATCH.folder_for(course_root)


# multiprocessing's forkserver binds a socket at <tempdir>/pymp-XXXXXXXX/listener-XXXXXXXX, and
# a socket's path may not be longer than 107 bytes
SOCKET_ROOM = 107 - len("/pymp-12345678/listener-12345678")


def temporary_folder(course_root: str | None) -> Path:
    """Where this process's temporary files go: its scratch folder under ``course_root``, or,
    when that path leaves no room for a socket under it, a scratch folder of the same kind in
    the system's temporary folder (swept alike once its process has ended)."""
    folder = process_scratch(course_root)
    return folder if len(str(folder)) <= SOCKET_ROOM else _SHORT.folder_for(None)


class _Gradebooks:
    """This process's scratch gradebooks: each assignment's rebuilt once (keyed by the
    Assignment's token) and copied, per submission, to the file of the grading thread that
    grades it. nbgrader opens a Gradebook, and so a new SQLAlchemy engine, in each of its
    steps (ten per submission), and an engine's statements are compiled afresh: the thread's
    file keeps one engine, its compiled statements with it (0.21 CPU-s of a 01 submission's
    nbgrader steps were 0.1 in engines and compiling, measured)."""

    def __init__(self):
        self.lock = threading.RLock()  # (a rebuild opens a Gradebook, which asks create_engine)
        self.pid = None

    def _own(self, course_root: str | None) -> None:
        """State of this process's own: a worker process forked after this module's import
        (the feedback's process pool) must not share its parent's files."""
        if self.pid != os.getpid() or not getattr(self, "folder", None) or not self.folder.is_dir():
            self.pid, self.built, self.engines = os.getpid(), {}, {}
            self.folder = Path(tempfile.mkdtemp(prefix="gradebooks-", dir=_SCRATCH.folder_for(course_root)))

    def place(self, token: str, record: recorded.AssignmentRecord, course_root: str | None = None) -> str:
        """The calling thread's scratch gradebook, holding ``record``'s assignment; its URL."""
        with self.lock:
            self._own(course_root)
            if token not in self.built:
                path = self.folder / f"{token}.db"
                recorded.rebuild(record, f"sqlite:///{path}")
                self.built[token] = path
            built = self.built[token]
        target = self.folder / f"thread-{threading.get_native_id()}.db"
        url = f"sqlite:///{target}"
        if url in self.engines:
            self.engines[url].dispose()  # no connection to the file it replaces
        shutil.copyfile(built, target)
        return url

    def create_engine(self, url, *args, **kwargs):
        """nbgrader's create_engine: a thread's scratch gradebook keeps its engine."""
        if self.pid != os.getpid() or not str(url).startswith(f"sqlite:///{self.folder}/"):
            return _create_engine(url, *args, **kwargs)
        with self.lock:
            if url not in self.engines:
                self.engines[url] = _create_engine(url, *args, **kwargs)
            return self.engines[url]


_GRADEBOOKS = _Gradebooks()
nbgrader.api.create_engine = _GRADEBOOKS.create_engine


class ScratchCourse:
    """A course directory with one assignment, one student and a gradebook of its own."""

    def __init__(self, assignment, student: str, submitted: dict[str, bytes] | Path,
                 graders_state: recorded.SubmissionState | None = None):
        self.assignment, self.student = assignment, student
        course_root = assignment.config.get("CourseDirectory", {}).get("root")
        self.root = Path(tempfile.mkdtemp(prefix="course-", dir=_SCRATCH.folder_for(course_root)))
        try:
            self._fill(submitted, graders_state)
        except BaseException:
            self.close()
            raise

    def _fill(self, submitted, graders_state) -> None:
        assignment, student = self.assignment, self.student
        self.config = copy.deepcopy(assignment.config)
        self.config.CourseDirectory.root = str(self.root)
        self.config.CourseDirectory.db_url = _GRADEBOOKS.place(assignment.token, assignment.record,
                                                               assignment.config.CourseDirectory.root)
        self.config.CourseDirectory.course_id = assignment.record.course_id
        self.coursedir = CourseDirectory(config=self.config)
        write_files(self.folder("source_directory", "."), assignment.master_files)
        if isinstance(submitted, Path):
            shutil.copytree(submitted, self.folder("submitted_directory"), symlinks=True)
        else:
            write_files(self.folder("submitted_directory"), submitted)
        if graders_state is not None:
            recorded.add_submission(self.coursedir.db_url, assignment.record, student, graders_state)

    def folder(self, kind: str, student: str | None = None) -> Path:
        """DIR/<kind>/<student>/<assignment>, as nbgrader names it."""
        return Path(self.coursedir.format_path(getattr(self.coursedir, kind), student or self.student,
                                               self.assignment.name))

    def notebook(self, kind: str) -> Path:
        return self.folder(kind) / f"{self.assignment.name}.ipynb"

    def sanitize(self):
        """nbgrader's Autograde, first half: the student and submission in the gradebook, the
        master files copied, the sanitize steps; the sanitized notebook. Raises what they raise."""
        converter = Autograde(coursedir=self.coursedir, config=self.config, log=_LOG)
        converter.sanitize_preprocessors = sanitizing_preprocessors(
            self.config.Autograde.get("sanitize_preprocessors"))
        converter.writer = FilesWriter(parent=converter, config=converter.config)
        converter.exporter = converter.exporter_class(parent=converter, config=converter.config)
        converter.notebooks = [str(self.notebook("submitted_directory"))]
        converter.init_assignment(self.assignment.name, self.student)
        converter._sanitizing = True
        converter._init_preprocessors()
        BaseConverter.convert_single_notebook(converter, converter.notebooks[0])
        return nbformat.read(str(self.notebook("autograded_directory")), as_version=4)

    def finish(self, nb, outcome: dict) -> None:
        """nbgrader's Autograde, second half, on the notebook executed in the sandbox."""
        finisher = FinishAutograde(coursedir=self.coursedir, config=self.config, log=_LOG,
                                   steps=self.config.Autograde.get("autograde_preprocessors"))
        finisher.finish(nb, self.assignment.name, self.student, outcome)

    def autograded(self) -> dict[str, bytes]:
        """DIR/autograded/<s>/<a>/, as nbgrader left it."""
        return read_files(self.folder("autograded_directory"))

    def state(self) -> recorded.SubmissionState:
        return recorded.read_back(self.coursedir.db_url, self.assignment.record, self.student)

    def feedback(self, autograded: dict[str, bytes], mtime: float, record: Record | None) -> dict[str, bytes]:
        """nbgrader's GenerateFeedback on this submission (its autograded folder's files, the
        notebook's mtime, its status record): DIR/feedback/<s>/<a>/'s files."""
        write_files(self.folder("autograded_directory"), autograded)
        os.utime(self.notebook("autograded_directory"), (mtime, mtime))  # the page's date is the file's
        if record is not None:  # for the status banner, which reads the course's status file
            store = StatusStore(self.root)
            store.put(record)
            store.compact()
        converter = GenerateFeedback(coursedir=self.coursedir, config=self.config, log=_LOG)
        converter.writer = FilesWriter(parent=converter, config=converter.config)
        converter.exporter = converter.exporter_class(parent=converter, config=converter.config)
        for step in converter.preprocessors:
            converter.exporter.register_preprocessor(step)
        converter.notebooks = [str(self.notebook("autograded_directory"))]
        converter.init_assignment(self.assignment.name, self.student)
        converter.convert_single_notebook(converter.notebooks[0])
        return read_files(self.folder("feedback_directory"))

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
