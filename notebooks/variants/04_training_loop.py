"""Plausible wrong answers (code, the phrase their test output must contain, the
misconception id) and other correct answers for notebook 04; see authoring/submissions.py.

Each wrong answer differs from a right one in one place, so that it loses exactly its
exercise's points for exactly the misconception it names."""

P = "04_training_loop-"

# ---------------------------------------------------------------- Exercise 7: lr_range_test
LR_RANGE = (
    "def lr_range_test(model, loss_fn, X, y, batch_size, lrs):\n"
    "    start = {snapshot}\n"
    "    modes = [m.training for m in model.modules()]\n"
    "    model.train()\n"
    "    recorded, lowest = [], math.inf\n"
    "    for k, lr in enumerate(lrs):\n"
    "        xb, yb = X[k * batch_size:(k + 1) * batch_size], y[k * batch_size:(k + 1) * batch_size]\n"
    "        optimizer = torch.optim.SGD(model.parameters(), lr=lr)\n"
    "{zero}"
    "        loss = loss_fn(model(xb), yb)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        value = {value}\n"
    "        recorded.append((lr, value))\n"
    "        lowest = min(lowest, value)\n"
    "        if {stop}:\n"
    "            break\n"
    "    model.load_state_dict(start)\n"
    "{restore}"
    "    return recorded\n"
)
LR_RESTORE = "    for m, mode in zip(model.modules(), modes):\n        m.training = mode\n"


def lr_range(snapshot="copy.deepcopy(model.state_dict())", zero="        optimizer.zero_grad()\n",
             value="loss.item()", stop="not math.isfinite(value) or value > 4 * lowest",
             restore=LR_RESTORE):
    return LR_RANGE.format(snapshot=snapshot, zero=zero, value=value, stop=stop, restore=restore)


# ---------------------------------------------------------------- Exercise 1: evaluate_model
EVALUATE = (
    "def evaluate_model(model, loss_fn, X, y, batch_size):\n"
    "{remember}"
    "{mode}"
    "    total_loss, correct, batches = 0.0, 0, 0\n"
    "    {context}\n"
    "        for start in range({stop}):\n"
    "            xb, yb = X[start:start + {size}], y[start:start + {size}]\n"
    "            logits = model(xb)\n"
    "            total_loss += loss_fn(logits, yb).item(){weight}\n"
    "            correct += (logits.argmax(dim=1) == yb).sum().item(){acc_weight}\n"
    "            batches += 1\n"
    "{restore}"
    "    return total_loss / {divisor}, {scale}correct / {divisor}\n"
)
REMEMBER_EACH = "    before = [m.training for m in model.modules()]\n"
RESTORE_EACH = ("    for m, mode in zip(model.modules(), before):\n"
                "        m.training = mode\n")
REMEMBER_TOP = "    was_training = model.training\n"
RESTORE_TOP = "    model.train(was_training)\n"


ROWS = "len(X)"
MEAN_OF_MEANS = {"weight": "", "acc_weight": " / len(yb)", "divisor": "batches"}


def evaluate(mode="    model.eval()\n", context="with torch.no_grad():", scale="",
             remember=REMEMBER_EACH, restore=RESTORE_EACH, stop="0, len(X), batch_size",
             size="batch_size", weight=" * len(xb)", acc_weight="", divisor=ROWS):
    return EVALUATE.format(mode=mode, context=context, scale=scale, remember=remember,
                           restore=restore, stop=stop, size=size, weight=weight,
                           acc_weight=acc_weight, divisor=divisor)


# ---------------------------------------------------------------- Exercise 2: decay_groups
def decay_groups(decay, no_decay, wrap="[{first}, {second}]"):
    return (
        "def decay_groups(model, weight_decay):\n"
        f"    decay = {decay}\n"
        f"    no_decay = {no_decay}\n"
        "    return " + wrap.format(first='{"params": decay, "weight_decay": weight_decay}',
                                    second='{"params": no_decay, "weight_decay": 0.0}') + "\n"
    )


# ---------------------------------------------------------------- Exercise 3: warmup
def warmup(rule="min(1.0, (n + 1) / warmup_steps)"):
    return ("def warmup(optimizer, warmup_steps):\n"
            "    return torch.optim.lr_scheduler.LambdaLR(\n"
            f"        optimizer, lambda n: {rule})\n")


WARMUP_FIRST_GROUP_ONLY = (
    "class Warmup:\n"
    "    def __init__(self, optimizer, warmup_steps):\n"
    "        self.optimizer, self.warmup_steps, self.n = optimizer, warmup_steps, 0\n"
    "        self.peak = optimizer.param_groups[0]['lr']\n"
    "        optimizer.param_groups[0]['lr'] = self.peak / warmup_steps\n\n"
    "    def step(self):\n"
    "        self.n += 1\n"
    "        factor = min(1.0, (self.n + 1) / self.warmup_steps)\n"
    "        self.optimizer.param_groups[0]['lr'] = self.peak * factor\n\n\n"
    "def warmup(optimizer, warmup_steps):\n"
    "    return Warmup(optimizer, warmup_steps)\n"
)

