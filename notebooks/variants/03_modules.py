"""Plausible wrong answers (code, the phrase their test output must contain, the
misconception id) and other correct answers for notebook 03; see authoring/submissions.py."""

P = "03_modules-"

STANDARDISE = (
    "class FixedStandardise(nn.Module):\n"
    "    def __init__(self, mean, std):\n"
    "        super().__init__()\n"
    "{stats}"
    "        self.gain = {gain}\n"
    "{largest}\n"
    "    def forward(self, x):\n"
    "        z = (x - self.mean) / self.std\n"
    "        self.largest = z.detach().abs().amax(0)\n"
    "        return z * self.gain\n"
)
STATS = '        self.register_buffer("mean", mean)\n        self.register_buffer("std", std)\n'
GAIN = "nn.Parameter(torch.ones(len(mean)))"
LARGEST = '        self.register_buffer("largest", torch.zeros(len(mean)), persistent=False)\n'


def standardise(stats=STATS, gain=GAIN, largest=LARGEST):
    return STANDARDISE.format(stats=stats, gain=gain, largest=largest)


STACK = (
    "class Stack(nn.Module):\n"
    "    def __init__(self, block, depth):\n"
    "{init}"
    "        self.layers = {container}\n\n"
    "    def forward(self, x):\n"
    "        for layer in self.layers:\n"
    "            x = {apply}\n"
    "        return x\n"
)
COPIES = "[copy.deepcopy(block) for _ in range(depth)]"
SUPER = "        super().__init__()\n"


def stack(init=SUPER, container="nn.ModuleList(" + COPIES + ")", apply="layer(x)"):
    return STACK.format(init=init, container=container, apply=apply)


def budget(expression):
    return f"def widest_hidden(d_in, d_out, budget):\n    return {expression}\n"


MERGE = (
    "def merge_linears(first, second):\n"
    "    merged = nn.Linear(first.in_features, second.out_features)\n"
    "    with torch.no_grad():\n"
    "        merged.weight.copy_({weight})\n"
    "        merged.bias.copy_({bias})\n"
    "    return merged\n"
)


def merge(weight="second.weight @ first.weight",
          bias="second.weight @ first.bias + second.bias"):
    return MERGE.format(weight=weight, bias=bias)


PREDICT = (
    "def predict(model, x):\n"
    "    was_training = model.training\n"
    "{mode}"
    "    {context}\n"
    "        out = model(x)\n"
    "{restore}"
    "    return out\n"
)


# restores every submodule's flag: the variants built on it differ in what else they do
PREDICT_BY_HAND = (
    "def predict(model, x):\n"
    "    saved = [(m, m.training) for m in model.modules()]\n"
    "    model.eval()\n"
    "    {context}\n"
    "        out = model(x)\n"
    "    for m, flag in saved:\n"
    "        m.training = flag\n"
    "    return {returned}\n"
)


def predict(mode="    model.eval()\n", context="with torch.no_grad():",
            restore="    model.train(was_training)\n"):
    return PREDICT.format(mode=mode, context=context, restore=restore)


LOAD = (
    "def load_checkpoint(path):\n"
    "{load}"
    "    state = {{{key}: value for key, value in checkpoint['model'].items()}}\n"
    "    model = make_model(checkpoint['config'])\n"
    "    model.load_state_dict(state{strict})\n"
    "{mode}"
    "    return {returned}\n"
)
SAFE_LOAD = ("    with torch.serialization.safe_globals([TrainConfig]):\n"
             "        checkpoint = torch.load(path, weights_only=True)\n")


def load(load=SAFE_LOAD, key="key.removeprefix('_orig_mod.')", strict="",
         mode="    model.eval()\n", returned="model, checkpoint['epoch']"):
    return LOAD.format(load=load, key=key, strict=strict, mode=mode, returned=returned)


FREEZE = (
    "def freeze_all_but_last(model):\n"
    "{body}"
    "    return sum(p.numel() for p in model.parameters() if p.requires_grad)\n"
)
FROZEN = "    model[:-1].requires_grad_(False)\n"
CLEAR = "    for p in model[:-1].parameters():\n        p.grad = None\n"
STATS_READ = ("    def to_eval(module, args):  # before every forward pass (returns None: input kept)\n"
              "        module.eval()\n"
              "    for m in model[:-1].modules():\n"
              "        if isinstance(m, nn.BatchNorm1d):\n"
              "            m.register_forward_pre_hook(to_eval)\n")
