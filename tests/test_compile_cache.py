"""The warmed torch.compile cache: graded submissions of a notebook that compiles find the
reference run's Inductor artifacts (a cache hit, counted by torch itself), each in a private
copy that a hostile submission can wipe without touching the course's or anyone else's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

import grading_course as gc
from conftest import require_program
from graders.autograde import batch as harness
from graders.course import compile_cache

pytestmark = pytest.mark.xdist_group("test_compile_cache")

COMPILED = [
    ("code", None, 0, "import os, shutil\nimport torch\nfrom torch._dynamo.utils import counters"),
    ("solution", "cc-f", 0,
     "def f(x):\n    ### BEGIN SOLUTION\n    return torch.sin(x) * 2 + torch.cos(x) ** 2\n    ### END SOLUTION"),
    ("test", "cc-f-test", 1,
     "g = torch.compile(f)\nx = torch.linspace(-1, 1, 64)\n"
     "assert torch.allclose(g(x), torch.sin(x) * 2 + torch.cos(x) ** 2)\n"
     "print('fx graph cache hits:', counters['inductor']['fxgraph_cache_hit'])"),
]
HONEST = "def f(x):\n    return torch.sin(x) * 2 + torch.cos(x) ** 2"
# right answer, then it spoils every cache file it can reach
SPOILER = HONEST + ("\nfor root, _, names in os.walk(os.environ['TORCHINDUCTOR_CACHE_DIR']):\n"
                    "    for name in names:\n        open(os.path.join(root, name), 'w').write('spoiled')")


def code_nb(*sources: str, markdown: str = ""):
    nb = new_notebook(cells=[new_markdown_cell(markdown)] if markdown else [])
    nb.cells += [new_code_cell(s) for s in sources]
    return nb


def test_only_code_that_calls_compile_counts():
    assert compile_cache.compiles(code_nb("g = torch.compile(f)"))
    assert compile_cache.compiles(code_nb("@torch.compile\ndef f(x):\n    return x"))
    assert not compile_cache.compiles(code_nb("x = 1", markdown="`torch.compile` comes in 06"))
    assert not compile_cache.compiles(code_nb("# torch.compiler_is_great = 1"))


def test_key_follows_code_not_prose():
    base = compile_cache.key(code_nb("a = 1"))
    assert compile_cache.key(code_nb("a = 1", markdown="new words")) == base
    assert compile_cache.key(code_nb("a = 2")) != base


def test_a_cache_goes_stale_when_the_reference_changes(tmp_path):
    source = tmp_path / "source" / "nb" / "nb.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(code_nb("g = torch.compile(f)"), str(source))
    folder = compile_cache.location(tmp_path, "nb")
    folder.mkdir(parents=True)
    (folder / "KEY").write_text(compile_cache.key(nbformat.read(str(source), as_version=4)))
    assert compile_cache.fresh(tmp_path, "nb") == folder
    nbformat.write(code_nb("g = torch.compile(f, mode='max-autotune')"), str(source))
    assert compile_cache.fresh(tmp_path, "nb") is None


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_graded_submissions_hit_a_private_copy_of_the_warmed_cache(tmp_path):
    require_program("bwrap", "bubblewrap")
    course = tmp_path / "course"
    releases = gc.release(course, {"cc": gc.build("cc", COMPILED), "tiny": gc.build("tiny", gc.TINY)})
    released, tiny = releases["cc"][1], releases["tiny"][1]
    students = {"honest1": HONEST, "spoiler": SPOILER, "honest2": HONEST}
    for student, code in students.items():
        gc.submit(course, student, "cc", gc.answers(released, **{"cc-f": code}))
        gc.submit(course, student, "tiny", gc.answers(tiny, **{"tiny-add": "def add(a, b):\n    return a + b"}))
    records = harness.autograde(course, ["cc", "tiny"], workers=2, sandbox=True, progress=False)
    assert {(r.student, r.assignment): r.status for r in records} == \
        {(s, a): "ok" for s in students for a in ("cc", "tiny")}
    warmed = compile_cache.fresh(course, "cc")
    assert warmed is not None, "no warmed cache was kept in DIR/compile_cache/cc"
    # the assignment that needs no cache was graded while the reference run was warming it
    tiny_done = min((course / "autograded" / s / "tiny" / "tiny.ipynb").stat().st_mtime for s in students)
    assert tiny_done < (warmed / "KEY").stat().st_mtime
    before = digest(warmed)
    assert any(name.endswith(".so") for name in before), sorted(before)
    for student in students:
        graded = nbformat.read(str(course / "autograded" / student / "cc" / "cc.ipynb"), as_version=4)
        test = next(c for c in graded.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "cc-f-test")
        text = "".join(o.get("text", "") for o in test.outputs)
        if student == "spoiler":  # it spoiled its copy before compiling: a miss, then it compiled
            assert "fx graph cache hits: 0" in text, test.outputs
        else:
            assert "fx graph cache hits: 1" in text, f"{student} compiled cold: {test.outputs}"
    assert {k: v for k, v in gc.scores(course).items() if k[1] == "cc"} == \
        {(s, "cc", "cc-f-test"): 1.0 for s in students}
    # the spoiler wrote into its own copy only: the course's cache is what the reference left
    assert digest(warmed) == before
    # a resubmission graded later reuses the cache rather than running the reference again
    built = (warmed / "KEY").stat().st_mtime_ns
    gc.submit(course, "honest1", "cc", gc.answers(released, **{"cc-f": HONEST + "  # resubmitted"}))
    outputs = {s: course / "autograded" / s / "cc" / "cc.ipynb" for s in students}
    stamps = {s: path.stat().st_mtime_ns for s, path in outputs.items()}
    again = harness.autograde(course, ["cc"], workers=1, sandbox=True, progress=False)
    assert {r.student: r.status for r in again} == dict.fromkeys(students, "ok")
    assert [s for s, path in outputs.items() if path.stat().st_mtime_ns != stamps[s]] == ["honest1"]
    graded = nbformat.read(str(outputs["honest1"]), as_version=4)
    assert "fx graph cache hits: 1" in str(graded.cells), "the resubmission compiled cold"
    assert (warmed / "KEY").stat().st_mtime_ns == built
    assert digest(warmed) == before
