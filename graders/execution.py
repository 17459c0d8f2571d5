"""Execute one prepared notebook, contained, and say how it ended.

This is the seam between the harness (graders.autograde: which notebooks, in how many
workers, what goes into the gradebook) and the sandbox (graders.sandbox: how untrusted
code runs). The harness calls ``execute`` once per submission, from a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

STATUSES = ("ok", "timeout", "memory", "crashed")


@dataclass(frozen=True)
class Limits:
    memory_mb: int = 2048          # address space of the kernel and everything it starts
    cell_timeout_s: float = 120    # one cell
    notebook_timeout_s: float = 600  # the whole notebook
    max_processes: int = 64        # processes and threads of the submission
    max_output_chars: int = 100_000  # kept per cell; the rest is cut with a note


@dataclass
class Outcome:
    status: str                    # one of STATUSES
    reason: str                    # for a person: what happened and what to do
    seconds: float
    notebook: object | None = None  # the executed NotebookNode (partial on timeout/crash)
    findings: list[str] = field(default_factory=list)  # tampering detected after execution


def execute(nb, workdir: Path, limits: Limits = Limits(), sandbox: bool = True) -> Outcome:
    """Execute ``nb`` with ``workdir`` (a private scratch copy) as its only writable place."""
    raise NotImplementedError("graders.sandbox provides this (issue 4)")
