"""Assertions for exercise test cells whose messages name the misconception.

A failed check raises ``CheckFailed`` (an AssertionError) with one short paragraph a
student can act on: what was expected, what was found, and the likely reason. Checks
never print to stderr, because nbgrader scores a test cell that writes to stderr as 0.

``expect_error`` is not a check: it is how a notebook reproduces a mistake live without
stopping "Run All".

What a student sees of a failure is one short paragraph, no traceback frames:
``CheckFailed._render_traceback_`` is what IPython shows in place of a traceback. An
unanswered exercise (the student copy's ``raise NotImplementedError()``, or a test cell
naming a variable the unanswered cell never defined) reads as "not answered yet", never as
a misconception: checks that call the student's code turn the stub's error into a
``CheckFailed`` marked ``[mc:unanswered]``, and importing this module in an IPython kernel
installs a handler that does the same for the stub's error escaping a cell (see
``install_unanswered_handler``). The error still fails the cell, so grading is unchanged.

Silence is never a verdict: a cell in which at least one check ran and none failed ends with
one line saying so (``PASS_VISIBLE`` in the student's copy, where the hidden tests are
absent; ``PASS_ALL`` where they ran too), printed by an IPython hook
(``install_pass_line``). A value of the wrong type is named, never waved through.

A visible test never lists the wrong answers it knows: ``answer`` looks the student's value
up in a sealed table (``helpers.answers``), so the cell's source gives nothing away.
"""

from __future__ import annotations

import contextlib
import functools
import math
import textwrap
from collections.abc import Mapping, Sequence

import torch

from helpers import answers
from helpers.misconceptions import MARKER, UNANSWERED, split_marker  # noqa: F401 (re-exported)


class CheckFailed(AssertionError):
    """An exercise check failed; the message says why.

    ``str()`` is the message followed by the misconception marker (that is the evalue a
    notebook stores); ``message`` is what a student reads.
    """

    def __init__(self, message: str, misconception: str | None = None):
        text, marked = split_marker(message)
        self.message = text
        self.misconception = misconception or marked
        super().__init__(text)

    def __str__(self) -> str:
        if self.misconception:
            return f"{self.message} [mc:{self.misconception}]"
        return self.message

    def _render_traceback_(self) -> list[str]:
        """What IPython (and so JupyterLab, nbgrader's Validate and feedback) shows instead
        of a traceback: the message alone, without the marker, wrapped between words."""
        label = "Not answered yet" if self.misconception == UNANSWERED else "Check failed"
        colour = "\x1b[1;33m" if self.misconception == UNANSWERED else "\x1b[1;31m"
        text = self.message
        if label.lower() in text.lower()[:len(label) + 1]:
            text = text[len(label):].lstrip(" :")  # the message already starts with it
        # "not answered yet" stays one line (one per exercise on an untouched copy)
        width = 10_000 if self.misconception == UNANSWERED else WRAP
        lines = textwrap.wrap(f"{label}: {text}", width=width, break_long_words=False,
                              break_on_hyphens=False) or [label]
        lines[0] = colour + label + "\x1b[0m" + lines[0][len(label):]
        return lines


WRAP = 90  # characters per line of a failure message (fits a notebook 900 px wide)


def _fail(message: str, misconception: str | None = None) -> None:
    __tracebackhide__ = True
    raise CheckFailed(message, misconception)


# --- the pass line -----------------------------------------------------------------------

PASS_VISIBLE = "✔ Passes the visible checks. The hidden checks run when the notebook is graded."
PASS_ALL = "✔ Passes every check in this cell, the hidden ones included."
HIDDEN_DELIMITER = "### BEGIN HIDDEN TESTS"  # nbgrader's default; the grader restores it

_ran = {"checks": 0}  # checks called since the current cell started
_shown: dict = {}  # the error the unanswered handler showed in place of this cell's own


def _counted(check):
    """A check: calling it counts, so that the cell's end can say that checks ran and passed."""
    @functools.wraps(check)
    def counted(*args, **kwargs):
        _ran["checks"] += 1
        return check(*args, **kwargs)
    counted.counts = True
    return counted


def pass_line(cell_source: str, checks_ran: int, succeeded: bool) -> str | None:
    """The line a cell ends with: None unless checks ran and nothing failed."""
    if not checks_ran or not succeeded:
        return None
    return PASS_ALL if HIDDEN_DELIMITER in cell_source else PASS_VISIBLE


def _before_cell(info=None) -> None:
    _ran["checks"] = 0
    _shown.clear()


