"""The kernel guard: runs *inside the student's kernel*, before any student code.

``install`` captures references to what test cells rely on (builtins, torch's and numpy's
comparisons, every function of ``helpers.checks`` and of the probe's modules, IPython's run
machinery, every IPython event callback and input/AST transformer, the kernel's message
handlers, sys.excepthook/stdout/stderr/displayhook) and registers one handler with the kernel
for the message type ``graders_verify_request``: the grader's runner sends that message
around every test cell (graders.autograde.integrity places the points, the runner sends
them) and the handler replies, on the kernel's shell channel, with the list of what changed
since. No name leads to it: it is in no module, not in builtins, not in the notebook's
namespace; only the kernel's handler table holds it. A verdict is a reply to the runner's
request, never text on stdout, so printing one by hand forges nothing, and it carries an
HMAC of the runner's random challenge under this run's key (the nonce, held only in the
handler's closure): a handler put in its place cannot sign without digging the key out of
the guard's closure or the interpreter's memory.

As a module (not code pasted into the kernel), ``verify``'s globals are this module's, not
the notebook's: a student's top-level ``sorted = ...`` no longer reaches it. It still runs
in the student's interpreter, so it detects tampering rather than preventing it: code that
reaches the kernel object (``get_ipython().kernel``, ``gc``) can replace the handler, which is
why the static review (graders.autograde.review) flags such code. The module leaves
``sys.modules`` once installed. Nothing beyond the standard library is imported before
``install`` runs.
"""

MESSAGE = "graders_verify_request"
CONTEXT_BUILTINS = ("get_ipython", "exit", "quit", "input")
REPLY = "graders_verify_reply"


def install(nonce: str, critical: tuple, module_names: dict) -> None:
    """Capture the references and register the verifier as the kernel's handler of MESSAGE."""
    import sys

    from IPython import get_ipython
    kernel = get_ipython().kernel
    verify = _prologue(nonce, critical, module_names)
    send = kernel.session.send
    sign = _signer(nonce)

    def handler(stream, ident, parent):
        try:
            verdict = verify()
        except Exception as error:  # noqa: BLE001 - the runner records "no verdict"
            verdict = [f"the integrity check failed: {type(error).__name__}"]
        challenge = str(parent.get("content", {}).get("challenge", ""))
        send(stream, REPLY, {"verdict": verdict, "mac": sign(challenge, verdict)}, parent, ident=ident)

    kernel.shell_handlers[MESSAGE] = handler
    sys.modules.pop(__name__, None)


def _signer(key: str):
    """The MAC a verdict carries: a handler that replaces the guard's without this run's key
    (which lives only in this closure) cannot answer the runner's challenge."""
    import hashlib
    import hmac
    import json

    def sign(challenge: str, verdict: list) -> str:
        text = challenge + "\n" + json.dumps(verdict, sort_keys=True)
        return hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()

    return sign


