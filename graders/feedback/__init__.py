"""Feedback for students: `course feedback` (pages), the scrubber of hidden tests (scrub),
the status banner (banner) and the summary of every exercise on top (summary, with its
template in templates/), the last three also used by nbgrader's own generate_feedback
through the course's nbgrader_config.py."""
