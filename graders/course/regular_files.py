"""Copy a folder that someone else controls: regular files only, never through a link.

A student owns their submission's folder in the exchange and can put anything in it: a
symbolic link to the instructor's files (a copier running as the instructor or as root
would follow it), a hard link, a FIFO that blocks its reader, a file of gigabytes, or swap
one of these in while the copy runs. ``copy_regular`` walks the folder by file descriptors
(each name opened relative to its folder's descriptor with O_NOFOLLOW, so no name is ever
resolved through a link), copies the regular files that have one name, up to a size cap
per file and per folder, and returns what it refused with the reason. It also reports the
latest change time (ctime) it saw: no user can set a ctime, so it is a time a student
cannot backdate.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

MB = 1024 * 1024


@dataclass
class Limits:
    file_bytes: int = 50 * MB
    total_bytes: int = 100 * MB
    entries: int = 500
    depth: int = 8


@dataclass
class Copy:
    files: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    bytes: int = 0
    changed: float = 0.0  # the latest ctime seen, the folder's own included

    def refuse(self, path: str, why: str) -> None:
        self.refused.append((path, why))


class NotAFolder(ValueError):
    """The top of the copy is not a folder (a link to one counts as not)."""


def kind(mode: int) -> str:
    """What a file that is not a regular one is, in words."""
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a folder" if stat.S_ISDIR(mode) else "not a regular file")


def copy_regular(source: Path | str, dest: Path | None, limits: Limits | None = None, file_mode: int = 0o600,
                 dir_mode: int = 0o700, dir_fd: int | None = None) -> Copy:
    """Copy ``source``'s regular files into ``dest`` (created; None: only look), refusing
    everything else (see the module's docstring). ``dir_fd``: ``source`` is a name in that
    open folder (so no link on the way to it is followed either)."""
    limits = limits or Limits()
    result = Copy()
    try:
        top = os.open(source, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as error:
        try:
            mode = os.stat(source, dir_fd=dir_fd, follow_symlinks=False).st_mode
        except OSError:
            mode = 0
        raise NotAFolder(f"{source} is {kind(mode) if mode else 'missing'} ({error.strerror})") from None
    try:
        info = os.fstat(top)
        result.changed = info.st_ctime
        if dest is not None:
            os.mkdir(dest, dir_mode)
        _walk(top, "", dest, limits, result, file_mode, dir_mode, 0)
    finally:
        os.close(top)
    return result


def _walk(folder: int, prefix: str, dest: Path | None, limits: Limits, result: Copy, file_mode: int,
          dir_mode: int, depth: int) -> None:
    for name in sorted(os.listdir(folder)):
        path = prefix + name
        if len(result.files) + len(result.refused) >= limits.entries:
            result.refuse(path, f"more than {limits.entries} entries in the submission")
            continue
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            result.refuse(path, "removed while it was being copied")
            continue
        result.changed = max(result.changed, info.st_ctime)
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(name, dir_fd=folder)
            except OSError:
                target = "?"
            result.refuse(path, f"a symbolic link (to {target}): links are never followed")
        elif stat.S_ISDIR(info.st_mode):
            if depth + 1 >= limits.depth:
                result.refuse(path + "/", f"folders nested deeper than {limits.depth}")
                continue
            try:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            except OSError as error:
                result.refuse(path + "/", f"could not be opened as a folder ({error.strerror})")
                continue
            try:
                if not _same(os.fstat(inner), info):
                    result.refuse(path + "/", "replaced while it was being copied")
                    continue
                if dest is not None:
                    os.mkdir(dest / path, dir_mode)
                _walk(inner, path + "/", dest, limits, result, file_mode, dir_mode, depth + 1)
            finally:
                os.close(inner)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(folder, name, path, info, dest, limits, result, file_mode)
        else:
            result.refuse(path, f"{kind(info.st_mode)}: only regular files are collected")


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino) and stat.S_IFMT(a.st_mode) == stat.S_IFMT(b.st_mode)


def _copy_file(folder: int, name: str, path: str, info: os.stat_result, dest: Path | None, limits: Limits,
               result: Copy, file_mode: int) -> None:
    if info.st_nlink != 1:
        result.refuse(path, f"a hard link ({info.st_nlink} names for one file): only files with one name "
                            "are collected")
        return
    if info.st_size > limits.file_bytes:
        result.refuse(path, f"too large ({info.st_size} bytes; the limit is {limits.file_bytes} per file)")
        return
    if result.bytes + info.st_size > limits.total_bytes:
        result.refuse(path, f"over the submission's size limit ({limits.total_bytes} bytes in all)")
        return
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat above opens without waiting for a writer
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:
        result.refuse(path, f"could not be opened ({error.strerror})")
        return
    try:
        opened = os.fstat(handle)
        if not _same(opened, info) or opened.st_nlink != 1:
            result.refuse(path, "replaced while it was being copied")
            return
        cap = min(limits.file_bytes, limits.total_bytes - result.bytes)
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(handle, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            result.refuse(path, f"grew past the size limit ({cap} bytes) while it was being copied")
            return
        result.changed = max(result.changed, os.fstat(handle).st_ctime)
    finally:
        os.close(handle)
    if dest is not None:
        out = os.open(dest / path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, file_mode)
        try:
            os.write(out, b"".join(chunks))
        finally:
            os.close(out)
    result.files.append(path)
    result.bytes += size
