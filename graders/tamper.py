"""Tampering with grading from inside the kernel: what is checked after execution.

(Filled in by issue 4's second step; this first version checks nothing.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Check:
    prologue: str = ""

    def findings(self, nb) -> list[str]:
        return []


def instrument(nb):
    return nb, Check()


def strip(nb):
    return nb
