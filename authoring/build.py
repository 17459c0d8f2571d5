"""Build the source notebooks from percent-format scripts (read by jupytext).

Notebooks are written as plain Python in ``notebooks/src/<stem>.py`` so that they diff and
review like code, and built into ``notebooks/<stem>.ipynb`` with nbgrader's markup. A cell
starts at a line beginning with ``# %%``:

    # %% [markdown]              markdown; each line's leading "# " is dropped
    # %%                         ordinary code
    # %% solution ID             nbgrader solution cell (grade_id ID)
    # %% solution ID allow=R     ...whose honest answers need constructs the static review
    #                            flags: R is rule ids, comma-separated, each optionally
    #                            ``rule:dotted.prefix`` (graders.autograde.review); written to
    #                            the cell's metadata["course"]["review_allow"], which the
    #                            release keeps and the review reads
    # %% test ID points=N        nbgrader autograded test cell worth N points (locked)
    # %% wrong ID                known wrong answers to exercise ID: a dict literal
    #                            {value: "message [mc:identifier]"}; left out of the notebook
    #                            and written, sealed, to helpers/answer_tables/<stem>.json,
    #                            where helpers.checks.answer finds them (see helpers.answers)

``python -m authoring`` (`make notebooks`) rebuilds every notebook and answer table; ``--check``
exits 1 when a committed one differs from its source (the lint test runs the same comparison).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from pathlib import Path

import jupytext
import nbformat

from graders.autograde import review
from helpers import answers

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "notebooks" / "src"
NOTEBOOKS = REPO / "notebooks"

_HEADER = re.compile(r"^# %%(?P<rest>.*)$")
_LAYOUT_KEYS = ("lines_to_next_cell", "lines_to_end_of_cell_marker", "cell_marker")
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def parse_header(rest: str) -> dict:
    """Turn the text after ``# %%`` into the cell's kind, grade_id and points."""
    words = rest.split()
    if not words:
        return {"kind": "code"}
    if words[0] == "[markdown]":
        return {"kind": "markdown"}
    if words[0] == "wrong":
        if len(words) != 2:
            raise ValueError("'# %% wrong' takes exactly one grade_id")
        return {"kind": "wrong", "grade_id": words[1]}
    if words[0] in ("solution", "test"):
        if len(words) < 2:
            raise ValueError(f"'# %% {words[0]}' needs a grade_id")
        header = {"kind": words[0], "grade_id": words[1]}
        for word in words[2:]:
            key, _, value = word.partition("=")
            if key == "allow" and value and words[0] == "solution":
                header["allow"] = review.parse_allowances(value.strip("'\""))
            elif key == "points" and value:
                header["points"] = float(value) if "." in value else int(value)
            else:
                raise ValueError(f"unknown option {word!r} in '# %%{rest}'")
        if words[0] == "test" and "points" not in header:
            raise ValueError(f"test cell {words[1]} needs points=N")
        return header
    raise ValueError(f"unknown cell header '# %%{rest}'")


def split_cells(text: str) -> list[tuple[dict, str]]:
    """(header, source) per cell: jupytext reads the percent format (cells, markdown
    comments); the header's words become this project's nbgrader markup."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first and not _HEADER.match(first):
        raise ValueError("text before the first '# %%' header")
    cells = []
    for cell in jupytext.reads(text, fmt="py:percent").cells:
        # jupytext's own notes on blank lines between cells are not options of ours
        meta = {k: v for k, v in cell.metadata.items() if k not in _LAYOUT_KEYS}
        if cell.cell_type == "markdown":
            if meta:
                raise ValueError(f"unexpected options on a markdown cell: {meta}")
            cells.append(({"kind": "markdown"}, cell.source))
            continue
        rest = " " + meta.pop("title", "")
        if "points" in meta:
            rest += f" points={meta.pop('points')}"
        if "allow" in meta:  # allow="..." (quoted) reaches us as metadata,
            rest += f" allow={meta.pop('allow')}"
        if "incorrectly_encoded_metadata" in meta:  # and allow=... (bare) as text
            rest += " " + meta.pop("incorrectly_encoded_metadata")
        if meta:
            raise ValueError(f"unknown cell options {meta} in '# %%{rest}'")
        cells.append((parse_header(rest.rstrip()), cell.source))
    return cells


def _nbgrader_metadata(header: dict) -> dict:
    solution = header["kind"] == "solution"
    meta = {
        "grade": not solution,
        "grade_id": header["grade_id"],
        "locked": not solution,
        "schema_version": 3,
        "solution": solution,
        "task": False,
    }
    if not solution:
        meta["points"] = header["points"]
    return meta


def _cell_id(stem: str, index: int, header: dict) -> str:
    if "grade_id" in header:
        return header["grade_id"][:64]
    return hashlib.sha1(f"{stem}:{index}".encode()).hexdigest()[:12]


def build(source: Path) -> nbformat.NotebookNode:
    stem = source.stem
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    cells = [(h, t) for h, t in split_cells(source.read_text()) if h["kind"] != "wrong"]
    for index, (header, text) in enumerate(cells):
        if header["kind"] == "markdown":
            cell = nbformat.v4.new_markdown_cell(text.strip("\n"))
        else:
            cell = nbformat.v4.new_code_cell(text.strip("\n"))
            if "grade_id" in header:
                cell.metadata["nbgrader"] = _nbgrader_metadata(header)
            if header.get("allow"):
                cell.metadata["course"] = {review.ALLOW_KEY: header["allow"]}
        cell.id = _cell_id(stem, index, header)
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def wrong_answers(source: Path) -> dict[str, dict]:
    """{grade_id: {wrong value: message}} from the source's ``# %% wrong`` cells."""
    tables: dict[str, dict] = {}
    for header, text in split_cells(source.read_text()):
        if header["kind"] != "wrong":
            continue
        grade_id = header["grade_id"]
        if answers.stem_of(grade_id) != source.stem:
            raise ValueError(f"{source.name}: '# %% wrong {grade_id}' names another notebook's exercise")
        if grade_id in tables:
            raise ValueError(f"{source.name}: two '# %% wrong {grade_id}' cells")
        try:
            table = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError) as error:
            raise ValueError(f"{source.name}: '# %% wrong {grade_id}' is not a dict literal: {error}") from None
        if not isinstance(table, dict) or not all(isinstance(m, str) for m in table.values()):
            raise ValueError(f"{source.name}: '# %% wrong {grade_id}' must map values to message strings")
        tables[grade_id] = table
    return tables


def render(source: Path) -> str:
    return nbformat.writes(build(source)) + "\n"


def render_answers(source: Path) -> str:
    return json.dumps(answers.hashed(wrong_answers(source)), indent=1) + "\n"


def target_of(source: Path) -> Path:
    return NOTEBOOKS / f"{source.stem}.ipynb"


def answers_target_of(source: Path) -> Path:
    return answers.TABLES / f"{source.stem}.json"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = []
    answers.TABLES.mkdir(exist_ok=True)
    for source in sorted(SOURCES.glob("*.py")):
        for text, target in ((render(source), target_of(source)),
                             (render_answers(source), answers_target_of(source))):
            if check:
                if not target.exists() or target.read_text() != text:
                    stale.append(target.name)
            else:
                target.write_text(text)
    if stale:
        print("out of date with notebooks/src (run `make notebooks`):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
