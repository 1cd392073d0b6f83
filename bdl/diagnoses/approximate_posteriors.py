"""The known mistakes of assignment 06 (approximate posteriors), recognised by what the answer computes.

Each recogniser gets the student's function and returns whether it behaves like the mistake on
its probes; ``bdl.diagnoses`` says the rules (no right answer computed here). The numbers below
are what the *mistakes* give on hand-made probes, never what a right answer gives.
"""

import numpy as np
import tensorflow as tf

from bdl.diagnoses.probes import Function, Mistake, call, changes_its_arguments, same

# Log joint probes: zero weights (the network outputs 0), two points, sigma = 0.5, s = 2.
_X = np.array([[0.5], [-1.0]], "float32")
_Y = np.array([[0.3], [-0.2]], "float32")
_NOISE, _PRIOR, _D = 0.5, 2.0, 31
_SQUARES = float(np.sum(_Y**2))
_LIK_KERNEL = -_SQUARES / (2 * _NOISE**2)  # the likelihood without its constant
_LIK_CONSTANT = -len(_Y) * np.log(_NOISE * np.sqrt(2 * np.pi))
_PRIOR_CONSTANT = -_D * np.log(_PRIOR * np.sqrt(2 * np.pi))  # the prior at zero weights is its constant alone


def _joint(function):
    return call(function, tf.zeros((2, _D), tf.float32), _X, _Y, _NOISE, _PRIOR)


def _changes_with_input_weights(function):
    """Whether the log joint moves when only the hidden units' input weights do: the outputs stay 0 (every
    output weight is 0), so only a prior can move it."""
    weights = np.zeros((2, _D), "float32")
    weights[:, :10] = 1.0
    moved = call(function, tf.constant(weights), _X, _Y, _NOISE, _PRIOR)
    return not same(moved, _joint(function), rtol=1e-5, atol=1e-4)


def _is_joint(function, value):
    return same(_joint(function), np.full(2, value), rtol=1e-4, atol=1e-3)


def _no_gradient(function):
    weights = tf.Variable(tf.zeros((2, _D), tf.float32))
    with tf.GradientTape() as tape:
        value = function(weights, _X, _Y, _NOISE, _PRIOR)
    return not tf.is_tensor(value) or tape.gradient(value, weights) is None  # a NumPy result has none


LOG_JOINT = Function(
    "log_joint",
    (
        Mistake(
            "one_number",
            "Your log joint is one number for the whole batch; the spec asks for one value per weight vector "
            "of the batch.",
            lambda f: np.shape(_joint(f)) != (2,),
        ),
        Mistake(
            "not_float32",
            "Your log joint is not float32: keep it in float32, as the weights are.",
            lambda f: tf.as_dtype(f(tf.zeros((2, _D), tf.float32), _X, _Y, _NOISE, _PRIOR).dtype) != tf.float32,
        ),
        Mistake(
            "no_gradient",
            "Your log joint has no gradient with respect to the weights: it seems to leave TensorFlow (through "
            "NumPy, say) on the way; keep every step a TensorFlow operation.",
            _no_gradient,
        ),
        Mistake(
            "targets_as_column",
            "Your log-likelihood seems to compare each output with every target, not with its own: make the "
            "targets a row, one entry per point, before comparing them with each weight vector's outputs.",
            # B = N = 2 here, so the broadcast runs: each vector's value is N times one point's log density
            lambda f: same(
                _joint(f),
                len(_Y) * (-(_Y[:, 0].astype(np.float64) ** 2) / (2 * _NOISE**2) - np.log(_NOISE * np.sqrt(2 * np.pi)))
                + _PRIOR_CONSTANT,
                rtol=1e-4,
                atol=1e-3,
            ),
        ),
        Mistake(
            "likelihood_constant",
            "Your log-likelihood seems to lack its normalising constant: every Gaussian density has one, and the "
            "spec asks for every constant.",
            # the prior's constant may be missing too (at zero weights such a prior is 0), if there is a prior
            lambda f: (
                _is_joint(f, _LIK_KERNEL + _PRIOR_CONSTANT)
                or (_is_joint(f, _LIK_KERNEL) and _changes_with_input_weights(f))
            ),
        ),
        Mistake(
            "prior_constant",
            "Your log prior seems to lack its normalising constant: every Gaussian density has one, and the spec "
            "asks for every constant.",
            lambda f: _is_joint(f, _LIK_KERNEL + _LIK_CONSTANT) and _changes_with_input_weights(f),
        ),
        Mistake(
            "variance_for_sd",
            "Your likelihood seems to use the noise variance where its standard deviation belongs: the Gaussian's "
            "scale is sigma.",
            # the prior's scale may be its variance too
            lambda f: any(
                _is_joint(f, -_SQUARES / (2 * _NOISE**4) - len(_Y) * np.log(_NOISE**2 * np.sqrt(2 * np.pi)) + prior)
                for prior in (_PRIOR_CONSTANT, -_D * np.log(_PRIOR**2 * np.sqrt(2 * np.pi)))
            ),
        ),
        Mistake(
            "no_prior",
            "Your log joint seems to be the log-likelihood alone: add the log prior of the weights.",
            lambda f: _is_joint(f, _LIK_KERNEL + _LIK_CONSTANT) and not _changes_with_input_weights(f),
        ),
        Mistake(
            "mean_not_sum",
            "Your log-likelihood seems to average over the points; the likelihood of all the points is a product, "
            "so its logarithm is a sum.",
            lambda f: _is_joint(f, (_LIK_KERNEL + _LIK_CONSTANT) / len(_Y) + _PRIOR_CONSTANT),
        ),
    ),
)

