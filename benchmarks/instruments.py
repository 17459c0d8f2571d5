"""Median update time of every instrument at its default settings: model, draw, picture.

    python benchmarks/instruments.py [--repeat N]

An update is what happens when a control changes: the model recomputes and the figure is
redrawn (model + draw, the budget's ≤ 50 ms), then written as the widget's picture (SVG, or a
2x PNG for instruments that ask for one). "spare" is the figure cleared and given a fresh
Axes after the picture has been sent, off the path from a change to its picture.
"""

from __future__ import annotations

import argparse
import importlib
import statistics

import matplotlib

matplotlib.use("Agg")

# (label, module, keyword arguments for its explore())
INSTRUMENTS = [
    ("stride explorer", "helpers.strides", {}),
    ("broadcasting explorer", "helpers.broadcasting", {}),
    ("autograd graph (seed)", "helpers.autograd_graph", {}),
    ("walk counter, depth 24", "helpers.graph_walks", {"depth": 24}),
    ("module inspector", "helpers.modules", {}),
    ("activation explorer (6)", "helpers.activations", {}),
    ("activation explorer (12)", "helpers.activations", {"depth": 12}),
    # measures while it updates: eager only here, so the row is the instrument's own cost
    ("speedup explorer (eager)", "helpers.bench", {"size": 2**14, "compile": False}),
    # compiled: the symbolic-size chain is compiled by the first update, reused after
    ("speedup explorer (compiled)", "helpers.bench", {"size": 2**14, "compile": True}),
    ("roofline explorer", "helpers.roofline", {}),
    ("loop anatomy", "helpers.loop_anatomy", {}),
    # trains: a setting already run is answered from the instrument's cache (the median
    # here), a new one trains (cache=False: every update trains, what a first visit costs)
    ("live loss curves (cached)", "helpers.loss_curves", {}),
    ("live loss curves (trains)", "helpers.loss_curves", {"cache": False}),
    ("DataLoader explorer", "helpers.data", {}),
    ("DataLoader (N=10000, B=128)", "helpers.data", {"n": 10_000, "batch_size": 128}),
    ("DataLoader (distributed)", "helpers.data", {"sampler": "distributed", "world_size": 4}),
    # measures: every update runs a real DataLoader for two epochs of six steps
    ("DataLoader timeline (measures)", "helpers.loader_timeline", {}),
]


def measure(explorer, repeat: int) -> dict[str, float]:
    rows = {"model": [], "draw": [], "picture": [], "spare": []}
    import time
    for _ in range(repeat):
        explorer.compute()
        start = time.perf_counter()
        explorer.render()
        sent = time.perf_counter()
        explorer.prepare_spare()
        rows["picture"].append(sent - start)
        rows["spare"].append(time.perf_counter() - sent)
        rows["model"].append(explorer.timings["model"])
        rows["draw"].append(explorer.timings["draw"])
    return {k: statistics.median(v) * 1000 for k, v in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    print(f"{'instrument':<28} {'model ms':>9} {'draw ms':>9} {'model+draw':>11} {'picture ms':>11} "
          f"{'to picture':>11} {'spare ms':>9}")
    for label, module, kwargs in INSTRUMENTS:
        explorer = importlib.import_module(module).explore(**kwargs)
        m = measure(explorer, args.repeat)
        path = m["model"] + m["draw"] + m["picture"]
        print(f"{label:<28} {m['model']:>9.2f} {m['draw']:>9.2f} {m['model'] + m['draw']:>11.2f} "
              f"{m['picture']:>11.2f} {path:>11.2f} {m['spare']:>9.2f}")


if __name__ == "__main__":
    main()
