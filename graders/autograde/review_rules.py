"""The static review's rules: what, in a cell's syntax tree, reaches for the grader.

``findings(tree, names)`` applies every rule to every node of one parsed cell and returns
what matched, one ``Finding`` per construct (line, rule id, the dotted target it reached, a
sentence for the grader). ``imported(trees)`` says which names the notebook's import
statements bound, and to what (``np`` -> ``numpy``, ``checks`` -> ``helpers.checks``): the
rules that concern imported modules follow those names, aliases included (``t = torch``).

Rule ids (an exercise's allowance names them, graders.autograde.review):

==================  ==========================================================================
builtins            ``builtins`` / ``__builtins__``: a name, an attribute, an import, a string
graders             names or strings with ``_graders`` / ``graders_``; importing ``graders`` or
                    ``helpers.grading`` (the grader's own machinery)
ipython             ``get_ipython()`` and what it reaches (hooks, events, transformers, the
                    kernel, user_ns), except a few magics (``%time``, ``%timeit``,
                    ``%matplotlib``, ``x?``); the kernel's packages (ipykernel, comm, zmq); the
                    input history (``In``, ``_ih``, ``_i3``: the test cells' code)
sys-modules         ``sys.modules`` and the import system's hooks (``sys.meta_path``, ...)
introspection       ``gc``, ``inspect``, ``ctypes``, ``linecache``: imports and uses
exec                ``exec``, ``eval``, ``compile`` (the builtins), ``runpy``/``code``; code
                    built at run time and handed to something that runs strings (timeit, ...)
import              ``__import__``, ``importlib``
computed-name       ``getattr``/``setattr``/``delattr`` (and ``operator.attrgetter``, ``globals()[...]``)
                    with a name computed at run time, or passed around as values
module-attribute    assigning or deleting an attribute of an imported module or of anything
                    reached through one (``torch.allclose = ...``, ``setattr(checks, "x", f)``),
                    ``unittest.mock``
module-value        an imported module handed around as a value (returned, put in a list,
                    passed to a function): the way to patch it under another name
dunder              ``__code__``, ``__globals__``, ``__closure__``, ``__subclasses__``, ``__dict__``,
                    ``__defaults__``, ``__self__``, ``__getattribute__``, ... (attribute or string)
class-assignment    assigning ``__class__`` or ``__bases__``, or an attribute of a class reached
                    through an object (``type(x).__eq__ = ...``: ``x`` may be a tensor)
frame               frames and tracebacks: ``sys._getframe``, ``f_globals``, ``f_back``, ``tb_frame``,
                    ``traceback.extract_stack`` (the source of the code that called, tests included)
dispatch            ``torch.library``, ``torch.overrides``: what torch's operators do, for every caller
trace               ``sys.settrace``/``setprofile``/``addaudithook``/``monitoring``, ``threading.settrace``
code-object         ``pickle``, ``marshal`` (and kin), ``types.CodeType``/``FunctionType``
private             a private attribute reached through an imported module (``torch._C``,
                    ``torch._dynamo``, ``from torch._dynamo import explain``)
==================  ==========================================================================

A ``Finding``'s ``target`` is the dotted name it matched ("torch._dynamo.mark_dynamic",
"setattr", "sys.modules"); an allowance ``rule:prefix`` covers the targets that start with
``prefix``. Strings that hold code (``"torch.allclose = f"``, a ``%timeit`` line) are read as
code too, their findings placed on the string's line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Finding:
    line: int    # in the parsed code, from 1
    rule: str
    target: str  # what it reached, dotted ("torch._dynamo.explain", "exec", "sys.modules")
    why: str


@dataclass
class Names:
    """Names bound by the notebook's imports: name -> dotted target. ``modules`` holds those
    certainly bound to a module (``import x``, ``import x.y as z`` and their aliases)."""

    bound: dict[str, str] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)


# -- what the rules look for --------------------------------------------------------------

HARMLESS_MAGICS = {"time", "timeit", "matplotlib", "pinfo", "pinfo2"}
CODE_MAGICS = {"time", "timeit"}  # their arguments (and cell) are code: reviewed as such
_SHELL_METHODS = {"run_line_magic", "run_cell_magic"}

DUNDERS = {"__code__", "__globals__", "__closure__", "__subclasses__", "__dict__", "__defaults__",
           "__kwdefaults__", "__self__", "__func__", "__wrapped__", "__getattribute__", "__setattr__",
           "__delattr__", "__loader__", "__spec__", "__reduce__", "__reduce_ex__"}
FRAME_ATTRIBUTES = {"f_globals", "f_locals", "f_back", "f_builtins", "f_code", "f_trace", "tb_frame",
                    "tb_next", "gi_frame", "gi_code", "cr_frame", "ag_frame", "co_code", "co_consts",
                    "co_names"}
CLASS_ATTRIBUTES = {"__class__", "__bases__"}
INPUT_HISTORY = re.compile(r"In|_ih|_ii|_iii|_i\d+")  # IPython's names for the cells run so far

# dotted targets (prefixes) -> rule; the first that matches wins
TARGETS: list[tuple[str, tuple[str, ...]]] = [
    ("builtins", ("builtins",)),
    ("graders", ("graders", "helpers.grading")),
    ("sys-modules", ("sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache")),
    ("frame", ("sys._getframe", "sys._current_frames", "sys._current_exceptions", "traceback.extract_stack",
               "traceback.format_stack", "traceback.print_stack", "traceback.walk_stack", "traceback.walk_tb")),
    ("trace", ("sys.settrace", "sys.setprofile", "sys.addaudithook", "sys.monitoring",
               "threading.settrace", "threading.setprofile", "threading.settrace_all_threads",
               "threading.setprofile_all_threads")),
    ("introspection", ("gc", "inspect", "ctypes", "_ctypes", "cffi", "linecache")),
    ("dispatch", ("torch.library", "torch.overrides")),
    ("import", ("importlib", "imp", "pkgutil")),
    ("exec", ("runpy", "code", "codeop")),
    ("code-object", ("pickle", "_pickle", "cPickle", "marshal", "dill", "cloudpickle", "shelve", "copyreg",
                     "types.CodeType", "types.FunctionType", "types.LambdaType")),
    ("ipython", ("ipykernel", "jupyter_client", "zmq", "comm", "IPython.get_ipython", "IPython.core",
                 "IPython.kernel", "IPython.terminal")),
    ("module-attribute", ("unittest.mock", "mock")),
]

# under a flagged prefix, but what a notebook may teach: the old home of IPython.display
TAUGHT = ("IPython.core.display",)

# functions whose string argument is run as code: a string built at run time is flagged
CODE_RUNNERS = {"timeit.timeit", "timeit.repeat", "timeit.Timer", "torch.utils.benchmark.Timer",
                "torch.utils.benchmark.utils.timer.Timer", "cProfile.run", "cProfile.runctx", "profile.run",
                "profile.runctx", "pdb.run", "pdb.runeval"}
# a module may be handed to these (they read it, nothing else)
READERS = {"dir", "help", "print", "repr", "str", "id", "type"}

WHY = {
    "builtins": "reaches the builtins module, where the grader's names would live",
    "graders": "names the grader's own machinery",
    "ipython": "reaches IPython's shell or the kernel (hooks, events, transformers, the namespace)",
    "sys-modules": "reaches the table of loaded modules, where the test helpers can be swapped",
    "introspection": "uses a module that reaches other code's objects and frames",
    "exec": "runs code built at run time, which this review cannot read",
    "import": "imports a module by a name computed at run time",
    "computed-name": "reads or writes an attribute whose name is computed at run time",
    "module-attribute": "changes an imported module (the test helpers and comparisons are imported modules)",
    "module-value": "hands an imported module around as a value, where it can be changed under another name",
    "dunder": "reaches a function's or class's internals",
    "class-assignment": "changes an object's class, or a class reached through an object (a library's, maybe)",
    "dispatch": "changes what torch's operators do for every caller, the grader's included",
    "frame": "reaches the interpreter's frames, and the variables of code that is not the student's",
    "trace": "installs a trace or audit hook that sees every line run, the grader's included",
    "code-object": "builds code or objects from bytes, which this review cannot read",
    "private": "uses a private part of an imported module",
}


# -- names and chains ---------------------------------------------------------------------

def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def resolve(node: ast.AST, names: Names) -> str | None:
    """The dotted target of a chain that starts at an imported name (``np.testing`` ->
    ``numpy.testing``); None when it does not start at one."""
    chain = dotted(node)
    if chain is None:
        return None
    root, _, rest = chain.partition(".")
    if root not in names.bound:
        return None
    return names.bound[root] + ("." + rest if rest else "")


def _import_targets(node: ast.AST) -> Iterator[tuple[str, str, bool]]:
    """(bound name, dotted target, certainly a module) for each name an import binds."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name, True
            else:
                root = alias.name.split(".")[0]
                yield root, root, True
    elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name, f"{node.module}.{alias.name}", False


