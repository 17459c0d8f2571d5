"""Plausible wrong answers (code, the phrase their test output must contain, the
misconception id) and other correct answers for notebook 04; see graders/submissions.py."""

P = "04_training_loop-"

# The buggy train_epoch variants differ from a right loop in one place each.
TRAIN_EPOCH = (
    "def train_epoch(model, loss_fn, optimizer, X, y, batch_size):\n"
    "    losses = []\n"
    "    for start in range({stop}):\n"
    "        xb, yb = X[start:start + batch_size], y[start:start + batch_size]\n"
    "{body}"
    "        losses.append({logged})\n"
    "    return losses\n"
)
RIGHT_BODY = ("        optimizer.zero_grad()\n"
              "        loss = loss_fn(model(xb), yb)\n"
              "        loss.backward()\n"
              "        optimizer.step()\n")
ALL = "0, len(X), batch_size"


def train_epoch(body=RIGHT_BODY, stop=ALL, logged="loss.item()"):
    return TRAIN_EPOCH.format(body=body, stop=stop, logged=logged)


EVALUATE = (
    "def evaluate_model(model, loss_fn, X, y):\n"
    "{mode}"
    "    {context}\n"
    "        logits = model(X)\n"
    "        loss = loss_fn(logits, y).item()\n"
    "        accuracy = {scale}(logits.argmax(dim=1) == y).float().mean().item()\n"
    "    return loss, accuracy\n"
)


def evaluate(mode="    model.eval()\n", context="with torch.no_grad():", scale=""):
    return EVALUATE.format(mode=mode, context=context, scale=scale)


EARLY_STOP = (
    "def early_stop(val_losses, patience):\n"
    "    best, best_epoch, waited = math.inf, 0, 0\n"
    "    for epoch, loss in enumerate(val_losses, start=1):\n"
    "        if loss {better} best:\n"
    "            best, best_epoch, waited = loss, epoch, 0\n"
    "        else:\n"
    "            waited += 1\n"
    "            if waited {done} patience:\n"
    "                return best_epoch, epoch\n"
    "    return best_epoch, len(val_losses)\n"
)

GUARDED = (
    "def guarded_step(model, loss, optimizer, step, max_norm):\n"
    "{check}"
    "    loss.backward()\n"
    "{middle}"
    "    return {returned}\n"
)
CHECK = ("    if not torch.isfinite(loss):\n"
         "        raise FloatingPointError(f\"non-finite loss at step {step}\")\n")
CLIP_THEN_STEP = ("    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n"
                  "    optimizer.step()\n")

CHECKPOINT = (
    "def save_checkpoint(path, model, optimizer, generator, epoch):\n"
    "    torch.save({{{saved}\"epoch\": epoch}}, path)\n\n\n"
    "def load_checkpoint(path, model, optimizer, generator):\n"
    "    checkpoint = torch.load(path, weights_only=True)\n"
    "{loaded}"
    "    return checkpoint[\"epoch\"]\n"
)
SAVE = {"model": "\"model\": model.state_dict(), ",
        "optimizer": "\"optimizer\": optimizer.state_dict(), ",
        "generator": "\"generator\": generator.get_state(), "}
LOAD = {"model": "    model.load_state_dict(checkpoint[\"model\"])\n",
        "optimizer": "    optimizer.load_state_dict(checkpoint[\"optimizer\"])\n",
        "generator": "    generator.set_state(checkpoint[\"generator\"])\n"}


def checkpoint(parts=("model", "optimizer", "generator")):
    return CHECKPOINT.format(saved="".join(SAVE[p] for p in parts),
                             loaded="".join(LOAD[p] for p in parts))


ACCUMULATE = (
    "def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):\n"
    "    optimizer.zero_grad()\n"
    "    total = 0.0\n"
    "    chunks = range(0, len(X), micro_batch)\n"
    "    for start in chunks:\n"
    "        xb, yb = X[start:start + micro_batch], y[start:start + micro_batch]\n"
    "        part = loss_fn(model(xb), yb){weight}\n"
    "        part.backward()\n"
    "        total += part.item()\n"
    "{inner_step}"
    "{outer_step}"
    "    return total\n"
)


