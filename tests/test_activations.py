"""Activation statistics read by forward hooks against the same activations computed
by hand (no hooks), gradients against torch.autograd on the same layers run one by one, the
default initialisation against nn.Linear's own, and no hook left behind."""

import math

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import activations

matplotlib.use("Agg")


def by_hand(model, x):
    """Each activation module's output, by running the Sequential's layers one by one."""
    outs = []
    with torch.no_grad():
        for name, layer in model.named_children():
            x = layer(x)
            if isinstance(layer, tuple(activations.ACTIVATIONS.values())):
                outs.append((name, x))
    return outs


def no_hooks(model):
    return all(not m._forward_hooks and not m._forward_pre_hooks for m in model.modules())


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.sampled_from(list(activations.ACTIVATIONS)),
       st.floats(0.1, 4.0), st.integers(0, 1000))
def test_hook_statistics_equal_activations_computed_without_hooks(depth, act, scale, seed):
    model = activations.deep_mlp(depth, act, scale, width=16, seed=seed)
    x = torch.randn(32, 16, generator=torch.Generator().manual_seed(seed))
    stats = activations.collect(model, x)
    assert no_hooks(model)
    expected = by_hand(model, x)
    assert [s.name for s in stats] == [n for n, _ in expected]
    for s, (_, out) in zip(stats, expected):
        out = out.double()
        # collect computes in the outputs' own float32, the reference in float64
        assert s.mean == pytest.approx(out.mean().item(), rel=1e-6, abs=1e-7)
        assert s.std == pytest.approx(out.std().item(), rel=1e-6, abs=1e-7)
        assert s.dead_units == int((out == 0).all(dim=0).sum())
        assert s.saturated == pytest.approx((out.abs() > activations.SATURATED).double().mean().item())
        assert sum(s.counts) == out.numel()  # every value falls in the shared range
        lo, hi = s.edges[0], s.edges[-1]
        reference = torch.histc(out.clamp(lo, hi), bins=activations.BINS, min=lo, max=hi)
        # the bins are computed in float32: only a value within float32's rounding of a bin's
        # edge (not on it: 0 is the middle edge of a symmetric range) may land in the bin
        # beside the one float64 gives it
        position = (out.clamp(lo, hi) - lo) * activations.BINS / (hi - lo)
        near = (position - position.round()).abs()
        near_edges = int(((near > 0) & (near < 1e-5)).sum())
        assert sum(abs(a - b) for a, b in zip(s.counts, reference.tolist())) <= 2 * near_edges
        assert s.units == 16


def by_hand_gradients(model, x, upstream):
    """RMS of ∂L/∂a for each activation output and of ∂L/∂W for the Linear before it,
    from torch.autograd.grad on the layers run one by one (no hooks)."""
    outs, weights, last_linear = [], [], None
    for layer in model:
        x = layer(x)
        if isinstance(layer, torch.nn.Linear):
            last_linear = layer
        if isinstance(layer, tuple(activations.ACTIVATIONS.values())):
            outs.append(x)
            weights.append(last_linear.weight)
    grads = torch.autograd.grad(x, outs + weights, upstream)
    rms = [g.double().pow(2).mean().sqrt().item() for g in grads]
    return rms[:len(outs)], rms[len(outs):]


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.sampled_from(list(activations.ACTIVATIONS)),
       st.floats(0.2, 3.0), st.sampled_from(["normal", "default"]), st.integers(0, 1000))
def test_gradients_equal_autograd_on_the_layers_run_one_by_one(depth, act, scale, init, seed):
    model = activations.deep_mlp(depth, act, scale, width=12, seed=seed, init=init)
    x = torch.randn(16, 12, generator=torch.Generator().manual_seed(seed))
    upstream = activations.upstream_gradient((16, 12), seed)
    stats = activations.collect(model, x, upstream=upstream)
    assert no_hooks(model)
    assert all(p.grad is None for p in model.parameters()), "collect must leave .grad alone"
    out_rms, weight_rms = by_hand_gradients(model, x, upstream)
    assert [s.fed_by for s in stats] == [str(2 * k) for k in range(depth)]
    for s, a, w in zip(stats, out_rms, weight_rms):
        assert s.grad_rms == pytest.approx(a, rel=1e-6, abs=1e-15)
        assert s.weight_grad_rms == pytest.approx(w, rel=1e-6, abs=1e-15)


