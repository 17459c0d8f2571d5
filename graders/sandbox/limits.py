"""What one submission may use (memory, time, processes, output), and how it starts.

A traitlets Configurable, so a course sets them in its nbgrader_config.py as
``c.Limits.memory_mb = 4096`` and the command line's flags override that. The per-cell
limit is nbgrader's own ``c.Execute.timeout``: graders.course.config resolves the two names
into this one value (see there).
"""

from __future__ import annotations

from traitlets import Bool, Float, Integer, List, Unicode
from traitlets.config import Configurable


class Limits(Configurable):
    memory_mb = Integer(2048, help="address space of the kernel and everything it starts (MiB)").tag(config=True)
    cell_timeout_s = Float(120, help="seconds one cell may run (the course's Execute.timeout)").tag(config=True)
    notebook_timeout_s = Float(600, help="seconds the whole notebook may run").tag(config=True)
    max_processes = Integer(64, help="processes and threads of the submission").tag(config=True)
    max_output_chars = Integer(100_000, help="output kept per cell; the rest is cut with a note").tag(config=True)
    template = Bool(True, help="fork each submission's sandbox from a sandboxed template that has "
                    "already imported `preload` (root graders; see graders/THREATS.md). False: a "
                    "fresh bubblewrap and interpreter per submission").tag(config=True)
    # imported lazily by torch while the course's notebooks run, measured on top of the rest:
    # sympy, through symbolic_shapes (0.55 CPU-s; 01, 02, 04, 06; 01 at its first
    # torch.broadcast_shapes) and torch._dynamo (1.45 CPU-s; 02, 04, 06), every kernel again
    preload = List(Unicode(), ["torch", "numpy", "matplotlib.pyplot", "ipywidgets", "ipykernel.kernelapp",
                               "ipykernel.ipkernel", "torch.fx.experimental.symbolic_shapes", "torch._dynamo"],
                   help="modules the template imports once, for every kernel forked from it").tag(config=True)

    @classmethod
    def names(cls) -> list[str]:
        return sorted(cls.class_trait_names(config=True))

    def values(self) -> dict:
        """Plain values: what crosses a process boundary (to a worker, to the runner)."""
        return {name: getattr(self, name) for name in self.names()}

    def __repr__(self) -> str:
        return "Limits(" + ", ".join(f"{k}={v!r}" for k, v in self.values().items()) + ")"
