"""The known mistakes of assignment 02 (deep ensembles), recognised by what the answer computes.

Each recogniser gets the student's function and returns whether it behaves like the
mistake on its probes; ``bdl.diagnoses`` says the rules (no right answer computed here).
"""

import numpy as np

from bdl.diagnoses.probes import Function, Mistake, call, changes_its_arguments, fails, same

# Three members (axis 0) at two inputs; their locations and scales.
_LOCS = np.array([[0.0, 1.0], [2.0, -1.0], [1.0, 3.0]])
_SCALES = np.array([[1.0, 0.5], [2.0, 1.0], [0.5, 2.0]])


def _moments(function, locs=_LOCS, scales=_SCALES):
    return call(function, locs, scales)


def _with_variance(variance):
    """Whether ``function``'s variance is ``variance(locs, scales)`` on the probe."""
    return lambda f: same(_moments(f)[1], variance(_LOCS, _SCALES))


def _spread(locs):
    return np.mean(locs**2, axis=0) - np.mean(locs, axis=0) ** 2


def _moment_mistakes(what):
    """The mistakes the Gaussian and the Laplace mixture's moments share."""
    return (
        Mistake(
            "changes_its_arguments",
            "Your moments change the arrays they are given: compute new arrays and leave the caller's as "
            "they were (the notebook uses them again).",
            lambda f: changes_its_arguments(f, _LOCS, _SCALES),
        ),
        Mistake(
            "members_on_last_axis",
            "Your moments seem to average over the last axis; the members are on the first axis, and "
            "every other axis is kept.",
            lambda f: _moments(f)[0].shape == (3,),
        ),
        Mistake(
            "size_one_axes_lost",
            "Your moments lose an axis of size one: keep every axis after the members' one, whatever its size.",
            lambda f: _moments(f)[0].shape == (2,) and _moments(f, _LOCS[:, :1], _SCALES[:, :1])[0].shape != (1,),
        ),
        Mistake(
            "arguments_swapped",
            f"Your mean changes with the scales: check the order of the arguments ({what}, then scales).",
            lambda f: not same(_moments(f)[0], _moments(f, _LOCS, 2 * _SCALES)[0]),
        ),
        Mistake(
            "members_from_the_notebook",
            "Your moments change when every member is counted twice: divide by the number of members you "
            "are given, not by a number from the notebook.",
            lambda f: (
                not same(_moments(f)[0], _moments(f, np.concatenate([_LOCS] * 2), np.concatenate([_SCALES] * 2))[0])
            ),
        ),
        Mistake(
            "standard_deviation",
            "Your second result grows like a standard deviation when the members are scaled up; the spec "
            "asks for the variance.",
            lambda f: same(_moments(f, 2 * _LOCS, 2 * _SCALES)[1], 2 * _moments(f)[1]),
        ),
        Mistake(
            "missing_squared_mean",
            "Your variance seems to be the mixture's second moment; subtract the square of the mixture's mean from it.",
            _with_variance(lambda locs, scales: np.mean(VARIANCE[what](scales) + locs**2, axis=0)),
        ),
        Mistake(
            "spread_only",
            "Your variance seems to count only the spread of the members' means; each member's own "
            "variance counts too.",
            _with_variance(lambda locs, scales: _spread(locs)),
        ),
        Mistake(
            "scales_from_the_notebook",
            "Your variance does not change with the scales you are given: use the arguments, not the "
            "notebook's variables.",
            lambda f: same(_moments(f)[1], _moments(f, _LOCS, 2 * _SCALES)[1]),
        ),
    )


# A member's variance from its scale, for the mistakes that get the rest right.
VARIANCE = {"means": lambda scales: scales**2, "locs": lambda scales: 2 * scales**2}

GAUSSIAN = Function(
    "gaussian_mixture_moments",
    _moment_mistakes("means")
    + (
        Mistake(
            "scale_not_squared",
            "Your variance seems to add the members' scales where their variances, the squared scales, belong.",
            _with_variance(lambda locs, scales: np.mean(scales, axis=0) + _spread(locs)),
        ),
        Mistake(
            "average_variance_only",
            "Your variance seems to be the members' average variance only; the spread of their means counts too.",
            _with_variance(lambda locs, scales: np.mean(scales**2, axis=0)),
        ),
        Mistake(
            "sample_variance",
            "Your variance seems to divide the spread of the means by one less than the number of members; the "
            "mixture weighs its members equally, so divide by their number.",
            _with_variance(lambda locs, scales: np.mean(scales**2, axis=0) + np.var(locs, axis=0, ddof=1)),
        ),
    ),
)

