"""The misconceptions that notebook 03_modules's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

_M = "03_modules-"
ENTRIES: dict[str, Misconception] = {
    "dropout.divide-by-p": Misconception(
        "dropout scales the survivors by 1/p",
        (_M + "quiz-dropout-value",)),
    "dropout.multiply-keep": Misconception(
        "dropout multiplies the survivors by the keep probability (or by p)",
        (_M + "quiz-dropout-value",)),
    "dropout.no-rescale": Misconception(
        "dropout zeroes elements and leaves the survivors unchanged",
        (_M + "quiz-dropout-value",)),
    "freeze.count": Misconception(
        "the trainable count is the number of parameter tensors, or need not be an int",
        (_M + "freeze",)),
    "freeze.last-frozen": Misconception(
        "freezing everything but the last layer also freezes the last layer",
        (_M + "freeze",)),
    "freeze.module-attribute": Misconception(
        "module.requires_grad = False (or eval()) freezes a module's parameters",
        (_M + "freeze",)),
    "freeze.partial": Misconception(
        "freezing the first layer freezes everything before the head",
        (_M + "freeze",)),
    "gated.init": Misconception(
        "a custom layer's biases may start at any value",
        (_M + "gated",)),
    "gated.names": Misconception(
        "a custom layer may hold its weights under other names or inside nn.Linear submodules",
        (_M + "gated",)),
    "gated.no-gate": Misconception(
        "the gated layer returns its value branch without the gate",
        (_M + "gated",)),
    "gated.no-sigmoid": Misconception(
        "the gate multiplies the value without being squashed by a sigmoid",
        (_M + "gated",)),
    "hooks.handle-left": Misconception(
        "a forward hook goes away by itself after the call that used it",
        (_M + "hook-means",)),
    "hooks.late-binding": Misconception(
        "a hook defined in a loop remembers the loop variable's value at definition",
        (_M + "hook-means",)),
    "hooks.names": Misconception(
        "hook results can be keyed by anything other than the children's names",
        (_M + "hook-means",)),
    "hooks.replay-children": Misconception(
        "running a model's children one after another reproduces its forward",
        (_M + "hook-means",)),
    "init.quiz-format": Misconception(
        "the depth quiz accepts a free-form answer",
        (_M + "quiz-relu-depth",)),
    "init.relu-grows": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) make activations grow with depth",
        (_M + "quiz-relu-depth",)),
    "init.relu-preserves": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) keep the activations' spread",
        (_M + "quiz-relu-depth",)),
    "linear.bias-shape": Misconception(
        "a Linear layer's bias (or weight) shape follows d_in, or the bias is two-dimensional",
        (_M + "gated", _M + "quiz-weight-shape",)),
    "linear.no-bias": Misconception(
        "a Linear layer computes x W^T without a bias",
        (_M + "linear-by-hand",)),
    "linear.weight-layout": Misconception(
        "nn.Linear stores its weight as (d_in, d_out) and computes x @ W",
        (_M + "gated", _M + "linear-by-hand", _M + "quiz-weight-shape",)),
    "mode.eval-freezes": Misconception(
        "model.eval() stops backward and the optimizer from changing the weights",
        (_M + "quiz-eval-freezes",)),
    "modules.buffer-is-parameter": Misconception(
        "a registered buffer is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.layer-sizes": Misconception(
        "a layer stack's Linear sizes need not follow consecutive pairs of sizes",
        (_M + "fix-list",)),
    "modules.no-super-init": Misconception(
        "a module's __init__ can assign layers without calling super().__init__()",
        (_M + "fix-list", _M + "gated",)),
    "modules.plain-tensor": Misconception(
        "a tensor with requires_grad=True assigned to an attribute is a registered parameter",
        (_M + "gated",)),
    "modules.plain-tensor-registered": Misconception(
        "a plain tensor attribute is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.python-list": Misconception(
        "layers kept in a Python list are registered with the module",
        (_M + "fix-list",)),
    "modules.relu-placement": Misconception(
        "a ReLU belongs after every layer, the output layer included (or nowhere)",
        (_M + "fix-list",)),
    "modules.submodule-not-counted": Misconception(
        "parameters() lists only the module's own Parameters, not its submodules'",
        (_M + "quiz-param-count",)),
    "params.bias-per-input": Misconception(
        "a Linear layer's bias has one entry per input",
        (_M + "count-params",)),
    "params.forget-bias": Misconception(
        "a Linear layer has d_in*d_out parameters (no bias)",
        (_M + "count-params",)),
    "params.input-bias": Misconception(
        "every size in an MLP's list contributes a bias, the input included",
        (_M + "count-params",)),
    "predict.dropout-active": Misconception(
        "a prediction can run in training mode (dropout and batch statistics active)",
        (_M + "predict",)),
    "predict.graph-recorded": Misconception(
        "a prediction needs no torch.no_grad(): recording the graph costs nothing",
        (_M + "predict",)),
    "predict.mode-not-restored": Misconception(
        "a helper may leave the model in eval mode (or always switch it back to train)",
        (_M + "predict",)),
    "predict.model-not-called": Misconception(
        "a prediction helper need not call the model it was given",
        (_M + "predict",)),
    "state-dict.mode": Misconception(
        "a freshly loaded model is ready for predictions without eval()",
        (_M + "load-safely",)),
    "state-dict.not-loaded": Misconception(
        "building the model is enough; the saved weights need not be loaded into it",
        (_M + "load-safely",)),
    "state-dict.returns-dict": Misconception(
        "loading weights returns the state_dict rather than the model",
        (_M + "load-safely",)),
    "state-dict.trust-pickle": Misconception(
        "torch.load(..., weights_only=False) of any file is safe: a file only holds data",
        (_M + "load-safely",)),
}
