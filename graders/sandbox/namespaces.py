"""Fresh Linux namespaces for one submission, made by a forked copy of the template process.

bubblewrap builds the template's sandbox once (graders.sandbox.bwrap); each submission then
gets, inside it, what bubblewrap would have given it: a mount namespace whose /tmp,
/dev/shm and scratch folder are its own (the template's inbox of other submissions'
folders is covered), a pid namespace with its own /proc, a network namespace with only its
own loopback, and an IPC namespace. All of it ends with the submission's last process.

Thin ctypes wrappers over the system calls (Python 3.11 has no os.unshare or mount);
each raises OSError with the call's name on failure.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID = 0x20000, 0x08000000, 0x40000000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 0x4000, 1 << 18
PR_SET_DUMPABLE = 4
SIOCSIFFLAGS, IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x8914, 0x1, 0x8, 0x40

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_bytes(source), _bytes(target), _bytes(fstype), flags, _bytes(data)), f"mount {target}")


def tmpfs(target: str, size_bytes: int, mode: str = "1777", read_only: bool = False) -> None:
    mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | (MS_RDONLY if read_only else 0),
          f"size={size_bytes},mode={mode}")


def set_dumpable(on: bool) -> None:
    """Off: /proc/<pid>/fd, mem, environ become root's and ptrace is refused, even to a
    process of the same uid (the kernel, once the runner has forked it)."""
    _check(_libc.prctl(PR_SET_DUMPABLE, int(on), 0, 0, 0), "prctl(PR_SET_DUMPABLE)")


def loopback_up() -> None:
    """A new network namespace starts with its loopback down: kernel and client talk over it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING))


def isolate(work_source: str, work: str, inbox: str, tmp_bytes: int, shm_bytes: int,
            staging: str, keep_in_tmp: list[str]) -> None:
    """In the forked submission process, before its pid namespace's first process: its own
    mount, IPC, network and (for its children) pid namespaces; ``work_source`` (its folder in
    the inbox) bound at ``work``; the inbox covered; a fresh /tmp and /dev/shm."""
    unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWPID)
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the template
    mount(work_source, work, None, MS_BIND | MS_REC)
    tmpfs(inbox, 4096, mode="0755", read_only=True)  # other submissions' folders: gone
    fresh_tmp(tmp_bytes, staging, keep_in_tmp)
    tmpfs("/dev/shm", shm_bytes)
    loopback_up()


def fresh_tmp(size_bytes: int, staging: str, keep: list[str]) -> None:
    """A new, empty /tmp that still shows ``keep`` (read-only): the interpreter and packages
    of a checkout that lives under /tmp, bound there by bubblewrap. Built at ``staging``
    (the binds need their sources, which a tmpfs on /tmp would cover), then moved."""
    tmpfs(staging, size_bytes)
    for path in keep:
        inside = staging + path[len("/tmp"):]
        os.makedirs(inside, mode=0o755, exist_ok=True)
        mount(path, inside, None, MS_BIND | MS_REC)
        mount(None, inside, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    mount(staging, "/tmp", None, MS_MOVE)


def mount_proc() -> None:
    """In the pid namespace's first process: a /proc that shows only this submission."""
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
