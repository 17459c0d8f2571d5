"""Bytes between the grader and its sandboxes: length-prefixed JSON frames (the template's
protocol, graders.sandbox.template) and a pipe drained in the background with a cap (a
runner's result, a submission's stderr).

Standard library only: the template imports it inside its sandbox.
"""

from __future__ import annotations

import json
import os
import struct
import threading

_LENGTH = struct.Struct(">Q")


def write_frame(fd: int, obj) -> None:
    data = json.dumps(obj).encode()
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def read_exactly(fd: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, cap: int = 1 << 40):
    """One message, or None at the end of the stream; ValueError beyond ``cap`` bytes."""
    head = read_exactly(fd, _LENGTH.size)
    if head is None:
        return None
    (size,) = _LENGTH.unpack(head)
    if size > cap:
        raise ValueError(f"a message of {size} bytes, over the cap of {cap}")
    data = read_exactly(fd, size)
    return None if data is None else json.loads(data)


class Capped(threading.Thread):
    """Drain a pipe in the background, keeping at most ``limit`` bytes (head or tail)."""

    def __init__(self, stream, limit: int, keep: str = "head"):
        super().__init__(daemon=True)
        self.stream, self.limit, self.keep = stream, limit, keep
        self.data, self.overflow = bytearray(), False

    def run(self):
        while chunk := self.stream.read(65536):
            self.data += chunk
            if len(self.data) > self.limit:
                self.overflow = True
                self.data = self.data[:self.limit] if self.keep == "head" else self.data[-self.limit:]
        self.stream.close()