# ---------------------------------------------------------------- Exercise 4: fit_early_stopping
EARLY_STOP = (
    "def fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience):\n"
    "    best_loss, best_epoch, best_state, waited = math.inf, 0, None, 0\n"
    "    for epoch in range(1, max_epochs + 1):\n"
    "        train_one_epoch()\n"
    "        loss = validation_loss()\n"
    "        if loss {better} best_loss:\n"
    "            best_loss, best_epoch = loss, epoch\n"
    "{reset}"
    "            best_state = {snapshot}\n"
    "        else:\n"
    "            waited += 1\n"
    "            if waited {done} patience:\n"
    "                break\n"
    "    model.load_state_dict(best_state)\n"
    "    return best_epoch, epoch\n"
)


def early_stop(better="<", done="==", reset="            waited = 0\n",
               snapshot="copy.deepcopy(model.state_dict())"):
    return EARLY_STOP.format(better=better, done=done, reset=reset, snapshot=snapshot)


# ---------------------------------------------------------------- Exercise 5: guarded_step
GUARDED = (
    "def guarded_step(model, loss, optimizer, step, max_norm):\n"
    "{check}"
    "    loss.backward()\n"
    "{late_check}"
    "{middle}"
    "    return {returned}\n"
)
CHECK = ("    if not torch.isfinite(loss):\n"
         "        raise FloatingPointError(f\"non-finite loss at step {step}\")\n")
CHECK_NAN_ONLY = ("    if torch.isnan(loss):\n"
                  "        raise FloatingPointError(f\"NaN loss at step {step}\")\n")
CHECK_UNNAMED = ("    if not torch.isfinite(loss):\n"
                 "        raise FloatingPointError(\"the loss is not finite\")\n")
SKIP = ("    if not torch.isfinite(norm):\n"
        "        optimizer.zero_grad()\n"
        "        return None\n")


def guarded(check=CHECK, late_check="", middle=None, skip=SKIP, returned="norm.item()"):
    if middle is None:
        middle = ("    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  f"{skip}"
                  "    optimizer.step()\n")
    return GUARDED.format(check=check, late_check=late_check, middle=middle, returned=returned)


# ---------------------------------------------------------------- Exercise 6: stale_piece
STALE = (
    "def stale_piece(checkpoint, make_run, uninterrupted):\n"
    "    m, opt, sched, g, loader = make_run()\n"
    "    m.load_state_dict(checkpoint['model'])\n"
    "    opt.load_state_dict(checkpoint['optimizer'])\n"
    "    sched.load_state_dict(checkpoint['scheduler'])\n"
    "    g.set_state(checkpoint['loader_generator'])\n"
    "    torch.set_rng_state(checkpoint['global_rng'])\n"
    "    losses = loader_epoch(m, opt, loader, sched)\n"
    "    step = {step}\n"
    "    return {piece}, step\n"
)


STALE_MEASURED = (  # the piece found by measuring; the step as given
    "def stale_piece(checkpoint, make_run, uninterrupted):\n"
    "    def resumed(skip=None):\n"
    "        m, opt, sched, g, loader = make_run()\n"
    "        for name, put in (('model', m.load_state_dict), ('optimizer', opt.load_state_dict),\n"
    "                          ('scheduler', sched.load_state_dict), ('loader_generator', g.set_state),\n"
    "                          ('global_rng', torch.set_rng_state)):\n"
    "            if name != skip:\n"
    "                put(copy.deepcopy(checkpoint[name]))\n"
    "        return loader_epoch(m, opt, loader, sched)\n\n"
    "    everything = resumed()\n"
    "    stale = next(n for n in checkpoint if resumed(skip=n) == everything)\n"
    "    return stale, {step}\n"
)


def stale(step="next(k for k, (a, b) in enumerate(zip(losses, uninterrupted), 1) if a != b)",
          piece="'model' if step == 1 else 'optimizer'"):
    return STALE.format(step=step, piece=piece)


# ---------------------------------------------------------------- Exercise 8: accumulate_step
ACCUMULATE = (
    "def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):\n"
    "{zero}"
    "    labelled = (y != -100).sum().item()\n"
    "    total = 0.0\n"
    "    chunks = range(0, len(X), micro_batch)\n"
    "    for start in chunks:\n"
    "        xb, yb = X[start:start + micro_batch], y[start:start + micro_batch]\n"
    "        count = (yb != -100).sum().item()\n"
    "{skip}"
    "        part = loss_fn(model(xb), yb){weight}\n"
    "        part.backward()\n"
    "        total += part.item()\n"
    "{inner_step}"
    "{outer_step}"
    "    return {returned}\n"
)
SKIP_EMPTY = "        if count == 0:\n            continue\n"


