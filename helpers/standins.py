"""Stand-ins for hardware this machine may lack, so that a test can run here anyway.

``OnGPU``: a tensor that behaves like a CUDA tensor towards NumPy: ``.numpy()`` refuses it
with CUDA's own words, and ``.cpu()`` or ``.to("cpu")`` return a plain CPU copy (01's
snapshot exercise: a snapshot must work for a tensor on a GPU).
"""

from __future__ import annotations

import torch


class OnGPU(torch.Tensor):
    """``.numpy()`` refuses it until ``.cpu()`` or ``.to('cpu')`` copies it."""

    def numpy(self, *, force=False):
        if force:
            return self.as_subclass(torch.Tensor).numpy(force=True)
        raise TypeError("can't convert cuda:0 device type tensor to numpy. "
                        "Use Tensor.cpu() to copy the tensor to host memory first.")

    def cpu(self, *args, **kwargs):
        return self.as_subclass(torch.Tensor).clone()

    def to(self, *args, **kwargs):
        target = args[0] if args else kwargs.get("device")
        if str(target).startswith("cpu"):
            return self.as_subclass(torch.Tensor).clone().to(*args, **kwargs)
        return super().to(*args, **kwargs)
