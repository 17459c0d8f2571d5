"""Sandboxed execution of one notebook: limits, bubblewrap, the runner, the kernel guard.

Never imports nbgrader: it runs a notebook and says how the run ended; what the cells mean
(grades, test cells, hidden tests) is the autograde package's business.

- ``limits``: the per-submission Limits (a traitlets Configurable: ``c.Limits.*``);
- ``execute``: run one notebook in a private scratch folder and classify the ending;
- ``bwrap``: the bubblewrap command line (what a submission can see, write and reach);
- ``runner``: the child process, inside the sandbox, that drives the kernel;
- ``guard``: code that runs *inside the kernel* before the student's, to detect tampering;
- ``template``, ``template_host``: submissions forked from a template sandbox (its side, the grader's side);
- ``environment``: the environment every sandboxed process starts with;
- ``streams``: frames and capped pipes between the grader and its sandboxes;
- ``threads``: inside the kernel, torch's thread requests kept within the limits.
"""

# Cells the grader adds to a notebook carry this metadata key; the runner runs them without
# counting them in the student's history.
CANARY_KEY = "graders_canary"

# A folder of this name in the scratch copy is the run's torch.compile (Inductor) cache:
# graders.course.compile_cache puts a private copy of the assignment's warmed cache there.
COMPILE_CACHE = ".compile-cache"
