"""The main process's own CPU per submission during a real `course autograde` batch: the
serial share that bounds a cluster (Amdahl's law), locally and on a Dask LocalCluster.

Each batch runs in a child process (``--probe``) that imports the harness first, then calls
``graders.autograde.batch.autograde`` as `course autograde` does and reports, from inside:
- the process's own CPU (all its threads, no child processes) from the call to its return,
  and from its first dispatched submission to its return (start-up excluded);
- its main thread's CPU (reads, dispatches, writes the gradebook) and its grading threads'
  (local batches: they are threads of this same process);
- the sandboxes' CPU, as they measure it (GRADERS_TIMING_LOG): runner, kernel, the template's start.
With ``--python`` the same batch also runs under another interpreter (an environment with
another checkout of the code: the before of a change), on a course built the same way, in
the same run.

With ``--intake N`` the main process's intake is fed N ready results (no execution): how many
submissions per second it absorbs, and whether that falls as the class grows. With
``--projection``, the 500 x 6 projection on 64 worker cores from this run's figures.

    python benchmarks/serial_share.py [--copies K] [--notebooks 01_tensors ...]
                                      [--local-cluster] [--python OTHER_PYTHON] [--repeat N]
                                      [--intake N [--group G]] [--projection]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent


def _cpu_self() -> float:
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _thread_cpu(native_id: int) -> float:
    try:
        with open(f"/proc/self/task/{native_id}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def probe(course: str, workers: int, scheduler: str | None) -> dict:
    """One batch in this process; what it cost this process, as JSON-ready numbers."""
    import threading

    os.environ["GRADERS_TIMING_LOG"] = str(Path(course).parent / f"{Path(course).name}-timing.jsonl")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    from graders.autograde import batch, local  # nbgrader, SQLAlchemy: imported before the clock
    pools = [local.LocalPool]
    if scheduler:
        import distributed  # noqa: F401

        from graders.autograde import cluster
        pools.append(cluster.DaskPool)
    ended: dict[int, tuple[str, float]] = {}
    original_run = threading.Thread.run

    def run(self):
        try:
            original_run(self)
        finally:
            ended[threading.get_native_id()] = (self.name, time.thread_time())

    threading.Thread.run = run
    first: dict[str, float] = {}
    for pool in pools:
        def submit(self, *args, _original=pool.submit, **kwargs):
            first.setdefault("cpu", _cpu_self())
            first.setdefault("wall", time.monotonic())
            return _original(self, *args, **kwargs)
        pool.submit = submit
    cpu0, main0, wall0 = _cpu_self(), time.thread_time(), time.monotonic()
    records = batch.autograde(Path(course), workers=workers, progress=False, scheduler=scheduler)
    cpu1, main1, wall1 = _cpu_self(), time.thread_time(), time.monotonic()
    live = {t.native_id: (t.name, _thread_cpu(t.native_id)) for t in threading.enumerate()
            if t is not threading.main_thread() and t.native_id}
    threads = {**ended, **live}
    sandbox = pipeline = 0.0  # the sandboxes' own measure of their CPU; the workers' nbgrader steps
    for line in Path(os.environ["GRADERS_TIMING_LOG"]).read_text().splitlines() if os.path.exists(
            os.environ["GRADERS_TIMING_LOG"]) else []:
        phases = json.loads(line)["phases"]
        sandbox += phases.get("total", [0.0, 0.0])[1]
        pipeline += sum(cpu for name, (_, cpu) in phases.items() if name.startswith("worker:"))
    return {"n": len(records), "statuses": sorted({r.status for r in records}),
            "reasons": sorted({r.reason for r in records if r.status != "ok"})[:3],
            "score": sum(r.score for r in records),
            "wall": wall1 - wall0, "cpu": cpu1 - cpu0,
            "cpu_from_first_dispatch": cpu1 - first.get("cpu", cpu1),
            "wall_from_first_dispatch": wall1 - first.get("wall", wall1),
            "main_thread": main1 - main0,
            "grading_threads": sum(c for name, c in threads.values() if name.startswith("grading")),
            "other_threads": sum(c for name, c in threads.values() if not name.startswith("grading")),
            "sandbox": sandbox, "worker_nbgrader": pipeline}


def intake_stream(tmp: Path, n: int, group: int) -> dict:
    """Feed the main process's intake ``n`` ready results (one real graded 01 submission,
    under ``n`` student names), ``group`` at a time (1: each result alone, the worst case);
    no execution. Its wall and CPU per submission, per fifth of the stream (the cost must not
    grow with the class)."""
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    from nbgrader.api import Gradebook

    from graders.autograde import recorded
    from graders.autograde.intake import Intake
    from graders.autograde.jobs import Job
    from graders.autograde.pipeline import Assignment, Submission, grade
    from graders.course.config import Course

    course = tmp / "intake"
    build(course, ["01_tensors"], 1)
    loaded = Course(course)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", loaded.config.CourseDirectory.course_id) as gb:
        record = recorded.read_assignment(gb, "01_tensors")
    notebook = course / "submitted" / "student00" / "01_tensors" / "01_tensors.ipynb"
    assignment = Assignment("01_tensors", loaded.config, record, {},
                            (course / "release" / "01_tensors" / "01_tensors.ipynb").read_text(),
                            loaded.limits().values(), True)
    graded = grade(Submission("student00", notebook.read_bytes(), folder=str(notebook.parent)), assignment)
    assert graded.status == "ok", graded.reason
    intake = Intake(loaded.config)
    laps, done = [], 0
    started = time.monotonic(), time.process_time()
    while done < n:
        size = min(group, n - done)
        batch = [(Job(f"s{done + k:05d}", "01_tensors"), graded, "0" * 64) for k in range(size)]
        intake.absorb(batch)
        done += size
        laps.append((done, time.monotonic() - started[0], time.process_time() - started[1]))
    intake.close()
    fifths = []
    for k in range(1, 6):
        end = next(lap for lap in laps if lap[0] >= n * k // 5)
        begin = next((lap for lap in laps if lap[0] >= n * (k - 1) // 5), (0, 0.0, 0.0)) if k > 1 else (0, 0.0, 0.0)
        count = end[0] - begin[0]
        fifths.append(((end[1] - begin[1]) / count, (end[2] - begin[2]) / count))
    wall, cpu = laps[-1][1], laps[-1][2]
    return {"n": n, "group": group, "wall": wall, "cpu": cpu, "rate": n / wall, "fifths": fifths,
            "notebook_kb": len(next(iter(graded.files.values()))) / 1024}


def projection(students: int, notebooks: int, cores: int, worker_cpu: float, main_cpu: float, rate: float) -> str:
    n = students * notebooks
    workers = n * worker_cpu / cores
    main = max(n * main_cpu, n / rate)
    bound = "the workers" if workers >= main else "the main process"
    return (f"PROJECTION (from the figures measured above, not a measured cluster run): {students} students x "
            f"{notebooks} notebooks = {n} submissions on {cores} worker cores:\n"
            f"  the workers' share {n} x {worker_cpu:.2f} CPU-s / {cores} cores = {workers / 60:.1f} min; "
            f"the main process's serial share max({n} x {main_cpu:.3f} CPU-s, {n} / {rate:.0f} per s) = "
            f"{main / 60:.1f} min\n"
            f"  so about {max(workers, main) / 60:.1f} min, bound by {bound}; "
            f"the main process would keep up with {worker_cpu / max(main_cpu, 1 / rate):.0f} worker cores")


def build(course: Path, stems: list[str], copies: int, python: str | None = None) -> int:
    """Release ``stems`` into ``course`` and submit ``copies`` reference answers of each, with
    this checkout's code or, with ``python``, another's (its notebooks, its course config)."""
    if python and python != sys.executable:
        env = dict(os.environ, PATH=str(Path(python).parent) + os.pathsep + os.environ.get("PATH", ""))
        subprocess.run([python, str(Path(__file__).resolve()), "--build", str(course), "--copies", str(copies),
                        "--notebooks", *stems], check=True, env=env, capture_output=True)
        return copies * len(stems)
    import importlib.util
    # the benchmarks of the checkout this interpreter imports graders from (its grading.py
    # puts its own repository first on the path)
    checkout = Path(importlib.util.find_spec("graders").origin).parents[1]
    sys.path.insert(0, str(checkout / "benchmarks"))
    from grading import build as build_course
    return build_course(course, stems, copies)


@contextlib.contextmanager
def local_cluster(python: str):
    """A LocalCluster (one worker process, a thread per core: the README's layout) held by a
    process of ``python``'s environment, so that its workers run that checkout's code; its
    scheduler's address."""
    code = ("import sys\nfrom distributed import LocalCluster\n"
            "cluster = LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=':0', "
            "memory_limit=0)\nprint(cluster.scheduler_address, flush=True)\nsys.stdin.read()\ncluster.close()\n")
    # away from any checkout: a worker started there would import that folder's graders
    holder = subprocess.Popen([python, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              stderr=subprocess.DEVNULL, cwd=tempfile.gettempdir())
    try:
        yield holder.stdout.readline().strip()
    finally:
        holder.stdin.close()
        holder.wait(timeout=120)


def run_probe(python: str, course: Path, workers: int, scheduler: str | None) -> dict:
    argv = [python, str(Path(__file__).resolve()), "--probe", str(course), "--workers", str(workers)]
    if scheduler:
        argv += ["--scheduler", scheduler]
    env = dict(os.environ, PATH=str(Path(python).parent) + os.pathsep + os.environ.get("PATH", ""))
    done = subprocess.run(argv, capture_output=True, text=True, cwd=course, env=env, timeout=3600)
    if done.returncode != 0:
        raise SystemExit(f"probe failed under {python}:\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(label: str, got: dict) -> str:
    n = got["n"]
    return (f"{label:<28}{n:>4}{got['wall']:>8.1f}{got['cpu'] / n:>10.3f}{got['cpu_from_first_dispatch'] / n:>10.3f}"
            f"{got['main_thread'] / n:>9.3f}{got['grading_threads'] / n:>9.3f}{got['other_threads'] / n:>8.3f}"
            f"{got['sandbox'] / n:>9.2f}{got.get('worker_nbgrader', 0.0) / n:>10.3f}")


HEADER = (f"{'batch':<28}{'n':>4}{'wall s':>8}{'proc CPU':>10}{'from 1st':>10}{'main th':>9}"
          f"{'grading':>9}{'other':>8}{'sandbox':>9}{'nbgrader':>10}\n"
          f"{'':<28}{'':>4}{'':>8}{'s / sub':>10}{'s / sub':>10}{'s / sub':>9}{'s / sub':>9}{'s / sub':>8}"
          f"{'s / sub':>9}{'s / sub':>10}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    parser.add_argument("--build", help=argparse.SUPPRESS)
    parser.add_argument("--build-python", metavar="PYTHON",
                        help="build every course with this interpreter's checkout (its notebooks and course "
                             "config), so that --python's code grades the very batch this checkout grades")
    parser.add_argument("--scheduler", help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--copies", type=int, default=12, help="0: no real batch (with --intake alone)")
    parser.add_argument("--notebooks", nargs="*", default=["01_tensors"])
    parser.add_argument("--local-cluster", action="store_true",
                        help="also on a LocalCluster (one worker process, a thread per core), held here")
    parser.add_argument("--python", action="append", default=[],
                        help="also run the batch under this interpreter (another checkout's environment)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--intake", type=int, metavar="N",
                        help="also feed the intake N ready results (no execution): submissions absorbed per second")
    parser.add_argument("--group", type=int, default=1, help="results absorbed together by the intake (default 1)")
    parser.add_argument("--projection", action="store_true",
                        help="print the 500 x 6 projection on 64 worker cores from this run's figures "
                             "(needs --local-cluster and --intake; the workers' CPU from the local batch)")
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(args.probe, args.workers, args.scheduler)))
        return 0
    if args.build:
        build(Path(args.build), args.notebooks, args.copies)
        return 0
    if args.projection and not (args.local_cluster and args.intake):
        parser.error("--projection needs --local-cluster and --intake")
    pythons = [sys.executable, *args.python]
    for run in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="serial-share-") as tmp:
            rows, measured = [], {}
            load = os.getloadavg()
            for k, python in enumerate(pythons if args.copies else []):
                modes = [("--workers 2", False)] + ([("--scheduler", True)] if args.local_cluster else [])
                for label, on_cluster in modes:
                    course = Path(tmp) / f"c{k}{'d' if on_cluster else 'l'}"
                    build(course, args.notebooks, args.copies, args.build_python)
                    with local_cluster(python) if on_cluster else contextlib.nullcontext() as address:
                        got = run_probe(python, course, args.workers, address)
                    if k == 0:
                        measured[label] = got
                    name = "this checkout" if k == 0 else f"--python {k}"
                    rows.append(row(f"{name}, {label}", got))
                    rows.append(f"{'':<28}statuses {', '.join(got['statuses'])}; score {got['score']:g}"
                                + "".join(f"\n{'':<28}  {reason[:150]}" for reason in got["reasons"]))
        print(f"run {run + 1}: {args.copies} copies of {', '.join(args.notebooks)}, {os.cpu_count()} cores, "
              f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, after "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}; {time.strftime('%Y-%m-%d %H:%M')}")
        for k, python in enumerate(args.python, 1):
            print(f"  --python {k}: {python}")
        print(HEADER)
        print("\n".join(rows))
        print("proc CPU: the main process's own CPU (all its threads) over the batch; from 1st: from its first\n"
              "dispatched submission; main th: its main thread; grading: its grading threads (local only);\n"
              "sandbox: the sandboxes' CPU as they measure it (runner, kernel, the template's start);\n"
              "nbgrader: the workers' nbgrader steps (sanitize, finish), in their threads")
        if args.intake:
            with tempfile.TemporaryDirectory(prefix="intake-") as tmp:
                fed = intake_stream(Path(tmp), args.intake, args.group)
            print(f"intake: {fed['n']} ready results ({fed['notebook_kb']:.0f} KB graded 01 notebook each), "
                  f"{fed['group']} at a time: {fed['wall']:.1f} s, {fed['rate']:.0f} submissions/s absorbed, "
                  f"{fed['cpu'] / fed['n'] * 1000:.1f} ms CPU each")
            print("  per fifth of the stream, ms wall / CPU per submission: " +
                  ", ".join(f"{w * 1000:.1f} / {c * 1000:.1f}" for w, c in fed["fifths"]))
            if args.projection:
                local, remote = measured["--workers 2"], measured["--scheduler"]
                worker_cpu = (local["sandbox"] + local["worker_nbgrader"]) / local["n"]
                main_cpu = remote["cpu_from_first_dispatch"] / remote["n"]
                print(projection(500, 6, 64, worker_cpu, main_cpu, fed["rate"]))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
