"""The misconceptions that notebook 03_modules's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

_M = "03_modules-"
ENTRIES: dict[str, Misconception] = {
    "budget.at-most": Misconception(
        "a parameter budget of 'at most' N excludes a model of exactly N parameters",
        (_M + "param-budget",)),
    "budget.negative": Misconception(
        "when no width fits a budget, the answer is a negative width (or 1) rather than 0",
        (_M + "param-budget",)),
    "budget.round-up": Misconception(
        "the widest layer within a budget is the exact quotient rounded to the nearest "
        "width",
        (_M + "param-budget",)),
    "budget.whole-units": Misconception(
        "a layer width can be a float (or a tensor) rather than a whole number",
        (_M + "param-budget",)),
    "buffers.forward": Misconception(
        "fixing a module's registrations may change what its forward computes",
        (_M + "fix-tensors",)),
    "buffers.learned-buffer": Misconception(
        "a learned tensor can be registered as a buffer and still be trained",
        (_M + "fix-tensors",)),
    "buffers.persistent": Misconception(
        "every buffer belongs in state_dict(), also one rebuilt by each forward pass",
        (_M + "fix-tensors",)),
    "buffers.plain-tensor": Misconception(
        "a plain tensor attribute is saved and moved by .to() like a buffer",
        (_M + "fix-tensors",)),
    "buffers.stats-as-parameter": Misconception(
        "fixed statistics (a mean, a std) belong in nn.Parameter",
        (_M + "fix-tensors",)),
    "conv.bias-per-input": Misconception(
        "a convolution has one bias per input channel",
        (_M + "quiz-conv-params",)),
    "conv.no-bias": Misconception(
        "a convolution's parameters are its filter weights only, without biases",
        (_M + "quiz-conv-params",)),
    "conv.one-input-channel": Misconception(
        "a convolution filter spans one input channel, not all of them",
        (_M + "quiz-conv-params",)),
    "conv.weights-per-position": Misconception(
        "a convolution has separate weights for every position of the image",
        (_M + "quiz-conv-params",)),
    "dropout.divide-by-p": Misconception(
        "dropout scales the survivors by 1/p",
        (_M + "quiz-dropout-value",)),
    "dropout.multiply-keep": Misconception(
        "dropout multiplies the survivors by the keep probability (or by p)",
        (_M + "quiz-dropout-value",)),
    "dropout.no-rescale": Misconception(
        "dropout zeroes elements and leaves the survivors unchanged",
        (_M + "quiz-dropout-value",)),
    "embedding.bag-called": Misconception(
        "a layer asked to compute a masked mean may hand the whole task to "
        "F.embedding_bag",
        (_M + "mean-embedding",)),
    "embedding.dense-grad": Misconception(
        "every row of an embedding table gets a gradient, read or not",
        (_M + "quiz-embedding-rows",)),
    "embedding.empty-nan": Misconception(
        "a mean over a padding-only sentence needs no guard against 0 / 0",
        (_M + "mean-embedding",)),
    "embedding.forward": Misconception(
        "an embedding layer's forward need not take a (N, L) batch of token ids",
        (_M + "mean-embedding",)),
    "embedding.init": Misconception(
        "an embedding table may start from any values, not N(0, 1)",
        (_M + "mean-embedding",)),
    "embedding.pad-counted": Misconception(
        "padding tokens count in a sentence's mean",
        (_M + "mean-embedding",)),
    "embedding.pad-trained": Misconception(
        "a zero padding row stays zero in training even when forward reads it",
        (_M + "mean-embedding",)),
    "embedding.row-per-token": Misconception(
        "an embedding's gradient has one row per token read, not per table row",
        (_M + "quiz-embedding-rows",)),
    "embedding.sum-not-mean": Misconception(
        "the sum of a sentence's embeddings stands for their mean",
        (_M + "mean-embedding",)),
    "embedding.table-name": Misconception(
        "an embedding layer's table may live in a submodule or under another name than weight",
        (_M + "mean-embedding",)),
    "embedding.table-shape": Misconception(
        "an embedding table is stored (dim, num_embeddings)",
        (_M + "mean-embedding",)),
    "embedding.zero-is-padding": Misconception(
        "token id 0 always means padding",
        (_M + "mean-embedding", _M + "quiz-embedding-rows")),
    "freeze.buffers-move": Misconception(
        "frozen parameters also freeze batch norm's running statistics",
        (_M + "freeze",)),
    "freeze.count": Misconception(
        "the trainable count is the number of parameter tensors, or need not be an int",
        (_M + "freeze",)),
    "freeze.keys-changed": Misconception(
        "a fine-tuning change may rename or drop state_dict entries",
        (_M + "freeze",)),
    "freeze.last-frozen": Misconception(
        "freezing everything but the last layer also freezes the last layer",
        (_M + "freeze",)),
    "freeze.last-leaf": Misconception(
        "the last layer of a model is the last entry of modules(), even when it ends in "
        "a block",
        (_M + "freeze",)),
    "freeze.mode-changed": Misconception(
        "to stop batch norm's statistics, the whole backbone (dropout too) goes to eval()",
        (_M + "freeze",)),
    "freeze.module-attribute": Misconception(
        "module.requires_grad = False (or eval()) freezes a module's parameters",
        (_M + "freeze",)),
    "freeze.partial": Misconception(
        "freezing the first layer freezes everything before the head",
        (_M + "freeze",)),
    "freeze.stale-grad": Misconception(
        "requires_grad_(False) also clears the .grad a parameter already holds",
        (_M + "freeze",)),
    "freeze.train-undoes-eval": Misconception(
        "putting batch norm in eval() keeps its statistics fixed through a loop that "
        "calls model.train()",
        (_M + "freeze",)),
    "hooks.detached": Misconception(
        "a detached copy of an activation still leads back to the loss",
        (_M + "hook-means",)),
    "hooks.handle-left": Misconception(
        "a forward hook goes away by itself after the call that used it",
        (_M + "hook-means",)),
    "hooks.late-binding": Misconception(
        "a hook defined in a loop remembers the loop variable's value at definition",
        (_M + "hook-means",)),
    "hooks.names": Misconception(
        "hook results can be keyed by anything other than the children's names",
        (_M + "hook-means",)),
    "hooks.no-graph": Misconception(
        "gradients of activations can be measured from a pass run under torch.no_grad()",
        (_M + "hook-means",)),
    "hooks.norm-not-rms": Misconception(
        "the root mean square of a gradient is its norm (no division by the number of "
        "entries)",
        (_M + "hook-means",)),
    "hooks.param-grads-left": Misconception(
        "measuring gradients with backward() leaves the parameters' .grad as they were",
        (_M + "hook-means",)),
    "hooks.replay-children": Misconception(
        "running a model's children one after another reproduces its forward",
        (_M + "hook-means",)),
    "hooks.tensor-not-float": Misconception(
        "a 0-d tensor is as good as a Python float for a recorded statistic",
        (_M + "hook-means",)),
    "hooks.wrong-tensor": Misconception(
        "a hook may record the gradient of its module's input (or another tensor) where "
        "the output's is asked for",
        (_M + "hook-means",)),
    "init.grad-grows": Misconception(
        "with std 1/sqrt(fan_in), ReLU stacks make the gradient grow on the way back",
        (_M + "quiz-grad-depth",)),
    "init.grad-preserved": Misconception(
        "with std 1/sqrt(fan_in), ReLU stacks keep the gradient's size on the way back",
        (_M + "quiz-grad-depth",)),
    "init.in-place-grad": Misconception(
        "a parameter can be refilled in place while autograd records",
        (_M + "lsuv", _M + "merge-linear")),
    "init.other-modules": Misconception(
        "re-initialising a model may reset every parameter, batch norm's included",
        (_M + "lsuv",)),
    "init.relu-grows": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) make activations grow with depth",
        (_M + "quiz-relu-depth",)),
    "init.relu-preserves": Misconception(
        "ReLU layers with weights of std 1/sqrt(fan_in) keep the activations' spread",
        (_M + "quiz-relu-depth",)),
    "init.return": Misconception(
        "an in-place initialisation function need not return the model",
        (_M + "lsuv",)),
    "linear.flattens-batch": Misconception(
        "nn.Linear merges or drops the leading dimensions of its input",
        (_M + "quiz-batch-shape",)),
    "linear.keeps-width": Misconception(
        "nn.Linear keeps the last dimension's size",
        (_M + "quiz-batch-shape",)),
    "linear.needs-2d": Misconception(
        "nn.Linear only accepts 2-D input (N, d_in)",
        (_M + "quiz-batch-shape",)),
    "linear.weight-layout": Misconception(
        "nn.Linear stores its weight as (d_in, d_out) and computes x @ W",
        (_M + "merge-linear",)),
    "linear.weight-not-output": Misconception(
        "a Linear layer's output has the shape of its weight",
        (_M + "quiz-batch-shape",)),
    "load.allow-list": Misconception(
        "weights_only loading accepts objects of any class, or must be turned off for "
        "them",
        (_M + "load-checkpoint",)),
    "load.config": Misconception(
        "a checkpoint's model can be built without the config stored in the file",
        (_M + "load-checkpoint",)),
    "load.prefix": Misconception(
        "a state_dict saved inside a wrapper loads into the bare model as it is",
        (_M + "load-checkpoint",)),
    "load.return-pair": Misconception(
        "loading a checkpoint returns only the model (or the raw dictionary)",
        (_M + "load-checkpoint",)),
    "load.strict-false": Misconception(
        "strict=False is a safe way to make a checkpoint load",
        (_M + "load-checkpoint",)),
    "lsuv.bias-kept": Misconception(
        "rescaling a layer's weight rescales its output's spread even with a bias left in",
        (_M + "lsuv",)),
    "lsuv.bias-none": Misconception(
        "every nn.Linear has a bias to set",
        (_M + "lsuv",)),
    "lsuv.grad-changed": Misconception(
        "measuring activations may leave gradients in .grad",
        (_M + "lsuv",)),
    "lsuv.hooks-left": Misconception(
        "hooks used to measure may stay on the model",
        (_M + "lsuv",)),
    "lsuv.mode-not-restored": Misconception(
        "an initialiser may leave the model in eval mode",
        (_M + "lsuv",)),
    "lsuv.order": Misconception(
        "modules() lists layers in the order forward calls them",
        (_M + "lsuv",)),
    "lsuv.reinit": Misconception(
        "a data-driven init may draw new weights instead of rescaling the existing ones",
        (_M + "lsuv",)),
    "lsuv.std-not-one": Misconception(
        "rescaling the weights to a unit spread gives each layer's output a unit spread",
        (_M + "lsuv",)),
    "lsuv.train-mode": Misconception(
        "measuring in training mode leaves batch norm's statistics alone",
        (_M + "lsuv",)),
    "merge.assign-tensor": Misconception(
        "a module's Parameter can be replaced by a plain tensor computed from others",
        (_M + "merge-linear",)),
    "merge.bias": Misconception(
        "the bias of two merged Linear layers ignores the first bias or its path "
        "through W2",
        (_M + "merge-linear",)),
    "merge.modified-inputs": Misconception(
        "merging layers may overwrite the layers it was given",
        (_M + "merge-linear",)),
    "merge.not-one-layer": Misconception(
        "merging two layers may return a container of both",
        (_M + "merge-linear",)),
    "merge.shapes": Misconception(
        "two layers' weights and biases combine without following their shapes",
        (_M + "merge-linear",)),
    "mode.eval-freezes": Misconception(
        "model.eval() stops backward and the optimizer from changing the weights",
        (_M + "quiz-eval-freezes",)),
    "modules.buffer-is-parameter": Misconception(
        "a registered buffer is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.no-super-init": Misconception(
        "a module's __init__ can assign layers without calling super().__init__()",
        (_M + "fix-list", _M + "fix-tensors", _M + "mean-embedding")),
    "modules.plain-tensor": Misconception(
        "a tensor with requires_grad=True assigned to an attribute is a registered "
        "parameter",
        (_M + "fix-tensors", _M + "mean-embedding")),
    "modules.plain-tensor-registered": Misconception(
        "a plain tensor attribute is listed by parameters()",
        (_M + "quiz-param-count",)),
    "modules.python-list": Misconception(
        "layers kept in a Python list are registered with the module",
        (_M + "fix-list",)),
    "modules.shared-copies": Misconception(
        "a container holding one module object several times holds independent copies",
        (_M + "fix-list",)),
    "modules.submodule-not-counted": Misconception(
        "parameters() lists only the module's own Parameters, not its submodules'",
        (_M + "quiz-param-count",)),
    "params.bias-per-input": Misconception(
        "a Linear layer's bias has one entry per input",
        (_M + "param-budget",)),
    "params.forget-bias": Misconception(
        "a Linear layer has d_in*d_out parameters (no bias)",
        (_M + "param-budget",)),
    "predict.delegates": Misconception(
        "the restore this exercise asks for may be handed to helpers.modes, which does it",
        (_M + "predict",)),
    "predict.dropout-active": Misconception(
        "a prediction can run in training mode (dropout and batch statistics active)",
        (_M + "predict",)),
    "predict.grad-mode-left": Misconception(
        "torch.set_grad_enabled(False) affects the prediction only, not the code after it",
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
    "predict.one-flag-restored": Misconception(
        "restoring the top-level mode (train(was)) restores every submodule's mode",
        (_M + "predict",)),
    "predict.output-changed": Misconception(
        "a prediction helper may return something other than the model's output tensor",
        (_M + "predict",)),
    "stack.block-reused": Misconception(
        "the block passed in can itself be one of the stack's copies",
        (_M + "fix-list",)),
    "stack.depth": Misconception(
        "a stack of depth copies may hold one more or one fewer",
        (_M + "fix-list",)),
    "stack.forward": Misconception(
        "a stack's forward need not apply every copy to the previous output",
        (_M + "fix-list",)),
    "stack.fresh-copies": Misconception(
        "a new layer of the same shape is a copy of a block (it starts from new random "
        "values)",
        (_M + "fix-list",)),
    "state-dict.mode": Misconception(
        "a freshly loaded model is ready for predictions without eval()",
        (_M + "load-checkpoint",)),
    "state-dict.not-loaded": Misconception(
        "building the model is enough; the saved weights need not be loaded into it",
        (_M + "load-checkpoint",)),
    "state-dict.trust-pickle": Misconception(
        "torch.load(..., weights_only=False) of any file is safe: a file only holds data",
        (_M + "load-checkpoint",)),
    "to.module-copy": Misconception(
        "Module.to returns a converted copy and leaves the module as it was",
        (_M + "quiz-to-inplace",)),
    "to.tensor-in-place": Misconception(
        "Tensor.to converts the tensor in place, like Module.to",
        (_M + "quiz-to-inplace",)),
}
