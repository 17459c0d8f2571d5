"""The local pool: worker processes on this machine, each with its template sandbox.

Light on purpose (no nbgrader, no gradebook): ``course autograde`` starts the pool before it
imports nbgrader, so that the workers' interpreters and their templates' imports of torch
(about 3 s of wall time on a 2-core machine) run while the main process is still importing
and sanitizing, instead of after it.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from graders.sandbox.execute import Outcome
from graders.sandbox.limits import Limits

from . import worker
from .jobs import find_jobs, likely_to_execute


class LocalPool:
    """Worker processes on this machine (spawned: they must not inherit the main process's
    open SQLite connections)."""

    def __init__(self, workers: int, limits: Limits | None = None, sandbox: bool = False):
        self.executor = ProcessPoolExecutor(max_workers=workers,
                                            mp_context=multiprocessing.get_context("spawn"),
                                            initializer=worker.prepare,
                                            initargs=((limits or Limits()).values(), sandbox))
        self.workers = workers
        self.warmed = False

    def warm(self) -> None:
        """Start every worker (and its template's imports) now, rather than when the first
        submission is ready. Once is enough."""
        if not self.warmed:
            self.warmed = True
            for _ in range(self.workers):
                self.executor.submit(worker.started)

    def submit(self, key: str, folder: Path, run_nb, limits: dict, sandbox: bool, prologue: str,
               cache: Path | None = None):
        return self.executor.submit(worker.run, str(folder), run_nb, limits, sandbox, prologue,
                                    str(cache) if cache else None)

    def ready(self, running, block: bool) -> set:
        return wait(running, timeout=None if block else 0, return_when=FIRST_COMPLETED).done

    def outcome(self, future, seconds: float) -> Outcome:
        try:
            return future.result()
        except BrokenProcessPool:
            return Outcome("crashed", "the grading worker process died", seconds)

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
