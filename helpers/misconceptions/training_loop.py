"""The misconceptions that notebook 04_training_loop's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

_T = "04_training_loop-"
ENTRIES: dict[str, Misconception] = {
    "sgd.step-adds-gradient": Misconception(
        "an SGD step adds lr × gradient to the weight instead of subtracting it", (_T + "quiz-sgd",)),
    "sgd.forgets-theta": Misconception(
        "the update replaces θ with −lr × gradient instead of moving θ by it", (_T + "quiz-sgd",)),
    "loop.grad-overwritten": Misconception(
        "each backward overwrites .grad, so zero_grad is optional", (_T + "quiz-no-zero-grad",)),
    "loop.step-waits-for-backward": Misconception(
        "optimizer.step() uses the gradient of the current batch wherever it is placed",
        (_T + "quiz-step-first",)),
    "lr.smaller-is-better": Misconception(
        "a smaller learning rate always reaches a lower loss in the same number of steps",
        (_T + "quiz-learning-rate",)),
    "loss.ce-takes-probabilities": Misconception(
        "CrossEntropyLoss expects probabilities (a softmax output) rather than raw logits",
        (_T + "quiz-double-softmax",)),
    "loop.tensor-losses": Misconception(
        "logging loss tensors is harmless; .item() is only cosmetic", (_T + "train-epoch",)),
    "loop.drops-last-batch": Misconception(
        "a range over batches stops before a last, smaller batch is needed", (_T + "train-epoch",)),
    "loop.one-loss-per-batch": Misconception(
        "the loop may log losses at another rate than once per batch", (_T + "train-epoch",)),
    "loop.one-step-per-batch": Misconception(
        "the optimizer steps at another rate than once per batch", (_T + "train-epoch",)),
    "loop.step-before-backward": Misconception(
        "the order of step and backward in the loop does not matter", (_T + "train-epoch",)),
    "loop.no-zero-grad": Misconception(
        "gradients start from zero at each backward without zero_grad", (_T + "train-epoch",)),
    "loop.wrong-batch": Misconception(
        "batches can be sliced loosely (overlapping, skipped or out of order)", (_T + "train-epoch",)),
    "loop.loss-after-step": Misconception(
        "the logged loss can be recomputed after the step", (_T + "train-epoch",)),
    "eval.tensor-result": Misconception(
        "evaluation results can stay tensors instead of Python numbers", (_T + "evaluate",)),
    "eval.model-not-called": Misconception(
        "an evaluation can be computed without running the given model", (_T + "evaluate",)),
    "eval.train-mode": Misconception(
        "no_grad alone switches dropout off (eval() is not needed)", (_T + "evaluate",)),
    "eval.grad-enabled": Misconception(
        "eval() alone stops autograd from recording (no_grad is not needed)", (_T + "evaluate",)),
    "eval.percent": Misconception(
        "accuracy is reported as a percentage rather than a fraction", (_T + "evaluate",)),
    "early-stop.ties-improve": Misconception(
        "a validation loss equal to the best counts as an improvement", (_T + "early-stop",)),
    "early-stop.off-by-one": Misconception(
        "training stops after patience + 1 epochs without improvement", (_T + "early-stop",)),
    "early-stop.zero-based": Misconception(
        "epochs are numbered from 0 where the task numbers them from 1", (_T + "early-stop",)),
    "early-stop.last-not-best": Misconception(
        "the weights to keep are the last epoch's, not the best epoch's", (_T + "early-stop",)),
    "early-stop.rule": Misconception(
        "the patience counter is not reset by a new best, or counts something else",
        (_T + "early-stop",)),
    "nan.not-detected": Misconception(
        "a NaN loss can be back-propagated and stepped without harm", (_T + "guarded-step",)),
    "nan.step-not-named": Misconception(
        "an error that does not say where the loss became NaN is enough", (_T + "guarded-step",)),
    "clip.not-applied": Misconception(
        "gradient clipping can go after optimizer.step() (or be skipped)", (_T + "guarded-step",)),
    "clip.norm-after-clipping": Misconception(
        "clip_grad_norm_ returns (or one should log) the norm after clipping",
        (_T + "guarded-step",)),
    "checkpoint.generator-state": Misconception(
        "a checkpoint needs no random generator state to resume a shuffling loop",
        (_T + "checkpoint",)),
    "checkpoint.optimizer-state": Misconception(
        "the model's state_dict is a complete checkpoint (the optimizer's state can be dropped)",
        (_T + "checkpoint",)),
    "checkpoint.epoch": Misconception(
        "the loop's position need not be saved and returned", (_T + "checkpoint",)),
    "checkpoint.incomplete": Misconception(
        "restoring part of the training state reproduces the run", (_T + "checkpoint",)),
    "accumulation.step-per-micro-batch": Misconception(
        "gradient accumulation steps the optimizer after every micro-batch", (_T + "accumulate",)),
    "accumulation.stale-grad": Misconception(
        "accumulation starts from zero without clearing .grad first", (_T + "accumulate",)),
    "accumulation.unscaled": Misconception(
        "summing micro-batch mean losses gives the large-batch mean's gradient",
        (_T + "accumulate",)),
    "accumulation.equal-weights": Misconception(
        "dividing by the number of micro-batches weights them correctly even when they differ in size",
        (_T + "accumulate",)),
    "bughunt.python-list": Misconception(
        "layers kept in a Python list are registered as parameters", (_T + "bug-hunt",)),
    "bughunt.double-softmax": Misconception(
        "a model feeding CrossEntropyLoss should end in softmax", (_T + "bug-hunt",)),
    "bughunt.float-target": Misconception(
        "CrossEntropyLoss accepts class indices stored as floats", (_T + "bug-hunt",)),
    "bughunt.no-zero-grad": Misconception(
        "a loop without zero_grad trains normally", (_T + "bug-hunt",)),
    "bughunt.eval-mode": Misconception(
        "accuracy can be measured with dropout active", (_T + "bug-hunt",)),
    "bughunt.no-grad": Misconception(
        "evaluation needs no torch.no_grad()", (_T + "bug-hunt",)),
}
