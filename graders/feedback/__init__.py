"""Feedback for students: `course feedback` (pages), the scrubber of hidden tests (scrub)
and the status banner (banner), the latter two also used by nbgrader's own generate_feedback
through the course's nbgrader_config.py."""
