"""The grader's side of a template sandbox (graders.sandbox.template): start it, hand it
submissions, side by side, and kill and restart it whenever it is not as expected.

One per grading process (``shared``), used by its grading threads at once: each submission
gets a channel of its own. A submission's scratch folder must be made in the template's
inbox (``inbox()``) so that the template can bind it; ``execute`` falls back to a fresh
bubblewrap per submission for a folder elsewhere, for a grader that is not root (the
template needs to make namespaces and then drop to the submission's uid), and when the
template cannot start.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from . import bwrap
from .environment import child_env
from .streams import Capped, read_frame, write_frame
from .template import INBOX, STAGING, WORK

READY_S = 180  # a cold start imports torch with a cold disk cache
HANG_UP_S = 10  # for the template's fork to kill a submission whose channel was shut
STDERR_BYTES = 16_384


class TemplateUnavailable(RuntimeError):
    pass


class Template:
    def __init__(self, preload: list[str]):
        self.preload = list(preload)
        self.proc: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.frames: queue.Queue = queue.Queue()
        self.stderr_tail = bytearray()
        self.ready = False
        self.failed_imports: dict = {}
        self.unbilled_cpu = 0.0  # the template's start, charged to the first submission after it
        self._lock = threading.RLock()  # starting, stopping, and each header sent
        self._inbox = Path(tempfile.mkdtemp(prefix="graders-inbox-"))
        os.chmod(self._inbox, 0o755)

    def inbox(self) -> Path:
        return self._inbox

    def start(self) -> None:
        """Start it without waiting for its imports (``execute`` waits)."""
        with self._lock:
            if self.proc is not None and self.proc.poll() is None:
                return
            argv = bwrap.wrap_template([sys.executable, "-m", "graders.sandbox.template", *self.preload],
                                       self._inbox, INBOX, WORK, STAGING)
            control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            with theirs:
                self.proc = subprocess.Popen(argv, stdin=theirs, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, env=child_env(Path(WORK), "/tmp"),
                                             start_new_session=True)
            self.control = control
            self.frames, self.ready, self.stderr_tail = queue.Queue(), False, bytearray()
            threading.Thread(target=_read_frames, args=(self.proc.stdout.fileno(), self.frames),
                             daemon=True).start()
            threading.Thread(target=self._drain_stderr, args=(self.proc,), daemon=True).start()

    def _drain_stderr(self, proc) -> None:
        while chunk := proc.stderr.read1(65536):
            self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_BYTES:]

    def wait_ready(self) -> None:
        with self._lock:
            self.start()
            if self.ready:
                return
            frame = _next(self.frames, READY_S)
            if not isinstance(frame, dict) or not frame.get("ready"):
                tail = self.stderr_tail.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
                self.kill()
                raise TemplateUnavailable(f"the template sandbox did not start ({tail[0]})")
            self.ready, self.failed_imports = True, frame.get("failed", {})
            self.unbilled_cpu = float(frame.get("cpu", 0.0))

    def run(self, workdir: Path, header: dict, body: dict, deadline_s: float):
        """(result, stderr, killed), as execute's ``_supervise``: one submission, in a fork,
        while other threads may run theirs."""
        header = {**header, "work": Path(workdir).name}
        channel, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        err_read, err_write = os.pipe()
        with self._lock:
            self.wait_ready()
            proc = self.proc
            try:
                socket.send_fds(self.control, [json.dumps(header).encode()], [theirs.fileno(), err_write])
            except OSError:
                self.kill()  # it died between two submissions: the next one starts it again
                raise TemplateUnavailable("the template sandbox ended") from None
            finally:
                theirs.close()
                os.close(err_write)
        stderr = Capped(os.fdopen(err_read, "rb"), STDERR_BYTES, keep="tail")
        stderr.start()
        frames: queue.Queue = queue.Queue()
        threads = [threading.Thread(target=_read_frames, args=(channel.fileno(), frames), daemon=True),
                   threading.Thread(target=_send, args=(channel, body), daemon=True)]
        for thread in threads:
            thread.start()
        try:
            frame = _next(frames, deadline_s)
            if frame is TimeoutError:
                self._hang_up(channel, frames, proc)
                return None, _tail(stderr), True
            result = frame.get("result") if isinstance(frame, dict) else None
            end = _next(frames, 30) if result is not None else frame
            if not isinstance(end, dict) or "end" not in end:
                # the runner died, or its stream is out of step: this channel is done with
                self._hang_up(channel, frames, proc)
            if proc.poll() is not None:
                self.kill(proc)  # the template itself has gone (this submission went with it)
            if result is not None:
                self._bill_start(result)
            return result, _tail(stderr), False
        finally:
            # both threads use the descriptor: they must be done before its number can be reused
            try:
                channel.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            for thread in threads:
                thread.join(HANG_UP_S)
            channel.close()

    def _hang_up(self, channel: socket.socket, frames: queue.Queue, proc) -> None:
        """Shut our side: the template's fork kills the submission and closes the channel.
        A fork that does not is a template not to be trusted: all of it goes."""
        try:
            channel.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        while (frame := _next(frames, HANG_UP_S)) is not None:
            if frame is TimeoutError:
                self.kill(proc)
                return

    def _bill_start(self, result: dict) -> None:
        with self._lock:
            cpu, self.unbilled_cpu = self.unbilled_cpu, 0.0
        if cpu:
            # CPU only: its wall time is already inside this submission's "sandbox+runner start"
            result.setdefault("phases", {})["template start (once per worker)"] = [0.0, cpu]

    def kill(self, proc=None) -> None:
        """Kill the template sandbox (``proc``: only if it is still the current one)."""
        with self._lock:
            if proc is not None and proc is not self.proc:
                return
            proc, self.proc, self.ready = self.proc, None, False
            control, self.control = self.control, None
        if control is not None:
            control.close()
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # bwrap's pid namespace ends with it
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        self.kill()
        shutil.rmtree(self._inbox, ignore_errors=True)


def _read_frames(fd: int, frames: queue.Queue) -> None:
    cap = 64 * 2**20 + 4 * 2**30  # the runner's result is capped by max_output_chars long before this
    try:
        while (frame := read_frame(fd, cap)) is not None:
            frames.put(frame)
    except (OSError, ValueError):
        pass
    frames.put(None)


def _next(frames: queue.Queue, timeout: float):
    try:
        return frames.get(timeout=max(0.0, timeout))
    except queue.Empty:
        return TimeoutError


def _send(channel: socket.socket, body: dict) -> None:
    try:
        write_frame(channel.fileno(), body)
    except OSError:
        pass  # it ended: the reader sees the end of its stream


def _tail(reader) -> str:
    """What a submission's stderr reader kept (its runner's tracebacks)."""
    reader.join(1)  # the pipe ends with the submission's last process
    return reader.data.decode(errors="replace")


_SHARED: Template | None = None
_SHARING = threading.Lock()


def shared(preload: list[str]) -> Template:
    """This process's template (one per grading process: its threads' submissions run side by side)."""
    with _SHARING:
        return _shared(preload)


def _shared(preload: list[str]) -> Template:
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
