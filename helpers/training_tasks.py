"""What notebook 04's test cells share between their two halves: the visible check runs the
student's function in the kernel and checks what it did; the judge, in the grader, checks
what the hidden probe reported (helpers.grading.probe). Both call the ``check_*`` functions
here on the same plain data (numbers, lists, dicts of tensors), so a misconception is named
in the same words on either side, and a message is written once.

Nothing here is an answer: the ``observe_*`` functions run code the student wrote and
record what it did; the ``check_*`` functions say what is wrong with a record.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

from helpers import checks


def _fail(message: str, name: str) -> None:
    """Fail with ``message`` as the misconception of ``name`` (checks.reject's wording)."""
    checks.reject(True, {True: message}, name)


# evaluate_model ----------------------------------------------------------------------------

def mode_net(X, seed: int) -> nn.Module:
    """An MLP with batch norm and dropout that has seen one batch of ``X``; training, its batch
    norm frozen in eval (so that "restore the mode" means every submodule's)."""
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.5),
                        nn.Linear(32, 10))
    net(X[:64])                      # some running statistics
    net.train()
    net[1].eval()
    return net


def spy_forward(net: nn.Module) -> list:
    """During each forward of ``net``: (the rows it got, whether any submodule was training,
    whether autograd was recording)."""
    calls = []
    net.register_forward_hook(lambda m, i, o: calls.append(
        (len(i[0]), any(s.training for s in net.modules()), torch.is_grad_enabled())))
    return calls


def batch_means(net: nn.Module, X, y, batch_size: int) -> tuple[float, float]:
    """The plain average of the batches' loss and accuracy, in eval mode: the wrong answer in
    which the short last batch's rows count for more."""
    from helpers.modes import evaluating

    with torch.no_grad(), evaluating(net):
        parts = [(net(X[s:s + batch_size]), y[s:s + batch_size]) for s in range(0, len(X), batch_size)]
    return (sum(nn.functional.cross_entropy(o, t).item() for o, t in parts) / len(parts),
            sum((o.argmax(1) == t).float().mean().item() for o, t in parts) / len(parts))


def check_evaluation(result, calls, grad_on_after: bool, before: list, after: list,
                     plain: tuple, rows: int, batch_size: int = 64) -> None:
    """evaluate_model(model, loss_fn, X, y, batch_size) returned ``result``; ``calls`` are
    spy_forward's records, ``before``/``after`` each submodule's mode, ``plain`` the
    batch_means of the same data, ``rows`` the rows of X."""
    checks.expect_type(result, (tuple, list), "evaluate_model(...)")
    checks.expect_true(len(result) == 2, "[mc:eval.tensor-result] evaluate_model returns two "
                       f"values, (loss, accuracy); it returned {len(result)}.")
    if any(isinstance(v, torch.Tensor) for v in result):
        _fail("[mc:eval.tensor-result] Return Python floats (.item()), not tensors.", "the returned values")
    for v in result:
        checks.expect_type(v, float, "each of (loss, accuracy)")
    checks.expect_true(bool(calls), "[mc:eval.model-not-called] evaluate_model never ran the "
                       "model it was given: compute the logits with model(...).")
    seen = [r for r, _, _ in calls]
    checks.expect_true(max(seen) <= batch_size, f"[mc:eval.not-batched] The model ran on {max(seen)} "
                       f"rows at once; batch_size was {batch_size}: run it on at most batch_size rows "
                       "at a time.")
    checks.expect_true(sum(seen) == rows, f"[mc:eval.rows-missed] The model saw {sum(seen)} "
                       f"rows in all, but X has {rows}: every row counts once, the last, "
                       "smaller batch included.")
    checks.expect_true(not any(t for _, t, _ in calls), "[mc:eval.train-mode] Some layer ran in "
                       "training mode (dropout zeroed activations at random, batch norm used the "
                       "batch's statistics): call model.eval(), which switches every submodule.")
    checks.expect_true(not any(g for _, _, g in calls), "[mc:eval.grad-enabled] Autograd was "
                       "recording during evaluation: wrap the forward passes in torch.no_grad().")
    checks.expect_true(grad_on_after is True, "[mc:eval.grad-left-off] After evaluate_model autograd "
                       "is off for everything that follows, the training loop that called it "
                       "included: torch.set_grad_enabled(False) stays in force until switched "
                       "back; a `with torch.no_grad():` block ends by itself.")
    if result[1] > 1:
        _fail("[mc:eval.percent] The accuracy should be a fraction between 0 and 1, not a "
              "percentage.", "accuracy > 1")
    checks.expect_true(after[0] == before[0], "[mc:eval.mode-not-restored] The model was "
                       "training before evaluate_model and is not after it: a training loop that "
                       "calls it would go on without dropout. Restore the modes it had.")
    checks.expect_true(after == before, "[mc:eval.mode-restored-top-only] The model's own "
                       "flag is back, but not every submodule's: its batch norm was in eval mode "
                       "(frozen) and train(was_training) switched it to training. Remember "
                       "[m.training for m in model.modules()] and restore each.")
    averaged = ("[mc:eval.mean-of-batch-means] That is the plain average of the batches' values: "
                f"the last batch has {rows % batch_size} rows and the others {batch_size}, so each "
                "of its rows counted for more than theirs. Every row of X should count the same.")
    checks.reject_close(result[0], {plain[0]: averaged}, "the loss", rtol=1e-6)
    checks.reject_close(result[1], {plain[1]: averaged}, "the accuracy", rtol=1e-6)


