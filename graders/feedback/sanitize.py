"""SanitizeOutputs: what a student's notebook shows is rendered as data, never run as a script.

A submission's outputs and markdown are the student's to write: an answer cell can display
``<img src=x onerror=...>``, a ``<script>``, a javascript: link, an SVG with a script, an
iframe, JavaScript or widget output, or put an attribute into output metadata or cell tags.
Rendered in the formgrader (the instructor's origin) or in a feedback page, any of them would
run with the reader's rights. This preprocessor runs before every HTML page the course makes
from a notebook (``c.HTMLExporter.preprocessors`` in the course's nbgrader_config.py: the
formgrader's manual-grading page and GenerateFeedback's page both are HTMLExporters):

* a code cell keeps stream and error text (escaped by the template), PNG/JPEG/GIF images with
  base64 data only, SVG (the template shows it in an ``<img>``, where scripts never run),
  plain text, and HTML or markdown output cleaned to a short list of tags and attributes
  (no script, style, iframe, object, embed, form, svg, event handler; links only to http(s),
  mailto or an anchor; images only from data: URLs); everything else (JavaScript, widgets,
  LaTeX, unknown types) becomes a line of text saying what was removed;
* a markdown cell becomes its HTML, cleaned the same way, on one line in a ``<div>`` (the
  template's markdown pass then takes it as one raw HTML block and changes nothing);
* output metadata keeps only numeric image sizes; cell metadata keeps nbgrader's (with a safe
  grade id) and tags made of letters, digits, ``-`` and ``_``; a cell id that is not nbformat's
  pattern is replaced; raw cells are emptied; markdown attachments keep image types only;
* the notebook's metadata keeps the kernel and language names (widget state is dropped).
"""

from __future__ import annotations

import re

import bleach
from nbconvert.filters.markdown import markdown2html
from nbconvert.preprocessors import Preprocessor

SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
IMAGES = ("image/png", "image/jpeg", "image/gif")
KEPT_AS_IS = {"text/plain", "image/svg+xml"}
TAGS = ["a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "div", "dl", "dt", "em", "h1", "h2",
        "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "ol", "p", "pre", "s", "small", "span", "strong", "sub",
        "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul"]
DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|svg\+xml);base64,[A-Za-z0-9+/=\s]*$")


def _attribute(tag: str, name: str, value: str) -> bool:
    if name in ("class", "title", "alt", "colspan", "rowspan"):
        return True
    if tag == "a" and name == "href":
        return value.startswith(("http://", "https://", "mailto:", "#"))
    if tag == "img" and name == "src":
        return bool(DATA_IMAGE.match(value))
    if tag == "img" and name in ("width", "height"):
        return value.isdigit()
    return False


def clean(html: str) -> str:
    """HTML with only the tags and attributes above; the rest escaped as text."""
    return bleach.clean(html, tags=TAGS, attributes=_attribute, protocols=["http", "https", "mailto", "data"],
                        strip=False, strip_comments=True)


def markdown_html(source: str) -> str:
    return clean(markdown2html(source))


def _size(value) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    return None


def _output(output):
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        return {"output_type": "stream", "name": name, "text": _text(output.get("text", ""))}
    if kind == "error":
        return {"output_type": "error", "ename": _text(output.get("ename", "")),
                "evalue": _text(output.get("evalue", "")),
                "traceback": [_text(line) for line in output.get("traceback", [])]}
    if kind not in ("display_data", "execute_result"):
        return {"output_type": "stream", "name": "stdout", "text": f"[an output of type {kind!r} was removed]\n"}
    data, removed, metadata = {}, [], {}
    for mime, value in dict(output.get("data", {})).items():
        value = _text(value)
        if mime in KEPT_AS_IS:
            data[mime] = value
        elif mime in IMAGES and BASE64.match(value):
            data[mime] = value
            sizes = {k: _size(v) for k, v in dict(output.get("metadata", {}).get(mime, {})).items()
                     if k in ("width", "height")}
            if any(v is not None for v in sizes.values()):
                metadata[mime] = {k: v for k, v in sizes.items() if v is not None}
        elif mime == "text/html":
            data[mime] = clean(value)
        elif mime == "text/markdown":
            data.setdefault("text/html", markdown_html(value))
        else:
            removed.append(mime)
    if removed:
        note = f"[removed from this page: {', '.join(sorted(removed))} (scripts and widgets do not run here)]"
        data["text/plain"] = (data["text/plain"] + "\n" + note) if "text/plain" in data else note
    result = {"output_type": kind, "data": data, "metadata": metadata}
    if kind == "execute_result":
        count = output.get("execution_count")
        result["execution_count"] = count if isinstance(count, int) and not isinstance(count, bool) else None
    return result


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else str(value)


def _cell_metadata(metadata) -> dict:
    kept = {}
    grading = metadata.get("nbgrader")
    if isinstance(grading, dict) and (grading.get("grade_id") is None or SAFE_NAME.match(str(grading["grade_id"]))):
        kept["nbgrader"] = grading
    tags = [tag for tag in metadata.get("tags", []) if isinstance(tag, str) and SAFE_NAME.match(tag)]
    if tags:
        kept["tags"] = tags
    return kept


class SanitizeOutputs(Preprocessor):
    """See the module's docstring."""

    def preprocess(self, nb, resources):
        from nbformat import NotebookNode, from_dict

        kept = {}
        for key in ("kernelspec", "language_info"):
            value = nb.metadata.get(key)
            if isinstance(value, dict):
                kept[key] = {k: v for k, v in value.items() if k in ("name", "display_name", "language",
                                                                      "pygments_lexer", "file_extension", "version")
                             and isinstance(v, str) and len(v) < 100 and "<" not in v and '"' not in v}
        nb.metadata = NotebookNode(from_dict(kept))
        for index, cell in enumerate(nb.cells):
            if not SAFE_NAME.match(str(cell.get("id", ""))):
                cell["id"] = f"cell-{index}"
            cell.metadata = from_dict(_cell_metadata(cell.get("metadata", {})))
            if cell.cell_type == "code":
                cell.outputs = [from_dict(_output(output)) for output in cell.get("outputs", [])]
            elif cell.cell_type == "markdown":
                source = _inline_attachments(cell.source, cell.get("attachments") or {})
                cell.pop("attachments", None)
                cell.source = one_block(markdown_html(source))
            else:
                cell.source = ""
        return nb, resources


def _inline_attachments(source: str, attachments: dict) -> str:
    """``attachment:NAME`` images as data: URLs (image types only); others dropped."""
    for name, bundle in attachments.items():
        for mime in IMAGES:
            value = bundle.get(mime) if isinstance(bundle, dict) else None
            if isinstance(value, str) and BASE64.match(value):
                source = source.replace(f"attachment:{name}", f"data:{mime};base64,{''.join(value.split())}")
                break
    return source


def one_block(html: str) -> str:
    """Clean HTML as one line in a div: line breaks become character references, so that a
    markdown renderer sees a single raw HTML block and passes it through unchanged."""
    return '<div class="sanitized-markdown">' + html.replace("\r", "").replace("\n", "&#10;") + "</div>"