# MC dropout probes: a stand-in network on three inputs with three stored passes; noise sd 0.5.
_DROP_X = np.array([[0.0], [1.0], [2.0]], "float32")
_DROP_PASSES = np.array([[[1.0], [0.0], [2.0]], [[3.0], [0.5], [-2.0]], [[2.0], [2.0], [0.0]]], "float32")
_DROP_PLAIN = np.array([[5.0], [-5.0], [4.0]], "float32")
_PASSES = _DROP_PASSES[:, :, 0].astype(np.float64)
_DROP_NOISE = 0.5


def _dropout_model():
    from bdl.questions.approximate_posteriors import KnownOutputs

    return KnownOutputs(_DROP_X, _DROP_PASSES, _DROP_PLAIN)


def _moments(function):
    return call(function, _dropout_model(), _DROP_X, 3, _DROP_NOISE)


def _raw_moments(function):
    return function(_dropout_model(), _DROP_X.copy(), 3, _DROP_NOISE)


def _variance_is(function, values):
    return same(np.ravel(_moments(function)[1]), values)


DROPOUT = Function(
    "mc_dropout_moments",
    (
        Mistake(
            "not_numpy",
            "Your mean or variance is a tensor; the spec asks for NumPy arrays (call .numpy() on them).",
            lambda f: any(tf.is_tensor(part) for part in _raw_moments(f)),
        ),
        Mistake(
            "shape_kept",
            "Your mean or variance keeps the model's trailing axis of size one; the spec asks for flat arrays, "
            "one value per input.",
            lambda f: any(np.shape(part) == (3, 1) for part in _moments(f)),
        ),
        Mistake(
            "dropout_off",
            "Your mean seems to be the network's output with dropout off: call the model in training mode, as "
            "the spec says, so that every pass draws a new dropout mask.",
            lambda f: same(np.ravel(_moments(f)[0]), _DROP_PLAIN[:, 0]),
        ),
        Mistake(
            "ddof_one",
            "Your variance over the passes seems to divide by one less than the number of passes; the spec "
            "divides by the number of passes.",
            lambda f: _variance_is(f, _PASSES.var(axis=0, ddof=1) + _DROP_NOISE**2),
        ),
        Mistake(
            "no_noise",
            "Your variance seems to be the spread of the passes alone: add the noise variance.",
            lambda f: _variance_is(f, _PASSES.var(axis=0)),
        ),
        Mistake(
            "noise_sd_added",
            "Your variance seems to add the noise's standard deviation; add its variance, noise_std squared.",
            lambda f: _variance_is(f, _PASSES.var(axis=0) + _DROP_NOISE),
        ),
        Mistake(
            "sd_not_variance",
            "Your second result seems to be a standard deviation; the spec asks for the variance.",
            lambda f: _variance_is(f, np.sqrt(_PASSES.var(axis=0) + _DROP_NOISE**2)),
        ),
    ),
)

# Laplace probes: four training points with two features, three new ones; sigma = 0.5, s = 2.
_PHI = np.array([[1.0, 0.5], [1.0, -1.0], [0.2, 1.0], [-0.5, 0.3]])
_PHI_NEW = np.array([[1.0, 2.0], [0.0, 1.0], [-1.0, 0.5]])
_L_NOISE, _L_PRIOR = 0.5, 2.0


def _laplace(function):
    return call(function, _PHI, _PHI_NEW, _L_NOISE, _L_PRIOR)


def _precision_is(function, data_factor, prior_factor):
    return same(_laplace(function)[0], _PHI.T @ _PHI * data_factor + np.eye(2) * prior_factor)


def _quadratic(matrix):
    return np.einsum("mk,kl,ml->m", _PHI_NEW, matrix, _PHI_NEW)


