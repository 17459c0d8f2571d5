"""Issue 37's seven attacks, replayed as real Unix users against the real hub and exchange.

One throwaway class (deploy.hub.throwaway: an instructor and four students, fresh Unix users)
on deploy/hub's own JupyterHub (its formgrader service and exchange warden running), the
tiny course released. The students act as an attacker would: nbgrader's CLI as themselves,
or folders made by hand and moved into the exchange's inbound (a submit is the student's
own process: anything it does, they can do without it). Then the instructor runs `course
collect`, `autograde`, `feedback` and `return` as that Unix user, and each test checks one
attack against what the system did:

1. links in a submission (the notebook linked to the instructor's source; an extra file
   linked to gradebook.db, read by an answer cell) are refused and listed, nothing of the
   course is collected, graded or returned;
2. student HTML/JS (script, event handler, javascript: link, SVG with script, iframe,
   JavaScript and widget output, markdown, output metadata, cell tags) runs nowhere: the
   formgrader service's page of that submission and the returned feedback page, in
   Chromium, make none of the requests the payloads make (the same notebook rendered by plain
   nbconvert makes them: the detector works); a script in the formgrader's origin finds no
   contents, files, kernel or terminal API there, and cannot reach the instructor's lab;
3. submitting as another student (nbgrader's --student, or a folder named for them) and
   under a made-up id is refused: the rightful submission is the one graded, no made-up id
   enters the gradebook, the submitter fetches nobody's feedback;
4. a folder name and timestamp.txt backdated before the due date: the time that counts is the
   filesystem's, the claim is shown beside it, and the submission is late;
5. a submission, once frozen by the warden, cannot be changed by its student;
6. `course autograde` and `course feedback` leave nothing in the system's temporary folder,
   even when killed, and their scratch under the course directory is swept;
7. no student can make exchange/<another course>/.

One hub, one cycle (module fixture); the tests read what it left, so they run on one worker.
"""

from __future__ import annotations

import copy
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell

import grading_course as gc
from conftest import REPO, require_program, require_root
from labserver import CHROMIUM, chromium
from test_exchange import RELEASE_TINY, write_as
from test_hub import stop, wait_for_hub

sys.path.insert(0, str(REPO))
from deploy.hub import setup  # noqa: E402
from deploy.hub.throwaway import Throwaway  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("attacks"), pytest.mark.timeout(1800)]

RIGHT = {"tiny-add": "def add(a, b):\n    return a + b", "tiny-mul": "def mul(a, b):\n    return a * b"}
# each payload, if it ever runs, asks for /xss/<its name> (or the widget manager from a CDN)
PAYLOAD_CELL = r'''
from IPython.display import HTML, Javascript, Markdown, display
display(HTML("<script>fetch('/xss/script')</script>"))
display(HTML("<img src=x onerror=\"fetch('/xss/onerror')\">"))
display(HTML("<a class=xss-link href=\"javascript:fetch('/xss/javascript-link')\">xss-link</a>"))
display(HTML("<svg><script>fetch('/xss/svg-script')</script></svg>"))
display({"image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' onload=\"fetch('/xss/svg-onload')\">"
         "<script>fetch('/xss/svg-data')</script></svg>"}, raw=True)
display(HTML("<iframe src=\"/xss/iframe\"></iframe>"))
display(HTML("<iframe srcdoc=\"<script>parent.fetch('/xss/srcdoc')</script>\"></iframe>"))
display(Javascript("fetch('/xss/js-output')"))
display({"application/vnd.jupyter.widget-view+json": {"model_id": "0f", "version_major": 2, "version_minor": 0}},
        raw=True)
display({"image/png": "eA=="}, raw=True, metadata={"image/png": {"width": "1 onerror=fetch('/xss/width')"}})
display(Markdown("<img src=x onerror=\"fetch('/xss/md-output')\">"))
display(HTML("<script>fetch('/xss/isolated')</script>"), metadata={"isolated": True})
import base64, zlib
try:
    print("LEAK", base64.b64encode(zlib.compress(open("gb.db", "rb").read())).decode())
except OSError as error:
    print("NOLEAK", error)
def add(a, b):
    return a + b
'''
PAYLOAD_MARKDOWN = ("A note.\n\n<img src=x onerror=\"fetch('/xss/markdown')\">\n\n"
                    "[md-link](javascript:fetch('/xss/md-link'))\n")
