"""Seconds to execute each notebook top to bottom in a fresh kernel (nbclient).

    python benchmarks/notebooks.py [STEM ...] [--timeout S]

With no stems, every notebooks/*.ipynb. The budget is 60 s per notebook, 3 min in all.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"


def run(path: Path, timeout: int) -> float:
    nb = nbformat.read(str(path), as_version=4)
    # the repository root on the path, as for `make lab`, so that `import helpers` works
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(REPO)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("stems", nargs="*")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
    args = parser.parse_args(argv)
    paths = ([NOTEBOOKS / f"{s}.ipynb" for s in args.stems] if args.stems
             else sorted(NOTEBOOKS.glob("*.ipynb")))
    total, failed = 0.0, False
    print(f"{'notebook':<24} {'seconds':>8}")
    for path in paths:
        try:
            seconds = run(path, args.timeout)
        except Exception as error:  # report and go on: one broken notebook hides no timings
            print(f"{path.stem:<24} {'failed':>8}  {type(error).__name__}: {str(error).splitlines()[0][:80]}")
            failed = True
            continue
        total += seconds
        print(f"{path.stem:<24} {seconds:>8.1f}")
    print(f"{'total':<24} {total:>8.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
