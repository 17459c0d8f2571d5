"""Measure the GPU reference table that notebook 06 shows on machines without a GPU.

    python benchmarks/gpu_reference.py [--write]

On a machine with a CUDA GPU: float32 n×n matmuls on the CPU and on the GPU across sizes
(median of repeats after warm-up, torch.utils.benchmark), and the GPU's memory statistics.
Prints the table; with --write, stores it in helpers/gpu_reference.json together
with the device, the torch version and the date. Without a GPU it says so and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys

import torch

from helpers import bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="store the table in the repository")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("No CUDA GPU here: nothing measured, helpers/gpu_reference.json unchanged.")
        return 1
    table = bench.gpu_matmul_table()
    print(bench.format_reference(table))
    if args.write:
        bench.REFERENCE.write_text(json.dumps(table, indent=2) + "\n")
        print(f"written to {bench.REFERENCE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
