"""The module inspector against torch's own registries (named_modules, named_parameters,
named_buffers, numel), on fixed models and on random nested containers (hypothesis)."""

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from helpers import modules

matplotlib.use("Agg")


def leaf(draw_kind, width):
    if draw_kind == 0:
        return nn.Linear(width, width)
    if draw_kind == 1:
        return nn.BatchNorm1d(width)
    if draw_kind == 2:
        return nn.ReLU()
    return nn.LayerNorm(width)


@st.composite
def stacks(draw, depth=0):
    """A random nest of Sequential / ModuleList / ModuleDict around small layers."""
    width = 3
    if depth >= 3 or draw(st.booleans()) and depth > 0:
        return leaf(draw(st.integers(0, 3)), width)
    children = [draw(stacks(depth=depth + 1)) for _ in range(draw(st.integers(1, 3)))]
    container = draw(st.sampled_from(["seq", "list", "dict"]))
    if container == "seq":
        return nn.Sequential(*children)
    if container == "list":
        return nn.ModuleList(children)
    return nn.ModuleDict({f"k{i}": c for i, c in enumerate(children)})


def agree(model):
    inv = modules.inspect(model)
    assert [n.name for n in inv.nodes] == [n for n, _ in model.named_modules()]
    assert [n.type_name for n in inv.nodes] == [type(m).__name__ for _, m in model.named_modules()]
    assert [n.training for n in inv.nodes] == [m.training for _, m in model.named_modules()]
    params = dict(model.named_parameters())
    assert [(e.name, e.shape, e.numel, e.trainable) for e in inv.parameters] == [
        (n, tuple(p.shape), p.numel(), p.requires_grad) for n, p in params.items()]
    assert [(e.name, e.shape) for e in inv.buffer_entries] == [
        (n, tuple(b.shape)) for n, b in model.named_buffers()]
    assert inv.total == sum(p.numel() for p in model.parameters())
    assert inv.trainable == sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert inv.buffers == sum(b.numel() for b in model.buffers())
    by_name = dict(model.named_modules())
    for node in inv.nodes:  # subtree totals
        sub = by_name[node.name]
        assert node.total == sum(p.numel() for p in sub.parameters()), node.name
        assert node.buffers == sum(b.numel() for b in sub.buffers()), node.name
    return inv


@settings(max_examples=60, deadline=None)
@given(stacks(), st.integers(0, 2**31 - 1))
def test_random_stacks_agree_with_torch(model, seed):
    # freeze a random subset of parameters and put random submodules in eval(): trainable
    # counts and each node's mode must follow
    gen = torch.Generator().manual_seed(seed)
    for p in model.parameters():
        if torch.rand((), generator=gen) < 0.3:
            p.requires_grad_(False)
    for m in model.modules():
        m.training = bool(torch.rand((), generator=gen) < 0.5)
    inv = agree(model)
    assert inv.unregistered == 0


def test_shared_module_and_parameter_counted_once():
    shared = nn.Linear(4, 4)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    tied = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
    tied[1].weight = tied[0].weight
    for m in (model, tied):
        agree(m)


class Hidden(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(4, 8), nn.Linear(8, 2)]
        self.table = {"a": nn.Linear(2, 2)}
        self.scale = torch.ones(3)
        self.head = nn.Linear(2, 1)
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(self.table["a"](x))


def test_unregistered_tensors_and_list_layers_are_shown_apart():
    model = Hidden()
    inv = agree(model)
    hidden = {e.name: e for e in inv.unregistered_entries}
    assert set(hidden) == {"layers", "table", "scale"}
    assert hidden["layers"].numel == 4 * 8 + 8 + 8 * 2 + 2
    assert hidden["table"].numel == 6
    assert hidden["scale"].numel == 3 and hidden["scale"].what == "plain tensor"
    assert inv.unregistered == 58 + 6 + 3
    # none of them is a parameter or in the state_dict
    assert not any(k.startswith(("layers", "table", "scale")) for k in model.state_dict())


def test_probe_train_eval_and_freeze_leave_the_model_alone():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    train = modules.probe(model, "train")
    assert train.outputs[0] != train.outputs[1]  # new dropout masks
    evaluated = modules.probe(model, "eval")
    assert evaluated.outputs[0] == evaluated.outputs[1]
    x = modules.example_input(model)
    model.eval()
    with torch.no_grad():
        assert torch.allclose(torch.tensor(evaluated.outputs[0]), model(x)[0])
    model.train()
    frozen = modules.probe(model, "eval", "0")
    assert frozen.trainable == train.total - (6 * 8 + 8) and frozen.frozen == 6 * 8 + 8
    # the notebook's model keeps its mode, flags and running statistics
    assert model.training and all(p.requires_grad for p in model.parameters())
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())


