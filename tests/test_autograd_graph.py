"""The autograd graph model against autograd itself, and its explorer."""

import matplotlib

matplotlib.use("Agg")

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from torch.testing import assert_close

from helpers import autograd_graph as ag
from helpers.lab.picture_check import problems

OPS = ["add", "sub", "mul", "div", "pow", "exp", "sum", "mean", "relu", "matmul"]


def apply(op, x, y):
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    if op == "mul":
        return x * y
    if op == "div":
        return x / (y * y + 1)       # a denominator that cannot reach zero
    if op == "pow":
        return x.pow(2) if x.numel() > 1 else x ** 3
    if op == "exp":
        return torch.exp(x)
    if op == "sum":
        return x.sum()
    if op == "mean":
        return x.mean()
    if op == "relu":
        return torch.relu(x)
    if op == "matmul":
        return x @ y if x.dim() == 2 and y.dim() == 2 else x * y
    raise AssertionError(op)


@st.composite
def programs(draw):
    """Leaves (some requiring grad), then a few ops each reading two earlier results:
    reuse of a result is the fan-out the model must sum."""
    n = draw(st.integers(1, 3))
    floats = st.floats(-1.5, 1.5, allow_nan=False, width=32)
    values = [draw(st.lists(floats, min_size=4, max_size=4)) for _ in range(n)]
    requires = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    steps = draw(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50),
                                    st.integers(0, 50)), min_size=1, max_size=7))
    return values, requires, steps


def run(values, requires, steps):
    leaves = [torch.tensor(v, dtype=torch.float64).reshape(2, 2).requires_grad_(r)
              for v, r in zip(values, requires)]
    pool = list(leaves)
    for op, i, j in steps:
        pool.append(apply(op, pool[i % len(pool)], pool[j % len(pool)]))
    out = pool[-1]
    return leaves, (out if out.dim() == 0 else out.sum())


def walk(out):
    """grad_fn -> its non-None next functions, found independently of the model."""
    found, stack = {}, [out.grad_fn]
    while stack:
        fn = stack.pop()
        if fn in found:
            continue
        found[fn] = [(slot, child) for slot, (child, _) in enumerate(fn.next_functions)
                     if child is not None]
        stack.extend(child for _, child in found[fn])
    return found


@settings(max_examples=60, deadline=None)
@given(programs())
def test_model_agrees_with_autograd(program):
    leaves, out = run(*program)
    if not out.requires_grad:
        with pytest.raises(ValueError, match="requires grad"):
            ag.build_graph(out)
        return
    assume(torch.isfinite(out).item() and out.abs().item() < 1e8)
    sentinel = {id(t): torch.full_like(t, 7.0) for t in leaves if t.requires_grad}
    for t in leaves:
        if t.requires_grad:
            t.grad = sentinel[id(t)].clone()
    names = {f"x{k}": t for k, t in enumerate(leaves)}
    graph = ag.build_graph(out, names=names)

    # The caller's .grad is exactly as it was.
    for t in leaves:
        if t.requires_grad:
            assert_close(t.grad, sentinel[id(t)])

    # Structure: the same nodes and edges as grad_fn/next_functions.
    found = walk(out)
    fn_nodes = {n.fn: n for n in graph.nodes.values() if n.kind != "output"}
    assert set(fn_nodes) == set(found)
    model_edges = {(graph.nodes[e.src].fn, graph.nodes[e.dst].fn, e.slot)
                   for e in graph.edges if graph.nodes[e.dst].kind != "output"}
    real_edges = {(child, fn, slot) for fn, kids in found.items() for slot, child in kids}
    assert model_edges == real_edges
    assert len(graph.edges) == len(real_edges) + 1
    for node in graph.nodes.values():
        if node.kind == "leaf":
            assert any(node.variable is t for t in leaves)
            assert node.label in names
        elif node.kind == "op":
            assert node.fn.name().startswith(node.label)

    # Adjoints: fan-out edges sum to the node's adjoint; leaves match the real .grad.
    for node in graph.nodes.values():
        if node.kind != "output" and node.grad is not None:
            fan = [e.adjoint for e in graph.into(node.id) if e.adjoint is not None]
            assert_close(sum(fan), node.grad)
    for t in leaves:
        t.grad = None
    out.backward()          # build_graph kept the graph alive for the caller
    for t in leaves:
        if t.requires_grad:
            node = next((n for n in graph.leaves() if n.variable is t), None)
            if node is None:        # a leaf the output never used gets no gradient
                assert t.grad is None
                continue
            expected = t.grad if t.grad is not None else torch.zeros_like(t)
            got = node.grad if node.grad is not None else torch.zeros_like(t)
            assert_close(got, expected)


