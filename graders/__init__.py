"""The grading harness: nbgrader, plus what it lacks for a course graded at scale.

- ``course``: the course directory, its one nbgrader configuration, release and export;
- ``autograde``: nbgrader's autograde, split so execution runs in parallel sandboxed
  workers, with tamper detection and a status for every (student, assignment);
- ``sandbox``: runs one notebook contained and limited; never imports nbgrader;
- ``feedback``: a page for every student, hidden tests scrubbed;
- ``report``: what the class misunderstood;
- ``cli``: the `course` command.
"""

import sys

# jsonschema imports rfc3987_syntax, when installed, only to check the "iri" string format,
# and that import builds a grammar for 2.4 s. Every grading process (the `course` command,
# each worker, each sandboxed runner) imports nbformat, whose schemas never use that format:
# skipping it took a third off a short notebook's grading.
sys.modules.setdefault("rfc3987_syntax", None)
