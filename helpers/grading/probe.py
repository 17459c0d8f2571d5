"""A hidden test's two halves: the probe (in the student's kernel) and what the judge reads.

A test cell's hidden block is written in two parts (docs/contributors.md, "Hidden tests:
probe in the kernel, judge outside"):

    ### BEGIN HIDDEN TESTS
    from helpers.grading import probe
    probe.call("row_major_strides((2, 3))", row_major_strides, (2, 3))
    ### JUDGE
    from helpers.grading.probe import got, ref
    checks.expect_true(got["row_major_strides((2, 3))"] == (3, 1), "...")
    ### END HIDDEN TESTS

The probe calls the student's code on the grader's inputs and *reports* what it saw, as
data (helpers.grading.wire); it decides nothing. The judge reads ``got`` (the student's
observations) and ``ref`` (the reference solution's, from a clean run) and decides.

Where the grader runs (`course autograde`), the probe part runs in the kernel as its own
cell, each observation leaving as a display output of type ``MIME``, and the judge part
runs in the grading worker, outside the sandbox (graders.autograde.judging), with ``got``
and ``ref`` bound to the submission's and the reference's observations. In a plain kernel
(the instructor's notebook under nbmake or JupyterLab) both parts run in the same cell, and
``got`` and ``ref`` both read this cell's own observations, decoded exactly as the grader
decodes them: the reference solution must pass its own judge.
"""

from __future__ import annotations

import contextvars
import random
import sys
from collections.abc import Mapping

from helpers.grading import wire

MIME = "application/vnd.course.probe+json"

_emitting = {"grade_id": None, "keys": set()}  # set by ``run`` in a grading kernel
_local: dict[object, dict[str, dict]] = {}     # plain kernels: cell -> {key: encoded}


# --- the probe's side (in the kernel) ----------------------------------------------------

def value(key: str, v) -> None:
    """Report ``v`` under ``key``."""
    _record(key, wire.encode(v))


def observe(key: str, thunk, seed: int | None = None):
    """Report what ``thunk()`` returns, or what it raised; return the value (None if it
    raised). ``seed``: torch's, Python's and NumPy's generators are seeded first, so the
    student's run and the reference run draw the same numbers."""
    if seed is not None:
        _seed(seed)
    try:
        result = thunk()
    except (KeyboardInterrupt, GeneratorExit):
        raise
    except BaseException as error:  # noqa: BLE001 - SystemExit too: the student's code ended
        _record(key, raised(error))
        return None
    _record(key, wire.encode(result))
    return result


def call(key: str, function, *args, seed: int | None = None, **kwargs):
    """``observe(key, lambda: function(*args, **kwargs))``."""
    return observe(key, lambda: function(*args, **kwargs), seed=seed)


def answer(name: str):
    """Report the student's variable ``name`` (a quiz answer) under the key ``name``; an
    undefined name (the answer cell still raises) is reported as not answered."""
    namespace = _user_namespace()
    if name not in namespace:
        _record(name, {"t": "unanswered", "name": name})
        return None
    v = namespace[name]
    _record(name, wire.encode(v))
    return v


NEEDS = "__needs__"  # the key under which ``needs`` reports a missing answer


class Stop(Exception):
    """The probe cannot go on (the exercise is not answered): ``run`` ends it quietly."""


def needs(*names: str) -> None:
    """Stop here unless the student defined every one of ``names`` (the functions or classes
    the exercise asks for): the judge then reads the whole cell as not answered yet, instead
    of as a probe that stopped on a NameError."""
    namespace = _user_namespace()
    for name in names:
        if name not in namespace:
            _record(NEEDS, {"t": "unanswered", "name": name})
            raise Stop(name)


def raised(error: BaseException) -> dict:
    """An exception as data: its class's name and built-in base, its first line, and
    whether it is the release's stub (``raise NotImplementedError()``: not answered)."""
    from helpers import checks
    stub = checks.unanswered_stub(error)
    if stub is not None:
        return {"t": "unanswered", "function": stub}
    described = wire.foreign(error)
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - a __str__ that raises
        message = ""
    lines = message.strip().splitlines()
    bases = []
    try:
        bases = [b.__name__ for b in type.__dict__["__mro__"].__get__(type(error))
                 if b.__module__ == "builtins" and issubclass(b, BaseException)]
    except Exception:  # noqa: BLE001
        pass
    return {"t": "raised", "type": described["type"], "bases": bases[:20],
            "message": (lines[0] if lines else "")[:300]}


def _seed(seed: int) -> None:
    import numpy
    import torch
    torch.manual_seed(seed)
    random.seed(seed)
    numpy.random.seed(seed % 2**32)


def _user_namespace() -> dict:
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    if shell is not None:
        return shell.user_ns
    return sys._getframe(2).f_globals  # a plain script: the caller's module


