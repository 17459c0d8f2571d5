"""The local pool: grading threads in the main process, sharing one template sandbox.

A thread only waits: the submission runs in its sandbox (forked from the process's template,
graders.sandbox.template_host, or a fresh bubblewrap), and the thread copies its folder in,
sends the notebook and reads the result. One template for all threads, not one per worker
process, pays torch's import once per batch instead of once per worker, and nothing is
pickled between processes. Light on purpose (no nbgrader, no gradebook): ``course
autograde`` starts the pool before it imports nbgrader, so that the template's imports of
torch (about 2.5 CPU-seconds) run while the main process is still importing and sanitizing.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from pathlib import Path

from graders.sandbox.execute import Outcome
from graders.sandbox.limits import Limits

from . import worker
from .jobs import find_jobs, likely_to_execute


class LocalPool:
    """``workers`` submissions at a time, each in a sandbox of its own."""

    def __init__(self, workers: int, limits: Limits | None = None, sandbox: bool = False):
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="grading")
        self.workers = workers
        self.limits, self.sandbox = (limits or Limits()).values(), sandbox
        self.warmed = False

    def warm(self) -> None:
        """Start the template's imports now, rather than when the first submission is ready.
        Once is enough."""
        if not self.warmed:
            self.warmed = True
            worker.prepare(self.limits, self.sandbox)

    def submit(self, key: str, folder: Path, run_nb, limits: dict, sandbox: bool, prologue: str,
               cache: Path | None = None):
        return self.executor.submit(worker.run, str(folder), run_nb, limits, sandbox, prologue,
                                    str(cache) if cache else None)

    def ready(self, running, block: bool) -> set:
        return wait(running, timeout=None if block else 0, return_when=FIRST_COMPLETED).done

    def outcome(self, future, seconds: float) -> Outcome:
        try:
            return future.result()
        except Exception as error:  # worker.run catches the submission's; this is the harness's
            return Outcome("crashed", f"grading harness error: {type(error).__name__}: {error}", seconds)

    def close(self) -> None:
        self.executor.shutdown(cancel_futures=True)


def start(course_dir: Path, assignments: list[str] | None, workers: int, limits: Limits,
          sandbox: bool, force: bool) -> LocalPool:
    """The pool for a local batch, its workers and templates already starting when the batch
    will probably execute something (a re-run with nothing new to grade starts none)."""
    from graders.course.layout import released_assignments

    pool = LocalPool(workers, limits, sandbox)
    try:
        jobs = find_jobs(Path(course_dir), released_assignments(Path(course_dir), assignments))
        if likely_to_execute(Path(course_dir), jobs, force):
            pool.warm()
    except BaseException:
        pool.close()
        raise
    return pool
