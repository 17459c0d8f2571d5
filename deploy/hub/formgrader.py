"""The formgrader as a JupyterHub service: a Jupyter server with nothing but the formgrader.

The hub starts it as the instructor (jupyterhub_config.py, ``c.JupyterHub.services``) on the
course directory; instructors reach it from the hub's Services menu. It is a Jupyter server
with JupyterHub's login and nbgrader's formgrader extension and no other: no contents, files,
kernels, terminals, sessions, config or nbconvert API, so a script that ever ran in one of its
pages (the pages render sanitized outputs, graders.feedback.sanitize) could not read the
course's files, write one, or start a kernel or a shell; it could only call the formgrader's own
API. With ``subdomain_host`` set (deploy/hub/setup.py --subdomain-host) it is served from an
origin of its own (formgrader--service.<host>), so such a script cannot reach the instructor's
lab either: that is the deployment docs/deploy.md recommends, and the one the tests run.

    python -c "from deploy.hub.formgrader import main; main()"   (with the JUPYTERHUB_* environment
                                                                  the hub gives a service)
"""

from __future__ import annotations

from jupyter_server.serverapp import ServerApp
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupyterhub.singleuser.extension import JupyterHubSingleUser

# what jupyter_server serves besides the extensions: the login and the CSP report only
SERVICES = ("auth", "security")


class NoFileHandlers(AsyncLargeFileManager):
    """The contents manager the formgrader reads the course directory with, without the
    /files/ handler a contents manager adds to the server."""

    def get_extra_handlers(self):
        return []


class FormgraderServer(ServerApp):
    name = "formgrader-service"
    default_services = SERVICES


class FormgraderService(JupyterHubSingleUser):
    """JupyterHub's single-user extension, on FormgraderServer, with the formgrader alone."""

    name = app_namespace = "formgrader-service"
    serverapp_class = FormgraderServer
    load_other_extensions = False
    serverapp_config = {
        "jpserver_extensions": {"nbgrader.server_extensions.formgrader": True},
        "contents_manager_class": NoFileHandlers,
        "default_url": "/formgrader",
        "terminals_enabled": False,
    }


    @classmethod
    def get_extension_package(cls):
        return __name__


def _jupyter_server_extension_points():
    return [{"module": __name__, "app": FormgraderService}]


main = FormgraderService.launch_instance
