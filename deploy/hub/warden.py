"""The exchange's warden: every submission frozen once it has settled (root).

    python -m deploy.hub.warden --settings /srv/torch-course/hub.json [--once]

A student's submit runs as that student (nbgrader's submit is their own process), so they
own the folder it makes in exchange/<course>/inbound/ and could change it, or its name and
timestamp.txt, at any time. The hub runs this warden as a managed service (as root, see
jupyterhub_config.py). It watches inbound; once a folder has not changed for ``--settle``
seconds it copies the folder's regular files (graders.course.regular_files: no link is
followed, hard links, FIFOs and devices are refused, sizes capped) into
exchange/received/<course>/<the same name>/, owned by root and the course's group (folders
750, files 640: instructors read, nobody writes), with warden.json beside them:

    owner      the Unix user who made the folder (its owner: nobody can give a file away)
    changed    the latest change time (ctime) of the folder and its files: no user can set
               a ctime, so this is the submission's time; the name's is only claimed
    received   when the warden froze it
    refused    what was not copied, each with why

then removes the student's folder from inbound. `course collect` (CheckedCollect) reads
received/; a folder still in inbound is reported as waiting. Every path is opened by file
descriptor without following links, from the root-owned exchange down, so nothing a student
or an instructor links or renames sends root's reads, writes or deletions elsewhere.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pwd
import secrets
import shutil
import signal
import stat
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from graders.course import regular_files

RECORD = "warden.json"
FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
log = logging.getLogger("warden")


def received_dir(exchange: Path, course_id: str) -> Path:
    """Where frozen submissions go (graders.course.collect reads it)."""
    return Path(exchange) / "received" / course_id


def prepare(exchange: Path, course_id: str, gid: int) -> Path:
    """exchange/received/ (root, 755) and its course folder (root and the course's group, 750)."""
    top = Path(exchange) / "received"
    top.mkdir(mode=0o755, exist_ok=True)
    os.chown(top, 0, 0)
    top.chmod(0o755)
    folder = top / course_id
    folder.mkdir(mode=0o750, exist_ok=True)
    os.chown(folder, 0, gid)
    folder.chmod(0o750)
    return folder


def _utc(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class Warden:
    def __init__(self, exchange: Path, course_id: str, gid: int, settle: float = 2.0,
                 limits: regular_files.Limits | None = None):
        self.exchange, self.course_id, self.gid = Path(exchange), course_id, gid
        self.settle, self.limits = settle, limits or regular_files.Limits()

    def sweep(self) -> list[str]:
        """Freeze every settled folder in inbound; the names frozen."""
        frozen = []
        top = os.open(self.exchange, FOLDER)
        try:
            course = os.open(self.course_id, FOLDER, dir_fd=top)
            try:
                inbound = os.open("inbound", FOLDER, dir_fd=course)
            except FileNotFoundError:
                return frozen  # nothing released yet
            finally:
                os.close(course)
            received = os.open(f"received/{self.course_id}", FOLDER, dir_fd=top)
            try:
                info = os.fstat(received)
                if info.st_uid != 0 or info.st_mode & 0o022:
                    raise PermissionError(f"{self.exchange}/received/{self.course_id} is not root's alone")
                for name in sorted(os.listdir(inbound)):
                    try:
                        if self._freeze(inbound, received, name):
                            frozen.append(name)
                    except OSError as error:  # one bad entry must not stop the others
                        log.error("could not freeze %s: %s", name, error)
            finally:
                os.close(inbound)
                os.close(received)
        finally:
            os.close(top)
        return frozen

    def _freeze(self, inbound: int, received: int, name: str) -> bool:
        info = os.stat(name, dir_fd=inbound, follow_symlinks=False)
        record = {"name": name, "owner": _owner(info.st_uid), "uid": info.st_uid, "refused": []}
        now = time.time()
        if not stat.S_ISDIR(info.st_mode):
            if now - info.st_ctime < self.settle:
                return False
            record.update(changed=_utc(info.st_ctime), received=_utc(now), files=[],
                          refused_whole=f"{regular_files.kind(info.st_mode)}, not a folder: nothing was collected")
            self._place(received, name, None, record)
            os.unlink(name, dir_fd=inbound)
            return True
        look = regular_files.copy_regular(name, None, self.limits, dir_fd=inbound)
        if now - look.changed < self.settle:
            return False  # still being written
        staging = f".incoming-{secrets.token_hex(6)}"
        os.mkdir(staging, 0o700, dir_fd=received)
        try:
            where = Path(f"/proc/self/fd/{received}") / staging / "submission"
            copied = regular_files.copy_regular(name, where, self.limits, file_mode=0o640, dir_mode=0o750,
                                                dir_fd=inbound)
            record.update(changed=_utc(copied.changed), received=_utc(time.time()), files=copied.files,
                          refused=[list(item) for item in copied.refused])
            self._place(received, name, staging, record)
        finally:
            shutil.rmtree(staging, dir_fd=received, ignore_errors=True)
        shutil.rmtree(name, dir_fd=inbound)
        log.info("froze %s (owner %s, %d files, %d refused)", name, record["owner"], len(record["files"]),
                 len(record["refused"]))
        return True

    def _place(self, received: int, name: str, staging: str | None, record: dict) -> None:
        """The copy (or an empty folder) with its record, moved to received/<course>/<name>."""
        if staging is None:
            staging = f".incoming-{secrets.token_hex(6)}"
            os.mkdir(staging, 0o700, dir_fd=received)
            os.mkdir(f"{staging}/submission", 0o750, dir_fd=received)
        folder = f"{staging}/submission"
        handle = os.open(f"{folder}/{RECORD}", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640,
                         dir_fd=received)
        with os.fdopen(handle, "w") as out:
            json.dump(record, out, indent=1)
        base = Path(f"/proc/self/fd/{received}") / folder
        for path in [base, *base.rglob("*")]:
            os.chown(path, 0, self.gid, follow_symlinks=False)
        target, n = name, 1
        while _exists(target, received):
            n += 1
            head, _, tail = name.rpartition("+")
            target = f"{head}+{tail}-{n}"
        os.rename(folder, target, src_dir_fd=received, dst_dir_fd=received)


def _exists(name: str, folder: int) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
        return True
    except FileNotFoundError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.hub.warden", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settings", type=Path, required=True, help="the class's hub.json")
    parser.add_argument("--once", action="store_true", help="one sweep, then exit")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between sweeps")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds a folder must stay unchanged before it is frozen")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(levelname).1s %(asctime)s warden] %(message)s")
    if os.geteuid() != 0:
        print("warden: run as root (it gives each submission to root and the course's group)", file=sys.stderr)
        return 2
    import grp
    settings = json.loads(args.settings.read_text())
    gid = grp.getgrnam(settings["group"]).gr_gid
    prepare(Path(settings["exchange"]), settings["course_id"], gid)
    warden = Warden(Path(settings["exchange"]), settings["course_id"], gid, settle=args.settle)
    log.info("watching %s/%s/inbound", settings["exchange"], settings["course_id"])
    # the hub stops its services with SIGINT or SIGTERM: between two sweeps, quietly
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            try:
                warden.sweep()
            except OSError as error:
                log.error("%s", error)
            if args.once:
                return 0
            time.sleep(args.interval)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
