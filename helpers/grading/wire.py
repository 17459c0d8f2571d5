"""Values as data: what a hidden test's probe sends out of the student's kernel.

A probe (helpers.grading.probe) calls the student's code in the kernel and hands the
result to the grader as JSON, never as an object: the grader judges it in another process
(graders.autograde.judging), so nothing the student wrote runs there. ``encode`` accepts
only exact built-in types (``type(v) is int``, not ``isinstance``): a subclass, whatever
its ``__eq__``, ``__hash__`` or ``__bool__`` say, becomes a *foreign* value that names its
type and equals nothing. A tensor travels as dtype, shape and raw bytes (like NumPy's
``.npy`` without pickle); ``decode`` rebuilds it with torch, checking every size first.

``encode`` runs in the kernel and must not run student code: it reads types with
``type()``, walks only exact tuples, lists and dicts, and copies a tensor's bytes with
torch's own functions, captured when this module is imported (the grader's prologue imports
it before any student cell).
"""

from __future__ import annotations

import base64
import math

import numpy
import torch

MAX_BYTES = 4 * 2**20      # one observation's tensor data
MAX_ITEMS = 100_000        # elements of sequences and dicts in one observation
MAX_DEPTH = 16
MAX_TEXT = 100_000         # characters of one string

DTYPES = {name: getattr(torch, name) for name in (
    "float64", "float32", "float16", "bfloat16", "complex64", "complex128", "int64", "int32",
    "int16", "int8", "uint8", "bool", "uint16", "uint32", "uint64") if hasattr(torch, name)}
NP_KINDS = "biufc"         # numpy dtypes that are numbers or booleans (no objects, no strings)

# torch's own functions, as they were when the grader imported this module
_TENSOR, _PARAMETER = torch.Tensor, torch.nn.Parameter
_detach, _cpu, _contiguous = torch.Tensor.detach, torch.Tensor.cpu, torch.Tensor.contiguous
_reshape, _view, _resolve_conj, _resolve_neg = (torch.Tensor.reshape, torch.Tensor.view,
                                                torch.Tensor.resolve_conj, torch.Tensor.resolve_neg)
_numpy = torch.Tensor.numpy
_is_meta = _TENSOR.is_meta.__get__
_layout, _dtype, _shape = _TENSOR.layout.__get__, _TENSOR.dtype.__get__, _TENSOR.shape.__get__
_requires_grad = _TENSOR.requires_grad.__get__
_b64encode, _b64decode = base64.b64encode, base64.b64decode
_ndarray = numpy.ndarray
_NP_SCALARS = tuple({numpy.dtype(c).type for c in "?bBhHiIlLqQefdgFDG"})


class WireError(ValueError):
    """Malformed data: what the kernel sent is not an observation."""


class Budget:
    """What one observation may still use; encoding stops with a marker, not a failure."""

    def __init__(self):
        self.bytes, self.items = MAX_BYTES, MAX_ITEMS


def encode(value, budget: Budget | None = None, depth: int = 0):
    """``value`` as JSON-able data; exact types only (see the module's docstring)."""
    budget = budget if budget is not None else Budget()
    kind = type(value)
    if value is None:
        return {"t": "none"}
    if kind is bool:
        return {"t": "bool", "v": value}
    if kind is int:
        return {"t": "int", "v": value} if value.bit_length() < 4096 else _too_large("int")
    if kind is float:
        return {"t": "float", "v": value.hex()}
    if kind is str:
        return {"t": "str", "v": value} if len(value) <= MAX_TEXT else _too_large("str")
    if kind is bytes:
        return {"t": "bytes", "v": _b64encode(value).decode()} if len(value) <= MAX_TEXT else _too_large("bytes")
    if kind in (tuple, list) or kind is torch.Size:
        if depth >= MAX_DEPTH or len(value) > budget.items:
            return _too_large(kind.__name__)
        budget.items -= len(value)
        name = "size" if kind is torch.Size else kind.__name__
        return {"t": name, "v": [encode(v, budget, depth + 1) for v in value]}
    if kind is dict:
        if depth >= MAX_DEPTH or len(value) > budget.items:
            return _too_large("dict")
        budget.items -= len(value)
        return {"t": "dict", "v": [[encode(k, budget, depth + 1), encode(v, budget, depth + 1)]
                                   for k, v in dict.items(value)]}
    if kind is _TENSOR or kind is _PARAMETER:
        return _encode_tensor(value, budget, parameter=kind is _PARAMETER)
    if kind is torch.dtype:
        return {"t": "dtype", "v": str(value).removeprefix("torch.")}
    if kind is torch.device:
        return {"t": "device", "v": str(value)}
    if kind is _ndarray:
        return _encode_array(value, budget)
    if kind in _NP_SCALARS:
        return {"t": "npscalar", "dtype": numpy.dtype(kind).str,
                "data": _b64encode(numpy.asarray(value).tobytes()).decode()}
    return foreign(value)


