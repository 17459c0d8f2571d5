"""Library functions that a task forbids, made to refuse inside a test's block.

``with refusing(["torch.autograd.grad", "torch.Tensor.backward"], "…"):`` replaces each named
function (a dotted path from an imported module) by one that raises ``Refused`` with the
given message, and puts the originals back on leaving the block, also after an error. The
visible checks and the probes of notebook 02 use it (a hand-written graph walk may not call
backward; per-sample gradients and a Hessian-vector product may not come from a library's
Jacobian)."""

from __future__ import annotations

import importlib


class Refused(RuntimeError):
    """A function the task forbids was called."""


def _owner(path: str):
    """(the object holding the last name, that name) for a dotted path such as
    "torch.autograd.functional.jacobian" or "torch.Tensor.backward"."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:-1]:
            owner = getattr(owner, name)
        return owner, parts[-1]
    raise ValueError(f"{path!r} names nothing importable")


class refusing:
    def __init__(self, paths, message: str):
        self.targets = [_owner(p) for p in paths]
        self.message = message

    def __enter__(self):
        self.saved = [(owner, name, getattr(owner, name)) for owner, name in self.targets]
        message = self.message

        def refuse(*args, **kwargs):
            raise Refused(message)
        for owner, name in self.targets:
            setattr(owner, name, refuse)
        return self

    def __exit__(self, *exc):
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)
