"""The grading harness around nbgrader: course layout, parallel autograde, sandbox, feedback."""

import sys

# jsonschema imports rfc3987_syntax, when installed, only to check the "iri" string format,
# and that import builds a grammar for 2.4 s. Every grading process (the `course` command,
# each worker, each sandboxed runner) imports nbformat, whose schemas never use that format:
# skipping it took a third off a short notebook's grading.
sys.modules.setdefault("rfc3987_syntax", None)
