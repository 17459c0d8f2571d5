"""A class on a real JupyterHub, end to end, in headless Chromium.

The hub is deploy/hub's own (jupyterhub_config.py, configurable-http-proxy from npm, PAM
login of local Unix users, each user's server started as that user), for a throwaway class
(deploy.hub.throwaway: an instructor and two students, fresh Unix users, removed after):

1. the instructor runs `course release 01_tensors`, which publishes it to the exchange;
2. student A logs in, opens Nbgrader > Assignment List (the menu holds nothing else; the
   formgrader is not served), sees 01_tensors released, fetches it, opens it, answers two
   exercises (one with the reference answer, one with its first plausible wrong answer),
   validates (the dialog names the wrong answer's misconception and not the right one's
   test), and submits;
3. student B logs in, fetches and submits the copy untouched;
4. the exchange's warden (a service of the hub) freezes both submissions; as Unix user B:
   inbound and the frozen submissions cannot be listed, A's frozen notebook cannot be read,
   replaced or renamed, A's home and the course directory cannot be entered; A cannot change
   their own frozen submission either;
5. the instructor runs `course collect`, `course autograde`, `course feedback`, `course
   return` (as that Unix user, as in a terminal of their own lab); their lab has no
   formgrader and no Nbgrader menu, and the hub's formgrader service, on an origin of its
   own (formgrader--service.localhost), lists both submissions;
6. student A's Assignment List shows feedback to fetch; Fetch Feedback, then the page: the
   score the gradebook holds (the right exercise's points), the wrong answer's misconception
   named, no line of any hidden test.

One hub and one browser serve all steps (one test: each step needs the one before). Every
student-facing step is screenshotted to $HUB_SCREENSHOTS (default /tmp/hub-screens, emptied
first). Every user's server is on an origin of its own (JupyterHub's subdomain_host,
http://<user>.localhost:<port>: Chromium resolves *.localhost to this machine). The pages
may only talk to this machine.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from authoring import submissions
from conftest import REPO, require_program, require_root
from labserver import CHROMIUM, chromium, kill_group

sys.path.insert(0, str(REPO))  # deploy/ is a folder of the repository, not an installed package
from deploy.hub import setup  # noqa: E402
from deploy.hub.throwaway import Throwaway  # noqa: E402
from graders.course.config import Course  # noqa: E402
from graders.course.exchange import hidden_lines, page_text, released_lines, secrets  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("hub"), pytest.mark.timeout(1800)]

ASSIGNMENT = "01_tensors"
SCREENS = Path(os.environ.get("HUB_SCREENSHOTS", "/tmp/hub-screens"))
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def is_local(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    return host in LOCAL_HOSTS or host.endswith(".localhost")
LOAD_MS = 240_000      # a user's first server start imports JupyterLab on a busy machine
VALIDATE_MS = 600_000  # Validate executes the whole notebook
LAB_SETTINGS = ".jupyter/lab/user-settings/@jupyterlab/notebook-extension/tracker.jupyterlab-settings"


def answer_cells() -> tuple[tuple[str, str], tuple[str, str, str]]:
    """(right grade_id, its reference answer), (wrong grade_id, its wrong answer, the phrase
    naming its misconception): the first two exercises, in notebook order, whose reference
    answer and first wrong variant are one line each (they are typed into the browser)."""
    source = submissions.read(REPO / "notebooks" / f"{ASSIGNMENT}.ipynb")
    wrong, _ = submissions.load_variants(ASSIGNMENT)
    found = []
    for grade_id, code in submissions.solution_cells(source).items():
        answer = [line for line in code.splitlines() if "### BEGIN SOLUTION" not in line
                  and "### END SOLUTION" not in line]
        if len(answer) == 1 and grade_id in wrong:
            variant, phrase, _ = submissions.unpack(wrong[grade_id][0])
            if "\n" not in variant.strip():
                found.append((grade_id, answer[0].strip(), variant.strip(), phrase))
    assert len(found) >= 2, f"{ASSIGNMENT} has fewer than two one-line exercises with a one-line wrong answer"
    (right_id, right, _, _), (wrong_id, _, variant, phrase) = found[:2]
    return (right_id, right), (wrong_id, variant, phrase)


class Hub:
    def __init__(self, cls: Throwaway, process: subprocess.Popen, browser, log: Path):
        self.cls, self.process, self.browser, self.log = cls, process, browser, log
        self.base = cls.settings.subdomain_host  # http://localhost:<port>
        self.port = cls.settings.port
        self.blocked: list[str] = []

    def shot(self, page, name: str, full_page: bool = False) -> None:
        page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=full_page)

    def _local_only(self, route) -> None:
        if is_local(route.request.url):
            route.continue_()
        else:
            # the lab's and the hub's own pages must need nothing else; the feedback page,
            # shown in an iframe, asks a CDN for MathJax (nbgrader's template): aborted too
            if route.request.frame.parent_frame is None:
                self.blocked.append(route.request.url)
            route.abort()

    def log_in(self, user: str, shot: str | None = None):
        """A new browser context logged in as ``user``, on their lab; returns the page."""
        context = self.browser.new_context(viewport={"width": 1300, "height": 900})
        context.route("**/*", self._local_only)
        page = context.new_page()
        page.set_default_timeout(LOAD_MS)
        page.goto(f"{self.base}/hub/login", wait_until="domcontentloaded")
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", self.cls.settings.passwords[user])
        if shot:
            self.shot(page, shot)
        page.click("#login_submit")
        page.wait_for_url(f"**/user/{user}/lab**")
        page.locator(".jp-LabShell").wait_for()
        # the lab's first requests answered before the test moves on: a response to a page the
        # test had already left is no error of the server's, and must not read as one
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_load_state("networkidle", timeout=30_000)
        return page

    def assignment_list(self, page):
        """Nbgrader > Assignment List; returns the page once its three lists have loaded."""
        page.locator(".lm-MenuBar-item", has_text="Nbgrader").click()
        items = [t.strip() for t in page.locator(".lm-Menu-item:visible").all_text_contents() if t.strip()]
        assert items == ["Assignment List"], f"the student's Nbgrader menu holds {items}"
        page.locator(".lm-Menu-item", has_text="Assignment List").click()
        for name in ("released", "fetched", "submitted"):
            page.locator(f"#{name}_assignments_list_loading").wait_for(state="hidden")
        return page

    def rows(self, page, name: str):
        return page.locator(f"#{name}_assignments_list > .list_item")

    def wait_row(self, page, name: str, text: str):
        row = self.rows(page, name).filter(has_text=text).first
        row.wait_for()
        return row


@pytest.fixture(scope="module")
def hub():
    require_root("the hub test creates Unix users and starts their servers")
    require_program(CHROMIUM, "chromium")
    require_program("bwrap", "bubblewrap")
    require_program("configurable-http-proxy", f"configurable-http-proxy (npm, version {setup.proxy_version()})")
    if SCREENS.exists():
        for old in SCREENS.glob("*.png"):
            old.unlink()
    SCREENS.mkdir(parents=True, exist_ok=True)
    with Throwaway(students=2, grant=True) as cls:
        for student in cls.students:  # every cell in the page (no windowing), as the browser tests have it
            settings = Path(cls.env(student)["HOME"]) / LAB_SETTINGS
            cls.run(student, "mkdir", "-p", str(settings.parent))
            cls.run(student, str(cls.python), "-c",
                    f"open({str(settings)!r}, 'w').write('{{\"windowingMode\": \"none\"}}')")
        log = cls.root / "state" / "jupyterhub.log"
        process = setup.start(cls.root, log=log)
        try:
            wait_for_hub(cls.settings.subdomain_host, process, log)
            with chromium() as browser:
                yield Hub(cls, process, browser, log)
        finally:
            stop(process, cls)
            if log.exists():  # kept beside the screenshots: a failure's cause outlives the class
                shutil.copy(log, SCREENS / "jupyterhub.log")


def wait_for_hub(base: str, process: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"JupyterHub exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{base}/hub/api", timeout=5) as answer:
                json.loads(answer.read())
                return
        except (OSError, urllib.error.URLError, ValueError):
            time.sleep(0.5)
    raise TimeoutError(f"JupyterHub did not answer on {base} within {timeout} s:\n{log.read_text()[-4000:]}")


def stop(process: subprocess.Popen, cls: Throwaway) -> None:
    """The hub's group (the hub stops the users' servers first), then any process still
    running as one of the class's users (each started by this test: their servers, kernels)."""
    kill_group(process, grace=30)
    uids = set()
    for user in [cls.instructor, *cls.students]:
        try:
            uids.add(setup.account(user).pw_uid)
        except KeyError:
            pass
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and proc.stat().st_uid in uids:
                os.kill(int(proc.name), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def frozen(received: Path, student: str, timeout: float = 60) -> Path:
    """The student's submission once the exchange's warden has frozen it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = sorted(received.glob(f"{student}+{ASSIGNMENT}+*"))
        if found:
            return found[-1]
        time.sleep(0.5)
    raise TimeoutError(f"the warden froze no submission of {student} in {timeout} s (is it running? see the hub's log)")


def server_errors(log: Path) -> list[str]:
    """Each error the hub's log holds (JupyterHub's, a user server's), with its traceback's
    last line: what failed, not only where."""
    lines, found = log.read_text(errors="replace").splitlines(), []
    for at, line in enumerate(lines):
        if re.match(r"\[E ", line):
            after = [follow for follow in lines[at + 1:at + 60] if not follow.startswith("[")]
            cause = next((follow for follow in reversed(after) if re.match(r"\w[\w.]*(Error|Exception)\b", follow)), "")
            found.append(f"{line}\n    {cause}".rstrip())
    return found


def cell_index(nb, grade_id: str) -> int:
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def type_answer(page, index: int, code: str) -> None:
    """Replace cell ``index``'s source with ``code``, typed into its editor."""
    cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(index)
    cell.scroll_into_view_if_needed()
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(code)
    page.keyboard.press("Escape")


SAVED = "() => document.querySelectorAll('.lm-TabBar-tab.jp-mod-dirty').length === 0"
ANSWERED = ("() => document.querySelector('#validation-message')"
            " || document.querySelector('.nbgrader-ErrorDialog')")


def validate(page) -> tuple[str, str]:
    """nbgrader's Validate button, once the notebook is saved; (the result's classes, the
    dialog's text). An error dialog of nbgrader's ("Validation failed") fails with its text.
    A fresh clone once clicked while the lab's own save was still running ("Saving started"):
    the server validated in 12 s, and no dialog came in 600 s; after 120 s without either
    dialog the button is clicked once more."""
    page.wait_for_function(SAVED, timeout=VALIDATE_MS)
    button = page.locator(".validate-button").first
    button.click()
    try:
        page.wait_for_function(ANSWERED, timeout=120_000)
    except Exception:  # playwright's TimeoutError: no dialog at all; ask once more, unless still busy
        if "Validating" not in button.inner_text() and not page.evaluate(ANSWERED):
            button.click()
        page.wait_for_function(ANSWERED, timeout=VALIDATE_MS)
    # nbgrader shows failing cells in an ErrorDialog too; it could not validate: "Validation failed"
    error = page.locator(".nbgrader-ErrorDialog", has_text="Validation failed")
    assert not error.count(), f"nbgrader's Validate could not run: {error.first.inner_text()}"
    message = page.locator("#validation-message")
    message.wait_for(timeout=VALIDATE_MS)
    return message.get_attribute("class") or "", message.inner_text()


def test_a_class_on_a_hub(hub):
    cls, course_id = hub.cls, hub.cls.settings.course_id
    student_a, student_b = cls.students
    (right_id, right), (wrong_id, wrong, phrase) = answer_cells()
    started = time.monotonic()

    # 1. the instructor releases 01 (course release publishes to the hub's exchange)
    cls.course("release", ASSIGNMENT)
    outbound = Path(cls.settings.exchange) / course_id / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert outbound.is_file(), "course release did not publish to the exchange"

    # 2. student A: log in, Assignment List, fetch, answer, validate, submit
    page = hub.log_in(student_a, shot="01-login")
    formgrader = page.evaluate(f"fetch('/user/{student_a}/formgrader').then(r => r.status)")
    assert formgrader == 404, "a student's server serves the formgrader"
    hub.assignment_list(page)
    released = hub.wait_row(page, "released", ASSIGNMENT)
    assert course_id in released.inner_text()
    hub.shot(page, "02-a-assignment-list-released")
    released.locator(".item_status button", has_text="Fetch").click()
    fetched = hub.wait_row(page, "fetched", ASSIGNMENT)
    home_a = Path(cls.env(student_a)["HOME"])
    local = home_a / course_id / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert local.is_file() and local.stat().st_uid == setup.account(student_a).pw_uid
    fetched.locator("a", has_text=ASSIGNMENT).first.click()  # unfold: the notebook and its Validate
    hub.shot(page, "03-a-fetched")
    page.locator("#fetched_assignments_list .list_item .item_name a", has_text=ASSIGNMENT).last.click()
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Cell").first.wait_for()
    nb = nbformat.read(str(local), as_version=4)
    type_answer(page, cell_index(nb, right_id), right)
    type_answer(page, cell_index(nb, wrong_id), wrong)
    page.keyboard.press("Control+s")
    page.wait_for_function(SAVED, timeout=VALIDATE_MS)  # Lab 4 marks an unsaved tab jp-mod-dirty
    panel.locator(".jp-Cell").nth(cell_index(nb, wrong_id)).scroll_into_view_if_needed()
    hub.shot(page, "04-a-answered")
    classes, said = validate(page)
    hub.shot(page, "05-a-validate")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    assert "validation-failed" in classes, said  # the other exercises are not answered
    assert phrase in said, f"Validate does not name the wrong answer's misconception ({phrase!r}):\n{said}"
    saved = nbformat.read(str(local), as_version=4)
    assert saved.cells[cell_index(saved, right_id)].source == right
    assert saved.cells[cell_index(saved, wrong_id)].source == wrong
    page.locator(".lm-TabBar-tab", has_text="Assignments").click()
    hub.wait_row(page, "fetched", ASSIGNMENT).locator(".item_status button", has_text="Submit").click()
    submitted = hub.wait_row(page, "submitted", ASSIGNMENT)
    page.locator("#submitted_assignments_list", has_text="no feedback returned yet").wait_for()
    hub.shot(page, "06-a-submitted")
    assert "Fetch Feedback" in submitted.inner_text()

    # 3. student B fetches and submits the copy as released
    page_b = hub.log_in(student_b)
    hub.assignment_list(page_b)
    hub.wait_row(page_b, "released", ASSIGNMENT).locator(".item_status button", has_text="Fetch").click()
    hub.wait_row(page_b, "fetched", ASSIGNMENT)
    hub.shot(page_b, "07-b-fetched")
    hub.wait_row(page_b, "fetched", ASSIGNMENT).locator(".item_status button", has_text="Submit").click()
    hub.wait_row(page_b, "submitted", ASSIGNMENT)
    hub.shot(page_b, "08-b-submitted")

    # 4. B, as a Unix user, reaches nothing of A's
    inbound = Path(cls.settings.exchange) / course_id / "inbound"
    received = Path(cls.settings.exchange) / "received" / course_id
    submission_a = frozen(received, student_a)
    frozen(received, student_b)
    for action, path in [("list", inbound), ("list", received), ("read", submission_a / f"{ASSIGNMENT}.ipynb"),
                         ("overwrite", submission_a / f"{ASSIGNMENT}.ipynb"), ("rename", submission_a),
                         ("list", home_a), ("list", cls.course_dir)]:
        said_b = cls.attempt(student_b, action, path)
        assert said_b.startswith("DENIED"), f"{student_b} could {action} {path}: {said_b}"
    said_a = cls.attempt(student_a, "overwrite", submission_a / f"{ASSIGNMENT}.ipynb")
    assert said_a.startswith("DENIED"), f"{student_a} could change their frozen submission: {said_a}"

    # 5. the instructor collects, grades, writes and returns the feedback
    collected = cls.course("collect", ASSIGNMENT).stdout
    assert re.search(rf"^{student_a}\s", collected, re.M) and re.search(rf"^{student_b}\s", collected, re.M), collected
    graded = cls.course("autograde", ASSIGNMENT, timeout=900).stdout
    cls.course("feedback", ASSIGNMENT)
    returned = cls.course("return", ASSIGNMENT).stdout
    assert re.search(rf"^{student_a}\s+returned", returned, re.M), returned
    cls.course("export")
    with open(cls.course_dir / "grades.csv") as handle:
        grades = {row["student_id"]: row for row in csv.DictReader(handle)}
    points = submissions.test_cells(submissions.read(REPO / "notebooks" / f"{ASSIGNMENT}.ipynb"))
    expected = sum(points[t] for t in submissions.tests_of(nb)[right_id])
    assert float(grades[student_a]["score"]) == expected, (graded, grades)
    assert float(grades[student_b]["score"]) == 0.0, (graded, grades)
    max_score = float(grades[student_a]["max_score"])

    # the instructor's own server: JupyterLab on the course directory, with the formgrader
    page_i = hub.log_in(cls.instructor)
    menus = [t.strip() for t in page_i.locator(".lm-MenuBar-item").all_text_contents()]
    assert "Nbgrader" not in menus, f"the instructor's lab still has the Nbgrader menu: {menus}"
    assert page_i.evaluate(f"fetch('/user/{cls.instructor}/formgrader').then(r => r.status)") == 404
    disabled = page_i.evaluate("JSON.parse(document.getElementById('jupyter-config-data').textContent)"
                               ".disabledExtensions")
    assert "@jupyterlab/apputils-extension:announcements" in disabled, disabled  # no "news?" question
    page_i.goto(f"http://formgrader--service.localhost:{hub.port}/services/formgrader/formgrader/manage_assignments",
                wait_until="domcontentloaded")
    page_i.wait_for_function("() => window.models !== undefined && models.loaded")
    listed = page_i.locator("#main-table tr", has=page_i.locator(".name", has_text=ASSIGNMENT))
    assert listed.locator(".num-submissions").text_content().strip() == "2"
    hub.shot(page_i, "09-instructor-formgrader")
    page_i.context.close()

    # 6. A fetches the feedback and reads it
    page.locator("#refresh_assignments_list").click()
    row = hub.wait_row(page, "submitted", ASSIGNMENT)
    page.locator("#submitted_assignments_list", has_text="feedback available to fetch").wait_for()
    hub.shot(page, "10-a-feedback-available")
    row.locator(".item_status button", has_text="Fetch Feedback").click()
    view = page.locator("#submitted_assignments_list a", has_text="view feedback")
    view.wait_for()
    hub.shot(page, "11-a-feedback-fetched")
    (fetched_page,) = (home_a / course_id / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")
    view.click()  # the file browser goes to the page's folder; the student opens the page
    listed = page.locator(".jp-DirListing-item", has_text=f"{ASSIGNMENT}.html")
    listed.wait_for()
    listed.dblclick()
    viewer = page.locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe").first
    viewer.wait_for()
    page.frame_locator(".jp-MainAreaWidget:not(.lm-mod-hidden) iframe").first.locator("body").wait_for()
    hub.shot(page, "12-a-feedback-in-lab")

    # the same page in a tab of its own, as "Open in New Browser Tab" gives it (its MathJax
    # comes from a CDN: aborted, as every request that would leave this machine)
    url = (f"http://{student_a}.localhost:{hub.port}/user/{student_a}/files/"
           + urllib.parse.quote(str(fetched_page.relative_to(home_a))))
    own_tab = hub.browser.new_context(viewport={"width": 1100, "height": 900},
                                      storage_state=page.context.storage_state())
    own_tab.route("**/*", lambda route: route.continue_() if is_local(route.request.url) else route.abort())
    tab = own_tab.new_page()
    tab.goto(url, wait_until="domcontentloaded")
    text = page_text(tab.content())
    hub.shot(tab, "13-a-feedback-page", full_page=True)
    score = re.search(r"Score:\s*([\d.]+)\s*/\s*([\d.]+)", text)
    assert score and float(score.group(1)) == expected and float(score.group(2)) == max_score, text[:3000]
    assert phrase in text, f"the feedback does not name the misconception ({phrase!r})"
    course = Course(cls.course_dir)
    secret = secrets(hidden_lines(course, ASSIGNMENT), released_lines(course, ASSIGNMENT))
    assert secret, f"{ASSIGNMENT} has no hidden test to look for"
    shown = sorted(line for line in secret if line in text)
    assert not shown, f"the student's feedback shows hidden test code: {shown[:3]}"
    assert "BEGIN HIDDEN TESTS" not in tab.content()

    own_tab.close()
    print(f"hub test: {time.monotonic() - started:.0f} s from release to feedback read; screenshots in {SCREENS}")
    assert not server_errors(hub.log), "\n\n".join(server_errors(hub.log)[:10])
    assert not hub.blocked, f"the hub's and the lab's pages asked for other hosts: {hub.blocked}"
