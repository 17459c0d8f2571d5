"""helpers.modes against torch's own flags: every submodule's ``training`` as
``named_modules`` lists it, on random nests of containers (hypothesis), and the check that
tells a helper restoring every submodule's mode from the ways of restoring one flag."""

import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from helpers import modes
from test_modules import stacks


def flags(model):
    return [m.training for _, m in model.named_modules()]


@settings(max_examples=60, deadline=None)
@given(stacks(), st.lists(st.booleans(), min_size=1, max_size=40), st.booleans())
def test_restore_gives_every_submodule_its_own_flag(model, pattern, overall):
    wanted = [pattern[k % len(pattern)] for k in range(len(flags(model)))]
    for (_, m), flag in zip(model.named_modules(), wanted):
        m.training = flag
    saved = modes.modes(model)
    assert list(saved.values()) == wanted == flags(model)
    model.train(overall)
    assert set(flags(model)) == {overall}
    modes.restore(model, saved)
    assert flags(model) == wanted
    assert modes.changed(model, saved) == []


def test_evaluating_restores_also_when_the_block_raises():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2), nn.Dropout(0.5))
    model[1].eval()
    before = flags(model)
    with modes.evaluating(model):
        assert not any(flags(model))
    assert flags(model) == before
    with pytest.raises(ZeroDivisionError), modes.evaluating(model):
        raise ZeroDivisionError
    assert flags(model) == before


def test_restore_calls_an_overridden_train():
    class Counting(nn.Module):
        calls = 0

        def train(self, mode=True):
            Counting.calls += 1
            return super().train(mode)

    model = nn.Sequential(Counting(), nn.Linear(1, 1))
    saved = modes.modes(model)
    model.eval()
    modes.restore(model, saved)
    assert Counting.calls >= 2 and all(flags(model))


def predict_right(model, x):
    with modes.evaluating(model), torch.no_grad():
        return model(x)


def predict_top_flag_only(model, x):
    was = model.training
    model.eval()
    out = model(x)
    model.training = was
    return out


def predict_one_flag_for_all(model, x):
    was = model.training
    model.eval()
    out = model(x)
    model.train(was)
    return out


def predict_always_train(model, x):
    model.eval()
    out = model(x)
    model.train()
    return out


def predict_never_restores(model, x):
    model.eval()
    return model(x)


@pytest.mark.parametrize("wrong, start", [
    (predict_top_flag_only, "all in train()"),
    (predict_one_flag_for_all, "mixed modes"),
    (predict_always_train, "all in eval()"),
    (predict_never_restores, "all in train()"),
])
def test_mode_changes_names_each_wrong_restore(wrong, start):
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Dropout(0.5), nn.Linear(4, 1))
    model[1].eval()
    before = flags(model)
    x = torch.randn(5, 3)
    problems = modes.mode_changes(wrong, model, x)
    assert any(p.startswith(f"from {start}:") for p in problems), problems
    assert flags(model) == before  # the check itself leaves the model as it was
    assert modes.mode_changes(predict_right, model, x) == []


def test_the_mixtures_meet_each_submodule_in_both_modes():
    model = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.Dropout(), nn.Linear(1, 1)))
    starts = dict(modes.starting_points(model))
    assert len(starts) == 4
    for name in modes.modes(model):
        assert {start[name] for start in starts.values()} == {True, False}
    assert all(starts["mixed modes"][n] != starts["the opposite mixture"][n] for n in starts["mixed modes"])


def predict_by_hand(model, x):
    saved = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for m, flag in saved:
            m.training = flag


def predict_with_restore(model, x):
    saved = modes.modes(model)
    model.eval()
    out = model(x)
    modes.restore(model, saved)
    return out


def test_calls_recorded_tells_a_delegating_helper_from_one_written_by_hand():
    from helpers.modes import evaluating as imported_alias
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5))
    x = torch.randn(2, 3)

    def predict_with_alias(model, x):
        with imported_alias(model):
            return model(x)

    previous = sys.getprofile()
    for helper, names in ((predict_right, ["evaluating", "modes", "restore"]),
                          (predict_with_restore, ["modes", "restore"]),
                          (predict_with_alias, ["evaluating", "modes", "restore"]),
                          (predict_by_hand, []), (predict_one_flag_for_all, [])):
        with modes.calls_recorded() as used:
            helper(model, x)
        assert used == names, helper.__name__
        assert sys.getprofile() is previous
    # a profile function already set keeps receiving every event inside the block
    events = []
    sys.setprofile(lambda frame, event, arg: events.append(event))
    try:
        with modes.calls_recorded() as used:
            modes.modes(model)
    finally:
        sys.setprofile(previous)
    assert used == ["modes"] and "call" in events
