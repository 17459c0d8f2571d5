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
"""

from __future__ import annotations

import ast
import builtins

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


def needed(sources: list[str], current: int) -> list[int]:
    """Indices of the cells (earlier than ``current``, in ``sources``, the kernel's history
    as Python) that must run again for cell ``current`` to run after a restart: for each name
    a needed cell uses, the latest earlier cell that binds it; in history order."""
    trees = [_parse(s) for s in sources]
    bound = [_bound(t) if t is not None else set() for t in trees]
    current_tree = trees[current]
    if current_tree is None:
        return []
    wanted = [(current, _used(current_tree) - bound[current])]
    chosen: set[int] = set()
    while wanted:
        at, names = wanted.pop()
        for name in sorted(names):
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
    """The first line of code of a cell (comments and blank lines skipped), shortened."""
    for line in source.splitlines():
        code = line.strip()
        if code and not code.startswith("#"):
            return code if len(code) <= FIRST_LINE_CHARS else code[:FIRST_LINE_CHARS - 1] + "…"
    return source.strip()[:FIRST_LINE_CHARS]


RERUN_ALONE = "Run this cell again to use them"


def hint_for(raw: list[str], parsed: list[str], current: int) -> str:
    """What to run, in words: the needed cells by their first lines, then this one."""
    cells = needed(parsed, current)
    if not cells:
        return RERUN_ALONE
    named = ", then ".join(f"the cell that begins “{first_line(raw[k])}”" for k in cells)
    return f"To use them again, run {named}, then this cell"


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
