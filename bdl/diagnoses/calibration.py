"""The known mistakes of assignment 05 (calibration), recognised by what the answer computes.

Each recogniser gets the student's function and returns whether it behaves like the mistake on
its probes; ``bdl.diagnoses`` says the rules (no right answer computed here). The numbers below
are what the *mistakes* give on hand-made probes, never what a right answer gives.
"""

import functools

import numpy as np
import tensorflow as tf

from bdl.checks import softmax
from bdl.diagnoses.probes import Function, Mistake, call, changes_its_arguments, fails, same

# Five points over three classes: confidences 0.9, 0.8, 0.4, 0.4 and 0.6; the first is wrong.
_PROBS = np.array([[0.9, 0.05, 0.05], [0.8, 0.1, 0.1], [0.4, 0.3, 0.3], [0.3, 0.3, 0.4], [0.6, 0.3, 0.1]])
_LABELS = np.array([1, 0, 0, 2, 0])
_OVERCONFIDENT = np.array([1, 0, 0, 0, 0])  # the fourth wrong too: less right than sure, overall
_LOW = np.array([[0.4, 0.3, 0.3], [0.2, 0.5, 0.3]])  # every confidence in the lower half


# What the reliability bins and the ECE can both get wrong.
BY_LABEL = "Your points seem to be binned by their label; they are binned by their confidence, the largest probability."
TRUE_CLASS = (
    "Your confidence seems to be the probability of the true class; it is the largest probability, that "
    "of the predicted class."
)


def _bins(function, probs=_PROBS, labels=_LABELS, num_bins=4):
    return call(function, probs, labels, num_bins)


def _is(part, values):
    return same(part, np.array(values, dtype=np.float64))


RELIABILITY = Function(
    "reliability_bins",
    (
        Mistake(
            "not_numpy",
            "Your bins are tensors; the spec asks for NumPy arrays.",
            lambda f: any(tf.is_tensor(part) for part in f(_PROBS, _LABELS, 4)),
        ),
        Mistake(
            "num_bins_ignored",
            "Your bins do not follow num_bins: use the argument, not the notebook's number of bins.",
            lambda f: len(_bins(f)[0]) == 15,
        ),
        Mistake(
            "too_short",
            "Your bins go wrong when the highest ones are empty: give every one of the num_bins bins an entry, "
            "empty or not.",
            lambda f: (
                len(_bins(f)[2]) == 4
                and (fails(lambda: _bins(f, _LOW, np.array([0, 1]))) or len(_bins(f, _LOW, np.array([0, 1]))[2]) < 4)
            ),
        ),
        Mistake(
            "nan_in_empty_bins",
            "Your empty bins hold nan: give an empty bin zero accuracy and confidence.",
            lambda f: not np.all(np.isfinite(np.concatenate(_bins(f)))),
        ),
        Mistake(
            "shares_not_counts",
            "Your counts add up to one: they seem to be shares; the spec asks for the number of points in each bin.",
            lambda f: same(np.sum(_bins(f)[2]), 1.0),
        ),
        Mistake("binned_by_label", BY_LABEL, lambda f: _is(_bins(f)[2], [3, 1, 1, 0])),
        Mistake("confidence_of_the_true_class", TRUE_CLASS, lambda f: _is(_bins(f)[1], [0.05, 0.4, 0.6, 0.8])),
        Mistake(
            "top_bin_unused",
            "Your highest bin stays empty even for confidences near one: the bins split the interval from zero "
            "to one into num_bins equal parts.",
            lambda f: _is(_bins(f)[2], [0, 3, 2, 0]),
        ),
        Mistake(
            "overall_accuracy",
            "Your accuracy is the same in every non-empty bin: it seems to be the overall accuracy; each bin's "
            "accuracy counts its own points.",
            lambda f: _is(_bins(f)[0], [0, 0.8, 0.8, 0.8]),
        ),
    ),
)


def _ece(function, labels=_LABELS, num_bins=4):
    return float(call(function, _PROBS, labels, num_bins))