@dataclass(frozen=True)
class Bindings:
    """What one cell binds: (name, dotted target, certainly a module) per imported name, and
    its assignments of a bare chain to names (``t = torch``), as (target names, the chain);
    and which bare names it calls and which it reads attributes of (a name imported ``from``
    a package that is never called but has attributes read, like ``checks``, is a module)."""

    imports: tuple
    aliases: tuple
    called: frozenset = frozenset()
    bases: frozenset = frozenset()


def bindings(tree: ast.AST) -> Bindings:
    imports, aliases, called, bases = [], [], set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.extend(_import_targets(node))
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute)):
            targets = tuple(t.id for t in node.targets if isinstance(t, ast.Name))
            if targets:
                aliases.append((targets, node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            bases.add(node.value.id)
    return Bindings(tuple(imports), tuple(aliases), frozenset(called), frozenset(bases))


def imported(cells: list[Bindings]) -> Names:
    """Names bound by the import statements of ``cells`` (every cell of a notebook), and
    names assigned a chain on one of them (``t = torch``, ``cfg = torch._dynamo.config``)."""
    names = Names()
    called = set().union(*(cell.called for cell in cells))
    bases = set().union(*(cell.bases for cell in cells))
    for cell in cells:
        for name, target, module in cell.imports:
            names.bound[name] = target
            if module or name in bases and name not in called:
                names.modules.add(name)
    aliases = [alias for cell in cells for alias in cell.aliases]
    for _ in range(3):  # aliases of aliases
        for targets, value in aliases:
            target = resolve(value, names)
            if target is None:
                continue
            for name in targets:
                if names.bound.get(name) != target:
                    names.bound[name] = target
                    if isinstance(value, ast.Name) and value.id in names.modules:
                        names.modules.add(name)
    return names


def target_rule(target: str) -> str | None:
    """The rule a dotted target falls under, if any."""
    if _under(target, TAUGHT):
        return None
    for rule, prefixes in TARGETS:
        if _under(target, prefixes):
            return rule
    if target.endswith(".get_ipython") or ".InteractiveShell" in f".{target}":
        return "ipython"
    if any(p.startswith("_") and not _is_dunder(p) for p in target.split(".")[1:]):
        return "private"
    return None


def _under(target: str, prefixes) -> bool:
    return any(target == p or target.startswith(p + ".") for p in prefixes)


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def private_part(target: str) -> str:
    """``torch._dynamo.config.x`` -> ``torch._dynamo``: the chain up to its first private name."""
    parts = target.split(".")
    for i, part in enumerate(parts[1:], 1):
        if part.startswith("_") and not _is_dunder(part):
            return ".".join(parts[:i + 1])
    return target


# -- one cell -----------------------------------------------------------------------------

@dataclass
class Code:
    """One parsed cell as the rules see it."""

    tree: ast.AST
    names: Names
    parents: dict = field(default_factory=dict)

    def __post_init__(self):
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(node)

    def builtin(self, node: ast.AST, *names: str) -> bool:
        """``node`` is a bare name for one of the builtins ``names`` (not rebound by an import)."""
        return isinstance(node, ast.Name) and node.id in names and node.id not in self.names.bound


Rule = Callable[[ast.AST, Code], Iterator[Finding]]


def _found(node: ast.AST, rule: str, target: str, why: str | None = None) -> Finding:
    return Finding(getattr(node, "lineno", 1), rule, target, why or WHY[rule])


def _constant_str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def builtins_names(node: ast.AST, code: Code) -> Iterator[Finding]:
    if isinstance(node, ast.Name) and node.id in ("__builtins__", "builtins"):
        yield _found(node, "builtins", "builtins")
    elif isinstance(node, ast.Attribute) and node.attr == "__builtins__":
        yield _found(node, "builtins", "builtins")
    elif _constant_str(node) in ("builtins", "__builtins__"):
        yield _found(node, "builtins", "builtins", "names the builtins module in a string")


def graders_names(node: ast.AST, code: Code) -> Iterator[Finding]:
    named = None
    if isinstance(node, ast.Name):
        named = node.id
    elif isinstance(node, ast.Attribute):
        named = node.attr
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        named = node.name
    elif isinstance(node, ast.alias):
        named = node.asname or node.name.split(".")[-1]
    elif isinstance(node, ast.arg):
        named = node.arg
    if named is not None and named.startswith("_graders"):
        yield _found(node, "graders", named)
    text = _constant_str(node)
    if text is not None and ("_graders" in text or "graders_" in text):
        yield _found(node, "graders", text[:40], "names the grader's machinery in a string")


def ipython(node: ast.AST, code: Code) -> Iterator[Finding]:
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and INPUT_HISTORY.fullmatch(node.id):
        yield _found(node, "ipython", node.id, f"reads {node.id}, IPython's history of the cells run, "
                                               "the test cells' code included")
        return
    if isinstance(node, ast.Name) and node.id == "get_ipython" or \
            isinstance(node, ast.Attribute) and node.attr == "get_ipython":
        magic = shell_magic(node, code)
        if magic is not None and magic[1] in HARMLESS_MAGICS:
            return
        if magic is not None and magic[0] in _SHELL_METHODS:
            yield _found(node, "ipython", f"get_ipython.{magic[0]}",
                         f"runs the magic %{magic[1] or '(computed)'} through IPython's shell")
            return
        if magic is not None and magic[0] in ("system", "getoutput"):
            yield _found(node, "ipython", f"get_ipython.{magic[0]}", "runs a shell command (!command) through "
                                                                     "IPython's shell")
            return
        reached = "get_ipython" + (f".{magic[0]}" if magic else "")
        yield _found(node, "ipython", reached,
                     f"reaches IPython's shell ({reached.replace('get_ipython', 'get_ipython()')}) and "
                     "through it hooks, events, transformers, the kernel and the namespace")


def shell_magic(node: ast.AST, code: Code) -> tuple[str, str | None, ast.Call | None] | None:
    """For the ``get_ipython`` in ``get_ipython().method(...)``: (method, its first argument
    when a constant string, the method's call); None when its shell is not used so."""
    call = code.parent(node)
    if not (isinstance(call, ast.Call) and call.func is node):
        return None
    attribute = code.parent(call)
    if not (isinstance(attribute, ast.Attribute) and attribute.value is call):
        return None
    outer = code.parent(attribute)
    if isinstance(outer, ast.Call) and outer.func is attribute:
        first = _constant_str(outer.args[0]) if outer.args else None
        return attribute.attr, (first if attribute.attr in _SHELL_METHODS else None), outer
    return attribute.attr, None, None


def targets(node: ast.AST, code: Code) -> Iterator[Finding]:
    """A chain through an imported name, or an import, that reaches a flagged module or a
    private name (``sys.modules``, ``inspect.currentframe``, ``torch._dynamo``)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        if isinstance(node, ast.ImportFrom) and (node.level or not node.module):
            return
        for alias in node.names:
            if isinstance(node, ast.Import):
                reached = [alias.name]
            else:
                reached = [node.module] + ([f"{node.module}.{alias.name}"] if alias.name != "*" else [])
            for target in reached:
                rule = target_rule(target)
                if rule is not None:
                    yield _found(node, rule, private_part(target) if rule == "private" else target,
                                 f"imports {target}: {WHY[rule]}")
                    break
        return
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return
    parent = code.parent(node)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return  # the outermost chain speaks for it
    target = resolve(node, code.names)
    rule = target_rule(target) if target is not None else None
    if rule is not None:
        yield _found(node, rule, target, f"uses {target}: {WHY[rule]}")


def dynamic_code(node: ast.AST, code: Code) -> Iterator[Finding]:
    if code.builtin(node, "exec", "eval", "compile", "execfile"):
        yield _found(node, "exec", node.id, f"{node.id} runs code built at run time, which this review cannot read")
    elif isinstance(node, ast.Name) and node.id == "__import__" or \
            isinstance(node, ast.Attribute) and node.attr == "__import__":
        yield _found(node, "import", "__import__")
    elif isinstance(node, ast.Call):
        runner = resolve(node.func, code.names)
        if runner in CODE_RUNNERS:
            for argument in node.args[:2] + [k.value for k in node.keywords if k.arg in ("stmt", "setup")]:
                if isinstance(argument, (ast.Call, ast.BinOp, ast.JoinedStr, ast.Subscript)):
                    yield _found(node, "exec", runner, f"{runner} runs a string of code built at run time")
                    return


def computed_names(node: ast.AST, code: Code) -> Iterator[Finding]:
    if code.builtin(node, "getattr", "setattr", "delattr"):
        call = code.parent(node)
        if not (isinstance(call, ast.Call) and call.func is node):
            yield _found(node, "computed-name", node.id, f"passes {node.id} around as a value")
        elif len(call.args) >= 2 and _constant_str(call.args[1]) is None:
            yield _found(node, "computed-name", node.id,
                         f"{node.id} with an attribute name computed at run time")
    elif isinstance(node, ast.Call) and resolve(node.func, code.names) in ("operator.attrgetter",
                                                                            "operator.methodcaller"):
        function = resolve(node.func, code.names)
        named = node.args if function.endswith("attrgetter") else node.args[:1]
        if any(_constant_str(a) is None for a in named):
            yield _found(node, "computed-name", function)
    elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) and \
            code.builtin(node.value.func, "globals", "locals", "vars") and not isinstance(node.slice, ast.Constant):
        yield _found(node, "computed-name", node.value.func.id, "reads or writes a variable whose name is "
                                                                "computed at run time")


def _attribute_access(node: ast.AST) -> tuple[ast.AST, str, bool] | None:
    """(object, attribute name, is a write) for ``obj.name`` and for getattr/setattr/delattr
    with a constant name."""
    if isinstance(node, ast.Attribute):
        return node.value, node.attr, isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("getattr", "setattr", "delattr") and len(node.args) >= 2:
        name = _constant_str(node.args[1])
        if name is not None:
            return node.args[0], name, node.func.id != "getattr"
    return None


def _through_object(obj: ast.AST, code: Code) -> bool:
    """``type(x)`` or ``x.__class__`` (and what hangs off them): a class whose owner the
    review cannot tell."""
    while isinstance(obj, (ast.Attribute, ast.Subscript)):
        if isinstance(obj, ast.Attribute) and obj.attr in CLASS_ATTRIBUTES:
            return True
        obj = obj.value
    return isinstance(obj, ast.Call) and code.builtin(obj.func, "type") and len(obj.args) == 1


def attributes(node: ast.AST, code: Code) -> Iterator[Finding]:
    """Dunders, frames, class changes, writes to imported modules, private names through
    getattr: read off ``obj.name`` and ``getattr(obj, "name")`` alike."""
    access = _attribute_access(node)
    if access is None:
        return
    obj, name, write = access
    if name in DUNDERS:
        yield _found(node, "dunder", name, f"reaches {name}: {WHY['dunder']}")
    elif name in FRAME_ATTRIBUTES:
        yield _found(node, "frame", name)
    elif name in CLASS_ATTRIBUTES and write:
        yield _found(node, "class-assignment", name, f"assigns {name}: {WHY['class-assignment']}")
    elif write and _through_object(obj, code):
        yield _found(node, "class-assignment", name,
                     f"changes {name} of a class reached through an object (type(x), x.__class__): when x is "
                     "a tensor or another library's object, every caller sees the change")
    owner = resolve(obj, code.names)
    if owner is None:
        return
    if write:
        yield _found(node, "module-attribute", f"{owner}.{name}",
                     f"changes {owner}.{name}: {WHY['module-attribute']}")
    elif isinstance(node, ast.Call):  # getattr(torch, "_C"): the rules of the chain torch._C
        rule = target_rule(f"{owner}.{name}")
        if rule is not None:
            yield _found(node, rule, f"{owner}.{name}", f"uses {owner}.{name}: {WHY[rule]}")


def module_values(node: ast.AST, code: Code) -> Iterator[Finding]:
    if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in code.names.modules):
        return
    parent = code.parent(node)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return
    if isinstance(parent, ast.Assign) and parent.value is node and \
            all(isinstance(t, ast.Name) for t in parent.targets):
        return  # an alias: followed by imported()
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) and \
            parent.func.id in READERS:
        return
    if _as_a_type(node, code):
        return
    if isinstance(parent, ast.Call) and parent.args[:1] == [node] and (
            _attribute_access(parent) is not None or code.builtin(parent.func, "hasattr") and
            len(parent.args) > 1 and _constant_str(parent.args[1]) is not None):
        return  # getattr(torch, "x"), setattr(torch, "x", v): judged as torch.x by attributes()
    yield _found(node, "module-value", code.names.bound[node.id],
                 f"hands the module {code.names.bound[node.id]} around as a value, "
                 "where it can be changed under another name")


def _as_a_type(node: ast.AST, code: Code) -> bool:
    """``node`` stands where a class goes (an annotation, a base class, isinstance's second
    argument, an except clause), alone or in a tuple there: a name imported from a module
    that is a class, say."""
    parent = code.parent(node)
    if isinstance(parent, ast.Tuple):
        node, parent = parent, code.parent(parent)
    while isinstance(parent, ast.Subscript) and parent.slice is node:  # Optional[A], list[A]
        node, parent = parent, code.parent(parent)
    if isinstance(parent, ast.arg) and parent.annotation is node or \
            isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.returns is node or \
            isinstance(parent, ast.AnnAssign) and parent.annotation is node or \
            isinstance(parent, ast.ClassDef) and node in parent.bases or \
            isinstance(parent, ast.ExceptHandler) and parent.type is node:
        return True
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
        parent.func.id in ("isinstance", "issubclass") and parent.args[1:2] == [node]


def strings_naming_internals(node: ast.AST, code: Code) -> Iterator[Finding]:
    text = _constant_str(node)
    if text in DUNDERS or text in FRAME_ATTRIBUTES:
        parent = code.parent(node)
        if isinstance(parent, ast.Call) and _attribute_access(parent) is not None:
            return  # getattr(f, "__globals__"): said by attributes()
        yield _found(node, "frame" if text in FRAME_ATTRIBUTES else "dunder", text,
                     f"names {text} in a string: {WHY['frame' if text in FRAME_ATTRIBUTES else 'dunder']}")


RULES: tuple[Rule, ...] = (builtins_names, graders_names, ipython, targets, dynamic_code, computed_names,
                           attributes, module_values, strings_naming_internals)


# -- code inside strings --------------------------------------------------------------------

def embedded(node: ast.AST, code: Code) -> Iterator[tuple[str, Callable[[int], int]]]:
    """Code held in strings: (source, its line -> the cell's line). The arguments of a
    ``%time``/``%timeit`` magic, and any string that parses as statements with a call,
    an assignment or an import in them (what timeit, benchmark.Timer or exec would run)."""
    if isinstance(node, ast.Name) and node.id == "get_ipython" or \
            isinstance(node, ast.Attribute) and node.attr == "get_ipython":
        magic = shell_magic(node, code)
        if magic is None or magic[1] not in CODE_MAGICS or magic[2] is None:
            return
        line = magic[2].lineno
        arguments = [_constant_str(a) for a in magic[2].args[1:3]]
        if arguments and arguments[0] is not None:
            for candidate in _suffixes(arguments[0]):
                yield candidate, (lambda _, line=line: line)
        if len(arguments) > 1 and arguments[1] is not None:
            yield arguments[1], (lambda inner, line=line: line + inner)
        return
    text = _constant_str(node)
    if text is not None and len(text) > 2 and _holds_code(text):
        parent = code.parent(node)
        if isinstance(parent, ast.Call) and node in parent.args[1:] and isinstance(parent.func, ast.Attribute) \
                and parent.func.attr in _SHELL_METHODS:
            return  # a magic's own arguments: read above, or the magic was flagged
        start = node.lineno
        yield text, (lambda inner, start=start: start + inner - 1)


def _suffixes(arguments: str) -> list[str]:
    """A magic's argument line without 0, 1, 2, ... of its leading words: the statement that
    %timeit runs once its options are taken off is one of them."""
    words = arguments.split()
    out, rest = [arguments], arguments
    for word in words:
        rest = rest.lstrip()[len(word):]
        if rest.strip():
            out.append(rest)
    return out


def _holds_code(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(n, (ast.Call, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete, ast.Import,
                              ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Lambda)) for n in ast.walk(tree))


# -- the walk -----------------------------------------------------------------------------

def findings(tree: ast.AST, names: Names, parse: Callable[[str], ast.AST | None] = None,
             depth: int = 0) -> list[Finding]:
    """Every rule on every node of ``tree``; code in strings read the same way (``parse``
    turns a string into a tree, IPython syntax included, or None)."""
    code = Code(tree, names)
    found: list[Finding] = []
    for node in ast.walk(tree):
        for rule in RULES:
            found.extend(rule(node, code))
        if parse is None or depth >= 3:
            continue
        for source, place in embedded(node, code):
            inner = parse(source)
            if inner is not None:
                found.extend(Finding(place(f.line), f.rule, f.target, f.why)
                             for f in findings(inner, names, parse, depth + 1))
    return found
