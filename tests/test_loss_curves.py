"""Loss-curve model: the history is what an equivalent plain torch loop produces; a
non-finite loss stops the run at the step it happened; the explorer redraws mid-run."""

import math

import matplotlib
import pytest
import torch
from torch import nn

matplotlib.use("Agg")

from helpers import loss_curves as lc  # noqa: E402


def test_digits_are_sklearns_load_digits():
    from sklearn.datasets import load_digits
    images, labels = lc._digits_arrays()
    reference = load_digits()
    assert (images == reference.data).all() and (labels == reference.target).all()


def test_digits_split_and_scale():
    X, y, Xv, yv, Xt, yt = lc.digits()
    assert X.shape == (1197, 64) and Xv.shape == (300, 64) and Xt.shape == (300, 64)
    assert y.dtype == torch.int64 and 0.0 <= X.min() and X.max() <= 1.0
    assert set(y.tolist()) == set(range(10))


def test_fit_equals_a_plain_loop():
    data = lc.digits()
    X, y, Xv, yv = data[:4]
    model = lc.mlp((16,), seed=1)
    history = lc.fit(model, torch.optim.SGD(model.parameters(), lr=0.5), data, epochs=2,
                     batch_size=100, seed=3)
    ref = lc.mlp((16,), seed=1)
    opt = torch.optim.SGD(ref.parameters(), lr=0.5)
    gen = torch.Generator().manual_seed(3)
    losses, vals = [], []
    for _ in range(2):
        order = torch.randperm(len(X), generator=gen)
        for i in range(0, len(X), 100):
            idx = order[i:i + 100]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(ref(X[idx]), y[idx])
            loss.backward()
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            vals.append(nn.functional.cross_entropy(ref(Xv), yv).item())
    assert history.train_loss == losses
    assert history.val_loss == pytest.approx(vals, rel=1e-6)
    assert history.steps_per_epoch == math.ceil(len(X) / 100) and history.stopped is None
    assert all(type(v) is float for v in history.train_loss + history.val_loss)


def test_evaluate_restores_the_mode_and_records_no_graph():
    model = nn.Sequential(nn.Linear(64, 10), nn.Dropout(0.5))
    X, y = lc.digits()[2:4]
    first = lc.evaluate(model, X, y)
    assert model.training and first == lc.evaluate(model, X, y)  # dropout was off


def test_a_huge_learning_rate_stops_at_the_first_nan():
    history = lc.run("SGD", 10 ** 1.5, "64, 64, 64, 64", epochs=3)
    assert history.stopped and "at step" in history.stopped
    step = int(history.stopped.rsplit(" ", 1)[1])
    assert len(history.train_loss) == step - 1, "the NaN step is not logged or stepped"
    assert all(math.isfinite(v) for v in history.train_loss)


@pytest.mark.parametrize("kwargs, fragment", [
    ({"hidden": "a"}, "whole numbers"), ({"hidden": "0"}, "between 1"),
    ({"lr": 0.0}, "positive"), ({"lr": float("nan")}, "positive"),
    ({"optimizer": "RMSprop"}, "unknown optimizer"),
])
def test_impossible_settings_say_why(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        lc.run(**{"epochs": 1, **kwargs})


def test_every_optimizer_learns_at_a_sensible_rate():
    for name, lr in [("SGD", 1.0), ("SGD + momentum 0.9", 0.1), ("Adam", 0.01),
                     ("AdamW (weight decay 0.01)", 0.01)]:
        history = lc.run(name, lr, "32", epochs=3)
        assert history.val_loss[-1] < history.train_loss[0] * 0.5, name


def test_explorer_redraws_during_a_run():
    explorer = lc.explore(epochs=2, every=0.0)
    assert explorer.error is None and explorer.image.value
    seen = []
    explorer.image.observe(lambda change: seen.append(len(change["new"])), names="value")
    explorer.controls["epochs"].value = 3
    assert len(seen) > 3, "the figure should change while the model trains, not only at the end"
    explorer.controls["hidden"].value = "x"
    assert "whole numbers" in explorer.error


def test_live_curves_update_one_display_in_place(monkeypatch):
    import IPython.display

    shown, updates = [], []

    class Handle:
        def update(self, obj):
            updates.append(obj)

    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, display_id=None: shown.append(obj) or Handle())
    board = lc.LiveCurves("t", steps_per_epoch=2, every=0.0)
    for loss in (2.0, 1.5, 1.2, 1.0):
        board.log_train(loss)
    board.log_val(1.1, 0.5)
    history = board.close()
    assert len(shown) == 1, "one picture, redrawn in place"
    assert len(updates) == 6 and all(u.data[:4] == b"\x89PNG" for u in updates)
    assert history.train_loss == [2.0, 1.5, 1.2, 1.0] and history.val_acc == [0.5]