def accumulate(weight=" * len(xb) / len(X)", inner_step="", outer_step="    optimizer.step()\n"):
    return ACCUMULATE.format(weight=weight, inner_step=inner_step, outer_step=outer_step)


def bug_hunt(layers="nn.ModuleList([nn.Linear(64, 64), nn.Linear(64, 10)])",
             out="self.layers[1](x)", zero="        optimizer.zero_grad()\n", target="y",
             mode="    model.eval()\n", context="with torch.no_grad():"):
    return (
        "class DigitNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        self.layers = {layers}\n"
        "        self.dropout = nn.Dropout(0.2)\n\n"
        "    def forward(self, x):\n"
        "        x = self.dropout(torch.relu(self.layers[0](x)))\n"
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
        f"{mode}"
        f"    {context}\n"
        "        return (model(X).argmax(1) == y).float().mean().item()\n"
    )


WRONG = {
    P + "quiz-sgd": [("answer_sgd_theta = 0.0", "goes against the gradient", "sgd.step-adds-gradient")],
    P + "quiz-no-zero-grad": [("answer_no_zero_grad_w = 0.4", "backward adds to .grad",
                               "loop.grad-overwritten")],
    P + "quiz-step-first": [("answer_step_first_frozen = False", "whatever .grad holds",
                             "loop.step-waits-for-backward")],
    P + "quiz-learning-rate": [("answer_larger_lr_lower_loss = False", "safe but slow",
                                "lr.smaller-is-better")],
    P + "quiz-double-softmax": [("answer_double_softmax_loss = 0.0", "does not take probabilities",
                                 "loss.ce-takes-probabilities")],
    P + "train-epoch": [
        (train_epoch(body="        loss = loss_fn(model(xb), yb)\n"
                          "        loss.backward()\n"
                          "        optimizer.step()\n"),
         "backward adds into .grad", "loop.no-zero-grad"),
        (train_epoch(body="        optimizer.zero_grad()\n"
                          "        loss = loss_fn(model(xb), yb)\n"
                          "        optimizer.step()\n"
                          "        loss.backward()\n"),
         "step must come after backward", "loop.step-before-backward"),
        (train_epoch(logged="loss"), "keeps its graph reachable", "loop.tensor-losses"),
        (train_epoch(stop="0, len(X) - batch_size + 1, batch_size"), "a last one of 2",
         "loop.drops-last-batch"),
    ],
    P + "evaluate": [
        (evaluate(mode=""), "dropout", "eval.train-mode"),
        (evaluate(context="if True:"), "wrap the forward pass", "eval.grad-enabled"),
        (evaluate(scale="100 * "), "fraction between 0", "eval.percent"),
    ],
    P + "early-stop": [
        (EARLY_STOP.format(better="<=", done="=="), "not an improvement", "early-stop.ties-improve"),
        (EARLY_STOP.format(better="<", done=">"), "not patience + 1", "early-stop.off-by-one"),
    ],
    P + "guarded-step": [
        (GUARDED.format(check="", middle=CLIP_THEN_STEP, returned="norm.item()"),
         "returned for a NaN loss", "nan.not-detected"),
        (GUARDED.format(check=CHECK, middle="    optimizer.step()\n"
                        "    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)\n",
                        returned="norm.item()"),
         "unclipped gradient", "clip.not-applied"),
        (GUARDED.format(check=CHECK, middle=CLIP_THEN_STEP, returned="float(max_norm)"),
         "norm before clipping", "clip.norm-after-clipping"),
    ],
    P + "checkpoint": [
        (checkpoint(("model", "optimizer")), "different order", "checkpoint.generator-state"),
        (checkpoint(("model", "generator")), "Adam restarted", "checkpoint.optimizer-state"),
    ],
    P + "accumulate": [
        (accumulate(weight=""), "full weight", "accumulation.unscaled"),
        (accumulate(weight=" / len(chunks)"), "short last chunk", "accumulation.equal-weights"),
        (accumulate(inner_step="        optimizer.step()\n", outer_step=""),
         "accumulate all chunks", "accumulation.step-per-micro-batch"),
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
    ],
}

