"""The GPU stand-in refuses .numpy() as a CUDA tensor does, and .cpu() gives a CPU copy."""

import numpy as np
import pytest
import torch

from helpers.standins import OnGPU


def test_numpy_refuses_until_cpu_copies():
    t = torch.arange(4.0).as_subclass(OnGPU)
    with pytest.raises(TypeError, match="cuda:0 device type tensor to numpy"):
        t.numpy()
    for copy in (t.cpu(), t.to("cpu"), t.to(device="cpu"), t.detach().cpu()):
        assert type(copy) is torch.Tensor
        assert copy.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
        assert np.array_equal(copy.numpy(), np.arange(4.0))
    assert np.array_equal(t.numpy(force=True), np.arange(4.0))