LAPLACE = Function(
    "laplace_mixture_moments",
    _moment_mistakes("locs")
    + (
        Mistake(
            "gaussian_member_variance",
            "Your variance seems to take a Laplace member's variance to be its scale squared, as for a "
            "Gaussian; check the Laplace variance against your derivation of the mixture's moments.",
            _with_variance(lambda locs, scales: np.mean(scales**2, axis=0) + _spread(locs)),
        ),
        Mistake(
            "linear_member_variance",
            "Your variance seems to grow linearly with the members' scales; a variance grows with the square "
            "of the scale.",
            _with_variance(lambda locs, scales: np.mean(2 * scales, axis=0) + _spread(locs)),
        ),
        Mistake(
            "member_variance_too_large",
            "Your variance seems to take a Laplace member's variance too large: check its factor against "
            "your derivation of the mixture's moments.",
            _with_variance(lambda locs, scales: np.mean((2 * scales) ** 2, axis=0) + _spread(locs)),
        ),
    ),
)

# Probability vectors along the last axis: three of four classes, with no zero; with zeros; tiny ones.
_PROBS = np.array([[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]])
_ZEROS = np.array([[0.5, 0.5, 0.0, 0.0], [0.2, 0.3, 0.5, 0.0]])
_TINY = np.array([[1e-5, 1 - 1e-5], [1e-4, 1 - 1e-4]])


def _minus_p_log_p(probs, log=np.log):
    return -probs * log(probs)


ENTROPY = Function(
    "entropy",
    (
        Mistake(
            "nan_at_zero",
            "Your entropy gives nan where a probability is exactly zero: take zero times the log of zero to be zero.",
            lambda f: np.all(np.isfinite(call(f, _PROBS))) and not np.all(np.isfinite(call(f, _ZEROS))),
        ),
        Mistake(
            "size_one_axes_lost",
            "Your entropy loses an axis of size one: only the class axis, the last one, goes.",
            lambda f: call(f, _PROBS).shape == (3,) and call(f, _PROBS[:1]).shape != (1,),
        ),
        Mistake(
            "wrong_axis",
            "Your entropy seems to sum over the first axis; the probability vectors are along the last axis.",
            lambda f: call(f, _PROBS).shape == (4,),
        ),
        Mistake(
            "negated",
            "Your entropy is negative: it seems to have lost its minus sign; an entropy is never negative.",
            lambda f: np.all(call(f, _PROBS) < 0),
        ),
        Mistake(
            "bits",
            "Your entropy seems to be in bits; the spec asks for nats, with the natural logarithm.",
            lambda f: same(call(f, _PROBS), np.sum(_minus_p_log_p(_PROBS, np.log2), axis=-1)),
        ),
        Mistake(
            "mean_over_classes",
            "Your entropy seems to average over the classes; an entropy adds up over them.",
            lambda f: same(call(f, _PROBS), np.mean(_minus_p_log_p(_PROBS), axis=-1)),
        ),
        Mistake(
            "clipped",
            "Your entropy seems to clip small probabilities before the log, which changes it for tiny ones; "
            "only exact zeros need care.",
            lambda f: (
                same(call(f, _PROBS), np.sum(_minus_p_log_p(_PROBS), axis=-1))
                and same(call(f, _TINY), np.sum(-_TINY * np.log(np.clip(_TINY, 1e-3, 1.0)), axis=-1))
            ),
        ),
    ),
)

# Members' predictions [M, N, K]: three members at two inputs over three classes, none certain.
_MEMBERS = np.array(
    [[[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]], [[0.5, 0.4, 0.1], [0.7, 0.2, 0.1]], [[0.6, 0.2, 0.2], [0.1, 0.8, 0.1]]]
)
_AGREE = np.stack([_MEMBERS[0]] * 3)  # identical members: nothing to disagree about
_SURE_APART = np.eye(3)[:, None, :] * np.ones((1, 2, 1))  # each member sure, each of another class


def _parts(function, members=_MEMBERS):
    return call(function, members)


