"""torch's own log, printed as plain lines where a notebook shows it as ordinary output.

torch logs through ``logging`` handlers on the standard error stream, which JupyterLab
paints red like an error, with a timestamp and a thread id on every line. What 06 wants a
student to read (why Dynamo recompiled, why it broke a graph) is a lesson, not a failure:
``shown(recompiles=True)`` runs a block with those logs switched on and sends them to
standard output as the message alone; ``shown(graph_breaks=True, brief=True)`` keeps, of
each record, where it happened and torch's one-line explanation (its hints, debug context
and stack are left out).

``quiet()`` does the opposite for a block whose lesson is to find a break yourself: torch's
warnings (such as the one a ``.item()`` break prints once) are held back.

The environment variable ``TORCH_LOGS="graph_breaks,recompiles"`` asks for the same logs for
a whole program; ``torch._logging.set_logs``, which this module calls, is its in-code form
(documented, though in an underscore module).
"""

from __future__ import annotations

import contextlib
import logging
import sys

import torch

PLAIN = logging.Formatter("%(message)s")
# the lines of a graph-break or recompile record that say where and why
KEPT = ("Graph break in user code", "Explanation:", "Recompiling function", "triggered by",
        "- ")


class Brief(logging.Formatter):
    """Each record's message cut to the lines that say where and why."""

    def format(self, record: logging.LogRecord) -> str:
        lines = [line for line in record.getMessage().splitlines()
                 if line.strip().startswith(KEPT) and "User stack trace" not in line
                 and not line.strip().startswith("-   File")]
        return "\n".join(lines) if lines else record.getMessage().splitlines()[0]


def _torch_stream_handlers() -> list[logging.StreamHandler]:
    names = [n for n in logging.root.manager.loggerDict if n == "torch" or n.startswith("torch.")]
    loggers = [logging.getLogger(n) for n in names]
    # only plain stream handlers: torch's trace handler writes files, not the screen
    return [h for lg in loggers for h in lg.handlers if type(h) is logging.StreamHandler]


@contextlib.contextmanager
def shown(brief: bool = False, **artifacts):
    """``torch._logging.set_logs(**artifacts)`` for the block, printed on stdout (with
    ``brief``, only the lines that say where and why).

    Afterwards the logs are back to torch's defaults (``set_logs()``), on stderr."""
    torch._logging.set_logs(**artifacts)  # rebuilds the handlers: swap streams after it
    saved = [(h, h.stream, h.formatter) for h in _torch_stream_handlers()]
    for handler, _, _ in saved:
        handler.setStream(sys.stdout)
        handler.setFormatter(Brief() if brief else PLAIN)
    try:
        yield
    finally:
        for handler, stream, formatter in saved:
            handler.setStream(stream)
            handler.setFormatter(formatter)
        torch._logging.set_logs()


@contextlib.contextmanager
def quiet():
    """Run a block with torch's own warnings held back (its loggers set to ERROR); afterwards
    the logs are back to torch's defaults (``set_logs()``)."""
    torch._logging.set_logs(all=logging.ERROR)
    try:
        yield
    finally:
        torch._logging.set_logs()
