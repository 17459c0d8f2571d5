"""Control change -> new picture painted, per instrument, measured in a real browser.

    python benchmarks/browser_latency.py [--repeat N] [--notebooks 01_tensors 02_autograd ...]
                                         [--before REF [--paths helpers/explorer.py ...]]

Releases the course, fills in the reference answers, serves the copies with JupyterLab (the
student's lab configuration) and opens each notebook in headless Chromium (2 device pixels
per CSS pixel). After "Run All", each instrument gets N changes of one control: a slider
moved with the arrow keys (left first when it starts at its maximum), else a text box
re-typed and applied with Enter, else a checkbox, else a dropdown.
The clock runs inside the page, from the key or change event to the first animation frame
after the new image has been decoded (what the student sees), and the table gives the median
and 95th percentile per instrument. Budget: median <= 50 ms, p95 <= 150 ms. Times depend on
the machine's load; nothing here asserts them.

The first row, "the lab's own round trip", is no instrument: a text box whose kernel-side
handler only swaps a 300x40 SVG. It is the floor under every instrument here: key, the
message to the kernel through the server and back, and the new picture decoded and painted.

Each sample is also split where the time goes, by the page's clock and the kernel's (each
message's header says when the kernel made it): the page until its message leaves ("send"),
the server and the kernel until the kernel says it is busy ("to kernel"), the kernel until it
makes the picture's message ("kernel": the instrument's model, drawing and SVG, and the
widget messages before it), that message's way to the page ("back"), the page until the
image's src is set ("widget"), decoding ("decode") and the next frame ("paint").

``--before REF`` measures, in the same run, a second lab whose ``--paths`` (default
helpers/explorer.py) are as they were at git REF, on its own copies of the same notebooks;
both labs have the notebook open and take turns change by change, so that both see the
same load.
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import nbformat  # noqa: E402
from nbformat.v4 import new_code_cell, new_notebook  # noqa: E402

FLOOR = "00_round_trip"
# The floor: a text box and an image, and a handler that does nothing else but swap the image.
FLOOR_CELL = """import ipywidgets as w
def svg(text):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40">'
            f'<text x="4" y="24">{text}</text></svg>').encode()
