"""Live loss curves: train and validation loss drawn while a model trains.

Three layers:

* model   ``History`` (plain lists of numbers: what an exercise grades), ``digits()`` (the
  8×8 digits bundled with scikit-learn, split and scaled), ``fit(...)`` (a training loop
  that stops at the first non-finite loss and says at which step) and ``run(...)`` (the
  instrument's whole experiment from its control values).
* draw    ``draw_curves(history, ax=None)``.
* live    ``LiveCurves``: a picture updated in place through a ``display_id`` while a loop
  written in the notebook trains; the last update stays in a headless run's output.
* explore ``explore(optimizer=..., lr=..., hidden=..., epochs=...)``: the Explorer redraws
  its figure during the run, so a slow run shows its curves growing.
"""

from __future__ import annotations

import io
import math
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from torch import nn

# ---------------------------------------------------------------------------- model


@dataclass
class History:
    """Everything a run logged, as plain Python numbers (steps count from 1)."""
    label: str = ""
    steps_per_epoch: int = 0
    train_loss: list[float] = field(default_factory=list)     # one per step
    val_loss: list[float] = field(default_factory=list)       # one per finished epoch
    val_acc: list[float] = field(default_factory=list)        # one per finished epoch
    stopped: str | None = None                                 # why the run ended early
    seconds: float = 0.0

    def log_train(self, loss: float) -> None:
        self.train_loss.append(float(loss))

    def log_val(self, loss: float, acc: float | None = None) -> None:
        self.val_loss.append(float(loss))
        if acc is not None:
            self.val_acc.append(float(acc))

    def as_dict(self) -> dict:
        return asdict(self)


@lru_cache(maxsize=1)
def _digits_arrays():
    """The same arrays as ``sklearn.datasets.load_digits()``, read from the CSV that
    scikit-learn ships, without importing ``sklearn.datasets`` (seconds of imports)."""
    import importlib.util
    from pathlib import Path

    import numpy as np
    package = Path(importlib.util.find_spec("sklearn").submodule_search_locations[0])
    table = np.loadtxt(package / "datasets" / "data" / "digits.csv.gz", delimiter=",")
    return table[:, :-1], table[:, -1].astype(int)


def digits(seed: int = 0, n_val: int = 300, n_test: int = 300):
    """The 1,797 bundled 8×8 digits as float32 pixels in [0, 1] and int64 labels.

    Returns ``(X_train, y_train, X_val, y_val, X_test, y_test)``, shuffled by ``seed``.
    """
    images, labels = _digits_arrays()
    X = torch.tensor(images, dtype=torch.float32) / 16.0
    y = torch.tensor(labels, dtype=torch.int64)
    order = torch.randperm(len(X), generator=torch.Generator().manual_seed(seed))
    X, y = X[order], y[order]
    n_train = len(X) - n_val - n_test
    return (X[:n_train], y[:n_train], X[n_train:n_train + n_val], y[n_train:n_train + n_val],
            X[n_train + n_val:], y[n_train + n_val:])


def mlp(hidden: tuple[int, ...] = (64,), d_in: int = 64, d_out: int = 10, seed: int = 0) -> nn.Sequential:
    """Linear-ReLU layers of the given widths ending in raw logits (no softmax)."""
    torch.manual_seed(seed)
    layers, width = [], d_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, d_out))
    return nn.Sequential(*layers)


OPTIMIZERS = {
    "SGD": lambda params, lr: torch.optim.SGD(params, lr=lr),
    "SGD + momentum 0.9": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9),
    "Adam": lambda params, lr: torch.optim.Adam(params, lr=lr),
    "AdamW (weight decay 0.01)": lambda params, lr: torch.optim.AdamW(params, lr=lr, weight_decay=0.01),
}


