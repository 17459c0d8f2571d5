"""The misconceptions that notebook 05_data's checks can name (see helpers.misconceptions)."""

from helpers.misconceptions.core import Misconception

ENTRIES: dict[str, Misconception] = {
    "data.dataset-protocol": Misconception(
        "a Dataset item is something other than (features of example i, label i)", ("05_data-dataset",)),
    "data.len-is-features": Misconception(
        "len(dataset) is the number of features, or the last index", ("05_data-dataset",)),
    "data.numpy-float64": Misconception(
        "NumPy data can go to a float32 model as it is (it is float64)", ("05_data-dataset",)),
    "data.split-protocol": Misconception(
        "a split need not cover the dataset once, or need not be random", ("05_data-split",)),
    "data.split-sizes": Misconception(
        "the 80 % share is rounded up, or goes to the validation set", ("05_data-split",)),
    "data.split-unseeded": Misconception(
        "random_split repeats its split without its own seeded generator", ("05_data-split",)),
    "data.quiz-number": Misconception(
        "a count can be answered with a float or a string", ("05_data-quiz-dropped", "05_data-quiz-ranks")),
    "data.dropped-is-missing": Misconception(
        "drop_last leaves out the examples the last batch lacks, not the ones it holds",
        ("05_data-quiz-dropped",)),
    "data.drop-last-pads": Misconception(
        "drop_last pads or wraps around, so no example is left out", ("05_data-quiz-dropped",)),
    "data.steps-rule": Misconception(
        "steps per epoch follow some rule other than ceil(N / B) (floor with drop_last)",
        ("05_data-steps",)),
    "data.floor-steps": Misconception(
        "steps per epoch is N // B even when the ragged last batch is kept", ("05_data-steps",)),
    "data.drop-last-ignored": Misconception(
        "drop_last=True does not change the number of steps", ("05_data-steps",)),
    "data.plus-one": Misconception(
        "steps per epoch is N // B + 1, also when B divides N", ("05_data-steps",)),
    "data.weights-per-class": Misconception(
        "WeightedRandomSampler takes one weight per class", ("05_data-balance",)),
    "data.weights-negative": Misconception(
        "sampling weights may be negative", ("05_data-balance",)),
    "data.weights-inverted": Misconception(
        "balancing weights grow with the class size", ("05_data-balance",)),
    "data.weights-uniform": Misconception(
        "equal weights balance the classes", ("05_data-balance",)),
    "data.collate-protocol": Misconception(
        "a collate_fn returns lists, or something other than batch tensors in batch order",
        ("05_data-collate",)),
    "data.pad-time-first": Misconception(
        "pad_sequence returns (batch, length) without batch_first=True", ("05_data-collate",)),
    "data.lengths-after-padding": Misconception(
        "sequence lengths can be measured after padding", ("05_data-collate",)),
    "data.pad-value": Misconception(
        "padding can go before the sequence or use another value than zero", ("05_data-collate",)),
    "data.quiz-bool": Misconception(
        "a yes/no answer can be a string or a number", ("05_data-quiz-workers",)),
    "data.workers-own-rng": Misconception(
        "DataLoader workers reseed a random generator that the dataset owns", ("05_data-quiz-workers",)),
    "data.dist-floor": Misconception(
        "DistributedSampler gives each rank floor(N / world_size) indices", ("05_data-quiz-ranks",)),
    "data.dist-rule": Misconception(
        "a rank's share follows some rule other than strided and padded", ("05_data-shard",)),
    "data.dist-no-padding": Misconception(
        "DistributedSampler does not pad, so ranks get different numbers of indices", ("05_data-shard",)),
    "data.dist-contiguous": Misconception(
        "DistributedSampler gives each rank a contiguous chunk of indices", ("05_data-shard",)),
}
