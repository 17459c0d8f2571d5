"""The DataLoader explorer's timeline view: which process loads which batch when (notebook 05).

Three layers:

* measure ``measure(settings)`` runs a real ``DataLoader`` for a few steps and records
  timestamps: when each item was loaded and by which process, when each worker started, when
  the training loop asked for a batch, got it, and finished its step. This is the only layer
  that starts processes; it returns plain numbers (a ``Run``).
* model   ``timeline(run)`` (pure): those timestamps become lanes of segments, one lane for
  the main process and one per worker, plus the count of batches ready in the queue, and per
  epoch how long the loop waited for data and how long it computed.
  ``explore_model(...)`` is what the explorer calls: check the settings, measure, model.
* draw    ``draw_timeline(timeline, ax=None)``: time on the x axis, a row per process.
* explore ``explore(...)``: workers, prefetch_factor, persistent_workers, how an item costs
  its time (waiting, like a read from a slow disk, or computing) and how long a step computes.

Every process reads the same clock: ``time.perf_counter`` is system-wide (CLOCK_MONOTONIC on
Linux), so a worker's timestamps and the main process's line up.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

from .datasets import cpu_count, worker_trouble

COSTS = ("waiting", "computing")
MAX_WORKERS = 4
MAX_ITEM_MS = 20
MAX_STEP_MS = 50
PREFETCH_CHOICES = (None, 1, 2, 4)
SHUTDOWN_SHOWN_MS = 0.5   # the end of an epoch shorter than this is not drawn as a stop

# ---------------------------------------------------------------------------- measure


def busy(seconds: float, clock=time.thread_time) -> None:
    """Compute until ``clock`` has advanced by ``seconds``. With the default clock, this
    thread's CPU time, the work takes longer on the wall clock when the cores are shared, as
    real work does (a sleep would not); with ``time.perf_counter`` it lasts that long on the
    wall clock whatever else runs. The GIL is let go on every round, as torch's and NumPy's
    kernels let it go, so that the process's other threads (the one that sends finished
    batches) are not held up."""
    end = clock() + seconds
    while clock() < end:
        time.sleep(0)


_STARTED = [math.nan]   # in a worker: when its worker_init_fn ran


def note_start(worker_id: int) -> None:
    """``worker_init_fn``: remember when this worker process was ready to load."""
    _STARTED[0] = time.perf_counter()


class TimedItems(Dataset):
    """Item i costs ``seconds`` (asleep, or computing) and reports what happened:
    ``[i, worker id (-1 = main process), start, end, when the worker started]``."""

    def __init__(self, n: int, cost: str = "waiting", seconds: float = 0.005):
        self.n, self.cost, self.seconds = n, cost, seconds

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        start = time.perf_counter()
        if self.cost == "waiting":
            time.sleep(self.seconds)
        else:
            busy(self.seconds)
        end = time.perf_counter()
        info = get_worker_info()
        worker = -1 if info is None else info.id
        return torch.tensor([i, worker, start, end, _STARTED[0]], dtype=torch.float64)


@dataclass(frozen=True)
class Settings:
    num_workers: int = 2
    prefetch_factor: int | None = None      # None: DataLoader's default (2 with workers)
    persistent_workers: bool = False
    cost: str = "waiting"                   # how an item spends item_ms: "waiting" or "computing"
    item_ms: float = 10.0
    step_ms: float = 10.0                   # the training step's computing time (wall clock)
    batch_size: int = 4
    steps: int = 6                          # per epoch
    epochs: int = 2


@dataclass
class Run:
    """What one measured run saw, in seconds of ``time.perf_counter``."""
    settings: Settings
    epoch_starts: list[float]               # iter(loader) was called
    epoch_ends: list[float]                 # the for loop had ended (workers shut down if not kept)
    steps: list[tuple[int, int, float, float, float]]           # epoch, batch, asked, got, done
    # epoch, batch, index, worker, start, end, when that worker started (NaN: main process)
    items: list[tuple[int, int, int, int, float, float, float]]


def loader_for(settings: Settings) -> DataLoader:
    """The DataLoader a run uses; DataLoader's own refusals come back as ValueError."""
    s = settings
    kwargs = dict(batch_size=s.batch_size, num_workers=s.num_workers,
                  persistent_workers=s.persistent_workers)
    if s.prefetch_factor is not None:
        kwargs["prefetch_factor"] = s.prefetch_factor
    if s.num_workers:
        kwargs.update(worker_init_fn=note_start, timeout=30)
    dataset = TimedItems(s.batch_size * s.steps, s.cost, s.item_ms / 1000)
    try:
        return DataLoader(dataset, **kwargs)
    except ValueError as refusal:
        raise ValueError(f"DataLoader refuses this setting: {refusal}") from None