BN_EVAL = ("    for m in model[:-1].modules():\n"
           "        if isinstance(m, nn.BatchNorm1d):\n"
           "            m.eval()\n")

BAG = (
    "class MeanEmbedding(nn.Module):\n"
    "    def __init__(self, num_embeddings, dim, pad):\n"
    "        super().__init__()\n"
    "        self.weight = {table}\n"
    "        self.pad = pad\n\n"
    "    def forward(self, tokens):\n"
    "        keep = (tokens != {pad}).unsqueeze(-1).float()\n"
    "        rows = {rows}\n"
    "        return {result}\n"
)


def bag(table="nn.Parameter(torch.randn(num_embeddings, dim))", pad="self.pad",
        rows="self.weight[tokens] * keep", result="rows.sum(1) / keep.sum(1).clamp(min=1)"):
    return BAG.format(table=table, pad=pad, rows=rows, result=result)


HOOKS = (
    "def output_grad_rms(model, x):\n"
    "    outputs = {{}}\n"
    "    handles = []\n"
    "    for name, child in model.named_children():\n"
    "        def record(module, inputs, output{bind}):\n"
    "            outputs[name] = {kept}\n"
    "        handles.append(child.register_forward_hook(record))\n"
    "    {context}\n"
    "        loss = model(x).sum()\n"
    "{remove}"
    "    names = list(outputs)\n"
    "    grads = torch.autograd.grad(loss, [outputs[n] for n in names])\n"
    "    return {{n: {value} for n, g in zip(names, grads)}}\n"
)
REMOVE = "    for handle in handles:\n        handle.remove()\n"


def hooks(bind=", name=name", remove=REMOVE, kept="output", context="if True:",
          value="g.pow(2).mean().sqrt().item()"):
    return HOOKS.format(bind=bind, remove=remove, kept=kept, context=context, value=value)


LSUV = (
    "def lsuv_init_(model, x):\n"
    "    modes = [(m, m.training) for m in model.modules()]\n"
    "    outputs = {{}}\n"
    "    handles = [m.register_forward_hook(lambda m, i, o: outputs.update({{m: o}}))\n"
    "               for m in model.modules() if isinstance(m, nn.Linear)]\n"
    "{mode}"
    "    {context}\n"
    "        model(x)\n"
    "        for layer in {order}:\n"
    "{bias}"
    "{rescale}"
    "{remove}"
    "{restore}"
    "    return model\n"
)
LSUV_BIAS = ("            if layer.bias is not None:\n"
             "                layer.bias.zero_()\n")
LSUV_RESCALE = ("            model(x)\n"
                "            layer.weight.div_(outputs[layer].std())\n")
LSUV_REMOVE = "    for handle in handles:\n        handle.remove()\n"
LSUV_RESTORE = "    for m, flag in modes:\n        m.training = flag\n"


def lsuv(mode="    model.eval()\n", context="with torch.no_grad():", order="list(outputs)",
         bias=LSUV_BIAS, rescale=LSUV_RESCALE, remove=LSUV_REMOVE, restore=LSUV_RESTORE):
    return LSUV.format(mode=mode, context=context, order=order, bias=bias, rescale=rescale,
                       remove=remove, restore=restore)


