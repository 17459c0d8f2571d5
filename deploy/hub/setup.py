"""A class on one server: users, the shared exchange, the course, the hub's settings (root).

    python -m deploy.hub.setup ROSTER.csv [--root /srv/torch-course] [--port 8000] [ASSIGNMENT ...]

lays out, under ROOT (default /srv/torch-course):

    exchange/               nbgrader's exchange (c.Exchange.root): root's, mode 755, so no
                            user can make another course's folder in it
      <course_id>/          the instructor's, group = the course's group, set-group-id, so
                            inbound/ and every submission in it belong to that group
      received/<course_id>/ root's and the course's group (750): submissions frozen by the
                            exchange's warden (deploy/hub/warden.py), which `course collect` reads
    etc/nbgrader_config.py  THE course's configuration (graders.course.config), owned by the
                            instructor; students' servers read it through JUPYTER_CONFIG_PATH
    etc/roster.csv          the roster without passwords (root's, 644): `course collect` takes
                            only its students' submissions, and maps LMS names (lms_id)
    state/                  the hub's database, cookie secret and pid files (root only)
    runtime/                the interpreter users' servers run, when the venv's is out of
                            their reach (deploy/hub/runtime.py)
    hub.json                what jupyterhub_config.py reads

and the course directory ~INSTRUCTOR/course (mode 700: source/, the gradebook and the
submissions are the instructor's alone), whose nbgrader_config.py is a link to
etc/nbgrader_config.py. It then releases the assignments as the instructor (`course
release`, which publishes them to the exchange) and prints how to start the hub.
"""

from __future__ import annotations

import argparse
import grp
import json
import os
import pwd
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from graders.course.config import COURSE_ID, FILENAME, config_text

from . import roster, runtime, warden

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV = Path(sys.prefix)
DEFAULT_ROOT = Path("/srv/torch-course")
SETTINGS = "hub.json"


@dataclass
class Settings:
    """What jupyterhub_config.py reads (ROOT/hub.json)."""
    course_id: str
    course_dir: str
    instructors: list[str]
    students: list[str]
    python: str
    state: str
    exchange: str
    student_config_path: list[str]
    config_dir: str  # where the course's nbgrader_config.py is (ROOT/etc)
    proxy: str
    ip: str = "127.0.0.1"
    port: int = 8000
    hub_port: int = 8081
    proxy_api_port: int = 8001
    formgrader_port: int = 8002
    # JupyterHub.subdomain_host: every user's server and the formgrader service on an origin of
    # its own (<user>.<host>, formgrader--service.<host>); "" serves them all on the hub's
    subdomain_host: str = ""
    group: str = ""
    passwords: dict[str, str] = field(default_factory=dict)  # set by this run; never written to hub.json

    def write(self, path: Path) -> None:
        data = asdict(self)
        del data["passwords"]
        path.write_text(json.dumps(data, indent=2) + "\n")


def account(username: str) -> pwd.struct_passwd:
    return pwd.getpwnam(username)


def user_env(username: str, python: Path, **extra: str) -> dict[str, str]:
    """A clean environment for a command run as ``username`` (their HOME, the course's
    interpreter first on PATH)."""
    user = account(username)
    env = {"HOME": user.pw_dir, "USER": username, "LOGNAME": username, "SHELL": "/bin/bash",
           "LANG": os.environ.get("LANG", "C.UTF-8"),
           "PATH": f"{python.parent}:/usr/local/bin:/usr/bin:/bin"}
    env.update(extra)
    return env


