"""A JupyterLab server for the browser tests: started in its own process group, always stopped.

``start_lab`` runs ``jupyter lab`` (or any command that starts one, e.g. ``make lab``) with an
isolated Jupyter config/runtime/settings home, waits until the REST API answers, and returns a
``LabServer``; ``stop`` sends SIGTERM then SIGKILL to the whole process group (kernels
included). Nothing here talks to anything but 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

VENV_BIN = Path(sys.executable).parent
LAB_CONFIG = Path(__file__).resolve().parent.parent / "lab"
URL_WITH_TOKEN = re.compile(r"http://127\.0\.0\.1:(\d+)/lab\?token=([0-9a-zA-Z]+)")

# JupyterLab user settings for a deterministic front end: every cell stays in the DOM (no
# windowing). News, update checks and nbgrader's instructor tools are off through the
# student's lab configuration in lab/ (JUPYTER_CONFIG_PATH), which the tests thereby check.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
QUIET_LAB_ARGS: list[str] = []


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def isolated_env(home: Path) -> dict[str, str]:
    """Environment for a server whose config, runtime files and lab settings live under home."""
    home.mkdir(parents=True, exist_ok=True)
    settings = home / "lab-user-settings"
    for name, values in LAB_SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "matplotlib"),
        "PATH": f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONUNBUFFERED": "1",
        # the student's lab configuration, as `make lab` uses it
        "JUPYTER_CONFIG_PATH": str(LAB_CONFIG),
    })
    return env


def as_root_args() -> list[str]:
    return ["--allow-root"] if os.geteuid() == 0 else []


@dataclass
class LabServer:
    process: subprocess.Popen
    port: int
    token: str
    log: Path
    runtime_dir: Path | None = None
    stopped: bool = field(default=False)
    deleted: dict = field(default_factory=dict)  # {kernel id: when shutdown_kernels deleted it}

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, method: str = "GET", timeout: float = 30):
        request = urllib.request.Request(f"{self.base}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
        return json.loads(body) if body else None

    @contextlib.contextmanager
    def lab_setting(self, plugin: str, values: dict):
        """While open, the JupyterLab user setting file of ``plugin`` ("@jupyterlab/
        docmanager-extension:plugin") holds ``values``; a page opened meanwhile reads it.
        What was there before comes back after."""
        package, name = plugin.split(":")
        path = self.log.parent / "lab-user-settings" / package / f"{name}.jupyterlab-settings"
        before = path.read_text() if path.exists() else None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
        try:
            yield
        finally:
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(before)

    def status(self, path: str, timeout: float = 30) -> int:
        """HTTP status of a GET (for pages such as /lab that answer HTML)."""
        request = urllib.request.Request(f"{self.base}{path}",
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def shutdown_kernels(self) -> None:
        try:
            for kernel in self.api("/api/kernels"):
                self.deleted.setdefault(kernel["id"], time.time())
                self.api(f"/api/kernels/{kernel['id']}", method="DELETE")
        except (OSError, urllib.error.URLError):
            pass

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the process group, then SIGKILL whatever is left of it."""
        if self.stopped:
            return
        self.stopped = True
        if self.process.poll() is None:
            self.shutdown_kernels()
        kill_group(self.process)
        if self.runtime_dir is not None:
            kill_kernels(self.runtime_dir)


def kill_kernels(runtime_dir: Path) -> None:
    """SIGKILL kernels whose connection file lies in runtime_dir (jupyter_client starts each
    kernel in its own session, so killing the server's group does not reach them)."""
    marker = str(runtime_dir).encode()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if marker in cmdline:
            try:
                os.kill(int(proc.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def kill_group(process: subprocess.Popen, grace: float = 15) -> None:
    try:
        pgid = os.getpgid(process.pid)
    except ProcessLookupError:
        process.wait()
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; kernels in the same group may linger a moment.
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def spawn(command: list[str], cwd: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as sink:
        return subprocess.Popen(command, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def wait_for_api(server: LabServer, timeout: float = 180) -> None:
    """Poll /api/status with the token until it answers; fail with the server's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"JupyterLab exited with {server.process.returncode}:\n{server.log_tail()}")
        try:
            server.api("/api/status", timeout=5)
            return
        except (OSError, urllib.error.URLError):
            time.sleep(0.5)
    raise TimeoutError(f"JupyterLab did not answer on {server.base} within {timeout} s:\n{server.log_tail()}")


def wait_for_token(process: subprocess.Popen, log: Path, port: int, timeout: float = 300) -> str:
    """Read the token from the URL a server prints (for servers started by someone else)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(errors="replace") if log.exists() else ""
        for found_port, token in URL_WITH_TOKEN.findall(text):
            if int(found_port) == port:
                return token
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode} before printing its URL:\n{text[-4000:]}")
        time.sleep(0.5)
    raise TimeoutError(f"no URL with a token for port {port} within {timeout} s:\n"
                       f"{log.read_text(errors='replace')[-4000:] if log.exists() else ''}")


def start_lab(root_dir: Path, home: Path, student: bool = True, env: dict | None = None) -> LabServer:
    """jupyter lab on 127.0.0.1, a free port, a random token, no browser, serving root_dir.
    ``student``: with the student's lab configuration (lab/: no instructor tools); without
    it, nbgrader's server extensions are on (the formgrader), as in an instructor's lab, and
    nbgrader reads root_dir's nbgrader_config.py from its working directory. ``env`` adds to
    the server's (and so its kernels') environment, e.g. PYTHONPATH for another helpers/."""
    port, token = free_port(), secrets.token_hex(24)
    command = [str(VENV_BIN / "jupyter"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
               *(QUIET_LAB_ARGS if student else ()), *as_root_args()]
    log = home / "jupyterlab.log"
    home.mkdir(parents=True, exist_ok=True)
    env = {**isolated_env(home), **(env or {})}
    if not student:
        del env["JUPYTER_CONFIG_PATH"]
        env["HOME"] = str(home)
    process = spawn(command, cwd=root_dir, env=env, log=log)
    server = LabServer(process, port, token, log, runtime_dir=home / "runtime")
    try:
        wait_for_api(server)
    except BaseException:
        server.stop()
        raise
    return server


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@contextlib.contextmanager
def chromium():
    """Headless Chromium through Playwright, closed (browser, then driver) however the body ends."""
    from playwright.sync_api import sync_playwright

    playwright = browser = None
    try:
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
    finally:
        try:
            if browser is not None:
                browser.close()
        finally:
            if playwright is not None:
                playwright.stop()