PAYLOAD_TAG = "x\" onmouseover=\"fetch('/xss/tag')"
# widget state saved in the notebook: a page that shows widgets loads their manager from a CDN
PAYLOAD_WIDGETS = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {
    "0f": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls", "model_module_version": "2.0.0",
           "state": {"value": "<img src=x onerror=\"fetch('/xss/widget')\">"}}}}}
NOTED = re.compile(r"/xss/|unpkg\.com|jupyter-widgets")
RECORD = Path(os.environ.get("ATTACKS_RECORD", "/tmp/attacks-record.json"))


class Class:
    """The class, its hub and what the cycle left."""

    def __init__(self, cls: Throwaway, hub: subprocess.Popen, browser):
        self.cls, self.hub, self.browser = cls, hub, browser
        self.port = cls.settings.port
        self.base = cls.settings.subdomain_host
        self.exchange = Path(cls.settings.exchange)
        self.course_id = cls.settings.course_id
        self.inbound = self.exchange / self.course_id / "inbound"
        self.received = self.exchange / "received" / self.course_id
        self.said: dict[str, object] = {}
        self.tmpdir = cls.root / "instructor-tmp"
        self.due: datetime | None = None

    def home(self, user: str) -> Path:
        return Path(self.cls.env(user)["HOME"])

    def fetch(self, student: str) -> tuple[Path, nbformat.NotebookNode]:
        self.cls.nbgrader(student, "fetch_assignment", "tiny", check=False)
        path = self.home(student) / self.course_id / "tiny" / "tiny.ipynb"
        return path, nbformat.read(str(path), as_version=4)

    def craft(self, student: str, name: str, files: dict[str, str], links: dict[str, Path] | None = None,
              cache: bool = False) -> None:
        """A submission folder made by hand in the student's home, then moved into inbound, as
        that student (what nbgrader's submit does, without its checks); ``cache``: the copy
        nbgrader's submit keeps in the student's cache too (their Fetch Feedback reads it)."""
        code = ("import os, sys, json, shutil\n"
                "home, inbound, name, files, links, cache = sys.argv[1], sys.argv[2], sys.argv[3], "
                "json.loads(sys.argv[4]), json.loads(sys.argv[5]), sys.argv[6]\n"
                "folder = os.path.join(home, 'crafted', name)\n"
                "os.makedirs(folder)\n"
                "for f, text in files.items():\n"
                "    open(os.path.join(folder, f), 'w').write(text)\n"
                "if cache:\n"
                "    shutil.copytree(folder, os.path.join(cache, name.rsplit('+', 1)[0]))\n"
                "for f, target in links.items():\n"
                "    os.symlink(target, os.path.join(folder, f))\n"
                "for f in os.listdir(folder):\n"
                "    os.chmod(os.path.join(folder, f), 0o644) if f not in links else None\n"
                "os.chmod(folder, 0o755)\n"
                "os.rename(folder, os.path.join(inbound, name))\n")
        where = self.home(student) / ".local/share/jupyter/nbgrader_cache" / self.course_id if cache else ""
        self.cls.run(student, str(self.cls.python), "-c", code, str(self.home(student)), str(self.inbound), name,
                     json.dumps(files), json.dumps({k: str(v) for k, v in (links or {}).items()}), str(where))

    def released(self) -> nbformat.NotebookNode:
        """The student copy as released (what a fetch gives)."""
        return nbformat.read(str(self.exchange / self.course_id / "outbound" / "tiny" / "tiny.ipynb"), as_version=4)

    def wait_frozen(self, timeout: float = 90) -> None:
        """Until the warden has taken everything out of inbound."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not list(self.inbound.iterdir()):
                return
            time.sleep(0.5)
        raise TimeoutError(f"the warden left {sorted(os.listdir(self.inbound))} in inbound for {timeout} s")

    def course(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cls = self.cls
        return cls.run(cls.instructor, str(cls.python), "-m", "graders.cli", *args, "--course-dir",
                       str(cls.course_dir), check=check, TMPDIR=str(self.tmpdir))

    def log_in(self, user: str):
        """A browser context logged in to the hub as ``user`` (on the hub's home page: their
        own server is not started)."""
        context = self.browser.new_context(viewport={"width": 1300, "height": 900})
        page = context.new_page()
        page.set_default_timeout(240_000)
        page.goto(f"{self.base}/hub/login?next=%2Fhub%2Fhome", wait_until="domcontentloaded")
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", self.cls.settings.passwords[user])
        page.click("#login_submit")
        page.wait_for_url("**/hub/home**")
        return page

    def submission_id(self, student: str) -> str:
        with sqlite3.connect(str(self.cls.course_dir / "gradebook.db")) as db:
            return db.execute("select submitted_notebook.id from submitted_notebook join submitted_assignment on "
                              "submitted_notebook.assignment_id = submitted_assignment.id "
                              "where submitted_assignment.student_id = ?", (student,)).fetchone()[0]

    def gradebook_students(self) -> set[str]:
        with sqlite3.connect(str(self.cls.course_dir / "gradebook.db")) as db:
            return {row[0] for row in db.execute("select id from student")}


def own_frozen(k: Class, student: str) -> Path:
    """The student's own frozen submission (not one another student made in their name)."""
    (found,) = [path for path in k.received.glob(f"{student}+tiny+*")
                if json.loads((path / "warden.json").read_text())["owner"] == student]
    return found


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


