"""The lessons in a real browser: JupyterLab in headless Chromium, driven by Playwright.

A student copy of every released notebook, with the reference answers filled in, is opened
in JupyterLab and run with "Run All Cells". Every cell must finish without an error or
stderr output, every instrument must render (controls and a figure) and respond to a control
by redrawing its figure. nbgrader's Validate button must pass the completed notebook and name
the failing exercises of the untouched release. The page may only talk to 127.0.0.1: any other
request is aborted, recorded, and fails the test.

Screenshots go to $COURSE_SCREENSHOTS (default artifacts/screenshots/, gitignored).
"""

from __future__ import annotations

import os
import re
import shutil
import time
import urllib.parse
from pathlib import Path

import nbformat
import pytest

from conftest import REPO, require_program
from labserver import start_lab

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
STEMS = sorted(p.stem for p in (REPO / "notebooks").glob("*.ipynb"))
SCREENSHOTS = Path(os.environ.get("COURSE_SCREENSHOTS", REPO / "artifacts" / "screenshots"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}

# Waits are generous (a loaded 2-core machine runs torch notebooks) but always bounded.
LOAD_MS = 120_000
RUN_ALL_MS = 600_000
UPDATE_MS = 30_000
VALIDATE_MS = 600_000
RETRY_S = 30       # seconds to wait for a Run All click to start something
START_CLICKS = 3
NUDGE_MS = 10_000

EXPLORE_CALL = re.compile(r"\bexplore\w*\s*\(")
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
CONTROLS = ("select, input, textarea, button, .noUi-handle, .widget-slider, .widget-dropdown, "
            ".widget-toggle-buttons, .widget-checkbox")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


def explore_calls(nb) -> int:
    """How many instruments the notebook displays: explore*() calls outside comments and defs."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for line in cell.source.splitlines():
            code = line.split("#", 1)[0]
            if code.lstrip().startswith("def "):
                continue
            count += len(EXPLORE_CALL.findall(code))
    return count


def test_cells_sources(nb) -> list[str]:
    """Sources of nbgrader's autograded test cells."""
    return [c.source for c in nb.cells
            if c.cell_type == "code" and c.get("metadata", {}).get("nbgrader", {}).get("grade")]


test_cells_sources.__test__ = False  # a helper, not a pytest test


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Release the course, build completed and untouched student copies, serve them in JupyterLab."""
    require_program(CHROMIUM, "chromium")
    from playwright.sync_api import sync_playwright

    from graders import submissions
    from graders.release import release

    tmp = tmp_path_factory.mktemp("browser")
    course, root = tmp / "course", tmp / "lab"
    release(course, STEMS)
    for stem in STEMS:
        source = submissions.read(course / "source" / stem / f"{stem}.ipynb")
        released = submissions.read(course / "release" / stem / f"{stem}.ipynb")
        for folder, nb in (("completed", submissions.reference(source, released)),
                           ("untouched", released)):
            (root / folder).mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, str(root / folder / f"{stem}.ipynb"))
    # nbgrader's Validate handler reads nbgrader_config.py from the server's working directory:
    # give it the course's per-cell timeout.
    shutil.copyfile(course / "nbgrader_config.py", root / "nbgrader_config.py")

    server = start_lab(root, tmp / "jupyter-home")
    playwright = browser = None
    try:
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                             headless=True)
        yield Lab(server, browser, root)
    finally:
        try:
            if browser is not None:
                browser.close()
        finally:
            try:
                if playwright is not None:
                    playwright.stop()
            finally:
                server.stop()


class Lab:
    def __init__(self, server, browser, root: Path):
        self.server, self.browser, self.root = server, browser, root

    def open(self, path: str, workspace: str):
        """A new page showing the notebook at path; returns (context, page, blocked requests)."""
        context = self.browser.new_context(viewport={"width": 1400, "height": 1800})
        blocked: list[str] = []

        def route(route):
            url = route.request.url
            if urllib.parse.urlsplit(url).hostname in LOCAL_HOSTS:
                route.continue_()
            else:
                blocked.append(url)
                route.abort()

        context.route("**/*", route)
        page = context.new_page()
        page.on("websocket", lambda ws: None if urllib.parse.urlsplit(ws.url).hostname in LOCAL_HOSTS
                else blocked.append(ws.url))
        page.set_default_timeout(LOAD_MS)
        url = (f"{self.server.base}/lab/workspaces/{workspace}/tree/{path}"
               f"?reset&token={self.server.token}")
        page.goto(url, wait_until="domcontentloaded")
        panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)").first
        panel.locator(".jp-Cell").first.wait_for()
        wait_kernel_idle(page)
        return context, page, panel, blocked


def wait_kernel_idle(page, timeout=LOAD_MS):
    page.wait_for_function(
        """() => {
            const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
            if (!panel) return false;
            const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
            return ind !== null && ind.getAttribute('data-status') === 'idle';
        }""", timeout=timeout)


PROGRESS = """() => {
    const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
    const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
        .map(p => p.textContent.trim());
    const ind = panel.querySelector('.jp-Notebook-ExecutionIndicator');
    return {total: prompts.length,
            numbered: prompts.filter(p => /^\\[\\d+\\]:$/.test(p)).length,
            busy: prompts.filter(p => p.includes('*')).length,
            status: ind ? ind.getAttribute('data-status') : null};
}"""


def click_run_all(page) -> None:
    # Focus the notebook (the Run menu acts on the current widget), then Run > Run All Cells.
    page.locator(".jp-NotebookPanel .jp-Cell .jp-InputPrompt").first.click()
    page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-item:not(.lm-mod-disabled)",
                 has_text=re.compile(r"^Run All Cells")).first.click()


def run_all(page) -> dict:
    """Run > Run All Cells; wait until the run is over; return the last progress reading.

    Over means: the kernel is idle, no cell is queued or running ([*]), at least one cell
    ran, and that has held for three readings in a row (Lab stops a run at an error, so
    "every cell numbered" alone could never come).
    """
    started = time.monotonic()
    deadline = started + RUN_ALL_MS / 1000
    clicks, clicked = 0, 0.0
    steady, progress = 0, {}
    while time.monotonic() < deadline:
        progress = page.evaluate(PROGRESS)
        idle_before_start = progress["numbered"] == progress["busy"] == 0
        if idle_before_start and time.monotonic() - clicked > RETRY_S:
            # On a cold lab the first click can land before the notebook is ready to run;
            # nothing has run yet, so asking again is safe (as a person would click again).
            if clicks == START_CLICKS:
                raise AssertionError(f"Run All Cells started nothing after {clicks} clicks: {progress}")
            click_run_all(page)
            clicks, clicked = clicks + 1, time.monotonic()
            continue
        over = progress["status"] == "idle" and progress["busy"] == 0 and progress["numbered"] > 0
        steady = steady + 1 if over else 0
        if steady >= 3:
            return progress
        time.sleep(1)
    raise AssertionError(f"Run All Cells did not finish within {RUN_ALL_MS / 1000:.0f} s: {progress}")


def error_outputs(panel) -> list[str]:
    """Text of each stderr/error output, prefixed by the start of its cell's source."""
    found = []
    for cell in panel.locator(".jp-CodeCell").all():
        errors = cell.locator(ERROR_OUTPUT)
        if errors.count():
            source = cell.locator(".jp-InputArea-editor").inner_text()[:200]
            for text in errors.all_inner_texts():
                found.append(f"cell {source!r}:\n{text[:2000]}")
    return found


def image_src(explorer) -> str:
    return explorer.locator("img").first.get_attribute("src") or ""


def nudge(page, explorer, before: str) -> str | None:
    """Change controls one at a time until the figure's src changes; return what worked.

    Some settings are impossible (the instrument then shows a message in place of the
    figure), so a change that does not redraw is undone before the next control is tried.
    """
    state = {"before": before}

    def changed() -> bool:
        try:
            page.wait_for_function("([el, before]) => { const img = el.querySelector('img');"
                                   " return img && img.src && img.src !== before"
                                   " && img.offsetParent !== null; }",
                                   arg=[explorer.element_handle(), state["before"]], timeout=NUDGE_MS)
            return True
        except Exception:  # playwright's TimeoutError: this setting did not redraw
            return False

    def undone(restore) -> None:
        restore()
        changed()  # the original setting draws again (a new src)
        state["before"] = image_src(explorer)

    for handle in explorer.locator(".noUi-handle").all():
        for key in ("ArrowRight", "ArrowLeft"):
            handle.focus()
            handle.press(key)
            if changed():
                return f"slider {key}"
    for select in explorer.locator("select").all():
        current = select.input_value()
        for option in select.locator("option").all():
            value = option.get_attribute("value")
            if value is None or value == current:
                continue
            select.select_option(value=value)
            if changed():
                return f"dropdown -> {option.inner_text()!r}"
            undone(lambda: select.select_option(value=current))
    for button in explorer.locator(".widget-toggle-button:not(.mod-active)").all()[:1]:
        button.click()
        if changed():
            return "toggle button"
    for checkbox in explorer.locator("input[type=checkbox]").all()[:1]:
        checkbox.click()
        if changed():
            return "checkbox"
    for box in explorer.locator("input[type=text], input[type=number]").all():
        current = box.input_value()
        for candidate in dict.fromkeys([re.sub(r"\d+", "0", current), re.sub(r"\d+", "1", current)]):
            if candidate == current or not candidate:
                continue
            box.fill(candidate)
            box.press("Enter")
            if changed():
                return f"text {current!r} -> {candidate!r}"

            def restore(box=box, current=current):
                box.fill(current)
                box.press("Enter")
            undone(restore)
    return None


@pytest.mark.parametrize("stem", STEMS)
def test_notebook_runs_and_instruments_respond(lab, stem):
    expected = explore_calls(submissions_read(lab.root / "completed" / f"{stem}.ipynb"))
    context, page, panel, blocked = lab.open(f"completed/{stem}.ipynb", f"run-{stem}")
    try:
        progress = run_all(page)
        errors = error_outputs(panel)
        assert not errors, f"{stem}: cells wrote errors or stderr:\n" + "\n\n".join(errors)
        assert progress["numbered"] == progress["total"], \
            f"{stem}: only {progress['numbered']} of {progress['total']} code cells ran"

        explorers = panel.locator(".course-explorer")
        assert explorers.count() == expected, \
            f"{stem}: {explorers.count()} instruments rendered, the source calls explore() {expected} times"
        for index, explorer in enumerate(explorers.all()):
            explorer.scroll_into_view_if_needed()
            assert explorer.locator(CONTROLS).count() > 0, f"{stem}: instrument {index} has no controls"
            img = explorer.locator("img")
            assert img.count() >= 1, f"{stem}: instrument {index} has no figure"
            page.wait_for_function("el => { const i = el.querySelector('img');"
                                   " return i && i.naturalWidth > 0; }",
                                   arg=explorer.element_handle(), timeout=UPDATE_MS)
            how = nudge(page, explorer, image_src(explorer))
            assert how, f"{stem}: instrument {index} did not redraw its figure after any control changed"
            print(f"{stem}: instrument {index} redrew after {how}")

        if expected:
            explorers.first.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{stem}.png"))
        assert not blocked, f"{stem}: the page asked for non-local resources: {blocked}"
    except BaseException:
        shoot(page, f"{stem}-failed")
        raise
    finally:
        context.close()
        lab.server.shutdown_kernels()


def shoot(page, name: str) -> None:
    """A screenshot into SCREENSHOTS; never the reason a test fails."""
    try:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    except Exception:  # the page may be gone
        pass


def submissions_read(path: Path):
    return nbformat.read(str(path), as_version=4)


def validate(page) -> tuple[str, str]:
    """Press nbgrader's Validate toolbar button; return (result class, dialog text)."""
    page.locator(".validate-button").first.click()
    message = page.locator("#validation-message")
    message.wait_for(timeout=VALIDATE_MS)
    classes = message.get_attribute("class") or ""
    text = message.inner_text()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    return classes, text


def test_validate_completed_notebook_passes(lab):
    stem = STEMS[0]
    context, page, panel, blocked = lab.open(f"completed/{stem}.ipynb", f"validate-{stem}")
    try:
        classes, text = validate(page)
        assert "validation-success" in classes, f"Validate did not pass the reference answers:\n{text}"
        assert "passes all the tests" in text
        assert not blocked, f"non-local requests: {blocked}"
    finally:
        context.close()
        lab.server.shutdown_kernels()


def test_validate_untouched_release_names_failures(lab):
    stem = STEMS[0]
    released = submissions_read(lab.root / "untouched" / f"{stem}.ipynb")
    tests = test_cells_sources(released)
    assert tests, f"{stem} has no autograded test cells"
    context, page, panel, blocked = lab.open(f"untouched/{stem}.ipynb", f"validate-untouched-{stem}")
    try:
        classes, text = validate(page)
        assert "validation-failed" in classes, f"Validate did not fail the untouched release:\n{text}"
        assert text.count("The following cell failed") == len(tests), text
        for source in tests:
            first_line = source.strip().splitlines()[0]
            assert first_line in text, f"the dialog does not name the failing test {first_line!r}:\n{text}"
        assert not blocked, f"non-local requests: {blocked}"
    finally:
        context.close()
        lab.server.shutdown_kernels()
