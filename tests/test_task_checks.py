"""helpers.training_tasks and helpers.autograd_tasks: the checks that a notebook's visible test
and its judge share. Each passes what torch itself computes and names each known wrong answer
by its misconception, computed here the way a student's wrong rule would compute it."""

import copy
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from helpers import autograd_tasks, training_tasks
from helpers.checks import CheckFailed


def fails_with(marker, call, *args):
    with pytest.raises(CheckFailed, match=rf"\[mc:{marker}\]"):
        call(*args)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), d=st.integers(1, 5), hidden=st.integers(1, 5))
def test_tied_grads_autograd_passes_and_each_wrong_rule_is_named(seed, n, d, hidden):
    case = autograd_tasks.tied_case(seed, n, d, hidden)
    x, W, b1, b2 = case
    right = autograd_tasks.tied_reference(*case)
    # torch's own gradients, by autograd on a twin: check_tied returns the same
    for got, want in zip(autograd_tasks.check_tied(right, *case, "right"), right):
        assert torch.allclose(got, want)
    z = x @ W.T + b1
    dy = 2 * (torch.relu(z) @ W + b2 - x) / x.numel()
    decoder_only = torch.relu(z).T @ dy
    if not torch.allclose(decoder_only, right[0]):
        fails_with("mlp.tied-one-path", autograd_tasks.check_tied, (decoder_only, right[1], right[2]), *case, "w")
    if not torch.allclose(right[0] * d * n, right[0]):
        fails_with("mlp.mean-factor", autograd_tasks.check_tied, (right[0] * n * d, right[1], right[2]), *case, "w")
    if not torch.allclose(right[1] / n, right[1]):
        fails_with("mlp.bias-sum", autograd_tasks.check_tied, (right[0], right[1] / n, right[2]), *case, "w")
    if W.shape[0] != W.shape[1]:
        fails_with("mlp.weight-grad-transpose", autograd_tasks.check_tied, (right[0].T, right[1], right[2]), *case, "w")


def _accumulate(model, loss_fn, optimizer, X, y, micro_batch, *, weight="labels", zero=True):
    """accumulate_step written right (weight="labels") or with a known wrong weighting."""
    if zero:
        optimizer.zero_grad()
    labelled = (y != -100).sum()
    total = 0.0
    for i in range(0, len(X), micro_batch):
        xb, yb = X[i:i + micro_batch], y[i:i + micro_batch]
        n = (yb != -100).sum()
        if n == 0:
            continue
        share = {"labels": n / labelled, "unscaled": 1.0}[weight]
        loss = loss_fn(model(xb), yb) * share
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


def test_accumulation_right_passes_and_wrong_weightings_are_named():
    case = (8, 10, [1, 4, 5, 6, 7], 4)
    full, full_loss, means = training_tasks.large_batch(*case)
    seen = training_tasks.observe_accumulation(_accumulate, *case)
    used = training_tasks.check_steps(seen["gradients each step used"])
    training_tasks.check_accumulation(used, seen["returned"], full, means)
    for g, want in zip(used, full):   # the right weighting is autograd's large-batch gradient
        assert torch.allclose(g, want, atol=1e-6)
    assert math.isclose(seen["returned"], full_loss, rel_tol=1e-5)
    stale = training_tasks.observe_accumulation(lambda *a: _accumulate(*a, zero=False), *case)
    fails_with("accumulation.stale-grad", training_tasks.check_accumulation,
               stale["gradients each step used"][0], stale["returned"], full, means)
    unscaled = training_tasks.observe_accumulation(lambda *a: _accumulate(*a, weight="unscaled"), *case)
    fails_with("accumulation.unscaled", training_tasks.check_accumulation,
               unscaled["gradients each step used"][0], unscaled["returned"], full, means)
    fails_with("accumulation.step-per-micro-batch", training_tasks.check_steps, [[], []])


def _evaluate(model, loss_fn, X, y, batch_size, *, restore="each"):
    saved = [m.training for m in model.modules()]
    model.eval()
    total, right = 0.0, 0
    with torch.no_grad():
        for s in range(0, len(X), batch_size):
            out = model(X[s:s + batch_size])
            total += loss_fn(out, y[s:s + batch_size]).item() * len(out)
            right += (out.argmax(1) == y[s:s + batch_size]).sum().item()
    if restore == "each":
        for m, flag in zip(model.modules(), saved):
            m.train(flag)
    else:
        model.train(saved[0])
    return total / len(X), right / len(X)


def _evaluation(function):
    gen = torch.Generator().manual_seed(0)
    X, y = torch.randn(150, 64, generator=gen), torch.randint(0, 10, (150,), generator=gen)
    net = training_tasks.mode_net(X, 4)
    before = [m.training for m in net.modules()]
    calls = training_tasks.spy_forward(net)
    result = function(net, nn.CrossEntropyLoss(), X, y, 64)
    after, calls = [m.training for m in net.modules()], list(calls)
    return (result, calls, torch.is_grad_enabled(), before, after, training_tasks.batch_means(net, X, y, 64), len(X))


def test_evaluation_right_passes_and_a_top_only_restore_is_named():
    training_tasks.check_evaluation(*_evaluation(_evaluate))
    fails_with("eval.mode-restored-top-only", training_tasks.check_evaluation,
               *_evaluation(lambda *a: _evaluate(*a, restore="top")))
    result, *rest = _evaluation(_evaluate)
    fails_with("eval.percent", training_tasks.check_evaluation, (result[0], result[1] * 100), *rest)
    plain = rest[4]
    fails_with("eval.mean-of-batch-means", training_tasks.check_evaluation, plain, *rest)