def measure(settings: Settings) -> Run:
    """Run ``settings.epochs`` epochs of a loop that takes each batch and computes for
    ``step_ms``; record every timestamp. Workers are shut down before it returns."""
    with warnings.catch_warnings():
        # "This DataLoader will create 4 worker processes ... suggested max ... is 2": the
        # explorer says it in its own words (see explore_model)
        warnings.filterwarnings("ignore", message=".*worker processes in total.*")
        loader = loader_for(settings)
        run = Run(settings, [], [], [], [])
        try:
            for epoch in range(settings.epochs):
                asked = time.perf_counter()
                run.epoch_starts.append(asked)
                for b, batch in enumerate(loader):
                    got = time.perf_counter()
                    # the step lasts step_ms on the wall clock: the bar the student reads
                    busy(settings.step_ms / 1000, clock=time.perf_counter)
                    done = time.perf_counter()
                    run.steps.append((epoch, b, asked, got, done))
                    run.items += [(epoch, b, int(r[0]), int(r[1]), r[2], r[3], r[4])
                                  for r in batch.tolist()]
                    asked = done
                run.epoch_ends.append(time.perf_counter())
        finally:
            iterator = getattr(loader, "_iterator", None)   # kept alive by persistent_workers
            if iterator is not None and hasattr(iterator, "_shutdown_workers"):
                iterator._shutdown_workers()
    return run


# ------------------------------------------------------------------------------ model


@dataclass(frozen=True)
class Segment:
    lane: int          # 0: the main process; 1 + k: worker k
    kind: str          # "starting", "loading", "waiting", "step", "shutdown"
    start: float       # milliseconds since the first epoch began
    end: float
    batch: int = -1
    epoch: int = 0

    @property
    def ms(self) -> float:
        return self.end - self.start


@dataclass
class EpochStats:
    ms: float                  # the whole epoch, iter() to the end of the loop
    waiting: float             # the loop waiting for batches (with 0 workers: loading them)
    computing: float           # the loop's steps
    first_wait: float          # the first step's wait: start-up included
    later_wait: float          # the mean wait of the other steps
    startup: float             # workers started this epoch: iter() to the last one ready (0 if none)


@dataclass
class Timeline:
    settings: Settings
    lanes: list[str]
    segments: list[Segment]
    items: list[Segment]                        # one per item, for the separators
    queue: list[tuple[float, int]]              # (time, batches ready and not yet taken), a step function
    epoch_starts: list[float]
    epochs: list[EpochStats]
    end: float
    note: str = ""
    cost: str = field(default="waiting")

    def summary(self) -> str:
        parts = []
        for k, e in enumerate(self.epochs):
            parts.append(f"epoch {k + 1}: {e.ms:.0f} ms, steps {e.computing:.0f} ms, waiting "
                         f"{e.waiting:.0f} ms (first step {e.first_wait:.0f}, then "
                         f"{e.later_wait:.1f} per step)")
        return "; ".join(parts)


def _queue(ready: list[float], taken: list[float]) -> list[tuple[float, int]]:
    """The number of batches that are finished but not yet taken, as a step function."""
    events = [(t, 1) for t in ready] + [(t, -1) for t in taken]
    # at equal times a batch is counted ready before it is taken, so the count never dips below 0
    events.sort(key=lambda e: (e[0], -e[1]))
    count, steps = 0, [(0.0, 0)]
    for t, change in events:
        count = max(0, count + change)
        steps.append((t, count))
    return steps