@pytest.fixture(scope="module")
def klass():
    require_root("the attack suite creates Unix users and starts their servers")
    require_program(CHROMIUM, "chromium")
    require_program("bwrap", "bubblewrap")
    require_program("configurable-http-proxy", f"configurable-http-proxy (npm, version {setup.proxy_version()})")
    with Throwaway(students=4, grant=True) as cls:
        cls.run(cls.instructor, str(cls.python), "-c",
                RELEASE_TINY.format(tests=str(REPO / "tests"), course=str(cls.course_dir)))
        log = cls.root / "state" / "jupyterhub.log"
        hub = setup.start(cls.root, log=log)
        try:
            wait_for_hub(cls.settings.subdomain_host, hub, log)
            with chromium() as browser:
                klass = Class(cls, hub, browser)
                cycle(klass)
                yield klass
        finally:
            stop(hub, cls)


def cycle(k: Class) -> None:
    """Every student's moves, honest and not, then the instructor's collect, autograde,
    feedback and return; what each said is kept in k.said."""
    cls = k.cls
    ada, bob, cat, dan = cls.students
    mallory = f"{cls.tag}mallory"
    k.tmpdir.mkdir()
    os.chown(k.tmpdir, setup.account(cls.instructor).pw_uid, -1)
    now = lambda: datetime.now(timezone.utc)  # noqa: E731

    # bob: an honest submission, one exercise right (2 of 5)
    path, nb = k.fetch(bob)
    write_as(bob, path, gc.answers(nb, **{"tiny-add": RIGHT["tiny-add"]}))
    cls.nbgrader(bob, "submit", "tiny")

    # cat: the payloads in an answer and a markdown cell, with gb.db, a link to the
    # instructor's gradebook, beside the notebook (kept in her cache too, as a submit does)
    nb = gc.answers(k.released(), **{"tiny-add": PAYLOAD_CELL.strip()})
    index = next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == "tiny-add")
    nb.cells[index].metadata["tags"] = [PAYLOAD_TAG]
    nb.cells.insert(index, new_markdown_cell(PAYLOAD_MARKDOWN))
    nb.metadata["widgets"] = PAYLOAD_WIDGETS
    when = stamp(now())
    k.craft(cat, f"{cat}+tiny+{when}+withlink", {"tiny.ipynb": nbformat.writes(nb), "timestamp.txt": when,
                                                 "submission_secret.txt": "3" * 128},
            links={"gb.db": cls.course_dir / "gradebook.db"}, cache=True)

    # ada: nbgrader's --student for bob; folders named for bob and for a made-up id; her own
    # submission whose notebook is a link to the instructor's source; another course's folder
    path, nb = k.fetch(ada)
    write_as(ada, path, gc.answers(nb, **RIGHT))
    k.said["submit as bob"] = cls.nbgrader(ada, "submit", "tiny", "--student", bob, check=False)
    blank = nbformat.writes(nbformat.read(str(path), as_version=4))
    for name in (bob, mallory):
        when = stamp(now())
        k.craft(ada, f"{name}+tiny+{when}+forged", {"tiny.ipynb": blank, "timestamp.txt": when,
                                                   "submission_secret.txt": "0" * 128})
    when = stamp(now())
    k.craft(ada, f"{ada}+tiny+{when}+linked", {"timestamp.txt": when, "submission_secret.txt": "2" * 128},
            links={"tiny.ipynb": cls.course_dir / "source" / "tiny" / "tiny.ipynb"})
    k.said["mkdir another course"] = cls.run(ada, "mkdir", str(k.exchange / "another-course"), check=False)
    k.wait_frozen()

    # bob tries to change his frozen submission
    bobs = own_frozen(k, bob)
    k.said["bob changes his submission"] = {
        action: cls.attempt(bob, action, target) for action, target in
        [("overwrite", bobs / "tiny.ipynb"), ("write", bobs), ("rename", bobs), ("delete", bobs / "tiny.ipynb")]}

    # the due date passes; dan then submits a folder named and stamped long before it
    time.sleep(1.5)
    k.due = now()
    cls.run(cls.instructor, str(cls.python), "-m", "nbgrader", "db", "assignment", "add", "tiny",
            f"--duedate={k.due.replace(tzinfo=None).isoformat(' ')} UTC", cwd=cls.course_dir)
    time.sleep(1.5)
    nb = k.released()
    old = "2000-01-01 00:00:00.000000 UTC"
    k.craft(dan, f"{dan}+tiny+{old}+backdated", {"tiny.ipynb": nbformat.writes(gc.answers(nb, **RIGHT)),
                                                "timestamp.txt": old, "submission_secret.txt": "1" * 128})
    k.wait_frozen()

    k.said["collect"] = k.course("collect", "tiny")
    k.said["autograde"] = k.course("autograde", "tiny")
    k.said["feedback"] = k.course("feedback", "tiny")
    k.said["return"] = k.course("return", "tiny", check=False)
    cls.nbgrader(cat, "fetch_feedback", "tiny")
    k.said["graded"] = graded(k)
    # what each command said, kept for a reader of the run ($ATTACKS_RECORD)
    RECORD.write_text(json.dumps({name: (said.stdout + said.stderr if hasattr(said, "stdout") else said)
                                  for name, said in k.said.items()}, indent=1, default=str))


