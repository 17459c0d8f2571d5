"""The misconceptions that notebook 02_autograd's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    "accumulate.last-chunk": Misconception(
        "every chunk weighs the nominal chunk size, the shorter last one too",
        ("02_autograd-accumulate",)),
    "accumulate.one-pass-per-chunk": Misconception(
        "accumulating over chunks may compute the whole batch at once",
        ("02_autograd-accumulate",)),
    "accumulate.restore-grad": Misconception(
        "a helper may leave .grad as it found it changed (reset, zeroed or holding its own sum)",
        ("02_autograd-accumulate",)),
    "accumulate.stale-grad": Misconception(
        "backward overwrites .grad, so a value already there does not matter",
        ("02_autograd-accumulate",)),
    "accumulate.unweighted-means": Misconception(
        "micro-batch means add up to the full-batch mean without weights",
        ("02_autograd-accumulate",)),
    "accumulate.weighting": Misconception(
        "gradient accumulation needs neither a clean .grad nor per-chunk weights",
        ("02_autograd-accumulate",)),
    "autograd.accumulate-multiplies": Misconception(
        "repeated backward calls multiply .grad",
        ("02_autograd-quiz-accumulate",)),
    "autograd.adjoint-add": Misconception(
        "a zero of one path's adjoint is a zero of the total",
        ("02_autograd-quiz-seed",)),
    "autograd.all-leaves": Misconception(
        "every tensor (or none) in a chain is a leaf",
        ("02_autograd-quiz-leaves",)),
    "autograd.chain-rule": Misconception(
        "a.grad in the seed graph is something other than the sum of its two paths' adjoints",
        ("02_autograd-quiz-seed",)),
    "autograd.computed-is-intermediate": Misconception(
        "every computed tensor is an intermediate, even when nothing it came from requires grad",
        ("02_autograd-quiz-leaves",)),
    "autograd.detach-cuts-all": Misconception(
        "a result with a detached input is cut from the graph, even when another input requires grad",
        ("02_autograd-quiz-no-grad",)),
    "autograd.fanout-inside-q": Misconception(
        "a variable used twice inside one expression contributes once",
        ("02_autograd-fanout",)),
    "autograd.fanout-overwrite": Misconception(
        "a leaf used on two paths gets the adjoint of the last path, not the sum",
        ("02_autograd-walk",)),
    "autograd.frozen-formula": Misconception(
        "a.grad = 16b + 16 holds for every b",
        ("02_autograd-quiz-seed",)),
    "autograd.grad-overwrites": Misconception(
        "each backward replaces .grad",
        ("02_autograd-quiz-accumulate",)),
    "autograd.leaf-definition": Misconception(
        "a leaf must require grad",
        ("02_autograd-quiz-leaves",)),
    "autograd.leaf-needs-grad": Misconception(
        "only tensors that require grad are leaves",
        ("02_autograd-quiz-leaves",)),
    "autograd.local-derivative": Misconception(
        "the derivative of x² is x",
        ("02_autograd-quiz-accumulate",)),
    "autograd.no-grad-inherits": Misconception(
        "results computed under no_grad still require grad",
        ("02_autograd-quiz-no-grad",)),
    "autograd.no-grad-lasts": Misconception(
        "a result of a no_grad tensor never requires grad, even computed later with one that does",
        ("02_autograd-quiz-no-grad",)),
    "autograd.no-grad-switches-off": Misconception(
        "no_grad switches requires_grad off on the tensors updated inside it",
        ("02_autograd-quiz-no-grad",)),
    "autograd.one-path": Misconception(
        "a gradient follows one path from a variable to the output",
        ("02_autograd-quiz-seed", "02_autograd-fanout")),
    "autograd.product-rule": Misconception(
        "the two parts of the product rule multiply",
        ("02_autograd-fanout",)),
    "autograd.quiz-type": Misconception(
        "a count, number or boolean quiz can be answered with another type",
        ("02_autograd-quiz-leaves", "02_autograd-quiz-seed", "02_autograd-fanout",
         "02_autograd-quiz-accumulate", "02_autograd-quiz-no-grad", "02_autograd-quiz-walk-calls")),
    "function.backward": Misconception(
        "a custom backward need not return grad_out times the local derivative",
        ("02_autograd-function",)),
    "function.forward": Misconception(
        "a custom forward may compute something other than the function",
        ("02_autograd-function",)),
    "function.ignores-grad-out": Misconception(
        "backward returns the local derivative alone, without grad_out",
        ("02_autograd-function",)),
    "function.one-grad-per-input": Misconception(
        "backward may return fewer gradients than forward has inputs, or in another order",
        ("02_autograd-function",)),
    "function.save-for-backward": Misconception(
        "backward can read what forward never saved",
        ("02_autograd-function",)),
    "function.scale-factor": Misconception(
        "a factor that multiplies a function drops out of its derivative",
        ("02_autograd-function",)),
    "function.scale-grad": Misconception(
        "a one-element input used by every entry needs no gradient, or the mean of its adjoints",
        ("02_autograd-function",)),
    "function.wrong-derivative": Misconception(
        "the derivative of tanh(x) is 1 - tanh(x) or 1 - x² (anything but 1 - tanh(x)²)",
        ("02_autograd-function",)),
    "hvp.built-hessian": Misconception(
        "H·v may be computed by building H (or its rows), n backward passes",
        ("02_autograd-hvp",)),
    "hvp.caller-x": Misconception(
        "computing H·v for a caller may change its x (requires_grad, values or .grad)",
        ("02_autograd-hvp",)),
    "hvp.create-graph": Misconception(
        "a gradient computed without create_graph can be differentiated again",
        ("02_autograd-hvp",)),
    "hvp.first-order": Misconception(
        "H·v is the gradient times v, entry by entry",
        ("02_autograd-hvp",)),
    "hvp.library": Misconception(
        "a Hessian-vector product has to come from a library's hvp or hessian",
        ("02_autograd-hvp",)),
    "hvp.ones": Misconception(
        "H·v is the gradient of the summed gradient (that is H·1)",
        ("02_autograd-hvp",)),
    "hvp.rule": Misconception(
        "H·v comes some other way than differentiating ∇f(x)·v again",
        ("02_autograd-hvp",)),
    "mlp.bias-sum": Misconception(
        "a bias gradient is the batch mean of the adjoint, or keeps the batch dim",
        ("02_autograd-mlp-backward",)),
    "mlp.linear-rules": Misconception(
        "a Linear layer's backward (dW, db, dh) need not follow from its shapes and the chain rule",
        ("02_autograd-mlp-backward",)),
    "mlp.mean-factor": Misconception(
        "the mean's 1/M over all elements can be left out or taken over one dim only",
        ("02_autograd-mlp-backward",)),
    "mlp.missing-factor-2": Misconception(
        "the derivative of a squared error (y − t)² is (y − t)",
        ("02_autograd-mlp-backward",)),
    "mlp.relu-mask": Misconception(
        "the ReLU passes every adjoint backwards",
        ("02_autograd-mlp-backward",)),
    "mlp.tied-one-path": Misconception(
        "a weight used twice (tied) gets the gradient of one use only",
        ("02_autograd-mlp-backward",)),
    "mlp.used-autograd": Misconception(
        "a backward derived by hand may call autograd to get its gradients",
        ("02_autograd-mlp-backward",)),
    "mlp.weight-grad-transpose": Misconception(
        "a weight's gradient has the same form whichever way round the weight multiplies",
        ("02_autograd-mlp-backward",)),
    "ste.detached-all": Misconception(
        "detaching the whole result keeps a gradient",
        ("02_autograd-ste",)),
    "ste.identity-backward": Misconception(
        "a straight-through estimator may scale or mix the gradient arriving at it",
        ("02_autograd-ste",)),
    "ste.rule": Misconception(
        "a straight-through estimator's value and gradient come from one expression",
        ("02_autograd-ste",)),
    "ste.sign-flat": Misconception(
        "torch.sign passes a gradient",
        ("02_autograd-ste",)),
    "ste.unclipped": Misconception(
        "a clipped straight-through estimator passes the gradient outside its window too",
        ("02_autograd-ste",)),
    "ste.value": Misconception(
        "the estimator's value may differ from torch.round(x)",
        ("02_autograd-ste",)),
    "ste.window-edges": Misconception(
        "the window [-1, 1] of a clipped estimator leaves out its ends",
        ("02_autograd-ste",)),
    "vjp.caller-grad": Misconception(
        "computing gradients for a caller may change its tensor (its requires_grad or .grad)",
        ("02_autograd-vjp",)),
    "vjp.full-jacobian": Misconception(
        "per-sample gradients have to come from a library's Jacobian",
        ("02_autograd-vjp",)),
    "vjp.leaf": Misconception(
        "autograd can differentiate with respect to a tensor that does not require grad",
        ("02_autograd-vjp",)),
    "vjp.retain-graph": Misconception(
        "a graph can be walked backward again after its saved tensors were freed",
        ("02_autograd-vjp",)),
    "vjp.rows": Misconception(
        "per-sample gradients come some other way than one vector-Jacobian product per sample",
        ("02_autograd-vjp",)),
    "vjp.rows-accumulate": Misconception(
        "repeated backward passes leave each sample's gradient alone in .grad",
        ("02_autograd-vjp",)),
    "vjp.rows-are-outputs": Misconception(
        "per-sample gradients have one row per parameter entry",
        ("02_autograd-vjp",)),
    "vjp.sum-is-vjp": Misconception(
        "the gradient of the summed loss is every sample's gradient",
        ("02_autograd-vjp",)),
    "walk.calls-per-node": Misconception(
        "a walk along every path calls each node once, or twice",
        ("02_autograd-quiz-walk-calls",)),
    "walk.every-path": Misconception(
        "backward follows every path (exponential in depth) instead of calling each node once",
        ("02_autograd-quiz-walk-calls", "02_autograd-walk")),
    "walk.first-input-only": Misconception(
        "a node's gradient goes only to its first input",
        ("02_autograd-walk",)),
    "walk.leaf-calls": Misconception(
        "a leaf's AccumulateGrad counts as a node call",
        ("02_autograd-quiz-walk-calls",)),
    "walk.leaf-total": Misconception(
        "a leaf's gradient need not be collected at its AccumulateGrad node",
        ("02_autograd-walk",)),
    "walk.node-call": Misconception(
        "grad_fn nodes cannot be called on an adjoint",
        ("02_autograd-walk",)),
    "walk.order": Misconception(
        "a node may be called as soon as one adjoint reaches it, before all its consumers have "
        "sent theirs",
        ("02_autograd-walk",)),
    "walk.paths-double": Misconception(
        "a per-path walk calls its lowest node 2^depth times in all, not 1 + 2 + … over the nodes",
        ("02_autograd-quiz-walk-calls",)),
    "walk.unused-leaf": Misconception(
        "a leaf the output does not use gets a zero gradient rather than None",
        ("02_autograd-walk",)),
    "walk.used-autograd": Misconception(
        "walking grad_fn by hand may call backward",
        ("02_autograd-walk",)),
}
