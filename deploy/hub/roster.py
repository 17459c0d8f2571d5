"""Local Unix users for a class, from a roster CSV (needs root).

The roster has a header and one row per person::

    username,role,name,password,lms_id
    ada,student,Ada Lovelace,,lovelaceada
    grace,instructor,Grace Hopper,,

``role`` is ``student`` or ``instructor``; an empty password gets a random one, printed once
by ``create`` (JupyterHub's PAM login checks it). ``lms_id`` (optional) is the name your LMS
puts in the file names of its submission downloads (Canvas: lastnamefirstname), so that
`course collect --zip` files each under the student's user name. Each user gets a home directory only they
can enter (mode 700) and their own group, as Debian's useradd gives; instructors are also put
in the course's group, which owns the exchange's inbound folder, so that they, and no
student, can read submissions.

    python -m deploy.hub.roster create ROSTER.csv [--group GROUP]
    python -m deploy.hub.roster remove ROSTER.csv     (stop the hub first: a user with a
                                                      running process cannot be removed)
"""

from __future__ import annotations

import argparse
import csv
import grp
import pwd
import re
import secrets
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROLES = ("student", "instructor")
# what useradd accepts on Debian without --badname, and what nbgrader accepts as a student id
# (no '+', which separates the fields of a submission's name in the exchange)
NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


class RosterError(ValueError):
    pass


@dataclass
class Member:
    username: str
    role: str
    name: str = ""
    password: str = ""
    lms_id: str = ""


def read(path: Path) -> list[Member]:
    """The roster's rows, checked: a bad row is named with its line, nothing is created."""
    members, problems = [], []
    with open(path, newline="") as handle:
        rows = csv.DictReader(handle)
        missing = {"username", "role"} - set(rows.fieldnames or [])
        if missing:
            raise RosterError(f"{path}: the header lacks {', '.join(sorted(missing))} "
                              f"(expected username,role,name,password)")
        for line, row in enumerate(rows, start=2):
            username, role = (row.get("username") or "").strip(), (row.get("role") or "").strip().lower()
            if not NAME.match(username):
                problems.append(f"line {line}: {username!r} is not a valid user name (lower case letters, digits, "
                                f"_ and -, starting with a letter or _, at most 32)")
            elif role not in ROLES:
                problems.append(f"line {line}: role {role!r} is not one of {', '.join(ROLES)}")
            elif username in {m.username for m in members}:
                problems.append(f"line {line}: {username} appears twice")
            else:
                members.append(Member(username, role, (row.get("name") or "").strip(),
                                      (row.get("password") or "").strip(), (row.get("lms_id") or "").strip()))
    if problems:
        raise RosterError(f"{path}:\n  " + "\n  ".join(problems))
    return members


def exists(username: str) -> bool:
    try:
        pwd.getpwnam(username)
        return True
    except KeyError:
        return False


def ensure_group(group: str) -> None:
    try:
        grp.getgrnam(group)
    except KeyError:
        subprocess.run(["groupadd", group], check=True)


def create(members: list[Member], group: str | None = None, reset: bool = False) -> dict[str, str]:
    """Create each missing user (an existing one keeps its password unless ``reset``) and
    put instructors in ``group``; returns {username: password} for the passwords set now."""
    if group:
        ensure_group(group)
    passwords = {}
    for member in members:
        new = not exists(member.username)
        if new:
            subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash",
                            "--comment", member.name or member.username, member.username], check=True)
            Path(pwd.getpwnam(member.username).pw_dir).chmod(0o700)
        if new or reset:
            password = member.password or secrets.token_urlsafe(9)
            subprocess.run(["chpasswd"], input=f"{member.username}:{password}\n", text=True, check=True)
            passwords[member.username] = password
        if group and member.role == "instructor":
            subprocess.run(["usermod", "--append", "--groups", group, member.username], check=True)
    return passwords


def write_public(members: list[Member], path: Path) -> None:
    """The roster without passwords (username,role,name,lms_id), root's and readable by all:
    `course collect` reads it (graders.course.collect)."""
    with open(path, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["username", "role", "name", "lms_id"])
        for member in members:
            out.writerow([member.username, member.role, member.name, member.lms_id])
    Path(path).chmod(0o644)


def processes(username: str) -> list[int]:
    """The ids of the user's running processes."""
    uid = pwd.getpwnam(username).pw_uid
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and proc.stat().st_uid == uid:
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def remove(members: list[Member]) -> list[str]:
    """Delete the users and their home directories; the problems (a user with running
    processes is left in place: stop the hub first, which stops their servers)."""
    problems = []
    for member in members:
        if not exists(member.username):
            continue
        running = processes(member.username)
        if running:
            problems.append(f"{member.username}: not removed, {len(running)} process(es) still run as this user "
                            f"(stop the hub first; pids {', '.join(map(str, running[:5]))})")
            continue
        done = subprocess.run(["userdel", "--remove", member.username], capture_output=True, text=True)
        # userdel exits 12 when it could not remove the home directory or mail spool, having
        # removed the user; a missing mail spool (its only complaint on most servers) is no problem
        said = [line for line in done.stderr.splitlines() if "mail spool" not in line]
        if exists(member.username) or said:
            problems.append(f"{member.username}: userdel exited {done.returncode}: {' '.join(said) or 'user remains'}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.hub.roster", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("create", "remove"))
    parser.add_argument("roster", type=Path)
    parser.add_argument("--group", help="the course's group, given to instructors")
    args = parser.parse_args(argv)
    try:
        members = read(args.roster)
    except (OSError, RosterError) as error:
        print(f"roster: {error}", file=sys.stderr)
        return 2
    if args.action == "remove":
        problems = remove(members)
        for problem in problems:
            print(f"roster: {problem}", file=sys.stderr)
        return 1 if problems else 0
    for username, password in create(members, args.group).items():
        print(f"{username}\t{password}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