def evaluate(model: nn.Module, X: torch.Tensor, y: torch.Tensor,
             loss_fn=nn.functional.cross_entropy) -> tuple[float, float]:
    """Mean loss and accuracy in eval mode without a graph; the model's mode is restored."""
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(X)
        loss = loss_fn(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    model.train(was_training)
    return loss, acc


def fit(model: nn.Module, optimizer: torch.optim.Optimizer, data, epochs: int,
        batch_size: int = 64, seed: int = 0, callback=None, progress: bool = False,
        label: str = "", zero_grad: bool = True) -> History:
    """Mini-batch training with cross-entropy; validation after every epoch.

    ``data`` is ``(X_train, y_train, X_val, y_val)``. A non-finite training loss stops
    the run before its backward, and ``History.stopped`` names the step. ``callback``
    gets the history after every step (it decides itself how often to draw).
    ``zero_grad=False`` reproduces the forgotten ``optimizer.zero_grad()``.
    """
    X, y, X_val, y_val = data[:4]
    loss_fn = nn.CrossEntropyLoss()
    history = History(label=label, steps_per_epoch=math.ceil(len(X) / batch_size))
    generator = torch.Generator().manual_seed(seed)
    start = time.perf_counter()
    epochs_iter = range(epochs)
    if progress:
        from tqdm.auto import tqdm
        epochs_iter = tqdm(epochs_iter, desc=label or "epochs", leave=True)
    step = 0
    for _ in epochs_iter:
        model.train()
        order = torch.randperm(len(X), generator=generator)
        for i in range(0, len(X), batch_size):
            idx = order[i:i + batch_size]
            step += 1
            if zero_grad:
                optimizer.zero_grad()
            loss = loss_fn(model(X[idx]), y[idx])
            if not torch.isfinite(loss):
                history.stopped = f"the training loss became {loss.item()} at step {step}"
                break
            loss.backward()
            optimizer.step()
            history.log_train(loss.item())
            if callback is not None:
                callback(history)
        if history.stopped:
            break
        history.log_val(*evaluate(model, X_val, y_val))
        if callback is not None:
            callback(history)
    history.seconds = time.perf_counter() - start
    return history


def parse_hidden(text: str) -> tuple[int, ...]:
    """``"64, 32"`` -> ``(64, 32)``; an empty text means no hidden layer."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    try:
        sizes = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"hidden sizes must be whole numbers separated by commas "
                         f"(e.g. 64 or 64, 32), got {text!r}") from None
    if any(s < 1 or s > 1024 for s in sizes):
        raise ValueError(f"each hidden size must be between 1 and 1024, got {text!r}")
    return sizes


def run(optimizer: str = "SGD", lr: float = 0.1, hidden: str = "64", epochs: int = 10,
        batch_size: int = 128, seed: int = 0, callback=None) -> History:
    """The instrument's experiment: an MLP on the digits with the chosen optimizer."""
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}: choose one of {', '.join(OPTIMIZERS)}")
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
    if not 1 <= int(epochs) <= 100:
        raise ValueError(f"epochs must be between 1 and 100, got {epochs}")
    sizes = parse_hidden(hidden)
    data = digits(seed)
    threads = torch.get_num_threads()
    # These matrices are tiny: on a busy machine a second thread mostly waits for a core.
    torch.set_num_threads(1)
    try:
        model = mlp(sizes, seed=seed)
        opt = OPTIMIZERS[optimizer](model.parameters(), lr)
        return fit(model, opt, data, int(epochs), batch_size, seed, callback,
                   label=f"{optimizer}, lr {lr:.3g}, hidden {sizes or 'none'}")
    finally:
        torch.set_num_threads(threads)


# ---------------------------------------------------------------------------- draw


def draw_curves(history: History, ax=None, legend: bool = True):
    """Training loss per step and validation loss per epoch, against epochs (log scale)."""
    if ax is None:
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    per = max(history.steps_per_epoch, 1)
    if history.train_loss:
        xs = [(k + 1) / per for k in range(len(history.train_loss))]
        ax.plot(xs, history.train_loss, color="#1f77b4", lw=0.9, alpha=0.8, label="train (per step)")
    if history.val_loss:
        ax.plot(range(1, len(history.val_loss) + 1), history.val_loss, "o-", color="#d62728",
                ms=3, lw=1.5, label="validation (per epoch)")
    if history.train_loss or history.val_loss:
        ax.set_yscale("log")
        plain = FuncFormatter(lambda value, _: f"{value:g}")  # 0.2, not 2×10⁻¹
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(plain)
    ax.set_xlabel("epoch")
    ax.set_ylabel("cross-entropy loss")
    ax.grid(alpha=0.3, which="both")
    title = history.label
    if history.val_acc:
        title += f"   (validation accuracy {history.val_acc[-1]:.1%})"
    ax.set_title(title, fontsize=9)
    if history.stopped:
        ax.axvline((len(history.train_loss) + 1) / per, color="#b00020", ls="--", lw=1)
        ax.text(0.02, 0.04, "stopped: " + history.stopped, transform=ax.transAxes,
                color="#b00020", fontsize=9, fontweight="bold",
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"))
    if legend and (history.train_loss or history.val_loss):
        ax.legend(fontsize=9, loc="upper right")
    fig = ax.figure
    fig.subplots_adjust(left=0.12, right=0.97, bottom=0.14, top=0.9)
    return fig


def draw_comparison(histories: list[History], figsize=(10, 3.2)):
    """One panel per history, sharing the loss axis, for side-by-side curves."""
    fig = Figure(figsize=figsize)
    axes = fig.subplots(1, len(histories), sharey=True)
    for k, (ax, history) in enumerate(zip(getattr(axes, "flat", [axes]), histories)):
        draw_curves(history, ax, legend=k == 0)
        if k:
            ax.set_ylabel("")
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.16, top=0.88, wspace=0.06)
    return fig


