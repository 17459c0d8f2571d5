# JupyterHub 6 for one class on one server: local Unix users, PAM login, each user's server
# started as that user (LocalProcessSpawner), configurable-http-proxy in front.
#
#   jupyterhub -f deploy/hub/jupyterhub_config.py      (as root, with COURSE_HUB_SETTINGS set)
#
# Everything specific to a class (users, ports, paths, the interpreter users' servers run)
# lives in the JSON file that `python -m deploy.hub.setup` writes (COURSE_HUB_SETTINGS,
# default /srv/torch-course/hub.json); this file only turns it into JupyterHub settings.
#
# Students' servers: the student lab of lab/ (Validate, no instructor tools) with the
# overlay deploy/hub/student/ in front of it (the Assignment List: fetch, submit, fetch
# feedback), and the course's nbgrader_config.py (the exchange) from the hub's config folder.
# The instructor's server: JupyterLab on the course directory (the overlay deploy/hub/instructor/:
# no formgrader in it, no news), reading the same nbgrader_config.py.
# Two services the hub runs: the formgrader (deploy/hub/formgrader.py, as the instructor: a
# server with the formgrader alone, on an origin of its own when subdomain_host is set) and the
# exchange's warden (deploy/hub/warden.py, as root: each submission frozen as it arrives).
import json
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub provides it)
SETTINGS = Path(os.environ.get("COURSE_HUB_SETTINGS", "/srv/torch-course/hub.json"))
settings = json.loads(SETTINGS.read_text())
state = Path(settings["state"])
HERE = Path(__file__).resolve().parent

c.JupyterHub.bind_url = f"http://{settings['ip']}:{settings['port']}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{settings['hub_port']}"
c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")
c.ConfigurableHTTPProxy.command = [settings["proxy"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings['proxy_api_port']}"
c.ConfigurableHTTPProxy.pid_file = str(state / "proxy.pid")
# users' servers stop with the hub (a class restarts clean)
c.JupyterHub.cleanup_servers = True
# each user's server, and the formgrader, on an origin of its own (<name>.<host>): a script in
# one page cannot use another's cookies or API (needs wildcard DNS; see docs/deploy.md)
if settings.get("subdomain_host"):
    c.JupyterHub.subdomain_host = settings["subdomain_host"]

# Log in with the Unix password; only the roster's users; instructors are hub admins.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False
c.Authenticator.allowed_users = set(settings["students"]) | set(settings["instructors"])
c.Authenticator.admin_users = set(settings["instructors"])

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [settings["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
# a busy two-core machine imports JupyterLab and torch slowly
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.env_keep = ["LANG", "LC_ALL"]
PATH = f"{Path(settings['python']).parent}:/usr/local/bin:/usr/bin:/bin"
# a terminal runs bash, not a login shell (Jupyter's default under a spawner): /etc/profile
# would reset PATH, and `course`, `nbgrader` and python would no longer be the course's
c.Spawner.args = ["--ServerApp.terminado_settings=shell_command=/bin/bash"]


def per_role(spawner):
    """The student's lab, or the instructor's on the course directory."""
    if spawner.user.name in settings["instructors"]:
        spawner.notebook_dir = settings["course_dir"]
        # `course` and nbgrader read the course's nbgrader_config.py from Jupyter's config path
        # (the server starts in the home directory, not in the course's)
        spawner.environment = {"PATH": PATH, "COURSE_DIR": settings["course_dir"],
                               "JUPYTER_CONFIG_PATH": os.pathsep.join([str(HERE / "instructor"),
                                                                       settings["config_dir"]])}
    else:
        spawner.notebook_dir = "~"
        spawner.environment = {"PATH": PATH, "JUPYTER_CONFIG_PATH": os.pathsep.join(settings["student_config_path"])}


c.Spawner.pre_spawn_hook = per_role


# The formgrader, served by the hub as a service (deploy/hub/formgrader.py) run as the first
# instructor on the course directory; the instructors may use it (Services menu of the hub).
c.JupyterHub.services = [
    {"name": "formgrader", "url": f"http://127.0.0.1:{settings.get('formgrader_port', 8002)}", "display": True,
     "user": settings["instructors"][0], "cwd": settings["course_dir"], "oauth_no_confirm": True,
     "command": [settings["python"], "-c", "from deploy.hub.formgrader import main; main()",
                 f"--ServerApp.root_dir={settings['course_dir']}"],
     "environment": {"PATH": PATH, "PYTHONPATH": str(HERE.parents[1]), "JUPYTER_CONFIG_PATH": settings["config_dir"]}},
    # root: it gives each submission to root and the course's group
    {"name": "exchange-warden", "command": [sys.executable, "-m", "deploy.hub.warden", "--settings", str(SETTINGS)],
     "cwd": str(HERE.parents[1]), "environment": {"PYTHONPATH": str(HERE.parents[1])}},
]
c.JupyterHub.load_roles = [
    {"name": "formgrader-users", "scopes": ["access:services!service=formgrader"],
     "users": list(settings["instructors"])},
]