def _after_cell(result) -> None:
    source = getattr(getattr(result, "info", None), "raw_cell", "") or ""
    line = pass_line(source, _ran["checks"], bool(getattr(result, "success", False)))
    _ran["checks"] = 0
    if line:
        print(line)
    # The kernel's reply names the cell's error by its type: make it the one shown, or
    # nbgrader's Execute (autograde, Validate), finding no output of that name, adds the
    # reply as a second error output and every message is said twice.
    original, shown = _shown.pop("error", (None, None))
    if original is not None and getattr(result, "error_in_exec", None) is original:
        result.error_in_exec = shown


def install_pass_line() -> bool:
    """Register the pass line's hooks with the running IPython kernel, once."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or getattr(shell, "_course_pass_line", False):
        return False
    shell.events.register("pre_run_cell", _before_cell)
    shell.events.register("post_run_cell", _after_cell)
    shell._course_pass_line = True
    return True


# --- unanswered exercises ---------------------------------------------------------------

def _notebook_code(filename: str) -> bool:
    """Was this code written in a notebook cell (not in a module)?"""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    cells = getattr(getattr(shell, "compile", None), "_filename_map", {})
    return filename in cells or filename.startswith("<")


def _innermost(tb):
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def unanswered_stub(error: BaseException) -> str | None:
    """The function whose body is still the release's stub, or "" for a stub raised by a
    cell itself; None when ``error`` is not the stub (``raise NotImplementedError()``
    written in a notebook cell: no arguments, raised by notebook code)."""
    if not isinstance(error, NotImplementedError) or error.args:
        return None
    last = _innermost(error.__traceback__)
    if last is None or not _notebook_code(last.tb_frame.f_code.co_filename):
        return None
    code = last.tb_frame.f_code
    if code.co_name == "<module>":
        return ""
    # a method by its class ("ArrayDataset.__init__", not "__init__"), a nested function alone
    return getattr(code, "co_qualname", code.co_name).split(".<locals>.")[-1]


def unanswered(function: str = "", name: str = "") -> CheckFailed:
    """The "not answered yet" failure: for a function still raising the stub, for a name
    the answer cell never defined, or (neither given) for the answer cell itself."""
    # one line each: Run All on an untouched copy shows one per exercise
    if function:
        text = f"Not answered yet: write {function}() above and run its cell."
    elif name:
        text = f"Not answered yet: {name} is not defined (write your answer above, run its cell)."
    else:
        text = "Not answered yet: write your answer in place of raise NotImplementedError()."
    return CheckFailed(text, UNANSWERED)


def _unanswered_stub_failure(error: BaseException) -> CheckFailed | None:
    function = unanswered_stub(error)
    return None if function is None else unanswered(function)


def _handle_unanswered(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: the stub, or a test cell's NameError on a name
    the unanswered cell never defined, is shown as one "not answered yet" line, and a test
    cell's own ``assert ..., "message"`` as its message (the cell still fails, so Validate
    and autograde score it 0); anything else as usual."""
    replacement = _unanswered_stub_failure(value)
    last = _innermost(tb)
    code = last.tb_frame.f_code if last is not None else None
    # only in a test cell's own code: it uses these checks (a scratch cell keeps the ordinary
    # error and its traceback)
    in_test_cell = (code is not None and code.co_name == "<module>"
                    and _notebook_code(code.co_filename)
                    and "checks." in _cell_source(code.co_filename))
    if replacement is None and in_test_cell:
        if isinstance(value, NameError) and value.name and value.name != "checks":
            replacement = unanswered(name=value.name)  # (not a module never imported)
        elif (type(value) is AssertionError and value.args and isinstance(value.args[0], str)
              and value.args[0].strip()):
            # a test cell's own `assert ..., "message"` reads like a check: the message alone
            replacement = CheckFailed(value.args[0])
    if replacement is None:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    else:
        _shown["error"] = (value, replacement)
        shell.showtraceback((CheckFailed, replacement, None))
    return None


def _cell_source(filename: str) -> str:
    import linecache
    return "".join(linecache.getlines(filename))


