"""The student's Validate button, leading with the reason: a count line ("1 failed, 14 not
answered"), then one line per failing test cell, what failed before what is not answered yet.

nbgrader's Validator reports each failing cell as its whole source (20-40 lines of test
code, [mc:] markers included) followed by the error, which our checks render once more; for
a notebook with a dozen unanswered exercises that was 12,000 characters in a 375-px box.
``CourseValidator`` (a Validator, configured like one: traitlets, lab/nbgrader_config.py)
runs the same preprocessors and judges the same cells, then reports each failing cell as
the exercise's name and the message a student reads (helpers.verdicts): the test's code
stays in the notebook, where the student can scroll to it.

nbgrader's Validate front end shows, for each failing cell, a heading, the cell's ``source``
(as text, unwrapped) and its ``error`` (as HTML); so ``source`` names the exercise and its
points, and ``error`` is the message, as the notebook shows it.

The lab (lab/jupyter_server_config.json) loads this module as a server extension in place
of nbgrader's validate_assignment: it answers the same two URLs, with nbgrader's version
handler and a validate handler that uses ``CourseValidator``.
"""

from __future__ import annotations

import html
import os
import textwrap
import traceback
from pathlib import Path

from jupyter_core.paths import jupyter_config_path
from jupyter_server.utils import url_path_join
from nbgrader.apps import NbGrader
from nbgrader.nbgraderformat import SchemaTooNewError, SchemaTooOldError
from nbgrader.server_extensions.validate_assignment.handlers import (
    NbGraderVersionHandler,
    ValidateAssignmentHandler,
)
from nbgrader.validator import Validator
from traitlets import Bool

from helpers import verdicts
from helpers.lab import rerun


class CourseValidator(Validator):
    """nbgrader's Validator whose failures are one line each, in words."""

    one_line = Bool(True, help="Report each failing cell as its exercise's name and message "
                               "(False: nbgrader's source-and-traceback report)").tag(config=True)

    def _preprocess(self, nb):
        self._executed = super()._preprocess(nb)
        return self._executed

    def validate(self, filename: str) -> dict:
        results = super().validate(filename)
        if not self.one_line or "failed" not in results:
            return results
        nb = self._executed
        failed = {id(cell) for cell in self._get_failed_cells(nb)}
        found = verdicts.verdicts(nb)
        said = {v.grade_id: v for v in found}
        entries = [_entry(cell, said.get(cell.metadata.nbgrader.get("grade_id", "")))
                   for cell in nb.cells if id(cell) in failed]
        # what failed first, then what is not answered yet, each in notebook order
        entries.sort(key=_unanswered)
        results["failed"] = [_count_entry(entries, len(found))] + entries
        return results


NAME_WIDTH = 76  # characters: the dialog shows ``source`` unwrapped, in a box about this wide
LABELS = {"Not answered yet": "#8a6d00", "Check failed": "#b00020"}
UNANSWERED = "Not answered yet"
# nbgrader's dialog puts "The following cell failed:" above every entry. The first entry is
# the count line, not a cell: its heading and its (empty) message box are hidden, its line
# is set in bold. (The dialog shows each entry's ``error`` as HTML: this style travels in it.)
COUNT_STYLE = ("<style>#validation-message > div:nth-child(1), #validation-message > div:nth-child(3)"
               " { display: none; } #validation-message > div:nth-child(2) pre"
               " { font-weight: bold; }</style>")


def _unanswered(entry: dict) -> bool:
    return entry["raw_error"].startswith(UNANSWERED)


def count_line(entries: list[dict], graded: int) -> str:
    """"1 failed, 14 not answered" (and how many graded cells passed, if any)."""
    unanswered = sum(map(_unanswered, entries))
    failed = len(entries) - unanswered
    passed = max(graded - len(entries), 0)
    parts = [f"{failed} failed" if failed else "", f"{unanswered} not answered" if unanswered else "",
             f"{passed} passed" if passed else ""]
    return ", ".join(p for p in parts if p)


