"""Local Unix users for a class, from a roster CSV (needs root).

The roster has a header and one row per person::

    username,role,name,password
    ada,student,Ada Lovelace,
    grace,instructor,Grace Hopper,

``role`` is ``student`` or ``instructor``; an empty password gets a random one, printed once
by ``create`` (JupyterHub's PAM login checks it). Each user gets a home directory only they
can enter (mode 700) and their own group, as Debian's useradd gives; instructors are also put
in the course's group, which owns the exchange's inbound folder, so that they, and no
student, can read submissions.

    python -m deploy.hub.roster create ROSTER.csv [--group GROUP]
    python -m deploy.hub.roster remove ROSTER.csv
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
                                      (row.get("password") or "").strip()))
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


def remove(members: list[Member]) -> None:
    """Delete the users and their home directories (their processes must have ended)."""
    for member in members:
        if exists(member.username):
            subprocess.run(["userdel", "--remove", member.username], check=False,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


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
        remove(members)
        return 0
    for username, password in create(members, args.group).items():
        print(f"{username}\t{password}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