ECE = Function(
    "expected_calibration_error",
    (
        Mistake(
            "not_a_float",
            "Your ECE is not a Python float: convert it with float().",
            lambda f: type(f(_PROBS, _LABELS, 4)) is not float,
        ),
        Mistake(
            "signed_gaps",
            "Your ECE can be negative: take each bin's gap between accuracy and confidence as an absolute value.",
            # negative on one of the two sets, whichever way round the gap is taken: less right than sure
            # overall, and more right than sure (the probe's own labels)
            lambda f: _ece(f, _OVERCONFIDENT) < 0 or _ece(f) < 0,
        ),
        Mistake(
            "one_bin",
            "Your ECE comes out as the gap between accuracy and confidence of all the points taken together, as "
            "if they were one bin: bin them by their confidence into num_bins bins, and add up each bin's "
            "absolute gap, weighted by its share of the points.",
            lambda f: same(_ece(f, _OVERCONFIDENT), 0.02) and same(_ece(f, _OVERCONFIDENT, 2), 0.02),
        ),
        Mistake(
            "confidence_of_the_true_class",
            TRUE_CLASS,
            lambda f: same(_ece(f, _OVERCONFIDENT, 2), 0.17) and same(_ece(f, _OVERCONFIDENT), 0.19),
        ),
        Mistake(
            "num_bins_ignored",
            "Your ECE does not change with num_bins: use the argument, not the notebook's number of bins.",
            lambda f: same(_ece(f, num_bins=2), _ece(f)) and same(_ece(f), _ece(f, num_bins=15)),
        ),
        Mistake(
            "binned_by_label",
            BY_LABEL,
            lambda f: same(_ece(f), _ece(f, num_bins=15)) and not same(_ece(f, num_bins=2), _ece(f)),
        ),
        Mistake(
            "unweighted",
            "Your ECE seems to average the bins' gaps as equals; each bin counts by its share of the points.",
            # the mean gap over the non-empty bins, or over all of them
            lambda f: any(
                same(_ece(f, _OVERCONFIDENT), over_labels, rtol=1e-3) and same(_ece(f), over, rtol=1e-3)
                for over_labels, over in ((0.28333, 0.45), (0.2125, 0.3375))
            ),
        ),
    ),
)

# Two classes, logits (4, 0) for every point and 88 of 100 labels 0: the NLL is smallest where
# sigmoid(4 / T) = 0.88, at T = 2.0076. Below, what the mistakes give instead.
_LOGITS = np.tile(np.array([[4.0, 0.0]], "float32"), (100, 1))
_TARGETS = np.array([0] * 88 + [1] * 12)
_BEST = 4.0 / np.log(0.88 / 0.12)


@functools.lru_cache(maxsize=4)
def _fitted(function):
    """The student's temperature for the probe, fitted once per answer (a fit takes a moment)."""
    return float(function(_LOGITS.copy(), _TARGETS))


TEMPERATURE = Function(
    "fit_temperature",
    (
        Mistake(
            "not_a_float",
            "Your temperature is not a Python float: convert it with float().",
            lambda f: tf.is_tensor(f(_LOGITS.copy(), _TARGETS)),
        ),
        Mistake(
            "changes_the_logits",
            "Your fit changes the logits array it is given: leave it unchanged, the notebook uses it again.",
            lambda f: changes_its_arguments(f, _LOGITS, _TARGETS),
        ),
        Mistake(
            "returns_log_temperature",
            "Your fit seems to return the logarithm of the temperature; return the temperature itself.",
            lambda f: same(_fitted(f), np.log(_BEST), rtol=0.01),
        ),
        Mistake(
            "multiplies",
            "Your fit seems to multiply the logits by the temperature; temperature scaling divides them by it.",
            lambda f: same(_fitted(f), 1 / _BEST, rtol=0.01),
        ),
        Mistake(
            "softmax_twice",
            "Your fit seems to apply the softmax to the logits before scaling them; the temperature divides "
            "the logits themselves.",
            lambda f: same(
                _fitted(f), (1 / (1 + np.exp(-4.0)) - 1 / (1 + np.exp(4.0))) / np.log(0.88 / 0.12), rtol=0.01
            ),
        ),
        Mistake(
            "maximises",
            "Your fit moves away from the best temperature: it seems to maximise the NLL, where it minimises it.",
            lambda f: not np.isfinite(_fitted(f)) or _fitted(f) > 10 * _BEST or _fitted(f) < _BEST / 10,
        ),
        Mistake(
            "not_converged",
            # What the probe sees, not a cause it cannot tell apart: a fit cut short and a fit of another
            # loss both land between a temperature of one and the NLL's minimum.
            "Your temperature lies short of the NLL's minimum, on the side a fit starts from: run your fit "
            "until the temperature settles (or use a one-dimensional minimiser), on the NLL itself.",
            lambda f: 1.0 <= _fitted(f) < 0.95 * _BEST,
        ),
    ),
)

