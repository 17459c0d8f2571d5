"""Which cells to run again, after a restart, so that an instrument's cell works.

An instrument's picture outlives its kernel (a restart, a reopened notebook); its controls do
not. Running its cell alone after a restart fails on the first name an earlier cell defined:
``helpers`` (the imports), or a function the notebook wrote for the instrument to draw. So,
when an instrument is made, it reads the kernel's history: the names its cell uses, the
latest earlier cell that defined each, and the names those cells use in turn, back to the
imports. The instrument's banner then names exactly those cells, in order, by their first
line ("run the cell that begins `import math`, then …, then this one").

Pure functions over the history's sources (``needed``, ``hint_for``), and ``hint()``, which
reads the running IPython's history.

The same reading answers an instrument cell run alone after a restart: every instrument cell
imports the helpers it uses, so it runs, unless it also draws a name an earlier cell defines
(02's ``branchy``). ``install()`` (done when ``helpers`` is imported in IPython) shows that
NameError as what to run instead of a traceback ("Not defined yet: branchy. Run the cell
that begins “def branchy(x):”, then this cell …"), the cells read from the notebook's file,
as the test cells' "Not answered yet" does for an exercise.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import re
import tokenize

FIRST_LINE_CHARS = 48  # a cell is named by this much of its first line of code


def _bound(tree: ast.AST) -> set[str]:
    """Names a cell binds at its top level (assignments, defs, classes, imports, loop and
    with targets, including inside if/for/while/with/try blocks; not inside functions)."""
    names: set[str] = set()

    def targets(node):
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    targets(target)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                targets(node.target)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            for field in ("body", "orelse", "finalbody"):
                if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With,
                                     ast.AsyncWith, ast.Try)) and hasattr(node, field):
                    visit(getattr(node, field))
            if isinstance(node, ast.Try):
                for handler in node.handlers:
                    if handler.name:
                        names.add(handler.name)
                    visit(handler.body)

    visit(getattr(tree, "body", []))
    # (a walrus anywhere: rare, and naming one cell too many is harmless)
    names |= {node.target.id for node in ast.walk(tree) if isinstance(node, ast.NamedExpr)}
    return names


def _used(tree: ast.AST) -> set[str]:
    """The global names a cell reads: at its top level, and inside its functions, classes,
    lambdas and comprehensions those that are not their own parameters or locals (a function
    body reads its globals when it is called)."""
    return _free(tree, frozenset()) - set(dir(builtins))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _locals(body: list, args: ast.arguments | None) -> set[str]:
    names = _bound(ast.Module(body=body, type_ignores=[]))
    if args is not None:
        names |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                  *filter(None, [args.vararg, args.kwarg])]}
    declared = {n for node in body for sub in ast.walk(node)
                if isinstance(sub, (ast.Global, ast.Nonlocal)) for n in sub.names}
    return names - declared


def _free(node: ast.AST, local: frozenset) -> set[str]:
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) and node.id not in local else set()
    if isinstance(node, _SCOPES):
        outside = [*node.args.defaults, *filter(None, node.args.kw_defaults),
                   *getattr(node, "decorator_list", [])]
        body = node.body if isinstance(node.body, list) else [ast.Expr(node.body)]
        inner = local | _locals(body, node.args)
        return set().union(*(_free(n, local) for n in outside), *(_free(n, inner) for n in body))
    if isinstance(node, ast.ClassDef):
        outside = [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]
        inner = local | _locals(node.body, None)
        return set().union(*(_free(n, local) for n in outside), *(_free(n, inner) for n in node.body))
    if isinstance(node, _COMPREHENSIONS):
        inner = local | {sub.id for g in node.generators for sub in ast.walk(g.target)
                         if isinstance(sub, ast.Name)}
        return set().union(*(_free(child, inner) for child in ast.iter_child_nodes(node)))
    return set().union(*(_free(child, local) for child in ast.iter_child_nodes(node)))


def _parse(source: str) -> ast.AST | None:
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def needed(sources: list[str], current: int, defined=frozenset()) -> list[int]:
    """Indices of the cells (earlier than ``current``, in ``sources``, the kernel's history
    as Python) that must run again for cell ``current`` to run after a restart: for each name
    a needed cell uses, the latest earlier cell that binds it; in history order. Names in
    ``defined`` (the kernel has them already) need no cell."""
    trees = [_parse(s) for s in sources]
    bound = [_bound(t) if t is not None else set() for t in trees]
    current_tree = trees[current]
    if current_tree is None:
        return []
    wanted = [(current, _used(current_tree) - bound[current])]
    chosen: set[int] = set()
    while wanted:
        at, names = wanted.pop()
        for name in sorted(set(names) - set(defined)):
            for k in range(at - 1, -1, -1):
                if name in bound[k]:
                    if k not in chosen:
                        chosen.add(k)
                        wanted.append((k, _used(trees[k]) - bound[k]))
                    break
    # a cell run twice is one cell of the notebook: named once, at its first place, so that
    # what follows it finds what it defines
    first = {}
    for k in sorted(chosen):
        first.setdefault(sources[k], k)
    return sorted(first.values())


def first_line(source: str) -> str:
    """The first line of code of a cell (comments and blank lines skipped, and a comment at
    its end), shortened."""
    for line in source.splitlines():
        code = _without_comment(line.strip())
        if code and not code.startswith("#"):
            return code if len(code) <= FIRST_LINE_CHARS else code[:FIRST_LINE_CHARS - 1] + "…"
    return source.strip()[:FIRST_LINE_CHARS]


def _without_comment(line: str) -> str:
    """``line`` without a comment at its end (a ``#`` inside a string stays)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(line + "\n").readline):
            if token.type == tokenize.COMMENT:
                return line[:token.start[1]].rstrip() if token.start[1] else line
    except (tokenize.TokenError, SyntaxError):  # an open bracket or string: as it is
        pass
    return line


RERUN_ALONE = "Run this cell again to use them"
NOT_YET = "Not defined yet"
ALL_ABOVE = "Run ▸ Run All Above Selected Cell runs every cell above it"


def _named(raw: list[str], cells: list[int]) -> str:
    return ", then ".join(f"the cell that begins “{first_line(raw[k])}”" for k in cells)


def hint_for(raw: list[str], parsed: list[str], current: int) -> str:
    """What to run, in words: the needed cells by their first lines, then this one (and,
    where cells are named, the menu item that runs everything above)."""
    cells = needed(parsed, current)
    if not cells:
        return RERUN_ALONE
    return f"To use them again, run {_named(raw, cells)}, then this cell. {ALL_ABOVE}"


def hint() -> str:
    """``hint_for`` the cell the running IPython executes now (its history, raw and as
    Python); the plain advice outside IPython."""
    try:
        from IPython import get_ipython
        history = get_ipython().history_manager
        raw, parsed = list(history.input_hist_raw), list(history.input_hist_parsed)
    except Exception:  # no IPython, or no history: nothing to name
        return RERUN_ALONE
    if not raw or len(raw) != len(parsed):
        return RERUN_ALONE
    return hint_for(raw, parsed, len(raw) - 1)


# ------------------------------------------- an instrument cell run alone after a restart

EXPLORE_CALL = re.compile(r"\bexplore\w*\s*\(")


def makes_an_instrument(source: str) -> bool:
    """Whether a cell displays an instrument: an ``explore…(`` call outside comments and
    ``def`` lines."""
    return any(EXPLORE_CALL.search(line.split("#", 1)[0]) for line in source.splitlines()
               if not line.lstrip().startswith("def "))


def not_defined_yet(name: str, raw: list[str], parsed: list[str], current: int,
                    defined=frozenset()) -> str | None:
    """What to say when cell ``current`` stopped on ``name`` not being defined: the cells to
    run first (by their first lines, none the kernel has no need of), then this one; None
    when no earlier cell defines ``name`` (a typo: the ordinary error says it best)."""
    trees = [_parse(s) for s in parsed[:current]]
    if not any(tree is not None and name in _bound(tree) for tree in trees):
        return None
    cells = needed(parsed, current, defined)
    if not cells:
        return None
    return f"{NOT_YET}: {name}. Run {_named(raw, cells)}, then this cell ({ALL_ABOVE})."


def _imported(tree: ast.AST) -> set[str]:
    """Names a cell binds by an import statement at its top level."""
    return {alias.asname or alias.name.split(".")[0] for node in getattr(tree, "body", [])
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}


def imports_elsewhere(sources: list[str], current: int) -> list[str]:
    """The names cell ``current`` uses that an earlier cell imports and it does not: after a
    restart, run alone, it would stop on each of them (an instrument cell must import them
    itself; a name a cell defines is different: its cell is named to the student)."""
    trees = [_parse(s) for s in sources]
    if trees[current] is None:
        return []
    missing = []
    for name in sorted(_used(trees[current]) - _bound(trees[current])):
        for k in range(current - 1, -1, -1):
            if trees[k] is not None and name in _bound(trees[k]):
                if name in _imported(trees[k]):
                    missing.append(name)
                break
    return missing


class NotDefinedYet(NameError):
    """A NameError in an instrument cell run before the cells it needs: shown as what to run."""

    def _render_traceback_(self) -> list[str]:
        text = str(self.args[0])  # one line, its label coloured as "Not answered yet" is
        return [text.replace(NOT_YET, f"\x1b[1;33m{NOT_YET}\x1b[0m", 1)]


def _notebook_cells(shell) -> list[dict] | None:
    """The code cells of the notebook this kernel was started for (its file, as last saved;
    Jupyter Server tells the kernel its path): [{"id", "source"}]; None when unknown."""
    path = shell.user_ns.get("__session__") if shell is not None else None
    if not isinstance(path, str) or not path.endswith(".ipynb"):
        return None
    try:
        with open(path, encoding="utf-8") as file:
            cells = json.load(file).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return None
    return [{"id": c.get("id"), "source": "".join(c.get("source", ""))}
            for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]


def _running_cell_id(shell) -> str | None:
    try:
        kernel = shell.kernel
        parent = kernel.get_parent() if hasattr(kernel, "get_parent") else kernel._parent_header
        return parent["metadata"].get("cellId")
    except Exception:  # no kernel, no metadata: the cell is found by its source
        return None


def explain_missing_name(shell, error: BaseException) -> NotDefinedYet | None:
    """The NotDefinedYet to show in place of ``error``, or None to show ``error`` itself."""
    if not isinstance(error, NameError) or isinstance(error, NotDefinedYet):
        return None
    name = getattr(error, "name", None)
    history = shell.history_manager.input_hist_raw
    if not name or not history or not makes_an_instrument(history[-1]):
        return None
    running = history[-1]
    cells = _notebook_cells(shell)
    if not cells:
        return None
    cell_id = _running_cell_id(shell)
    at = next((k for k, c in enumerate(cells) if cell_id and c["id"] == cell_id), None)
    if at is None:
        at = next((k for k, c in enumerate(cells) if c["source"].strip() == running.strip()), None)
    if at is None:
        return None
    raw = [c["source"] for c in cells[:at]] + [running]
    try:
        parsed = [shell.transform_cell(source) for source in raw]  # magics as Python
    except Exception:  # a cell IPython cannot read: it is read as it is
        parsed = raw
    text = not_defined_yet(name, raw, parsed, at, defined=set(shell.user_ns))
    return None if text is None else NotDefinedYet(text)


def install() -> bool:
    """In a running IPython, once: a NameError that stops an instrument cell is shown as
    the cells to run first (``explain_missing_name``); every other error as IPython shows it.
    It wraps the shell's showtraceback, through which IPython and helpers.checks' handler
    both show errors, so that each keeps working with the other."""
    import sys
    if "IPython" not in sys.modules:  # no IPython imported: no shell is running
        return False
    shell = sys.modules["IPython"].get_ipython()
    if shell is None or not hasattr(shell, "history_manager"):
        return False
    if getattr(shell, "_course_rerun_hint", False):
        return True
    show = shell.showtraceback

    def showtraceback(exc_tuple=None, *args, **kwargs):
        try:
            _type, value, _tb = shell._get_exc_info(exc_tuple)
            instead = explain_missing_name(shell, value)
        except Exception:  # never the reason an error goes unshown
            instead = None
        if instead is None:
            return show(exc_tuple, *args, **kwargs)
        # shown as a NameError (the kernel's reply names one): the message in place of frames
        return show((NameError, instead, None))

    shell.showtraceback = showtraceback
    shell._course_rerun_hint = True
    return True
