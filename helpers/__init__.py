"""What the course's notebooks import: instruments (model -> draw -> explore) and checks."""

from helpers.lab import rerun as _rerun

# in a notebook's kernel: an instrument cell run before the cells it needs says which to run
_rerun.install()
