"""`course report`: what the class misunderstood (model: read the graded course; draw: the
figures; page: the HTML and CSV)."""

from .model import ReportError
from .page import report

__all__ = ["ReportError", "report"]
