"""The DataLoader explorer: which indices each batch of an epoch holds.

Three layers:

* model   ``plan(n, batch_size, shuffle, seed, drop_last, sampler, world_size, rank)``: the
  index batches one epoch of a ``DataLoader`` over an ``n``-item dataset yields, with the
  steps per epoch, the ragged last batch, what ``drop_last`` leaves out and, for a
  ``DistributedSampler``, every rank's share and the padding it repeats. The random draws
  follow torch's own order of use of the generator, so the plan equals what a real loader
  yields (tests/test_data.py checks that against ``DataLoader`` for random settings).
* draw    ``draw_plan(plan, ax=None)``: one row of coloured blocks per batch.
* explore ``explore(...)``: controls for every argument of ``plan``.

The samplers, as the loader is built for each choice (``g`` = a ``torch.Generator``
seeded with ``seed``):

* ``"default"``     ``DataLoader(ds, batch_size, shuffle, drop_last, generator=g)``
* ``"weighted"``    ``DataLoader(ds, batch_size, drop_last, sampler=WeightedRandomSampler(
  class_balancing(labels), n, generator=g))`` over ``toy_labels(n)``
* ``"distributed"`` ``DataLoader(ds, batch_size, drop_last, sampler=DistributedSampler(ds,
  num_replicas=world_size, rank=rank, shuffle=shuffle, seed=seed))``; the sampler's own
  ``drop_last`` stays False, so its padding is visible.

Also the data of 05's sequence model: ``toy_sentences`` (token sequences of many lengths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

SAMPLERS = ("default", "weighted", "distributed")
CLASS_NAMES = ("A", "B", "C")


# ---------------------------------------------------------------------------- model

def toy_labels(n: int) -> list[int]:
    """An imbalanced three-class labelling: 60 % class 0, 30 % class 1, 10 % class 2."""
    return [0 if i < 0.6 * n else 1 if i < 0.9 * n else 2 for i in range(n)]


def toy_sentences(n: int, seed: int = 0, vocab: int = 32, mean_extra: float = 20.0,
                  longest: int = 160) -> list[tuple[torch.Tensor, int]]:
    """``n`` examples ``(tokens, label)`` for a sequence classifier: ``tokens`` a 1-d int64
    tensor of ids in [0, vocab), of length 4 plus an exponential with mean ``mean_extra``
    (at most ``longest``: most sentences short, a few long, as in text); ``label`` 1 when
    token 1 occurs more often than token 2, else 0. Drawn from a generator seeded with
    ``seed`` (the global one is left alone)."""
    if n < 1 or vocab < 3 or longest < 4:
        raise ValueError(f"need n >= 1, vocab >= 3 and longest >= 4, got {n}, {vocab}, {longest}")
    g = torch.Generator().manual_seed(seed)
    lengths = (4 + torch.empty(n).exponential_(1 / mean_extra, generator=g)).clamp(max=longest)
    examples = []
    for length in lengths.long().tolist():
        tokens = torch.randint(0, vocab, (length,), generator=g)
        examples.append((tokens, int((tokens == 1).sum() > (tokens == 2).sum())))
    return examples


def class_balancing(labels) -> torch.Tensor:
    """One weight per sample, 1 / (size of its class): every class has the same total weight."""
    labels = torch.as_tensor(labels, dtype=torch.int64)
    counts = torch.bincount(labels)
    return 1.0 / counts[labels].double()


@dataclass
class Plan:
    n: int
    batch_size: int
    drop_last: bool
    sampler: str
    batches: list[list[int]]                 # what this loader (this rank) yields, in order
    dropped: list[int] = field(default_factory=list)   # sampled, never yielded (drop_last)
    labels: list[int] | None = None          # per dataset index (weighted sampler)
    world_size: int = 1
    rank: int = 0
    shares: list[list[int]] | None = None    # every rank's indices (distributed)
    padding: int = 0                         # indices repeated to even out the ranks
    shuffle: bool = False

    @property
    def steps(self) -> int:
        return len(self.batches)

    @property
    def last_size(self) -> int:
        return len(self.batches[-1]) if self.batches else 0

    @property
    def ragged(self) -> bool:
        return bool(self.batches) and self.last_size != self.batch_size

    def summary(self) -> str:
        text = f"{self.steps} steps of batch size {self.batch_size}"
        if self.ragged:
            text += f", last batch {self.last_size}"
        if self.dropped:
            text += f"; drop_last leaves out {len(self.dropped)}"
        if self.shares is not None:
            text += f"; rank {self.rank} of {self.world_size}, padding {self.padding}"
        return text


MAX_N = 20_000            # the explorer draws every index; beyond this it says so
MAX_WORLD = 64


def _check(n, batch_size, sampler, world_size, rank, shuffle, seed):
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"N = {n}: a dataset to load needs at least one item.")
    if n > MAX_N:
        raise ValueError(f"N = {n}: the explorer draws at most {MAX_N:,} items; the rules "
                         "are the same for larger N.")
    if not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"seed = {seed}: use a whole number from 0 to {2**32 - 1}.")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size = {batch_size}: DataLoader needs a positive batch size.")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler {sampler!r} is not one of {', '.join(SAMPLERS)}.")
    if sampler == "weighted" and shuffle:
        raise ValueError("DataLoader rejects shuffle=True together with a sampler "
                         "(the sampler decides the order): untick shuffle.")
    if sampler == "distributed":
        if not isinstance(world_size, int) or world_size < 1:
            raise ValueError(f"world size {world_size}: there must be at least one rank.")
        if world_size > MAX_WORLD:
            raise ValueError(f"world size {world_size}: the explorer draws up to {MAX_WORLD} ranks.")
        if not isinstance(rank, int) or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} does not exist in a world of {world_size} "
                             f"(ranks are 0 to {world_size - 1}).")


def _distributed_order(n, world_size, shuffle, seed, epoch=0):
    """DistributedSampler's padded index list (drop_last=False) and the padding count."""
    if shuffle:
        order = torch.randperm(n, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
    else:
        order = list(range(n))
    total = math.ceil(n / world_size) * world_size
    padding = total - n
    # the padding repeats indices from the front, cycling when it is longer than the data
    order += (order * math.ceil(padding / n))[:padding]
    return order, padding


def plan(n: int = 10, batch_size: int = 4, shuffle: bool = False, seed: int = 0,
         drop_last: bool = False, sampler: str = "default", world_size: int = 2,
         rank: int = 0) -> Plan:
    """The batches of one epoch (the first: the generators are fresh) of the loader above."""
    _check(n, batch_size, sampler, world_size, rank, shuffle, seed)
    labels, shares, padding = None, None, 0
    if sampler == "default":
        g = torch.Generator().manual_seed(seed)
        # the loader's iterator draws its workers' base seed from the generator first,
        # then the RandomSampler's permutation comes from the same generator
        torch.empty((), dtype=torch.int64).random_(generator=g)
        order = torch.randperm(n, generator=g).tolist() if shuffle else list(range(n))
    elif sampler == "weighted":
        labels = toy_labels(n)
        g = torch.Generator().manual_seed(seed)
        order = torch.multinomial(class_balancing(labels), n, True, generator=g).tolist()
    else:
        padded, padding = _distributed_order(n, world_size, shuffle, seed)
        shares = [padded[r::world_size] for r in range(world_size)]
        order = shares[rank]
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    dropped = []
    if drop_last and batches and len(batches[-1]) < batch_size:
        dropped = batches.pop()
    return Plan(n=n, batch_size=batch_size, drop_last=drop_last, sampler=sampler,
                batches=batches, dropped=dropped, labels=labels, world_size=world_size
                if sampler == "distributed" else 1, rank=rank if sampler == "distributed" else 0,
                shares=shares, padding=padding, shuffle=shuffle)


# ----------------------------------------------------------------------------- draw

BATCH_COLOURS = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
                 "#9c755f", "#e15759")
