"""A throw-away PostgreSQL server for tests: Debian's binaries, a fresh data folder, a free port.

``postgres_server()`` is a context manager yielding the SQLAlchemy URL of an empty database
(``postgresql+psycopg://postgres@127.0.0.1:<port>/<db>``, psycopg 3 as pinned in
constraints.txt). The cluster is made by ``initdb`` (trust authentication, listening on
127.0.0.1 only, its socket in the data folder) and run by ``pg_ctl`` as the Unix user
``postgres`` when the tests run as root (PostgreSQL refuses to run as root), otherwise as
the current user; it is stopped and its folder deleted on exit.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

from labserver import free_port

DEBIAN_BINARIES = "/usr/lib/postgresql/*/bin"


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps it off PATH), or None."""
    found = sorted(glob.glob(DEBIAN_BINARIES), key=lambda p: int(Path(p).parent.name))
    for folder in reversed(found):
        if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _runner() -> tuple[list[str], int | None]:
    """(command prefix, uid that must own the data folder)."""
    if os.geteuid() != 0:
        return [], None
    user = pwd.getpwnam("postgres")  # Debian's package creates it
    return ["runuser", "-u", "postgres", "--"], user.pw_uid


def _run(command: list[str], folder: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        log = folder / "server.log"
        raise RuntimeError(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout}\n{done.stderr}\n"
                           f"{log.read_text() if log.exists() else ''}")


@contextlib.contextmanager
def postgres_server(database: str = "gradebook"):
    bin_dir = binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (Debian package postgresql)")
    prefix, uid = _runner()
    folder = Path(tempfile.mkdtemp(prefix="gradebook-pg-"))
    data, port = folder / "data", free_port()
    if uid is not None:
        os.chown(folder, uid, -1)
    pg_ctl = [*prefix, str(bin_dir / "pg_ctl"), "-D", str(data)]
    try:
        _run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "--no-sync",
              "-E", "UTF8"], folder)
        options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        _run([*pg_ctl, "-o", options, "-l", str(folder / "server.log"), "-w", "-t", "60", "start"], folder)
        try:
            _run([*prefix, str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                  database], folder)
            yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"
        finally:
            subprocess.run([*pg_ctl, "-m", "immediate", "-w", "stop"], capture_output=True, text=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
