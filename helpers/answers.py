"""Known wrong answers, stored so that reading them does not give the right one away.

A visible test cell is on the student's screen, so it cannot list the wrong answers it
recognises: with four possible counts, a table that rejects three names the fourth. The
notebook's author writes each table in plain text, in a ``# %% wrong GRADE_ID`` cell of the
notebook's source (``authoring.build``); the build leaves that cell out of every notebook and
writes the table here as ``answer_tables/<stem>.json``, keyed by a digest of the grade_id and
the value, each message sealed with a key made from the same pair (so a message, which
often explains why its value is wrong, cannot be read without typing that value).
``helpers.checks.answer`` looks a student's value up by its digest and unseals the message,
so a wrong answer still hears its misconception at once while the file shows nothing
readable.

A digest hides a value from reading, not from search: a student who hashes every count
from 0 to 10 learns which are wrong. The hidden tests, which the release does not contain,
are what grade the right answer.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
from pathlib import Path

TABLES = Path(__file__).resolve().parent / "answer_tables"


def canonical(value) -> str | None:
    """One string per answer a student could mean the same way: 7 and 7.0 are one number,
    whole numbers compare exactly, others to six significant digits (so 2.0 - 0.2 * 3.0
    matches 1.4), True is not 1, a string
    ignores surrounding spaces, a tuple, list or torch.Size of them is one sequence.
    None for a value no table can hold (a tensor, a function…)."""
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, int):
        return f"num:{value}"  # exactly: 4194304 and 4194305 are different counts
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"num:{value}"
        if value.is_integer() and abs(value) < 2**53:
            return f"num:{int(value)}"  # 7.0 is 7; -0.0 is 0
        return f"num:{value:.6g}"
    if isinstance(value, str):
        return f"str:{value.strip()}"
    if value is None:
        return "none"
    if isinstance(value, (tuple, list)) or type(value).__name__ == "Size":
        parts = [canonical(v) for v in value]
        return None if None in parts else "seq:(" + ",".join(parts) + ")"
    return None


def digest(grade_id: str, value) -> str | None:
    text = canonical(value)
    if text is None:
        return None
    return hashlib.sha256(f"{grade_id}\x00{text}".encode()).hexdigest()[:20]


def _keystream(grade_id: str, value, length: int) -> bytes:
    seed = f"{grade_id}\x01{canonical(value)}".encode()
    blocks = (hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range(length // 32 + 1))
    return b"".join(blocks)[:length]


def seal(grade_id: str, value, message: str) -> str:
    data = message.encode()
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, _keystream(grade_id, value, len(data))))).decode()


def unseal(grade_id: str, value, sealed: str) -> str:
    data = base64.b64decode(sealed)
    return bytes(a ^ b for a, b in zip(data, _keystream(grade_id, value, len(data)))).decode()


def stem_of(grade_id: str) -> str:
    """The notebook a grade_id belongs to: ``01_tensors-quiz-offset`` -> ``01_tensors``."""
    return grade_id.split("-", 1)[0]


def hashed(tables: dict[str, dict]) -> dict[str, str]:
    """{grade_id: {wrong value: message}} -> {digest: sealed message}, what the json file holds."""
    out = {}
    for grade_id, wrong in tables.items():
        for value, message in wrong.items():
            key = digest(grade_id, value)
            if key is None:
                raise ValueError(f"{grade_id}: {value!r} cannot be a known wrong answer "
                                 "(use numbers, strings, booleans, None or tuples of them)")
            if key in out:
                raise ValueError(f"{grade_id}: {value!r} is listed twice (as the same answer)")
            out[key] = seal(grade_id, value, message)
    return dict(sorted(out.items()))


@functools.lru_cache(maxsize=None)
def table(stem: str) -> dict[str, str]:
    path = TABLES / f"{stem}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def known_wrong(grade_id: str, value) -> str | None:
    """The message for a known wrong answer, or None."""
    key = digest(grade_id, value)
    sealed = None if key is None else table(stem_of(grade_id)).get(key)
    return None if sealed is None else unseal(grade_id, value, sealed)