# guarded_step ------------------------------------------------------------------------------

def observe_refusal(guarded_step, scale: float, step: int) -> dict:
    """guarded_step on a non-finite loss (a Linear's output times ``scale``) at ``step``: what
    it did (``outcome``: "returned", or the exception's type and message), the gradients and
    the weights it left, and the weights it was given (``start``)."""
    torch.manual_seed(5)
    m = nn.Linear(3, 2)
    start = copy.deepcopy(m.state_dict())
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    opt.zero_grad()
    bad = (m(torch.randn(6, 3)) ** 2).mean() * scale
    try:
        guarded_step(m, bad, opt, step, 1.0)
        said = "returned"
    except Exception as error:  # noqa: BLE001 - reported, then checked
        said = f"{type(error).__name__}: {error}"
    return {"outcome": said, "grads": [p.grad for p in m.parameters()], "weights": dict(m.state_dict()),
            "start": dict(start)}


def check_refusal(seen: dict, start: dict, kind: str, step: int) -> None:
    """guarded_step must raise FloatingPointError naming ``step`` before any backward, leaving
    the weights at ``start``."""
    said = seen["outcome"]
    if said == "returned":
        _fail("[mc:nan.inf-not-checked] guarded_step let an infinite loss through: 'not finite' "
              "means inf and -inf as well as nan. torch.isnan misses them; torch.isfinite "
              "catches all three." if "inf" in kind else
              "[mc:nan.not-detected] guarded_step returned for a NaN loss: check "
              "torch.isfinite(loss) before backward and raise.", f"guarded_step with a {kind} loss")
    checks.expect_true(isinstance(said, str) and said.startswith("FloatingPointError: "),
                       f"[mc:nan.not-detected] A {kind} loss should raise FloatingPointError; got {said}")
    checks.expect_true(str(step) in said, "[mc:nan.step-not-named] The error should name the "
                       f"step ({step}) so the run can be traced; it said: {said}")
    checks.expect_true(all(g is None for g in seen["grads"]),
                       f"[mc:nan.backward-before-check] The {kind} loss was back-propagated "
                       "before the check: every .grad is now filled with nan or inf. Check the "
                       "loss first and raise before calling backward.")
    checks.expect_true(all(torch.equal(seen["weights"][k], v) for k, v in start.items()),
                       f"[mc:nan.not-detected] The weights changed on a {kind} loss: raise "
                       "before backward and step.")