def _count_entry(entries: list[dict], graded: int) -> dict:
    line = count_line(entries, graded)
    return {"source": line, "error": COUNT_STYLE, "raw_error": "", "count": line}


def _entry(cell, verdict) -> dict:
    """One failing cell as nbgrader's front end shows it: ``source`` (plain text, in a box
    that does not wrap) names the exercise and its points; ``error`` (HTML) is the message,
    its label coloured as the notebook shows it, wrapped to the dialog's width."""
    if verdict is None:  # a failing cell that is not a test cell (validate_all)
        name = f"The cell that begins “{rerun.first_line(cell.source)}”"
        message = verdicts.cell_message(cell) or "This cell failed."
    else:
        points = f"{verdict.points:g} point{'s' if verdict.points != 1 else ''}"
        name = f"{verdict.name} ({points})"
        message = verdict.message or "Partial credit: some of its checks passed, not all."
    label = next((k for k in LABELS if message.startswith(k)), None)
    body = html.escape(message)
    if label:
        body = (f"<b style='color:{LABELS[label]}'>{html.escape(label)}</b>"
                f"{html.escape(message[len(label):])}")
    return {"source": "\n".join(textwrap.wrap(name, NAME_WIDTH)) or name,
            "error": f"<span style='white-space: normal'>{body}</span>",
            "raw_error": message}


class CourseValidateHandler(ValidateAssignmentHandler):
    """nbgrader's validate handler, with CourseValidator."""

    def validate_notebook(self, path):
        root = Path(self.root_dir).resolve()
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            from tornado import web
            raise web.HTTPError(403, "Access denied: path outside allowed directory")
        paths = [os.getcwd(), *jupyter_config_path()]
        app = NbGrader()
        app.config_file_paths.append(paths)
        app.load_config_file()
        try:
            return {"success": True, "value": CourseValidator(config=app.config).validate(str(target))}
        except SchemaTooOldError:
            reason = (f"The notebook {target.name} uses an old version of nbgrader's metadata: "
                      f"back it up, then run: nbgrader update {target.name}")
        except SchemaTooNewError:
            reason = (f"The notebook {target.name} uses a newer version of nbgrader's metadata "
                      "than this lab's nbgrader: update nbgrader.")
        except Exception as error:  # the student's Validate says why, the log keeps the rest
            self.log.error(traceback.format_exc())
            reason = f"Validate could not run: {type(error).__name__}: {error}"
        return {"success": False, "value": reason}


def _jupyter_server_extension_points():
    return [{"module": "helpers.lab.validate"}]


class _UpstreamPingNotice:
    """Drops tornado's "The websocket_ping_timeout (90000) cannot be longer than the
    websocket_ping_interval (30000)" from the log. It is an upstream mismatch, not a setting
    of ours: Jupyter Server's websocket handlers keep their own keep-alive pings, in
    milliseconds (every 30 s, a connection closed after 90 s without a pong), under the names
    tornado 6.5 reads as its own ping settings, in seconds; tornado then "corrects" a timeout
    for pings it never sends (every 30,000 s). The pings work as Jupyter Server means them."""

    def filter(self, record) -> bool:
        return "cannot be longer than the websocket_ping_interval" not in record.getMessage()


def _load_jupyter_server_extension(serverapp) -> None:
    import logging
    logging.getLogger("tornado.general").addFilter(_UpstreamPingNotice())
    web_app = serverapp.web_app
    web_app.settings["root_dir"] = serverapp.root_dir
    base = web_app.settings["base_url"]
    web_app.add_handlers(".*$", [(url_path_join(base, r"/assignments/validate"), CourseValidateHandler),
                                 (url_path_join(base, r"/nbgrader_version"), NbGraderVersionHandler)])
    serverapp.log.info("Validate: one line per failing cell (helpers.lab.validate)")
