"""`course collect`: submissions into DIR/submitted, from the exchange or from an LMS archive.

Both ways are nbgrader's own apps. From the exchange, nbgrader's collect with the course's
``CheckedCollect`` (named in the course's nbgrader_config.py, so the formgrader's Collect
button uses it too), which trusts nothing a student can write:

* **who**: a submission belongs to the Unix user who made it: the owner the exchange's warden
  recorded when it froze the folder (deploy/hub/warden.py), or the folder's owner where no
  warden runs. A folder named for someone else is refused and listed, and the rightful
  owner's own latest submission is the one collected. With a roster
  (``c.CheckedCollect.roster``), a name not on it is refused too, so no made-up id enters
  the gradebook.
* **when**: the time that counts is the latest change time (ctime) of the folder and its
  files, which no user can set (the warden records it; without one it is read here). The
  time the student's side wrote (the folder's name, timestamp.txt) is kept as
  claimed_timestamp.txt and shown beside it when they differ.
* **what**: regular files only, each with one name, under a size cap
  (graders.course.regular_files): links, FIFOs, devices, hard links and oversized files are
  refused and listed with the reason; nothing a link points to is ever read.
* where a warden runs (exchange/received/<course> exists), only frozen submissions are
  collected: one still in inbound is listed as waiting.

Nothing is dropped for being late: each collected submission is listed with its time and how
late it is against the gradebook's due date (set in the formgrader or with ``nbgrader db
assignment add ... --duedate``), and the time goes on to the gradebook when `course autograde`
grades it. From an LMS archive: nbgrader's zip collector (ZipCollectApp) with the course's
``c.FileNameCollectorPlugin.named_regexp``, else ``CANVAS``; with a roster, the names the LMS
puts in file names (its ``lms_id`` column) become the students' user names.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import pwd
import re
import shutil
import stat
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.exchange.default import ExchangeCollect
from nbgrader.plugins import FileNameCollectorPlugin
from nbgrader.utils import parse_utc
from traitlets import Float, Unicode

from . import regular_files
from .config import Course
from .exchange import CourseExchange, api, checked
from .layout import CourseError

# Canvas's "Download Submissions": <name>_[LATE_]<user id>_<submission id>_<file>[-<n>].ipynb
# (-<n> when the student uploaded the file again). The name is Canvas's lastnamefirstname;
# matched against the whole path, as nbgrader's FileNameCollectorPlugin does.
CANVAS = (r".*/(?P<student_id>[^/_]+)_(?:(?P<late>late|LATE)_)?\d+_\d+_"
          r"(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$")
RECEIVED = "received"      # exchange/received/<course>: submissions the warden froze
WARDEN_RECORD = "warden.json"
CLAIMED = "claimed_timestamp.txt"
STAMP = "%Y-%m-%d %H:%M:%S.%f UTC"
# a claimed time this far from the real one is shown beside it
CLAIM_TOLERANCE_S = 60


@dataclass
class Collected:
    student: str
    timestamp: datetime | None
    late_s: float   # seconds past the due date; 0 when on time or when there is no due date
    note: str       # "new", "updated", "unchanged" (the exchange) or "from <archive>"
    lms_late: bool = False


def stamp(when: datetime) -> str:
    """nbgrader's timestamp text of a UTC time (naive ones are UTC, as nbgrader's parse_utc gives)."""
    when = when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)
    return when.strftime(STAMP)


def read_roster(path: str | Path) -> list[dict]:
    """The roster's rows (deploy/hub/roster.py's CSV, written without passwords by setup)."""
    with open(path, newline="") as handle:
        return [{k: (v or "").strip() for k, v in row.items() if k} for row in csv.DictReader(handle)]


@dataclass
class Entry:
    """One submission folder in the exchange, as collect judges it."""
    name: str
    path: Path
    claimed: str                  # the student id its name gives
    claimed_time: datetime | None
    owner: str                    # who made it (the warden's record, or the folder's owner)
    time: datetime | None         # the time that counts (latest ctime)
    frozen: bool
    why: str = ""                 # why it is refused ("" when it is not)
    refused_files: tuple = ()     # [(path, why)] the warden refused inside it


def _utc(seconds: float) -> datetime:
    """A time as nbgrader keeps them: UTC, without a time zone (parse_utc's)."""
    return datetime.fromtimestamp(seconds, timezone.utc).replace(tzinfo=None)


def _owner_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class CheckedCollect(CourseExchange, ExchangeCollect):
    """nbgrader's collect that trusts nothing a student can write (see the module's docstring)."""

    max_file_mb = Float(50.0, help="The largest file collected from a submission (MiB)").tag(config=True)
    max_submission_mb = Float(100.0, help="The most collected from one submission (MiB)").tag(config=True)
    roster = Unicode("", help="A roster CSV (username,role,name,lms_id): only its students' submissions "
                              "are collected; empty: any local user's").tag(config=True)
    warden_wait_s = Float(15.0, help="How long to wait for the exchange's warden to freeze submissions "
                                     "still in inbound (made seconds ago) before listing them as waiting"
                          ).tag(config=True)

    def limits(self) -> regular_files.Limits:
        mb = regular_files.MB
        return regular_files.Limits(file_bytes=int(self.max_file_mb * mb), total_bytes=int(self.max_submission_mb * mb))

    def init_src(self):
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        received = Path(self.root) / RECEIVED / self.coursedir.course_id
        warden = received.is_dir()
        pattern = f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*"
        if warden:
            self._wait_for_warden(pattern)
        entries = []
        if warden:
            entries += [self._frozen(path) for path in sorted(received.glob(pattern))]
        if os.access(self.inbound_path, os.R_OK | os.X_OK):
            entries += [self._unfrozen(path, warden) for path in sorted(Path(self.inbound_path).glob(pattern))]
        elif not warden:
            self.fail(f"You don't have read permissions for the directory: {self.inbound_path}")
        students = self._roster_students()
        for entry in entries:
            if entry.why:
                continue
            if entry.owner != entry.claimed and entry.owner != "root":
                entry.why = f"named for {entry.claimed} but submitted by Unix user {entry.owner}"
            elif students is not None and entry.claimed not in students:
                entry.why = f"{entry.claimed} is not a student on the course's roster ({self.roster})"
        self.entries = entries
        due = self._due_date()
        chosen = {}
        for entry in sorted((e for e in entries if not e.why), key=lambda e: e.time):
            chosen.setdefault(entry.claimed, []).append(entry)
        for student, ordered in chosen.items():
            before = [e for e in ordered if due is not None and e.time <= due]
            # the latest; with nbgrader's --before-duedate, the latest before the due date if any
            chosen[student] = before[-1] if self.before_duedate and before else ordered[-1]
        self.src_records = [{"username": e.claimed, "filename": e.name, "timestamp": e.time, "entry": e}
                            for e in chosen.values()]
        for entry in entries:
            if entry.why:
                self.log.warning("refused %s: %s", entry.name, entry.why)

    def _wait_for_warden(self, pattern: str) -> None:
        """Until inbound holds none of this assignment's submissions (the warden freezes one a
        few seconds after its last change), or warden_wait_s has passed."""
        deadline = time.monotonic() + self.warden_wait_s
        while time.monotonic() < deadline:
            try:
                if not list(Path(self.inbound_path).glob(pattern)):
                    return
            except OSError:
                return
            time.sleep(0.5)

    def _due_date(self):
        with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gb:
            try:
                return gb.find_assignment(self.coursedir.assignment_id).duedate
            except MissingEntry:
                return None

    def _roster_students(self) -> set[str] | None:
        if not self.roster:
            return None
        return {row["username"] for row in read_roster(self.roster) if row.get("role", "student") == "student"}

    def _claims(self, path: Path) -> tuple[str, datetime | None]:
        parts = path.name.rsplit("+", 3)
        try:
            return parts[0], parse_utc(parts[2])
        except (IndexError, ValueError):
            return parts[0], None

    def _frozen(self, path: Path) -> Entry:
        claimed, claimed_time = self._claims(path)
        entry = Entry(path.name, path, claimed, claimed_time, "?", None, True)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
            entry.why = f"in {RECEIVED}/ but not made by the exchange's warden (owner {_owner_name(info.st_uid)})"
            return entry
        try:
            handle = os.open(path / WARDEN_RECORD, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(handle) as record_file:
                if os.fstat(record_file.fileno()).st_uid != 0:
                    raise ValueError("not written by root")
                record = json.load(record_file)
        except (OSError, ValueError) as error:
            entry.why = f"the warden's record is unreadable ({error})"
            return entry
        entry.owner = record.get("owner", "?")
        entry.time = parse_utc(record["changed"]) if record.get("changed") else None
        entry.refused_files = tuple(tuple(item) for item in record.get("refused", []))
        if record.get("refused_whole"):
            entry.why = record["refused_whole"]
        elif entry.time is None:
            entry.why = "the warden recorded no time for it"
        return entry

    def _unfrozen(self, path: Path, warden: bool) -> Entry:
        claimed, claimed_time = self._claims(path)
        info = os.lstat(path)
        entry = Entry(path.name, path, claimed, claimed_time, _owner_name(info.st_uid), None, False)
        if not stat.S_ISDIR(info.st_mode):
            entry.why = f"{regular_files.kind(info.st_mode)}, not a folder"
        elif warden:
            entry.why = ("still in inbound: not yet frozen by the exchange's warden (submitted seconds ago, "
                         "or the warden is not running: see docs/deploy.md); collect again later")
        else:
            try:
                entry.time = _utc(regular_files.copy_regular(path, None, self.limits()).changed)
            except (OSError, regular_files.NotAFolder) as error:
                entry.why = f"could not be read ({error})"
        return entry

    def copy_files(self):
        if not self.src_records:
            self.log.warning("No submissions of '%s' for course '%s' to collect",
                             self.coursedir.assignment_id, self.coursedir.course_id)
        self.outcome = {"collected": {}, "refused": [(e.name, e.why) for e in self.entries if e.why]}
        for record in self.src_records:
            entry, student = record["entry"], record["username"]
            dest = Path(self.coursedir.format_path(self.coursedir.submitted_directory, student,
                                                   self.coursedir.assignment_id))
            existing = self.coursedir.get_existing_timestamp(str(dest)) if dest.is_dir() else None
            if dest.is_dir() and not (self.update and (existing is None or entry.time > existing)):
                self.outcome["collected"][student] = "unchanged"
                continue
            note = "updated" if dest.is_dir() else "new"
            self._copy(entry, dest)
            self.outcome["collected"][student] = note
            self.log.info("Collected %s (%s) as %s", entry.name, note, student)

    def _copy(self, entry: Entry, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = dest.parent / f".{dest.name}.collecting-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        copied = regular_files.copy_regular(entry.path, staging, self.limits(), file_mode=0o644, dir_mode=0o755)
        refused = [*entry.refused_files, *copied.refused]
        (staging / WARDEN_RECORD).unlink(missing_ok=True)
        claimed = staging / "timestamp.txt"
        if claimed.is_file():
            claimed.rename(staging / CLAIMED)
        (staging / "timestamp.txt").write_text(stamp(entry.time))
        if dest.exists():
            shutil.rmtree(dest)
        staging.rename(dest)
        for path, why in refused:
            self.log.warning("refused %s/%s: %s", entry.name, path, why)


def _timestamps(course: Course, assignment: str) -> dict[str, tuple[datetime | None, datetime | None]]:
    """{student: (the time that counts, the time the student's side wrote)} of DIR/submitted."""
    found = {}
    for folder in sorted((course.dir / "submitted").glob(f"*/{assignment}")):
        times = []
        for name in ("timestamp.txt", CLAIMED):
            try:
                times.append(parse_utc((folder / name).read_text().strip()))
            except (OSError, ValueError):
                times.append(None)
        found[folder.parent.name] = tuple(times)
    return found


def due_date(course: Course, assignment: str) -> datetime | None:
    with Gradebook(course.db_url, course.config.CourseDirectory.course_id) as gb:
        try:
            return gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None


def _report(course: Course, assignment: str, notes: dict[str, str],
            lms_late: set[str] = frozenset()) -> list[Collected]:
    due = due_date(course, assignment)
    rows = []
    for student, (when, claimed) in _timestamps(course, assignment).items():
        if student not in notes:
            continue
        late = max(0.0, (when - due).total_seconds()) if when and due else 0.0
        note = notes[student]
        if when and claimed and abs((when - claimed).total_seconds()) > CLAIM_TOLERANCE_S:
            note += f"; the student's side claimed {claimed.isoformat(' ', 'seconds')}"
        rows.append(Collected(student, when, late, note, student in lms_late))
    return rows


class _Lines(logging.Handler):
    """A logger's warnings and errors, each whole (nbgrader's span several lines)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record):
        message = " ".join(part.strip() for part in record.getMessage().splitlines() if part.strip())
        self.lines.append(f"{record.levelname.lower()}: {message}")


def from_exchange(course: Course, assignment: str) -> tuple[list[Collected], list[str]]:
    """Collect every student's latest submission with the course's collect class; (the
    submissions collected, what was refused and every warning, one line each)."""
    from nbgrader.exchange import ExchangeError, ExchangeFactory
    from nbgrader.utils import temp_attrs

    nbgrader = api(course)
    lines = _Lines()
    with temp_attrs(nbgrader.coursedir, assignment_id=assignment):
        collect = ExchangeFactory(parent=nbgrader).Collect(coursedir=nbgrader.coursedir,
                                                         authenticator=nbgrader.authenticator, parent=nbgrader)
        collect.update = True
        collect.log.addHandler(lines)
        try:
            collect.start()
        except ExchangeError as error:
            raise CourseError(f"nbgrader could not collect {assignment}: {error}") from None
        finally:
            collect.log.removeHandler(lines)
    outcome = getattr(collect, "outcome", None)
    if outcome is None:  # a collect class of the course's own: every submission now there
        notes = {student: "collected" for student in _timestamps(course, assignment)}
    else:
        notes = outcome["collected"]
    return _report(course, assignment, notes), lines.lines


def from_archive(course: Course, assignment: str, archive: Path) -> tuple[list[Collected], list[str]]:
    """nbgrader's zip collector on one archive (or a single notebook) downloaded from an LMS;
    a student's earlier submitted copy is replaced. With a roster, the LMS's names are mapped
    to user names (its lms_id column) and a name not on it is skipped. (submissions
    collected, files skipped)."""
    from nbgrader.apps.zipcollectapp import ZipCollectApp
    from nbgrader.utils import capture_log, temp_attrs

    archive = Path(archive).resolve()
    if not archive.is_file():
        raise CourseError(f"no such file: {archive}")
    regexp = course.config.get("FileNameCollectorPlugin", {}).get("named_regexp") or CANVAS
    roster_file = course.config.get("CheckedCollect", {}).get("roster", "")
    folder = course.dir / "downloaded" / assignment / "archive"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(archive, folder / archive.name)
    plugin = {"named_regexp": regexp}
    if roster_file:
        plugin["roster"] = roster_file
    nbgrader = api(course, ZipCollectApp={"force": True, "collector_plugin": RosterNames},
                   ExtractorPlugin={"force": True}, RosterNames=plugin)
    with temp_attrs(nbgrader.coursedir, assignment_id=assignment):
        app = ZipCollectApp(coursedir=nbgrader.coursedir, parent=nbgrader)
        result = checked(capture_log(app), f"collect {archive.name}")
    taken = {}
    for line in result.get("log", "").splitlines():
        # nbgrader logs "Copying to: <DIR/submitted/<student>/<assignment>/<file>" for each
        found = re.search(r"Copying to: .*/submitted/([^/]+)/" + re.escape(assignment) + "/", line)
        if found:
            taken[found.group(1)] = f"from {archive.name}"
    lms_late = set()
    mapping = lms_names(roster_file) if roster_file else {}
    extracted = course.dir / "downloaded" / assignment / "extracted"
    for path in extracted.rglob("*.ipynb"):
        match = re.match(regexp, str(path))
        student = match and mapping.get(match["student_id"], match["student_id"])
        if match and match.groupdict().get("late") and student in taken:
            taken[student] += ", marked late by the LMS"
            lms_late.add(student)
    skipped = [line for line in result.get("log", "").splitlines()
               if "Skipped" in line or "did not match" in line or "not on the roster" in line]
    return _report(course, assignment, taken, lms_late), skipped


def lms_names(roster_file: str) -> dict[str, str]:
    """{the name the LMS puts in file names: user name} from the roster's lms_id column."""
    return {row["lms_id"]: row["username"] for row in read_roster(roster_file) if row.get("lms_id")}



class RosterNames(FileNameCollectorPlugin):
    """nbgrader's file-name collector, with the LMS's name of each student turned into their
    user name through the roster (its lms_id column); a name not on it is skipped."""

    roster = Unicode("", help="the roster CSV; empty: names are kept as the LMS writes them").tag(config=True)

    def collect(self, submission_file):
        info = super().collect(submission_file)
        if info is None or not self.roster:
            return info
        mapping = lms_names(self.roster)
        students = set(mapping.values())
        name = info["student_id"]
        if name in mapping:
            info["student_id"] = mapping[name]
        elif name not in students:
            self.log.warning("Skipped %s: %s is not on the roster (its lms_id column)", submission_file, name)
            return None
        return info


def table(rows: list[Collected]) -> str:
    lines = [f"{'student':<20} {'submitted (UTC)':<26} {'late':>10}  note"]
    for row in rows:
        late = f"{row.late_s:.0f} s" if row.late_s else ""
        when = row.timestamp.isoformat(" ", "seconds") if row.timestamp else "(no timestamp)"
        lines.append(f"{row.student:<20} {when:<26} {late:>10}  {row.note}")
    late = sum(1 for row in rows if row.late_s or row.lms_late)
    by_lms = sum(1 for row in rows if row.lms_late and not row.late_s)
    lines.append(f"{len(rows)} submission(s), {late} late"
                 + (f" ({by_lms} marked late by the LMS)" if by_lms else "")
                 + (" (kept and graded; the gradebook records how late)" if late else ""))
    return "\n".join(lines)