def graded(k: Class) -> dict[str, dict]:
    """{student: score, timestamp, due date} as the gradebook holds them."""
    with sqlite3.connect(str(k.cls.course_dir / "gradebook.db")) as db:
        rows = db.execute(
            "select submitted_assignment.student_id, submitted_assignment.timestamp, assignment.duedate, "
            "(select coalesce(sum(coalesce(grade.manual_score, grade.auto_score, 0)), 0) from grade join "
            "submitted_notebook on grade.notebook_id = submitted_notebook.id where submitted_notebook.assignment_id"
            " = submitted_assignment.id) from submitted_assignment join assignment on "
            "submitted_assignment.assignment_id = assignment.id").fetchall()
    return {student: {"timestamp": when, "duedate": due, "score": score} for student, when, due, score in rows}


def collected(k: Class) -> str:
    done = k.said["collect"]
    return done.stdout + done.stderr


def row_of(k: Class, student: str) -> str:
    return next(line for line in collected(k).splitlines() if line.startswith(student + " "))


# 1. links ---------------------------------------------------------------------------------

def test_links_in_a_submission_are_refused_and_nothing_of_the_course_is_read(klass):
    k, (ada, _, cat, _) = klass, klass.cls.students
    said = collected(k)
    source = re.escape(str(k.cls.course_dir / "source" / "tiny" / "tiny.ipynb"))
    assert re.search(rf"refused {ada}\+tiny\+.*linked/tiny.ipynb: a symbolic link \(to {source}\)", said), said
    assert re.search(rf"refused {cat}\+tiny\+.*withlink/gb.db: a symbolic link", said), said
    submitted = k.cls.course_dir / "submitted"
    assert not (submitted / ada / "tiny" / "tiny.ipynb").exists(), "the instructor's source was collected"
    assert not (submitted / cat / "tiny" / "gb.db").exists()
    # no notebook reached her submission: graded missing (no row) or 0, never the source's 5
    assert float(k.said["graded"].get(ada, {"score": 0})["score"]) == 0.0, k.said["autograde"].stdout
    # the answer cell that read gb.db found nothing; the returned page holds no gradebook
    (page,) = (k.home(cat) / k.course_id / "tiny" / "feedback").glob("*/tiny.html")
    text = page.read_text()
    assert "NOLEAK" in text and "LEAK " not in text.replace("NOLEAK", ""), text[:2000]
    assert gc.LEAK_MARK not in text


