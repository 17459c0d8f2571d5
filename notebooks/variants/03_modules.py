"""Plausible wrong answers (code, the phrase their test output must contain, the
misconception id) and other correct answers for notebook 03; see graders/submissions.py."""

P = "03_modules-"

TOWER = (
    "class Tower(nn.Module):\n"
    "    def __init__(self, sizes):\n"
    "{init}"
    "        self.layers = {container}\n\n"
    "    def forward(self, x):\n"
    "        for k, layer in enumerate(self.layers):\n"
    "            x = layer(x)\n"
    "            if k < len(self.layers) - 1:\n"
    "                x = torch.relu(x)\n"
    "        return x\n"
)
LIST = "[nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]"
SUPER = "        super().__init__()\n"

PREDICT = (
    "def predict(model, x):\n"
    "    was_training = model.training\n"
    "{mode}"
    "    {context}\n"
    "        out = model(x)\n"
    "{restore}"
    "    return out\n"
)


def predict(mode="    model.eval()\n", context="with torch.no_grad():",
            restore="    model.train(was_training)\n"):
    return PREDICT.format(mode=mode, context=context, restore=restore)


LOAD = (
    "def load_weights(path, make_model):\n"
    "    model = make_model()\n"
    "    model.load_state_dict(torch.load(path, weights_only={trust}))\n"
    "{mode}"
    "    return model\n"
)

GATED = (
    "class GatedLinear(nn.Module):\n"
    "    def __init__(self, d_in, d_out):\n"
    "        super().__init__()\n"
    "        self.weight_value = {wrap}(torch.randn(d_out, d_in) / d_in ** 0.5{grad})\n"
    "        self.bias_value = {wrap}(torch.zeros(d_out{grad}))\n"
    "        self.weight_gate = {wrap}(torch.randn(d_out, d_in) / d_in ** 0.5{grad})\n"
    "        self.bias_gate = {wrap}(torch.zeros(d_out{grad}))\n\n"
    "    def forward(self, x):\n"
    "        value = x @ self.weight_value.T + self.bias_value\n"
    "        gate = {gate}\n"
    "        return value * gate\n"
)


def gated(wrap="nn.Parameter", grad="", gate="torch.sigmoid(x @ self.weight_gate.T + self.bias_gate)"):
    return GATED.format(wrap=wrap, grad=grad, gate=gate)


HOOKS = (
    "def output_means(model, x):\n"
    "    means = {{}}\n"
    "    handles = []\n"
    "    for name, child in model.named_children():\n"
    "        def record(module, inputs, output{bind}):\n"
    "            means[name] = output.mean().item()\n"
    "        handles.append(child.register_forward_hook(record))\n"
    "    with torch.no_grad():\n"
    "        model(x)\n"
    "{remove}"
    "    return means\n"
)
REMOVE = "    for handle in handles:\n        handle.remove()\n"


def hooks(bind=", name=name", remove=REMOVE):
    return HOOKS.format(bind=bind, remove=remove)


FREEZE = (
    "def freeze_all_but_last(model):\n"
    "{body}"
    "    return sum(p.numel() for p in model.parameters() if p.requires_grad)\n"
)