def timeline(run: Run) -> Timeline:
    """Lanes of segments from a run's timestamps (pure: no process is started here)."""
    s = run.settings
    t0 = run.epoch_starts[0] if run.epoch_starts else 0.0

    def ms(t: float) -> float:
        return (t - t0) * 1000

    lanes = ["main process"] + [f"worker {k}" for k in range(s.num_workers)]
    segments: list[Segment] = []
    items: list[Segment] = []
    by_batch: dict[tuple[int, int], list[tuple]] = {}
    for row in run.items:
        by_batch.setdefault((row[0], row[1]), []).append(row)
    ready, taken, epochs = [], [], []
    for e, (start, end) in enumerate(zip(run.epoch_starts, run.epoch_ends)):
        steps = [st for st in run.steps if st[0] == e]
        # a worker whose start falls in this epoch was started by it (a kept one was not)
        began = {row[3]: row[6] for row in run.items
                 if row[0] == e and row[3] >= 0 and row[6] >= start}
        for worker, ready_time in sorted(began.items()):
            segments.append(Segment(1 + worker, "starting", ms(start), ms(ready_time), epoch=e))
        for _, b, asked, got, done in steps:
            rows = by_batch.get((e, b), [])
            in_main = bool(rows) and all(r[3] < 0 for r in rows)
            if rows:
                lane = 0 if in_main else 1 + rows[0][3]
                last = max(r[5] for r in rows)
                segments.append(Segment(lane, "loading", ms(min(r[4] for r in rows)), ms(last), b, e))
                items += [Segment(lane, "item", ms(r[4]), ms(r[5]), b, e) for r in rows]
                if not in_main:           # done no later than taken, whatever the rounding
                    ready.append(ms(min(last, got)))
                    taken.append(ms(got))
            if not in_main:
                segments.append(Segment(0, "waiting", ms(asked), ms(got), b, e))
            segments.append(Segment(0, "step", ms(got), ms(done), b, e))
        if steps and (end - steps[-1][4]) * 1000 > SHUTDOWN_SHOWN_MS:
            segments.append(Segment(0, "shutdown", ms(steps[-1][4]), ms(end), epoch=e))
        waits = [(got - asked) * 1000 for _, _, asked, got, _ in steps]
        epochs.append(EpochStats(
            ms=(end - start) * 1000, waiting=sum(waits),
            computing=sum((done - got) * 1000 for *_, got, done in steps),
            first_wait=waits[0] if waits else 0.0,
            later_wait=sum(waits[1:]) / (len(waits) - 1) if len(waits) > 1 else 0.0,
            startup=(max(began.values()) - start) * 1000 if began else 0.0))
    return Timeline(settings=s, lanes=lanes, segments=segments, items=items,
                    queue=_queue(ready, taken), epoch_starts=[ms(t) for t in run.epoch_starts],
                    epochs=epochs, end=ms(run.epoch_ends[-1]) if run.epoch_ends else 0.0,
                    cost=s.cost)


def check(settings: Settings) -> None:
    """Settings the explorer cannot run, with the reason (a ValueError)."""
    s = settings
    if not isinstance(s.num_workers, int) or not 0 <= s.num_workers <= MAX_WORKERS:
        raise ValueError(f"num_workers = {s.num_workers}: the timeline shows 0 to {MAX_WORKERS} workers.")
    if s.prefetch_factor not in PREFETCH_CHOICES:
        raise ValueError(f"prefetch_factor = {s.prefetch_factor}: choose one of 1, 2, 4 or the default.")
    if s.num_workers == 0 and s.prefetch_factor is not None:
        raise ValueError(f"DataLoader refuses prefetch_factor={s.prefetch_factor} with num_workers=0: "
                         "without workers nothing is loaded ahead. Choose 'default' or add a worker.")
    if s.num_workers == 0 and s.persistent_workers:
        raise ValueError("DataLoader refuses persistent_workers=True with num_workers=0: there are no "
                         "workers to keep. Untick it or add a worker.")
    if s.cost not in COSTS:
        raise ValueError(f"item cost {s.cost!r} is not one of {', '.join(COSTS)}.")
    if not 0 < s.item_ms <= MAX_ITEM_MS:
        raise ValueError(f"item ms = {s.item_ms}: choose 1 to {MAX_ITEM_MS} ms per item.")
    if not 0 <= s.step_ms <= MAX_STEP_MS:
        raise ValueError(f"step ms = {s.step_ms}: choose 0 to {MAX_STEP_MS} ms per step.")


def explore_model(num_workers: int = 2, prefetch_factor: int | str | None = None,
                  persistent_workers: bool = False, cost: str = "waiting", item_ms: float = 10,
                  step_ms: float = 10) -> Timeline:
    """Check the settings, measure a run, and model it (what the explorer calls).
    ``prefetch_factor`` "default" (the dropdown's word) or None: DataLoader's default."""
    if prefetch_factor == "default":
        prefetch_factor = None
    settings = Settings(num_workers=num_workers, prefetch_factor=prefetch_factor,
                        persistent_workers=persistent_workers, cost=cost, item_ms=item_ms,
                        step_ms=step_ms)
    check(settings)
    try:
        run = measure(settings)
    except Exception as error:
        if not worker_trouble(error):
            raise
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"Worker processes could not run here ({first[:120]}); "
                         "num_workers=0 still works.") from None
    result = timeline(run)
    busy_processes = num_workers + 1 if cost == "computing" else 1
    if busy_processes > cpu_count():
        result.note = (f"{num_workers} workers and the main process compute on {cpu_count()} "
                       "cores: they take turns, so the loading bars stretch.")
    elif num_workers > cpu_count():
        result.note = (f"{num_workers} workers on {cpu_count()} cores: DataLoader warns about that, "
                       "but workers that sleep need no core.")
    return result