def test_as_set_keeps_each_submodules_mode_and_says_when_the_passes_agree():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
    model(torch.randn(16, 6))
    model.train()
    model[1].eval()  # fine-tuning: batch norm's statistics frozen, dropout still on
    flags = [m.training for m in model.modules()]
    kept = modules.probe(model, "as set")
    assert [n.training for n in kept.nodes] == flags
    assert kept.outputs[0] != kept.outputs[1] and "modes as set" in kept.note
    evaluated = modules.probe(model, "eval")
    assert not any(n.training for n in evaluated.nodes)
    assert "identical outputs" in evaluated.note and "up to" not in evaluated.note
    assert [m.training for m in model.modules()] == flags
    modes_drawn = [text for _, text, _, key in modules._rows(kept) if key == "module"]
    assert modes_drawn[:3] == ["(model): Sequential · train", "0: Linear · train", "1: BatchNorm1d · eval"]


def test_probe_says_why_instead_of_raising():
    with pytest.raises(ValueError, match="no submodule"):
        modules.probe(nn.Linear(2, 2), "train", "missing")
    with pytest.raises(ValueError, match="train"):
        modules.probe(nn.Linear(2, 2), "test")
    listed = modules.probe(nn.ModuleList([nn.Linear(2, 2)]), "train")
    assert "no forward" in listed.note
    assert "no forward" not in modules.probe(Hidden(), "train", x=torch.zeros(1, 4)).note
    broken = modules.probe(Hidden(), "train", x=torch.zeros(1, 5))
    assert "forward failed" in broken.note and "not registered" in broken.note


def test_explorer_renders_and_reports_impossible_settings():
    torch.manual_seed(0)
    explorer = modules.explore({"a": nn.Sequential(nn.Linear(3, 2), nn.Dropout(0.5)),
                                "b": (Hidden(), torch.zeros(2, 4))})
    assert explorer.error is None and explorer.image.value
    explorer.controls["model"].value = "b"
    assert explorer.error is None and "67 elements are not registered" in explorer.message.value
    assert explorer.controls["freeze"].options[1:] == ("head",)
    explorer.model(model="a", mode="eval", freeze="(nothing)")
    with pytest.raises(ValueError):
        explorer.model(model="a", mode="eval", freeze="head")
    explorer.controls["model"].value = "a"
    assert explorer.error is None
    fig = modules.draw_inspector(modules.probe(Hidden(), "eval", x=torch.zeros(1, 4)))
    assert fig.axes


def test_conv_and_embedding_models_are_inspected_and_run():
    # the registration tree of a conv net (4-D weights, BatchNorm2d buffers) agrees with torch,
    # and the inspector finds an input for each kind of first layer
    from helpers.loss_curves import conv_net
    torch.manual_seed(0)
    digits_cnn = conv_net()
    inv = agree(digits_cnn)
    assert ("1.weight", (16, 1, 3, 3), 144) in [(e.name, e.shape, e.numel) for e in inv.parameters]
    assert {e.name for e in inv.buffer_entries} == {"2.running_mean", "2.running_var",
                                                     "2.num_batches_tracked"}
    cases = {
        "conv": (nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU()), (4, 3, 8, 8)),
        "bn2d": (nn.Sequential(nn.BatchNorm2d(5), nn.Conv2d(5, 2, 1)), (4, 5, 8, 8)),
        "conv1d": (nn.Conv1d(2, 3, 5), (4, 2, 16)),
        "embedding": (nn.Sequential(nn.Embedding(7, 3), nn.Flatten(), nn.Linear(18, 2)), (4, 6)),
        "unflatten": (digits_cnn, (4, 64)),
    }
    for label, (model, shape) in cases.items():
        x = modules.example_input(model)
        assert tuple(x.shape) == shape, label
        if label == "embedding":
            assert x.dtype == torch.int64 and 0 <= x.min() and x.max() < 7
        probed = modules.probe(model, "eval")
        assert probed.outputs and "forward failed" not in probed.note, (label, probed.note)
        expected = model.eval()(x)[0].flatten()[:8]
        assert torch.allclose(torch.tensor(probed.outputs[0]), expected, atol=1e-6), label
    assert modules.example_input(nn.Sequential(nn.ReLU(), nn.Tanh())) is None
    assert "input's shape" in modules.probe(nn.Sequential(nn.ReLU()), "eval").note