def _too_large(kind: str) -> dict:
    return {"t": "too-large", "type": kind}


def _encode_tensor(t, budget: Budget, parameter: bool) -> dict:
    dtype = str(_dtype(t)).removeprefix("torch.")
    shape = list(_shape(t))
    head = {"t": "tensor", "dtype": dtype, "shape": shape, "requires_grad": bool(_requires_grad(t)),
            "parameter": parameter}
    if dtype not in DTYPES or _layout(t) is not torch.strided:
        return {**foreign(t), "detail": f"a {dtype} tensor with layout {_layout(t)}"}
    if _is_meta(t):
        return {**head, "meta": True}
    flat = _reshape(_contiguous(_resolve_neg(_resolve_conj(_cpu(_detach(t))))), (-1,))
    size = flat.numel() * flat.element_size()
    if size > budget.bytes:
        return {**_too_large("tensor"), "shape": shape, "dtype": dtype}
    budget.bytes -= size
    raw = _numpy(_view(flat, torch.uint8)).tobytes() if size else b""
    return {**head, "data": _b64encode(raw).decode()}


def _encode_array(a, budget: Budget) -> dict:
    if a.dtype.kind not in NP_KINDS or a.dtype.hasobject:
        return {**foreign(a), "detail": f"a NumPy array of dtype {a.dtype}"}
    if a.nbytes > budget.bytes:
        return {**_too_large("ndarray"), "shape": list(a.shape)}
    budget.bytes -= a.nbytes
    return {"t": "ndarray", "dtype": a.dtype.str, "shape": list(a.shape),
            "data": _b64encode(numpy.ascontiguousarray(a).tobytes()).decode()}


BUILTIN_BASES = (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset,
                 _TENSOR, _ndarray, type(None))


def foreign(value) -> dict:
    """What an unaccepted value becomes: its type's name and the built-in type it claims to
    be (a subclass of int, of Tensor...), read from the class's own MRO without calling it."""
    kind = type(value)
    try:
        mro = type.__dict__["__mro__"].__get__(kind)
        base = next((b.__name__ for b in mro[1:] if b in BUILTIN_BASES), "")
        name = type.__dict__["__qualname__"].__get__(kind)
        module = type.__dict__["__module__"].__get__(kind)
    except Exception:  # noqa: BLE001 - a class this odd is named as such
        base, name, module = "", "an unknown type", ""
    return {"t": "foreign", "type": str(name)[:200], "module": str(module)[:200], "base": base}


# --- the other side: data back into values ----------------------------------------------

class Foreign:
    """A value of a type the grader does not accept. It equals nothing, is never true, and
    its class carries the student's type's name (``type(v).__name__``), so that messages
    naming a wrong type ("should be a tuple, got LyingInt") read as they would in the kernel."""

    type_name, base, detail = "", "", ""

    @property
    def foreign_base(self) -> str:
        """The built-in type it derives from ("" if none): helpers.checks.type_name reads it."""
        return self.base

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = object.__hash__

    def __bool__(self):
        return False

    def __repr__(self):
        if self.detail:
            return f"<{self.detail}>"
        if self.base:
            return f"<a {self.type_name}, a subclass of {self.base}: its own methods are not trusted>"
        return f"<a {self.type_name}>"

    def _refuse(self, *_):
        """A judge that compares, counts, indexes or converts it fails the check in words,
        not with a TypeError (which would read as the grader's own failure)."""
        from helpers import checks
        raise checks.CheckFailed(f"The answer holds {self!r}, which the grader does not accept: "
                                 f"{checks.type_name(self)}.")

    __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __float__ = __int__ = __index__ = __complex__ = __len__ = __iter__ = __getitem__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __neg__ = __abs__ = __round__ = _refuse


_FOREIGN_CLASSES: dict[str, type] = {}


def _foreign(type_name: str, base: str, detail: str = "") -> Foreign:
    label = "".join(c for c in type_name.rsplit(".", 1)[-1] if c.isalnum() or c == "_") or "Unknown"
    cls = _FOREIGN_CLASSES.get(label)
    if cls is None:
        cls = _FOREIGN_CLASSES[label] = type(label, (Foreign,), {})
    value = cls()
    value.type_name, value.base, value.detail = type_name, base, detail
    return value


class TooLarge(Foreign):
    def __repr__(self):
        return f"<a {self.type_name} too large for the grader to read>"