def accumulate(weight=" * count / labelled", skip=SKIP_EMPTY, zero="    optimizer.zero_grad()\n",
               inner_step="", outer_step="    optimizer.step()\n", returned="total"):
    return ACCUMULATE.format(weight=weight, skip=skip, zero=zero, inner_step=inner_step,
                             outer_step=outer_step, returned=returned)


# ---------------------------------------------------------------- Exercise 9: the bug hunt
def bug_hunt(layers="nn.ModuleList([nn.Linear(64, 64), nn.Linear(64, 10)])",
             dropout="F.dropout(torch.relu(self.layers[0](x)), 0.2, training=self.training)",
             out="self.layers[1](x)", zero="        optimizer.zero_grad()\n", target="y",
             mode="    model.eval()\n", context="with torch.no_grad():",
             remember=REMEMBER_EACH, restore=RESTORE_EACH):
    return (
        "class DigitNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.layers = {layers}\n\n"
        "    def forward(self, x):\n"
        f"        x = {dropout}\n"
        f"        return {out}\n\n\n"
        "def train_digits(model, X, y, steps=100, lr=0.01):\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    loss_fn = nn.CrossEntropyLoss()\n"
        "    model.train()\n"
        "    for _ in range(steps):\n"
        f"{zero}"
        f"        loss = loss_fn(model(X), {target})\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return model\n\n\n"
        "def digit_accuracy(model, X, y):\n"
        f"{remember}"
        f"{mode}"
        f"    {context}\n"
        "        accuracy = (model(X).argmax(1) == y).float().mean().item()\n"
        f"{restore}"
        "    return accuracy\n"
    )


