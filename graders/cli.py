"""The `course` command: release, autograde, feedback, export, report over an nbgrader course directory."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .course.layout import DEFAULT_COURSE_DIR, CourseError
from .sandbox.limits import Limits


def _add_common(parser: argparse.ArgumentParser, assignments: bool = True) -> None:
    if assignments:
        parser.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                            help="notebook stems (default: every notebook in the course)")
    parser.add_argument("--course-dir", type=Path, default=DEFAULT_COURSE_DIR,
                        help="nbgrader course directory (default: %(default)s)")


def _add_autograde(commands) -> None:
    parser = commands.add_parser("autograde", help="grade DIR/submitted in parallel workers")
    _add_common(parser)
    defaults = Limits()
    parser.add_argument("--workers", type=int, default=os.cpu_count(),
                        help="notebooks executed at once (default: cores, %(default)s)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="execute on a Dask distributed cluster (e.g. tcp://host:8786) instead of "
                             "local workers; the workers run each submission's whole pipeline, this process "
                             "alone writes the gradebook")
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false",
                        help="execute without bubblewrap (trusted submissions only)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already graded")
    # Limits: flags win over DIR/nbgrader_config.py (c.Limits.*, c.Execute.timeout), which
    # wins over the defaults.
    parser.add_argument("--memory-mb", type=int, help=f"per submission (default {defaults.memory_mb})")
    parser.add_argument("--cell-timeout", type=float, metavar="S",
                        help="seconds per cell (default: the course's c.Execute.timeout)")
    parser.add_argument("--notebook-timeout", type=float, metavar="S",
                        help=f"seconds per notebook (default {defaults.notebook_timeout_s:g})")
    parser.add_argument("--max-processes", type=int,
                        help=f"processes and threads (default {defaults.max_processes})")
    parser.add_argument("--max-output-chars", type=int,
                        help=f"output kept per cell (default {defaults.max_output_chars})")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    release = commands.add_parser("release", help="generate the student versions")
    _add_common(release)
    release.add_argument("--keep-existing", action="store_true",
                         help="leave assignments already in DIR/release untouched (a student's copies)")
    _add_autograde(commands)
    feedback = commands.add_parser("feedback", help="an HTML page per graded notebook, hidden tests scrubbed")
    _add_common(feedback)
    feedback.add_argument("--workers", type=int, default=os.cpu_count(),
                          help="pages rendered at once, each in a process (default: cores, %(default)s)")
    feedback.add_argument("--scheduler", metavar="ADDRESS",
                          help="render on a Dask distributed cluster, the workers of `course autograde "
                               "--scheduler`; this process still writes the pages")
    _add_common(commands.add_parser("export", help="write DIR/grades.csv (nbgrader's columns)"),
                assignments=False)
    _add_common(commands.add_parser("report", help="what the class misunderstood: DIR/reports/<a>.html and .csv"))
    collect = commands.add_parser("collect", help="the students' latest submissions from nbgrader's exchange "
                                                  "(or an LMS archive) into DIR/submitted; late ones reported")
    collect.add_argument("assignment", metavar="ASSIGNMENT")
    collect.add_argument("--zip", type=Path, metavar="FILE",
                         help="an archive downloaded from an LMS, through nbgrader's zip collector (Canvas's file "
                              "names unless the course sets c.FileNameCollectorPlugin.named_regexp)")
    _add_common(collect, assignments=False)
    give_back = commands.add_parser("return", help="release DIR/feedback through the exchange (Fetch Feedback)")
    give_back.add_argument("assignment", metavar="ASSIGNMENT")
    _add_common(give_back, assignments=False)
    return parser


def say_overrides(course_dir: Path, **flags):
    """The course's config, after saying on stderr which of its settings `course` overrides."""
    from .course.config import Course
    from .course.layout import ensure_course_dir

    course = Course(ensure_course_dir(course_dir))
    limits = course.limits(**flags)
    for note in course.notes:
        print(f"course: {course.dir / 'nbgrader_config.py'}: {note}", file=sys.stderr)
    return limits


def main(argv: list[str] | None = None) -> int:
    # nbgrader shells out to `alembic`: the environment's bin must be on PATH even when the
    # script is called by absolute path with the virtual environment not activated.
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except CourseError as error:
        print(f"course {args.command}: {error}", file=sys.stderr)
        return 2


def _run(args) -> int:
    if args.command == "release":
        from .course.release import release
        say_overrides(args.course_dir)
        # a student's `make lab` (--keep-existing) has no use for the grading's compile cache
        for path in release(args.course_dir, args.assignments, keep_existing=args.keep_existing,
                            warm_cache=not args.keep_existing):
            print(f"released {path}")
    elif args.command in ("collect", "return"):
        return _exchange(args)
    elif args.command == "autograde":
        from .autograde.status import flagged_note, table
        if args.scheduler is None:
            from .autograde.local import prestart
            prestart(args.course_dir, args.assignments, args.sandbox, args.force)
        limits = say_overrides(args.course_dir, memory_mb=args.memory_mb,
                               cell_timeout_s=args.cell_timeout,
                               notebook_timeout_s=args.notebook_timeout,
                               max_processes=args.max_processes,
                               max_output_chars=args.max_output_chars)
        pool = None
        if args.scheduler is None:
            # before nbgrader is imported (a second): the workers import torch meanwhile
            from .autograde.local import start
            pool = start(args.course_dir, args.assignments, args.workers, limits, args.sandbox, args.force)
        from .autograde.batch import autograde
        records = autograde(args.course_dir, args.assignments, workers=args.workers,
                            sandbox=args.sandbox, limits=limits, force=args.force,
                            scheduler=args.scheduler, pool=pool)
        print(table(records))
        if flagged_note(records):
            print(flagged_note(records))
    elif args.command == "feedback":
        from .feedback.pages import feedback
        say_overrides(args.course_dir)
        for path in feedback(args.course_dir, args.assignments, workers=args.workers, scheduler=args.scheduler):
            print(f"feedback {path}")
    elif args.command == "export":
        from .course.export import export
        print(f"exported {export(args.course_dir)}")
    elif args.command == "report":
        from .report import ReportError, report
        try:
            written = report(args.course_dir, args.assignments)
        except ReportError as error:
            print(f"course report: {error}", file=sys.stderr)
            return 2
        for path in written:
            print(f"report {path}")
    return 0


def _exchange(args) -> int:
    from .course import collect, exchange
    from .course.config import Course
    from .course.layout import ensure_course_dir, released_assignments

    course = Course(ensure_course_dir(args.course_dir))
    released_assignments(course.dir, [args.assignment])  # says so when it is not
    if args.command == "return":
        outcome = exchange.give_back(course, args.assignment)
        for student, what in outcome.items():
            print(f"{student:<20} {what}")
        kept = {student: what for student, what in outcome.items() if what != "returned"}
        if kept:
            print(f"course return: {len(kept)} of {len(outcome)} page(s) not returned (exit status 1): "
                  + "; ".join(f"{student}: {what}" for student, what in kept.items()), file=sys.stderr)
        return 1 if kept else 0
    if args.zip is not None:
        rows, notes = collect.from_archive(course, args.assignment, args.zip)
    else:
        rows, notes = collect.from_exchange(course, args.assignment)
    for note in notes:
        print(f"course collect: {note}", file=sys.stderr)
    print(collect.table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