def observe_skip(guarded_step, make_optimizer, bad: str, where: str = "weight") -> dict:
    """guarded_step on a finite loss whose gradient holds ``bad`` ("nan" or "inf"; in the
    weight's gradient, or in the bias's: the last parameter), after one good step gave the
    optimizer state: what it returned, the weights, the optimizer's state and the gradients
    after it, and the weights and state before it (``weights before``, ``state before``)."""
    torch.manual_seed(6)
    m = nn.Linear(3, 2)
    opt = make_optimizer(m.parameters())
    x = torch.randn(6, 3)
    opt.zero_grad()
    (m(x) ** 2).mean().backward()
    opt.step()
    weights, state = copy.deepcopy(dict(m.state_dict())), copy.deepcopy(opt.state_dict()["state"])
    opt.zero_grad()
    entry = m.weight[0, 0] if where == "weight" else m.bias[1]
    kink = torch.sqrt(entry - entry.detach())     # 0, infinite slope
    loss = (m(x) ** 2).mean() + (kink if bad == "inf" else 0 * kink)
    try:
        returned = guarded_step(m, loss, opt, 9, 1.0)
    except FloatingPointError:
        returned = "raised FloatingPointError"
    return {"returned": returned, "weights": dict(m.state_dict()), "state": opt.state_dict()["state"],
            "grads": [p.grad for p in m.parameters()], "weights before": weights, "state before": state}


def same_state(a: dict, b: dict) -> bool:
    """Two optimizer states (state_dict()["state"]) hold the same tensors, bit for bit."""
    return a.keys() == b.keys() and all(
        a[k].keys() == b[k].keys() and all(torch.equal(torch.as_tensor(a[k][n]), torch.as_tensor(b[k][n]))
                                           for n in a[k]) for k in a)


def check_skip(seen: dict, weights: dict, state: dict, label: str, bad: str) -> None:
    """A skipped step (observe_skip's record) returns None and leaves the weights and the
    optimizer's ``state`` as they were (``weights``), and every .grad None."""
    what = f"With {label} and a finite loss whose gradient holds {bad}"
    if seen["returned"] == "raised FloatingPointError":
        _fail(f"[mc:nan.grad-raises] {what}, guarded_step raised: a bad gradient under a finite "
              "loss is skipped, not fatal. Return None and let the run go on.", "guarded_step")
    if not all(torch.isfinite(v).all() for v in seen["weights"].values()):
        _fail(f"[mc:nan.inf-not-checked] {what}, the step ran on it and the weights are now nan: "
              "'not finite' means inf as well as nan, and torch.isnan misses inf." if bad == "inf" else
              f"[mc:nan.grad-not-checked] {what}, the step ran on it and the weights are now nan: "
              "a finite loss does not promise finite gradients. Check them after backward, "
              "before step.", "the weights after guarded_step")
    checks.expect_true(all(torch.equal(seen["weights"][k], v) for k, v in weights.items())
                       and same_state(seen["state"], state),
                       f"[mc:nan.skip-by-zero-grad] {what}, the weights or the optimizer's state "
                       "changed: zeroing the gradients and stepping is not a skip, since "
                       "momentum (or Adam's running averages) still moves the weights and the "
                       "optimizer counts a step. Return before optimizer.step().")
    checks.expect_true(all(g is None for g in seen["grads"]),
                       f"[mc:nan.skip-leaves-grad] {what}, the skipped step left .grad filled: "
                       "a caller that accumulates gradients would add the next batch's to it. "
                       "Leave every .grad None, as it came in (optimizer.zero_grad()).")
    checks.expect_true(seen["returned"] is None, f"[mc:nan.skip-not-reported] {what}, the step was "
                       "skipped, so guarded_step returns None (a caller counts skips by it); it "
                       f"returned {seen['returned']!r}.")


def check_clipped(norm, weights, unclipped) -> None:
    """After guarded_step on a large finite gradient: the weights did not take the unclipped
    step, and the returned norm is a float, the norm before clipping."""
    if isinstance(norm, torch.Tensor):
        _fail("[mc:clip.norm-tensor] guarded_step returned the norm as a tensor; the task asks for "
              "a Python float, a number to log.", "the returned norm")
    checks.reject_close(weights, {unclipped: "[mc:clip.not-applied] The weights moved by the full, "
                                             "unclipped gradient: clip_grad_norm_ must run between "
                                             "backward and step."}, "the weights after the step")
    checks.reject_close(norm, {1.0: "[mc:clip.norm-after-clipping] Return the norm before clipping "
                                    "(what clip_grad_norm_ returns), not max_norm."}, "the returned norm")
    checks.expect_type(norm, float, "the returned norm")


# accumulate_step ---------------------------------------------------------------------------

