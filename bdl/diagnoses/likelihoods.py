"""The known mistakes of assignment 01 (likelihoods), recognised by what the answer computes.

Each recogniser gets the student's function and returns whether it behaves like the
mistake on its probes; ``bdl.diagnoses`` says the rules (no right answer computed here).
"""
import numpy as np
import tensorflow as tf

from bdl.diagnoses import Function, Mistake, call, same

# Four examples, three classes; the classes are not in order of probability.
_PROBS = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.25, 0.25, 0.5], [0.9, 0.05, 0.05]], "float32")
_LABELS = np.array([0, 2, 2, 1])
_ONE_HOT = np.eye(3, dtype="float32")[_LABELS]
# Five classes, for a count of classes written into the code.
_PROBS5 = np.array([[0.5, 0.1, 0.1, 0.2, 0.1], [0.05, 0.05, 0.1, 0.2, 0.6]], "float32")
_LABELS5 = np.array([3, 4])


def _fails(function, *args):
    try:
        call(function, *args)
        return False
    except Exception:
        return True


def _perfect(function, labels):
    """Whether ``function`` scores a forecast that puts all its probability on the label as perfect
    (zero), given the labels in this form."""
    try:
        return same(call(function, _ONE_HOT, labels), 0.0)
    except Exception:
        return False


def _twice(*arrays):
    """The examples of each array, each one twice: a mean over them stays, a sum doubles."""
    return [np.concatenate([a, a]) for a in arrays]


def _doubles_with_the_examples(function, *arrays):
    once, twice = call(function, *arrays), call(function, *_twice(*arrays))
    return np.all(np.abs(once) > 1e-3) and same(twice, 2 * once)


BRIER = Function("brier_score", (
    Mistake("rejects_float64",
            "Your score fails for float64 probabilities; the spec allows float32 or float64, so bring the "
            "probabilities and labels to one dtype instead of requiring float32.",
            lambda f: not _fails(f, tf.constant(_PROBS), _ONE_HOT)
            and _fails(f, tf.constant(_PROBS, tf.float64), _ONE_HOT)),
    Mistake("integer_one_hot_not_cast",
            "Your score fails for one-hot labels of an integer dtype: cast the labels to the probabilities' "
            "dtype before you subtract them.",
            lambda f: not _fails(f, _PROBS, _ONE_HOT) and _fails(f, _PROBS, _ONE_HOT.astype("int32"))),
    Mistake("classes_hard_coded",
            "Your score works for three classes but not for another number: take the number of classes from "
            "the probabilities.",
            lambda f: same(call(f, _PROBS, _LABELS), call(f, _PROBS, _ONE_HOT))
            and not (same(call(f, _PROBS5, _LABELS5), call(f, _PROBS5, np.eye(5, dtype="float32")[_LABELS5]))
                     if not _fails(f, _PROBS5, _LABELS5) else False)),
    Mistake("one_hot_encoded_again",
            "Your score handles integer labels but not one-hot ones: one-hot labels (as many dimensions as "
            "the probabilities) are used as they are; only integer class indices need turning into one-hot "
            "vectors.",
            lambda f: _perfect(f, _LABELS) and not _perfect(f, _ONE_HOT)),
    Mistake("integer_labels_as_one_hot",
            "Your score handles one-hot labels but not integer class indices: integer labels (one dimension "
            "fewer than the probabilities) must be turned into one-hot vectors first.",
            lambda f: _perfect(f, _ONE_HOT) and not _perfect(f, _LABELS)),
    Mistake("sum_over_examples",
            "Your score grows with the number of examples: it seems to add up over the examples, where the "
            "Brier score averages over them.",
            lambda f: _doubles_with_the_examples(f, _PROBS, _ONE_HOT)),
    Mistake("absolute_error",
            "Your score seems to add up the absolute differences between the probabilities and the labels; "
            "the Brier score squares each difference.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean(np.sum(np.abs(_PROBS - _ONE_HOT), axis=-1)))),
    Mistake("mean_over_classes",
            "Your score seems to average the squared differences over the classes; the Brier score adds "
            "them up over the classes, and averages over the examples only.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean((_PROBS - _ONE_HOT) ** 2))),
    Mistake("true_class_only",
            "Your score seems to look only at the probability of the true class; the Brier score counts the "
            "squared difference of every class, the wrong ones too.",
            lambda f: same(call(f, _PROBS, _ONE_HOT), np.mean((1 - np.sum(_PROBS * _ONE_HOT, axis=-1)) ** 2))),
))

TABLE = {"brier_score": BRIER}
