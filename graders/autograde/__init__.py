"""nbgrader's autograde for a class: each submission graded by a worker, start to end; the
gradebook written by the main process alone.

- ``batch``: the main process: which submissions, read and hand out, write what comes back;
- ``pipeline``: what a worker does for one submission (the whole pipeline, in one place);
- ``scratch``: the one-submission nbgrader course a worker grades in;
- ``recorded``: what the gradebook recorded (an assignment, a submission), as plain data;
- ``intake``: the main process's writes (autograded folder, gradebook, status records);
- ``integrity``: canaries around test cells and the verdicts read back (tampering);
- ``finish``: nbgrader's Autograde, second half, on a notebook executed in the sandbox;
- ``preprocessors``: the nbgrader preprocessors that half adds or swaps in;
- ``local``, ``cluster``: the workers: threads of this process, or a Dask cluster;
- ``worker``: a worker's contact with the sandbox (no nbgrader); ``jobs``: what a batch grades;
- ``status``: how each (student, assignment) ended, kept durably next to the gradebook.
"""
