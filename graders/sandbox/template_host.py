"""The grader's side of a template sandbox (graders.sandbox.template): start it, hand it one
submission at a time, and kill and restart it whenever anything is not as expected.

One per worker process (``shared``). A submission's scratch folder must be made in the
template's inbox (``inbox()``) so that the template can bind it; ``execute`` falls back to a
fresh bubblewrap per submission for a folder elsewhere, for a grader that is not root
(the template needs to make namespaces and then drop to the submission's uid), and when
the template cannot start.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import bwrap
from .template import INBOX, STAGING, WORK, read_frame, write_frame

READY_S = 180  # a cold start imports torch with a cold disk cache


class TemplateUnavailable(RuntimeError):
    pass


class Template:
    def __init__(self, preload: list[str]):
        self.preload = list(preload)
        self.proc: subprocess.Popen | None = None
        self.frames: queue.Queue = queue.Queue()
        self.stderr_tail = bytearray()
        self.ready = False
        self.failed_imports: dict = {}
        self.unbilled_cpu = 0.0  # the template's start, charged to the first submission after it
        self._inbox = Path(tempfile.mkdtemp(prefix="graders-inbox-"))
        os.chmod(self._inbox, 0o755)

    def inbox(self) -> Path:
        return self._inbox

    def start(self) -> None:
        """Start it without waiting for its imports (``execute`` waits)."""
        if self.proc is not None and self.proc.poll() is None:
            return
        argv = bwrap.wrap_template([sys.executable, "-m", "graders.sandbox.template", *self.preload],
                                   self._inbox, INBOX, WORK, STAGING)
        from .execute import child_env
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=child_env(Path(WORK), "/tmp"),
                                     start_new_session=True)
        self.frames, self.ready, self.stderr_tail = queue.Queue(), False, bytearray()
        threading.Thread(target=self._read_frames, args=(self.proc, self.frames), daemon=True).start()
        threading.Thread(target=self._drain_stderr, args=(self.proc,), daemon=True).start()

    def _read_frames(self, proc, frames: queue.Queue) -> None:
        cap = 64 * 2**20 + 4 * 2**30  # the runner's result is capped by max_output_chars long before this
        try:
            while (frame := read_frame(proc.stdout.fileno(), cap)) is not None:
                frames.put(frame)
        except (OSError, ValueError):
            pass
        frames.put(None)

    def _drain_stderr(self, proc) -> None:
        while chunk := proc.stderr.read1(65536):
            self.stderr_tail = (self.stderr_tail + chunk)[-16_384:]

    def _next(self, timeout: float):
        try:
            return self.frames.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return TimeoutError

    def wait_ready(self) -> None:
        self.start()
        if self.ready:
            return
        frame = self._next(READY_S)
        if not isinstance(frame, dict) or not frame.get("ready"):
            tail = self.stderr_tail.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
            self.kill()
            raise TemplateUnavailable(f"the template sandbox did not start ({tail[0]})")
        self.ready, self.failed_imports = True, frame.get("failed", {})
        self.unbilled_cpu = float(frame.get("cpu", 0.0))

    def run(self, workdir: Path, header: dict, body: dict, deadline_s: float):
        """(result, stderr, killed), as execute's ``_supervise``: one submission, in a fork."""
        self.wait_ready()
        header = {**header, "work": Path(workdir).name}
        writer = threading.Thread(target=self._send, args=(self.proc, header, body), daemon=True)
        writer.start()
        frame = self._next(deadline_s)
        if frame is TimeoutError:
            self.kill()
            return None, self._stderr(), True
        result = frame.get("result") if isinstance(frame, dict) else None
        end = self._next(30) if result is not None else frame
        if result is None or not (isinstance(end, dict) and end.get("end") == 0):
            # the runner died, or the stream is not what it should be: never reuse it
            self.kill()
        if result is not None and self.unbilled_cpu:
            # CPU only: its wall time is already inside this submission's "sandbox+runner start"
            result.setdefault("phases", {})["template start (once per worker)"] = [0.0, self.unbilled_cpu]
            self.unbilled_cpu = 0.0
        return result, self._stderr(), False

    def _send(self, proc, header: dict, body: dict) -> None:
        try:
            write_frame(proc.stdin.fileno(), header)
            write_frame(proc.stdin.fileno(), body)
        except OSError:
            pass  # it died: the reader sees the end of its stream

    def _stderr(self) -> str:
        return self.stderr_tail.decode(errors="replace")

    def kill(self) -> None:
        proc, self.proc, self.ready = self.proc, None, False
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # bwrap's pid namespace ends with it
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self._inbox, ignore_errors=True)


_SHARED: Template | None = None


def shared(preload: list[str]) -> Template:
    """This process's template (one per worker process: submissions in it run one at a time)."""
    global _SHARED
    if _SHARED is None or _SHARED.preload != list(preload):
        if _SHARED is not None:
            _SHARED.close()
        _SHARED = Template(preload)
        import atexit
        atexit.register(_SHARED.close)
    return _SHARED


def for_submissions(limits, sandbox: bool) -> Template | None:
    """This process's template for submissions under ``limits``; None where each gets a fresh
    bubblewrap instead (no sandbox, template off, not root, no bwrap)."""
    return shared(limits.preload) if sandbox and usable(limits) else None


def usable(limits) -> bool:
    """Whether submissions under ``limits`` go through a template here."""
    return bool(limits.template) and bwrap.privileged() and shutil.which("bwrap") is not None
