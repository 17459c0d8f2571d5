"""A class's whole cycle through nbgrader's exchange, timed: release, N submissions, collect,
autograde, feedback, return (root: the students are Unix users).

A throwaway class (deploy.hub.throwaway: an instructor and N students, fresh Unix users, the
exchange and course directory of deploy.hub.setup, all removed afterwards). Each phase is
what the people would run, as those Unix users:

- release:  `course release 01_tensors` as the instructor (generate, publish to the exchange);
- submit:   per student, `nbgrader fetch_assignment`, the answers written into the fetched
            copy (a third the reference answers, a third every other exercise wrong, a third
            untouched), `nbgrader submit`; --parallel students at a time (default 4), as a
            class submits around a deadline;
- collect, autograde (--workers, default: cores), feedback, return: `course ...` as the
  instructor;
- fetch feedback (not part of the cycle, timed beside it): `nbgrader fetch_feedback` per student.

Prints a table of seconds per phase, the cycle's total, the scores' spread, and the load
average before and after (the machine is shared). --postgres also grades the collected
submissions again in a copy of the course whose gradebook is a throw-away PostgreSQL server
(tests/pgserver.py) and compares every student's score with the SQLite gradebook's.

    sudo python benchmarks/class_cycle.py [--students 30] [--assignment 01_tensors] [--parallel 4]
                                          [--workers N] [--postgres]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import nbformat  # noqa: E402
from nbgrader.api import Gradebook  # noqa: E402

from authoring import submissions  # noqa: E402
from deploy.hub.throwaway import Throwaway  # noqa: E402
from graders.course.config import Course  # noqa: E402


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far: every command a
    phase runs is one (the grading sandboxes are its children's children, counted when reaped)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def answers_for(cls: Throwaway, assignment: str) -> list:
    """Three kinds of notebook, cycled over the class: right, every other exercise wrong, blank."""
    source = submissions.read(cls.course_dir / "source" / assignment / f"{assignment}.ipynb")
    release = submissions.read(cls.course_dir / "release" / assignment / f"{assignment}.ipynb")
    half, _ = submissions.partly_wrong(assignment, source, release)
    return [submissions.reference(source, release), half, release]


def submit(cls: Throwaway, student: str, assignment: str, nb) -> float:
    started = time.perf_counter()
    cls.nbgrader(student, "fetch_assignment", assignment)
    path = Path(cls.env(student)["HOME"]) / cls.settings.course_id / assignment / f"{assignment}.ipynb"
    done = subprocess.run(["runuser", "-u", student, "--", "tee", str(path)], input=nbformat.writes(nb),
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    cls.nbgrader(student, "submit", assignment)
    return time.perf_counter() - started


def scores(course: Course, assignment: str) -> dict[str, float]:
    with Gradebook(course.db_url, course.config.CourseDirectory.course_id) as gb:
        return {s.student_id: float(s.score) for s in gb.find_assignment(assignment).submissions}


def compare_postgres(cls: Throwaway, assignment: str, workers: int) -> tuple[float, dict, dict]:
    """Grade the collected submissions again, gradebook on PostgreSQL; (seconds, sqlite, postgres)."""
    from pgserver import postgres_server

    sqlite = scores(Course(cls.course_dir), assignment)
    with tempfile.TemporaryDirectory(prefix="cycle-pg-") as folder, postgres_server() as url:
        copy = Path(folder) / "course"
        copy.mkdir()
        for part in ("source", "release", "submitted"):
            shutil.copytree(cls.course_dir / part, copy / part)
        text = (cls.course_dir / "nbgrader_config.py").read_text()
        text = re.sub(r"^c\.CourseDirectory\.root = .*$", "c.CourseDirectory.root = __file__.rsplit('/', 1)[0]",
                      text, flags=re.M)
        (copy / "nbgrader_config.py").write_text(text + f"\nc.CourseDirectory.db_url = {url!r}\n")
        from nbgrader.apps import NbGraderAPI
        NbGraderAPI(config=Course(copy).config).generate_assignment(assignment, force=True, create=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "graders.cli", "autograde", assignment, "--course-dir", str(copy),
                        "--workers", str(workers)], check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        return seconds, sqlite, scores(Course(copy), assignment)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--assignment", default="01_tensors")
    parser.add_argument("--parallel", type=int, default=4, help="students submitting at once")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--postgres", action="store_true", help="grade again with a PostgreSQL gradebook, compare")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("class_cycle: run as root (it creates the class's Unix users)", file=sys.stderr)
        return 2
    load_before = os.getloadavg()
    times: dict[str, float] = {}
    cpus: dict[str, float] = {}  # the CPU the phase's commands used (less sensitive to the load)
    with Throwaway(students=args.students, grant=True, ports=False) as cls:
        a = args.assignment

        def timed(name, fn, *fargs, **kwargs):
            started, cpu = time.perf_counter(), children_cpu()
            result = fn(*fargs, **kwargs)
            times[name] = time.perf_counter() - started
            cpus[name] = children_cpu() - cpu
            print(f"{name}: {times[name]:.1f} s, {cpus[name]:.1f} CPU-s", flush=True)
            return result

        timed("release", cls.course, "release", a)
        kinds = answers_for(cls, a)
        with ThreadPoolExecutor(args.parallel) as pool:
            each = timed("submit", lambda: list(pool.map(
                lambda k: submit(cls, cls.students[k], a, kinds[k % 3]), range(args.students))))
        timed("collect", cls.course, "collect", a)
        graded = timed("autograde", cls.course, "autograde", a, "--workers", str(args.workers), timeout=7200).stdout
        timed("feedback", cls.course, "feedback", a, timeout=3600)
        returned = timed("return", cls.course, "return", a).stdout
        with ThreadPoolExecutor(args.parallel) as pool:
            timed("fetch feedback", lambda: list(pool.map(
                lambda s: cls.nbgrader(s, "fetch_feedback", a), cls.students)))
        class_scores = scores(Course(cls.course_dir), a)
        statuses = re.findall(r"^\S+\s+" + re.escape(a) + r"\s+(\w+)", graded, re.M)
        postgres = compare_postgres(cls, a, args.workers) if args.postgres else None
    load_after = os.getloadavg()

    cycle = sum(times[k] for k in ("release", "submit", "collect", "autograde", "feedback", "return"))
    print(f"\n{args.students} submissions of {a}, {os.cpu_count()} cores, {args.parallel} students submitting at once, "
          f"autograde --workers {args.workers}")
    cycle_cpu = sum(cpus[k] for k in ("release", "submit", "collect", "autograde", "feedback", "return"))
    print(f"{'phase':<16}{'seconds':>9}{'per submission':>16}{'CPU-s':>9}")
    for name, seconds in times.items():
        print(f"{name:<16}{seconds:>9.1f}{seconds / args.students:>16.2f}{cpus[name]:>9.1f}")
    print(f"{'cycle':<16}{cycle:>9.1f}{cycle / args.students:>16.2f}{cycle_cpu:>9.1f}"
          "   (release to return; fetch feedback apart)")
    print(f"one student's fetch + answer + submit: median {sorted(each)[len(each) // 2]:.1f} s, "
          f"max {max(each):.1f} s")
    print(f"statuses: {', '.join(f'{s} {statuses.count(s)}' for s in sorted(set(statuses)))}; returned: "
          f"{returned.count(' returned')} of {args.students}; scores: "
          f"{', '.join(f'{v:g}' for v in sorted(set(class_scores.values())))}")
    if postgres:
        seconds, sqlite, pg = postgres
        same = sqlite == pg
        print(f"PostgreSQL gradebook: autograde {seconds:.1f} s; every student's score equal to SQLite's: {same} "
              f"({len(pg)} students; {', '.join(f'{v:g}' for v in sorted(set(pg.values())))})")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)}; "
          f"after: {' '.join(f'{x:.2f}' for x in load_after)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
