"""Reading the integer lists that explorers take as text ("64, 1", "(2, 3)", "1 2")."""

from __future__ import annotations

import re

_SEPARATORS = re.compile(r"[,\s]+")


def parse_ints(text: str, what: str = "shape") -> tuple[int, ...]:
    """``"64, 1"`` -> ``(64, 1)``; anything that is not a list of integers is a ValueError.

    Brackets are optional so that students can paste ``torch.Size([2, 3])``'s inside or a
    tuple literal; an empty string is the empty tuple (a 0-d shape or no arguments).
    """
    body = text.strip()
    if body.startswith("torch.Size"):
        body = body[len("torch.Size"):].strip()
    body = body.strip("()[] ")
    if not body:
        return ()
    parts = [p for p in _SEPARATORS.split(body) if p]
    try:
        return tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a list of integers such as '2, 3'") from None