WRONG = {
    P + "quiz-param-count": [
        ("answer_param_count = 30\n", "buffer is saved", "modules.buffer-is-parameter"),
        ("answer_param_count = 26\n", "plain tensor attribute", "modules.plain-tensor-registered"),
        ("answer_param_count = 12\n", "walks the submodules", "modules.submodule-not-counted"),
    ],
    P + "fix-list": [
        (TOWER.format(init=SUPER, container=LIST), "Python list", "modules.python-list"),
        (TOWER.format(init="", container="nn.ModuleList(" + LIST + ")"),
         "super().__init__()", "modules.no-super-init"),
        (TOWER.replace("            if k < len(self.layers) - 1:\n"
                       "                x = torch.relu(x)\n", "            x = torch.relu(x)\n")
         .format(init=SUPER, container="nn.ModuleList(" + LIST + ")"),
         "except the last", "modules.relu-placement"),
    ],
    P + "quiz-weight-shape": [
        ("answer_weight_shape = (20, 7)\n", "(d_out, d_in)", "linear.weight-layout"),
        ("answer_weight_shape = (7,)\n", "is the bias", "linear.bias-shape"),
    ],
    P + "count-params": [
        ("def mlp_param_count(sizes):\n"
         "    return sum(a * b for a, b in zip(sizes[:-1], sizes[1:]))\n",
         "weights only", "params.forget-bias"),
        ("def mlp_param_count(sizes):\n"
         "    return sum(a * (b + 1) for a, b in zip(sizes[:-1], sizes[1:]))\n",
         "one entry per output unit", "params.bias-per-input"),
        ("def mlp_param_count(sizes):\n"
         "    return sum(a * b for a, b in zip(sizes[:-1], sizes[1:])) + sum(sizes)\n",
         "not once per size", "params.input-bias"),
    ],
    P + "linear-by-hand": [
        ("def linear_forward(x, weight, bias):\n    return x @ weight + bias\n",
         "(d_out, d_in)", "linear.weight-layout"),
        ("def linear_forward(x, weight, bias):\n    return x @ weight.T\n",
         "bias is missing", "linear.no-bias"),
    ],
    P + "quiz-dropout-value": [
        ("answer_dropout_value = 1.0\n", "rescales the survivors", "dropout.no-rescale"),
        ("answer_dropout_value = 0.8\n", "divided by the keep", "dropout.multiply-keep"),
        ("answer_dropout_value = 5.0\n", "not 1/p", "dropout.divide-by-p"),
    ],
    P + "quiz-eval-freezes": [
        ("answer_eval_freezes = True\n", "requires_grad is unchanged", "mode.eval-freezes"),
    ],
    P + "predict": [
        (predict(restore=""), "restore it", "predict.mode-not-restored"),
        (predict(mode=""), "dropout zeroed", "predict.dropout-active"),
        (predict(context="if True:"), "recorded a graph", "predict.graph-recorded"),
        (predict(restore="    model.train()\n"), "stay in evaluation", "predict.mode-not-restored"),
    ],
    P + "load-safely": [
        (LOAD.format(trust="False", mode="    model.eval()\n"), "weights_only=True",
         "state-dict.trust-pickle"),
        (LOAD.format(trust="True", mode=""), "still in training mode", "state-dict.mode"),
        ("def load_weights(path, make_model):\n"
         "    model = make_model().eval()\n"
         "    torch.load(path, weights_only=True)\n"
         "    return model\n", "must come from", "state-dict.not-loaded"),
    ],
    P + "freeze": [
        (FREEZE.format(body="    model[:-1].requires_grad = False\n"), "only adds an attribute",
         "freeze.module-attribute"),
        (FREEZE.format(body="    model[:-1].eval()\n"), "eval() freezes", "freeze.module-attribute"),
        (FREEZE.format(body="    model[0].requires_grad_(False)\n"), "not only the first",
         "freeze.partial"),
        ("def freeze_all_but_last(model):\n"
         "    model[:-1].requires_grad_(False)\n"
         "    return len([p for p in model.parameters() if p.requires_grad])\n",
         "number of elements", "freeze.count"),
    ],
    P + "gated": [
        (gated(wrap="", grad=").requires_grad_("), "nn.Parameter(...)", "modules.plain-tensor"),
        (gated(gate="x @ self.weight_gate.T + self.bias_gate"), "through a sigmoid",
         "gated.no-sigmoid"),
        ("class GatedLinear(nn.Module):\n"
         "    def __init__(self, d_in, d_out):\n"
         "        super().__init__()\n"
         "        self.weight_value = nn.Parameter(torch.randn(d_in, d_out) / d_in ** 0.5)\n"
         "        self.bias_value = nn.Parameter(torch.zeros(d_out))\n"
         "        self.weight_gate = nn.Parameter(torch.randn(d_in, d_out) / d_in ** 0.5)\n"
         "        self.bias_gate = nn.Parameter(torch.zeros(d_out))\n\n"
         "    def forward(self, x):\n"
         "        return (x @ self.weight_value + self.bias_value) * torch.sigmoid(\n"
         "            x @ self.weight_gate + self.bias_gate)\n",
         "(d_out, d_in)", "linear.weight-layout"),
        ("class GatedLinear(nn.Module):\n"
         "    def __init__(self, d_in, d_out):\n"
         "        super().__init__()\n"
         "        self.value = nn.Linear(d_in, d_out)\n"
         "        self.gate = nn.Linear(d_in, d_out)\n\n"
         "    def forward(self, x):\n"
         "        return self.value(x) * torch.sigmoid(self.gate(x))\n",
         "weight_value", "gated.names"),
    ],
    P + "quiz-relu-depth": [
        ('answer_relu_depth = "about the same"\n', "half the", "init.relu-preserves"),
        ('answer_relu_depth = "larger"\n', "spread shrinks", "init.relu-grows"),
        ('answer_relu_depth = "shrinks"\n', "one of the strings", "init.quiz-format"),
    ],
    P + "hook-means": [
        (hooks(remove=""), "still registered", "hooks.handle-left"),
        (hooks(bind=""), "loop variable", "hooks.late-binding"),
        ("def output_means(model, x):\n"
         "    means = {}\n"
         "    with torch.no_grad():\n"
         "        for name, child in model.named_children():\n"
         "            x = child(x)\n"
         "            means[name] = x.mean().item()\n"
         "    return means\n", "one after another", "hooks.replay-children"),
    ],
}