def accumulation_batch(seed: int, rows: int, unlabelled) -> tuple:
    """``rows`` rows of 5 features and labels in 0..2, the rows in ``unlabelled`` marked -100
    (ignored by the cross-entropy)."""
    gen = torch.Generator().manual_seed(seed)
    X, y = torch.randn(rows, 5, generator=gen), torch.randint(0, 3, (rows,), generator=gen)
    if unlabelled:
        y[list(unlabelled)] = -100
    return X, y


class SpySGD(torch.optim.SGD):
    """SGD that keeps a copy of the gradients it stepped with: one list per step, None for a
    parameter without a gradient."""

    def __init__(self, params, lr: float):
        super().__init__(params, lr=lr)
        self.steps = []

    def step(self, closure=None):
        self.steps.append([None if p.grad is None else p.grad.detach().clone()
                           for g in self.param_groups for p in g["params"]])
        return super().step(closure)


def observe_accumulation(accumulate_step, seed: int, rows: int, unlabelled, micro_batch: int) -> dict:
    """accumulate_step on accumulation_batch's data and a Linear(5, 3) made from ``seed``
    whose .grad is stale (all ones): what it returned, and the gradients each step used."""
    X, y = accumulation_batch(seed, rows, unlabelled)
    torch.manual_seed(seed)
    model = nn.Linear(5, 3)
    for p in model.parameters():
        p.grad = torch.ones_like(p)            # stale
    spy = SpySGD(model.parameters(), lr=0.5)
    returned = accumulate_step(model, nn.CrossEntropyLoss(), spy, X, y, micro_batch)
    return {"returned": returned, "gradients each step used": spy.steps}


def large_batch(seed: int, rows: int, unlabelled, micro_batch: int) -> tuple:
    """On accumulation_batch's data and a fresh Linear(5, 3) made from ``seed``: the
    large-batch gradients and loss, and each chunk's own mean-loss gradients (None for a chunk
    without labels)."""
    X, y = accumulation_batch(seed, rows, unlabelled)
    torch.manual_seed(seed)
    twin = nn.Linear(5, 3)
    ce = nn.CrossEntropyLoss()
    full_loss = ce(twin(X), y)
    full = torch.autograd.grad(full_loss, list(twin.parameters()))
    chunks = [(X[i:i + micro_batch], y[i:i + micro_batch]) for i in range(0, rows, micro_batch)]
    means = [torch.autograd.grad(ce(twin(a), b), list(twin.parameters())) if (b != -100).any() else None
             for a, b in chunks]
    return full, full_loss.item(), means


def check_steps(steps: list) -> list:
    """accumulate_step must make one optimizer step; the gradients that step used."""
    if len(steps) != 1:
        _fail(f"[mc:accumulation.step-per-micro-batch] optimizer.step() ran {len(steps)} times in "
              "one call: the chunks together make one step.", "the number of steps")
    return steps[0]


EMPTY_CHUNK = ("[mc:accumulation.empty-chunk-nan] Rows 4 to 7 make a chunk with no labelled "
               "row: its mean loss is a mean over no rows, nan, and anything it is added to "
               "(even times 0) becomes nan.")


def check_accumulation(used: list, returned, full: tuple, means: list) -> None:
    """The step of accumulate_step on 10 rows in chunks of 4, rows 1 and 4-7 unlabelled (the
    chunks hold 3, 0 and 2 labels), from a stale .grad: which wrong weighting gave the
    gradient ``used``; ``full`` and ``means`` are large_batch's."""
    if isinstance(returned, torch.Tensor):
        _fail("[mc:loop.tensor-losses] The returned loss is a tensor: return a Python float "
              "(.item()).", "the returned loss")
    checks.expect_true(not (isinstance(returned, float) and math.isnan(returned)),
                       "The returned loss is nan. " + EMPTY_CHUNK)
    checks.expect_true(all(g is not None for g in used), "[mc:accumulation.rows-not-labels] The step "
                       "ran with a .grad of None: every parameter needs the large-batch gradient.")
    checks.expect_true(not any(torch.isnan(g).any() for g in used),
                       "The step's gradient holds nan. " + EMPTY_CHUNK)
    labelled = [g[0] for g in means if g is not None]
    checks.reject_close(used[0], {
        full[0] + 1: "[mc:accumulation.stale-grad] The stale .grad was still there when the first "
                     "chunk's backward added to it.",
        sum(labelled): "[mc:accumulation.unscaled] Each chunk's mean loss was added at full weight: "
                       "the large-batch loss is one mean over all of X, not a sum of means.",
        means[0][0] * 4 / 10 + means[2][0] * 2 / 10:
            "[mc:accumulation.rows-not-labels] Each chunk was weighted by its share of the rows "
            "(4/10, 4/10, 2/10). The large-batch loss is a mean over the labelled rows only: "
            "what share of those does each chunk hold?",
        sum(labelled) / 2: "[mc:accumulation.equal-weights] The two chunks with labels were "
                           "weighted alike, but one holds 3 labelled rows and the other 2.",
        sum(labelled) / 3: "[mc:accumulation.equal-weights] Dividing by the number of chunks weights "
                           "them alike, but they hold 3, 0 and 2 labelled rows.",
    }, "the weight gradient used by the step")


