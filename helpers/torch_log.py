"""torch's own log, printed as plain lines where a notebook shows it as ordinary output.

torch logs through ``logging`` handlers on the standard error stream, which JupyterLab
paints red like an error, with a timestamp and a thread id on every line. What 06 wants a
student to read (why Dynamo recompiled, why it broke a graph) is a lesson, not a failure:
``shown(recompiles=True)`` runs a block with those logs switched on and sends them to
standard output as the message alone.
"""

from __future__ import annotations

import contextlib
import logging
import sys

import torch

PLAIN = logging.Formatter("%(message)s")


def _torch_stream_handlers() -> list[logging.StreamHandler]:
    names = [n for n in logging.root.manager.loggerDict if n == "torch" or n.startswith("torch.")]
    loggers = [logging.getLogger(n) for n in names]
    # only plain stream handlers: torch's trace handler writes files, not the screen
    return [h for lg in loggers for h in lg.handlers if type(h) is logging.StreamHandler]


@contextlib.contextmanager
def shown(**artifacts):
    """``torch._logging.set_logs(**artifacts)`` for the block, printed on stdout.

    Afterwards the logs are back to torch's defaults (``set_logs()``), on stderr."""
    torch._logging.set_logs(**artifacts)  # rebuilds the handlers: swap streams after it
    saved = [(h, h.stream, h.formatter) for h in _torch_stream_handlers()]
    for handler, _, _ in saved:
        handler.setStream(sys.stdout)
        handler.setFormatter(PLAIN)
    try:
        yield
    finally:
        for handler, stream, formatter in saved:
            handler.setStream(stream)
            handler.setFormatter(formatter)
        torch._logging.set_logs()