def decode(data, depth: int = 0):
    """The value ``encode`` described; ``WireError`` for anything malformed."""
    if depth > MAX_DEPTH + 1 or type(data) is not dict or type(data.get("t")) is not str:
        raise WireError("not an encoded value")
    tag = data["t"]
    decoder = _DECODERS.get(tag)
    if decoder is None:
        raise WireError(f"unknown kind {tag!r}")
    try:
        return decoder(data, depth)
    except WireError:
        raise
    except (KeyError, TypeError, ValueError, OverflowError, RuntimeError) as error:
        raise WireError(f"malformed {tag}: {type(error).__name__}") from None


def _exact(value, kind):
    if type(value) is not kind:
        raise WireError(f"expected {kind.__name__}")
    return value


def _sequence(data, depth):
    items = _exact(data["v"], list)
    if len(items) > MAX_ITEMS:
        raise WireError("too many items")
    return [decode(v, depth + 1) for v in items]


def _tensor(data, depth):
    dtype = DTYPES.get(_exact(data["dtype"], str))
    shape = [_exact(n, int) for n in _exact(data["shape"], list)]
    if dtype is None or any(n < 0 for n in shape) or len(shape) > 64:
        raise WireError("bad dtype or shape")
    if data.get("meta"):
        return torch.empty(shape, dtype=dtype, device="meta")
    raw = _b64decode(_exact(data["data"], str), validate=True)
    numel = math.prod(shape)
    itemsize = torch.empty((), dtype=dtype).element_size()
    if len(raw) != numel * itemsize or len(raw) > MAX_BYTES:
        raise WireError("tensor data does not match its shape")
    if numel == 0:
        t = torch.empty(shape, dtype=dtype)
    else:
        t = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype).reshape(shape)
    if _exact(data.get("requires_grad", False), bool) and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
    return torch.nn.Parameter(t, requires_grad=t.requires_grad) if data.get("parameter") is True else t


def _np_dtype(text: str) -> numpy.dtype:
    dtype = numpy.dtype(_exact(text, str))
    if dtype.kind not in NP_KINDS or dtype.hasobject:
        raise WireError("not a numeric NumPy dtype")
    return dtype


def _array(data, depth):
    dtype = _np_dtype(data["dtype"])
    shape = tuple(_exact(n, int) for n in _exact(data["shape"], list))
    raw = _b64decode(_exact(data["data"], str), validate=True)
    if any(n < 0 for n in shape) or len(raw) != math.prod(shape) * dtype.itemsize:
        raise WireError("array data does not match its shape")
    return numpy.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _npscalar(data, depth):
    dtype = _np_dtype(data["dtype"])
    raw = _b64decode(_exact(data["data"], str), validate=True)
    if len(raw) != dtype.itemsize:
        raise WireError("scalar data does not match its dtype")
    return numpy.frombuffer(raw, dtype=dtype)[0]


def _dict(data, depth):
    pairs = _exact(data["v"], list)
    if len(pairs) > MAX_ITEMS:
        raise WireError("too many items")
    out = {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise WireError("a dict entry is not a pair")
        key = decode(pair[0], depth + 1)
        try:
            out[key] = decode(pair[1], depth + 1)
        except TypeError:  # an unhashable key (a list): not something encode makes
            raise WireError("unhashable key") from None
    return out


def _int(data, depth):
    value = _exact(data["v"], int)
    if value.bit_length() >= 4096:
        raise WireError("int too large")
    return value


def _dtype_value(data, depth):
    name = _exact(data["v"], str)
    if name not in DTYPES:
        raise WireError("unknown dtype")
    return DTYPES[name]


_DECODERS = {
    "none": lambda d, depth: None,
    "bool": lambda d, depth: _exact(d["v"], bool),
    "int": _int,
    "float": lambda d, depth: float.fromhex(_exact(d["v"], str)),
    "str": lambda d, depth: _exact(d["v"], str),
    "bytes": lambda d, depth: _b64decode(_exact(d["v"], str), validate=True),
    "tuple": lambda d, depth: tuple(_sequence(d, depth)),
    "list": _sequence,
    "size": lambda d, depth: torch.Size([_exact(n, int) for n in _sequence(d, depth)]),
    "dict": _dict,
    "tensor": _tensor,
    "ndarray": _array,
    "npscalar": _npscalar,
    "dtype": _dtype_value,
    "device": lambda d, depth: torch.device(_exact(d["v"], str)),
    "foreign": lambda d, depth: _foreign(str(d.get("type", "")), str(d.get("base", "")), str(d.get("detail", ""))),
    "too-large": lambda d, depth: _foreign_too_large(str(d.get("type", ""))),
}


def _foreign_too_large(type_name: str) -> TooLarge:
    value = TooLarge()
    value.type_name = type_name
    return value