# the bug hunt: DigitNet, train_digits, digit_accuracy ---------------------------------------

def check_digit_net(parameters: int, out, again) -> None:
    """DigitNet() has ``parameters`` parameter tensors; in eval mode two calls on the same 20
    rows gave ``out`` and ``again``."""
    checks.expect_true(parameters >= 4, "[mc:bughunt.python-list] DigitNet().parameters() misses "
                       "the Linear layers (symptom: 'optimizer got an empty parameter list'): a "
                       "plain Python list hides them; use nn.ModuleList.")
    checks.expect_type(out, torch.Tensor, "DigitNet's output")
    if bool((out >= 0).all()) and torch.allclose(out.sum(1), torch.ones(len(out)), atol=1e-4):
        _fail("[mc:bughunt.double-softmax] DigitNet returns probabilities (symptom: the loss "
              "cannot fall below about 1.46): CrossEntropyLoss applies log_softmax itself, so "
              "return the raw logits.", "DigitNet's output")
    checks.expect_true(torch.equal(out, again), "[mc:bughunt.functional-dropout] After eval(), "
                       "two calls on the same input give different outputs: dropout is still on. "
                       "F.dropout(x, p) drops whatever the module's mode; pass "
                       "training=self.training, or use an nn.Dropout layer.")


def check_digit_accuracy(calls: list, grad_on_after: bool, before: list, after: list) -> None:
    """digit_accuracy ran the model with spy_forward's ``calls``, left autograd on or off, and
    changed each submodule's mode from ``before`` to ``after`` (one submodule was in eval)."""
    checks.expect_true(not any(t for _, t, _ in calls), "[mc:bughunt.eval-mode] digit_accuracy ran "
                       "with dropout on (symptom: two calls give different accuracies): call "
                       "model.eval() first.")
    checks.expect_true(not any(g for _, _, g in calls), "[mc:bughunt.no-grad] digit_accuracy "
                       "recorded a graph: wrap it in torch.no_grad().")
    checks.expect_true(grad_on_after is True, "[mc:bughunt.grad-left-off] After digit_accuracy "
                       "autograd is off for everything that follows: torch.set_grad_enabled(False) "
                       "stays in force until switched back; a `with torch.no_grad():` block ends "
                       "by itself.")
    checks.expect_true(after[0], "[mc:bughunt.mode-not-restored] digit_accuracy left a training "
                       "model in eval mode: the training loop that calls it would go on without "
                       "dropout. Restore the modes it had.")
    checks.expect_true(after == before, "[mc:bughunt.mode-restored-top-only] The model's own flag "
                       "is back, but one submodule that was in eval mode is now training: "
                       "train(was_training) sets every submodule. Remember each submodule's mode "
                       "and restore each.")


# fit_early_stopping ------------------------------------------------------------------------

def observe_early_stopping(fit_early_stopping, curve: list, patience: int, max_epochs: int) -> dict:
    """fit_early_stopping on a model whose weights read the number of the epoch that trained
    them (a real SGD step adds 1 to each) and a validation loss that reads ``curve`` at that
    epoch: what it returned, whose weights the model holds, how many epochs it trained."""
    model = nn.Linear(2, 1)
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    trained = [0]

    def train_one_epoch():
        for p in model.parameters():
            p.grad = torch.full_like(p, -1.0)
        opt.step()
        trained[0] += 1

    def validation_loss():
        return curve[round(model.bias.item()) - 1]

    result = fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience)
    return {"returned": result, "weights of epoch": round(model.bias.item()), "epochs trained": trained[0]}


