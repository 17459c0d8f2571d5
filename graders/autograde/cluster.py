"""`course autograde --scheduler ADDRESS`: the execution step on a Dask distributed cluster.

Dask does the scheduling, the queue and the retries: each submission is one
``Client.submit`` of ``graders.autograde.pipeline.grade`` (a key of its own, never cached),
collected with ``as_completed``. A worker process that dies mid-submission is Dask's
business too: the scheduler hands its tasks to another worker (up to
``distributed.scheduler.allowed-failures`` times, then ``KilledWorker``, which the batch
records as ``crashed``). A worker writes nothing of the course: the main process writes the
graded notebook, the gradebook and the status file when a future completes, once, so a
retried submission is written once and a killed main process resumes as a local run.

What crosses the network: to every worker once per batch (``Client.scatter``), each
assignment's Assignment (the course's nbgrader configuration, what the gradebook recorded of
the assignment, its master files and student copy) and, for one that compiles, the warmed
compile cache; per submission, the submitted notebook and the other regular files of its
folder, and any grades given by hand so far; back, the autograded folder's files and the
submission's grades. Before the first submission, every worker is asked (``Client.run``)
whether it can sandbox.
"""

from __future__ import annotations

from graders.course.layout import CourseError

from . import worker
from .jobs import SubmissionLost

CONNECT_TIMEOUT_S = 10


def connect(address: str, timeout: float = CONNECT_TIMEOUT_S):
    """A Client on ``address`` with at least one worker, or a CourseError within ``timeout``."""
    from distributed import Client
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise CourseError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                          f"({type(error).__name__}: {_first_line(error)}); start it with "
                          "`dask scheduler` and check the address and port") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError):
        client.close()
        raise CourseError(f"the Dask scheduler at {address} has no workers after {timeout:g} s; "
                          f"start one per machine with `dask worker {address}` (a thread per core)") from None
    return client


def check_workers(client, sandbox: bool) -> list[str]:
    """Each worker's name; a CourseError naming every worker that cannot grade, before any
    submission is sent."""
    answers = client.run(worker.probe, on_error="return")
    problems, names = [], []
    for address, answer in sorted(answers.items()):
        if isinstance(answer, BaseException):
            problems.append(f"{address}: cannot run the course's graders package "
                            f"({type(answer).__name__}: {_first_line(answer)}); install the course "
                            "(pip install -c constraints.txt -e .) in the worker's environment")
            continue
        label = f"{address} ({answer['name']})" if answer["name"] else address
        names.append(label)
        if sandbox and not answer["bwrap"]:
            problems.append(f"{label}: bwrap not found; install the Debian package bubblewrap "
                            "on that machine (or grade with --no-sandbox: runs student code unconfined)")
    if problems:
        raise CourseError("Dask workers that cannot grade (nothing was sent):\n  " + "\n  ".join(problems))
    return names


class DaskPool:
    """Submit and collect through a distributed Client: the same calls as the local pool."""

    local = False  # workers see none of the course: what they need is read here and sent

    def __init__(self, address: str, sandbox: bool, limits: dict):
        from distributed import as_completed
        self.sandbox, self.limits = sandbox, limits
        self.client = connect(address)
        try:
            self.workers = check_workers(self.client, sandbox)
        except CourseError:
            self.client.close()
            raise
        self.completed = as_completed(loop=self.client.loop)

    @property
    def capacity(self) -> int:
        """Submissions handed out at once: two per worker thread (one running, one waiting)."""
        threads = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
        return max(2, 2 * threads)

    def warm(self) -> None:
        """Start every worker's template now, as the local pool does, rather than when its
        first submission arrives. prepare() returns before the template's imports are done; a
        worker that cannot start one says so on its first submission."""
        self.client.run(worker.prepare, self.limits, self.sandbox, on_error="return")

    def share(self, value):
        """``value`` on every worker, sent once (a task gets it from its own worker's memory);
        a copy on each, so that a worker killed mid-batch takes none of it away."""
        [future] = self.client.scatter([value], broadcast=True, hash=False)
        return future

    def submit(self, function, *args, key: str | None = None):
        future = self.client.submit(function, *args, key=key, pure=False, retries=1)
        self.completed.add(future)
        return future

    def ready(self, running, block: bool) -> list:
        if not running:
            return []
        return self.completed.next_batch(block=block)

    def result(self, future):
        from distributed import KilledWorker
        try:
            return future.result()
        except KilledWorker as error:
            raise SubmissionLost(f"Dask workers died running it, too often to retry ({error}); "
                                 "rerun this submission alone to investigate") from None
        except Exception:
            if self.client.status != "running":
                raise CourseError("lost the Dask scheduler mid-batch; submissions already graded "
                                  "are kept: run the same command again to grade the rest") from None
            raise

    def close(self) -> None:
        self.client.close()


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [""])[0][:200]