# ------------------------------------------------------------------------------- draw

COLOURS = {"waiting": "#e15759", "step": "#4e79a7", "starting": "#edc948",
           "shutdown": "#d7d7d7", "loading-waiting": "#f28e2b", "loading-computing": "#59a14f"}
QUEUE = "#b07aa1"     # the strip of batches done and not taken: a colour no bar has
HATCH = "///"         # over a starting worker's bar, and its swatch
TEXT_PT = 9           # every label: 12 CSS px in the explorer
LEGEND = {"step": "training step", "waiting": "waiting for a batch",
          "loading-waiting": "loading (asleep)", "loading-computing": "loading (computing)",
          "starting": "starting a worker", "shutdown": "stopping workers"}
BAR = 0.62            # height of a lane's bars
MIN_ROWS = 3          # rows of room drawn even with fewer lanes
LABEL_PX = 16         # a batch number is written inside bars at least this wide


def _kind_colour(segment: Segment, cost: str) -> str:
    return COLOURS[f"loading-{cost}" if segment.kind == "loading" else segment.kind]


def draw_timeline(result: Timeline, ax=None):
    """One row per process (the main process on top), time in ms on the x axis; the batches
    done and not yet taken beneath; epochs divided by dashed lines."""
    from matplotlib.patches import Patch

    if ax is None:
        from matplotlib.figure import Figure
        ax = Figure(figsize=(8.5, 4.8)).add_subplot()
    t = result
    n_lanes = len(t.lanes)
    rows = max(n_lanes, MIN_ROWS)             # the same bar height whatever the worker count
    queue_y = rows + 0.35                     # the queue strip sits under the last row
    end = max(t.end, 1.0)
    by_colour: dict[tuple[str, int], list] = {}
    hatched: dict[int, list] = {}
    for seg in t.segments:
        if seg.ms <= 0:
            continue
        if seg.kind == "starting":
            hatched.setdefault(seg.lane, []).append((seg.start, seg.ms))
        by_colour.setdefault((_kind_colour(seg, t.cost), seg.lane), []).append((seg.start, seg.ms))
    for (colour, lane), bars in by_colour.items():
        ax.broken_barh(bars, (lane - BAR / 2, BAR), facecolors=colour, edgecolor="none")
    for lane, bars in hatched.items():
        ax.broken_barh(bars, (lane - BAR / 2, BAR), facecolors="none", edgecolor="#6f6f6f",
                       hatch=HATCH, linewidth=0)
    # where one item ends and the next begins: short white marks at the foot of the bars
    starts = [(it.start, it.lane) for it in t.items]
    if starts:
        ax.vlines([x for x, _ in starts], [y + BAR / 2 - 0.18 for _, y in starts],
                  [y + BAR / 2 for _, y in starts], colors="white", linewidth=0.8)
    # batch numbers where the bar is wide enough to hold one
    px_per_ms = ax.figure.get_figwidth() * ax.figure.dpi * 0.8 / end
    for seg in t.segments:
        if seg.kind in ("loading", "step") and seg.batch >= 0 and seg.ms * px_per_ms >= LABEL_PX:
            ax.text(seg.start + seg.ms / 2, seg.lane - 0.05, str(seg.batch), ha="center",
                    va="center", fontsize=TEXT_PT, color="white", fontweight="bold")
    ticks, labels = list(range(n_lanes)), list(t.lanes)
    if n_lanes == 1:
        # in the empty rows under the main process, which the epoch lines do not reach
        ax.text(end * 0.5, 1.5, "num_workers=0: no worker processes; the main process loads "
                "each batch, then steps", ha="center", va="center", fontsize=TEXT_PT, color="#555555")
    elif len(t.queue) > 1:
        times = [q[0] for q in t.queue] + [end]
        counts = [q[1] for q in t.queue]
        top = max(max(counts), 1)
        ax.stairs([queue_y + 0.3 - 0.6 * c / top for c in counts], times,
                  baseline=queue_y + 0.3, fill=True, color=QUEUE)
        ticks.append(queue_y)
        labels.append(f"batches done,\nnot taken (max {max(counts)})")
    top_y = -0.95
    # an epoch's line runs down through the rows drawn: with no workers, the main process's
    lines_end = 0.5 if n_lanes == 1 else queue_y + 0.5
    ax.vlines(t.epoch_starts, top_y, lines_end, color="black", linestyle="--", linewidth=0.8)
    for k, start in enumerate(t.epoch_starts):
        ax.text(start + end * 0.005, top_y + 0.05, f"epoch {k + 1}", fontsize=TEXT_PT, va="top", ha="left")
    ax.set_xlim(0, end * 1.01)
    ax.set_ylim(queue_y + 0.5, top_y)
    ax.set_yticks(ticks, labels, fontsize=TEXT_PT)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("time since the first epoch began (ms)", fontsize=TEXT_PT)
    ax.tick_params(axis="x", labelsize=TEXT_PT)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    used = {_kind_colour(seg, t.cost) for seg in t.segments if seg.ms > 0}
    handles = [Patch(facecolor=COLOURS[k], label=label, edgecolor="#6f6f6f" if k == "starting" else "none",
                     hatch=HATCH if k == "starting" else None, linewidth=0)
               for k, label in LEGEND.items() if COLOURS[k] in used]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=len(handles),
              fontsize=TEXT_PT, frameon=False, handlelength=1.2, columnspacing=1.0)
    s = t.settings
    prefetch = "default" if s.prefetch_factor is None else s.prefetch_factor
    head = [f"num_workers={s.num_workers}, prefetch_factor={prefetch}, "
            f"persistent_workers={s.persistent_workers}",
            f"items {s.cost} {s.item_ms:g} ms each, batches of {s.batch_size}, a step of {s.step_ms:g} ms"]
    lines = head + [f"epoch {k + 1}: {e.ms:.0f} ms; the loop waited {e.waiting:.0f} ms "
                      f"(first step {e.first_wait:.0f} ms, then {e.later_wait:.1f} ms a step)"
                      for k, e in enumerate(t.epochs)]
    ax.set_title("\n".join(lines), fontsize=TEXT_PT, loc="left")
    ax.set_position([0.16, 0.2, 0.81, 0.58])
    return ax.figure


