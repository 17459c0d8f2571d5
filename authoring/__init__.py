"""Authoring tools (they do not grade): build notebooks from their percent-format sources
(``build``, ``python -m authoring``), make submissions from a release and its variants
(``submissions``), and the demo course of `make grade-demo` (``demo``)."""
