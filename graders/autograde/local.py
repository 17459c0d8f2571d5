"""The local pool: grading threads in the main process, sharing one template sandbox.

Each thread runs a submission's whole pipeline (graders.autograde.pipeline): nbgrader's
steps in the thread, the execution in a sandbox forked from the process's template
(graders.sandbox.template_host) or a fresh bubblewrap, where the thread mostly waits. One
template for all threads, not one per worker process, pays torch's import once per batch
instead of once per worker, and nothing is pickled between processes. Light on purpose (no
nbgrader, no gradebook): ``course autograde`` starts the pool before it imports nbgrader, so
that the template's imports of torch (about 2.5 CPU-seconds) run while the main process is
still importing.
"""

from __future__ import annotations

import uuid
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from pathlib import Path

from graders.sandbox.limits import Limits

from . import worker
from .jobs import batch_limits, find_jobs, likely_to_execute


class _Executor:
    """What both local pools do with their concurrent.futures executor."""

    executor: Executor

    def ready(self, running, block: bool) -> set:
        return wait(running, timeout=None if block else 0, return_when=FIRST_COMPLETED).done

    def result(self, future):
        return future.result()

    def close(self) -> None:
        self.executor.shutdown(cancel_futures=True)


class LocalPool(_Executor):
    """``workers`` submissions at a time, each in a sandbox of its own."""

    local = True  # workers read the course's files themselves

    def __init__(self, workers: int, limits: Limits | None = None, sandbox: bool = False):
        # ``workers`` submissions execute at once; as many threads again run the nbgrader
        # steps of the ones before and after them meanwhile (graders.autograde.worker)
        worker.limit_executions(workers)
        self.executor = ThreadPoolExecutor(max_workers=2 * workers, thread_name_prefix="grading")
        self.workers = workers
        self.capacity = 4 * workers  # submissions handed out at once: one waiting per thread
        self.limits, self.sandbox = (limits or Limits()).values(), sandbox
        self.warmed = False

    def warm(self) -> None:
        """Start the template's imports now, rather than when the first submission is ready.
        Once is enough."""
        if not self.warmed:
            self.warmed = True
            worker.prepare(self.limits, self.sandbox)

    def share(self, value):
        return value  # the threads see this process's memory

    def submit(self, function, *args, key: str | None = None):
        return self.executor.submit(function, *args)



def prestart(course_dir: Path, assignments: list[str] | None, sandbox: bool, force: bool) -> None:
    """The template's imports started before the course's config is read (loading
    nbgrader_config.py imports what it names: 0.67 s of nbgrader and nbconvert for this
    course's), with the default limits. The pool then finds it running when the config leaves
    the preload as it is; a config that changes it gets a template of its own instead."""
    from graders.course.layout import released_assignments
    from graders.sandbox import template_host

    default = Limits()
    if not sandbox or not template_host.usable(default):
        return
    released = released_assignments(Path(course_dir), assignments)
    if likely_to_execute(Path(course_dir), find_jobs(Path(course_dir), released), force):
        template_host.shared(batch_limits(default, Path(course_dir), released).preload).start()


def start(course_dir: Path, assignments: list[str] | None, workers: int, limits: Limits,
          sandbox: bool, force: bool) -> LocalPool:
    """The pool for a local batch, its workers and templates already starting when the batch
    will probably execute something (a re-run with nothing new to grade starts none)."""
    from graders.course.layout import released_assignments

    released = released_assignments(Path(course_dir), assignments)
    pool = LocalPool(workers, batch_limits(limits, Path(course_dir), released), sandbox)
    try:
        jobs = find_jobs(Path(course_dir), released)
        if likely_to_execute(Path(course_dir), jobs, force):
            pool.warm()
    except BaseException:
        pool.close()
        raise
    return pool


class ProcessPool(_Executor):
    """``workers`` processes, for work that is Python through and through (a feedback page's
    HTML: grading threads would take turns on one interpreter's lock). What a task needs is
    pickled by cloudpickle, as Dask does, so that the classes an instructor defines in
    nbgrader_config.py travel too; ``share``d values once per batch, unpickled once per process."""

    local = True

    def __init__(self, workers: int, preload: tuple[str, ...] = ()):
        import multiprocessing

        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(preload))  # imported once, before each worker is forked
        self.executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        self.capacity = 2 * workers

    def warm(self) -> None:
        pass

    def share(self, value):
        import cloudpickle
        return _Shared(uuid.uuid4().hex, cloudpickle.dumps(value))

    def submit(self, function, *args, key: str | None = None):
        import cloudpickle
        return self.executor.submit(_call, cloudpickle.dumps((function, args)))



class _Shared:
    """A value pickled once in the main process; a worker process unpickles it once."""

    def __init__(self, token: str, data: bytes):
        self.token, self.data = token, data


_UNPICKLED: dict[str, object] = {}


def _call(task: bytes):
    import cloudpickle
    function, args = cloudpickle.loads(task)
    resolved = []
    for arg in args:
        if isinstance(arg, _Shared):
            if arg.token not in _UNPICKLED:
                _UNPICKLED[arg.token] = cloudpickle.loads(arg.data)
            arg = _UNPICKLED[arg.token]
        resolved.append(arg)
    return function(*resolved)
