"""Median update time of every instrument at its default settings: model, draw, picture.

    python benchmarks/instruments.py [--repeat N] [--pictures-before REF]

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


def explorer_at(ref: str):
    """The text measurement of helpers/explorer.py as it was at git ``ref``: its
    ``remembered_text_extents`` with the module-level names it uses, run on their own (the
    rest of that file may import what no longer exists)."""
    import ast
    import subprocess
    import types
    from pathlib import Path

    source = subprocess.run(["git", "show", f"{ref}:helpers/explorer.py"], cwd=Path(__file__).parent.parent,
                            capture_output=True, check=True, text=True).stdout
    tree = ast.parse(source)
    wanted = [node for node in tree.body
              if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
                  isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers"))
              or isinstance(node, (ast.Assign, ast.AnnAssign)) and ast.unparse(node).lstrip("_").startswith(
                  ("EXTENTS", "HEIGHTS", "FONTS", "FONT_LISTS"))
              or isinstance(node, ast.FunctionDef) and node.name in ("remembered_text_extents", "_font_heights")]
    module = types.ModuleType(f"explorer_at_{ref}")
    exec(compile(ast.Module(body=wanted, type_ignores=[]), f"{ref}:helpers/explorer.py", "exec"), module.__dict__)
    return module


def compare_pictures(ref: str, repeat: int) -> None:
    """The picture (SVG) of each instrument's default setting written with the text
    measurement of helpers/explorer.py at ``ref`` and with today's, in turns: the median of
    each, and whether the bytes are the same."""
    import io

    from helpers import explorer as now
    before = explorer_at(ref)

    def svg(explorer, module):
        buffer = io.BytesIO()
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "course"}), \
                module.remembered_text_extents():
            explorer.figure.savefig(buffer, format="svg", metadata={"Date": None})
        return buffer.getvalue()

    import time
    print(f"{'instrument':<28} {f'picture ms ({ref})':>22} {'picture ms (now)':>17}  same bytes")
    for label, module, kwargs in INSTRUMENTS:
        if "measures" in label or "trains" in label or "compiled" in label:
            continue
        explorer = importlib.import_module(module).explore(**kwargs)
        same = svg(explorer, before) == svg(explorer, now)
        times = {"before": [], "now": []}
        for _ in range(repeat):
            for which, module_ in (("before", before), ("now", now)):
                start = time.perf_counter()
                svg(explorer, module_)
                times[which].append(time.perf_counter() - start)
        print(f"{label:<28} {statistics.median(times['before']) * 1000:>22.2f} "
              f"{statistics.median(times['now']) * 1000:>17.2f}  {'yes' if same else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--pictures-before", metavar="REF",
                        help="instead: each picture written with the text measurement of "
                             "helpers/explorer.py at git REF and with today's, in turns")
    args = parser.parse_args()
    if args.pictures_before:
        compare_pictures(args.pictures_before, args.repeat)
        return
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
