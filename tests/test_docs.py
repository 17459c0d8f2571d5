"""The documents a newcomer reads: every relative link in README.md and docs/ resolves, and
every command the README shows in a code block exists (a make target or a `course`
subcommand)."""

import re
from pathlib import Path

import pytest

from graders.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.S | re.M)
MAX_README_LINES = 150


def relative_links(text: str) -> list[str]:
    links = [a or b for a, b in LINK.findall(text)]
    return [link for link in links if not re.match(r"[a-z][a-z0-9+.-]*:", link) and not link.startswith("#")]


def make_targets() -> set[str]:
    makefile = (REPO / "Makefile").read_text()
    return set(re.findall(r"^([a-zA-Z][\w.-]*)\s*:(?!=)", makefile, re.M))


def course_subcommands() -> set[str]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return set(commands.choices)


def shown_commands(text: str) -> list[str]:
    """Each command line of the README's code blocks, comments and continuations dropped."""
    lines = []
    for block in FENCE.findall(text):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line:
                lines.append(line)
    return lines


def test_there_are_docs_for_each_reader():
    names = {p.relative_to(REPO).as_posix() for p in DOCS}
    for needed in ("docs/students.md", "docs/instructors.md", "docs/contributors.md", "docs/performance.md"):
        assert needed in names, f"{needed} is missing"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_resolves(doc):
    broken = []
    for link in relative_links(doc.read_text()):
        target = (doc.parent / link.split("#", 1)[0]).resolve()
        if not target.exists():
            broken.append(link)
    assert not broken, f"{doc.name}: links to nothing: {broken}"


def test_every_command_the_readme_shows_exists():
    text = (REPO / "README.md").read_text()
    targets, subcommands = make_targets(), course_subcommands()
    missing = []
    commands = shown_commands(text)
    assert commands, "the README shows no command"
    for line in commands:
        words = line.split()
        if words[0] == "make":
            missing += [f"make {w}" for w in words[1:] if "=" not in w and w not in targets]
        elif words[0] == "course":
            if words[1] not in subcommands:
                missing.append(line)
        else:
            missing.append(f"{line} (neither make nor course)")
    assert not missing, f"README shows commands that do not exist: {missing}"


def test_the_readme_is_short():
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines (at most {MAX_README_LINES})"


def test_the_checks_catch_what_they_look_for(tmp_path):
    assert relative_links("[a](docs/x.md) ![p](docs/p.png) [b](https://x.org) [c](#top)") == ["docs/x.md", "docs/p.png"]
    assert shown_commands("```bash\nmake lab   # students\n\ncourse report\n```\n") == ["make lab", "course report"]
    assert "test" in make_targets() and "autograde" in course_subcommands()


def graded_counts(notebook: Path) -> tuple[int, int, int]:
    """(quizzes, exercises, points) of an instructor notebook, from its nbgrader metadata."""
    import nbformat

    quizzes = exercises = points = 0
    for cell in nbformat.read(str(notebook), as_version=4).cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade"):
            continue
        points += meta.get("points", 0)
        if "-quiz-" in meta.get("grade_id", ""):
            quizzes += 1
        else:
            exercises += 1
    return quizzes, exercises, int(points)


def test_the_course_map_counts_what_the_notebooks_grade():
    rows = re.findall(r"^\| `(\d\d_\w+)` \|.*\| (\d+), (\d+), (\d+) \|$", (REPO / "README.md").read_text(), re.M)
    notebooks = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
    assert sorted(stem for stem, *_ in rows) == notebooks, f"the course map's rows are not the notebooks {notebooks}"
    for stem, *shown in rows:
        actual = graded_counts(REPO / "notebooks" / f"{stem}.ipynb")
        assert tuple(map(int, shown)) == actual, \
            f"README's course map says {stem} has (quizzes, exercises, points) {tuple(shown)}; it has {actual}"
