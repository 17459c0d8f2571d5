"""The share of each notebook's points that is judged outside the kernel (issue 36's measure):
a test cell counts when its hidden block has a judge (graders.autograde.judging).

    python benchmarks/judged_share.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from graders.autograde import judging  # noqa: E402


def main() -> int:
    print(f"{'notebook':<20}{'judged':>8}{'points':>8}{'share':>8}   test cells judged in the kernel")
    all_judged = all_total = 0.0
    for path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        judged, total = judging.share(nb)
        inside = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
                  if judging.is_test_cell(c) and judging.split(c.source) is None]
        all_judged, all_total = all_judged + judged, all_total + total
        print(f"{path.stem:<20}{judged:>8g}{total:>8g}{judged / total:>8.0%}   {', '.join(inside) or '-'}")
    print(f"{'all six':<20}{all_judged:>8g}{all_total:>8g}{all_judged / all_total:>8.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
