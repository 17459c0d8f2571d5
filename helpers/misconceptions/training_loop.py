"""The misconceptions that notebook 04_training_loop's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

_T = "04_training_loop-"


def _m(description: str, *exercises: str) -> Misconception:
    return Misconception(description, tuple(_T + e for e in exercises))


ENTRIES: dict[str, Misconception] = {
    # quizzes
    "sgd.step-adds-gradient": _m("an SGD step adds lr × gradient to the weight instead of subtracting it",
                                 "quiz-sgd"),
    "sgd.gradient-fixed": _m("the gradient used by later steps is the one computed at the start", "quiz-sgd"),
    "sgd.no-overshoot": _m("gradient descent approaches a minimum from one side whatever the learning rate",
                           "quiz-sgd"),
    "sgd.step-count": _m("the number of steps taken is not what the loop runs", "quiz-sgd"),
    "loop.grad-overwritten": _m("each backward overwrites .grad, so zero_grad is optional", "quiz-no-zero-grad"),
    "loop.grad-doubles": _m("without zero_grad, backward doubles what .grad holds", "quiz-no-zero-grad"),
    "loop.step-waits-for-backward": _m(
        "optimizer.step() uses the gradient of the current batch wherever it is placed", "quiz-step-top"),
    "loop.step-top-frozen": _m("any step() placed before backward leaves the weights unchanged", "quiz-step-top"),
    "loss.ce-takes-probabilities": _m(
        "CrossEntropyLoss expects probabilities (a softmax output) rather than raw logits", "quiz-double-softmax"),
    "loss.ce-wrong-class": _m("the loss is computed for a class other than the target", "quiz-double-softmax"),
    "sanity.initial-loss": _m("an untrained classifier's first loss has no expected value", "quiz-initial-loss"),
    "sanity.untrained-zero": _m("an untrained model starts with a loss near 0", "quiz-initial-loss"),
    "sanity.probability-not-loss": _m(
        "the first loss equals the chance probability (or error rate), not −log of it", "quiz-initial-loss"),
    "sanity.two-classes": _m("the chance-level loss is ln 2 whatever the number of classes", "quiz-initial-loss"),
    "lr.decay-rescues": _m("decaying the learning rate later repairs damage done by too large early steps",
                           "quiz-schedule"),
    "lr.schedule-wastes-steps": _m("a schedule only wastes steps at a lower rate, so a constant rate does best",
                                   "quiz-schedule"),
    "early-stop.state-dict-copy": _m("model.state_dict() is a snapshot that later steps do not change",
                                     "quiz-state-dict"),
    # Exercise 1: train_epoch
    "loop.tensor-losses": _m("logging loss tensors is harmless; .item() is only cosmetic", "train-epoch",
                             "accumulate"),
    "loop.drops-last-batch": _m("a range over batches stops before a last, smaller batch is needed", "train-epoch"),
    "loop.one-loss-per-batch": _m("the loop may log losses at another rate than once per batch", "train-epoch"),
    "loop.one-step-per-batch": _m("the optimizer steps at another rate than once per batch", "train-epoch"),
    "loop.step-before-backward": _m("the order of step and backward in the loop does not matter", "train-epoch"),
    "loop.zero-grad-after-backward": _m("zero_grad may go anywhere in the iteration, even between backward "
                                        "and step", "train-epoch"),
    "loop.no-zero-grad": _m("gradients start from zero at each backward without zero_grad", "train-epoch"),
    "loop.wrong-batch": _m("batches can be sliced loosely (overlapping, skipped or out of order)", "train-epoch"),
    "loop.loss-after-step": _m("the logged loss can be recomputed after the step", "train-epoch"),
    # Exercise 2: evaluate_model
    "eval.tensor-result": _m("evaluation results can stay tensors instead of Python numbers", "evaluate"),
    "eval.model-not-called": _m("an evaluation can be computed without running the given model", "evaluate"),
    "eval.train-mode": _m("no_grad (or the top-level flag alone) switches dropout and batch norm to eval",
                          "evaluate"),
    "eval.grad-enabled": _m("eval() alone stops autograd from recording (no_grad is not needed)", "evaluate"),
    "eval.percent": _m("accuracy is reported as a percentage rather than a fraction", "evaluate"),
    "eval.not-batched": _m("an evaluation in batches may run the model on all rows at once", "evaluate"),
    "eval.rows-missed": _m("a last, smaller batch can be left out of an evaluation", "evaluate"),
    "eval.mean-of-batch-means": _m("the mean over a data set is the plain average of its batches' means, "
                                   "whatever their sizes", "evaluate"),
    "eval.mode-not-restored": _m("an evaluation helper may leave the model in a mode other than the one it had",
                                 "evaluate"),
    "eval.mode-restored-top-only": _m(
        "model.train(was_training) restores every submodule's own mode", "evaluate"),
    # Exercise 3: decay_groups
    "groups.structure": _m("parameter groups are not a list of dicts with params and their settings",
                           "decay-groups"),
    "groups.param-missing": _m("a parameter left out of every group (or put in two) is harmless", "decay-groups"),
    "groups.bias-decayed": _m("weight decay belongs on every parameter, biases included", "decay-groups"),
    "groups.norm-decayed": _m("only parameters named 'bias' should escape weight decay", "decay-groups"),
    "groups.weight-not-decayed": _m("weight matrices need no weight decay", "decay-groups"),
    # Exercise 4: warmup
    "warmup.not-a-scheduler": _m("a schedule can be returned as a rule or a list instead of a scheduler",
                                 "warmup"),
    "warmup.first-step-zero": _m("LambdaLR's counter starts at 1 for the first step, so k / warmup is right",
                                 "warmup"),
    "warmup.factor-is-lr": _m("LambdaLR's rule returns the learning rate rather than a factor of it", "warmup"),
    "warmup.one-group": _m("a schedule needs to change only the first parameter group", "warmup"),
    "warmup.off-by-one": _m("the warm-up reaches the full rate one step early or late, or never stops rising",
                            "warmup"),
    # Exercise 5: fit_early_stopping
    "early-stop.ties-improve": _m("a validation loss equal to the best counts as an improvement", "early-stop"),
    "early-stop.off-by-one": _m("training stops after patience + 1 epochs without improvement", "early-stop"),
    "early-stop.zero-based": _m("epochs are numbered from 0 where the task numbers them from 1", "early-stop"),
    "early-stop.no-reset": _m("the patience counter keeps counting after a new best", "early-stop"),
    "early-stop.extra-epochs": _m("training may go on after the epoch it reports stopping at", "early-stop"),
    "early-stop.state-dict-alias": _m(
        "keeping model.state_dict() without a copy keeps the best weights", "early-stop"),
    "early-stop.rule": _m("the patience rule counts something other than epochs since the last strict best",
                          "early-stop"),
    # Exercise 6: guarded_step
    "nan.not-detected": _m("a NaN loss can be back-propagated and stepped without harm", "guarded-step"),
    "nan.inf-not-checked": _m("'not finite' means NaN only, so torch.isnan is enough", "guarded-step"),
    "nan.backward-before-check": _m("a loss can be back-propagated before checking that it is finite",
                                    "guarded-step"),
    "nan.step-not-named": _m("an error that does not say where the loss became NaN is enough", "guarded-step"),
    "nan.grad-not-checked": _m("a finite loss has finite gradients, so checking the loss is enough",
                               "guarded-step"),
    "nan.grad-raises": _m("a non-finite gradient under a finite loss must stop the run like a non-finite loss",
                          "guarded-step"),
    "nan.skip-by-zero-grad": _m("zeroing the gradients and stepping skips a step (momentum and Adam's state "
                                "move the weights anyway)", "guarded-step"),
    "nan.skip-leaves-grad": _m("a skipped step may leave the bad gradient in .grad", "guarded-step"),
    "nan.skip-not-reported": _m("a skipped step may return a norm as if it had run", "guarded-step"),
    "clip.not-applied": _m("gradient clipping can go after optimizer.step() (or be skipped)", "guarded-step"),
    "clip.norm-after-clipping": _m("clip_grad_norm_ returns (or one should log) the norm after clipping",
                                   "guarded-step"),
    "clip.norm-tensor": _m("a number returned for logging may stay a tensor", "guarded-step"),
    # Exercise 7: checkpoint
    "checkpoint.model-state": _m("a checkpoint can leave out the model's state_dict", "checkpoint"),
    "checkpoint.optimizer-state": _m(
        "the model's state_dict is a complete checkpoint (the optimizer's state can be dropped)", "checkpoint"),
    "checkpoint.scheduler-state": _m("a learning-rate scheduler needs no state in a checkpoint", "checkpoint"),
    "checkpoint.generator-state": _m("a checkpoint needs no random generator state to resume a shuffling loop",
                                     "checkpoint"),
    "checkpoint.global-rng": _m("dropout draws from no generator a checkpoint must restore", "checkpoint"),
    "checkpoint.weights-only": _m("a checkpoint loaded with weights_only=True may hold whole objects "
                                  "(a scheduler, a model)", "checkpoint"),
    "checkpoint.epoch": _m("the loop's position need not be saved and returned", "checkpoint"),
    "checkpoint.incomplete": _m("restoring part of the training state reproduces the run", "checkpoint"),
    # Exercise 8: accumulate_step
    "accumulation.step-per-micro-batch": _m("gradient accumulation steps the optimizer after every micro-batch",
                                            "accumulate"),
    "accumulation.stale-grad": _m("accumulation starts from zero without clearing .grad first", "accumulate"),
    "accumulation.unscaled": _m("summing micro-batch mean losses gives the large-batch mean's gradient",
                                "accumulate"),
    "accumulation.equal-weights": _m(
        "dividing by the number of micro-batches weights them correctly even when they hold different "
        "numbers of the rows the loss averages over", "accumulate"),
    "accumulation.rows-not-labels": _m(
        "each micro-batch's weight is its share of the rows, also when the loss averages over labelled "
        "rows only", "accumulate"),
    "accumulation.empty-chunk-nan": _m(
        "a micro-batch without a labelled row can be added in like the others (its mean loss is nan)",
        "accumulate"),
    # Exercise 9: the bug hunt
    "bughunt.python-list": _m("layers kept in a Python list are registered as parameters", "bug-hunt"),
    "bughunt.double-softmax": _m("a model feeding CrossEntropyLoss should end in softmax", "bug-hunt"),
    "bughunt.functional-dropout": _m("F.dropout(x, p) follows the module's train()/eval() mode", "bug-hunt"),
    "bughunt.dropout-removed": _m("removing dropout is a fix for dropout that stays on in eval()", "bug-hunt"),
    "bughunt.dropout-rate": _m("changing dropout's p is part of fixing dropout that stays on in eval()",
                               "bug-hunt"),
    "bughunt.tensor-result": _m("an accuracy helper may return a tensor instead of a Python number",
                                "bug-hunt"),
    "bughunt.float-target": _m("CrossEntropyLoss accepts class indices stored as floats", "bug-hunt"),
    "bughunt.no-zero-grad": _m("a loop without zero_grad trains normally", "bug-hunt"),
    "bughunt.eval-mode": _m("accuracy can be measured with dropout active", "bug-hunt"),
    "bughunt.no-grad": _m("evaluation needs no torch.no_grad()", "bug-hunt"),
    "bughunt.mode-not-restored": _m("an accuracy helper may leave a training model in eval mode", "bug-hunt"),
    "bughunt.mode-restored-top-only": _m("model.train(was_training) restores every submodule's own mode",
                                         "bug-hunt"),
}
