"""DataLoader throughput with 0 and 2 workers on this machine: items per second for one
epoch, worker start-up included, median of several epochs.

    python benchmarks/loader_throughput.py [--repeat N]

Three kinds of items: tiny (making one costs almost nothing), waiting (2 ms of sleep, like
a slow disk: no CPU used) and computing (~2 ms of arithmetic per item: needs a free core).
Workers are started afresh every epoch (persistent_workers=False), as in the notebook; the
last column repeats the 2-worker run with persistent workers (start-up paid once).

The main process computes with one thread, as each worker does (DataLoader workers set
torch's threads to 1): otherwise, on a busy 2-core machine, torch's intra-op threads in the
main process fight over the cores and the 0-worker column measures that contention.
"""

from __future__ import annotations

import argparse

import torch
from torch.utils.data import DataLoader

from helpers import datasets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    cases = [("tiny items", datasets.TinyItems(4_000)),
             ("2 ms waiting items", datasets.WaitingItems(400, 0.002)),
             ("~2 ms computing items", datasets.ComputingItems(400))]
    print(f"torch {torch.__version__}, CPU cores available: {datasets.cpu_count()}, "
          f"threads per process {torch.get_num_threads()}, batch size 64, median of {args.repeat} epochs")
    print(f"{'dataset':<24} {'0 workers':>12} {'2 workers':>12} {'ratio':>7} {'2 persistent':>13}")
    for name, dataset in cases:
        rates = []
        for workers, persistent in ((0, False), (2, False), (2, True)):
            loader = DataLoader(dataset, batch_size=64, num_workers=workers,
                                persistent_workers=persistent, timeout=60 if workers else 0)
            rates.append(len(dataset) / datasets.seconds_per_epoch(loader, args.repeat))
        zero, two, kept = rates
        print(f"{name:<24} {zero:>10.0f}/s {two:>10.0f}/s {two / zero:>6.2f}x {kept:>11.0f}/s")


if __name__ == "__main__":
    main()