def show(figure):
    """A figure as an image for a notebook cell (no pyplot, so nothing is shown twice):
    a PNG at twice its CSS size, displayed at 96 CSS px per inch, sharp on a 2x screen."""
    from IPython.display import Image
    return Image(png(figure), width=round(figure.get_figwidth() * CSS_DPI))


CSS_DPI = 96


def png(figure, dpi: int = 2 * CSS_DPI) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


# ---------------------------------------------------------------------------- live


class LiveCurves:
    """A figure shown once and redrawn in place (``display_id``) while a loop trains.

    ``board.log_train(loss)`` after each step, ``board.log_val(loss, acc)`` after each
    epoch, ``board.close()`` at the end (draws the final picture). Redraws are spaced
    at least ``every`` seconds apart so drawing never dominates training.
    """

    def __init__(self, label: str = "", steps_per_epoch: int = 1, every: float = 0.3):
        from IPython.display import display
        self.history = History(label=label, steps_per_epoch=steps_per_epoch)
        self.every = every
        self.figure = Figure(figsize=(7.5, 3.4))
        self._last = 0.0
        self.handle = display(self._picture(), display_id=True)

    def _picture(self):
        self.figure.clear()
        draw_curves(self.history, self.figure.add_subplot())
        return show(self.figure)

    def draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if force or now - self._last >= self.every:
            self.handle.update(self._picture())
            self._last = time.perf_counter()

    def log_train(self, loss: float) -> None:
        self.history.log_train(loss)
        self.draw()

    def log_val(self, loss: float, acc: float | None = None) -> None:
        self.history.log_val(loss, acc)
        self.draw()

    def stop(self, reason: str) -> None:
        self.history.stopped = reason
        self.draw(force=True)

    def close(self) -> History:
        self.draw(force=True)
        return self.history


# ---------------------------------------------------------------------------- explore


def explore(optimizer: str = "SGD", lr: float = 0.1, hidden: str = "64", epochs: int = 10,
            every: float = 0.15):
    """Optimizer, learning rate, hidden sizes and epochs -> curves drawn while training."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    controls = {
        "optimizer": widgets.Dropdown(options=list(OPTIMIZERS), value=optimizer,
                                      description="optimizer"),
        "lr": widgets.FloatLogSlider(value=lr, base=10, min=-4, max=1.5, step=0.25,
                                     description="lr", readout_format=".3g",
                                     continuous_update=False),
        "hidden": widgets.Text(value=hidden, description="hidden", continuous_update=False),
        "epochs": widgets.IntSlider(value=epochs, min=1, max=30, description="epochs",
                                    continuous_update=False),
    }
    state = {"explorer": None, "last": 0.0}

    def partial(history):
        # Redraw mid-run only once the widget exists (not while it is being built) and
        # at most every `every` seconds; the Explorer draws the finished run itself.
        explorer = state["explorer"]
        now = time.perf_counter()
        if explorer is None or now - state["last"] < every:
            return
        explorer.paint(draw_curves, history)
        explorer.show()
        explorer.prepare_spare()
        state["last"] = time.perf_counter()

    def model(optimizer, lr, hidden, epochs):
        state["last"] = time.perf_counter()
        return run(optimizer, lr, hidden, epochs, callback=partial)

    explorer = Explorer(controls, model, draw_curves,
                        title="Live loss curves: an MLP on the 8×8 digits", figsize=(7.5, 3.6))
    state["explorer"] = explorer
    return explorer
