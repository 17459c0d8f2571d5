"""When do DataLoader workers pay off on this machine? Epoch times with 0, 2 and 4 workers
(started afresh every epoch) and 2 or 4 kept (persistent_workers=True), median of several epochs,
for items that wait (a slow disk: no CPU used) and items that compute (matrix products, about
1-2 ms each on one idle core: they need a free core), at a size below and a size above the
break-even;
then, from the larger size's row, the start-up S of k workers and the break-even loading
time S * k / (k - 1) above which k workers are faster than none (notebook 05, section 12).

    python benchmarks/loader_throughput.py [--repeat N] [--wait-ms MS]

The main process computes with one thread, as each worker does (DataLoader workers set
torch's threads to 1): otherwise, on a busy 2-core machine, torch's intra-op threads in the
main process fight over the cores and the 0-worker column measures that contention.
"""

from __future__ import annotations

import argparse
import math
import warnings

import torch
from torch.utils.data import DataLoader

from helpers import datasets, loader_verdicts

COLUMNS = (("0", 0, False), ("2", 2, False), ("4", 4, False), ("2 kept", 2, True), ("4 kept", 4, True))


def epoch_times(dataset, repeat: int) -> dict[str, float]:
    times = {}
    for name, workers, persistent in COLUMNS:
        loader = DataLoader(dataset, batch_size=8, num_workers=workers, persistent_workers=persistent,
                            timeout=60 if workers else 0)
        times[name] = datasets.seconds_per_epoch(loader, repeat)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--wait-ms", type=float, default=8.0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore", message=".*worker processes in total.*")
    wait = args.wait_ms / 1000
    cases = [(f"{args.wait_ms:g} ms waiting x 8", datasets.WaitingItems(8, wait)),
             (f"{args.wait_ms:g} ms waiting x 64", datasets.WaitingItems(64, wait)),
             ("computing x 32", datasets.ComputingItems(32)),
             ("computing x 256", datasets.ComputingItems(256))]
    print(f"torch {torch.__version__}, CPU cores available: {datasets.cpu_count()}, threads per "
          f"process {torch.get_num_threads()}, batch size 8, median of {args.repeat} epochs")
    print(f"before: {loader_verdicts.machine_line()}")
    print(f"{'items':<24}" + "".join(f"{name + ' workers':>20}" for name, _, _ in COLUMNS))
    rows = {}
    for name, dataset in cases:
        rows[name] = row = epoch_times(dataset, args.repeat)
        print(f"{name:<24}" + "".join(f"{s * 1000:>9.0f} ms {row['0'] / s:>5.2f}x" for s in row.values())
              + f"   ({row['0'] / len(dataset) * 1000:.2f} ms an item with 0 workers)")
    print("break-even (from each larger row): S = T_k - T_0 / k, workers win once T_0 > S * k / (k - 1)")
    for name in (cases[1][0], cases[3][0]):
        row = rows[name]
        for k in (2, 4):
            startup = datasets.startup_seconds(row["0"], row[str(k)], k)
            line = datasets.break_even_seconds(startup, k)
            items = f", about {math.ceil(line / wait)} items" if "waiting" in name else ""
            print(f"  {name:<22} {k} workers: S = {startup * 1000:5.0f} ms, break-even at "
                  f"{line * 1000:5.0f} ms of loading per epoch{items}")
    print(f"after: {loader_verdicts.machine_line()}")


if __name__ == "__main__":
    main()
