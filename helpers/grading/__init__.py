"""What grading needs inside and around the student's kernel: the probe half of a hidden
test and the data it sends out (``probe``, ``wire``)."""

# The line that ends a hidden test's probe and begins its judge (graders.autograde.judging)
JUDGE_MARK = "### JUDGE"
