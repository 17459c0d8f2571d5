"""Inside the kernel: torch never asks for more threads than the sandbox allows.

A submission's processes and threads together are limited (RLIMIT_NPROC, ``c.Limits.
max_processes``), and so is its address space (RLIMIT_AS, ``c.Limits.memory_mb``), which
every thread's stack takes from. ``torch.set_num_threads(n)`` only takes effect at the next
parallel region (a matrix product, say), where OpenMP starts the threads; one it cannot
start is fatal inside libgomp, which ends the whole kernel (SIGSEGV, or exit code 1 after
"Thread creation failed") instead of raising. Measured in the sandbox: a kernel runs 17
threads of its own; ``set_num_threads(n)`` followed by a matrix product starts 2 (n - 1)
more (the pool of torch's own loops and the BLAS library's), each with an 8 MiB stack
(RLIMIT_STACK): n = 64 asks for 126 of the 64 allowed.

``clamp`` (run by the runner, silently, before the student's first cell) wraps
``torch.set_num_threads`` and ``torch.set_num_interop_threads``: a request beyond what both
limits leave room for (``room``) is lowered to it, and a line in the cell's output says so.
Native code that bypasses the wrappers can still fail; the runner then reads the kernel's
dying words, and the reason says that a thread or process could not be created
(graders.sandbox.execute).
"""

from __future__ import annotations

import functools
import os
import resource
import sys

HEADROOM = 4  # threads the kernel may still start for itself (a comm, a history saver)
RESERVE = 256 * 2**20  # address space left for the student's tensors


def tasks_in_use() -> int:
    """Threads of every process this sandbox's uid runs (what RLIMIT_NPROC counts)."""
    uid, count = os.getuid(), 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
        except OSError:
            continue  # ended meanwhile
    return count


def room(max_processes: int) -> int:
    """The most threads a parallel region may ask for: each costs two threads (torch's, the
    BLAS's) and their stacks, and RESERVE of the address space stays for the student's data."""
    by_count = (max_processes - tasks_in_use() - HEADROOM) // 2 + 1
    address, _ = resource.getrlimit(resource.RLIMIT_AS)
    stack, _ = resource.getrlimit(resource.RLIMIT_STACK)
    if address == resource.RLIM_INFINITY or stack == resource.RLIM_INFINITY:
        return max(1, by_count)
    by_memory = (address - _address_space() - RESERVE) // (2 * stack) + 1
    return max(1, min(by_count, by_memory))


def _address_space() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def clamp(max_processes: int) -> None:
    torch = sys.modules.get("torch")  # imported by the template or the guard; else nothing to do
    if torch is None or max_processes <= 0:
        return
    for name in ("set_num_threads", "set_num_interop_threads"):
        original = getattr(torch, name, None)
        if original is not None and not getattr(original, "_graders_clamped", False):
            setattr(torch, name, _clamped(original, name, max_processes))


def _clamped(original, name: str, max_processes: int):
    @functools.wraps(original)
    def wrapper(threads, *args, **kwargs):
        allowed = room(max_processes)
        if isinstance(threads, int) and threads > allowed:
            print(f"[grader] torch.{name}({threads}) asks for more threads than this sandbox allows "
                  f"({max_processes} processes and threads, {_limit_mib()} of address space); "
                  f"using {allowed}.")
            threads = allowed
        return original(threads, *args, **kwargs)

    wrapper._graders_clamped = True
    return wrapper


def _limit_mib() -> str:
    address, _ = resource.getrlimit(resource.RLIMIT_AS)
    return "unlimited" if address == resource.RLIM_INFINITY else f"{address // 2**20} MiB"
