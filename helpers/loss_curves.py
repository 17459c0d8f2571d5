"""Live loss curves: train and validation loss, and the learning rate, drawn while a model trains.

Three layers:

* model   ``History`` (plain lists of numbers: what an exercise grades), ``digits()`` (the
  8×8 digits bundled with scikit-learn, split and scaled), ``make_scheduler(...)`` (the
  learning-rate schedules the instrument offers, from ``torch.optim.lr_scheduler``),
  ``fit(...)`` (a training loop that stops at the first non-finite loss and says at which
  step) and ``run(...)`` (the instrument's whole experiment from its control values; a
  setting already run is answered from a small cache, since the same setting trains the
  same numbers).
* draw    ``draw_curves(history, ax=None)``: the loss on a log scale with labels spaced so
  that they never overlap (``log_ticks``), and the learning rate of every step beneath it.
* live    ``LiveCurves``: a picture updated in place through a ``display_id`` while a loop
  written in the notebook trains; the last update stays in a headless run's output.
* explore ``explore(optimizer=..., lr=..., schedule=..., hidden=..., epochs=...)``: a run
  long enough to be watched is redrawn while it trains.
"""

from __future__ import annotations

import copy
import io
import math
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from functools import lru_cache

import torch
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter
from torch import nn

import helpers.modes

# ---------------------------------------------------------------------------- model


@dataclass
class History:
    """Everything a run logged, as plain Python numbers (steps count from 1)."""
    label: str = ""
    steps_per_epoch: int = 0
    train_loss: list[float] = field(default_factory=list)     # one per step
    lr: list[float] = field(default_factory=list)             # the rate each step used
    val_loss: list[float] = field(default_factory=list)       # one per finished epoch
    val_acc: list[float] = field(default_factory=list)        # one per finished epoch
    stopped: str | None = None                                 # why the run ended early
    seconds: float = 0.0

    def log_train(self, loss: float, lr: float | None = None) -> None:
        self.train_loss.append(float(loss))
        if lr is not None:
            self.lr.append(float(lr))

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


@lru_cache(maxsize=4)
def _digits_split(seed: int, n_val: int, n_test: int):
    images, labels = _digits_arrays()
    X = torch.tensor(images, dtype=torch.float32) / 16.0
    y = torch.tensor(labels, dtype=torch.int64)
    order = torch.randperm(len(X), generator=torch.Generator().manual_seed(seed))
    X, y = X[order], y[order]
    n_train = len(X) - n_val - n_test
    return (X[:n_train], y[:n_train], X[n_train:n_train + n_val], y[n_train:n_train + n_val],
            X[n_train + n_val:], y[n_train + n_val:])


def digits(seed: int = 0, n_val: int = 300, n_test: int = 300):
    """The 1,797 bundled 8×8 digits as float32 pixels in [0, 1] and int64 labels.

    Returns ``(X_train, y_train, X_val, y_val, X_test, y_test)``, shuffled by ``seed``: fresh
    tensors on every call (a caller may change its copy in place).
    """
    return tuple(t.clone() for t in _digits_split(seed, n_val, n_test))


def mlp(hidden: tuple[int, ...] = (64,), d_in: int = 64, d_out: int = 10, seed: int = 0) -> nn.Sequential:
    """Linear-ReLU layers of the given widths ending in raw logits (no softmax)."""
    torch.manual_seed(seed)
    layers, width = [], d_in
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, d_out))
    return nn.Sequential(*layers)