# 2. student HTML/JS -------------------------------------------------------------------------

SCRIPTED = ("fetch('/xss/js-output')", "application/vnd.jupyter.widget-state+json")


def scripts(html: str) -> list[str]:
    """Which of SCRIPTED a page holds inside a <script> element."""
    found = []
    for attributes, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S | re.I):
        found += [needle for needle in SCRIPTED if needle in attributes + body]
    return found


def requests_made(browser, url: str, storage_state=None, click: bool = True) -> list[str]:
    """The payloads' requests a page makes in Chromium (its own assets are not counted); every
    request off this machine is aborted."""
    context = browser.new_context(storage_state=storage_state)
    seen: list[str] = []
    context.on("request", lambda request: seen.append(request.url) if NOTED.search(request.url) else None)

    def route(route):
        host = urllib.parse.urlsplit(route.request.url).hostname or ""
        if route.request.url.startswith("file:") or host in ("localhost", "127.0.0.1") or host.endswith(".localhost"):
            route.continue_()
        else:
            route.abort()
    context.route("**/*", route)
    page = context.new_page()
    page.on("dialog", lambda dialog: (seen.append(f"dialog {dialog.message}"), dialog.dismiss()))
    try:
        page.goto(url, wait_until="load", timeout=120_000)
        page.wait_for_timeout(2000)
        if click:
            for link in page.locator("a.xss-link, a:has-text('md-link'), a:has-text('xss-link')").all():
                link.click(timeout=2000, no_wait_after=True)
            page.mouse.move(10, 10)
            for cell in page.locator(".cell").all()[:20]:
                cell.hover(timeout=2000)
            page.wait_for_timeout(1500)
        return seen
    finally:
        context.close()


def test_the_payloads_are_live_when_nothing_sanitizes(klass, tmp_path):
    """The detector's check: the autograded notebook, rendered by plain nbconvert (what the
    formgrader showed before), makes the payloads' requests."""
    from nbconvert import HTMLExporter

    k, cat = klass, klass.cls.students[2]
    nb = nbformat.read(str(k.cls.course_dir / "autograded" / cat / "tiny" / "tiny.ipynb"), as_version=4)
    page = tmp_path / "plain.html"
    page.write_text(HTMLExporter(template_name="classic").from_notebook_node(copy.deepcopy(nb))[0])
    seen = requests_made(k.browser, page.as_uri())
    fired = {url.rsplit("/xss/", 1)[-1] for url in seen if "/xss/" in url}
    assert {"script", "onerror", "svg-script", "iframe", "markdown", "md-output", "width"} <= fired, seen
    # the JavaScript output and the widgets' state are scripts in the page, run once jQuery and
    # the widget manager arrive from their CDNs (asked for here; this machine reaches none)
    assert set(SCRIPTED) <= set(scripts(page.read_text())), scripts(page.read_text())
    assert any("unpkg.com" in url for url in seen), seen


