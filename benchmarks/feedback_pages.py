"""`course feedback` on a graded course: seconds for K pages, and the CPU of the process that
writes them, beside the same command under another checkout's environment (``--python``:
the code before a change), on copies of one graded course, in the same run.

    python benchmarks/feedback_pages.py [--copies K] [--notebooks 01_tensors ...] [--workers N]
                                        [--python OTHER_PYTHON]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def timed(python: str, course: Path, workers: int | None) -> tuple[float, float, int]:
    """(seconds, CPU-s of the `course feedback` process and everything it waited for, pages)."""
    argv = [python, "-m", "graders.cli", "feedback", "--course-dir", str(course)]
    if workers:
        argv += ["--workers", str(workers)]
    env = dict(os.environ, PATH=str(Path(python).parent) + os.pathsep + os.environ.get("PATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=course.parent)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"course feedback failed under {python}:\n{done.stdout}\n{done.stderr}")
    pages = len(list(course.glob("feedback/*/*/*.html")))
    return took, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime), pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=12)
    parser.add_argument("--notebooks", nargs="*", default=["01_tensors"])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--python", action="append", default=[])
    args = parser.parse_args()
    from grading import build

    from graders.autograde.batch import autograde
    with tempfile.TemporaryDirectory(prefix="feedback-bench-") as tmp:
        graded = Path(tmp) / "graded" / "course"
        n = build(graded, args.notebooks, args.copies)
        autograde(graded, workers=2, progress=False)
        load = os.getloadavg()
        rows = []
        for k, python in enumerate([sys.executable, *args.python]):
            course = Path(tmp) / f"run{k}" / "course"
            shutil.copytree(graded, course, symlinks=True)
            took, cpu, pages = timed(python, course, args.workers if k == 0 else None)
            rows.append((("this checkout" + (f", --workers {args.workers}" if args.workers else ""))
                         if k == 0 else f"--python {k}", took, cpu, pages))
    print(f"course feedback on {n} graded notebooks ({args.copies} copies of {', '.join(args.notebooks)}), "
          f"{os.cpu_count()} cores, load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.strftime('%Y-%m-%d %H:%M')}")
    for k, python in enumerate(args.python, 1):
        print(f"  --python {k}: {python}")
    print(f"{'run':<32}{'seconds':>9}{'s / page':>10}{'CPU-s':>8}{'pages':>7}")
    for label, took, cpu, pages in rows:
        print(f"{label:<32}{took:>9.1f}{took / max(pages, 1):>10.2f}{cpu:>8.1f}{pages:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
