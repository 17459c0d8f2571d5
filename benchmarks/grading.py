"""Parallel `course autograde --workers 2` against sequential nbgrader, on the same batch.

K copies (default 4) of each notebook's reference answers. Times, in one run:
- sequential nbgrader: the `nbgrader autograde A` command per assignment (no sandbox);
- `course autograde --workers 2` (sandboxed);
- `course autograde --workers 2 --no-sandbox` (the sandbox's cost per notebook).
Prints the times, seconds per notebook, the ratio, and whether the grades are identical.

    python benchmarks/grading.py [--copies K] [--notebooks 01_tensors ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

from nbgrader.api import Gradebook  # noqa: E402

from authoring import submissions  # noqa: E402
from graders.course.layout import available_assignments  # noqa: E402
from graders.course.release import release  # noqa: E402


def build(course: Path, stems: list[str], copies: int) -> int:
    for stem in stems:
        release(course, [stem])
        source = submissions.read(course / "source" / stem / f"{stem}.ipynb")
        released = submissions.read(course / "release" / stem / f"{stem}.ipynb")
        nb = submissions.reference(source, released)
        for k in range(copies):
            submissions.submit(course, f"student{k:02d}", stem, nb)
    return copies * len(stems)


def grades(course: Path) -> dict:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(s.student_id, s.assignment.name, g.name): g.auto_score
                for a in gb.assignments for s in a.submissions for n in s.notebooks for g in n.grades}


def sequential(course: Path, stems: list[str]) -> float:
    """nbgrader's own `nbgrader autograde A` command per assignment, run in the course dir
    (as an instructor would), so both sides pay their interpreter's start-up."""
    started = time.perf_counter()
    for stem in stems:
        subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", stem, "--force"],
                       cwd=course, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def parallel(course: Path, *flags: str) -> float:
    started = time.perf_counter()
    subprocess.run([str(Path(sys.executable).parent / "course"), "autograde", "--course-dir", str(course),
                    "--workers", "2", *flags], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--notebooks", nargs="*", default=available_assignments())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        courses = {name: Path(tmp) / name for name in ("sequential", "parallel", "nosandbox")}
        n = 0
        for course in courses.values():
            n = build(course, args.notebooks, args.copies)
        t_seq = sequential(courses["sequential"], args.notebooks)
        t_par = parallel(courses["parallel"])
        t_raw = parallel(courses["nosandbox"], "--no-sandbox")
        same = grades(courses["sequential"]) == grades(courses["parallel"]) == grades(courses["nosandbox"])
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"batch: {n} notebooks ({args.copies} copies of {', '.join(args.notebooks)}), {os.cpu_count()} cores")
    print(f"{'run':<34}{'seconds':>9}{'s/notebook':>12}")
    for label, t in (("nbgrader autograde (sequential)", t_seq), ("course autograde --workers 2", t_par),
                     ("  ... --no-sandbox", t_raw)):
        print(f"{label:<34}{t:>9.1f}{t / n:>12.2f}")
    print(f"speed-up (sequential / parallel): {t_seq / t_par:.2f}x   grades identical: {same}")
    print(f"sandbox cost: {(t_par - t_raw) / n * 2:+.2f} s per notebook (per worker)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