ALTERNATIVE = {
    P + "quiz-param-count": "answer_param_count = 3 * 4 + 2 * (4 + 1)\n",
    P + "fix-list": (
        "class Tower(nn.Module):\n"
        "    def __init__(self, sizes):\n"
        "        super().__init__()\n"
        "        layers = []\n"
        "        for a, b in zip(sizes[:-1], sizes[1:]):\n"
        "            layers += [nn.Linear(a, b), nn.ReLU()]\n"
        "        self.layers = nn.Sequential(*layers[:-1])\n\n"
        "    def forward(self, x):\n"
        "        return self.layers(x)\n"
    ),
    P + "quiz-weight-shape": "answer_weight_shape = torch.Size([7, 20])\n",
    P + "count-params": (
        "def mlp_param_count(sizes):\n"
        "    model = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])\n"
        "    return sum(p.numel() for p in model.parameters())\n"
    ),
    P + "linear-by-hand": (
        "def linear_forward(x, weight, bias):\n"
        "    return torch.addmm(bias, x, weight.t())\n"
    ),
    P + "quiz-dropout-value": "answer_dropout_value = 1 / (1 - 0.2)\n",
    P + "quiz-eval-freezes": "answer_eval_freezes = bool(0)\n",
    P + "predict": (
        "def predict(model, x):\n"
        "    mode = model.training\n"
        "    try:\n"
        "        model.train(False)\n"
        "        with torch.inference_mode():\n"
        "            return model(x)\n"
        "    finally:\n"
        "        model.train(mode)\n"
    ),
    P + "load-safely": (
        "def load_weights(path, make_model):\n"
        "    state = torch.load(path, map_location='cpu', weights_only=True)\n"
        "    model = make_model()\n"
        "    model.load_state_dict(state, strict=True)\n"
        "    return model.train(False)\n"
    ),
    P + "freeze": (
        "def freeze_all_but_last(model):\n"
        "    model.requires_grad_(False)\n"
        "    model[-1].requires_grad_(True)\n"
        "    return int(sum(p.numel() for p in model[-1].parameters()))\n"
    ),
    P + "gated": (
        "class GatedLinear(nn.Module):\n"
        "    def __init__(self, d_in, d_out):\n"
        "        super().__init__()\n"
        "        scale = d_in ** -0.5\n"
        "        self.weight_value = nn.Parameter(scale * torch.randn(d_out, d_in))\n"
        "        self.weight_gate = nn.Parameter(scale * torch.randn(d_out, d_in))\n"
        "        self.bias_value = nn.Parameter(torch.zeros(d_out))\n"
        "        self.bias_gate = nn.Parameter(torch.zeros(d_out))\n\n"
        "    def forward(self, x):\n"
        "        gate = F.linear(x, self.weight_gate, self.bias_gate).sigmoid()\n"
        "        return F.linear(x, self.weight_value, self.bias_value) * gate\n"
    ),
    P + "quiz-relu-depth": "answer_relu_depth = 'smaller'\n",
    P + "hook-means": (
        "def output_means(model, x):\n"
        "    outputs = {}\n"
        "    handles = [child.register_forward_hook(\n"
        "                   lambda m, i, o, key=name: outputs.__setitem__(key, o))\n"
        "               for name, child in model.named_children()]\n"
        "    try:\n"
        "        with torch.no_grad():\n"
        "            model(x)\n"
        "    finally:\n"
        "        for h in handles:\n"
        "            h.remove()\n"
        "    return {k: float(v.mean()) for k, v in outputs.items()}\n"
    ),
}
