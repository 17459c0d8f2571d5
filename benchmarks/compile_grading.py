"""What torch.compile costs notebook 06 and its grading: cold and warm compile caches.

    python benchmarks/compile_grading.py [--skip-grading]

Prints, in one run:
- the notebook executed top to bottom with an empty Inductor cache (TORCHINDUCTOR_CACHE_DIR
  set to a fresh folder): what a student's first Run All and every graded submission pay;
- the same notebook again with the cache that first run filled: what a pre-warmed cache
  could save (the on-disk FX graph and C++ kernel caches; nothing else is shared);
- one graded submission (reference answers) through `course autograde --workers 1`,
  sandboxed: cold (c.CompileCache.enabled = False: an empty cache, as before the warmed
  cache existed), then with its private copy of the course's warmed cache; and what
  building that cache once costs (one sandboxed run of the reference notebook).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

import notebooks as notebook_bench  # noqa: E402  (benchmarks/notebooks.py)
from authoring import submissions  # noqa: E402
from graders.course import compile_cache  # noqa: E402
from graders.course.release import release  # noqa: E402

STEM = "06_compile"


def notebook_seconds(cache: Path) -> float:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(cache)   # the kernel inherits it
    return notebook_bench.run(REPO / "notebooks" / f"{STEM}.ipynb", timeout=300)


def autograde_seconds(course: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "course"), "autograde", STEM,
                           "--course-dir", str(course), "--workers", "1", "--force"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    return seconds, (done.stdout + done.stderr).strip().splitlines()[-1] if done.returncode else "ok"


def graded_seconds(tmp: Path) -> dict[str, tuple[float, str]]:
    """{what: (seconds, status)} for one reference submission, cold and warm."""
    course = tmp / "course"
    release(course, [STEM])
    source = submissions.read(course / "source" / STEM / f"{STEM}.ipynb")
    released = submissions.read(course / "release" / STEM / f"{STEM}.ipynb")
    submissions.submit(course, "student00", STEM, submissions.reference(source, released))
    config = course / "nbgrader_config.py"
    text = config.read_text()
    config.write_text(text + "\nc.CompileCache.enabled = False\n")
    out = {"one graded submission, sandboxed, cold cache": autograde_seconds(course)}
    config.write_text(text)
    started = time.perf_counter()
    warmed = compile_cache.ensure(course, STEM)
    out["warming the cache (once per assignment)"] = (time.perf_counter() - started,
                                                      "ok" if warmed else "no cache")
    out["one graded submission, sandboxed, warmed cache"] = autograde_seconds(course)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skip-grading", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="compile-bench-") as tmp:
        tmp = Path(tmp)
        cache = tmp / "inductor-cache"
        cold = notebook_seconds(cache)
        warm = notebook_seconds(cache)
        print(f"{'what':<44} {'seconds':>8}")
        print(f"{STEM + ' notebook, empty compile cache':<44} {cold:>8.1f}")
        print(f"{STEM + ' notebook, cache from the run above':<44} {warm:>8.1f}")
        if not args.skip_grading:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
            for what, (seconds, status) in graded_seconds(tmp).items():
                print(f"{what:<44} {seconds:>8.1f}  {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
