"""The kernel guard: runs *inside the student's kernel*, before any student code.

``install`` captures references to what test cells rely on (builtins, torch's and numpy's
comparisons, every function of ``helpers.checks``, IPython's run machinery and hooks,
sys.excepthook/stdout/stderr) and leaves one function, ``builtins._graders_verify_<nonce>``,
that compares the live objects with those references and writes its verdict, tagged with
the nonce, to the *captured* stdout. graders.autograde.integrity places calls to it around
every test cell and reads the verdicts back after execution (graders/THREATS.md).

As a module (not code pasted into the kernel), ``verify``'s globals are this module's, not
the notebook's: a student's top-level ``sorted = ...`` no longer reaches it. It still runs
in the student's interpreter, so it detects tampering rather than preventing it; the module
leaves ``sys.modules`` once installed. Nothing beyond the standard library is imported
before ``install`` runs.
"""


def install(nonce: str, critical: tuple, module_names: dict) -> None:
    """Capture the references and set ``builtins._graders_verify_<nonce>``."""
    import builtins
    import sys
    setattr(builtins, f"_graders_verify_{nonce}", _prologue(nonce, critical, module_names))
    sys.modules.pop(__name__, None)


def _prologue(nonce, critical, module_names):
    import builtins
    import importlib
    import math
    import sys
    import types
    missing = types.ModuleType("missing")  # stands in for what cannot be imported here

    def load(name):
        # a module the kernel cannot import (e.g. torch under a small RLIMIT_AS) cannot be
        # used by the tests either: watch what exists, never fail the prologue
        try:
            return importlib.import_module(name)
        except BaseException:
            return missing

    numpy, torch, checks = load("numpy"), load("torch"), load("helpers.checks")
    load("numpy.testing"), load("torch.testing")
    from IPython import get_ipython
    shell = get_ipython()
    watched = {
        "torch": (torch, ["allclose", "equal", "isclose", "eq", "all", "any", "abs", "max",
                          "sum", "tensor", "as_tensor", "is_tensor"]),
        "torch.testing": (getattr(torch, "testing", missing), ["assert_close"]),
        "torch.Tensor": (getattr(torch, "Tensor", missing), ["allclose", "equal", "isclose", "eq", "__eq__", "__ne__",
                                        "all", "any", "item", "tolist", "__bool__", "__float__",
                                        "abs", "max", "sum", "__getitem__", "__len__"]),
        "numpy": (numpy, ["allclose", "array_equal", "isclose", "array", "all", "any", "abs"]),
        "numpy.testing": (getattr(numpy, "testing", missing), ["assert_allclose", "assert_array_equal", "assert_equal",
                                          "assert_almost_equal", "assert_array_almost_equal"]),
        "math": (math, ["isclose"]),
    }
    shell_names = ["showtraceback", "_showtraceback", "showsyntaxerror", "run_cell",
                   "run_cell_async", "run_code", "run_ast_nodes", "transform_cell",
                   "should_run_async", "_run_cell", "ex", "ev"]
    refs = {}
    for label, (owner, names) in watched.items():
        for name in names if owner is not missing else ():
            if hasattr(owner, name):
                refs[f"{label}.{name}"] = (owner, name, getattr(owner, name))
    for name, value in vars(checks).items():
        if callable(value) and not name.startswith("__"):
            refs[f"helpers.checks.{name}"] = (checks, name, value)
    # a check's own code, and the code of what it wraps (a decorator's inner function is
    # reachable as ``__wrapped__``: patching it changes the check as surely)
    code = []
    for n, f in vars(checks).items():
        while type(f).__name__ == "function":
            code.append((n, f, f.__code__, f.__defaults__, f.__kwdefaults__))
            f = getattr(f, "__wrapped__", None)
    builtins_snapshot = dict(vars(builtins))
    cls = type(shell)
    shell_refs = {n: (getattr(cls, n, None), vars(shell).get(n)) for n in shell_names}
    sysrefs = {n: getattr(sys, n) for n in ("excepthook", "stdout", "stderr", "displayhook")}
    # helpers.checks installs its own handler (not answered yet) when imported above: only a
    # change from here on is tampering
    custom = (shell.custom_exceptions, getattr(shell, "CustomTB", None))
    modules = {m: sys.modules[m] for m in set(module_names.values()) if m in sys.modules}
    hooks = {
        "ast_transformers": list(shell.ast_transformers),
        "input_transformers_post": list(shell.input_transformers_post),
        "input_transformers_cleanup": list(shell.input_transformer_manager.cleanup_transforms),
        "input_transformers_line": list(shell.input_transformer_manager.line_transforms),
        "pre_run_cell": list(shell.events.callbacks.get("pre_run_cell", [])),
        "pre_execute": list(shell.events.callbacks.get("pre_execute", [])),
    }
    out = sys.stdout
    dumps = __import__("json").dumps

    def same(a, b):
        # ipykernel re-binds some methods (input, excepthook) per execution: same function
        # on the same object is the same hook
        if a is b:
            return True
        fa, fb = getattr(a, "__func__", None), getattr(b, "__func__", None)
        return fa is not None and fa is fb and getattr(a, "__self__", 0) is getattr(b, "__self__", 1)

    def verify():
        found = []
        for key, (owner, name, value) in refs.items():
            if not same(getattr(owner, name, None), value):
                found.append(f"{key} was replaced")
        for name, f, c, d, k in code:
            if f.__code__ is not c or f.__defaults__ is not d or f.__kwdefaults__ is not k:
                found.append(f"helpers.checks.{name} was modified in place")
        live = vars(builtins)
        for name, value in builtins_snapshot.items():
            if not same(live.get(name), value) and name != "_":
                found.append(f"builtins.{name} was replaced")
        ns = shell.user_ns
        for name in critical:
            if name in ns and ns[name] is not builtins_snapshot.get(name):
                found.append(f"the name {name} was rebound in the notebook (shadows the builtin)")
        for name, module in module_names.items():
            if name in ns and ns[name] is not modules.get(module, ns[name]):
                found.append(f"the name {name} no longer refers to the module {module}")
        for name, module in modules.items():
            if sys.modules.get(name) is not module:
                found.append(f"sys.modules[{name!r}] was replaced")
        for name, (cls_value, own) in shell_refs.items():
            if not same(getattr(cls, name, None), cls_value) or not same(vars(shell).get(name), own):
                found.append(f"IPython's {name} was replaced")
        if type(shell) is not cls:
            found.append("IPython's shell class was replaced")
        if shell.custom_exceptions != custom[0] or not same(getattr(shell, "CustomTB", None), custom[1]):
            found.append("a custom exception handler was installed (set_custom_exc)")
        for name, value in sysrefs.items():
            if not same(getattr(sys, name), value):
                found.append(f"sys.{name} was replaced")
        now = {
            "ast_transformers": shell.ast_transformers,
            "input_transformers_post": shell.input_transformers_post,
            "input_transformers_cleanup": shell.input_transformer_manager.cleanup_transforms,
            "input_transformers_line": shell.input_transformer_manager.line_transforms,
            "pre_run_cell": shell.events.callbacks.get("pre_run_cell", []),
            "pre_execute": shell.events.callbacks.get("pre_execute", []),
        }
        for name, before in hooks.items():
            if list(now[name]) != before:
                found.append(f"IPython's {name} were changed (code is rewritten before it runs)")
        out.write(f"GRADERS-{nonce} " + dumps(sorted(set(found))) + "\n")
        out.flush()

    return verify