def test_seed_graph_at_2_3():
    g = ag.seed_graph(2.0, 3.0)
    out = g.nodes[g.output]
    assert out.value.item() == 64
    assert g.leaf("a").grad.item() == 64
    assert g.leaf("b").grad.item() == 32
    # a fans out into Mul (through c) and Add: 48 + 16.
    assert sorted(e.adjoint.item() for e in g.into(g.leaf("a").id)) == [16, 48]
    values = sorted(n.value.item() for n in g.nodes.values() if n.kind == "op")
    assert values == [6, 8, 64]


@settings(max_examples=40, deadline=None)
@given(st.floats(-4, 4), st.floats(-4, 4))
def test_seed_graph_tells_the_truth_everywhere(a, b):
    g = ag.seed_graph(a, b)
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    L = ((ta * tb) + ta) ** 2
    L.backward()
    assert_close(g.nodes[g.output].value, L.detach())
    assert_close(g.leaf("a").grad, ta.grad)
    assert_close(g.leaf("b").grad, tb.grad)
    d = a * b + a
    assert g.leaf("a").grad.item() == pytest.approx(2 * d * (b + 1), abs=1e-9)


def test_16b_plus_16_only_holds_at_b_3():
    assert ag.seed_graph(2.0, 1.0).leaf("a").grad.item() == 16.0   # 16·1 + 16 would be 32


def test_vector_output_needs_a_gradient():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    with pytest.raises(ValueError, match="gradient argument"):
        ag.build_graph(y)
    v = torch.tensor([1.0, 0.5, -1.0])
    g = ag.build_graph(y, names={"x": x}, grad_output=v)
    (expected,) = torch.autograd.grad(y, x, v)
    assert_close(g.leaf("x").grad, expected)


def test_no_graph_messages():
    x = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(ValueError, match="leaf"):
        ag.build_graph(x)
    with pytest.raises(ValueError, match="requires grad"):
        ag.build_graph((x * 2).detach())
    with pytest.raises(ValueError, match="not a tensor"):
        ag.trace(lambda x: 3.0, x=1.0)


def test_retained_grad_of_output_untouched():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * 3
    y.retain_grad()
    ag.build_graph(y)
    assert y.grad is None and x.grad is None


def test_draw_returns_a_figure():
    g = ag.seed_graph()
    fig = ag.draw_graph(g)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "48" in texts and "16" in texts and "grad 64" in texts


def test_explorer_updates_and_recovers():
    e = ag.explore()
    first = e.image.value
    assert first and e.error is None
    e.controls["b"].value = 1.0
    assert e.image.value != first
    assert e.result.leaf("a").grad.item() == pytest.approx(2 * (2 * 1 + 2) * 2)

    def gate(x):
        return x * 2 if x > 0 else torch.tensor(1.0)
    g = ag.explore(gate, x=(-1, 1, 0.5, 0.5))
    assert g.error is None
    g.controls["x"].value = -0.5
    assert g.error and "requires grad" in g.message.value
    assert "course-explorer-stale" in g.image._dom_classes  # the last picture stays, greyed
    g.controls["x"].value = 1.0
    assert g.error is None and g.message.value == ""
    assert g.result.leaf("x").grad.item() == 2.0


def test_explorer_turns_failures_into_messages():
    e = ag.explore(lambda x: torch.stack([x, x]))
    assert "not a scalar" in e.message.value
    e = ag.explore(lambda x, y: torch.ones(2) @ torch.ones(3) * x)
    assert "RuntimeError" in e.message.value


def _fanout(x, y):
    q = x * y + x ** 2
    return q * x