DECOMPOSITION = Function(
    "uncertainty_decomposition",
    (
        Mistake(
            "size_one_axes_lost",
            "Your parts lose an axis of size one: with one input, each part still has one entry per input.",
            lambda f: _parts(f)[0].shape == (2,) and _parts(f, _MEMBERS[:, :1])[0].shape != (1,),
        ),
        Mistake(
            "wrong_axis",
            "Your parts seem to average over another axis than the members': the members are on the first axis, "
            "the inputs on the second, and each part has one entry per input.",
            # three members at two inputs: one entry per member, or a failure unless there are as many inputs
            lambda f: (
                (fails(f, _MEMBERS) and not fails(f, np.concatenate([_MEMBERS, _MEMBERS[:, :1]], axis=1)))
                or _parts(f)[0].shape == (3,)
            ),
        ),
        Mistake(
            "members_reordered",
            "Your parts change when the members are put in another order: use every member alike, not one of them.",
            lambda f: not same(_parts(f), _parts(f, _MEMBERS[::-1])),
        ),
        Mistake(
            "members_from_the_notebook",
            "Your parts change when every member is counted twice: divide by the number of members you are "
            "given, not by a number from the notebook.",
            lambda f: not same(_parts(f), _parts(f, np.concatenate([_MEMBERS] * 2))),
        ),
        Mistake(
            "data_and_knowledge_swapped",
            "Your data and knowledge parts seem swapped: when every member predicts the same, all of the "
            "uncertainty is data uncertainty.",
            lambda f: same(_parts(f, _AGREE)[1], 0.0) and np.all(_parts(f, _AGREE)[2] > 0.1),
        ),
        Mistake(
            "total_is_mean_entropy",
            "Your total seems to be the members' average entropy; the total is the entropy of the averaged prediction.",
            lambda f: same(_parts(f, _SURE_APART)[0], 0.0),
        ),
        Mistake(
            "data_is_entropy_of_mean",
            "Your data part seems to be the entropy of the averaged prediction; it is the members' average entropy.",
            lambda f: same(_parts(f, _SURE_APART)[2], 0.0) and np.all(_parts(f, _SURE_APART)[1] > 0.1),
        ),
        Mistake(
            "knowledge_negated",
            "Your knowledge part is negative where the members disagree: it is the total minus the data part.",
            lambda f: np.all(_parts(f, _SURE_APART)[2] < -0.1),
        ),
        Mistake(
            "bits",
            "Your parts seem to be in bits; the spec asks for nats, with the natural logarithm.",
            lambda f: same(_parts(f, _SURE_APART)[0], np.log2(3.0)),
        ),
    ),
)

# Four members (axis 0) at two inputs; the spread of all four is np.var(_MEMBER_MEANS, axis=0).
_MEMBER_MEANS = np.array([[0.0, 1.0], [1.0, 3.0], [3.0, 0.0], [6.0, 2.0]])


def _spread_of(function, size, means=_MEMBER_MEANS):
    return call(function, means, size)


def _scaled_spread(factor):
    """Whether ``function``'s answer for pairs is ``factor(size, members)`` times the spread of all four."""
    return lambda f: same(_spread_of(f, 2), factor(2, len(_MEMBER_MEANS)) * np.var(_MEMBER_MEANS, axis=0))


SPREAD = Function(
    "expected_spread",
    (
        Mistake(
            "members_on_last_axis",
            "Your expected spread seems to work along the last axis; the members are on the first axis, and "
            "every other axis is kept.",
            lambda f: _spread_of(f, 2).shape == (4,),
        ),
        Mistake(
            "size_one_axes_lost",
            "Your expected spread loses an axis of size one: keep every axis after the members' one, whatever "
            "its size.",
            lambda f: _spread_of(f, 2).shape == (2,) and _spread_of(f, 2, _MEMBER_MEANS[:, :1]).shape != (1,),
        ),
        Mistake(
            "not_finite_for_one",
            "Your expected spread fails or is not finite for subsets of a single member, which have no spread "
            "at all: check the subset factor where the subset has one member.",
            lambda f: fails(f, _MEMBER_MEANS, 1) or not np.all(np.isfinite(_spread_of(f, 1))),
        ),
        Mistake(
            "size_ignored",
            "Your expected spread does not change with the subset size; a subset of fewer members sees less "
            "of the members' spread.",
            lambda f: same(_spread_of(f, 2), _spread_of(f, 3)),
        ),
        Mistake(
            "one_subset",
            "Your expected spread seems to be the spread of one subset, the first members; the spec asks for "
            "the average over every subset of that size.",
            lambda f: same(_spread_of(f, 2), np.var(_MEMBER_MEANS[:2], axis=0)),
        ),
        Mistake(
            "members_from_the_notebook",
            "Your expected spread seems to count the members from the notebook, not from the array it is "
            "given: the number of members is the length of its first axis.",
            _scaled_spread(lambda size, members: (size - 1) / size * 10 / 9),
        ),
        Mistake(
            "no_finite_population_factor",
            "Your expected spread seems to have only the subset's factor: the subsets are drawn from a finite "
            "set of members, which the identity's second factor accounts for.",
            _scaled_spread(lambda size, members: (size - 1) / size),
        ),
    ),
)

TABLE = {
    "gaussian_mixture_moments": GAUSSIAN,
    "laplace_mixture_moments": LAPLACE,
    "entropy": ENTROPY,
    "uncertainty_decomposition": DECOMPOSITION,
    "expected_spread": SPREAD,
}