def conv_net(channels: tuple[int, int] = (16, 32), side: int = 8, d_out: int = 10,
             seed: int = 0) -> nn.Sequential:
    """A small convolutional net for rows of side² pixels (the digits' 64), which it views
    as 1×side×side images: two 3×3 convolutions (the first batch-normalised), each followed
    by a ReLU and a 2×2 max-pool, then one Linear to raw logits."""
    if side % 4:
        raise ValueError(f"two 2×2 poolings need a side divisible by 4, got {side}")
    torch.manual_seed(seed)
    first, second = channels
    return nn.Sequential(
        nn.Unflatten(1, (1, side, side)),
        nn.Conv2d(1, first, 3, padding=1), nn.BatchNorm2d(first), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(first, second, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(second * (side // 4) ** 2, d_out))


OPTIMIZERS = {
    "SGD": lambda params, lr: torch.optim.SGD(params, lr=lr),
    "SGD + momentum 0.9": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9),
    "Adam": lambda params, lr: torch.optim.Adam(params, lr=lr),
    "AdamW (weight decay 0.01)": lambda params, lr: torch.optim.AdamW(params, lr=lr, weight_decay=0.01),
}

# value -> what the dropdown says
SCHEDULES = {
    "constant": "constant",
    "step": "step: ×0.1 at 50 % and 75 %",
    "one-cycle": "one-cycle: 30 % warm-up",
}
WARMUP_SHARE, ONE_CYCLE_START = 0.3, 25.0  # OneCycleLR's pct_start and div_factor


def make_scheduler(schedule: str, optimizer: torch.optim.Optimizer, total_steps: int):
    """The scheduler for ``schedule`` (None for a constant rate), stepped once per batch.

    The optimizer's lr is the peak: "step" divides it by 10 after half the steps and again
    after three quarters; "one-cycle" warms up from lr/25 to lr over the first 30 % of the
    steps, then anneals (cosine) to lr/25/10⁴. ``cycle_momentum=False`` keeps the
    optimizer's momentum as chosen (by default OneCycleLR would also cycle it, which
    would turn plain SGD into SGD with momentum).
    """
    sched = torch.optim.lr_scheduler
    if schedule == "constant":
        return None
    if schedule == "step":
        return sched.MultiStepLR(optimizer, milestones=[total_steps // 2, total_steps * 3 // 4],
                                 gamma=0.1)
    if schedule == "one-cycle":
        return sched.OneCycleLR(optimizer, max_lr=[g["lr"] for g in optimizer.param_groups],
                                total_steps=total_steps, pct_start=WARMUP_SHARE,
                                div_factor=ONE_CYCLE_START, cycle_momentum=False)
    raise ValueError(f"unknown schedule {schedule!r}: choose one of {', '.join(SCHEDULES)}")


def evaluate(model: nn.Module, X: torch.Tensor, y: torch.Tensor,
             loss_fn=nn.functional.cross_entropy) -> tuple[float, float]:
    """Mean loss and accuracy in eval mode without a graph; every submodule's mode is
    restored as it was (a model may hold a frozen part in eval mode while it trains)."""
    with helpers.modes.evaluating(model), torch.no_grad():
        logits = model(X)
        loss = loss_fn(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
    return loss, acc


def fit(model: nn.Module, optimizer: torch.optim.Optimizer, data, epochs: int,
        batch_size: int = 64, seed: int = 0, callback=None, progress: bool = False,
        label: str = "", zero_grad: bool = True, scheduler=None) -> History:
    """Mini-batch training with cross-entropy; validation after every epoch.

    ``data`` is ``(X_train, y_train, X_val, y_val)``. A non-finite training loss stops
    the run before its backward, and ``History.stopped`` names the step. ``callback``
    gets the history after every step (it decides itself how often to draw).
    ``zero_grad=False`` reproduces the forgotten ``optimizer.zero_grad()``; ``scheduler``
    (an ``lr_scheduler``) is stepped after every ``optimizer.step()``.
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
            lr = optimizer.param_groups[0]["lr"]
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
            history.log_train(loss.item(), lr)
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
    if len(sizes) > 8:
        raise ValueError(f"at most 8 hidden layers, got {len(sizes)}")
    return sizes


_RUNS: OrderedDict = OrderedDict()  # a run's settings -> its History
_RUNS_KEPT = 64


def run(optimizer: str = "SGD", lr: float = 0.1, hidden: str = "64", epochs: int = 10,
        schedule: str = "constant", batch_size: int = 128, seed: int = 0,
        callback=None, cache: bool = True) -> History:
    """The instrument's experiment: an MLP on the digits with the chosen optimizer and
    schedule (``lr`` is the constant rate, or the peak of a schedule).

    Training is deterministic here (a seeded model, a seeded shuffle, no dropout, one
    thread), so a setting run before is answered from a cache, without its callbacks
    (``cache=False`` trains it again).
    """
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {optimizer!r}: choose one of {', '.join(OPTIMIZERS)}")
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}: choose one of {', '.join(SCHEDULES)}")
    if isinstance(lr, bool) or not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"the learning rate must be a positive number, got {lr!r}")
    if not 1 <= int(epochs) <= 100:
        raise ValueError(f"epochs must be between 1 and 100, got {epochs}")
    sizes = parse_hidden(hidden)
    key = (optimizer, float(lr), sizes, int(epochs), schedule, int(batch_size), int(seed))
    if cache and key in _RUNS:
        _RUNS.move_to_end(key)
        return copy.deepcopy(_RUNS[key])
    data = digits(seed)
    threads = torch.get_num_threads()
    # These matrices are tiny: on a busy machine a second thread mostly waits for a core.
    torch.set_num_threads(1)
    try:
        model = mlp(sizes, seed=seed)
        opt = OPTIMIZERS[optimizer](model.parameters(), lr)
        total = int(epochs) * math.ceil(len(data[0]) / batch_size)
        scheduler = make_scheduler(schedule, opt, total)
        named = "" if schedule == "constant" else f" {schedule}"
        history = fit(model, opt, data, int(epochs), batch_size, seed, callback,
                      label=f"{optimizer}, lr {lr:.3g}{named}, hidden "
                            f"{', '.join(map(str, sizes)) or 'none'}",
                      scheduler=scheduler)
    finally:
        torch.set_num_threads(threads)
    _RUNS[key] = copy.deepcopy(history)
    if len(_RUNS) > _RUNS_KEPT:
        _RUNS.popitem(last=False)
    return history


# ---------------------------------------------------------------------------- draw

# mantissas of the tick values a log axis may label, densest first
TICK_SETS = ((1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9), (1, 1.5, 2, 3, 5, 7), (1, 2, 3, 5), (1, 2, 5),
             (1, 3), (1,))
LABEL_GAP = 1.6  # neighbouring labels at least this many label heights apart


def _nice(mantissas, lo_exp: int, hi_exp: int) -> list[float]:
    return [float(f"{m}e{k}") for k in range(lo_exp, hi_exp + 1) for m in mantissas]


def log_limits(lo: float, hi: float) -> tuple[float, float]:
    """Axis limits around the positive data range [lo, hi]: out to the nearest values of the
    densest tick set, so that at least two ticks are always inside."""
    lo_exp, hi_exp = math.floor(math.log10(lo)) - 1, math.floor(math.log10(hi)) + 1
    candidates = _nice(TICK_SETS[0], lo_exp, hi_exp)
    bottom = max(t for t in candidates if t <= lo * 0.98)
    top = min(t for t in candidates if t >= hi * 1.02)
    return bottom, top


def log_ticks(lo: float, hi: float, span_px: float, label_px: float) -> list[float]:
    """The tick values to label on a log axis from lo to hi drawn span_px tall: the densest
    of TICK_SETS whose neighbours are at least LABEL_GAP label heights apart (a wide range
    falls back to every n-th power of ten)."""
    lo_exp, hi_exp = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    px_per_decade = span_px / max(math.log10(hi / lo), 1e-12)
    need = LABEL_GAP * label_px

    def inside(values):
        return [v for v in values if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)]

    def gap(values):
        return min((math.log10(b / a) * px_per_decade for a, b in zip(values, values[1:])),
                   default=math.inf)

    for mantissas in TICK_SETS:
        ticks = inside(_nice(mantissas, lo_exp, hi_exp))
        if gap(ticks) >= need:
            return ticks
    every = math.ceil(need / px_per_decade)
    return inside([10.0 ** k for k in range(lo_exp, hi_exp + 1) if k % every == 0])


def tick_label(value: float) -> str:
    return f"{value:g}"


def _loss_axis(ax, values: list[float]) -> None:
    """A log y axis over ``values`` whose labels cannot overlap."""
    lo, hi = log_limits(min(values), max(values))
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    figure = ax.figure
    span_px = ax.get_position().height * figure.get_figheight() * figure.dpi
    label_px = 1.2 * MIN_LABEL_PT * figure.dpi / 72  # a line of tick-label text
    ax.yaxis.set_major_locator(FixedLocator(log_ticks(lo, hi, span_px, label_px)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: tick_label(v)))
    ax.yaxis.set_minor_locator(LogLocator(subs=tuple(range(1, 10))))
    ax.yaxis.set_minor_formatter(NullFormatter())


LOSS_BOX = (0.11, 0.40, 0.86, 0.50)   # figure fractions: left, bottom, width, height
LR_BOX = (0.11, 0.12, 0.86, 0.18)
MIN_LABEL_PT = 9  # the Explorer raises smaller text to this: lay out for it


def draw_curves(history: History, ax=None, legend: bool = True, lr_panel: bool = True,
                loss_range: tuple[float, float] | None = None, title_lines: int = 1):
    """Training loss per step and validation loss per epoch, against epochs (log scale),
    and beneath them the learning rate each step used (when the history has it).

    ``loss_range`` (lowest, highest) sets the loss axis instead of the history's own values
    (panels that share an axis); ``title_lines=2`` puts the accuracy on a second line."""
    if ax is None:
        ax = Figure(figsize=(7.5, 4.2)).add_subplot()
    fig = ax.figure
    per = max(history.steps_per_epoch, 1)
    with_lr = lr_panel and bool(history.lr)
    if with_lr:
        ax.set_position(LOSS_BOX)
    ax.tick_params(labelsize=MIN_LABEL_PT)
    if history.train_loss:
        xs = [(k + 1) / per for k in range(len(history.train_loss))]
        ax.plot(xs, history.train_loss, color="#1f77b4", lw=0.9, alpha=0.8, label="train (per step)")
    if history.val_loss:
        ax.plot(range(1, len(history.val_loss) + 1), history.val_loss, "o-", color="#d62728",
                ms=3, lw=1.5, label="validation (per epoch)")
    losses = _finite_losses([history]) if loss_range is None else list(loss_range)
    if losses:
        _loss_axis(ax, losses)
    ax.set_ylabel("cross-entropy loss", fontsize=MIN_LABEL_PT)
    ax.grid(alpha=0.3, which="both")
    title = history.label
    if history.val_acc:
        gap = "\n" if title_lines == 2 else "   "
        title += f"{gap}(validation accuracy {history.val_acc[-1]:.1%})"
    ax.set_title(title, fontsize=MIN_LABEL_PT)
    stop_x = (len(history.train_loss) + 1) / per
    if history.stopped:
        ax.axvline(stop_x, color="#b00020", ls="--", lw=1)
        ax.text(0.02, 0.04, "stopped: " + history.stopped, transform=ax.transAxes,
                color="#b00020", fontsize=MIN_LABEL_PT, fontweight="bold",
                bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"))
    if legend and (history.train_loss or history.val_loss):
        ax.legend(fontsize=MIN_LABEL_PT, loc="upper right")
    if not with_lr:
        ax.set_xlabel("epoch", fontsize=MIN_LABEL_PT)
        return fig
    lr_ax = fig.add_axes(LR_BOX, sharex=ax)
    ax.tick_params(labelbottom=False)
    xs = [(k + 1) / per for k in range(len(history.lr))]
    lr_ax.plot(xs, history.lr, color="#2ca02c", lw=1.2)
    peak = max(history.lr)
    lr_ax.set_ylim(0, peak * 1.2)
    lr_ax.yaxis.set_major_locator(FixedLocator([0, peak]))
    lr_ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.3g}"))
    lr_ax.tick_params(labelsize=MIN_LABEL_PT)
    lr_ax.set_ylabel("lr", fontsize=MIN_LABEL_PT)
    lr_ax.set_xlabel("epoch", fontsize=MIN_LABEL_PT)
    lr_ax.grid(alpha=0.3)
    if history.stopped:
        lr_ax.axvline(stop_x, color="#b00020", ls="--", lw=1)
    return fig


def draw_comparison(histories: list[History], figsize=(10, 3.2)):
    """One panel per history, sharing the loss axis, for side-by-side curves."""
    fig = Figure(figsize=figsize)
    axes = fig.subplots(1, len(histories), sharey=True)
    fig.subplots_adjust(left=0.07, right=0.98, bottom=0.16, top=0.84, wspace=0.06)
    losses = _finite_losses(histories)
    shared = (min(losses), max(losses)) if losses else None
    for k, (ax, history) in enumerate(zip(getattr(axes, "flat", [axes]), histories)):
        draw_curves(history, ax, legend=k == 0, lr_panel=False, loss_range=shared, title_lines=2)
        if k:
            ax.set_ylabel("")
    return fig


def _finite_losses(histories) -> list[float]:
    """Every positive finite loss the histories logged (what a log axis can show)."""
    return [v for h in histories for v in h.train_loss + h.val_loss if math.isfinite(v) and v > 0]


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

    ``board.log_train(loss, lr)`` after each step, ``board.log_val(loss, acc)`` after each
    epoch, ``board.close()`` at the end (draws the final picture). Redraws are spaced
    at least ``every`` seconds apart so drawing never dominates training.
    """

    def __init__(self, label: str = "", steps_per_epoch: int = 1, every: float = 0.3):
        from IPython.display import display
        self.history = History(label=label, steps_per_epoch=steps_per_epoch)
        self.every = every
        self.figure = Figure(figsize=(7.5, 4.2), dpi=CSS_DPI)
        self._last = 0.0
        self.handle = display(self._picture(), display_id=True)

    def _picture(self):
        self.figure.clear()
        self.figure.subplots_adjust(left=LOSS_BOX[0], right=0.97, bottom=0.12, top=0.9)
        draw_curves(self.history, self.figure.add_subplot())
        return show(self.figure)

    def draw(self, force: bool = False) -> None:
        now = time.perf_counter()
        if force or now - self._last >= self.every:
            self.handle.update(self._picture())
            self._last = time.perf_counter()

    def log_train(self, loss: float, lr: float | None = None) -> None:
        self.history.log_train(loss, lr)
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

FIGSIZE = (7.5, 4.2)
WATCH_AFTER = 0.5  # seconds: a run still going after this is redrawn while it trains


def explore(optimizer: str = "SGD", lr: float = 0.1, schedule: str = "constant",
            hidden: str = "64", epochs: int = 10, every: float = 0.25,
            watch_after: float = WATCH_AFTER, cache: bool = True):
    """Optimizer, learning rate, schedule, hidden sizes and epochs -> curves and the rate.

    ``cache=False`` trains every setting again (for measuring what a new setting costs)."""
    import ipywidgets as widgets

    from helpers.explorer import Explorer

    controls = {
        "optimizer": widgets.Dropdown(options=list(OPTIMIZERS), value=optimizer,
                                      description="optimizer",
                                      layout=widgets.Layout(width="330px")),
        "lr": widgets.FloatLogSlider(value=lr, base=10, min=-4, max=1.5, step=0.25,
                                     description="lr (peak)", readout_format=".3g",
                                     continuous_update=False),
        "schedule": widgets.Dropdown(options=[(text, value) for value, text in SCHEDULES.items()],
                                     value=schedule, description="schedule",
                                     layout=widgets.Layout(width="330px")),
        "hidden": widgets.Text(value=hidden, description="hidden", continuous_update=False),
        "epochs": widgets.IntSlider(value=epochs, min=1, max=30, description="epochs",
                                    continuous_update=False),
    }
    state = {"explorer": None, "started": 0.0, "last": 0.0}

    def partial(history):
        # Redraw mid-run only once the widget exists, once the run has gone on long enough
        # to be worth watching, and at most every `every` seconds: a short run is drawn
        # once, when it ends, by the Explorer itself.
        explorer = state["explorer"]
        now = time.perf_counter()
        if (explorer is None or now - state["started"] < watch_after
                or now - state["last"] < every):
            return
        explorer.paint(draw_curves, history)
        explorer.show()
        explorer.prepare_spare()
        state["last"] = time.perf_counter()

    def model(optimizer, lr, schedule, hidden, epochs):
        state["started"] = state["last"] = time.perf_counter()
        return run(optimizer, lr, hidden, epochs, schedule, callback=partial, cache=cache)

    explorer = Explorer(controls, model, draw_curves,
                        title="Live loss curves: an MLP on the 8×8 digits", figsize=FIGSIZE)
    state["explorer"] = explorer
    return explorer