ALTERNATIVE = {
    P + "quiz-sgd": "answer_sgd_theta = 1.0 - 0.5 * (-2.0)",
    P + "quiz-no-zero-grad": "answer_no_zero_grad_w = 1.0 - 0.1 * (2 + 4 + 6)",
    P + "quiz-step-first": "answer_step_first_frozen = 0.1 * 0 == 0",
    P + "quiz-double-softmax": "answer_double_softmax_loss = math.log(1 + math.exp(-1))",
    P + "quiz-learning-rate": "answer_larger_lr_lower_loss = 1.0 > 0.1",
    P + "train-epoch": (
        "def train_epoch(model, loss_fn, optimizer, X, y, batch_size):\n"
        "    losses = []\n"
        "    for xb, yb in zip(X.split(batch_size), y.split(batch_size)):\n"
        "        loss = loss_fn(model(xb), yb)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad(set_to_none=False)\n"
        "        losses.append(loss.detach().item())\n"
        "    return losses\n"
    ),
    P + "evaluate": (
        "def evaluate_model(model, loss_fn, X, y):\n"
        "    model.train(False)\n"
        "    with torch.inference_mode():\n"
        "        logits = model(X)\n"
        "        return float(loss_fn(logits, y)), (logits.argmax(1) == y).sum().item() / len(y)\n"
    ),
    P + "early-stop": (
        "def early_stop(val_losses, patience):\n"
        "    best_epoch = 1\n"
        "    for epoch in range(2, len(val_losses) + 1):\n"
        "        if val_losses[epoch - 1] < val_losses[best_epoch - 1]:\n"
        "            best_epoch = epoch\n"
        "        elif epoch - best_epoch >= patience:\n"
        "            return best_epoch, epoch\n"
        "    return best_epoch, len(val_losses)\n"
    ),
    P + "guarded-step": (
        "def guarded_step(model, loss, optimizer, step, max_norm):\n"
        "    if torch.isnan(loss) or torch.isinf(loss):\n"
        "        raise FloatingPointError(f\"step {step}: the loss is {loss.item()}\")\n"
        "    loss.backward()\n"
        "    grads = [p.grad for p in model.parameters() if p.grad is not None]\n"
        "    total = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))\n"
        "    scale = min(1.0, max_norm / (total.item() + 1e-6))\n"
        "    with torch.no_grad():\n"
        "        for g in grads:\n"
        "            g.mul_(scale)\n"
        "    optimizer.step()\n"
        "    return total.item()\n"
    ),
    P + "checkpoint": (
        "def save_checkpoint(path, model, optimizer, generator, epoch):\n"
        "    torch.save([model.state_dict(), optimizer.state_dict(), generator.get_state(), epoch], path)\n\n\n"
        "def load_checkpoint(path, model, optimizer, generator):\n"
        "    model_state, optimizer_state, rng, epoch = torch.load(path, weights_only=True)\n"
        "    model.load_state_dict(model_state)\n"
        "    optimizer.load_state_dict(optimizer_state)\n"
        "    generator.set_state(rng)\n"
        "    return epoch\n"
    ),
    P + "accumulate": (
        "def accumulate_step(model, loss_fn, optimizer, X, y, micro_batch):\n"
        "    for p in model.parameters():\n"
        "        p.grad = None\n"
        "    total = 0.0\n"
        "    for xb, yb in zip(X.split(micro_batch), y.split(micro_batch)):\n"
        "        loss = loss_fn(model(xb), yb) * len(xb)\n"
        "        loss.backward()\n"
        "        total += loss.item()\n"
        "    for p in model.parameters():\n"
        "        p.grad /= len(X)\n"
        "    optimizer.step()\n"
        "    return total / len(X)\n"
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
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        logits = model(X)\n"
        "    return (logits.argmax(1) == y).float().mean().item()\n"
    ),
}