def early_stop_run(seen: dict) -> tuple:
    """observe_early_stopping's record as (the returned pair, the epoch whose weights the model
    holds, the epochs trained), once the pair is two whole numbers."""
    result = seen["returned"]
    checks.expect_true(isinstance(result, (tuple, list)) and len(result) == 2
                       and all(type(v) is int for v in result),
                       f"[mc:early-stop.rule] Return (best_epoch, stop_epoch), two whole numbers; got {result!r}.")
    return tuple(result), seen["weights of epoch"], seen["epochs trained"]


TIE_CURVE = ([0.9, 0.7, 0.7, 0.72, 0.6, 0.65, 0.66, 0.67], 2, 8)
RESET_CURVE = ([1.0, 0.9, 0.95, 0.8, 0.85, 0.7, 0.75, 0.76, 0.77], 2, 9)


def check_tie_curve(seen: dict) -> None:
    """fit_early_stopping on TIE_CURVE (epoch 3 ties epoch 2's best): the misconceptions its
    pair, its weights and its epoch count show."""
    got, held, trained = early_stop_run(seen)
    checks.reject(got, {
        (5, 7): "[mc:early-stop.ties-improve] A loss equal to the best is not an improvement: "
                "epoch 3's 0.7 ties epoch 2's, so it counts towards the patience.",
        (5, 8): "[mc:early-stop.off-by-one] Training stops after patience epochs without a new "
                "best, not patience + 1.",
        (1, 3): "[mc:early-stop.zero-based] Epochs are numbered from 1 here.",
    }, "fit_early_stopping on a curve with a tie")
    checks.expect_true(trained == got[1], f"[mc:early-stop.extra-epochs] train_one_epoch ran "
                       f"{trained} times but you report stopping after epoch {got[1]}: train "
                       "exactly up to the epoch you stop after.")
    checks.expect_true(held == got[0], f"[mc:early-stop.state-dict-alias] The model ends with "
                       f"the weights of epoch {held}, not of the best epoch {got[0]}: the best "
                       "weights were not loaded back, or they were kept as model.state_dict() "
                       "without a copy, which follows the model as it trains. Keep "
                       "copy.deepcopy(model.state_dict()) and load it before returning.")


def check_reset_curve(seen: dict) -> None:
    """fit_early_stopping on RESET_CURVE (new bests at epochs 4 and 6 between waits)."""
    checks.reject(early_stop_run(seen)[0], {
        (4, 5): "[mc:early-stop.no-reset] You stopped at epoch 5, but epochs 4 and 6 each brought "
                "a new best: 'in a row' means the count starts again at 0 after every new best.",
    }, "fit_early_stopping on a curve with new bests between waits")


# decay_groups ------------------------------------------------------------------------------

def observe_groups(decay_groups, model: nn.Module) -> list | str:
    """Where ``decay_groups(model, 0.05)`` put each parameter, by name: per group, a dict of
    its weight_decay and its parameters' names (None for a group that is not a dict with
    'params'); the returned object's type name when it is not a list. Raises what
    torch.optim.AdamW raises on the groups, but for a parameter placed twice."""
    groups = decay_groups(model, 0.05)
    names = {id(p): n for n, p in model.named_parameters()}
    if not isinstance(groups, (list, tuple)):
        return type(groups).__name__
    placed = [{"weight_decay": g.get("weight_decay"),
               "params": [names.get(id(p), "(not the model's)") for p in list(g["params"])]}
              if isinstance(g, dict) and "params" in g else None for g in groups]
    try:
        torch.optim.AdamW(groups, lr=1e-3)  # what else it refuses is the record's error
    except ValueError:
        pass                                # a parameter placed twice: check_groups names it
    return placed


