"""bubblewrap around the runner: what a submission can see, write and reach.

An allowlist, not a blocklist: the sandbox starts from an empty root and binds read-only
only the system (/usr, /etc, /opt, /sys), the Python interpreter and venv, and the two
packages the runner and the notebooks import (graders, helpers — installed editable, so
their source folders themselves must be bound, at the same paths the editable finder
maps). Everything else — the repository, the course directory wherever it is (source/,
release/, gradebook.db, other students), /root and /home, the host's /tmp — is simply
absent. The only writable places are ``workdir`` (the submission's private scratch
copy), a private, size-capped tmpfs /tmp, and a private, capped /dev/shm (where
DataLoader workers pass batches back).

No network: a new network namespace has only its own loopback (the kernel's sockets
work; the host's 127.0.0.1 listeners are unreachable). A new pid namespace whose init
dies with its parent (--die-with-parent) means killing bwrap kills everything the
submission started.

Processes: RLIMIT_NPROC counts per user, and root is exempt from it. So when the grader
runs as root the sandbox runs privileged (no user namespace), and the runner drops to a
uid of its own (``submission_uid``: unique per grading thread, so two parallel gradings
never share a count) before anything else; the kernel launcher then sets RLIMIT_NPROC.
When the grader is not root, bwrap makes a user namespace, and since Linux 5.14 the
count is kept per user namespace, so the limit again covers only this submission.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import graders
import helpers

TMP_BYTES = 512 * 2**20   # /tmp is memory: cap it (RLIMIT_AS does not cover tmpfs)
SHM_BYTES = 256 * 2**20   # DataLoader workers hand batches over in /dev/shm: without it they die
SYSTEM_RO = ("/usr", "/etc", "/opt", "/sys")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")
UID_BASE = 200_000        # far above real accounts; no passwd entry needed


class SandboxUnavailable(RuntimeError):
    pass


def require_bwrap() -> str:
    found = shutil.which("bwrap")
    if not found:
        raise SandboxUnavailable("bwrap not found: install the Debian package bubblewrap "
                                 "(apt-get install bubblewrap), or grade with --no-sandbox "
                                 "(runs student code unconfined)")
    return found


def privileged() -> bool:
    return os.geteuid() == 0


def submission_uid() -> int | None:
    """The uid the runner drops to when the grader is root; None when it is not. One per
    grading thread: a Linux thread id is unique among the machine's live threads and
    processes (a single-threaded process's is its pid), so submissions graded side by side,
    by threads of one process or by other processes, never share a uid or its process count."""
    return UID_BASE + threading.get_native_id() if privileged() else None


def python_paths() -> list[Path]:
    """What the interpreter needs: the venv, the base installation it links to, and any other
    site-packages folder on sys.path (a .pth file's: deploy/hub/runtime.py makes a venv that
    borrows the course venv's packages that way, for users who cannot run its interpreter)."""
    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(),
             Path(sys.executable).resolve().parent.parent}
    for entry in sys.path:
        folder = Path(entry).resolve() if entry.endswith(("site-packages", "dist-packages")) else None
        if folder and folder.is_dir() and not any(folder.is_relative_to(p) for p in paths):
            paths.add(folder)
    return sorted(paths)


def package_paths() -> list[Path]:
    """The source folders of the editable packages, where the editable finder maps them."""
    return [Path(p).resolve() for pkg in (graders, helpers) for p in pkg.__path__]


def _system(made: set[Path]) -> list[str]:
    """bwrap's arguments for what every sandbox has: the namespaces, the read-only system,
    interpreter and packages, a private /dev, /proc, /dev/shm and /tmp."""
    cmd = [require_bwrap(), "--die-with-parent", "--new-session",
           "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
           "--unshare-cgroup-try", "--hostname", "sandbox"]
    for path in SYSTEM_RO:
        if os.path.isdir(path):
            cmd += ["--ro-bind", path, path]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
    cmd += ["--dev", "/dev", "--proc", "/proc",
            "--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm",
            "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    made.update({Path("/"), Path("/tmp")})
    for path in bound_paths():
        cmd += _parents(path, made) + ["--ro-bind", str(path), str(path)]
    return cmd


def bound_paths() -> list[Path]:
    """The interpreter's and the packages' folders, bound read-only where they are."""
    return [p for p in python_paths() + package_paths() if not str(p).startswith(SYSTEM_RO)]


def wrap(argv: list[str], workdir: Path, limits) -> list[str]:
    """The bwrap command line that runs ``argv`` contained, with ``workdir`` writable."""
    made: set[Path] = set()
    cmd = _system(made)
    workdir = Path(workdir).resolve()
    cmd += _parents(workdir, made) + ["--bind", str(workdir), str(workdir), "--chdir", str(workdir)]
    uid = submission_uid()
    if uid is not None:
        # the runner calls setuid(uid) first thing; these caps are lost with it
        cmd += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        argv = [*argv, "--drop-to", str(uid)]
    return [*cmd, "--", *argv]


# what the template (graders.sandbox.template, trusted code only) needs to make each
# submission's namespaces and mounts and then drop to the submission's uid, which loses them
TEMPLATE_CAPS = ("CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETUID", "CAP_SETGID")


def wrap_template(argv: list[str], inbox: Path, inside_inbox: str, inside_work: str,
                  inside_staging: str) -> list[str]:
    """The template's sandbox: the same system view, ``inbox`` (where the grader puts each
    submission's folder) at ``inside_inbox``, an empty mount point for the submission's folder,
    and the capabilities to make namespaces. Only for a root grader (``privileged``)."""
    made: set[Path] = set()
    cmd = _system(made)
    cmd += _parents(Path(inside_inbox), made) + ["--bind", str(Path(inbox).resolve()), inside_inbox]
    cmd += ["--perms", "0755", "--dir", inside_work, "--perms", "0755", "--dir", inside_staging, "--chdir", "/"]
    for cap in TEMPLATE_CAPS:
        cmd += ["--cap-add", cap]
    return [*cmd, "--", *argv]


def _parents(path: Path, made: set[Path]) -> list[str]:
    """Traversable (0755) mount points: bwrap would make them 0700, closed to the dropped uid."""
    args = []
    for parent in reversed(path.parents):
        if parent not in made:
            made.add(parent)
            args += ["--perms", "0755", "--dir", str(parent)]
    return args


def hand_over(workdir: Path) -> tuple[int, int] | None:
    """Give the scratch copy to the submission's uid; return the owner to restore."""
    uid = submission_uid()
    if uid is None:
        return None
    st = os.stat(workdir)
    _chown_tree(workdir, uid, uid)
    return st.st_uid, st.st_gid


def take_back(workdir: Path, owner: tuple[int, int] | None) -> None:
    """Return the scratch copy to its owner, never following links the submission made."""
    if owner is not None:
        _chown_tree(workdir, *owner)


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    os.lchown(root, uid, gid)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            try:
                os.lchown(os.path.join(dirpath, name), uid, gid)
            except FileNotFoundError:
                pass
