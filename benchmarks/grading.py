"""Parallel `course autograde --workers 2` against sequential nbgrader, on the same batch.

K copies (default 4) of each notebook's reference answers. Times, in one run:
- sequential nbgrader: the `nbgrader autograde A` command per assignment (no sandbox);
- `course autograde --workers 2` (sandboxed);
- with --no-sandbox-too, `course autograde --workers 2 --no-sandbox` (the sandbox's cost);
- with --local-cluster, `course autograde --scheduler` on a distributed.LocalCluster on this
  machine: what Dask adds. Its layout is the README's advice, one worker process with a
  thread per core (2 threads), or --cluster-processes 2 for two processes of one thread.
Compile caches (06 calls torch.compile): each side gets its own, empty at first. With
--compile-cache warm (the default) both are warmed before the clock starts, as an
instructor's course would have them: `course release` warms the course's cache, and
nbgrader's kernels share the user's Inductor cache, which its first grading of 06 warms.
Each warm-up is timed and printed, with the ratio that counts them. With --compile-cache
cold neither is warmed: nbgrader's first 06 compiles cold, `course autograde` warms its
cache beside the batch.
Prints the times, seconds per notebook, the ratio, whether the grades are identical, the
load average it ran under, and where a submission's seconds go (the harness's own
per-phase wall and CPU, GRADERS_TIMING_LOG, averaged over the batch: the sandbox's phases,
the worker's nbgrader steps, the main process's intake). The small batch of issue 32:
`--copies 6 --notebooks 01_tensors --repeat 3`; the main process's CPU per submission:
benchmarks/serial_share.py.
With --baseline REV, also `course autograde --workers 2` on the notebooks as they were at git
revision REV (before their hidden tests were judged outside the kernel: verdicts in the
kernel), in the same run, with this code: the cost of judging outside, per notebook. With
--baseline inline, the baseline is today's notebooks with every judge run in the kernel (the
`### JUDGE` line removed: probe and judge in the test cell, as nbmake runs them): the same
work, in the kernel, so the ratio is the cost of moving verdicts out and nothing else. The
reference runs that judging needs (one per assignment, kept in DIR/reference like the compile
cache) are made before the clock and timed apart.

    python benchmarks/grading.py [--copies K] [--notebooks 01_tensors ...] [--repeat N]
                                 [--compile-cache warm|cold] [--baseline REV]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")

from nbgrader.api import Gradebook  # noqa: E402

from authoring import submissions  # noqa: E402
from graders.course import compile_cache  # noqa: E402
from graders.course.config import Course  # noqa: E402
from graders.course.layout import available_assignments  # noqa: E402
from graders.course.release import release  # noqa: E402


def build(course: Path, stems: list[str], copies: int, rev: str | None = None) -> int:
    for stem in stems:
        if rev is None:
            release(course, [stem])
        else:
            release_at(course, stem, rev)
        source = submissions.read(course / "source" / stem / f"{stem}.ipynb")
        released = submissions.read(course / "release" / stem / f"{stem}.ipynb")
        nb = submissions.reference(source, released)
        for k in range(copies):
            submissions.submit(course, f"student{k:02d}", stem, nb)
    return copies * len(stems)


def release_at(course: Path, stem: str, rev: str) -> None:
    """``stem`` as notebooks/<stem>.ipynb was at git revision ``rev`` (or, for "inline",
    today's with every judge run in the kernel), released by nbgrader."""
    import logging

    from nbgrader.apps import NbGraderAPI

    from graders.course.layout import ensure_course_dir
    ensure_course_dir(course)
    if rev == "inline":
        text = "\n".join(line for line in (REPO / "notebooks" / f"{stem}.ipynb").read_text().split("\n")
                         if line.strip() not in ('"### JUDGE\\n",', '"### JUDGE"'))
    else:
        text = subprocess.run(["git", "show", f"{rev}:notebooks/{stem}.ipynb"], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout
    (course / "source" / stem).mkdir(parents=True, exist_ok=True)
    (course / "source" / stem / f"{stem}.ipynb").write_text(text)
    api = NbGraderAPI(config=Course(course).config)
    api.log.setLevel(logging.ERROR)
    result = api.generate_assignment(stem, force=True, create=True)
    if not result["success"]:
        raise SystemExit(f"nbgrader could not release {stem} at {rev}: {result['log']}")


def warm_references(course: Path, stems: list[str]) -> float:
    """The reference runs judged assignments need (what the first `course autograde` does)."""
    from graders.course import reference
    started = time.perf_counter()
    loaded = Course(course)
    needing = [s for s in reference.needing(loaded, stems) if s not in compile_cache.needing_warm_up(loaded, stems)]
    reference.warm(loaded, needing, loaded.limits(), log=lambda message: None)
    return time.perf_counter() - started


def grades(course: Path) -> dict:
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {(s.student_id, s.assignment.name, g.name): g.auto_score
                for a in gb.assignments for s in a.submissions for n in s.notebooks for g in n.grades}


def with_inductor_cache(inductor: Path) -> dict:
    """This process's environment with ``inductor`` as the user's Inductor cache, for
    nbgrader and the kernels it starts."""
    return dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(inductor))


def sequential(course: Path, stems: list[str], inductor: Path) -> float:
    """nbgrader's own `nbgrader autograde A` command per assignment, run in the course dir
    (as an instructor would), so both sides pay their interpreter's start-up. Its kernels
    use ``inductor`` as the user's Inductor cache."""
    started = time.perf_counter()
    for stem in stems:
        subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", stem, "--force"],
                       cwd=course, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=with_inductor_cache(inductor))
    return time.perf_counter() - started