def _record(key: str, encoded: dict) -> None:
    if type(key) is not str:
        raise TypeError(f"a probe's key is a string, not {type(key).__name__}")
    if _emitting["grade_id"] is not None:
        if key in _emitting["keys"]:
            raise ValueError(f"the probe key {key!r} is used twice in one test cell")
        _emitting["keys"].add(key)
        from IPython.display import publish_display_data
        publish_display_data({MIME: {"key": key, "value": encoded}})
        return
    cell = _local.setdefault(_this_cell(), {})
    if key in cell:
        raise ValueError(f"the probe key {key!r} is used twice in one test cell")
    cell[key] = encoded


def _this_cell():
    """The cell being run, in a plain kernel: IPython's execution count (a script: one)."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    return getattr(shell, "execution_count", None)


def run(grade_id: str, code: str) -> None:
    """The grader's probe cell: run ``code`` (a test cell's probe part) with each
    observation published as it is made, in a copy of the notebook's namespace so that the
    probe's own names (``probe``, its loop variables) never replace the student's."""
    _emitting.update(grade_id=grade_id, keys=set())
    namespace = dict(_user_namespace())
    try:
        exec(compile(code, f"<hidden test {grade_id}>", "exec"), namespace)  # noqa: S102
    except Stop:
        pass
    finally:
        _emitting.update(grade_id=None, keys=set())


# --- the judge's side --------------------------------------------------------------------

class Missing(Exception):
    """No observation under a key: the probe never reached it."""


class Observed:
    """Observations by key, decoded; what ``got`` and ``ref`` read.

    ``self[key]`` is the value. The student's code raising, the release's stub, an undefined
    quiz answer or a missing observation each fail the check in words (``CheckFailed``),
    never with a KeyError. ``outcome(key)`` gives a ``Raised`` instead, for a test that
    expects an exception."""

    def __init__(self, encoded: dict[str, dict] | None = None, stopped: str = ""):
        self.encoded = dict(encoded or {})
        self.stopped = stopped  # why the probe ended early (its cell's error), if it did

    def __contains__(self, key) -> bool:
        return key in self.encoded

    def keys(self):
        return self.encoded.keys()

    def outcome(self, key: str):
        """The value, or a ``Raised`` when the student's code raised."""
        from helpers import checks
        needed = self.encoded.get(NEEDS)
        if needed is not None:
            raise checks.unanswered(name=str(needed.get("name") or ""))
        data = self.encoded.get(key)
        if data is None:
            reason = f": {self.stopped}" if self.stopped else ""
            raise checks.CheckFailed(f"The grader's check {key} did not run: the hidden test stopped before "
                                     f"it{reason}.")
        if data.get("t") == "unanswered":
            raise checks.unanswered(function=str(data.get("function") or ""), name=str(data.get("name") or ""))
        if data.get("t") == "raised":
            return Raised(str(data.get("type", "")), [str(b) for b in data.get("bases", [])],
                          str(data.get("message", "")))
        return wire.decode(data)

    def value(self, key: str, hint: str | Mapping[str, str] = ""):
        """The value under ``key``; if the student's code raised, a failed check that says what
        it raised and ``hint``: a sentence, or (as ``checks.explain_errors`` takes them in the
        kernel) a mapping from a fragment of the error's text to the hint it earns ("" matches
        any error)."""
        from helpers import checks
        found = self.outcome(key)
        if not isinstance(found, Raised):
            return found
        said = f"{key} raised {found}"
        said = said if said.endswith((".", "!", "?")) else said + "."
        if isinstance(hint, Mapping):
            hint = next((why for fragment, why in hint.items() if fragment.lower() in str(found).lower()), "")
        raise checks.CheckFailed(f"{said} {hint}".strip())

    def raised(self, key: str):
        """What the student's code raised under ``key`` (a ``Raised``), or None when it returned."""
        found = self.outcome(key)
        return found if isinstance(found, Raised) else None

    __getitem__ = value


class Raised:
    """What the student's code raised: the exception's class name, its built-in bases (a
    class of the student's own named ValueError is not one unless it derives from it) and
    its message's first line."""

    def __init__(self, type_name: str, bases: list[str], message: str):
        self.type_name, self.bases, self.message = type_name, bases, message

    def is_a(self, kind: type[BaseException]) -> bool:
        return kind.__name__ in self.bases

    def __str__(self):
        return f"{self.type_name}: {self.message}" if self.message else self.type_name

    __repr__ = __str__


# the judge's names: the grader binds them for the judge it runs (``judging``); elsewhere
# they read this cell's own observations
_current: contextvars.ContextVar[tuple[Observed, Observed] | None] = contextvars.ContextVar(
    "observations", default=None)


class _Proxy:
    def __init__(self, which: int):
        self._which = which

    def _target(self) -> Observed:
        bound = _current.get()
        if bound is not None:
            return bound[self._which]
        return Observed(_local.get(_this_cell(), {}))

    def __getitem__(self, key):
        return self._target()[key]

    def __contains__(self, key):
        return key in self._target()

    def __getattr__(self, name):
        return getattr(self._target(), name)


got = _Proxy(0)
ref = _Proxy(1)


def bound(student: Observed, reference: Observed):
    """Bind ``got`` and ``ref`` for the judge about to run in this thread; returns the token
    to reset with ``unbind``."""
    return _current.set((student, reference))


def unbind(token) -> None:
    _current.reset(token)