def signature(key: str, challenge: str, verdict: list) -> str:
    """What the runner expects of the guard's reply (the same computation, outside the kernel)."""
    return _signer(key)(challenge, verdict)


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
    # the probe's modules: imported now, so the references they capture are torch's own
    probes = [load("helpers.grading.wire"), load("helpers.grading.probe")]
    # matplotlib's IPython integration registers two post_execute callbacks when its backend
    # starts (at a notebook's first plot): start it now, so that they are not changes later
    pyplot = load("matplotlib.pyplot")
    try:
        pyplot.switch_backend(pyplot.get_backend())
    except BaseException:  # noqa: BLE001 - no matplotlib: nothing to integrate
        pass
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
                   "should_run_async", "_run_cell", "ex", "ev", "excepthook"]
    refs = {}
    for label, (owner, names) in watched.items():
        for name in names if owner is not missing else ():
            if hasattr(owner, name):
                refs[f"{label}.{name}"] = (owner, name, getattr(owner, name))
    code = []
    for module in [checks, *probes]:
        if module is missing:
            continue
        label = module.__name__
        for name, value in vars(module).items():
            if not name.startswith("__") and (callable(value) or type(value).__name__ == "dict"):
                refs[f"{label}.{name}"] = (module, name, value)
        # a function's own code, and the code of what it wraps (a decorator's inner function
        # is reachable as ``__wrapped__``: patching it changes the check as surely)
        for n, f in vars(module).items():
            while type(f).__name__ == "function":
                code.append((f"{label}.{n}", f, f.__code__, f.__defaults__, f.__kwdefaults__))
                f = getattr(f, "__wrapped__", None)
    builtins_snapshot = dict(vars(builtins))
    cls = type(shell)
    shell_refs = {n: (getattr(cls, n, None), vars(shell).get(n)) for n in shell_names}
    # (sys.excepthook, sys.displayhook and the builtins in CONTEXT_BUILTINS are set afresh by
    # IPython and ipykernel around every cell, to the shell's own, which are watched: what
    # they are between cells, when the guard answers, tells nothing)
    sysrefs = {n: getattr(sys, n) for n in ("stdout", "stderr")}
    # helpers.checks installs its own handler (not answered yet) when imported above: only a
    # change from here on is tampering
    custom = (shell.custom_exceptions, getattr(shell, "CustomTB", None))
    modules = {m: sys.modules[m] for m in set(module_names.values()) if m in sys.modules}
    def hook_lists():
        manager = shell.input_transformer_manager
        lists = {"ast_transformers": shell.ast_transformers,
                 "input_transformers_post": shell.input_transformers_post,
                 "input_transformers_cleanup": manager.cleanup_transforms,
                 "input_transformers_line": manager.line_transforms,
                 "input_transformers_token": getattr(manager, "token_transformers", [])}
        # every event (pre/post_execute, pre/post_run_cell, shell_initialized, and any
        # other), each callback by identity
        for event in set(shell.events.callbacks) | set(hooks_events):
            lists[f"{event} callbacks"] = shell.events.callbacks.get(event, [])
        return {name: list(value) for name, value in lists.items()}

    hooks_events = list(shell.events.callbacks)
    hooks = hook_lists()
    kernel = getattr(shell, "kernel", None)
    # the kernel's own message handlers and the methods they run: replacing do_execute (or
    # the execute_request handler) would run test cells differently
    handlers = dict(getattr(kernel, "shell_handlers", {}))
    kernel_methods = {n: getattr(kernel, n, None) for n in ("do_execute", "execute_request", "send_response")}
    kernel_class = type(kernel)
    display = (shell.display_pub, type(shell.display_pub).publish, shell.displayhook, type(shell.displayhook))

    def same(a, b):
        # ipykernel re-binds some methods (input, excepthook) per execution: same function
        # on the same object is the same hook
        if a is b:
            return True
        fa, fb = getattr(a, "__func__", None), getattr(b, "__func__", None)
        return fa is not None and fa is fb and getattr(a, "__self__", 0) is getattr(b, "__self__", 1)

    def identical(a, b) -> bool:
        # by identity (a callback of the student's could define __eq__ to match anything),
        # in any order (re-registering the same callback is no change)
        return len(a) == len(b) and all(any(x is y or same(x, y) for y in b) for x in a)

    def verify():
        found = []
        for key, (owner, name, value) in refs.items():
            if not same(getattr(owner, name, None), value):
                found.append(f"{key} was replaced")
        for name, f, c, d, k in code:
            if f.__code__ is not c or f.__defaults__ is not d or f.__kwdefaults__ is not k:
                found.append(f"{name} was modified in place")
        live = vars(builtins)
        for name, value in builtins_snapshot.items():
            if not same(live.get(name), value) and name != "_" and name not in CONTEXT_BUILTINS:
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
        now = hook_lists()
        for name in set(now) | set(hooks):
            if not identical(now.get(name, []), hooks.get(name, [])):
                found.append(f"IPython's {name} were changed (code runs or is rewritten around the cells)")
        if kernel is not None:
            live = kernel.shell_handlers
            for name in set(live) | set(handlers):
                if name != MESSAGE and not same(live.get(name), handlers.get(name)):
                    found.append(f"the kernel's handler of {name} messages was replaced")
            for name, value in kernel_methods.items():
                if not same(getattr(kernel, name, None), value):
                    found.append(f"the kernel's {name} was replaced")
            if type(kernel) is not kernel_class:
                found.append("the kernel's class was replaced")
        if not identical([shell.display_pub, type(shell.display_pub).publish, shell.displayhook,
                          type(shell.displayhook)], display):
            found.append("IPython's display machinery was replaced")
        return sorted(set(found))

    return verify

