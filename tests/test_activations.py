"""Activation statistics read by forward hooks against the same activations computed
by hand (no hooks), and no hook left behind."""

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
        assert s.mean == pytest.approx(out.mean().item(), rel=1e-9, abs=1e-12)
        assert s.std == pytest.approx(out.std().item(), rel=1e-9, abs=1e-12)
        assert s.dead_units == int((out == 0).all(dim=0).sum())
        assert s.saturated == pytest.approx((out.abs() > activations.SATURATED).double().mean().item())
        assert sum(s.counts) == out.numel()  # every value falls in the shared range
        assert s.units == 16


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


def test_impossible_settings_are_explained_in_the_widget():
    for bad in ({"init_scale": 0.0}, {"depth": 0}, {"activation": "sigmoid"}):
        with pytest.raises(ValueError):
            activations.run(**{"depth": 3, "activation": "ReLU", "init_scale": 1.0, **bad})
    explorer = activations.explore()
    explorer.controls["init_scale"].value = 0.0
    assert explorer.error and "positive" in explorer.error
    explorer.controls["init_scale"].value = 1.5
    assert explorer.error is None and explorer.image.value