def warm_sequential(course: Path, compiling: list[str], inductor: Path) -> float:
    """What nbgrader's first grading of each compiling notebook leaves in the user's Inductor
    cache: one run of its reference notebook in a plain kernel, as nbgrader would run it."""
    from nbclient import NotebookClient
    started = time.perf_counter()
    for stem in compiling:
        source = compile_cache.reference(course, stem)
        NotebookClient(submissions.read(source), timeout=600, resources={"metadata": {"path": str(source.parent)}}
                       ).execute(env=with_inductor_cache(inductor))
    return time.perf_counter() - started


def warm_course(course: Path, compiling: list[str]) -> float:
    """What `course release` does after releasing: warm the course's compile caches."""
    started = time.perf_counter()
    loaded = Course(course)
    compile_cache.warm(loaded, compiling, loaded.limits(), log=lambda message: None)
    return time.perf_counter() - started


def parallel(course: Path, *flags: str, timing_log: Path | None = None) -> float:
    env = dict(os.environ, GRADERS_TIMING_LOG=str(timing_log)) if timing_log else None
    started = time.perf_counter()
    subprocess.run([str(Path(sys.executable).parent / "course"), "autograde", "--course-dir", str(course),
                    "--workers", "2", *flags], check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def copy_caches(source: Path, target: Path, compiling: list[str]) -> None:
    """The same warmed caches for another course built from the same notebooks (keyed by the
    reference notebook and torch's version, so a copy is what a warm-up would build)."""
    for stem in compiling:
        shutil.copytree(compile_cache.location(source, stem), compile_cache.location(target, stem), symlinks=True)


class Timed(float):
    start = 0.0


def on_local_cluster(course: Path, processes: int) -> Timed:
    """`course autograde --scheduler` against a LocalCluster of 2 threads in all, started here
    (its start-up, which a real cluster pays once, is timed apart)."""
    from distributed import LocalCluster
    started = time.perf_counter()
    with LocalCluster(n_workers=processes, threads_per_worker=2 // processes, processes=True,
                      dashboard_address=":0", memory_limit=0) as cluster:
        start = time.perf_counter() - started
        took = Timed(parallel(course, "--scheduler", cluster.scheduler_address))
    took.start = start
    return took


SUBMISSION_PHASES = ("total", "worker: sanitize (nbgrader), review", "worker: judge", "worker: finish (nbgrader)",
                     "main: intake (gradebook, files, status)")


def per_notebook(timing_log: Path) -> dict[str, tuple[int, float, float]]:
    """{assignment: (submissions, mean wall s, mean CPU s)}: a submission's own seconds, from
    its sandbox's start to its intake (the phases of SUBMISSION_PHASES, summed)."""
    found: dict[str, list[tuple[float, float]]] = {}
    if timing_log.exists():
        for line in map(json.loads, timing_log.read_text().splitlines()):
            phases = line["phases"]
            found.setdefault(line["key"].rsplit("/", 1)[-1], []).append(
                (sum(phases.get(p, (0, 0))[0] for p in SUBMISSION_PHASES),
                 sum(phases.get(p, (0, 0))[1] for p in SUBMISSION_PHASES)))
    return {a: (len(v), sum(w for w, _ in v) / len(v), sum(c for _, c in v) / len(v)) for a, v in found.items()}


def compare_notebooks(now: Path, before: Path, label: str) -> str:
    """Per notebook: a submission's wall and CPU seconds judged outside against ``label``."""
    a, b = per_notebook(now), per_notebook(before)
    rows = [f"per notebook, one submission (mean)    judged outside: wall / CPU s   {label}: wall / CPU s   wall ratio"]
    for name in sorted(set(a) & set(b)):
        (n, wall, cpu), (_, wall0, cpu0) = a[name], b[name]
        rows.append(f"  {name:<18} ({n}){wall:>20.2f} / {cpu:.2f}{wall0:>22.2f} / {cpu0:.2f}{wall / wall0:>13.2f}x")
    return "\n".join(rows)


def breakdown(timing_log: Path) -> str:
    """Mean wall and CPU seconds per submission, per phase, from the harness's timing log."""
    if not timing_log.exists():
        return "no submission was executed: no breakdown (the grades above say why)"
    lines = [json.loads(line) for line in timing_log.read_text().splitlines()]
    totals: dict[str, list[float]] = {}
    for line in lines:
        for phase, (wall, cpu) in line["phases"].items():
            total = totals.setdefault(phase, [0.0, 0.0])
            total[0] += wall
            total[1] += cpu
    order = ["template start (once per worker)",
             "sandbox+runner start", "kernel start", "imports", "student's cells", "integrity checks",
             "teardown, result", "total", "worker: sanitize (nbgrader), review", "worker: judge",
             "worker: finish (nbgrader)",
             "main: intake (gradebook, files, status)"]
    rows = [f"per submission (mean of {len(lines)})       wall s   CPU s"]
    for phase in order + sorted(set(totals) - set(order)):
        if phase in totals:
            wall, cpu = (v / len(lines) for v in totals[phase])
            label = "  = sandbox total" if phase == "total" else phase
            rows.append(f"  {label:<42}{wall:>7.2f}{cpu:>8.2f}")
    cpu_all = sum(totals.get(p, [0, 0])[1] for p in SUBMISSION_PHASES) / len(lines)
    rows.append(f"  {'CPU per submission, all processes':<42}{'':>7}{cpu_all:>8.2f}")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--notebooks", nargs="*", default=available_assignments())
    parser.add_argument("--repeat", type=int, default=1, help="runs of the ratio, each on fresh courses")
    parser.add_argument("--no-sandbox-too", action="store_true", help="also time --no-sandbox")
    parser.add_argument("--local-cluster", action="store_true",
                        help="also time --scheduler on a LocalCluster of 2 threads")
    parser.add_argument("--cluster-processes", type=int, choices=(1, 2), default=1,
                        help="the LocalCluster's worker processes (1: one of 2 threads; 2: two of 1)")
    parser.add_argument("--baseline", metavar="REV",
                        help="also grade the notebooks as they were at this git revision (verdicts in the kernel)")
    parser.add_argument("--compile-cache", choices=("warm", "cold"), default="warm",
                        help="warm: both sides' compile caches warmed (and timed) before grading, "
                             "as in a released course; cold: neither")
    args = parser.parse_args()
    ok = True
    for run in range(args.repeat):
        ok &= once(args, run)
    return 0 if ok else 1


def once(args, run: int) -> bool:
    with tempfile.TemporaryDirectory(prefix="grading-bench-") as tmp:
        names = ("sequential", "parallel") + ("nosandbox",) * args.no_sandbox_too + ("cluster",) * args.local_cluster
        courses = {name: Path(tmp) / name for name in names}
        n = 0
        for course in courses.values():
            n = build(course, args.notebooks, args.copies)
        if args.baseline:
            courses["baseline"] = Path(tmp) / "baseline"
            build(courses["baseline"], args.notebooks, args.copies, rev=args.baseline)
        inductor = Path(tmp) / "inductor-cache"
        compiling = compile_cache.needing_warm_up(Course(courses["parallel"]), args.notebooks)
        warmed = {}
        if args.compile_cache == "warm" and compiling:
            warmed = {"nbgrader": warm_sequential(courses["sequential"], compiling, inductor),
                      "parallel": warm_course(courses["parallel"], compiling)}
            for name in names[2:]:  # --no-sandbox-too, --local-cluster: their own copies
                copy_caches(courses["parallel"], courses[name], compiling)
            if args.baseline:
                warmed["baseline"] = warm_course(courses["baseline"], compiling)
        references = {name: warm_references(courses[name], args.notebooks) for name in names[1:]}
        load = os.getloadavg()
        timing_log = Path(tmp) / "timing.jsonl"
        t_seq = sequential(courses["sequential"], args.notebooks, inductor)
        t_par = parallel(courses["parallel"], timing_log=timing_log)
        t_raw = parallel(courses["nosandbox"], "--no-sandbox") if args.no_sandbox_too else None
        t_dask = on_local_cluster(courses["cluster"], args.cluster_processes) if args.local_cluster else None
        t_base = parallel(courses["baseline"], timing_log=Path(tmp) / "baseline.jsonl") if args.baseline else None
        base_table = breakdown(Path(tmp) / "baseline.jsonl") if args.baseline else ""
        by_notebook = compare_notebooks(timing_log, Path(tmp) / "baseline.jsonl",
                                        f"at {args.baseline[:10]}") if args.baseline else ""
        same = all(grades(courses["sequential"]) == grades(c) for name, c in courses.items() if name != "baseline")
        table = breakdown(timing_log)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"run {run + 1}: {n} notebooks ({args.copies} copies of {', '.join(args.notebooks)}), "
          f"{os.cpu_count()} cores, load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'run':<34}{'seconds':>9}{'s/notebook':>12}")
    runs = [("nbgrader autograde (sequential)", t_seq), ("course autograde --workers 2", t_par)]
    if t_raw is not None:
        runs.append(("  ... --no-sandbox", t_raw))
    if t_dask is not None:
        runs.append(("course autograde --scheduler", t_dask))
    if t_base is not None:
        runs.append((f"  ... notebooks at {args.baseline[:10]}", t_base))
    for label, t in runs:
        print(f"{label:<34}{t:>9.1f}{t / n:>12.2f}")
    print(f"speed-up (sequential / parallel): {t_seq / t_par:.2f}x   grades identical: {same}")
    if args.compile_cache == "cold":
        print("compile caches: cold (nbgrader's first 06 compiles cold; the course's warms beside the batch)")
    elif warmed:
        ours, theirs = warmed["parallel"], warmed["nbgrader"]
        print(f"compile caches warmed before the clock: nbgrader's Inductor cache {theirs:.1f} s (one plain "
              f"run of each compiling reference notebook), the course's {ours:.1f} s (`course release` "
              f"does it); counting them: {(t_seq + theirs) / (t_par + ours):.2f}x")
    if t_dask is not None:
        layout = f"{args.cluster_processes} worker process(es) x {2 // args.cluster_processes} thread(s)"
        print(f"--scheduler: LocalCluster of {layout}, started in {t_dask.start:.1f} s (not counted); "
              f"sequential / --scheduler: {t_seq / t_dask:.2f}x")
    if t_raw is not None:
        print(f"sandbox cost: {(t_par - t_raw) / n * 2:+.2f} s per notebook (per worker)")
    if t_base is not None:
        print(f"judged outside the kernel / verdicts in the kernel (notebooks at {args.baseline[:10]}): "
              f"{t_par / t_base:.2f}x per submission; reference runs before the clock: "
              + ", ".join(f"{name} {t:.1f} s" for name, t in references.items()))
    print(table)
    if t_base is not None:
        print(f"notebooks at {args.baseline[:10]}:")
        print(base_table)
        print(by_notebook)
    print()
    return same


if __name__ == "__main__":
    sys.exit(main())