def _crosses(path, box, steps=200):
    """Does the drawn path enter the (x0, y0, x1, y1) box? Bézier curves are sampled."""
    x0, y0, x1, y1 = box
    for polygon in path.to_polygons(closed_only=False):
        for (ax_, ay), (bx, by) in zip(polygon[:-1], polygon[1:]):
            for t in (i / steps for i in range(steps + 1)):
                px, py = ax_ + t * (bx - ax_), ay + t * (by - ay)
                if x0 < px < x1 and y0 < py < y1:
                    return True
    return False


GRAPHS = {
    "fanout-7-nodes": lambda: ag.trace(_fanout, x=2.0, y=-1.0),
    "fanout-at-2.3": lambda: ag.trace(_fanout, x=2.3, y=-1.0),  # long fan-out sums
    "seed": ag.seed_graph,
    "seed-negative": lambda: ag.seed_graph(-3.7, -2.9),
    "x-times-x": lambda: ag.trace(lambda x: x * x, x=1.0),
    "wide": lambda: ag.trace(lambda a, b, c: (torch.sin(a * b + c) * a + (a * b) * c) * (a * b + c),
                             a=1.0, b=2.0, c=0.5),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_edges_never_cross_a_node(name):
    graph = GRAPHS[name]()
    boxes = ag.geometry(graph)
    seen = {}
    for edge in graph.edges:
        k = seen.get((edge.src, edge.dst), 0)
        seen[(edge.src, edge.dst)] = k + 1
        many = sum(1 for e in graph.edges if (e.src, e.dst) == (edge.src, edge.dst))
        path, _ = ag.edge_route(boxes, edge.src, edge.dst, k, many)
        for n, b in boxes.items():
            if n not in (edge.src, edge.dst):
                assert not _crosses(path, (b.left, b.bottom, b.right, b.top)), (
                    graph.nodes[edge.src].label, graph.nodes[edge.dst].label, graph.nodes[n].label)


@pytest.mark.parametrize("name", GRAPHS)
def test_the_picture_reads_cleanly(name):
    """No label over another, none out of its box or the figure, none over an arrowhead,
    at the explorer's size (issue 30: x = 2.3 overflowed its box, labels hid arrowheads)."""
    fig = Figure(figsize=(8, 3.8), dpi=96)
    ag.draw_graph(GRAPHS[name](), ax=fig.add_subplot())
    assert problems(fig) == []


def test_the_title_keeps_its_parts_apart_in_svg():
    """SVG collapses a run of spaces into one: parts are separated by more than spaces."""
    fig = ag.draw_graph(ag.trace(lambda x: x * x, x=1.0))
    title = next(t.get_text() for t in fig.texts if "x.grad" in t.get_text())
    assert "out = 1;" in title and "  " not in title.replace(";  ", "; ")


def test_the_seed_explorer_does_not_print_the_gradient_formula():
    """02's quiz asks where a.grad is 0: the explorer must not state a.grad's formula."""
    e = ag.explore()
    assert "2d" not in e.title and "grad" not in e.title


def test_one_rounding_for_node_and_edge_values():
    graph = ag.trace(lambda x, y: x / y, x=1.0, y=3.0)
    fig = ag.draw_graph(graph)
    texts = [t.get_text() for t in fig.axes[0].texts]
    third = ag.fmt(torch.tensor(1 / 3, dtype=torch.float64))
    assert third == "0.3333"
    assert any(f"= {third}" in t for t in texts)          # the node's value
    assert third in texts                                 # the edge from x carries 1/y
    fan = ag.trace(_fanout, x=2.0, y=-1.0)
    x_text = ag._node_text(fan, fan.leaf("x"))
    assert "= 2 − 2 + 8" in x_text                        # its paths, rounded like the rest


@pytest.mark.parametrize("fn, inputs, what", [
    (lambda x, y: x / y, {"x": 1.0, "y": 0.0}, "value of Div is inf"),
    (lambda x: torch.log(x) * x, {"x": 0.0}, "is "),
    (lambda x: torch.sqrt(x) + x, {"x": 0.0}, "gradient"),
])
def test_division_by_zero_is_a_message_not_a_nan(fn, inputs, what):
    with pytest.raises(ValueError, match="division by zero") as error:
        ag.trace(fn, **inputs)
    assert what in str(error.value)
    e = ag.explore(fn)
    for name, value in inputs.items():
        e.controls[name].value = value
    assert e.error and "division by zero" in e.message.value