def test_the_formgrader_runs_no_student_script(klass):
    k, cat = klass, klass.cls.students[2]
    page = k.log_in(k.cls.instructor)
    state = page.context.storage_state()
    page.context.close()
    service = f"http://formgrader--service.localhost:{k.port}/services/formgrader"
    url = f"{service}/formgrader/submissions/{k.submission_id(cat)}/"
    seen = requests_made(k.browser, url, storage_state=state)
    assert not seen, f"the formgrader's page of {cat}'s submission ran student code: {seen}"

    # the second wall: a script in the formgrader's origin has nothing to act on
    context = k.browser.new_context(storage_state=state)
    page = context.new_page()
    page.goto(url, wait_until="load")
    assert "xss-link" in page.content(), "the submission's page did not show the submission"
    assert not scripts(page.content()), scripts(page.content())
    statuses = page.evaluate("""async (service) => {
        const out = {};
        const body = JSON.stringify({type: 'file', format: 'text', content: 'pwned'});
        const tries = {
          contents: [service + '/api/contents/pwned.txt', {method: 'PUT', body}],
          files: [service + '/files/gradebook.db', {}],
          kernels: [service + '/api/kernels', {method: 'POST'}],
          terminals: [service + '/api/terminals', {method: 'POST'}],
          sessions: [service + '/api/sessions', {}],
          lab: [service + '/lab', {}],
          'same-origin path to the lab': ['/user/' + arguments[1] + '/api/contents/pwned.txt', {method: 'PUT', body}],
        };
        for (const [name, [url, init]] of Object.entries(tries)) {
          try { out[name] = (await fetch(url, init)).status; } catch (e) { out[name] = 'blocked'; }
        }
        return out;
    }""".replace("arguments[1]", json.dumps(k.cls.instructor)), service)
    lab = f"http://{k.cls.instructor}.localhost:{k.port}/user/{k.cls.instructor}/api/contents/pwned.txt"
    statuses["the instructor's lab"] = page.evaluate("""async (url) => {
        const body = JSON.stringify({type: 'file', format: 'text', content: 'pwned'});
        try { return (await fetch(url, {method: 'PUT', credentials: 'include', body})).status; }
        catch (e) { return 'blocked'; } }""", lab)
    context.close()
    for name, status in statuses.items():
        assert status in (403, 404, 405, "blocked"), f"{name}: {status} ({statuses})"
    assert not list(Path(k.cls.course_dir).rglob("pwned.txt")) and not list(k.home(k.cls.instructor).rglob("pwned.txt"))


def test_the_returned_feedback_runs_no_student_script_and_loads_nothing(klass):
    k, cat = klass, klass.cls.students[2]
    (page,) = (k.home(cat) / k.course_id / "tiny" / "feedback").glob("*/tiny.html")
    html = page.read_text()
    assert not re.search(r"<script", html, re.I), "the feedback page carries a script"
    assert "xss-link" in html, "the page does not show the submission"
    seen = requests_made(k.browser, page.as_uri())
    assert not seen, f"{cat}'s feedback page ran student code: {seen}"


# 3. identity ----------------------------------------------------------------------------------

