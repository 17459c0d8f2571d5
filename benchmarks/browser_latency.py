"""Control change -> new picture painted, per instrument, measured in a real browser.

    python benchmarks/browser_latency.py [--repeat N] [--notebooks 01_tensors 02_autograd ...]

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
"""

from __future__ import annotations

import argparse
import re
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

# Installs the clock on one explorer: start at a keydown (Enter or an arrow) or a change event
# inside it, stop at the first frame after a new <img src> has decoded.
CLOCK = """el => {
    const clock = {t0: null, samples: []};
    el.__clock = clock;
    const start = () => { clock.t0 = performance.now(); };
    el.addEventListener('keydown', e => {
        if (e.key === 'Enter' || e.key.startsWith('Arrow')) start(); }, true);
    el.addEventListener('change', e => {
        if (e.target.tagName === 'SELECT' || e.target.type === 'checkbox') start(); }, true);
    new MutationObserver(mutations => {
        for (const m of mutations) {
            if (m.attributeName !== 'src' || clock.t0 === null) continue;
            const t0 = clock.t0; clock.t0 = null;
            m.target.decode().catch(() => null).then(() => requestAnimationFrame(
                () => clock.samples.push(performance.now() - t0)));
        }
    }).observe(el, {subtree: true, attributes: true, attributeFilter: ['src']});
}"""


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


def measure(page, explorer, repeat: int) -> tuple[str, list[float]]:
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
        start = samples(explorer)
        for k in range(repeat):
            count = samples(explorer)
            (do if k % 2 == 0 else undo)()
            wait_sample(page, explorer, count)
            page.wait_for_timeout(150)  # a student does not type faster than this
        return label, explorer.evaluate("el => el.__clock.samples").copy()[start:]
    return "no control redrew", []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--notebooks", nargs="*")
    args = parser.parse_args()

    import test_browser as browser_test
    from authoring import submissions
    from graders.course.release import release
    from labserver import chromium, start_lab

    notebooks = args.notebooks or sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
    stems = [FLOOR] + notebooks
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        course, root = Path(tmp) / "course", Path(tmp) / "lab"
        release(course, notebooks)
        root.mkdir()
        floor = new_notebook(cells=[new_code_cell(FLOOR_CELL)])
        floor.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(floor, str(root / f"{FLOOR}.ipynb"))
        for stem in notebooks:
            source = submissions.read(course / "source" / stem / f"{stem}.ipynb")
            released = submissions.read(course / "release" / stem / f"{stem}.ipynb")
            nbformat.write(submissions.reference(source, released), str(root / f"{stem}.ipynb"))
        server = start_lab(root, Path(tmp) / "home")
        try:
            with chromium() as browser:
                lab = browser_test.Lab(server, browser, root)
                for stem in stems:
                    context, page, panel, _ = lab.open(f"{stem}.ipynb", f"latency-{stem}")
                    try:
                        browser_test.run_all(page)
                        for index, explorer in enumerate(panel.locator(".course-explorer").all()):
                            explorer.scroll_into_view_if_needed()
                            title = explorer.locator(".course-explorer-title")
                            name = title.first.inner_text() if title.count() else f"instrument {index}"
                            started = time.perf_counter()
                            label, times = measure(page, explorer, args.repeat)
                            rows.append((stem, name, label, times))
                            print(f"  {stem} {name}: {len(times)} samples in "
                                  f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
                    finally:
                        context.close()
                        server.shutdown_kernels()
        finally:
            server.stop()

    print(f"\n{'notebook':<18} {'instrument':<44} {'n':>3} {'median ms':>10} {'p95 ms':>8}  control")
    for stem, name, label, times in rows:
        if times:
            print(f"{stem:<18} {name[:44]:<44} {len(times):>3} {statistics.median(times):>10.1f} "
                  f"{percentile(times, 0.95):>8.1f}  {label}")
        else:
            print(f"{stem:<18} {name[:44]:<44} {0:>3} {'-':>10} {'-':>8}  {label}")


if __name__ == "__main__":
    main()
