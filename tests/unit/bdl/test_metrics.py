"""bdl.metrics: the AUROC against hand-computed cases."""

import itertools

import numpy as np
import pytest

from bdl.metrics import auroc


def _pairs(known, unknown):
    """The definition, pair by pair: P(unknown > known) + P(tie) / 2."""
    wins = [1.0 if u > k else 0.5 if u == k else 0.0 for k, u in itertools.product(known, unknown)]
    return sum(wins) / len(wins)


def test_perfect_separation_is_one():
    assert auroc([0.1, 0.2, 0.3], [0.4, 0.9]) == 1.0


def test_reversed_order_is_zero():
    assert auroc([0.4, 0.9], [0.1, 0.2, 0.3]) == 0.0


def test_all_ties_is_one_half():
    assert auroc([2.0, 2.0, 2.0], [2.0, 2.0]) == 0.5


def test_a_small_case_with_ties_by_hand():
    # known {1, 2, 3}, unknown {2, 4}: the 6 pairs (k, u) are
    # (1,2) win, (2,2) tie, (3,2) loss, (1,4) (2,4) (3,4) wins: (4 + 0.5) / 6.
    assert auroc([1, 2, 3], [2, 4]) == pytest.approx(0.75)
    # known {0, 1, 1}, unknown {1, 1}: 4 ties and 2 wins out of 6: (2 + 2) / 6.
    assert auroc([0, 1, 1], [1, 1]) == pytest.approx(2 / 3)


def test_single_scores():
    assert auroc([0.0], [1.0]) == 1.0
    assert auroc([1.0], [0.0]) == 0.0
    assert auroc([1.0], [1.0]) == 0.5


def test_matches_the_pairwise_definition_on_random_scores_with_ties():
    rng = np.random.default_rng(0)
    known = rng.integers(0, 6, size=40)
    unknown = rng.integers(2, 8, size=25)
    assert auroc(known, unknown) == pytest.approx(_pairs(known, unknown))


def test_invariant_to_strictly_increasing_transforms():
    rng = np.random.default_rng(1)
    known, unknown = rng.normal(0, 1, 50), rng.normal(1, 1, 30)
    value = auroc(known, unknown)
    for transform in (np.exp, lambda s: 3 * s - 7, lambda s: s**3, np.arctan):
        assert auroc(transform(known), transform(unknown)) == pytest.approx(value)
    # A decreasing transform swaps the groups' roles: the AUROC becomes 1 - AUROC.
    assert auroc(-known, -unknown) == pytest.approx(1 - value)


def test_swapping_the_groups_gives_one_minus_the_auroc():
    known, unknown = [0.3, 0.1, 0.5, 0.5], [0.5, 0.2, 0.9]
    assert auroc(unknown, known) == pytest.approx(1 - auroc(known, unknown))


def test_accepts_lists_arrays_and_integers_and_returns_a_float():
    value = auroc(np.array([1, 2], dtype=np.int32), (3.0, 4.0))
    assert isinstance(value, float) and value == 1.0


@pytest.mark.parametrize(
    "known, unknown, error, message",
    [
        ([], [1.0], ValueError, "scores_known is empty"),
        ([1.0], [], ValueError, "scores_unknown is empty"),
        ([[1.0, 2.0]], [1.0], ValueError, "one-dimensional"),
        (1.0, [1.0], ValueError, "one-dimensional"),
        ([1.0, np.nan], [1.0], ValueError, "NaN or infinite"),
        ([1.0], [np.inf], ValueError, "NaN or infinite"),
        (["a", "b"], [1.0], TypeError, "must be numbers"),
    ],
)
def test_bad_input_raises_a_clear_error(known, unknown, error, message):
    with pytest.raises(error, match=message):
        auroc(known, unknown)