def as_user(username: str, command: list[str], python: Path, check: bool = True, timeout: float = 900,
            env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``command`` as the Unix user (their groups, home and umask 077), the way their own
    login would; output captured as text."""
    user = account(username)
    done = subprocess.run(command, user=user.pw_uid, group=user.pw_gid,
                          extra_groups=os.getgrouplist(username, user.pw_gid), umask=0o077,
                          env=env or user_env(username, python), cwd=cwd or user.pw_dir,
                          capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} as {username} exited with {done.returncode}:\n"
                           f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def proxy_command() -> str:
    """configurable-http-proxy's path; the hub says so at start when it is missing."""
    return shutil.which("configurable-http-proxy") or "configurable-http-proxy"


def proxy_version() -> str:
    return (HERE / "proxy-version").read_text().strip()


def setup(members: list[roster.Member], root: Path = DEFAULT_ROOT, assignments: list[str] | None = None,
          course_id: str = COURSE_ID, group: str | None = None, reset_passwords: bool = False,
          **ports) -> Settings:
    """Everything but starting the hub (see the module's docstring); idempotent."""
    instructors = [m.username for m in members if m.role == "instructor"]
    students = [m.username for m in members if m.role == "student"]
    if not instructors:
        raise roster.RosterError("the roster names no instructor (role instructor): someone must own the course")
    group = group or f"{course_id}-graders"[:32]
    passwords = roster.create(members, group, reset=reset_passwords)
    owner = account(instructors[0])

    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)
    state, etc, exchange = root / "state", root / "etc", root / "exchange"
    state.mkdir(mode=0o700, exist_ok=True)
    etc.mkdir(mode=0o755, exist_ok=True)
    exchange.mkdir(exist_ok=True)
    os.chown(exchange, 0, 0)
    exchange.chmod(0o755)
    course_exchange = exchange / course_id
    squatted(course_exchange, owner.pw_uid)
    course_exchange.mkdir(exist_ok=True)
    shutil.chown(course_exchange, owner.pw_uid, group)
    course_exchange.chmod(0o2755)
    warden.prepare(exchange, course_id, grp.getgrnam(group).gr_gid)
    python = runtime.for_users(VENV, root / "runtime")
    roster_file = etc / "roster.csv"
    roster.write_public(members, roster_file)

    course_dir = Path(owner.pw_dir) / "course"
    course_dir.mkdir(mode=0o700, exist_ok=True)
    shutil.chown(course_dir, owner.pw_uid, owner.pw_gid)
    config = etc / FILENAME
    if not config.exists():
        config.write_text(config_text(str(exchange), str(course_dir), str(roster_file)))
        shutil.chown(config, owner.pw_uid, owner.pw_gid)
        config.chmod(0o644)
    link = course_dir / FILENAME
    if not link.is_symlink():
        link.unlink(missing_ok=True)
        link.symlink_to(config)
        os.lchown(link, owner.pw_uid, owner.pw_gid)

    settings = Settings(
        course_id=course_id, course_dir=str(course_dir), instructors=instructors, students=students,
        python=str(python), state=str(state), exchange=str(exchange), group=group, proxy=proxy_command(),
        # first wins: the hub's overlay (Assignment List on), the student lab, the course's config
        student_config_path=[str(HERE / "student"), str(REPO / "lab"), str(etc)], config_dir=str(etc),
        passwords=passwords, **ports)
    settings.write(root / SETTINGS)
    if assignments:
        as_user(instructors[0], [str(python), "-m", "graders.cli", "release", *assignments,
                                 "--course-dir", str(course_dir)], python)
    return settings


def squatted(folder: Path, uid: int) -> None:
    """A course folder in the exchange that someone else made (on an exchange that was once
    world-writable, anyone could) is moved aside, not adopted: its outbound/ could hold
    assignments no instructor released."""
    if folder.is_symlink() or (folder.exists() and folder.stat().st_uid not in (0, uid)):
        aside = folder.with_name(f"{folder.name}.squatted-{int(time.time())}")
        folder.rename(aside)
        os.chown(aside, 0, 0, follow_symlinks=False)
        if not aside.is_symlink():
            aside.chmod(0o700)
        print(f"deploy.hub.setup: {folder} was made by someone else than the instructor: moved to {aside}",
              file=sys.stderr)


def start(root: Path, log: Path | None = None) -> subprocess.Popen:
    """JupyterHub on ROOT/hub.json, in its own process group (stop it with the group)."""
    env = dict(os.environ, COURSE_HUB_SETTINGS=str(Path(root) / SETTINGS),
               PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    command = [str(VENV / "bin" / "jupyterhub"), "-f", str(HERE / "jupyterhub_config.py")]
    sink = open(log, "ab") if log else None
    try:
        return subprocess.Popen(command, cwd=Path(root) / "state", env=env, stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    finally:
        if sink:
            sink.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.hub.setup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("roster", type=Path)
    parser.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="released at once (default: none)")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    parser.add_argument("--ip", default="127.0.0.1", help="where the hub listens (put TLS in front for 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--subdomain-host", default="",
                        help="e.g. https://hub.example.org: each user's server and the formgrader on a subdomain "
                             "of their own (needs wildcard DNS and certificate; see docs/deploy.md)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("deploy.hub.setup: run as root (it creates users and starts servers as them)", file=sys.stderr)
        return 2
    try:
        settings = setup(roster.read(args.roster), args.root, args.assignments, ip=args.ip, port=args.port,
                         subdomain_host=args.subdomain_host)
    except (roster.RosterError, RuntimeError) as error:
        print(f"deploy.hub.setup: {error}", file=sys.stderr)
        return 2
    for username, password in settings.passwords.items():
        print(f"new user {username}: password {password}")
    print(f"start the hub: COURSE_HUB_SETTINGS={args.root / SETTINGS} jupyterhub -f {HERE / 'jupyterhub_config.py'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
