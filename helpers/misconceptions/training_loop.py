"""The misconceptions that notebook 04_training_loop's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

_T = "04_training_loop-"


ENTRIES: dict[str, Misconception] = {
    "accumulation.empty-chunk-nan": Misconception(
        "a micro-batch without a labelled row can be added in like the others (its mean "
        "loss is nan)",
        (_T + "accumulate",)),
    "accumulation.equal-weights": Misconception(
        "dividing by the number of micro-batches weights them correctly even when they "
        "hold different numbers of the rows the loss averages over",
        (_T + "accumulate",)),
    "accumulation.rows-not-labels": Misconception(
        "each micro-batch's weight is its share of the rows, also when the loss "
        "averages over labelled rows only",
        (_T + "accumulate",)),
    "accumulation.stale-grad": Misconception(
        "accumulation starts from zero without clearing .grad first",
        (_T + "accumulate",)),
    "accumulation.step-per-micro-batch": Misconception(
        "gradient accumulation steps the optimizer after every micro-batch",
        (_T + "accumulate",)),
    "accumulation.unscaled": Misconception(
        "summing micro-batch mean losses gives the large-batch mean's gradient",
        (_T + "accumulate",)),
    "bughunt.double-softmax": Misconception(
        "a model feeding CrossEntropyLoss should end in softmax",
        (_T + "bug-hunt",)),
    "bughunt.dropout-rate": Misconception(
        "changing dropout's p is part of fixing dropout that stays on in eval()",
        (_T + "bug-hunt",)),
    "bughunt.dropout-removed": Misconception(
        "removing dropout is a fix for dropout that stays on in eval()",
        (_T + "bug-hunt",)),
    "bughunt.eval-mode": Misconception(
        "accuracy can be measured with dropout active",
        (_T + "bug-hunt",)),
    "bughunt.float-target": Misconception(
        "CrossEntropyLoss accepts class indices stored as floats",
        (_T + "bug-hunt",)),
    "bughunt.functional-dropout": Misconception(
        "F.dropout(x, p) follows the module's train()/eval() mode",
        (_T + "bug-hunt",)),
    "bughunt.grad-left-off": Misconception(
        "an evaluation may switch autograd off and leave it off",
        (_T + "bug-hunt",)),
    "bughunt.mode-not-restored": Misconception(
        "an accuracy helper may leave a training model in eval mode",
        (_T + "bug-hunt",)),
    "bughunt.mode-restored-top-only": Misconception(
        "model.train(was_training) restores every submodule's own mode",
        (_T + "bug-hunt",)),
    "bughunt.no-grad": Misconception(
        "evaluation needs no torch.no_grad()",
        (_T + "bug-hunt",)),
    "bughunt.no-zero-grad": Misconception(
        "a loop without zero_grad trains normally",
        (_T + "bug-hunt",)),
    "bughunt.percent": Misconception(
        "an accuracy is returned as a percentage",
        (_T + "bug-hunt",)),
    "bughunt.python-list": Misconception(
        "layers kept in a Python list are registered as parameters",
        (_T + "bug-hunt",)),
    "bughunt.tensor-result": Misconception(
        "an accuracy helper may return a tensor instead of a Python number",
        (_T + "bug-hunt",)),
    "clip.norm-after-clipping": Misconception(
        "clip_grad_norm_ returns (or one should log) the norm after clipping",
        (_T + "guarded-step",)),
    "clip.norm-tensor": Misconception(
        "a number returned for logging may stay a tensor",
        (_T + "guarded-step",)),
    "clip.not-applied": Misconception(
        "gradient clipping can go after optimizer.step() (or be skipped)",
        (_T + "guarded-step",)),
    "early-stop.extra-epochs": Misconception(
        "training may go on after the epoch it reports stopping at",
        (_T + "early-stop",)),
    "early-stop.no-reset": Misconception(
        "the patience counter keeps counting after a new best",
        (_T + "early-stop",)),
    "early-stop.off-by-one": Misconception(
        "training stops after patience + 1 epochs without improvement",
        (_T + "early-stop",)),
    "early-stop.previous-not-best": Misconception(
        "patience counts epochs worse than the previous one, not epochs without a new "
        "best",
        (_T + "early-stop",)),
    "early-stop.rule": Misconception(
        "the patience rule counts something other than epochs since the last strict best",
        (_T + "early-stop",)),
    "early-stop.state-dict-alias": Misconception(
        "keeping model.state_dict() without a copy keeps the best weights",
        (_T + "early-stop",)),
    "early-stop.state-dict-copy": Misconception(
        "model.state_dict() is a snapshot that later steps do not change",
        (_T + "quiz-state-dict",)),
    "early-stop.ties-improve": Misconception(
        "a validation loss equal to the best counts as an improvement",
        (_T + "early-stop",)),
    "early-stop.zero-based": Misconception(
        "epochs are numbered from 0 where the task numbers them from 1",
        (_T + "early-stop",)),
    "eval.grad-enabled": Misconception(
        "eval() alone stops autograd from recording (no_grad is not needed)",
        (_T + "evaluate",)),
    "eval.grad-left-off": Misconception(
        "an evaluation may switch autograd off and leave it off",
        (_T + "evaluate",)),
    "eval.mean-of-batch-means": Misconception(
        "the mean over a data set is the plain average of its batches' means, whatever "
        "their sizes",
        (_T + "evaluate",)),
    "eval.mode-not-restored": Misconception(
        "an evaluation helper may leave the model in a mode other than the one it had",
        (_T + "evaluate",)),
    "eval.mode-restored-top-only": Misconception(
        "model.train(was_training) restores every submodule's own mode",
        (_T + "evaluate",)),
    "eval.model-not-called": Misconception(
        "an evaluation can be computed without running the given model",
        (_T + "evaluate",)),
    "eval.not-batched": Misconception(
        "an evaluation in batches may run the model on all rows at once",
        (_T + "evaluate",)),
    "eval.percent": Misconception(
        "accuracy is reported as a percentage rather than a fraction",
        (_T + "evaluate",)),
    "eval.rows-missed": Misconception(
        "a last, smaller batch can be left out of an evaluation",
        (_T + "evaluate",)),
    "eval.tensor-result": Misconception(
        "evaluation results can stay tensors instead of Python numbers",
        (_T + "evaluate",)),
    "eval.train-mode": Misconception(
        "no_grad (or the top-level flag alone) switches dropout and batch norm to eval",
        (_T + "evaluate",)),
    "groups.bias-decayed": Misconception(
        "weight decay belongs on every parameter, biases included",
        (_T + "decay-groups",)),
    "groups.norm-decayed": Misconception(
        "only parameters named 'bias' should escape weight decay",
        (_T + "decay-groups",)),
    "groups.param-missing": Misconception(
        "a parameter left out of every group (or put in two) is harmless",
        (_T + "decay-groups",)),
    "groups.structure": Misconception(
        "parameter groups are not a list of dicts with params and their settings",
        (_T + "decay-groups",)),
    "groups.weight-not-decayed": Misconception(
        "weight matrices need no weight decay",
        (_T + "decay-groups",)),
    "loop.grad-doubles": Misconception(
        "without zero_grad, backward doubles what .grad holds",
        (_T + "quiz-no-zero-grad",)),
    "loop.grad-overwritten": Misconception(
        "each backward overwrites .grad, so zero_grad is optional",
        (_T + "quiz-no-zero-grad",)),
    "loop.step-top-frozen": Misconception(
        "any step() placed before backward leaves the weights unchanged",
        (_T + "quiz-step-top",)),
    "loop.step-waits-for-backward": Misconception(
        "optimizer.step() uses the gradient of the current batch wherever it is placed",
        (_T + "quiz-step-top",)),
    "loop.tensor-losses": Misconception(
        "logging loss tensors is harmless; .item() is only cosmetic",
        (_T + "accumulate",)),
    "loss.ce-takes-probabilities": Misconception(
        "CrossEntropyLoss expects probabilities (a softmax output) rather than raw logits",
        (_T + "quiz-double-softmax",)),
    "loss.ce-wrong-class": Misconception(
        "the loss is computed for a class other than the target",
        (_T + "quiz-double-softmax",)),
    "lr.decay-rescues": Misconception(
        "decaying the learning rate later repairs damage done by too large early steps",
        (_T + "quiz-schedule",)),
    "lr.schedule-wastes-steps": Misconception(
        "a schedule only wastes steps at a lower rate, so a constant rate does best",
        (_T + "quiz-schedule",)),
    "lrfind.first-not-lowest": Misconception(
        "a range test's stop rule compares with the first loss, not the lowest",
        (_T + "lr-range",)),
    "lrfind.loss-after-step": Misconception(
        "the loss to record is the one measured after the step",
        (_T + "lr-range",)),
    "lrfind.mode-not-restored": Misconception(
        "a measurement that trains may leave the model in training mode",
        (_T + "lr-range",)),
    "lrfind.nan-not-stopped": Misconception(
        "a nan loss is caught by a 'greater than' test",
        (_T + "lr-range",)),
    "lrfind.no-stop": Misconception(
        "a range test runs every rate, whatever the loss does",
        (_T + "lr-range",)),
    "lrfind.no-zero-grad": Misconception(
        "a fresh optimizer per step clears the gradients by itself",
        (_T + "lr-range",)),
    "lrfind.state-dict-alias": Misconception(
        "model.state_dict() is a snapshot that can restore the weights later",
        (_T + "lr-range",)),
    "lrfind.tensor-losses": Misconception(
        "loss tensors are fine to return where numbers are asked for",
        (_T + "lr-range",)),
    "nan.backward-before-check": Misconception(
        "a loss can be back-propagated before checking that it is finite",
        (_T + "guarded-step",)),
    "nan.first-param-only": Misconception(
        "checking the first parameter's gradient is enough to catch a non-finite one",
        (_T + "guarded-step",)),
    "nan.grad-not-checked": Misconception(
        "a finite loss has finite gradients, so checking the loss is enough",
        (_T + "guarded-step",)),
    "nan.grad-raises": Misconception(
        "a non-finite gradient under a finite loss must stop the run like a non-finite "
        "loss",
        (_T + "guarded-step",)),
    "nan.inf-not-checked": Misconception(
        "'not finite' means NaN only, so torch.isnan is enough",
        (_T + "guarded-step",)),
    "nan.not-detected": Misconception(
        "a NaN loss can be back-propagated and stepped without harm",
        (_T + "guarded-step",)),
    "nan.skip-by-zero-grad": Misconception(
        "zeroing the gradients and stepping skips a step (momentum and Adam's state "
        "move the weights anyway)",
        (_T + "guarded-step",)),
    "nan.skip-leaves-grad": Misconception(
        "a skipped step may leave the bad gradient in .grad",
        (_T + "guarded-step",)),
    "nan.skip-not-reported": Misconception(
        "a skipped step may return a norm as if it had run",
        (_T + "guarded-step",)),
    "nan.step-not-named": Misconception(
        "an error that does not say where the loss became NaN is enough",
        (_T + "guarded-step",)),
    "sanity.initial-loss": Misconception(
        "an untrained classifier's first loss has no expected value",
        (_T + "quiz-initial-loss",)),
    "sanity.probability-not-loss": Misconception(
        "the first loss equals the chance probability (or error rate), not −log of it",
        (_T + "quiz-initial-loss",)),
    "sanity.two-classes": Misconception(
        "the chance-level loss is ln 2 whatever the number of classes",
        (_T + "quiz-initial-loss",)),
    "sanity.untrained-zero": Misconception(
        "an untrained model starts with a loss near 0",
        (_T + "quiz-initial-loss",)),
    "sgd.gradient-fixed": Misconception(
        "the gradient used by later steps is the one computed at the start",
        (_T + "quiz-sgd",)),
    "sgd.no-overshoot": Misconception(
        "gradient descent approaches a minimum from one side whatever the learning rate",
        (_T + "quiz-sgd",)),
    "sgd.step-adds-gradient": Misconception(
        "an SGD step adds lr × gradient to the weight instead of subtracting it",
        (_T + "quiz-sgd",)),
    "sgd.step-count": Misconception(
        "the number of steps taken is not what the loop runs",
        (_T + "quiz-sgd",)),
    "stale.first-step": Misconception(
        "the step where a resumed run diverges most is where it starts to diverge",
        (_T + "stale-piece",)),
    "stale.loudest": Misconception(
        "the piece of state whose loss diverges first or most is the stale one",
        (_T + "stale-piece",)),
    "stale.return-pair": Misconception(
        "a diagnosis may return something other than the pair asked for",
        (_T + "stale-piece",)),
    "stale.step-from-zero": Misconception(
        "steps of an epoch count from 0",
        (_T + "stale-piece",)),
    "warmup.factor-is-lr": Misconception(
        "LambdaLR's rule returns the learning rate rather than a factor of it",
        (_T + "warmup",)),
    "warmup.first-step-zero": Misconception(
        "LambdaLR's counter starts at 1 for the first step, so k / warmup is right",
        (_T + "warmup",)),
    "warmup.not-a-scheduler": Misconception(
        "a schedule can be returned as a rule or a list instead of a scheduler",
        (_T + "warmup",)),
    "warmup.off-by-one": Misconception(
        "the warm-up reaches the full rate one step early or late, or never stops rising",
        (_T + "warmup",)),
    "warmup.one-group": Misconception(
        "a schedule needs to change only the first parameter group",
        (_T + "warmup",)),
}