LAPLACE = Function(
    "last_layer_laplace",
    (
        Mistake(
            "matrix_not_diagonal",
            "Your predictive variance is a matrix; the spec asks for one variance per new input, the diagonal.",
            lambda f: np.shape(_laplace(f)[2]) == (3, 3),
        ),
        Mistake(
            "no_prior",
            "Your precision seems to lack the prior's precision: add the identity divided by the prior's variance.",
            lambda f: _precision_is(f, 1 / _L_NOISE**2, 0.0),
        ),
        Mistake(
            "noise_not_squared",
            "Your precision seems to divide the data term by the noise's standard deviation; divide it by its "
            "variance.",
            lambda f: _precision_is(f, 1 / _L_NOISE, 1 / _L_PRIOR**2),
        ),
        Mistake(
            "prior_not_squared",
            "Your precision seems to add the identity divided by the prior's standard deviation; divide it by "
            "its variance.",
            lambda f: _precision_is(f, 1 / _L_NOISE**2, 1 / _L_PRIOR),
        ),
        Mistake(
            "covariance_not_inverse",
            "Your covariance equals your precision; the covariance is its inverse.",
            lambda f: same(_laplace(f)[1], _laplace(f)[0]),
        ),
        Mistake(
            "variance_with_precision",
            "Your predictive variance seems to use the precision where the covariance belongs.",
            lambda f: same(_laplace(f)[2], _quadratic(_laplace(f)[0]) + _L_NOISE**2),
        ),
        Mistake(
            "no_noise",
            "Your predictive variance seems to lack the noise variance: add sigma squared.",
            lambda f: same(_laplace(f)[2], _quadratic(_laplace(f)[1])),
        ),
    ),
)

# W2 probes: two pairs of Gaussians.
_M1, _S1 = np.array([0.0, 1.0]), np.array([1.0, 2.0])
_M2, _S2 = np.array([3.0, 1.5]), np.array([5.0, 3.0])


def _w2(function):
    return call(function, _M1, _S1, _M2, _S2)


W2 = Function(
    "gaussian_w2",
    (
        Mistake(
            "one_number",
            "Your distance is one number for all the points; the spec asks for one per point, in the inputs' shape.",
            lambda f: np.shape(_w2(f)) == (),
        ),
        Mistake(
            "variances",
            "Your distance seems to compare the variances; the formula takes the standard deviations.",
            lambda f: same(_w2(f), np.sqrt((_M1 - _M2) ** 2 + (_S1**2 - _S2**2) ** 2)),
        ),
        Mistake(
            "no_root",
            "Your distance seems to be the squared distance: take its square root.",
            lambda f: same(_w2(f), (_M1 - _M2) ** 2 + (_S1 - _S2) ** 2),
        ),
        Mistake(
            "absolute_differences",
            "Your distance seems to add the absolute differences; the formula is the square root of the sum of "
            "their squares.",
            lambda f: same(_w2(f), np.abs(_M1 - _M2) + np.abs(_S1 - _S2)),
        ),
        Mistake(
            "sum_of_sds",
            "Your distance seems to add the two standard deviations where it takes their difference.",
            lambda f: same(_w2(f), np.sqrt((_M1 - _M2) ** 2 + (_S1 + _S2) ** 2)),
        ),
    ),
)

# Conformal probes: five scores 1..5 in another order; ten scores 1..10.
_FIVE = np.array([5.0, 1.0, 4.0, 2.0, 3.0])
_TEN = np.array([7.0, 2.0, 9.0, 1.0, 10.0, 4.0, 3.0, 8.0, 6.0, 5.0])


def _q(function, scores, alpha):
    return float(call(function, scores, alpha))


CONFORMAL = Function(
    "conformal_quantile",
    (
        Mistake(
            "sorts_in_place",
            "Your quantile sorts the scores array it is given: leave it unchanged (sort a copy).",
            lambda f: changes_its_arguments(lambda scores: f(scores, 0.4), _FIVE),
        ),
        Mistake(
            "plain_quantile",
            "Your quantile seems to be the plain empirical quantile of the scores at level one minus alpha; the "
            "spec takes a given rank of the sorted scores.",
            lambda f: same(_q(f, _FIVE, 0.4), 3.4) and same(_q(f, _TEN, 0.65), np.quantile(_TEN, 0.35)),
        ),
        Mistake(
            "floor",
            "Your rank seems to be rounded down; the spec rounds it up.",
            lambda f: same(_q(f, _FIVE, 0.4), 3.0) and same(_q(f, _TEN, 0.65), 3.0),
        ),
        Mistake(
            "n_not_n_plus_one",
            "Your rank seems to count the calibration scores alone; the spec counts the fresh point too, one "
            "more than the scores.",
            lambda f: same(_q(f, _FIVE, 0.4), 3.0) and same(_q(f, _TEN, 0.65), 4.0),
        ),
        Mistake(
            "rank_too_high",
            "Your quantile seems to be one rank too high: counting from one, the k-th smallest score sits at "
            "index k minus one of the sorted scores.",
            lambda f: same(_q(f, _FIVE, 0.4), 5.0),
        ),
        Mistake(
            "no_infinity",
            "With too few scores your quantile returns a finite score; the spec asks for infinity then.",
            # last: the other mistakes are finite here too
            lambda f: np.isfinite(_q(f, _FIVE, 0.1)),
        ),
    ),
)

TABLE = {
    "log_joint": LOG_JOINT,
    "mc_dropout_moments": DROPOUT,
    "last_layer_laplace": LAPLACE,
    "gaussian_w2": W2,
    "conformal_quantile": CONFORMAL,
}