def test_a_submission_is_its_unix_users(klass):
    k, (ada, bob, _, _) = klass, klass.cls.students
    mallory = f"{k.cls.tag}mallory"
    refused = k.said["submit as bob"]
    assert refused.returncode != 0 and "only submit as yourself" in refused.stdout + refused.stderr
    said = collected(k)
    for name in (bob, mallory):
        forged = rf"refused {name}\+tiny\+.*forged: named for {name} but submitted by Unix user {ada}"
        assert re.search(forged, said), said
    # each refusal one whole line (nbgrader's multi-line warnings were cut to an empty first line)
    assert not re.search(r"^course collect: (warning|error):\s*$", said, re.M), said
    assert "return a + b" in (k.cls.course_dir / "submitted" / bob / "tiny" / "tiny.ipynb").read_text()
    assert float(k.said["graded"][bob]["score"]) == 2.0  # his own answer, not ada's blank copy
    assert mallory not in k.gradebook_students() and not (k.cls.course_dir / "submitted" / mallory).exists()
    assert not (k.cls.course_dir / "feedback" / mallory).exists(), "a page was made for the made-up id"


# 4. backdating --------------------------------------------------------------------------------

def test_the_time_that_counts_is_one_the_student_cannot_set(klass):
    k, dan = klass, klass.cls.students[3]
    row = row_of(k, dan)
    when = datetime.fromisoformat(row.split()[1] + " " + row.split()[2]).replace(tzinfo=timezone.utc)
    assert when >= k.due.replace(microsecond=0), row
    late = re.search(r"(\d+) s\s", row)
    assert late and int(late.group(1)) >= 1, row
    assert "claimed 2000-01-01 00:00:00" in row, row
    assert "1 late" in collected(k), collected(k)
    exported = k.said["graded"][dan]
    assert exported["timestamp"] > exported["duedate"], exported


# 5. frozen ------------------------------------------------------------------------------------

def test_a_frozen_submission_cannot_be_changed_by_its_student(klass):
    k, bob = klass, klass.cls.students[1]
    for action, said in k.said["bob changes his submission"].items():
        assert said.startswith("DENIED"), f"{bob} could {action} his frozen submission: {said}"
    frozen = own_frozen(k, bob)
    record = frozen / "warden.json"
    assert record.stat().st_uid == 0 and frozen.stat().st_uid == 0
    assert json.loads(record.read_text())["owner"] == bob


# 6. temporary folder ------------------------------------------------------------------------

def test_grading_leaves_nothing_in_the_temporary_folder_whatever_the_exit(klass):
    k = klass
    scratch = k.cls.course_dir / ".scratch"
    assert not list(k.tmpdir.iterdir()), sorted(os.listdir(k.tmpdir))
    assert not [p for p in scratch.rglob("*") if p.is_dir() and p.parent != scratch], list(scratch.rglob("*"))
    # killed mid-run: what it left is under the course directory, and the next run sweeps it
    cls = k.cls
    command = [str(cls.python), "-m", "graders.cli", "feedback", "tiny", "--course-dir", str(cls.course_dir)]
    user = setup.account(cls.instructor)
    process = subprocess.Popen(command, user=user.pw_uid, group=user.pw_gid, extra_groups=os.getgrouplist(
        cls.instructor, user.pw_gid), env=cls.env(cls.instructor, TMPDIR=str(k.tmpdir)), cwd=user.pw_dir,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline, left = time.monotonic() + 120, []
    while time.monotonic() < deadline and process.poll() is None:
        left = [p for p in scratch.glob("*/gradebooks-*")]
        if left:
            os.killpg(process.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    process.wait()
    assert left, "course feedback ended before it could be killed mid-run"
    assert not list(k.tmpdir.iterdir()), sorted(os.listdir(k.tmpdir))  # multiprocessing's pymp-* included
    k.course("feedback", "tiny")
    assert not [p for p in scratch.rglob("gradebooks-*")], list(scratch.rglob("*"))
    assert not list(k.tmpdir.iterdir())


# 7. another course ----------------------------------------------------------------------------

def test_no_student_can_make_another_courses_folder(klass):
    k = klass
    made = k.said["mkdir another course"]
    assert made.returncode != 0 and "Permission denied" in made.stderr, made
    assert not (k.exchange / "another-course").exists()
    assert (k.exchange.stat().st_mode & 0o777) == 0o755 and k.exchange.stat().st_uid == 0