def test_without_upstream_there_are_no_gradients_and_no_graph():
    model = activations.deep_mlp(2, "tanh", 1.0, width=8)
    stats = activations.collect(model, torch.randn(4, 8))
    assert all(math.isnan(s.grad_rms) and math.isnan(s.weight_grad_rms) for s in stats)


def test_default_init_is_nn_linears_own_and_leaves_the_global_generator_alone():
    state = torch.random.get_rng_state()
    model = activations.deep_mlp(3, "ReLU", 1.0, width=10, seed=7, init="default")
    assert torch.equal(torch.random.get_rng_state(), state)
    torch.manual_seed(7)
    reference = [torch.nn.Linear(10, 10) for _ in range(3)]
    for ours, theirs in zip([m for m in model if isinstance(m, torch.nn.Linear)], reference):
        assert torch.equal(ours.weight, theirs.weight) and torch.equal(ours.bias, theirs.bias)
    scaled = activations.deep_mlp(3, "ReLU", 2.5, width=10, seed=7, init="default")
    assert torch.allclose(scaled[0].weight, 2.5 * reference[0].weight)
    assert torch.equal(scaled[0].bias, reference[0].bias)
    # the bound 1/sqrt(fan_in), so the std 1/sqrt(3 fan_in) the title states
    wide = activations.deep_mlp(1, "ReLU", 1.0, width=400, init="default")[0].weight
    assert wide.abs().max() <= 400 ** -0.5
    assert wide.std().item() == pytest.approx((3 * 400) ** -0.5, rel=0.02)
    assert "std 0.577/√fan_in" in activations.init_label("default", 1.0)


def test_decades_always_span_two_or_more():
    assert activations.decades([3e-4, 2e-3]) == (-4, -2)
    assert activations.decades([0.5, 0.6]) == (-2, 0)
    assert activations.decades([float("nan")]) == (-2, 0)


def test_hooks_removed_when_the_forward_pass_fails():
    model = activations.deep_mlp(3, "ReLU", 1.0, width=8)
    with pytest.raises(RuntimeError):
        activations.collect(model, torch.zeros(2, 5))  # wrong width
    assert no_hooks(model)


def test_known_regimes():
    relu = activations.run(depth=8, activation="ReLU", init_scale=1.0)
    assert relu.layers[-1].std < relu.layers[0].std / 4   # halves the variance per layer
    kaiming = activations.run(depth=8, activation="ReLU", init_scale=2 ** 0.5)
    assert 0.4 < kaiming.layers[-1].std / kaiming.layers[0].std < 2.5
    tanh = activations.run(depth=6, activation="tanh", init_scale=3.0)
    assert tanh.layers[-1].saturated > 0.2
    small = activations.run(depth=6, activation="tanh", init_scale=0.5)
    assert small.layers[-1].saturated == 0
    # backward: ReLU at scale 1 shrinks the gradient on its way down as it shrinks the
    # activations on their way up; the weight gradient, input times output gradient, stays
    assert relu.layers[0].grad_rms < relu.layers[-1].grad_rms / 4
    assert 0.5 < relu.layers[0].weight_grad_rms / relu.layers[-1].weight_grad_rms < 2
    assert 0.5 < kaiming.layers[0].grad_rms / kaiming.layers[-1].grad_rms < 2
    default = activations.run(depth=8, activation="ReLU", init=activations.DEFAULT)
    # std 1/sqrt(3 fan_in): a third of the variance of scale 1 in each layer
    assert default.init == "default" and default.layers[1].std < relu.layers[1].std / 2


def test_impossible_settings_are_explained_in_the_widget():
    for bad in ({"init_scale": 0.0}, {"depth": 0}, {"activation": "sigmoid"}, {"init": "xavier"}):
        with pytest.raises(ValueError):
            activations.run(**{"depth": 3, "activation": "ReLU", "init_scale": 1.0, **bad})
    explorer = activations.explore()
    explorer.controls["init_scale"].value = 0.0
    assert explorer.error and "positive" in explorer.error
    explorer.controls["init_scale"].value = 1.5
    assert explorer.error is None and explorer.image.value
