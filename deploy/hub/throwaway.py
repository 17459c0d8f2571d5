"""A throwaway class on this machine, for the tests and the benchmark (root only).

``Throwaway(students=2)`` makes users with fresh names (an instructor ``<tag>i`` and
students ``<tag>s1``, ``<tag>s2``, ...), sets the class up under a new folder in /tmp with
deploy.hub.setup (exchange, course directory, hub settings), and on exit removes the users,
their homes, the course's group and the folder. Nothing of an existing class is touched.
A class with ports gets the hub's settings (the caller starts the hub, which runs the
exchange's warden); one without (``ports=False``, no hub) runs the warden itself, as the
hub would, so that submissions are frozen and collected as on a real server.

The users must reach the repository and the course venv (their servers import them). A
folder on the way that others cannot search (a checkout inside a mode-700 temporary
folder) is given o+x for the class's lifetime when ``grant`` is true, and restored after;
otherwise ``Throwaway`` refuses with the folder's name.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

from . import roster, setup


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# One registry for the whole machine, wherever TMPDIR points: two classes that kept it in two
# places (two test runs with different TMPDIRs) would each give a folder back its mode while
# the other's users still need it, and their servers would fail reading the lab's files.
GRANTS = Path("/run" if os.access("/run", os.W_OK) else tempfile.gettempdir()) / "course-hub-grants.json"


@contextlib.contextmanager
def _grants():
    """{folder: {"mode": its own mode, "classes": how many classes need it searchable}},
    shared by every process on the machine, read and written under a lock."""
    with open(GRANTS.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        grants = json.loads(GRANTS.read_text()) if GRANTS.exists() else {}
        yield grants
        GRANTS.write_text(json.dumps(grants))


def open_way(paths: list[Path]) -> list[Path]:
    """Give o+x to each folder on the way to ``paths`` that others cannot search, or that
    another class opened and still needs; returns the folders this class now holds open."""
    held = []
    with _grants() as grants:
        for path in map(Path, paths):
            way = [*reversed(path.resolve().parents), path.resolve()]
            for folder in [f for f in way if str(f) in grants] + unsearchable(path):
                entry = grants.setdefault(str(folder), {"mode": stat.S_IMODE(folder.stat().st_mode), "classes": 0})
                if folder not in held:
                    entry["classes"] += 1
                    held.append(folder)
                folder.chmod(entry["mode"] | stat.S_IXOTH)
    return held


def close_way(held: list[Path]) -> None:
    """Each folder gets its mode back when the last class holding it open ends."""
    with _grants() as grants:
        for folder in held:
            entry = grants.get(str(folder))
            if entry is not None:
                entry["classes"] -= 1
                if entry["classes"] <= 0:
                    folder.chmod(entry["mode"])
                    del grants[str(folder)]


def unsearchable(path: Path) -> list[Path]:
    """The folders on the way to ``path`` (itself included) that others cannot enter."""
    path = Path(path).resolve()
    return [folder for folder in [*reversed(path.parents), path]
            if folder.is_dir() and not folder.stat().st_mode & stat.S_IXOTH]


class Throwaway:
    def __init__(self, students: int = 2, assignments: list[str] | None = None, grant: bool = False,
                 ports: bool = True):
        self.tag = "c" + secrets.token_hex(3)
        self.instructor = f"{self.tag}i"
        self.students = [f"{self.tag}s{k}" for k in range(1, students + 1)]
        self.assignments, self.grant, self.ports = assignments or [], grant, ports
        self.granted: list[Path] = []
        self.warden: subprocess.Popen | None = None
        self.root: Path | None = None
        self.settings: setup.Settings | None = None

    @property
    def members(self) -> list[roster.Member]:
        return [roster.Member(self.instructor, "instructor", "Instructor"),
                *(roster.Member(name, "student", f"Student {k}") for k, name in enumerate(self.students, 1))]

    def __enter__(self) -> Throwaway:
        try:
            self._reach()
            self.root = Path(tempfile.mkdtemp(prefix=f"course-hub-{self.tag}-"))
            ports = {}
            if self.ports:
                port = free_port()
                # every user's server and the formgrader on an origin of its own, as a real
                # deployment (Chromium resolves every *.localhost to this machine)
                ports = dict(port=port, hub_port=free_port(), proxy_api_port=free_port(), formgrader_port=free_port(),
                             subdomain_host=f"http://localhost:{port}")
            self.settings = setup.setup(self.members, self.root, self.assignments, group=f"{self.tag}-graders",
                                        **ports)
            if not self.ports:
                self.warden = subprocess.Popen(
                    [sys.executable, "-m", "deploy.hub.warden", "--settings", str(self.root / setup.SETTINGS),
                     "--interval", "0.5"], cwd=setup.REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _reach(self) -> None:
        blocked = [folder for path in (setup.REPO, setup.VENV) for folder in unsearchable(path)]
        if blocked and not self.grant:
            raise RuntimeError(f"other users cannot enter {', '.join(map(str, sorted(set(blocked))))}: a class's "
                               f"servers would not reach {setup.REPO} (give those folders o+x, or move the checkout)")
        self.granted = open_way([setup.REPO, setup.VENV])

    def __exit__(self, *exc) -> None:
        if self.warden is not None:
            self.warden.terminate()
            self.warden.wait(timeout=30)
        for problem in roster.remove(self.members):
            print(f"throwaway class {self.tag}: {problem}", file=sys.stderr)
        subprocess.run(["groupdel", f"{self.tag}-graders"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
        close_way(self.granted)

    @property
    def python(self) -> Path:
        return Path(self.settings.python)

    @property
    def course_dir(self) -> Path:
        return Path(self.settings.course_dir)

    def env(self, user: str, **extra: str) -> dict[str, str]:
        """A user's environment, a student's with the student lab's config path (the
        course's nbgrader_config.py among it), as their hub server has."""
        if user in self.students:
            extra.setdefault("JUPYTER_CONFIG_PATH", os.pathsep.join(self.settings.student_config_path))
        return setup.user_env(user, self.python, **extra)

    def run(self, user: str, *command: str, check: bool = True, timeout: float = 900,
            cwd: Path | None = None, **extra: str) -> subprocess.CompletedProcess:
        return setup.as_user(user, [str(c) for c in command], self.python, check=check, timeout=timeout,
                             env=self.env(user, **extra), cwd=cwd)

    def nbgrader(self, user: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """``nbgrader ARGS --course <course_id>`` as ``user`` (a student's fetch, submit, ...)."""
        return self.run(user, str(self.python), "-m", "nbgrader", *args, "--course", self.settings.course_id,
                        check=check)

    def course(self, *args: str, check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess:
        """``course ARGS --course-dir DIR`` as the instructor."""
        return self.run(self.instructor, str(self.python), "-m", "graders.cli", *args,
                        "--course-dir", str(self.course_dir), check=check, timeout=timeout)

    def attempt(self, user: str, action: str, path: Path) -> str:
        """Try, as ``user``, to list / read / write (a new file in the folder) / overwrite /
        rename / delete ``path``: "ALLOWED", or "DENIED <the error>"."""
        return self.run(user, str(self.python), "-c", ATTEMPT, action, str(path)).stdout.strip()


ATTEMPT = r"""
import os, sys
action, path = sys.argv[1], sys.argv[2]
try:
    if action == "list":
        os.listdir(path)
    elif action == "read":
        open(path, "rb").read(1)
    elif action == "write":
        open(os.path.join(path, "planted.ipynb"), "w").write("{}")
    elif action == "overwrite":
        open(path, "w").write("{}")
    elif action == "rename":
        os.rename(path, path + "-moved")
    elif action == "delete":
        os.unlink(path)
    else:
        raise SystemExit(f"unknown action {action}")
    print("ALLOWED")
except PermissionError as error:
    print("DENIED", error)
"""
