"""helpers.torch_log: torch's recompile and graph-break logs reach stdout as plain lines."""

from __future__ import annotations

import contextlib
import logging
import sys

import torch

from helpers import torch_log


def _scale(x, mode):
    if mode == "double":
        return x * 2
    return x + 1


def test_recompile_reasons_go_to_stdout_without_timestamps(capsys):
    torch._dynamo.reset()
    fast = torch.compile(_scale, backend="eager", dynamic=False)
    with torch_log.shown(recompiles=True):
        fast(torch.ones(3), "double")
        fast(torch.ones(3), "add")
    out, err = capsys.readouterr()
    assert "Recompiling function _scale" in out, out
    assert "mode == 'double'" in out, out
    assert err == "", err
    assert not any(line[:1] in "VWI" and line[1:5].isdigit() for line in out.splitlines()), out


def test_graph_break_warning_goes_to_stdout(capsys):
    torch._dynamo.reset()

    def scale_by_total(x):
        return x * x.sum().item()

    with torch_log.shown():
        report = torch._dynamo.explain(scale_by_total)(torch.ones(3))
    out, err = capsys.readouterr()
    assert report.graph_break_count == 1
    assert err == "", err
    assert "Graph break" in out, out


def test_afterwards_torch_logs_to_stderr_again(capsys):
    torch._dynamo.reset()
    fast = torch.compile(_scale, backend="eager", dynamic=False)
    with torch_log.shown(recompiles=True):
        fast(torch.ones(3), "double")
    handlers = torch_log._torch_stream_handlers()
    assert handlers, "torch has stream handlers after set_logs()"
    assert all(h.stream is not sys.stdout for h in handlers)
    assert all(h.formatter is not torch_log.PLAIN for h in handlers)
    # recompiles are off again: a new mode compiles silently
    fast(torch.ones(3), "add")
    out, err = capsys.readouterr()
    assert "Recompiling" not in out + err
    assert logging.getLogger("torch").handlers


def test_brief_keeps_where_and_why_of_each_graph_break(capsys):
    torch.compiler.reset()

    def chatty(x):
        print("start")
        y = torch.sin(x) * 2
        print("halfway")
        return torch.cos(y) + 1

    with torch_log.shown(brief=True, graph_breaks=True):
        torch.compile(chatty, backend="eager")(torch.ones(3))
    out, err = capsys.readouterr()
    assert err == "", err
    breaks = [line for line in out.splitlines() if line.startswith("Graph break in user code")]
    assert len(breaks) == 2, out
    assert out.count("Explanation:") == 2 and "print" in out, out
    assert "Hint:" not in out and "Developer debug context" not in out, out


def test_brief_recompile_reasons_name_the_failed_guard_without_the_stack(capsys):
    torch.compiler.reset()
    fast = torch.compile(_scale, backend="eager", dynamic=False)
    with torch_log.shown(brief=True, recompiles=True):
        fast(torch.ones(3), "double")
        fast(torch.ones(3), "add")
    out, _ = capsys.readouterr()
    assert "Recompiling function _scale" in out and "mode == 'double'" in out, out
    assert "File " not in out, out


def test_quiet_holds_back_the_item_break_warning_and_restores_the_defaults(capfd):
    from torch._dynamo.variables.tensor import TensorVariable

    def scaled(x):
        return x * x.sum().item()

    warn_once = TensorVariable._warn_capture_scalar_outputs   # torch warns once per process
    for quietly in (True, False):
        warn_once.cache_clear()
        torch._dynamo.reset()
        with torch_log.quiet() if quietly else contextlib.nullcontext():
            torch.compile(scaled, backend="eager")(torch.ones(3))
        out, err = capfd.readouterr()
        if quietly:
            assert "Graph break" not in out + err, out + err
        else:
            assert "Graph break from `Tensor.item()`" in out + err, "the defaults were not restored"
