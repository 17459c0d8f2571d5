"""Every point is judged outside the kernel: each test cell of each notebook has a probe and
a judge (graders.autograde.judging), and its judge covers the visible part's cases (not
checkable here; the round trips and the forgery suite show it)."""

from pathlib import Path

import nbformat
import pytest

from graders.autograde import judging

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_test_cell_is_judged_outside_the_kernel(path):
    nb = nbformat.read(str(path), as_version=4)
    inside = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
              if judging.is_test_cell(c) and judging.split(c.source) is None]
    assert not inside, f"{path.stem}: test cells whose verdict is reached in the kernel: {inside}"
    judged, total = judging.share(nb)
    assert total > 0 and judged == total


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_judge_enters_the_kernel_and_every_probe_reports(path):
    """The kernel's copy holds no judge; each probe part reports something (a probe that
    reports nothing leaves its judge nothing but missing observations)."""
    nb = nbformat.read(str(path), as_version=4)
    run_nb, plan = judging.prepare(nb)
    kernel_code = "\n".join(c.source for c in run_nb.cells)
    assert judging.JUDGE_MARK not in kernel_code
    for cell in nb.cells:
        parts = judging.split(cell.source) if judging.is_test_cell(cell) else None
        if parts is not None:
            reports = ("probe.answer(", "probe.call(", "probe.observe(", "probe.value(")
            assert any(r in parts.probe for r in reports), \
                f"{path.stem}: {cell.metadata['nbgrader']['grade_id']}'s probe reports nothing"