box = w.Text(value="2, 3", continuous_update=False)
picture = w.Image(value=svg(box.value), format="svg+xml")
box.observe(lambda change: setattr(picture, "value", svg(change.new)), "value")
floor = w.VBox([w.HTML("<b class='course-explorer-title'>the lab's own round trip</b>"), box, picture])
floor.add_class("course-explorer")
floor"""

# Every websocket message the page sends or receives: when (performance.now()) and how many
# bytes. Installed before JupyterLab loads (it wraps WebSocket's send and onmessage).
WEBSOCKET_LOG = """(() => {
    const log = window.__wslog = [];
    const size = d => d == null ? 0 : (d.byteLength ?? d.size ?? d.length ?? 0);
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
        log.push({out: true, t: performance.now(), bytes: size(data)});
        return send.call(this, data);
    };
    // the kernel's own clock: when it made the message (its header's date), on this page's clock
    const header = d => {
        try {
            if (typeof d === 'string') return JSON.parse(d).header;
            const view = new DataView(d), at = k => Number(view.getBigUint64(8 * (1 + k), true));
            return JSON.parse(new TextDecoder().decode(new Uint8Array(d, at(1), at(2) - at(1))));
        } catch (e) { return null; }
    };
    const handler = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'onmessage');
    Object.defineProperty(WebSocket.prototype, 'onmessage', {
        configurable: true,
        get() { return handler.get.call(this); },
        set(fn) {
            handler.set.call(this, fn && function (event) {
                const t = performance.now(), h = header(event.data);
                log.push({out: false, t, bytes: size(event.data), type: h ? h.msg_type : '',
                          made: h && h.date ? Date.parse(h.date) - performance.timeOrigin : NaN});
                return fn.call(this, event);
            });
        },
    });
})();"""

# Installs the clock on one explorer: start at a keydown (Enter or an arrow) or a change event
# inside it, stop at the first frame after a new <img src> has decoded. Each sample also
# splits that time, by the page's clock and the kernel's (each message's header says when the
# kernel made it; one machine, one clock): the page until its first message to the kernel
# ("send"); the server and the kernel until the kernel's first message back, its "busy"
# ("to kernel"); the kernel until it made the picture's message, the largest one back
# ("kernel"); that message's way to the page ("back"); the page until the image's src is set
# ("widget"), decoding ("decode") and the next frame ("paint"); with the picture's bytes and
# the messages each way.
CLOCK = """el => {
    const clock = {t0: null, samples: [], parts: []};
    el.__clock = clock;
    const start = () => { clock.t0 = performance.now(); };
    el.addEventListener('keydown', e => {
        if (e.key === 'Enter' || e.key.startsWith('Arrow')) start(); }, true);
    el.addEventListener('change', e => {
        if (e.target.tagName === 'SELECT' || e.target.type === 'checkbox') start(); }, true);
    new MutationObserver(mutations => {
        for (const m of mutations) {
            if (m.attributeName !== 'src' || clock.t0 === null) continue;
            const t0 = clock.t0, src = performance.now();
            clock.t0 = null;
            const log = (window.__wslog || []).filter(e => e.t >= t0 && e.t <= src);
            const sent = log.find(e => e.out);
            const back = log.filter(e => !e.out);
            const picture = back.reduce((a, b) => (b.bytes > (a ? a.bytes : -1) ? b : a), null);
            m.target.decode().catch(() => null).then(() => {
                const decoded = performance.now();
                requestAnimationFrame(() => {
                    const painted = performance.now();
                    clock.samples.push(painted - t0);
                    const first = back.reduce((a, b) => (b.made < (a ? a.made : Infinity) ? b : a), null);
                    clock.parts.push({
                        send: sent ? sent.t - t0 : NaN,
                        "to kernel": sent && first ? first.made - sent.t : NaN,
                        kernel: first && picture ? picture.made - first.made : NaN,
                        back: picture ? picture.t - picture.made : NaN,
                        widget: picture ? src - picture.t : NaN,
                        decode: decoded - src, paint: painted - decoded,
                        bytes: picture ? picture.bytes : 0,
                        out: log.filter(e => e.out).length, in: back.length,
                        types: back.map(e => e.type).join(' ')});
                });
            });
        }
    }).observe(el, {subtree: true, attributes: true, attributeFilter: ['src']});
}"""
PARTS = ("send", "to kernel", "kernel", "back", "widget", "decode", "paint")


def samples(explorer) -> int:
    return explorer.evaluate("el => el.__clock.samples.length")


def wait_sample(page, explorer, before: int, timeout_ms: int = 15_000) -> bool:
    try:
        page.wait_for_function("([el, n]) => el.__clock.samples.length > n",
                               arg=[explorer.element_handle(), before], timeout=timeout_ms)
        return True
    except Exception:  # playwright's TimeoutError: this change drew nothing
        return False


def actions(page, explorer):
    """Yield (label, [action, undo]) candidates: each action changes one control."""
    for handle in explorer.locator(".noUi-handle").all()[:1]:
        right, left = ([lambda h=handle, k=key: (h.focus(), h.press(k))]
                       for key in ("ArrowRight", "ArrowLeft"))
        yield "slider (arrow keys)", right + left
        yield "slider (arrow keys)", left + right  # a slider that starts at its maximum
    for box in explorer.locator("input[type=text]").all():
        current = box.input_value()
        for candidate in dict.fromkeys([re.sub(r"\d+", "1", current), re.sub(r"\d+", "2", current)]):
            if candidate and candidate != current:
                def typed(value, box=box):
                    return lambda: (box.fill(value), box.press("Enter"))
                yield f"text box + Enter ({current!r} <-> {candidate!r})", [typed(candidate), typed(current)]
    for box in explorer.locator("input[type=checkbox]").all()[:1]:
        yield "checkbox", [box.click, box.click]
    for select in explorer.locator("select").all()[:1]:
        current = select.input_value()
        others = [o.get_attribute("value") for o in select.locator("option").all()]
        others = [v for v in others if v is not None and v != current]
        if others:
            yield "dropdown", [lambda s=select, v=others[0]: s.select_option(value=v),
                               lambda s=select, v=current: s.select_option(value=v)]


def ready(page, explorer):
    """Install the clock and find a control change that redraws (then undo it); (label, do,
    undo), or None when no control redraws."""
    explorer.evaluate(CLOCK)
    for label, (do, undo) in actions(page, explorer):
        before = samples(explorer)
        do()
        if not wait_sample(page, explorer, before):
            undo()
            page.wait_for_timeout(1000)
            continue
        undo()
        wait_sample(page, explorer, before + 1)
        page.wait_for_timeout(300)
        return label, do, undo
    return None


def measure(pages: dict, repeat: int) -> dict:
    """{lab: (label, samples, parts)} for one instrument open in each lab's page: ``repeat``
    changes each, taking turns change by change (the labs swap who goes first every round),
    so that a change in one lab and the next in the other meet the same load."""
    found = {which: ready(page, explorer) for which, (page, explorer) in pages.items()}
    taking = [which for which, got in found.items() if got]
    starts = {which: samples(pages[which][1]) for which in taking}
    for k in range(repeat):
        for which in (taking if k % 2 == 0 else taking[::-1]):
            page, explorer = pages[which]
            _label, do, undo = found[which]
            count = samples(explorer)
            (do if k % 2 == 0 else undo)()
            wait_sample(page, explorer, count)
            page.wait_for_timeout(150)  # a student does not type faster than this
    result = {}
    for which, (_page, explorer) in pages.items():
        if not found[which]:
            result[which] = ("no control redrew", [], [])
            continue
        result[which] = (found[which][0], explorer.evaluate("el => el.__clock.samples").copy()[starts[which]:],
                         explorer.evaluate("el => el.__clock.parts").copy()[starts[which]:])
    return result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def before_tree(tmp: Path, ref: str, paths: list[str]) -> Path:
    """This checkout's helpers/ and lab/, with ``paths`` as they were at git ``ref``: the code
    "before" a change, run on the same notebooks (a path absent at ref is removed)."""
    import shutil
    import subprocess

    tree = tmp / "before"
    for folder in ("helpers", "lab"):
        shutil.copytree(REPO / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__"))
    for path in paths:
        shown = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=REPO, capture_output=True)
        if shown.returncode == 0:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_bytes(shown.stdout)
        else:
            (tree / path).unlink(missing_ok=True)
    # a module moved since ref (helpers/rerun.py is helpers/lab/rerun.py now) keeps its old
    # name too, so that the files taken from ref and ref's lab configuration find it
    listed = subprocess.run(["git", "ls-tree", "--name-only", ref, "helpers/"], cwd=REPO,
                            capture_output=True, text=True).stdout.split()
    for old in listed:
        moved = tree / "helpers" / "lab" / Path(old).name
        if old.endswith(".py") and not (tree / old).exists() and moved.exists():
            name = f"helpers.lab.{moved.stem}"
            (tree / old).write_text("import importlib, sys\n"
                                    f"sys.modules[__name__] = importlib.import_module({name!r})\n")
    return tree


def median_parts(parts: list[dict]) -> dict:
    keys = [*PARTS, "bytes", "out", "in"]
    return {k: statistics.median([p[k] for p in parts if p.get(k) == p.get(k) and p.get(k) is not None] or [math.nan])
            for k in keys}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--notebooks", nargs="*")
    parser.add_argument("--before", metavar="REF",
                        help="also measure, in the same run and on the same notebooks, a lab whose "
                             "--paths are as they were at git REF (both labs alternate notebook by notebook)")
    parser.add_argument("--paths", nargs="*", default=["helpers/explorer.py"],
                        help="what --before takes from REF (default: helpers/explorer.py)")
    args = parser.parse_args()

    import test_browser as browser_test
    from authoring import submissions
    from graders.course.release import release
    from labserver import LAB_CONFIG, chromium, start_lab

    notebooks = args.notebooks or sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
    stems = [FLOOR] + notebooks
    rows = []
    # a SIGTERM ends the run as Ctrl-C does: the labs (their own process groups) are stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        course = tmp / "course"
        release(course, notebooks)
        floor = new_notebook(cells=[new_code_cell(FLOOR_CELL)])
        floor.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        copies = {FLOOR: floor}
        for stem in notebooks:
            source = submissions.read(course / "source" / stem / f"{stem}.ipynb")
            released = submissions.read(course / "release" / stem / f"{stem}.ipynb")
            copies[stem] = submissions.reference(source, released)

        def folder(name: str) -> Path:
            """Each lab its own copies: one lab's autosave must not reach the other's notebook."""
            root = tmp / name
            root.mkdir()
            for stem, nb in copies.items():
                nbformat.write(nb, str(root / f"{stem}.ipynb"))
            return root

        servers, roots = {}, {}
        try:
            if args.before:
                tree = before_tree(tmp, args.before, args.paths)
                env = {"PYTHONPATH": str(tree)}
                if any(p.startswith("lab/") for p in args.paths):
                    env["JUPYTER_CONFIG_PATH"] = str(tree / "lab")
                which = f"before ({args.before})"
                roots[which] = folder("lab-before")
                servers[which] = start_lab(roots[which], tmp / "home-before", env=env)
            roots["now"] = folder("lab")
            servers["now"] = start_lab(roots["now"], tmp / "home")
            assert LAB_CONFIG.exists()
            with chromium() as browser:
                labs = {which: browser_test.Lab(server, browser, roots[which]) for which, server in servers.items()}
                for stem in stems:
                    opened = {}
                    try:
                        for which, lab in labs.items():  # both notebooks live, each in its lab
                            context, page, panel, _ = lab.open(f"{stem}.ipynb", f"latency-{stem}",
                                                               init_script=WEBSOCKET_LOG)
                            opened[which] = (context, page, panel)
                            browser_test.run_all(page)
                        count = min(panel.locator(".course-explorer").count() for _, _, panel in opened.values())
                        for index in range(count):
                            pages = {}
                            for which, (_, page, panel) in opened.items():
                                explorer = panel.locator(".course-explorer").nth(index)
                                explorer.scroll_into_view_if_needed()
                                pages[which] = (page, explorer)
                            title = explorer.locator(".course-explorer-title")
                            name = title.first.inner_text() if title.count() else f"instrument {index}"
                            started = time.perf_counter()
                            for which, (label, times, parts) in measure(pages, args.repeat).items():
                                rows.append((which, stem, name, label, times, parts))
                                print(f"  {which} {stem} {name}: {len(times)} samples; messages back for "
                                      f"one change: {parts[-1]['types'] if parts else '-'}", file=sys.stderr)
                            print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
                    finally:
                        for which, (context, _, _) in opened.items():
                            context.close()
                            labs[which].server.shutdown_kernels()
        finally:
            for server in servers.values():
                server.stop()

    header = (f"{'lab':<14} {'notebook':<17} {'instrument':<40} {'n':>3} {'median':>7} {'p95':>7}  "
              + " ".join(f"{p:>9}" for p in PARTS) + f" {'KB':>6} {'out':>4} {'in':>4}  control")
    print("\nms; the parts are medians: " + ", ".join(PARTS) + " (see CLOCK); KB: the picture's message")
    print(header)
    for which, stem, name, label, times, parts in sorted(rows, key=lambda r: (stems.index(r[1]), r[2], r[0])):
        lab = which.split(" ")[0]
        if not times:
            print(f"{lab:<14} {stem:<17} {name[:40]:<40} {0:>3} {'-':>7} {'-':>7}  {label}")
            continue
        m = median_parts(parts)
        print(f"{lab:<14} {stem:<17} {name[:40]:<40} {len(times):>3} {statistics.median(times):>7.1f} "
              f"{percentile(times, 0.95):>7.1f}  " + " ".join(f"{m[p]:>9.1f}" for p in PARTS)
              + f" {m['bytes'] / 1024:>6.1f} {m['out']:>4.0f} {m['in']:>4.0f}  {label}")


if __name__ == "__main__":
    main()