def check_groups(groups, label: str, roles: dict) -> None:
    """observe_groups' record of decay_groups on ``label``: every parameter once, in the group
    its role (``roles``: name -> "matrix", "bias" or "norm") puts it in."""
    checks.expect_true(isinstance(groups, list) and len(groups) == 2 and all(isinstance(g, dict) for g in groups),
                       "[mc:groups.structure] Return a list of two dicts, each with a 'params' "
                       "list and a 'weight_decay'.")
    decayed, kept = (g["params"] for g in groups)
    checks.expect_true(groups[0].get("weight_decay") == 0.05 and groups[1].get("weight_decay") == 0.0,
                       "[mc:groups.structure] The first group takes weight_decay, the second "
                       "weight_decay 0.0.")
    placed = decayed + kept
    missing = [n for n in roles if n not in placed]
    checks.expect_true(not missing, f"[mc:groups.param-missing] {', '.join(missing)} "
                       "is in no group: the optimizer would never train it.")
    checks.expect_true(len(placed) == len(set(placed)) == len(roles),
                       f"[mc:groups.param-missing] In {label}, a parameter is in both groups, or "
                       "twice in one (a weight shared by two modules is one parameter, which "
                       "model.parameters() lists once): AdamW refuses a parameter that appears "
                       "in more than one group.")
    for name, role in roles.items():
        if role == "norm":
            checks.expect_true(name in kept, f"[mc:groups.norm-decayed] {name} is a "
                               "normalisation layer's weight but was put in the decayed group: "
                               "it is a per-feature scale, not a weight matrix. Pick by what a "
                               "parameter is, not only by the name 'bias'.")
        elif role == "bias":
            checks.expect_true(name in kept, f"[mc:groups.bias-decayed] {name} is a bias "
                               "but was put in the decayed group: biases take weight_decay 0.0.")
        else:
            checks.expect_true(name in decayed, f"[mc:groups.weight-not-decayed] {name} is a "
                               "weight (a Linear's, a convolution's or an Embedding's table) and "
                               "should be decayed: every parameter but biases and normalisation "
                               "weights.")


# warmup ------------------------------------------------------------------------------------

def observe_rates(warmup, lrs: tuple, warmup_steps: int, steps: int) -> list | str:
    """The rate of each parameter group (their rates ``lrs``) at each of ``steps`` optimizer
    steps under ``warmup(optimizer, warmup_steps)``; a sentence when it returned no scheduler."""
    opt = torch.optim.SGD([{"params": [nn.Parameter(torch.zeros(1))], "lr": lr} for lr in lrs])
    scheduler = warmup(opt, warmup_steps)
    if not hasattr(scheduler, "step"):
        return f"not a scheduler: a {type(scheduler).__name__}"
    seen = []
    for _ in range(steps):
        seen.append(tuple(float(g["lr"]) for g in opt.param_groups))
        opt.step()
        scheduler.step()
    return seen


def check_rates(seen) -> list:
    """observe_rates' record, once it is a list of rates."""
    checks.expect_true(isinstance(seen, list), "[mc:warmup.not-a-scheduler] Return the "
                       "scheduler object (for example a LambdaLR), which the loop steps: got "
                       f"{seen!r}.")
    return seen


def check_warmup_start(one, two) -> None:
    """observe_rates of warmup(optimizer, 4) on one group at 0.1 (``one``) and on groups at 0.1
    and 0.01 (``two``): the first step's rates."""
    first = check_rates(one)[0][0]
    checks.expect_true(first != 0, "[mc:warmup.first-step-zero] The first step used a rate of 0, "
                       "a wasted step: check which n your rule receives for the first step.")
    checks.expect_true(first <= 0.1 + 1e-12, "[mc:warmup.factor-is-lr] The first step used a "
                       f"rate of {first:g}, above the group's own rate: LambdaLR multiplies the "
                       "group's rate by what your rule returns, so return a factor (at most 1), "
                       "not a rate.")
    checks.expect_true(not math.isclose(first, 0.1 * 0.1 / 4, rel_tol=1e-6),
                       "[mc:warmup.factor-is-lr] The rate is the group's rate times your rule's "
                       "value: a rule that returns lr × k / warmup_steps multiplies by lr twice.")
    checks.expect_true(check_rates(two)[0][1] != 0.01, "[mc:warmup.one-group] The second parameter "
                       "group started at its full rate: a warm-up applies to every group.")