# ---------------------------------------------------------------------------- explore

# plain text: a symbol the browser's fonts lack would show as an empty box
MEASURING = "Measuring… a real DataLoader is running two epochs with these settings."


def measuring_explorer():
    """An ``Explorer`` whose every update runs a real DataLoader (up to a second or two): while
    it measures, its message line says so and the last picture is greyed out, so that the
    widget never looks frozen; the update that follows replaces both."""
    from .explorer import Explorer

    class MeasuringExplorer(Explorer):
        def update(self) -> None:
            self.message.value = f"<div class='course-explorer-note'>{MEASURING}</div>"
            self.image.add_class("course-explorer-stale")
            super().update()

    return MeasuringExplorer


def explore(num_workers: int = 2, prefetch_factor: int | None = None,
            persistent_workers: bool = False, cost: str = "waiting", item_ms: int = 10,
            step_ms: int = 10):
    """The timeline view of the DataLoader explorer (a ``helpers.explorer.Explorer``). Each
    change runs a real DataLoader for two epochs of six steps (up to a second or two), so a
    slider measures when it is released, not at every position it passes while dragged."""
    import ipywidgets as widgets

    wide = {"description_width": "120px"}
    controls = {
        "num_workers": widgets.IntSlider(value=num_workers, min=0, max=MAX_WORKERS,
                                         description="num_workers", style=wide,
                                         continuous_update=False),
        # "default", not None: a Dropdown whose value is None shows an empty box
        "prefetch_factor": widgets.Dropdown(
            options=[("default", "default"), ("1", 1), ("2", 2), ("4", 4)],
            value="default" if prefetch_factor is None else prefetch_factor,
            description="prefetch_factor", style=wide, layout=widgets.Layout(width="230px")),
        "persistent_workers": widgets.Checkbox(value=persistent_workers,
                                               description="persistent_workers", indent=False,
                                               layout=widgets.Layout(width="170px")),
        "cost": widgets.Dropdown(options=[("waiting (asleep)", "waiting"),
                                          ("computing (CPU)", "computing")],
                                 value=cost, description="item cost", style=wide,
                                 layout=widgets.Layout(width="290px")),
        "item_ms": widgets.IntSlider(value=item_ms, min=1, max=MAX_ITEM_MS, description="item ms",
                                     style=wide, continuous_update=False),
        "step_ms": widgets.IntSlider(value=step_ms, min=0, max=MAX_STEP_MS, description="step ms",
                                     style=wide, continuous_update=False),
    }
    return measuring_explorer()(
        controls, explore_model, draw_timeline,
        title="DataLoader explorer, timeline: who loads which batch when (measured)",
        figsize=(8.5, 4.8))
