"""What notebook 05's loader measurements show, said from their own numbers.

Worker processes help or hurt depending on the machine and on what else runs on it: the same
cell that shows two workers halving an epoch on an idle 2-core laptop can show them slowing it
down on a shared machine with ten busy processes. So the page states no verdict of its own
about a measurement; its cells print the sentences these functions build from what they just
measured (pure functions of the numbers, tested on both sides of every threshold).
"""

from __future__ import annotations

import math
import os

from .datasets import break_even_seconds, cpu_count, startup_seconds

CLEARLY = 0.8   # a time below CLEARLY x another is clearly shorter, above 1 / CLEARLY clearly longer


def compare(before: float, after: float) -> str:
    """'shorter', 'longer' or 'about the same': how ``after`` compares with ``before``."""
    if after < CLEARLY * before:
        return "shorter"
    if after > before / CLEARLY:
        return "longer"
    return "about the same"


def load_average() -> float | None:
    """The load average over the last minute (the mean number of processes running or ready
    to run), or None where the system does not say (Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def machine_line(cores: int | None = None, load: float | None = None) -> str:
    """The cores this process may use and the load average over the last minute: above the
    cores, processes take turns."""
    cores = cpu_count() if cores is None else cores
    load = load_average() if load is None else load
    if load is None:
        return f"{cores} CPU cores available to this notebook (load average unknown here)"
    busy = ("more processes than cores wanted to run, so they took turns"
            if load > cores else "the cores were not all busy")
    return f"{cores} CPU cores available; load average over the last minute {load:.1f} ({busy})"


def step_verdicts(per_item, jittered, with_workers, whole_batches, cores: int | None = None,
                  load: float | None = None) -> list[str]:
    """Sentences about section 10's table. Each argument is a loader's (median wait, median
    compute) per step in ms: items fetched one by one, the same with jitter per item, that in
    two workers, and whole batches fetched with one indexing operation. ``cores`` and ``load``
    default to this machine's, now."""
    cores = cpu_count() if cores is None else cores
    load = load_average() if load is None else load
    (item_wait, _), (jitter_wait, jitter_compute) = per_item, jittered
    (worker_wait, worker_compute), (whole_wait, _) = with_workers, whole_batches
    lines = []
    if compare(item_wait, whole_wait) == "shorter":
        lines.append(f"Fetching whole batches with one indexing operation cut the wait from "
                     f"{item_wait:.2f} ms (64 items one by one) to {whole_wait:.2f} ms a step.")
    else:
        lines.append(f"Fetching whole batches did not cut the wait here: {whole_wait:.2f} ms a step, "
                     f"against {item_wait:.2f} ms for 64 items one by one.")
    lines.append(f"jitter on every item made the wait {compare(item_wait, jitter_wait)} "
                 f"({item_wait:.2f} -> {jitter_wait:.2f} ms a step).")
    verdict = compare(jitter_wait, worker_wait)
    if verdict == "shorter":
        lines.append(f"Two workers cut that wait to {worker_wait:.2f} ms: they jitter the next "
                     "batches while the main process computes the step.")
    else:
        crowd = (f", and other programs wanted the same cores (load {load:.1f} on {cores})"
                 if load is not None and load > cores else "")
        lines.append(f"Two workers did not cut the wait here ({jitter_wait:.2f} -> {worker_wait:.2f} ms, "
                     f"{verdict}): the two workers and the training step shared {cores} cores{crowd}, "
                     "and every batch travels back through a queue, which needs the worker and "
                     "the main process to run in turn.")
    if compare(jitter_compute, worker_compute) == "longer":
        lines.append(f"The step itself computed longer with workers ({jitter_compute:.2f} -> "
                     f"{worker_compute:.2f} ms): they took cores from it.")
    return lines


def epoch_table(epochs: dict[int, dict[str, float]], wait_s: float) -> str:
    """Section 12's table: a row per dataset size, a column per loader (seconds -> ms and the
    speed against 0 workers); a loader not measured for a size is left blank."""
    columns = list(dict.fromkeys(name for row in epochs.values() for name in row))
    head = f"{f'items of {wait_s * 1000:g} ms':<14}" + "".join(f"{name + ' workers':>17}" for name in columns)
    rows = [head]
    for n, row in epochs.items():
        cells = [f"{row[c] * 1000:>8.0f} ms {row['0'] / row[c]:>4.1f}x" if c in row else " " * 17
                 for c in columns]
        rows.append(f"{n:<14}" + "".join(cells))
    return "\n".join(rows)


def worker_verdicts(epochs: dict[int, dict[str, float]], wait_s: float, cores: int) -> list[str]:
    """Sentences about section 12's table: what kept workers did for waiting items, the
    start-up of two workers started every epoch and its break-even, and on which side of it
    each dataset fell (and whether its measured row agrees)."""
    small, large = min(epochs), max(epochs)
    big = epochs[large]
    lines = []
    two, four = big["2 kept"], big["4 kept"]
    lines.append(f"{large} items, workers kept: 2 workers {big['0'] / two:.1f}x the speed of none, "
                 f"4 workers {big['0'] / four:.1f}x, on {cores} cores.")
    if compare(two, four) == "shorter":
        lines.append("4 workers were faster than 2 with only "
                     f"{cores} cores: a worker waiting for its item sleeps and needs no core, so "
                     "4 workers wait for 4 items at once.")
    else:
        lines.append(f"4 workers were not faster than 2 here ({two * 1000:.0f} vs {four * 1000:.0f} ms): "
                     "waiting needs no core, but each batch's hand-off does, and on a busy machine a "
                     "worker that is ready waits for its turn.")
    if compare(big["2"], two) == "shorter":
        lines.append(f"Keeping the 2 workers saved {(big['2'] - two) * 1000:.0f} ms an epoch "
                     f"({big['2'] * 1000:.0f} -> {two * 1000:.0f} ms): their start-up, paid once "
                     "instead of every epoch.")
    else:
        lines.append(f"Keeping the 2 workers saved no clear time here ({big['2'] * 1000:.0f} -> "
                     f"{two * 1000:.0f} ms): their start-up was small against the loading.")
    startup = startup_seconds(big["0"], big["2"], 2)
    line = break_even_seconds(startup, 2)
    lines.append(f"2 workers started every epoch: start-up about {startup * 1000:.0f} ms, so they pay "
                 f"off once an epoch's loading takes more than {line * 1000:.0f} ms with 0 workers "
                 f"(about {math.ceil(line / wait_s)} items of {wait_s * 1000:g} ms).")
    for n in (small, large):
        loading, fresh = epochs[n]["0"], epochs[n]["2"]
        side = "above" if loading > line else "below"
        outcome = "faster" if fresh < loading else "slower"
        agrees = (side == "above") == (outcome == "faster")
        lines.append(f"  {n} items: {loading * 1000:.0f} ms of loading, {side} that line; 2 fresh workers "
                     f"made the epoch {outcome} ({loading / fresh:.2f}x)"
                     + ("." if agrees else ": the line is an estimate from one row's medians, and "
                        "this one disagrees."))
    return lines
