"""The loop-anatomy recorder against torch: gradients, moves and graph states it reports
are what an independent computation with torch gives."""

import matplotlib
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from helpers import loop_anatomy as la  # noqa: E402


def reference_grads(weight, bias):
    """The gradient of the tiny problem's MSE at (weight, bias), by torch.autograd.grad."""
    _, x, y = la.tiny_problem()
    w = weight.clone().requires_grad_()
    b = bias.clone().requires_grad_()
    loss = ((x @ w.T + b - y) ** 2).mean()
    return torch.autograd.grad(loss, (w, b)), loss.item()


def start():
    model, _, _ = la.tiny_problem()
    return model.weight.detach().clone(), model.bias.detach().clone()


@settings(max_examples=20, deadline=None)
@given(lr=st.floats(0.001, 1.0))
def test_the_five_steps_match_plain_sgd(lr):
    anatomy = la.record(la.LINES, iterations=2, lr=lr)
    w, b = start()
    rows = iter(anatomy.states)
    for _iteration in (1, 2):
        (gw, gb), loss = reference_grads(w, b)
        zero, fwd, lossrow, back, step = (next(rows) for _ in range(5))
        assert zero.param("weight").grad == "None" and zero.graph_nodes in (0, 5)
        assert fwd.graph_nodes == 4 and not fwd.graph_freed  # Addmm, T, two AccumulateGrad
        assert lossrow.graph_nodes == 5 and not lossrow.graph_freed
        assert lossrow.loss == pytest.approx(loss, rel=1e-6)
        assert back.graph_freed, "backward releases the saved tensors"
        torch.testing.assert_close(back.param("weight").grad_value, gw)
        torch.testing.assert_close(back.param("bias").grad_value, gb)
        assert back.param("weight").moved == 0.0
        torch.testing.assert_close(step.param("weight").value, w - lr * gw)
        assert step.param("weight").moved == pytest.approx(float((lr * gw).norm()), rel=1e-4)
        w, b = w - lr * gw, b - lr * gb


def test_without_zero_grad_gradients_add_up():
    anatomy = la.record("forward, loss, backward, step", iterations=2, lr=0.1)
    w, b = start()
    (g1w, _), _ = reference_grads(w, b)
    (g2w, _), _ = reference_grads(w - 0.1 * g1w, b - 0.1 * reference_grads(w, b)[0][1])
    second_backward = anatomy.states[6]
    assert second_backward.line == "backward"
    torch.testing.assert_close(second_backward.param("weight").grad_value, g1w + g2w)


def test_step_before_backward_never_moves_the_weights():
    anatomy = la.record("zero_grad, forward, loss, step, backward", iterations=2)
    assert all(s.param(n).moved == 0.0 for s in anatomy.states for n in ("weight", "bias"))


def test_step_at_the_top_uses_the_previous_iterations_gradient():
    """The order of 04's step-top quiz: every step after the first moves the weights by the
    gradient the previous iteration's backward left, computed at the weights of then."""
    anatomy = la.record("step, zero_grad, forward, loss, backward", iterations=3, lr=0.1)
    steps = [s for s in anatomy.states if s.line == "step"]
    assert steps[0].param("weight").grad == "None" and steps[0].param("weight").moved == 0.0
    w, b = start()
    (gw, gb), _ = reference_grads(w, b)           # iteration 1's backward, at the start
    for step in steps[1:]:
        torch.testing.assert_close(step.param("weight").value, w - 0.1 * gw)
        w, b = w - 0.1 * gw, b - 0.1 * gb
        (gw, gb), _ = reference_grads(w, b)       # this iteration's backward, after its step


def test_zero_grad_to_zeros_keeps_tensors():
    anatomy = la.record(la.LINES, iterations=2, set_to_none=False)
    again = anatomy.states[5]
    assert again.line == "zero_grad" and again.param("weight").grad == "zeros"
    assert torch.equal(again.param("weight").grad_value, torch.zeros(1, 2))


@pytest.mark.parametrize("text, fragment", [
    ("", "at least one"), ("forward, lose", "unknown line"), ("loss, forward", "forward before loss"),
    ("forward, backward", "loss before backward"), ("forward, forward", "2 times"),
])
def test_impossible_orders_say_why(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        la.parse_order(text)


def test_count_nodes_matches_a_hand_count():
    a = torch.tensor(1.0, requires_grad=True)
    out = (a * 2).exp()
    assert la.count_nodes(out) == 3  # Exp, Mul, AccumulateGrad
    assert la.count_nodes(a.detach()) == 0


def test_explorer_draws_and_reports_an_impossible_order():
    explorer = la.explore()
    assert explorer.error is None and explorer.image.value
    explorer.controls["order"].value = "forward, backward, loss"
    assert "loss before backward" in explorer.error
    explorer.controls["order"].value = la.DEFAULT_ORDER
    assert explorer.error is None


def test_the_rows_slider_ends_at_the_last_row_of_the_order():
    """Issue 38: "show rows" went to 10 when the typed order had 8 rows. The slider's end
    follows the order (two iterations of its lines); one showing every row still does, one
    showing fewer keeps its place; an impossible order leaves it alone; one picture a change."""
    explorer = la.explore()
    rows = explorer.controls["upto"]
    assert (rows.max, rows.value) == (10, 10)
    drawn = []
    explorer.update = lambda: (drawn.append(explorer.values()), type(explorer).update(explorer))[1]
    explorer.controls["order"].value = "forward, loss, backward, step"
    assert (rows.max, rows.value) == (8, 8) and len(explorer.result[0].states) == 8
    assert drawn == [explorer.values()] and drawn[0]["upto"] == 8
    rows.value = 3
    explorer.controls["order"].value = la.DEFAULT_ORDER
    assert (rows.max, rows.value) == (10, 3)
    explorer.controls["order"].value = "forward, backward"
    assert explorer.error and (rows.max, rows.value) == (10, 3)
    assert (la.explore(upto=4).controls["upto"].value, la.explore(order="loss").controls["upto"].max) == (4, 10)
