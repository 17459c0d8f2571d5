"""`make hub`: a demo class on this machine, then JupyterHub in the foreground (root).

Creates the users of deploy/hub/demo-roster.csv (one instructor, two students) with fresh
random passwords, sets the class up under /srv/torch-course-demo (deploy.hub.setup),
releases 01_tensors, prints the URL and who can log in, and runs the hub until Ctrl-C.

    make hub [HUB_PORT=8000] [HUB_IP=127.0.0.1] [HUB_ASSIGNMENTS="01_tensors 02_autograd"]

Remove the demo afterwards: python -m deploy.hub.roster remove deploy/hub/demo-roster.csv
and rm -r /srv/torch-course-demo.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from . import roster, setup
from .throwaway import unsearchable

HERE = Path(__file__).resolve().parent
ROSTER = HERE / "demo-roster.csv"
ROOT = Path("/srv/torch-course-demo")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make hub", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("assignments", nargs="*", default=["01_tensors"])
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("make hub: run as root (it creates the demo's Unix users and starts servers as them)", file=sys.stderr)
        return 2
    blocked = [folder for path in (setup.REPO, setup.VENV) for folder in unsearchable(path)]
    if blocked:
        print(f"make hub: other users cannot enter {', '.join(map(str, blocked))}, so the students' servers could "
              f"not import the course: give those folders o+x or put the checkout elsewhere", file=sys.stderr)
        return 2
    members = roster.read(ROSTER)
    # on this machine, every user's server and the formgrader get an origin of their own
    # (<name>.localhost, which browsers resolve to this machine)
    subdomains = f"http://localhost:{args.port}" if args.ip == "127.0.0.1" else ""
    settings = setup.setup(members, args.root, args.assignments, reset_passwords=True, ip=args.ip, port=args.port,
                           subdomain_host=subdomains)
    hub = setup.start(args.root, log=args.root / "state" / "jupyterhub.log")
    host = "localhost" if args.ip in ("127.0.0.1", "0.0.0.0") else args.ip
    print(f"\nJupyterHub for the demo class: http://{host}:{args.port}/  (log: {args.root}/state/jupyterhub.log)")
    print(f"released: {', '.join(args.assignments)}; the course directory: {settings.course_dir}")
    for member in members:
        print(f"  {member.role:<10} {member.username:<16} password {settings.passwords[member.username]}")
    print("The formgrader: the hub's home page, Services > formgrader. "
          "The instructor grades in a terminal of their lab:  course collect 01_tensors && course autograde "
          "01_tensors && course feedback 01_tensors && course return 01_tensors   (Ctrl-C stops the hub)\n",
          flush=True)
    try:
        return hub.wait()
    except KeyboardInterrupt:
        os.killpg(hub.pid, signal.SIGTERM)
        return hub.wait()


if __name__ == "__main__":
    sys.exit(main())