WRONG = {
    P + "quiz-param-count": [
        ("answer_param_count = 30\n", "buffer is saved", "modules.buffer-is-parameter"),
        ("answer_param_count = 26\n", "plain tensor attribute", "modules.plain-tensor-registered"),
        ("answer_param_count = 12\n", "walks the submodules", "modules.submodule-not-counted"),
        ("answer_param_count = 16\n", "listed by buffers()", "modules.buffer-is-parameter"),
    ],
    P + "quiz-to-inplace": [
        ("answer_to_dtypes = (1, 0)\n", "should be True or False"),
        ("answer_to_dtypes = (True, True)\n", "returns a new tensor", "to.tensor-in-place"),
        ("answer_to_dtypes = (False, False)\n", "does not make a copy", "to.module-copy"),
        ("answer_to_dtypes = (False, True)\n", "other way round", "to.module-copy"),
    ],
    P + "fix-tensors": [
        (standardise(stats="        self.mean = nn.Parameter(mean)\n"
                           "        self.std = nn.Parameter(std)\n"),
         "measured once, not learned", "buffers.stats-as-parameter"),
        (standardise(largest='        self.register_buffer("largest", torch.zeros(len(mean)))\n'),
         "persistent=False", "buffers.persistent"),
        (standardise(largest="        self.largest = torch.zeros(len(mean))\n"),
         "largest is not a buffer", "buffers.plain-tensor"),
        (standardise(gain="torch.ones(len(mean), requires_grad=True)"),
         "Wrap it in nn.Parameter", "modules.plain-tensor"),
        (standardise(stats="        self.mean = mean\n        self.std = std\n"),
         "are not in state_dict()", "buffers.plain-tensor"),
        (standardise(stats='        self.register_buffer("mean", mean, persistent=False)\n'
                           '        self.register_buffer("std", std, persistent=False)\n'),
         "persistent=False, so state_dict() leaves them out", "buffers.persistent"),
        (standardise(stats="        self.mean = nn.Parameter(mean, requires_grad=False)\n"
                           "        self.std = nn.Parameter(std, requires_grad=False)\n"),
         "parameters() lists mean and std", "buffers.stats-as-parameter"),
        ("class FixedStandardise(nn.Module):\n"
         "    def __init__(self, mean, std):\n"
         "        super().__init__()\n"
         "        for name, value in (('mean', mean), ('std', std), ('gain', torch.ones(len(mean)))):\n"
         "            self.register_buffer(name, value)\n"
         + LARGEST + "\n"
         "    def forward(self, x):\n"
         "        z = (x - self.mean) / self.std\n"
         "        self.largest = z.detach().abs().amax(0)\n"
         "        return z * self.gain\n", "gain is a buffer", "buffers.learned-buffer"),
    ],
    P + "fix-list": [
        (stack(container=COPIES), "Python list", "modules.python-list"),
        (stack(container="nn.ModuleList([block] * depth)"), "share one weight",
         "modules.shared-copies"),
        (stack(container="nn.ModuleList(copy.copy(block) for _ in range(depth))"),
         "shallow copies", "modules.shared-copies"),
        (stack(init=""), "super().__init__()", "modules.no-super-init"),
        (stack(container="nn.ModuleList([block] + [copy.deepcopy(block) for _ in range(depth - 1)])"),
         "itself is one of the layers", "stack.block-reused"),
        (stack(container="nn.ModuleList(nn.Linear(block.in_features, block.out_features) "
                         "for _ in range(depth))"),
         "do not start from block's values", "stack.fresh-copies"),
        (stack(container="nn.ModuleList(copy.deepcopy(block) for _ in range(depth + 1))"),
         "no more and no fewer", "stack.depth"),
        (stack(apply="layer(x) if layer is self.layers[-1] else x"), "one after another",
         "stack.forward"),
    ],
    P + "quiz-batch-shape": [
        ("answer_batch_shape = (4, 7)\n", "are not merged", "linear.flattens-batch"),
        ('answer_batch_shape = "error"\n', "any shape", "linear.needs-2d"),
        ("answer_batch_shape = (4, 9, 20)\n", "last dimension is the one", "linear.keeps-width"),
        ("answer_batch_shape = (36, 7)\n", "does not flatten", "linear.flattens-batch"),
    ],
    P + "param-budget": [
        (budget("budget // (d_in + d_out)"), "leave out the biases", "params.forget-bias"),
        (budget("max(0, (budget - d_in) // (d_in + d_out + 1))"), "per *output* unit",
         "params.bias-per-input"),
        (budget("max(0, (budget - d_out) / (d_in + d_out + 1))"), "whole number",
         "budget.whole-units"),
        (budget("max(0, (budget - d_out - 1) // (d_in + d_out + 1))"), "spent exactly",
         "budget.at-most"),
        (budget("(budget - d_out) // (d_in + d_out + 1)"), "not a negative width",
         "budget.negative"),
        (budget("max(0, round((budget - d_out) / (d_in + d_out + 1)))"), "rounding down",
         "budget.round-up"),
        (budget("max(1, (budget - d_out) // (d_in + d_out + 1))"), "not even h = 1 fits",
         "budget.negative"),
        (budget("max(0, budget // (d_in + 1 + d_out))"), "the output layer's too",
         "params.forget-bias"),
    ],
    P + "merge-linear": [
        (merge(bias="second.bias"), "first layer's bias is missing", "merge.bias"),
        (merge(weight="first.weight @ second.weight"), "(d_out, d_in)", "linear.weight-layout"),
        (merge(bias="first.bias + second.bias"), "shapes do not fit", "merge.shapes"),
        ("def merge_linears(first, second):\n"
         "    merged = nn.Linear(first.in_features, second.out_features)\n"
         "    merged.weight = second.weight @ first.weight\n"
         "    merged.bias = second.weight @ first.bias + second.bias\n"
         "    return merged\n", "cannot be replaced by a plain tensor", "merge.assign-tensor"),
        ("def merge_linears(first, second):\n"
         "    return nn.Sequential(first, second)\n", "return one nn.Linear", "merge.not-one-layer"),
        (merge().replace("    with torch.no_grad():\n", "    if True:\n"), "in-place write",
         "init.in-place-grad"),
        ("def merge_linears(first, second):\n"
         "    with torch.no_grad():\n"
         "        second.bias.copy_(second.weight @ first.bias + second.bias)\n"
         "        second.weight = nn.Parameter(second.weight @ first.weight)\n"
         "    second.in_features = first.in_features\n"
         "    return second\n", "first or second changed", "merge.modified-inputs"),
        (merge(bias="first.bias @ second.weight + second.bias"), "term by term",
         "linear.weight-layout"),
    ],
    P + "quiz-conv-params": [
        ("answer_conv_params = 1200\n", "one number per output channel", "conv.no-bias"),
        ("answer_conv_params = 416\n", "spans every input channel", "conv.one-input-channel"),
        ("answer_conv_params = 1203\n", "not to the input channel", "conv.bias-per-input"),
        ("answer_conv_params = 953344\n", "does not depend on the image size",
         "conv.weights-per-position"),
    ],
    P + "quiz-embedding-rows": [
        ("answer_embedding_rows = 6\n", "not the reads", "embedding.row-per-token"),
        ("answer_embedding_rows = 10\n", "nobody read is exactly zero", "embedding.dense-grad"),
        ("answer_embedding_rows = 3\n", "ordinary token", "embedding.zero-is-padding"),
    ],
    P + "quiz-dropout-value": [
        ("answer_dropout_value = 1.0\n", "rescales them", "dropout.no-rescale"),
        ("answer_dropout_value = 0.8\n", "scaled up, not down", "dropout.multiply-keep"),
        ("answer_dropout_value = 5.0\n", "keep probability 1 − p", "dropout.divide-by-p"),
    ],
    P + "quiz-eval-freezes": [
        ("answer_eval_freezes = True\n", "requires_grad is unchanged", "mode.eval-freezes"),
    ],
    P + "predict": [
        (predict(restore=""), "are in evaluation mode after predict", "predict.mode-not-restored"),
        (predict(mode=""), "dropout zeroed", "predict.dropout-active"),
        (predict(context="if True:"), "recorded a graph", "predict.graph-recorded"),
        (predict(), "each submodule's own flag", "predict.one-flag-restored"),
        (predict(restore="    model.training = was_training\n"),
         "are in evaluation mode after predict", "predict.mode-not-restored"),
        (predict(restore="    model.train()\n"), "each submodule's own flag",
         "predict.one-flag-restored"),
        ("def predict(model, x):\n"
         "    with helpers.modes.evaluating(model), torch.no_grad():\n"
         "        return model(x)\n", "put it back yourself", "predict.delegates"),
        ("def predict(model, x):\n"
         "    saved = [(m, m.training) for m in model.modules()]\n"
         "    model.eval()\n"
         "    torch.set_grad_enabled(False)\n"
         "    out = model(x)\n"
         "    for m, flag in saved:\n"
         "        m.train(flag)\n"
         "    return out\n", "autograd is off", "predict.grad-mode-left"),
        (PREDICT_BY_HAND.format(context="with torch.no_grad():", returned="out.numpy()"),
         "returns, a tensor", "predict.output-changed"),
    ],
    P + "load-checkpoint": [
        (load(load="    checkpoint = torch.load(path, weights_only=False)\n"),
         "called a function", "state-dict.trust-pickle"),
        (load(strict=", strict=False"), "keep its random start", "load.strict-false"),
        (load(key="key"), "begin with '_orig_mod.'", "load.prefix"),
        (load(mode=""), "still in training mode", "state-dict.mode"),
        (load(load="    checkpoint = torch.load(path, weights_only=True)\n"),
         "safe_globals", "load.allow-list"),
        (load(returned="model"), "Return a pair", "load.return-pair"),
        (load(mode="    model.eval\n"), "still in training mode", "state-dict.mode"),
        (load(returned="model, checkpoint['epoch'] + 1"), "entry as it is", "load.return-pair"),
        (LOAD.replace("checkpoint['config']", "TrainConfig(6, 0.1)").format(
            load=SAFE_LOAD, key="key.removeprefix('_orig_mod.')", strict="",
            mode="    model.eval()\n", returned="model, checkpoint['epoch']"),
         "the file's own config", "load.config"),
    ],
    P + "freeze": [
        (FREEZE.format(body="    model[:-1].requires_grad = False\n"), "only adds an attribute",
         "freeze.module-attribute"),
        (FREEZE.format(body="    model[:-1].eval()\n"), "eval() and torch.no_grad() leave",
         "freeze.module-attribute"),
        (FREEZE.format(body="    model[0].requires_grad_(False)\n"), "whatever layer holds them",
         "freeze.partial"),
        (FREEZE.replace("sum(p.numel() for p in model.parameters() if p.requires_grad)",
                        "len([p for p in model.parameters() if p.requires_grad])")
         .format(body=FROZEN + CLEAR + STATS_READ), "number of elements", "freeze.count"),
        (FREEZE.format(body="    for m in model[:-1]:\n"
                            "        if isinstance(m, nn.Linear):\n"
                            "            m.requires_grad_(False)\n" + CLEAR + STATS_READ),
         "whatever layer holds them", "freeze.partial"),
        (FREEZE.format(body="    with torch.no_grad():\n"
                            "        for layer in model[:-1]:\n"
                            "            layer.zero_grad()\n"),
         "torch.no_grad() leave the flags", "freeze.module-attribute"),
        (FREEZE.format(body="    model.requires_grad_(False)\n"), "is the part that is fine-tuned",
         "freeze.last-frozen"),
        (FREEZE.replace("sum(p.numel() for p in model.parameters() if p.requires_grad)",
                        "sum(p.numel() for p in model.parameters())")
         .format(body=FROZEN + CLEAR + STATS_READ), "number of elements", "freeze.count"),
        (FREEZE.format(body=FROZEN), "still holds the .grad", "freeze.stale-grad"),
        (FREEZE.format(body=FROZEN + BN_EVAL), "still holds the .grad", "freeze.stale-grad"),
        (FREEZE.format(body=FROZEN + CLEAR), "which requires_grad does not reach",
         "freeze.buffers-move"),
        (FREEZE.format(body=FROZEN + CLEAR + "    for m in model.modules():\n"
                                             "        if isinstance(m, nn.BatchNorm1d):\n"
                                             "            m.momentum = 0.0\n"),
         "num_batches_tracked", "freeze.buffers-move"),
        (FREEZE.format(body=FROZEN + CLEAR + BN_EVAL), "lasts until the next train()",
         "freeze.train-undoes-eval"),
        (FREEZE.format(body=FROZEN + CLEAR + "    model[:-1].eval()\n"), "lasts until the next train()",
         "freeze.train-undoes-eval"),
        (FREEZE.format(body=FROZEN + CLEAR + STATS_READ.replace("model[:-1].modules()", "model[:-1]")),
         "which requires_grad does not reach", "freeze.buffers-move"),
        (FREEZE.format(body=FROZEN + CLEAR + STATS_READ.replace(
            "        if isinstance(m, nn.BatchNorm1d):\n            m.register", "        m.register")),
         "still uses dropout", "freeze.mode-changed"),
        ("def freeze_all_but_last(model):\n"
         "    last = list(model.modules())[-1]  # the last layer\n"
         "    for p in model.parameters():\n"
         "        if all(p is not q for q in last.parameters()):\n"
         "            p.requires_grad_(False)\n"
         "            p.grad = None\n" + STATS_READ.replace("model[:-1]", "model") +
         "    return sum(p.numel() for p in model.parameters() if p.requires_grad)\n",
         "not only the last layer", "freeze.last-leaf"),
        ("def freeze_all_but_last(model):\n"
         "    for i in range(len(model) - 1):\n"
         "        if isinstance(model[i], nn.BatchNorm1d):\n"
         "            model[i] = nn.Identity()  # statistics gone, nothing left to move\n"
         "        model[i].requires_grad_(False)\n"
         "        for p in model[i].parameters():\n"
         "            p.grad = None\n"
         "    return sum(p.numel() for p in model.parameters() if p.requires_grad)\n",
         "keys changed", "freeze.keys-changed"),
    ],
    P + "mean-embedding": [
        (bag(rows="self.weight[tokens]", result="rows.mean(1)"), "counted in the mean",
         "embedding.pad-counted"),
        (bag(result="rows.sum(1) / keep.sum(1)"), "0 / 0", "embedding.empty-nan"),
        (bag(table="nn.Parameter(torch.randn(num_embeddings, dim).index_fill(0, torch.tensor([pad]), 0.0))",
             rows="self.weight[tokens]", result="rows.sum(1) / keep.sum(1).clamp(min=1)"),
         "gets a gradient", "embedding.pad-trained"),
        (bag(pad="0"), "0 is an ordinary token id", "embedding.zero-is-padding"),
        (bag(table="torch.randn(num_embeddings, dim, requires_grad=True)"), "Wrap the table",
         "modules.plain-tensor"),
        (bag(table="nn.Parameter(torch.randn(dim, num_embeddings))", rows="self.weight.T[tokens] * keep"),
         "(num_embeddings, dim)", "embedding.table-shape"),
        ("class MeanEmbedding(nn.Module):\n"
         "    def __init__(self, num_embeddings, dim, pad):\n"
         "        super().__init__()\n"
         "        self.weight = nn.Parameter(torch.randn(num_embeddings, dim))\n"
         "        self.pad = pad\n\n"
         "    def forward(self, tokens):\n"
         "        return F.embedding_bag(tokens, self.weight, mode='mean', padding_idx=self.pad)\n",
         "gather the table's rows", "embedding.bag-called"),
        (bag(result="rows.sum(1)"), "the sum of the embeddings", "embedding.sum-not-mean"),
        (bag(table="nn.Parameter(torch.rand(num_embeddings, dim))"), "N(0, 1)", "embedding.init"),
        ("class MeanEmbedding(nn.Module):\n"
         "    def __init__(self, num_embeddings, dim, pad):\n"
         "        super().__init__()\n"
         "        self.table = nn.Embedding(num_embeddings, dim, padding_idx=pad)\n"
         "        self.pad = pad\n\n"
         "    def forward(self, tokens):\n"
         "        keep = (tokens != self.pad).unsqueeze(-1).float()\n"
         "        return (self.table(tokens) * keep).sum(1) / keep.sum(1).clamp(min=1)\n",
         "in the attribute weight", "embedding.table-name"),
    ],
    P + "hook-means": [
        (hooks(remove=""), "still registered", "hooks.handle-left"),
        (hooks(bind=""), "loop variable", "hooks.late-binding"),
        ("def output_grad_rms(model, x):\n"
         "    outputs, h = {}, x\n"
         "    for name, child in model.named_children():\n"
         "        h = child(h)\n"
         "        outputs[name] = h\n"
         "    grads = torch.autograd.grad(h.sum(), list(outputs.values()))\n"
         "    return {n: g.pow(2).mean().sqrt().item() for n, g in zip(outputs, grads)}\n",
         "one after another", "hooks.replay-children"),
        (hooks(value="g.pow(2).mean().sqrt()"), "0-d tensor", "hooks.tensor-not-float"),
        (hooks(value="g.norm().item()"), "√(sum of squares)", "hooks.norm-not-rms"),
        (hooks(context="with torch.no_grad():"), "do not run the model under torch.no_grad()",
         "hooks.no-graph"),
        (hooks(kept="output.detach()"), "a detached copy", "hooks.detached"),
        ("def output_grad_rms(model, x):\n"
         "    outputs, handles = {}, []\n"
         "    for name, child in model.named_children():\n"
         "        def record(module, inputs, output, name=name):\n"
         "            output.retain_grad()\n"
         "            outputs[name] = output\n"
         "        handles.append(child.register_forward_hook(record))\n"
         "    model(x).sum().backward()\n"
         "    for handle in handles:\n"
         "        handle.remove()\n"
         "    return {n: o.grad.pow(2).mean().sqrt().item() for n, o in outputs.items()}\n",
         "backward() adds into", "hooks.param-grads-left"),
        (hooks().replace("model.named_children()", "model.named_modules()"), "named_children()",
         "hooks.names"),
        (hooks().replace("{n: g.pow(2).mean().sqrt().item() for n, g in zip(names, grads)}",
                         "{n: outputs[n].pow(2).mean().sqrt().item() for n in names}"),
         "with respect to that child's output", "hooks.wrong-tensor"),
    ],
    P + "quiz-relu-depth": [
        ('answer_relu_depth = "about the same"\n', "half the", "init.relu-preserves"),
        ('answer_relu_depth = "larger"\n', "nothing makes it grow", "init.relu-grows"),
        ('answer_relu_depth = "shrinks"\n', "not one of the choices"),
    ],
    P + "quiz-grad-depth": [
        ('answer_grad_depth = "about the same"\n', "only where its unit was active",
         "init.grad-preserved"),
        ('answer_grad_depth = "larger"\n', "same weights (transposed)", "init.grad-grows"),
    ],
    P + "lsuv": [
        (lsuv(order="[m for m in model.modules() if isinstance(m, nn.Linear)]"), "registration order",
         "lsuv.order"),
        (lsuv(bias="            layer.bias.zero_()\n"), "bias=False has bias None", "lsuv.bias-none"),
        (lsuv(mode="    model.train()\n"), "moves batch norm's running statistics", "lsuv.train-mode"),
        (lsuv(mode=""), "standard deviations", "lsuv.std-not-one"),
        (lsuv(bias=""), "bias is not zero", "lsuv.bias-kept"),
        (lsuv(remove=""), "still registered", "lsuv.hooks-left"),
        (lsuv(rescale="            nn.init.kaiming_normal_(layer.weight)\n" + LSUV_RESCALE),
         "does not draw new ones", "lsuv.reinit"),
        (lsuv(rescale="            layer.weight.div_(layer.weight.std() * layer.in_features ** 0.5)\n"),
         "standard deviations", "lsuv.std-not-one"),
        (lsuv(context="if True:"), "torch.no_grad()", "init.in-place-grad"),
        (lsuv(restore=""), "modes changed", "lsuv.mode-not-restored"),
        (lsuv(restore="    model.train(modes[0][1])\n"), "modes changed", "lsuv.mode-not-restored"),
    ],
}

