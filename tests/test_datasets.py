"""Worker-side datasets behave under real DataLoader workers: the duplicated randomness
and its fix, sharded streams, memmap rows, and a clear message when workers cannot run."""

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from helpers import datasets


def noise(loader):
    return [batch[:, 1].tolist() for batch in loader]


def test_shared_generator_repeats_across_workers_and_reseeding_fixes_it():
    loader = DataLoader(datasets.NoisyItems(8), batch_size=2, num_workers=2, timeout=30)
    batches = noise(loader)
    assert batches[0] == batches[1] and batches[2] == batches[3]
    assert noise(loader) == batches          # and the next epoch repeats them too
    fixed = dict(batch_size=2, num_workers=2, timeout=30, worker_init_fn=datasets.reseed_worker)
    first = noise(DataLoader(datasets.NoisyItems(8), generator=torch.Generator().manual_seed(1), **fixed))
    again = noise(DataLoader(datasets.NoisyItems(8), generator=torch.Generator().manual_seed(1), **fixed))
    assert first[0] != first[1] and first == again


def test_range_stream_shards_or_duplicates():
    def run(shard):
        return sorted(DataLoader(datasets.RangeStream(0, 7, shard), batch_size=None, num_workers=2, timeout=30))
    assert [int(x) for x in run(True)] == list(range(7))
    assert [int(x) for x in run(False)] == sorted(list(range(7)) * 2)


def test_memmap_rows_read_the_file(tmp_path):
    array = np.arange(12, dtype=np.float32).reshape(4, 3)
    path = tmp_path / "rows.f32"
    array.tofile(path)
    rows = datasets.MemmapRows(path, (4, 3))
    batches = list(DataLoader(rows, batch_size=3, num_workers=2, timeout=30))
    assert torch.equal(torch.cat(batches), torch.from_numpy(array))


def test_array_dataset_items_and_length_check():
    ds = datasets.ArrayDataset(np.ones((5, 2)), np.arange(5))
    x, y = ds[3]
    assert x.dtype == torch.float32 and y == 3 and len(ds) == 5
    with pytest.raises(ValueError):
        datasets.ArrayDataset(np.ones((5, 2)), np.arange(4))


def test_workers_explained_turns_a_failed_start_into_a_message(capsys):
    with datasets.workers_explained() as run:
        raise PermissionError(13, "Permission denied")
    assert not run.ok and "could not run here" in capsys.readouterr().out
    with pytest.raises(ZeroDivisionError):
        with datasets.workers_explained():
            1 / 0  # noqa: B018 (the error is the point)
    with datasets.workers_explained() as run:
        pass
    assert run.ok
