"""The `course` command: release, autograde, feedback, export over an nbgrader course directory."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import coursedir


def _add_common(parser: argparse.ArgumentParser, assignments: bool = True) -> None:
    if assignments:
        parser.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                            help="notebook stems (default: every notebook in notebooks/)")
    parser.add_argument("--course-dir", type=Path, default=coursedir.DEFAULT_COURSE_DIR,
                        help="nbgrader course directory (default: %(default)s)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    _add_common(commands.add_parser("release", help="generate the student versions"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "release":
        from .release import release
        for path in release(args.course_dir, args.assignments):
            print(f"released {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
