"""nbgrader's autograde, with execution spread over sandboxed worker processes.

- ``batch``: the main process: which submissions, sanitize, hand out, finish, record;
- ``worker``: what a worker process runs (imports graders.sandbox only: keep this file empty);
- ``integrity``: canaries around test cells and the verdicts read back (tampering);
- ``finish``: nbgrader's Autograde, second half, on a notebook executed elsewhere;
- ``preprocessors``: the two nbgrader preprocessors that half adds;
- ``status``: how each (student, assignment) ended, kept durably next to the gradebook.
"""