def install_unanswered_handler() -> bool:
    """Register ``_handle_unanswered`` with the running IPython kernel, once; False when
    there is no IPython or another custom handler is already installed."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None:
        return False
    mine = getattr(shell, "_course_unanswered_handler", False)
    if shell.custom_exceptions and not mine:
        return False
    shell.set_custom_exc((NotImplementedError, NameError, AssertionError), _handle_unanswered)
    shell._course_unanswered_handler = True
    return True


install_unanswered_handler()
install_pass_line()


SHOW_CHARS = 60  # a value quoted in a message: longer ones are summarised


def show(value) -> str:
    """A value as a message quotes it: its repr when short, else what it is (a tensor's
    shape and dtype), so that one message stays a few lines."""
    text = " ".join(repr(value).split())
    if len(text) <= SHOW_CHARS:
        return text
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)} ({str(value.dtype).replace('torch.', '')})"
    return text[:SHOW_CHARS - 1] + "…"


def type_name(value) -> str:
    """A value's type as a message names it. A value the grader refused to take at its word
    (helpers.grading.wire.Foreign: a subclass of int, of tuple, of Tensor...) says so."""
    base = getattr(value, "foreign_base", None)
    if base is not None:
        return (f"{type(value).__name__} (a subclass of {base}, which is not accepted: answer with a "
                f"plain {base})" if base else f"{type(value).__name__} (a type the grader does not accept)")
    return type(value).__name__


def _shape_tuple(value) -> tuple[int, ...] | None:
    if isinstance(value, torch.Tensor):
        return tuple(value.shape)
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, Sequence) and all(isinstance(v, int) for v in value):
        return tuple(value)
    return None


def diagnose_shape(actual: tuple[int, ...], expected: tuple[int, ...]) -> str | None:
    """Name the usual reason ``actual`` is not ``expected``, or None when nothing fits."""
    if actual == expected:
        return None
    if len(actual) == len(expected) and sorted(actual) == sorted(expected):
        if len(actual) == 2:
            return (f"{actual} is the transpose of the expected {expected}: "
                    "did you swap rows and columns?")
        return (f"{actual} has the right sizes in the wrong order (expected {expected}): "
                "check the order of the dimensions in your permute/transpose.")
    if len(expected) == 1 and len(actual) == 2 and actual == (expected[0], expected[0]):
        return (f"{actual} is an outer product: a ({expected[0]},) tensor met a "
                f"({expected[0]}, 1) tensor and broadcasting paired every row with every "
                "column. Make both sides the same shape first (squeeze or view).")
    if tuple(d for d in actual if d != 1) == tuple(d for d in expected if d != 1):
        return (f"{actual} differs from the expected {expected} only by size-1 "
                "dimensions: add or remove one with unsqueeze/squeeze (or keepdim).")
    if math.prod(actual) == math.prod(expected):
        return (f"{actual} holds the right number of elements ({math.prod(expected)}) "
                f"but the expected shape is {expected}: which dimensions did you merge or split?")
    if len(actual) == len(expected) - 1 and actual == expected[1:]:
        return f"{actual} is missing the leading batch dimension of {expected}."
    return None


@_counted
def expect_shape(value, expected, name: str = "result") -> None:
    """Check a tensor's (or a shape's) shape, naming the usual reason it is wrong."""
    actual = _shape_tuple(value)
    expected = tuple(expected)
    if actual is None:
        _fail(f"{name} should be a tensor or a shape tuple, got {type_name(value)}.")
    if actual != expected:
        reason = diagnose_shape(actual, expected)
        _fail(f"{name} has shape {actual}, expected {expected}."
              + (f" {reason}" if reason else ""))


@_counted
def expect_type(value, kind, name: str = "result") -> None:
    if not isinstance(value, kind):
        _fail(f"{name} should be {_kind_words(kind)}, got {type_name(value)}.")


@_counted
def expect_equal(value, expected, name: str = "result",
                 wrong: Mapping | None = None) -> None:
    """Check an exact value; ``wrong`` maps known wrong answers to the misconception."""
    if _same(value, expected):
        return
    for wrong_value, reason in (wrong or {}).items():
        if _same(value, wrong_value):
            _fail(f"{name} is {show(value)}, expected {show(expected)}. {reason}")
    _fail(f"{name} is {show(value)}, expected {show(expected)}.")


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
                and a.shape == b.shape and bool(torch.equal(a, b)))
    if isinstance(a, bool) != isinstance(b, bool):
        return False  # True == 1 in Python, but a quiz answer of 1 is not "True"
    if isinstance(a, (tuple, list, torch.Size)) and isinstance(b, (tuple, list, torch.Size)):
        # element by element, so that the rule above holds inside: (1, 0) is not (True, False)
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b)
    except Exception:
        return False


@_counted
def reject(value, wrong: Mapping, name: str = "result") -> None:
    """Fail with the misconception when ``value`` is a known wrong answer.

    Visible tests use this so that they explain a wrong answer without printing the right
    one; the hidden tests then check the exact value.
    """
    for wrong_value, reason in wrong.items():
        if _same(value, wrong_value):
            _fail(f"{name} = {show(value)} is not right. {reason}")


@_counted
def expect_close(value, expected, name: str = "result", rtol: float = 1e-5,
                 atol: float = 1e-6, hint: str = "") -> None:
    """Check a tensor or number against the expected one within tolerance."""
    if isinstance(expected, torch.Tensor):
        if not isinstance(value, torch.Tensor):
            _fail(f"{name} should be a tensor, got {type_name(value)}.")
        expect_shape(value, expected.shape, name)
        if value.dtype != expected.dtype and not (value.is_floating_point()
                                                  and expected.is_floating_point()):
            _fail(f"{name} has dtype {value.dtype}, expected {expected.dtype}.")
        got, want = value.detach().to(torch.float64), expected.detach().to(torch.float64)
        if torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            return
        worst = (got - want).abs().max().item()
        _fail(f"{name} differs from the expected values (largest difference {worst:.3g})."
              + (f" {hint}" if hint else ""))
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            _fail(f"{name} should be a number, got {type_name(value)}.")
        if not math.isclose(number, float(expected), rel_tol=rtol, abs_tol=atol):
            _fail(f"{name} is {number:g}, expected {float(expected):g}."
                  + (f" {hint}" if hint else ""))


@_counted
def expect_shares_memory(value, base, name: str = "result") -> None:
    """Check that ``value`` is a view of ``base`` (no copy was made)."""
    if not isinstance(value, torch.Tensor):
        _fail(f"{name} should be a tensor, got {type_name(value)}.")
    if value.untyped_storage().data_ptr() != base.untyped_storage().data_ptr():
        _fail(f"{name} is a copy, but it should be a view sharing storage with the "
              "original: use an operation that only changes shape and strides.")


@contextlib.contextmanager
def expect_error(*kinds: type[BaseException]):
    """Run a block that should fail, and show the error instead of stopping the notebook.

    Common-mistake cells use this so that the error is visible on the page while
    "Run All" keeps going. If the block does not fail, that is itself reported.
    """
    kinds = kinds or (Exception,)
    try:
        yield
    except kinds as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        print(f"{type(error).__name__}: {first_line}")
    else:
        print("(no error was raised)")


# --- answers whose wrong values the page must not show ----------------------------------

_KIND_WORDS = {int: "a whole number (an int)", float: "a number", bool: "True or False",
               str: "a string", tuple: "a tuple"}


def _kind_words(kind) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_KIND_WORDS.get(k, f"a {k.__name__}") for k in kinds)


def _is_kind(value, kind) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False  # True is an int to Python, never to a quiz
    if float in kinds and isinstance(value, int) and not isinstance(value, bool):
        return True  # 2 is a fine answer where 2.0 is expected
    return isinstance(value, kinds)


def _same_answer(a, b) -> bool:
    """The same answer as a table would read it (" bfloat16" is "bfloat16", 7.0 is 7)."""
    ca, cb = answers.canonical(a), answers.canonical(b)
    return ca == cb if ca is not None and cb is not None else _same(a, b)


@_counted
def answer(grade_id: str, value, name: str, kind=None, choices: Sequence | None = None) -> None:
    """The visible check of an answer that is a value (a quiz, a predicted shape…).

    ``kind`` (a type or a tuple of types): a value of another type is named. ``choices``: the
    answers the question allows (already on the page), anything else is named. Then the
    value is looked up among the exercise's known wrong answers, written in its
    ``# %% wrong GRADE_ID`` cell and sealed in helpers/answer_tables: a known one fails with
    its message. The right answer is checked by the hidden tests.
    """
    if kind is not None and not _is_kind(value, kind):
        _fail(f"{name} should be {_kind_words(kind)}, got {type_name(value)} {show(value)}.")
    if choices is not None and not any(_same_answer(value, c) for c in choices):
        allowed = ", ".join(show(c) for c in choices)
        _fail(f"{name} is {show(value)}, which is not one of the choices ({allowed}).")
    message = answers.known_wrong(grade_id, value)
    if message is not None:
        _fail(f"{name} = {show(value)} is not right. {message}")


# --- notebook 01 (tensors) --------------------------------------------------------------

def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


@contextlib.contextmanager
def explain_errors(hints: Mapping[str, str], name: str = "your code"):  # counted: see below
    """Turn an exception inside the block into a CheckFailed that names the likely reason.

    ``hints`` maps a fragment of the error message (case-insensitive; "" matches any) to
    the misconception, e.g. ``{"requires grad": "call .detach() before .numpy()"}``.
    """
    _ran["checks"] += 1
    try:
        yield
    except CheckFailed:
        raise
    except Exception as error:
        stub = _unanswered_stub_failure(error)
        if stub is not None:
            raise stub from None
        said = f"{name} raised {type(error).__name__}: {_first_line(error)}"
        ended = said if said.endswith((".", "!", "?")) else f"{said}."  # (not "instead..")
        for fragment, reason in hints.items():
            if fragment.lower() in str(error).lower():
                raise CheckFailed(f"{ended} {reason}") from None
        raise CheckFailed(said) from None


@_counted
def expect_raises(kind: type[BaseException], call, *args, name: str = "result",
                  why: str = "") -> None:
    """Check that ``call(*args)`` raises ``kind``; ``why`` says what a silent answer misses."""
    try:
        value = call(*args)
    except Exception as error:
        stub = _unanswered_stub_failure(error)  # NotImplementedError is a RuntimeError
        if stub is not None:
            raise stub from None
        if isinstance(error, kind):
            return
        _fail(f"{name} raised {type(error).__name__} ({_first_line(error)}), "
              f"expected {kind.__name__}." + (f" {why}" if why else ""))
    _fail(f"{name} returned {show(value)} instead of raising {kind.__name__}."
          + (f" {why}" if why else ""))


def _unchanged(tensor: torch.Tensor, saved: torch.Tensor) -> bool:
    """The same shape, dtype and values, a NaN where there was a NaN (torch.equal calls an
    untouched NaN changed, since NaN != NaN)."""
    if tensor.shape != saved.shape or tensor.dtype != saved.dtype:
        return False
    if tensor.is_floating_point() or tensor.is_complex():
        holes = torch.isnan(saved)
        return bool(torch.equal(torch.isnan(tensor), holes)
                    and torch.equal(tensor.masked_fill(holes, 0), saved.masked_fill(holes, 0)))
    return bool(torch.equal(tensor, saved))


@_counted
def expect_untouched(tensor: torch.Tensor, saved: torch.Tensor, name: str = "the input") -> None:
    """Check that a function left its argument as it was (no in-place writes)."""
    if not _unchanged(tensor, saved):
        _fail(f"{name} was modified in place: assignments like x[mask] = 0 and methods "
              "with a trailing underscore (x.clamp_()) write into the caller's tensor. "
              "Work on a copy (x.clone()) or use an out-of-place operation.")


@_counted
def reject_close(value, wrong: Mapping, name: str = "result", rtol: float = 1e-4,
                 atol: float = 1e-6) -> None:
    """Like ``reject`` for floating-point answers: a value within tolerance of a known
    wrong one fails with its misconception (different op orders round differently)."""
    if isinstance(value, (str, bytes, bool)) or value is None:
        _fail(f"{name} should be a number or a tensor of numbers, got {type_name(value)} {show(value)}.")
    try:
        got = torch.as_tensor(value, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        _fail(f"{name} should be a number or a tensor of numbers, got {type_name(value)} {show(value)}.")
    for wrong_value, reason in wrong.items():
        bad = torch.as_tensor(wrong_value, dtype=torch.float64)
        if got.shape == bad.shape and torch.allclose(got, bad, rtol=rtol, atol=atol):
            _fail(f"{name} is not right. {reason}")


# --- checks that always give a reason (notebooks 01 and 02) -----------------------------

@_counted
def expect_true(condition, message: str) -> None:
    """Fail with ``message`` unless ``condition`` holds.

    For a property that has no "wrong value" to show (requires_grad, is_leaf, a gradcheck):
    the message says what the answer does, never "X = True is not right" when X was False.
    """
    __tracebackhide__ = True
    if not bool(condition):
        _fail(message)


@contextlib.contextmanager
def because(why: str):
    """Give every check inside the block a reason: a failure that names no misconception
    gets ``why`` (which should carry an ``[mc:...]`` marker) appended; one that already
    names a misconception keeps its own."""
    try:
        yield
    except CheckFailed as failure:
        if failure.misconception:
            raise
        raise CheckFailed(f"{failure.message} {why}") from None


# The checks whose call counts towards the pass line: a visible test calls at least one
# (tests/test_checks.py lints every notebook's test cells for it).
COUNTED = frozenset({name for name, value in list(globals().items()) if getattr(value, "counts", False)}
                    | {"explain_errors"})