def _guarded(model, loss, optimizer, step, max_norm, *, check_grads=True):
    if not torch.isfinite(loss):
        raise FloatingPointError(f"loss is {loss.item()} at step {step}")
    loss.backward()
    if check_grads and not all(torch.isfinite(p.grad).all() for p in model.parameters()):
        optimizer.zero_grad()
        return None
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return norm.item()


def test_guarded_step_right_passes_and_an_unchecked_gradient_is_named():
    for scale, step, kind in ((math.nan, 17, "NaN"), (math.inf, 3, "+inf")):
        seen = training_tasks.observe_refusal(_guarded, scale, step)
        training_tasks.check_refusal(seen, seen["start"], kind, step)
    fails_with("nan.step-not-named", training_tasks.check_refusal,
               training_tasks.observe_refusal(_guarded, math.nan, 17), {}, "NaN", 99)
    momentum = lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)  # noqa: E731
    for bad in ("nan", "inf"):
        seen = training_tasks.observe_skip(_guarded, momentum, bad)
        training_tasks.check_skip(seen, seen["weights before"], seen["state before"], "SGD", bad)
        blind = training_tasks.observe_skip(lambda *a: _guarded(*a, check_grads=False), momentum, bad)
        fails_with(f"nan.{'inf' if bad == 'inf' else 'grad'}-not-checked", training_tasks.check_skip,
                   blind, blind["weights before"], blind["state before"], "SGD", bad)


def test_clipped_names_an_unclipped_step_and_a_tensor_norm():
    torch.manual_seed(5)
    m = nn.Linear(3, 2)
    twin = copy.deepcopy(m)
    x = torch.randn(6, 3)
    (twin(x) * 50).pow(2).mean().backward()
    unclipped = twin.weight.detach() - 0.1 * twin.weight.grad
    norm = _guarded(m, (m(x) * 50).pow(2).mean(), torch.optim.SGD(m.parameters(), lr=0.1), 1, 1.0)
    training_tasks.check_clipped(norm, m.weight.detach(), unclipped)
    fails_with("clip.not-applied", training_tasks.check_clipped, norm, unclipped, unclipped)
    fails_with("clip.norm-tensor", training_tasks.check_clipped, torch.tensor(norm), m.weight.detach(), unclipped)


def _fit(model, train_one_epoch, validation_loss, max_epochs, patience, *, ties_improve=False):
    best, at, waited, kept = math.inf, 0, 0, None
    for epoch in range(1, max_epochs + 1):
        train_one_epoch()
        loss = validation_loss()
        if loss < best or (ties_improve and loss == best):
            best, at, waited, kept = loss, epoch, 0, copy.deepcopy(model.state_dict())
        else:
            waited += 1
            if waited == patience:
                break
    model.load_state_dict(kept)
    return at, epoch


def test_early_stopping_right_passes_and_a_tie_counted_as_a_best_is_named():
    training_tasks.check_tie_curve(training_tasks.observe_early_stopping(_fit, *training_tasks.TIE_CURVE))
    training_tasks.check_reset_curve(training_tasks.observe_early_stopping(_fit, *training_tasks.RESET_CURVE))
    ties = training_tasks.observe_early_stopping(lambda *a: _fit(*a, ties_improve=True), *training_tasks.TIE_CURVE)
    fails_with("early-stop.ties-improve", training_tasks.check_tie_curve, ties)
    fails_with("early-stop.rule", training_tasks.early_stop_run, {"returned": (1.0, 2), "weights of epoch": 1,
                                                                  "epochs trained": 2})


def test_decay_groups_and_warmup_are_read_as_torch_sees_them():
    model = nn.Sequential(nn.Linear(4, 4), nn.LayerNorm(4))
    roles = {"0.weight": "matrix", "0.bias": "bias", "1.weight": "norm", "1.bias": "bias"}

    def by_dim(m, decay):
        ps = list(m.parameters())
        return [{"params": [p for p in ps if p.ndim >= 2], "weight_decay": decay},
                {"params": [p for p in ps if p.ndim < 2], "weight_decay": 0.0}]

    training_tasks.check_groups(training_tasks.observe_groups(by_dim, model), "m", roles)
    fails_with("groups.param-missing", training_tasks.check_groups,
               training_tasks.observe_groups(lambda m, d: by_dim(m, d)[:1] + [{"params": [], "weight_decay": 0.0}],
                                             model), "m", roles)

    def warm(opt, steps):
        return torch.optim.lr_scheduler.LambdaLR(opt, lambda n: min(1.0, (n + 1) / steps))

    one = training_tasks.observe_rates(warm, (0.1,), 4, 6)
    assert [r[0] for r in one] == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1, 0.1])
    training_tasks.check_warmup_start(one, training_tasks.observe_rates(warm, (0.1, 0.01), 4, 6))
    at_zero = lambda o, s: torch.optim.lr_scheduler.LambdaLR(o, lambda n: n / s)  # noqa: E731
    zero = training_tasks.observe_rates(at_zero, (0.1,), 4, 6)
    fails_with("warmup.first-step-zero", training_tasks.check_warmup_start, zero, zero)
    fails_with("warmup.not-a-scheduler", training_tasks.check_rates, training_tasks.observe_rates(
        lambda o, s: None, (0.1,), 4, 6))