WRONG = {
    P + "quiz-sgd": [
        ("answer_sgd_theta = -7.0", "keeps the first gradient", "sgd.gradient-fixed"),
        ("answer_sgd_theta = 0.25", "other side", "sgd.no-overshoot"),
        ("answer_sgd_theta = 31.25", "climbs the loss", "sgd.step-adds-gradient"),
        ("answer_sgd_theta = 0.5", "after two steps", "sgd.step-count"),
        # not in the table: the visible test passes it, the hidden one names the idea
        ("answer_sgd_theta = 1.0", "gradient at the current", "sgd.gradient-fixed"),
        ("answer_sgd_theta = '-0.25'", "should be a number", "sgd.gradient-fixed"),
    ],
    P + "quiz-no-zero-grad": [
        ("answer_no_zero_grad_w = 0.2", "backward adds into .grad", "loop.grad-overwritten"),
        ("answer_no_zero_grad_w = -2.0", "does not double", "loop.grad-doubles"),
    ],
    P + "quiz-step-top": [
        ("answer_step_top_moves = 0", "previous backward left", "loop.step-top-frozen"),
        ("answer_step_top_moves = 3", "finds .grad still None", "loop.step-waits-for-backward"),
        ("answer_step_top_moves = 2.0", "whole number", "loop.step-waits-for-backward"),
    ],
    P + "quiz-double-softmax": [
        ("answer_double_softmax_loss = 0.0", "does not take probabilities", "loss.ce-takes-probabilities"),
        ("answer_double_softmax_loss = 0.6931", "equal logits", "loss.ce-takes-probabilities"),
        ("answer_double_softmax_loss = 1.3133", "target 1", "loss.ce-wrong-class"),
    ],
    P + "quiz-initial-loss": [
        ("answer_initial_loss = 0.1", "−log of that probability", "sanity.probability-not-loss"),
        ("answer_initial_loss = 0", "closer to guessing", "sanity.untrained-zero"),
        ("answer_initial_loss = 0.69", "2-class model", "sanity.two-classes"),
        ("answer_initial_loss = 4.6", "probability near 1/10", "sanity.initial-loss"),
    ],
    P + "quiz-schedule": [
        ("answer_best_schedule = 'step'", "not undone by smaller", "lr.decay-rescues"),
        ("answer_best_schedule = 'constant'", "goes wrong", "lr.schedule-wastes-steps"),
        ("answer_best_schedule = 'warm-up'", "not one of the choices", "lr.decay-rescues"),
    ],
    P + "quiz-state-dict": [
        ("answer_best_survives_step = True", "not a snapshot", "early-stop.state-dict-copy"),
        ("answer_best_survives_step = 'False'", "True or False", "early-stop.state-dict-copy"),
    ],
    P + "evaluate": [
        (evaluate(mode=""), "call model.eval()", "eval.train-mode"),
        (evaluate(context="if True:"), "wrap the forward pass", "eval.grad-enabled"),
        (evaluate(scale="100 * "), "fraction between 0", "eval.percent"),
        (evaluate(remember=REMEMBER_TOP, restore=RESTORE_TOP), "not every submodule",
         "eval.mode-restored-top-only"),
        (evaluate(remember="", restore=""), "Restore the modes it had", "eval.mode-not-restored"),
        (evaluate(mode="    model.training = False\n"), "switches every submodule", "eval.train-mode"),
        (evaluate(**MEAN_OF_MEANS), "plain average", "eval.mean-of-batch-means"),
        (evaluate(stop="0, len(X) - batch_size + 1, batch_size"), "smaller batch included",
         "eval.rows-missed"),
        (evaluate(stop="0, len(X), len(X)", size="len(X)"), "at most batch_size rows",
         "eval.not-batched"),
        (evaluate(mode="    model.eval()\n    torch.set_grad_enabled(False)\n", context="if True:"),
         "stays in force", "eval.grad-left-off"),
    ],
    P + "decay-groups": [
        (decay_groups("list(model.parameters())", "[]"), "biases take weight_decay 0.0",
         "groups.bias-decayed"),
        (decay_groups("[p for n, p in model.named_parameters() if not n.endswith('bias')]",
                      "[p for n, p in model.named_parameters() if n.endswith('bias')]"),
         "not only by the name 'bias'", "groups.norm-decayed"),
        (decay_groups("[m.weight for m in model.modules() if isinstance(m, nn.Linear)]",
                      "[m.bias for m in model.modules() if isinstance(m, nn.Linear)]"),
         "would never train it", "groups.param-missing"),
        (decay_groups("list(model.parameters())", "[p for p in model.parameters() if p.ndim == 1]"),
         "in both groups", "groups.param-missing"),
        (decay_groups("[p for p in model.parameters() if p.ndim >= 2]",
                      "[p for p in model.parameters() if p.ndim < 2]", wrap="{first}"),
         "list of two dicts", "groups.structure"),
        # by name, 'norm' included: the visible Sequential's LayerNorm is named '1.weight'
        (decay_groups("[p for n, p in model.named_parameters() if not (n.endswith('bias') or 'norm' in n)]",
                      "[p for n, p in model.named_parameters() if n.endswith('bias') or 'norm' in n]"),
         "not only by the name 'bias'", "groups.norm-decayed"),
        # LayerNorm only: the hidden model's BatchNorm1d is decayed
        (decay_groups("[p for m in model.modules() for n, p in m.named_parameters(recurse=False)"
                      " if not (n == 'bias' or isinstance(m, nn.LayerNorm))]",
                      "[p for m in model.modules() for n, p in m.named_parameters(recurse=False)"
                      " if n == 'bias' or isinstance(m, nn.LayerNorm)]"),
         "normalisation layer's weight", "groups.norm-decayed"),
        # the top level's children only: a nested block's Linear is never looked at
        (decay_groups("[m.weight for m in model.children() if isinstance(m, nn.Linear)]",
                      "[p for m in model.children() for n, p in m.named_parameters()"
                      " if not (isinstance(m, nn.Linear) and n == 'weight')]"),
         "should be decayed", "groups.weight-not-decayed"),
        # Linear weights only: an Embedding's table (and a convolution's weight) escapes decay
        (decay_groups("[m.weight for m in model.modules() if isinstance(m, nn.Linear)]",
                      "[p for p in model.parameters()"
                      " if all(p is not m.weight for m in model.modules() if isinstance(m, nn.Linear))]"),
         "an Embedding's table", "groups.weight-not-decayed"),
        # module by module: a weight two modules share is listed twice
        (decay_groups("[p for m in model.modules() for n, p in m.named_parameters(recurse=False)"
                      " if p.ndim >= 2]",
                      "[p for m in model.modules() for n, p in m.named_parameters(recurse=False)"
                      " if p.ndim < 2]"),
         "shared by two modules", "groups.param-missing"),
    ],
    P + "warmup": [
        (warmup("min(1.0, n / warmup_steps)"), "wasted step", "warmup.first-step-zero"),
        # the page's broken warm-up handed in as it is
        ("def warmup(optimizer, warmup_steps):\n"
         "    return rushed_warmup(optimizer, warmup_steps)\n", "wasted step",
         "warmup.first-step-zero"),
        # its first bug fixed, the other two kept
        (warmup("optimizer.param_groups[0]['lr'] * (n + 1) / warmup_steps"),
         "multiplies by lr twice", "warmup.factor-is-lr"),
        (warmup("optimizer.param_groups[0]['lr'] * min(1.0, (n + 1) / warmup_steps)"),
         "multiplies by lr twice", "warmup.factor-is-lr"),
        (WARMUP_FIRST_GROUP_ONLY, "applies to every group", "warmup.one-group"),
        (warmup("min(1.0, (n + 1) / (warmup_steps + 1))"), "then the full rate",
         "warmup.off-by-one"),
        ("def warmup(optimizer, warmup_steps):\n"
         "    return lambda n: min(1.0, (n + 1) / warmup_steps)\n",
         "Return the scheduler object", "warmup.not-a-scheduler"),
        (warmup("(n + 1) / warmup_steps"), "then the full rate", "warmup.off-by-one"),
        (warmup("min(1, (n + 1) // warmup_steps)"), "wasted step", "warmup.first-step-zero"),
        ("def warmup(optimizer, warmup_steps):\n"
         "    return torch.optim.lr_scheduler.LinearLR(\n"
         "        optimizer, start_factor=1 / warmup_steps, total_iters=warmup_steps)\n",
         "then the full rate", "warmup.off-by-one"),
    ],
    P + "early-stop": [
        ("def fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience):\n"
         "    best_loss, best_epoch, best_state, waited, previous = math.inf, 0, None, 0, math.inf\n"
         "    for epoch in range(1, max_epochs + 1):\n"
         "        train_one_epoch()\n"
         "        loss = validation_loss()\n"
         "        if loss < best_loss:\n"
         "            best_loss, best_epoch = loss, epoch\n"
         "            best_state = copy.deepcopy(model.state_dict())\n"
         "        if loss < previous:  # better than the epoch before\n"
         "            waited = 0\n"
         "        else:\n"
         "            waited += 1\n"
         "            if waited == patience:\n"
         "                break\n"
         "        previous = loss\n"
         "    model.load_state_dict(best_state)\n"
         "    return best_epoch, epoch\n", "not epochs that are worse than the previous one",
         "early-stop.previous-not-best"),
        (early_stop(better="<="), "not an improvement", "early-stop.ties-improve"),
        (early_stop(done=">"), "not patience + 1", "early-stop.off-by-one"),
        (early_stop(reset=""), "starts again at 0", "early-stop.no-reset"),
        (early_stop(snapshot="model.state_dict()"), "follows the model", "early-stop.state-dict-alias"),
        (early_stop(snapshot="model.state_dict().copy()"), "follows the model",
         "early-stop.state-dict-alias"),
        (early_stop(snapshot="{k: v for k, v in model.state_dict().items()}"), "follows the model",
         "early-stop.state-dict-alias"),
        (early_stop().replace("    model.load_state_dict(best_state)\n", ""), "not loaded back",
         "early-stop.state-dict-alias"),
        # the patience check at the top of the next epoch: stops one epoch late, untrained
        ("def fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience):\n"
         "    best_loss, best_epoch, best_state, waited = math.inf, 0, None, 0\n"
         "    for epoch in range(1, max_epochs + 1):\n"
         "        if waited == patience:\n"
         "            break\n"
         "        train_one_epoch()\n"
         "        loss = validation_loss()\n"
         "        if loss < best_loss:\n"
         "            best_loss, best_epoch, waited = loss, epoch, 0\n"
         "            best_state = copy.deepcopy(model.state_dict())\n"
         "        else:\n"
         "            waited += 1\n"
         "    model.load_state_dict(best_state)\n"
         "    return best_epoch, epoch\n",
         "train exactly up to the epoch", "early-stop.extra-epochs"),
    ],
    P + "guarded-step": [
        (guarded(check=""), "returned for a NaN loss", "nan.not-detected"),
        (guarded(check=CHECK_NAN_ONLY), "torch.isnan misses them", "nan.inf-not-checked"),
        (guarded(check="", late_check=CHECK), "before the check", "nan.backward-before-check"),
        # the norm measured (and bad gradients skipped), but nothing clipped
        (guarded(middle="    norm = nn.utils.clip_grad_norm_(model.parameters(), float('inf'))\n"
                        + SKIP + "    optimizer.step()\n"),
         "unclipped gradient", "clip.not-applied"),
        (guarded(returned="float(max_norm)"), "norm before clipping", "clip.norm-after-clipping"),
        (guarded(check=CHECK_UNNAMED), "name the step", "nan.step-not-named"),
        (guarded(returned="norm"), "a Python float", "clip.norm-tensor"),
        (guarded(check="    if torch.isnan(loss) or loss.item() == float('inf'):\n"
                       "        raise FloatingPointError(f\"bad loss at step {step}\")\n"),
         "means inf and -inf", "nan.inf-not-checked"),
        (guarded(check=CHECK.replace("FloatingPointError", "ValueError")),
         "should raise FloatingPointError", "nan.not-detected"),
        (guarded(check="", middle="    try:\n"
                                  "        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm,\n"
                                  "                                        error_if_nonfinite=True)\n"
                                  "    except RuntimeError:\n"
                                  "        raise FloatingPointError(f\"bad loss at step {step}\")\n"
                                  "    optimizer.step()\n"),
         "before the check", "nan.backward-before-check"),
        (guarded(middle="    norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()\n"
                        + SKIP +
                        "    nn.utils.clip_grad_value_(model.parameters(), max_norm)\n"
                        "    optimizer.step()\n"),
         "clipped gradient", "clip.not-applied"),
        # a finite loss trusted to have finite gradients
        (guarded(skip=""), "does not promise finite", "nan.grad-not-checked"),
        (guarded(skip=SKIP.replace("not torch.isfinite(norm)", "torch.isnan(norm)")),
         "torch.isnan misses inf", "nan.inf-not-checked"),
        # "skipping" by zeroing the gradients, then stepping anyway
        (guarded(skip="    if not torch.isfinite(norm):\n"
                      "        optimizer.zero_grad(set_to_none=False)\n"),
         "is not a skip", "nan.skip-by-zero-grad"),
        (guarded(skip="    if not torch.isfinite(norm):\n"
                      "        return None\n"), "left .grad filled", "nan.skip-leaves-grad"),
        (guarded(skip=SKIP.replace("return None", "return norm.item()")),
         "returns None", "nan.skip-not-reported"),
        (guarded(skip="    if not torch.isfinite(norm):\n"
                      "        raise FloatingPointError(f\"non-finite gradient at step {step}\")\n"),
         "skipped, not fatal", "nan.grad-raises"),
        # the guard reads the first parameter's gradient only
        (guarded(middle="    first = next(model.parameters()).grad\n"
                        "    if not torch.isfinite(first).all():\n"
                        "        optimizer.zero_grad()\n"
                        "        return None\n"
                        "    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                        "    optimizer.step()\n"), "not only the first one's", "nan.first-param-only"),
    ],
    P + "stale-piece": [
        (stale(), "does not name the piece", "stale.loudest"),
        (STALE_MEASURED.format(step="next(k for k, (a, b) in enumerate(zip(everything, uninterrupted)) "
                                    "if a != b)"), "count the steps of epoch 2 from 1",
         "stale.step-from-zero"),
        (STALE_MEASURED.format(step="1 + max(range(len(everything)), key=lambda k: "
                                    "abs(everything[k] - uninterrupted[k]))"),
         "first differing step", "stale.first-step"),
    ],
    P + "accumulate": [
        # what section 10's cell did: each chunk's share of the rows
        (accumulate(weight=" * len(xb) / len(X)"), "share of the rows",
         "accumulation.rows-not-labels"),
        (accumulate(skip=""), "a mean over no rows", "accumulation.empty-chunk-nan"),
        (accumulate(skip="", weight=" * count / labelled if count else 0.0 * loss_fn(model(xb), yb)"),
         "a mean over no rows", "accumulation.empty-chunk-nan"),
        (accumulate(weight=""), "full weight", "accumulation.unscaled"),
        (accumulate(weight=" / len(chunks)"), "weights them alike", "accumulation.equal-weights"),
        (accumulate(inner_step="        optimizer.step()\n", outer_step=""),
         "make one step", "accumulation.step-per-micro-batch"),
        (accumulate(zero=""), "stale .grad", "accumulation.stale-grad"),
        (accumulate(returned="torch.tensor(total)"), "a Python float", "loop.tensor-losses"),
    ],
    P + "lr-range": [
        (lr_range(value="loss_fn(model(xb), yb).item()"), "losses after each step",
         "lrfind.loss-after-step"),
        (lr_range(zero=""), "sum of all earlier gradients", "lrfind.no-zero-grad"),
        (lr_range(snapshot="model.state_dict()"), "follows the weights", "lrfind.state-dict-alias"),
        (lr_range(stop="value > 4 * lowest"), "every comparison with nan is False",
         "lrfind.nan-not-stopped"),
        (lr_range(stop="not math.isfinite(value) or value > 4 * recorded[0][1]"),
         "4 × the lowest loss recorded so far", "lrfind.first-not-lowest"),
        (lr_range(stop="False"), "should stop after", "lrfind.no-stop"),
        (lr_range(value="loss"), "Python float", "lrfind.tensor-losses"),
        (lr_range(restore=""), "its own mode back", "lrfind.mode-not-restored"),
    ],
    P + "bug-hunt": [
        (bug_hunt(layers="[nn.Linear(64, 64), nn.Linear(64, 10)]"), "nn.ModuleList",
         "bughunt.python-list"),
        (bug_hunt(out="torch.softmax(self.layers[1](x), dim=1)"), "raw logits",
         "bughunt.double-softmax"),
        (bug_hunt(target="y.float()"), "drop .float()", "bughunt.float-target"),
        (bug_hunt(zero=""), "sum of all earlier gradients", "bughunt.no-zero-grad"),
        (bug_hunt(mode=""), "dropout on", "bughunt.eval-mode"),
        (bug_hunt(context="if True:"), "recorded a graph", "bughunt.no-grad"),
        (bug_hunt(dropout="F.dropout(torch.relu(self.layers[0](x)), 0.2)"),
         "training=self.training", "bughunt.functional-dropout"),
        (bug_hunt(remember=REMEMBER_TOP, restore=RESTORE_TOP), "restore each",
         "bughunt.mode-restored-top-only"),
        (bug_hunt(remember="", restore=""), "Restore the modes it had", "bughunt.mode-not-restored"),
        (bug_hunt(dropout="torch.relu(self.layers[0](x))"), "keeps its dropout",
         "bughunt.dropout-removed"),
        (bug_hunt(remember="", restore="    model.train()\n"), "restore each",
         "bughunt.mode-restored-top-only"),
        (bug_hunt(dropout="F.dropout(torch.relu(self.layers[0](x)), 0.5, training=self.training)"),
         "p = 0.2", "bughunt.dropout-rate"),
        # a Dropout module made inside forward is never switched by eval()
        (bug_hunt(dropout="nn.Dropout(0.2)(torch.relu(self.layers[0](x)))"), "dropout is still on",
         "bughunt.functional-dropout"),
        (bug_hunt().replace(".float().mean().item()", ".float().mean()"), "Python float",
         "bughunt.tensor-result"),
        (bug_hunt().replace(".float().mean().item()", ".float().mean().item() * 100"),
         "not a percentage", "bughunt.percent"),
        (bug_hunt(mode="    model.eval()\n    torch.set_grad_enabled(False)\n", context="if True:"),
         "stays in force", "bughunt.grad-left-off"),
    ],
}

ALTERNATIVE = {
    P + "quiz-sgd": "answer_sgd_theta = 2.0 * (1 - 2 * 0.75) ** 3",
    P + "quiz-no-zero-grad": "answer_no_zero_grad_w = 1.0 - 0.1 * (2 + 4 + 6 + 8)",
    P + "quiz-step-top": "answer_step_top_moves = 3 - 1",
    P + "quiz-double-softmax": "answer_double_softmax_loss = math.log(1 + math.exp(-1))",
    P + "quiz-initial-loss": "answer_initial_loss = math.log(10)",
    P + "quiz-schedule": "answer_best_schedule = 'one' + '-cycle'",
    P + "quiz-state-dict": "answer_best_survives_step = 1 > 2",
    P + "evaluate": (
        "def evaluate_model(model, loss_fn, X, y, batch_size):\n"
        "    with helpers.modes.evaluating(model), torch.inference_mode():\n"
        "        logits = torch.cat([model(xb) for xb in X.split(batch_size)])\n"
        "        return float(loss_fn(logits, y)), (logits.argmax(1) == y).sum().item() / len(y)\n"
    ),
    P + "decay-groups": (
        "def decay_groups(model, weight_decay):\n"
        "    norms = (nn.LayerNorm, nn.BatchNorm1d)\n"
        "    decay, no_decay = [], []\n"
        "    seen = set()  # a tied weight sits in two modules and is one parameter\n"
        "    for module in model.modules():\n"
        "        for name, p in module.named_parameters(recurse=False):\n"
        "            if id(p) not in seen:\n"
        "                seen.add(id(p))\n"
        "                (no_decay if name == 'bias' or isinstance(module, norms) else decay).append(p)\n"
        "    return [dict(params=decay, weight_decay=weight_decay),\n"
        "            dict(params=no_decay, weight_decay=0.0)]\n"
    ),
    P + "warmup": (
        "def warmup(optimizer, warmup_steps):\n"
        "    return torch.optim.lr_scheduler.LinearLR(\n"
        "        optimizer, start_factor=1 / warmup_steps, end_factor=1.0,\n"
        "        total_iters=warmup_steps - 1)\n"
    ),
    P + "early-stop": (
        "def fit_early_stopping(model, train_one_epoch, validation_loss, max_epochs, patience):\n"
        "    losses, best = [], None\n"
        "    for epoch in range(1, max_epochs + 1):\n"
        "        train_one_epoch()\n"
        "        losses.append(validation_loss())\n"
        "        best_epoch = losses.index(min(losses)) + 1\n"
        "        if best_epoch == epoch:\n"
        "            best = {k: v.clone() for k, v in model.state_dict().items()}\n"
        "        elif epoch - best_epoch >= patience:\n"
        "            break\n"
        "    model.load_state_dict(best)\n"
        "    return best_epoch, epoch\n"
    ),
    P + "guarded-step": (
        "def guarded_step(model, loss, optimizer, step, max_norm):\n"
        "    if torch.isnan(loss) or torch.isinf(loss):\n"
        "        raise FloatingPointError(f\"step {step}: the loss is {loss.item()}\")\n"
        "    loss.backward()\n"
        "    grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
        "    if not all(torch.isfinite(g).all() for g in grads):\n"
        "        for p in model.parameters():\n"
        "            p.grad = None\n"
        "        return None\n"
        "    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))\n"
        "    scale = min(1.0, max_norm / (total.item() + 1e-6))\n"
        "    with torch.no_grad():\n"
        "        for g in grads:\n"
        "            g.mul_(scale)\n"
        "    optimizer.step()\n"
        "    return total.item()\n"
    ),
    P + "stale-piece": (
        "def stale_piece(checkpoint, make_run, uninterrupted):\n"
        "    def same(a, b):\n"
        "        if isinstance(a, torch.Tensor):\n"
        "            return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)\n"
        "        if isinstance(a, dict):\n"
        "            return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)\n"
        "        if isinstance(a, (list, tuple)):\n"
        "            return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(same, a, b))\n"
        "        return a == b\n\n"
        "    m, opt, sched, g, loader = make_run()\n"
        "    start = {'model': m.state_dict(), 'optimizer': opt.state_dict(),\n"
        "             'scheduler': sched.state_dict(), 'loader_generator': g.get_state(),\n"
        "             'global_rng': torch.get_rng_state()}\n"
        "    # the stale piece is the one a fresh run already holds\n"
        "    name = [n for n in start if same(checkpoint[n], start[n])][0]\n"
        "    m.load_state_dict(checkpoint['model'])\n"
        "    opt.load_state_dict(copy.deepcopy(checkpoint['optimizer']))\n"
        "    sched.load_state_dict(checkpoint['scheduler'])\n"
        "    g.set_state(checkpoint['loader_generator'])\n"
        "    torch.set_rng_state(checkpoint['global_rng'])\n"
        "    losses = loader_epoch(m, opt, loader, sched)\n"
        "    return name, 1 + [a == b for a, b in zip(losses, uninterrupted)].index(False)\n"
    ),
    P + "accumulate": (
        "def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):\n"
        "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    labelled = int((y != loss_fn.ignore_index).sum())\n"
        "    total = 0.0\n"
        "    for xb, yb in zip(X.split(micro_batch), y.split(micro_batch)):\n"
        "        # a sum over the labelled rows: 0 for a chunk without any, never nan\n"
        "        part = nn.functional.cross_entropy(model(xb), yb, reduction='sum') / labelled\n"
        "        part.backward()\n"
        "        total += part.item()\n"
        "    optimizer.step()\n"
        "    return total\n"
    ),
    P + "lr-range": (
        "def lr_range_test(model, loss_fn, X, y, batch_size, lrs):\n"
        "    saved = {k: v.clone() for k, v in model.state_dict().items()}\n"
        "    modes = {m: m.training for m in model.modules()}\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=lrs[0])\n"
        "    model.train()\n"
        "    pairs = []\n"
        "    try:\n"
        "        for k, lr in enumerate(lrs):\n"
        "            optimizer.param_groups[0]['lr'] = lr\n"
        "            optimizer.zero_grad()\n"
        "            rows = slice(k * batch_size, (k + 1) * batch_size)\n"
        "            loss = loss_fn(model(X[rows]), y[rows])\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "            pairs.append((lr, float(loss)))\n"
        "            if not math.isfinite(pairs[-1][1]) or pairs[-1][1] > 4 * min(v for _, v in pairs):\n"
        "                break\n"
        "    finally:\n"
        "        model.load_state_dict(saved)\n"
        "        for m, flag in modes.items():\n"
        "            m.training = flag\n"
        "    return pairs\n"
    ),
    P + "bug-hunt": (
        "class DigitNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.2),\n"
        "                                 nn.Linear(64, 10))\n\n"
        "    def forward(self, x):\n"
        "        return self.net(x)\n\n\n"
        "def train_digits(model, X, y, steps=100, lr=0.01):\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=lr)\n"
        "    for _ in range(steps):\n"
        "        model.zero_grad()\n"
        "        nn.functional.cross_entropy(model(X), y).backward()\n"
        "        optimizer.step()\n"
        "    return model\n\n\n"
        "def digit_accuracy(model, X, y):\n"
        "    modes = {name: m.training for name, m in model.named_modules()}\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        logits = model(X)\n"
        "    for name, m in model.named_modules():\n"
        "        m.training = modes[name]\n"
        "    return (logits.argmax(1) == y).float().mean().item()\n"
    ),
}
