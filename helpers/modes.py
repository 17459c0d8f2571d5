"""Every submodule's train/eval mode: read it, put it back, and check that a function left
it as it found it.

``model.train(flag)`` and ``model.eval()`` set one flag on the model *and every submodule*,
so a model's modes can be mixed: a fine-tuned network often trains while its BatchNorm layers
stay in eval() (frozen statistics). A helper that switches a model to eval() for a
prediction must afterwards give each submodule back its *own* flag:
``model.train(was_training)`` would switch that BatchNorm back to training, and
``model.training = was_training`` restores the top-level flag alone, leaving every Dropout
and BatchNorm in eval().

Notebook 03 teaches the rule (its exercise writes it by hand); later notebooks' helpers and
tests use this module:

* ``modes(model)``: {qualified name: training flag} for every submodule ("" is the model);
* ``restore(model, saved)``: each submodule back to its flag in ``saved``;
* ``with evaluating(model):`` eval() inside, every submodule's own mode after (also on error);
* ``mode_changes(function, model, *args)``: calls ``function(model, *args)`` from several
  starting modes (all train, all eval, two mixtures) and describes, one line per start,
  every submodule whose mode the call left changed: empty when it restores them all;
* ``with calls_recorded() as used:``: the names of this module's functions that ran inside
  the block. 03's exercise asks for the restore written by hand, and this module is its
  answer written once: its test uses this to tell a solution that hands the work to
  ``evaluating`` or ``restore``.
"""

from __future__ import annotations

import contextlib
import inspect
import sys
from collections.abc import Callable

from torch import nn


def modes(model: nn.Module) -> dict[str, bool]:
    """The ``training`` flag of every submodule, by the name ``named_modules`` gives it."""
    return {name: module.training for name, module in model.named_modules()}


def restore(model: nn.Module, saved: dict[str, bool]) -> None:
    """Give every submodule named in ``saved`` its flag back.

    ``train(flag)`` is called parents first (``named_modules`` order): each call also sets
    the subtree below, and the children's own calls come after it, so every submodule ends
    with its own flag, and a module that overrides ``train()`` still sees the call."""
    for name, module in model.named_modules():
        if name in saved:
            module.train(saved[name])


@contextlib.contextmanager
def evaluating(model: nn.Module):
    """eval() inside the block; afterwards every submodule has the mode it had before, also
    when the block raises."""
    saved = modes(model)
    model.eval()
    try:
        yield model
    finally:
        restore(model, saved)


def _word(flag: bool) -> str:
    return "train" if flag else "eval"


def changed(model: nn.Module, before: dict[str, bool]) -> list[str]:
    """One phrase per submodule whose mode is not the one in ``before``."""
    now = dict(model.named_modules())
    return [f"{name or '(the model)'} ({type(now[name]).__name__}) was {_word(flag)}, "
            f"is {_word(now[name].training)}"
            for name, flag in before.items() if name in now and now[name].training != flag]


def starting_points(model: nn.Module) -> list[tuple[str, dict[str, bool]]]:
    """Modes to call a function from: all train, all eval, and two mixtures in which every
    submodule below the model alternates, so that each one is met in the mode opposite to
    its neighbours' (a one-flag restore cannot pass both)."""
    names = [name for name, _ in model.named_modules()]
    mixed = {name: k % 2 == 0 for k, name in enumerate(names)}
    return [("all in train()", dict.fromkeys(names, True)),
            ("all in eval()", dict.fromkeys(names, False)),
            ("mixed modes", mixed),
            ("the opposite mixture", {name: not flag for name, flag in mixed.items()})]


def mode_changes(function: Callable, model: nn.Module, *args, **kwargs) -> list[str]:
    """Call ``function(model, *args, **kwargs)`` once from each of ``starting_points(model)``
    and describe, one line per start, the submodules whose mode it changed ([] when none).

    The model is left in the mode it had before this check."""
    saved = modes(model)
    problems = []
    try:
        for label, start in starting_points(model):
            restore(model, start)
            function(model, *args, **kwargs)
            wrong = changed(model, start)
            if wrong:
                shown = "; ".join(wrong[:3]) + (f"; and {len(wrong) - 3} more" if len(wrong) > 3 else "")
                problems.append(f"from {label}: {shown}")
    finally:
        restore(model, saved)
    return problems


@contextlib.contextmanager
def calls_recorded():
    """Yield a list that fills, while the block runs, with the name of each of this module's
    functions called in it (once each, in the order of their first call).

    A profile function on the calling thread sees every Python call; it keeps those whose
    code is one of this module's functions, found by code object (an alias made by
    ``from helpers.modes import evaluating`` is the same function). The thread's previous
    profile function is put back afterwards."""
    ours = {}
    for name, value in globals().items():
        function = getattr(value, "__wrapped__", value)  # contextmanager keeps the generator
        if inspect.isfunction(function) and function.__module__ == __name__ \
                and function is not calls_recorded.__wrapped__:
            ours[function.__code__] = name
    seen: list[str] = []
    previous = sys.getprofile()

    def record(frame, event, arg):
        if event == "call" and frame.f_code in ours and ours[frame.f_code] not in seen:
            seen.append(ours[frame.f_code])
        if previous is not None:
            previous(frame, event, arg)

    sys.setprofile(record)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