# Planar flow probes: three points in two dimensions; u, w, b with w.u far below -1, so that the
# correction of u matters.
_Z = np.array([[0.5, -1.0], [1.2, 0.3], [-0.7, 2.0]], "float32")
_W = np.array([1.5, 0.4], "float32")
_U = np.array([-1.2, -0.5], "float32")
_B = np.float32(0.2)


def _flow(function, z=_Z, u=_U, w=_W, b=_B):
    return call(function, tf.constant(z), tf.constant(u), tf.constant(w), tf.constant(b))


def _direction(function, by, w=_W):
    """The vector v with f(z) - z = v * tanh(by . z + b) for every point, or None if there is none."""
    f_z = _flow(function, w=w)[0]
    steps = (f_z - _Z) / np.tanh(_Z @ by + _B)[:, None]
    return steps[0] if np.allclose(steps, steps[0], atol=1e-4) else None


def _m(x):
    return -1.0 + np.log1p(np.exp(x))


def _jacobian_log_det(function):
    """log |det df/dz| of the student's own map, by automatic differentiation."""
    z = tf.constant(_Z)
    with tf.GradientTape() as tape:
        tape.watch(z)
        f_z = function(z, tf.constant(_U), tf.constant(_W), tf.constant(_B))[0]
    jacobian = tape.batch_jacobian(f_z, z)
    return np.log(np.abs(np.linalg.det(np.asarray(jacobian, dtype=np.float64))))


def _corrected_u(function):
    return _direction(function, _W)


def _correction_as_long_as_its_factor(function):
    """Whether the student's correction of u lies along w and is exactly as long as its factor
    m(w.u) - w.u: as if w were divided by its length, a unit vector (the spec divides it by its
    squared length)."""
    correction, w_u = _corrected_u(function) - _U, float(_W @ _U)
    along_w = abs(correction[0] * _W[1] - correction[1] * _W[0]) < 1e-4
    return along_w and same(float(np.linalg.norm(correction)), abs(_m(w_u) - w_u))


PLANAR = Function(
    "planar_flow",
    (
        Mistake(
            "size_one_axes_lost",
            "Your flow loses an axis of size one: with one point, f(z) still has shape one by D and the "
            "log-determinant one entry.",
            lambda f: _flow(f)[0].shape == (3, 2) and _flow(f, z=_Z[:1])[0].shape != (1, 2),
        ),
        Mistake(
            "two_dimensions_hard_coded",
            "Your flow works in two dimensions only: write it for any D.",
            lambda f: (
                _flow(f)[0].shape == (3, 2)
                and (
                    fails(lambda: _in_three(f, 0.0))
                    or same(_in_three(f, 1.0) - _in_three(f, 0.0), np.array([[0.0, 0.0, 1.0]] * 2))
                )
            ),
        ),
        Mistake(
            "u_and_w_swapped",
            "Your flow seems to take u where w belongs and w where u belongs: the tanh's argument is w.z + b, "
            "and the step is along the corrected u.",
            lambda f: _direction(f, _U) is not None and _direction(f, _W) is None,
        ),
        Mistake(
            "u_not_corrected",
            "Your flow uses u as it is; replace it by the corrected u of the spec, so that the map stays invertible.",
            lambda f: same(_corrected_u(f), _U),
        ),
        Mistake(
            "m_without_minus_one",
            "Your corrected u seems to use m(x) without its minus one: then w.u-hat is the softplus itself; the "
            "spec's m subtracts one.",
            lambda f: same(float(_W @ _corrected_u(f)), _m(float(_W @ _U)) + 1.0),
        ),
        Mistake(
            "divides_by_the_norm",
            "Your correction of u seems to divide by the length of w; it divides by its squared length.",
            _correction_as_long_as_its_factor,
        ),
        Mistake(
            "log_det_mismatch",
            "Your log-determinant does not match the Jacobian of your own map: check the derivative of tanh, "
            "and that it uses the corrected u.",
            lambda f: not same(_flow(f)[1], _jacobian_log_det(f), rtol=1e-3, atol=1e-4),
        ),
    ),
)


