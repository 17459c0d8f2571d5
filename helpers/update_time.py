"""How long an instrument takes to answer a control change, as a notebook's closing note
quotes it.

``median_update_ms(explorer, repeat)`` times what ``benchmarks/instruments.py`` calls
"model + draw" (the budget's ≤ 50 ms): the model recomputes and the figure is redrawn, at
the explorer's current setting. Between two updates the spare figure is prepared, as the
Explorer does once a picture has been sent, so that each update draws on a ready figure and
that preparation, which nobody waits for, is not counted.
"""

from __future__ import annotations

import statistics


def median_update_ms(explorer, repeat: int = 3) -> float:
    """The median over ``repeat`` updates of model + draw time, in milliseconds."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    times = []
    for _ in range(repeat):
        explorer.compute()
        times.append((explorer.timings["model"] + explorer.timings["draw"]) * 1000)
        explorer.prepare_spare()
    return statistics.median(times)
