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
# The instructor's server: JupyterLab on the course directory with nbgrader's server
# extensions as installed (the formgrader among them), reading the same nbgrader_config.py.
import json
import os
from pathlib import Path

c = get_config()  # noqa: F821 (JupyterHub provides it)
settings = json.loads(Path(os.environ.get("COURSE_HUB_SETTINGS", "/srv/torch-course/hub.json")).read_text())
state = Path(settings["state"])

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
        # the formgrader reads the course's nbgrader_config.py from Jupyter's config path (the
        # server starts in the home directory, not in the course's)
        spawner.environment = {"PATH": PATH, "COURSE_DIR": settings["course_dir"],
                               "JUPYTER_CONFIG_PATH": settings["config_dir"]}
    else:
        spawner.notebook_dir = "~"
        spawner.environment = {"PATH": PATH, "JUPYTER_CONFIG_PATH": os.pathsep.join(settings["student_config_path"])}


c.Spawner.pre_spawn_hook = per_role
