"""The percent-format notebook sources and the environment's idempotent set-up."""

import subprocess
from pathlib import Path

import pytest

from authoring import build as authoring

REPO = Path(__file__).resolve().parent.parent


def test_headers():
    assert authoring.parse_header("") == {"kind": "code"}
    assert authoring.parse_header(" [markdown]") == {"kind": "markdown"}
    assert authoring.parse_header(" solution nb-x") == {"kind": "solution", "grade_id": "nb-x"}
    assert authoring.parse_header(" test nb-x-test points=2") == {
        "kind": "test", "grade_id": "nb-x-test", "points": 2}
    assert authoring.parse_header(" test nb-x-test points=1.5")["points"] == 1.5


@pytest.mark.parametrize("bad", [" test nb-x-test", " solution", " test a-test pts=1", " code"])
def test_bad_headers_are_refused(bad):
    with pytest.raises(ValueError):
        authoring.parse_header(bad)


def test_build_gives_nbgrader_cells(tmp_path):
    source = tmp_path / "09_demo.py"
    source.write_text(
        "# %% [markdown]\n# # Title\n#\n# text\n"
        "# %%\nx = 1\n\n"
        "# %% solution 09_demo-a\n### BEGIN SOLUTION\na = 2\n### END SOLUTION\n"
        "# %% test 09_demo-a-test points=3\nassert a == 2\n")
    nb = authoring.build(source)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds == ["markdown", "code", "code", "code"]
    assert nb.cells[0].source == "# Title\n\ntext"
    assert nb.cells[1].source == "x = 1" and "nbgrader" not in nb.cells[1].metadata
    solution, test = nb.cells[2].metadata.nbgrader, nb.cells[3].metadata.nbgrader
    assert solution["solution"] and not solution["grade"] and not solution["locked"]
    assert test["grade"] and test["locked"] and test["points"] == 3
    assert len({c.id for c in nb.cells}) == 4
    assert authoring.render(source) == authoring.render(source), "builds must be deterministic"


def test_text_before_first_header_is_refused(tmp_path):
    source = tmp_path / "09_demo.py"
    source.write_text("x = 1\n# %%\ny = 2\n")
    with pytest.raises(ValueError):
        authoring.build(source)


def test_make_is_idempotent_once_installed():
    """A second `make test` must not reinstall: the stamp is newer than its inputs."""
    if not (REPO / ".venv" / ".installed").exists():
        pytest.skip("environment not built by make")
    dry = subprocess.run(["make", "-n", "test"], cwd=REPO, capture_output=True, text=True)
    assert dry.returncode == 0, dry.stderr
    assert "pip install" not in dry.stdout, dry.stdout


def test_every_committed_notebook_is_its_source_built_byte_for_byte():
    """jupytext reads the sources now: every notebooks/src/*.py still builds exactly the
    committed notebooks/<stem>.ipynb."""
    sources = sorted(authoring.SOURCES.glob("*.py"))
    assert sources
    for source in sources:
        assert authoring.render(source) == authoring.target_of(source).read_text(), source.name