def _in_three(function, third):
    """f(z) of two points in three dimensions whose third coordinate is ``third``: a flow that reads
    only the first two moves them the same, whatever the third."""
    z = np.array([[0.3, -0.2, third], [1.0, 0.5, third]], "float32")
    return _flow(function, z=z, u=np.array([0.1, 0.2, 0.3], "float32"), w=np.array([0.5, -0.2, 0.4], "float32"))[0]


# MC dropout probes: a stand-in network on three inputs, three stored passes of logits over three classes,
# and its logits with dropout off. Below, what the mistakes give for three passes.
_DROP_X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0]], "float32")
_DROP_PASSES = np.array(
    [
        [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, -1.0, 0.5]],
        [[0.0, 3.0, 0.0], [1.0, 0.0, 2.0], [0.0, 0.0, 0.0]],
        [[-1.0, 0.0, 1.0], [0.5, 0.5, 0.0], [2.0, 1.0, -2.0]],
    ],
    "float32",
)
_DROP_PLAIN = np.array([[0.0, 0.0, 4.0], [3.0, 0.0, 0.0], [0.0, 2.0, 1.0]], "float32")


def _dropout_model():
    from bdl.questions.calibration import KnownDropout

    return KnownDropout(_DROP_X, _DROP_PASSES, _DROP_PLAIN)


def _dropout_predictive(function, num_passes=3):
    return call(function, _dropout_model(), _DROP_X, num_passes)


def _raw_dropout_predictive(function, num_passes=3):
    return function(_dropout_model(), _DROP_X.copy(), num_passes)


MC_DROPOUT = Function(
    "mc_dropout_predict",
    (
        Mistake(
            "not_numpy",
            "Your predictive is a tensor; the spec asks for a NumPy array (call .numpy() on it).",
            lambda f: tf.is_tensor(_raw_dropout_predictive(f)),
        ),
        Mistake(
            "dropout_off",
            "Your predictive seems to be the network's prediction with dropout off: call the model in training "
            "mode, as the spec says, so that every pass draws a new dropout mask.",
            lambda f: same(_dropout_predictive(f), softmax(_DROP_PLAIN)),
        ),
        Mistake(
            "softmax_of_mean_logits",
            "Your predictive seems to be the softmax of the passes' mean logits; the spec averages the "
            "passes' probabilities, each the softmax of its own logits.",
            lambda f: same(_dropout_predictive(f), softmax(_DROP_PASSES.mean(axis=0))),
        ),
        Mistake(
            "no_softmax",
            "Your predictive seems to average the logits themselves: turn each pass's logits into "
            "probabilities with the softmax first.",
            lambda f: same(_dropout_predictive(f), _DROP_PASSES.mean(axis=0)),
        ),
        Mistake(
            "sum_not_mean",
            "Your rows sum to the number of passes: divide the sum over the passes by their number.",
            lambda f: same(np.sum(_dropout_predictive(f), axis=-1), 3.0),
        ),
        Mistake(
            "one_pass",
            "Your predictive seems to come from a single pass: average the probabilities of all num_passes passes.",
            lambda f: any(same(_dropout_predictive(f), softmax(_DROP_PASSES[t])) for t in (0, 2)),
        ),
    ),
)

TABLE = {
    "reliability_bins": RELIABILITY,
    "expected_calibration_error": ECE,
    "fit_temperature": TEMPERATURE,
    "planar_flow": PLANAR,
    "mc_dropout_predict": MC_DROPOUT,
}