CLASS_COLOURS = ("#4e79a7", "#f28e2b", "#e15759")
RANK_COLOURS = ("#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#9c755f", "#ff9da7",
                "#bab0ac", "#4e79a7")
GREY = "#c8c8c8"
TEXT_LIMIT = 300          # blocks drawn with their index written inside
ROW_LIMIT = 40            # batches drawn; longer epochs show the first and last rows


def _rgb(colour: str) -> np.ndarray:
    colour = colour.lstrip("#")
    return np.array([int(colour[i:i + 2], 16) / 255 for i in (0, 2, 4)])


_CLASS_RGB = np.array([_rgb(c) for c in CLASS_COLOURS])
_RANK_RGB = np.array([_rgb(c) for c in RANK_COLOURS])
_BATCH_RGB = np.array([_rgb(c) for c in BATCH_COLOURS])
_GREY_RGB = _rgb(GREY)


def _shown_rows(steps: int) -> list[int | None]:
    """Row numbers to draw; None marks the gap in an epoch too long to draw whole."""
    if steps <= ROW_LIMIT:
        return list(range(steps))
    head = ROW_LIMIT - 4
    return list(range(head)) + [None] + list(range(steps - 3, steps))


def _tick_rows(labels: list[str], must=()) -> list[int]:
    """The rows that get a label: about ten, every few rows, none closer than that to
    another, so that a 9 pt label never meets its neighbour; the rows named in ``must`` come
    first (in that order), the regular ones fill the gaps."""
    step = max(1, len(labels) // 10)
    chosen: list[int] = []
    wanted = [k for text in must for k, label in enumerate(labels) if label == text]
    wanted += [k for k, text in enumerate(labels) if text and k % step == 0]
    for k in wanted:     # in order of priority: ``must`` first, in its order
        if k not in chosen and all(abs(k - c) >= step for c in chosen):
            chosen.append(k)
    return sorted(chosen)


def draw_plan(result: Plan, ax=None):
    """Batches as rows of blocks (one colour per batch, or per class for the weighted
    sampler); the last batch outlined; dropped indices grey; for a distributed sampler, a
    strip on top with the padded index list coloured by the rank that gets each index."""
    from matplotlib.patches import Patch, Rectangle

    if ax is None:
        from matplotlib.figure import Figure
        ax = Figure(figsize=(7.5, 3.6)).add_subplot()
    p = result
    # as wide as the widest row: a batch size far above N draws no empty columns
    width = max(len(row) for row in p.batches + [p.dropped])
    rows = _shown_rows(p.steps)
    lines = [("batch", r) for r in rows]
    if p.dropped:
        lines.append(("dropped", None))
    strip = 0
    if p.shares is not None:
        width = max(width, min(len(sum(p.shares, [])), 64))
        strip = 2
    height = len(lines) + strip
    image = np.ones((height, width, 3), dtype=np.float32)
    cells = []      # (row, indices): the blocks that carry an index, row by row
    padded = []     # (row, column) of the distributed sampler's padding
    if p.shares is not None:
        flat = [(p.shares[r][k], r) for k in range(len(p.shares[0])) for r in range(p.world_size)]
        flat = flat[:width]
        image[0, :len(flat)] = _RANK_RGB[[r % len(RANK_COLOURS) for _, r in flat]]
        cells.append((0, [index for index, _ in flat]))
        padded = [(0, j) for j in range(p.n, len(flat))]   # positions past N are repeats
    labels = np.asarray(p.labels) if p.labels is not None else None
    for y, (kind, r) in enumerate(lines, start=strip):
        if kind == "dropped":
            image[y, :len(p.dropped)] = _GREY_RGB
            cells.append((y, p.dropped))
            continue
        if r is None:
            continue
        batch = p.batches[r]
        if labels is not None:
            image[y, :len(batch)] = _CLASS_RGB[labels[batch]]
        elif p.shares is not None:   # the rank's own colour, as in the strip
            image[y, :len(batch)] = _RANK_RGB[p.rank % len(RANK_COLOURS)]
        else:
            image[y, :len(batch)] = _BATCH_RGB[r % len(BATCH_COLOURS)]
        cells.append((y, batch))
    ax.imshow(image, aspect="auto", interpolation="nearest",
              extent=(-0.5, width - 0.5, height - 0.5, -0.5))
    blocks = sum(len(indices) for _, indices in cells)
    if blocks <= TEXT_LIMIT and width <= 32:
        size = 8 if width <= 16 else 6
        dropped_row = strip + len(lines) - 1 if p.dropped else None
        hatched = set(padded)
        for y, indices in cells:
            for j, index in enumerate(indices):
                dark = (y, j) in hatched or y == dropped_row
                ax.text(j, y, str(index), ha="center", va="center", fontsize=size,
                        color="black" if dark else "white",
                        fontweight="bold" if (y, j) in hatched else None)
    for y, j in padded:
        ax.add_patch(Rectangle((j - 0.5, y - 0.5), 1, 1, fill=False, hatch="///",
                               edgecolor="black", linewidth=0))
    if p.batches:
        last_y = strip + rows.index(p.steps - 1)
        ax.add_patch(Rectangle((-0.5, last_y - 0.5), p.last_size, 1, fill=False,
                               edgecolor="#b00020", linewidth=2.5))
        ax.text(p.last_size - 0.3, last_y, f" last batch: {p.last_size}", va="center",
                fontsize=8, color="#b00020", clip_on=False)
    labels = []
    for kind, r in lines:
        labels.append("dropped" if kind == "dropped" else "⋮" if r is None else f"batch {r}")
    if strip:
        labels = [f"ranks ({p.world_size})", ""] + labels
    ticks = _tick_rows(labels, must=("dropped", "⋮", f"batch {p.steps - 1}"))
    ax.set_yticks(ticks, [labels[k] for k in ticks], fontsize=7)
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    legend = []
    if p.labels is not None:
        legend = [Patch(color=c, label=f"class {n}") for c, n in zip(CLASS_COLOURS, CLASS_NAMES)]
    elif p.shares is not None:
        legend = [Patch(color=RANK_COLOURS[r % len(RANK_COLOURS)], label=f"rank {r}")
                  for r in range(min(p.world_size, len(RANK_COLOURS)))]
        if p.padding:
            legend.append(Patch(facecolor="white", edgecolor="black", hatch="///", label="padding"))
    room = max(2.5, width * (0.45 if legend else 0.25))
    ax.set_xlim(-0.5, width - 0.5 + room)
    if legend:
        ax.legend(handles=legend, loc="upper right", fontsize=8, frameon=False)
    title = {"default": f"shuffle={p.shuffle}", "weighted": "WeightedRandomSampler",
             "distributed": f"DistributedSampler, rank {p.rank}"}[p.sampler]
    ax.set_title(f"{title}, N = {p.n}: {p.summary()}", fontsize=9, loc="left")
    notes = []
    if p.labels is not None:
        counts = np.bincount([p.labels[i] for b in p.batches for i in b], minlength=3)
        notes.append("drawn per class: " + ", ".join(
            f"{name} {c}" for name, c in zip(CLASS_NAMES, counts))
            + "  (the data holds 60 % A, 30 % B, 10 % C)")
    if p.shares is not None:
        notes.append("top strip: the padded index list, coloured by the rank that gets each index;"
                     " padding repeats the first indices")
    if notes:
        ax.set_xlabel("\n".join(notes), fontsize=7, loc="left")
    # room for the row labels on the left ("batch 12", "ranks (4)") and the note below: the
    # explorer's default margins are for instruments without axis labels
    ax.set_position([0.1, 0.11 if notes else 0.04, 0.87, 0.77 if notes else 0.84])
    return ax.figure


# -------------------------------------------------------------------------- explore

def explore(n: int = 10, batch_size: int = 4, shuffle: bool = False, seed: int = 0,
            drop_last: bool = False, sampler: str = "default", world_size: int = 2,
            rank: int = 0):
    """The DataLoader explorer widget (a ``helpers.explorer.Explorer``)."""
    import ipywidgets as widgets

    from .explorer import Explorer

    def number(value, description):
        return widgets.IntText(value=value, description=description,
                               layout=widgets.Layout(width="170px"),
                               style={"description_width": "70px"})

    controls = {
        "n": number(n, "N"),
        "batch_size": number(batch_size, "batch size"),
        "shuffle": widgets.Checkbox(value=shuffle, description="shuffle", indent=False,
                                    layout=widgets.Layout(width="90px")),
        "seed": number(seed, "seed"),
        "drop_last": widgets.Checkbox(value=drop_last, description="drop_last", indent=False,
                                      layout=widgets.Layout(width="100px")),
        # labels short enough to show whole in the box (the longest is 17 characters)
        "sampler": widgets.Dropdown(options=[("default", "default"),
                                             ("weighted by class", "weighted"),
                                             ("distributed", "distributed")],
                                    value=sampler, description="sampler",
                                    style={"description_width": "60px"},
                                    layout=widgets.Layout(width="250px")),
        "world_size": number(world_size, "world size"),
        "rank": number(rank, "rank"),
    }
    return Explorer(controls, plan, draw_plan, title="DataLoader explorer: one epoch, batch by batch",
                    figsize=(8.5, 4.2))