ALTERNATIVE = {
    P + "quiz-param-count": "answer_param_count = 3 * 4 + 2 * (4 + 1)\n",
    P + "quiz-to-inplace": "answer_to_dtypes = [True, False]\n",
    P + "fix-tensors": (
        "class FixedStandardise(nn.Module):\n"
        "    def __init__(self, mean, std):\n"
        "        super().__init__()\n"
        "        self.gain = nn.Parameter(torch.ones_like(mean))\n"
        "        for name, value in (('mean', mean.clone()), ('std', std.clone())):\n"
        "            self.register_buffer(name, value, persistent=True)\n"
        "        self.register_buffer('largest', torch.zeros_like(mean), persistent=False)\n\n"
        "    def forward(self, x):\n"
        "        z = (x - self.mean) / self.std\n"
        "        self.largest = z.detach().abs().amax(0)\n"
        "        return z * self.gain\n"
    ),
    P + "fix-list": (
        "class Stack(nn.Module):\n"
        "    def __init__(self, block, depth):\n"
        "        super().__init__()\n"
        "        self.layers = nn.Sequential(*(copy.deepcopy(block) for _ in range(depth)))\n\n"
        "    def forward(self, x):\n"
        "        return self.layers(x)\n"
    ),
    P + "quiz-batch-shape": "answer_batch_shape = torch.Size([4, 9, 7])\n",
    P + "param-budget": (
        "def widest_hidden(d_in, d_out, budget):\n"
        "    per_unit = d_in + 1 + d_out  # each hidden unit: its weights, its bias, its outputs\n"
        "    if budget < d_out + per_unit:\n"
        "        return 0\n"
        "    return int((budget - d_out) // per_unit)\n"
    ),
    P + "merge-linear": (
        "def merge_linears(first, second):\n"
        "    merged = nn.Linear(first.in_features, second.out_features)\n"
        "    weight = (first.weight.T @ second.weight.T).T\n"
        "    bias = second(first.bias.unsqueeze(0)).squeeze(0)\n"
        "    merged.weight = nn.Parameter(weight.detach().clone())\n"
        "    merged.bias = nn.Parameter(bias.detach().clone())\n"
        "    return merged\n"
    ),
    P + "quiz-dropout-value": "answer_dropout_value = 1 / (1 - 0.2)\n",
    P + "quiz-eval-freezes": "answer_eval_freezes = bool(0)\n",
    P + "predict": (
        "def predict(model, x):\n"
        "    saved = [(m, m.training) for m in model.modules()]\n"
        "    try:\n"
        "        model.train(False)\n"
        "        with torch.inference_mode():\n"
        "            return model(x)\n"
        "    finally:\n"
        "        for m, flag in saved:  # parents first: each call resets a subtree, children come after\n"
        "            m.train(flag)\n"
    ),
    P + "load-checkpoint": (
        "def load_checkpoint(path):\n"
        "    torch.serialization.add_safe_globals([TrainConfig])\n"
        "    checkpoint = torch.load(path, map_location='cpu')\n"
        "    prefix = '_orig_mod.'\n"
        "    state = {k[len(prefix):] if k.startswith(prefix) else k: v\n"
        "             for k, v in checkpoint['model'].items()}\n"
        "    model = make_model(checkpoint['config'])\n"
        "    missing, unexpected = model.load_state_dict(state, strict=False)\n"
        "    if missing or unexpected:\n"
        "        raise KeyError(f'checkpoint does not match the model: {missing} {unexpected}')\n"
        "    return model.eval(), int(checkpoint['epoch'])\n"
    ),
    P + "freeze": (
        "def freeze_all_but_last(model):\n"
        "    for p in model[:-1].parameters():\n"
        "        p.requires_grad_(False)\n"
        "        p.grad = None\n"
        "    def stored_statistics(module, args):  # whatever train() said, eval() for this pass\n"
        "        module.eval()  # (returns None: the input goes on unchanged)\n"
        "    for m in model[:-1].modules():\n"
        "        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):\n"
        "            m.register_forward_pre_hook(stored_statistics)\n"
        "    return int(sum(p.numel() for p in model[-1].parameters()))\n"
    ),
    P + "mean-embedding": (
        "class MeanEmbedding(nn.Module):\n"
        "    def __init__(self, num_embeddings, dim, pad):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.empty(num_embeddings, dim).normal_())\n"
        "        self.pad = pad\n\n"
        "    def forward(self, tokens):\n"
        "        real = tokens != self.pad\n"
        "        rows = F.embedding(tokens, self.weight) * real.unsqueeze(-1)\n"
        "        counts = real.sum(1, keepdim=True)\n"
        "        return torch.where(counts > 0, rows.sum(1) / counts.clamp(min=1), 0.0)\n"
    ),
    P + "quiz-relu-depth": "answer_relu_depth = 'small' + 'er'\n",
    P + "quiz-grad-depth": "answer_grad_depth = 'smaller'\n",
    P + "hook-means": (
        "def output_grad_rms(model, x):\n"
        "    saved = {p: None if p.grad is None else p.grad.clone() for p in model.parameters()}\n"
        "    kept = {}\n"
        "\n"
        "    def keep(key):\n"
        "        def hook(module, inputs, output):  # returns None: a returned value replaces the output\n"
        "            output.retain_grad()\n"
        "            kept[key] = output\n"
        "        return hook\n"
        "\n"
        "    handles = [child.register_forward_hook(keep(name)) for name, child in model.named_children()]\n"
        "    try:\n"
        "        model(x).sum().backward()\n"
        "    finally:\n"
        "        for h in handles:\n"
        "            h.remove()\n"
        "        for p, g in saved.items():\n"
        "            p.grad = g\n"
        "    return {k: float(o.grad.norm() / o.numel() ** 0.5) for k, o in kept.items()}\n"
    ),
    P + "lsuv": (
        "def lsuv_init_(model, x):\n"
        "    saved = [(m, m.training) for m in model.modules()]  # parents before children\n"
        "    order = []\n"
        "    hooks = [m.register_forward_pre_hook(lambda m, args: order.append(m))\n"
        "             for m in model.modules() if isinstance(m, nn.Linear)]\n"
        "    try:\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            model(x)\n"
        "            for h in hooks:\n"
        "                h.remove()\n"
        "            for layer in order:\n"
        "                if layer.bias is not None:\n"
        "                    layer.bias.zero_()\n"
        "                for _ in range(2):  # the second pass finds std 1 and changes nothing\n"
        "                    seen = []\n"
        "                    h = layer.register_forward_hook(lambda m, i, o: seen.append(o.std()))\n"
        "                    model(x)\n"
        "                    h.remove()\n"
        "                    layer.weight.mul_(1 / seen[0])\n"
        "    finally:\n"
        "        for h in hooks:\n"
        "            h.remove()\n"
        "        for m, flag in saved:\n"
        "            m.train(flag)\n"
        "    return model\n"
    ),
}
