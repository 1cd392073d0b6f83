"""Scores of how well an uncertainty measure separates two groups of inputs."""

import numpy as np
from scipy.stats import rankdata


def _scores(values, name):
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers, got {values!r:.80}") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty: the AUROC needs at least one score in each group")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return array


def auroc(scores_known, scores_unknown):
    """Return the area under the ROC curve for telling unknown inputs from known ones.

    A higher score should mean "more likely unknown" (e.g. a predictive
    entropy). The AUROC is the probability that a random unknown input scores
    higher than a random known one, ties counted as 1/2: 1 for perfect
    separation, 0.5 for none, 0 when the order is reversed. Both arguments are
    one-dimensional, non-empty and finite; returns a Python float.
    """
    known = _scores(scores_known, "scores_known")
    unknown = _scores(scores_unknown, "scores_unknown")
    # Mann-Whitney: with average ranks over both groups, the unknown group's
    # rank sum minus its smallest possible value counts the pairs it wins,
    # a tie counting one half.
    ranks = rankdata(np.concatenate([known, unknown]))
    n_known, n_unknown = known.size, unknown.size
    wins = ranks[n_known:].sum() - n_unknown * (n_unknown + 1) / 2
    return float(wins / (n_known * n_unknown))
