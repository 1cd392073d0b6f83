"""bdl.difference: a failed assert_close says how the values differ, truly, where a pattern fits."""

import re

import numpy as np
import pytest

from bdl.checks import assert_close
from bdl.difference import COARSE

EXPECTED = np.array([[0.5, -1.0], [2.0, 3.0], [-4.0, 1.5]])


def _message(actual, expected=EXPECTED):
    with pytest.raises(AssertionError) as failed:
        assert_close(actual, expected, "the value")
    return str(failed.value)


@pytest.mark.parametrize(
    "actual, said",
    [
        (EXPECTED + 0.919, "(largest difference 0.92): every value is off by the same constant, 0.92"),
        (2 * EXPECTED, "every value is 2 times the expected one"),
        (-EXPECTED, "every value has the opposite sign"),
        (EXPECTED * (1 + 2e-4), "every value is right to 0.1 % but not to the test's tolerance"),
        (np.where(np.arange(6).reshape(3, 2) == 3, 7.0, EXPECTED), "1 of 6 values is wrong, the others right"),
        (
            np.vstack([EXPECTED[:1], EXPECTED[1:] + [[1.0, -2.0], [0.5, 3.0]]]),
            "the first row is right, every later one wrong",
        ),
        (np.vstack([EXPECTED[:1] + 1.0, EXPECTED[1:]]), "the first row is wrong, every later one right"),
        (
            np.where(np.arange(6).reshape(3, 2) == 0, np.nan, EXPECTED),
            "should be finite (found nan or inf): 1 of 6 values is nan",
        ),
        (np.full((3, 2), np.inf), "every value is inf"),
        (np.where(EXPECTED == 3.0, np.nan, EXPECTED), "1 of 6 values is nan, the others finite"),
        (np.array(EXPECTED.sum()), "one number, the sum of the values expected one by one"),
        (np.array(EXPECTED.mean()), "one number, the mean of the values expected one by one"),
        (np.full((3, 2), 0.25), "every value is the same, 0.25, where the expected ones differ"),
        (EXPECTED**2, "every value is the square of the expected one"),
        (EXPECTED.T, "the expected values, transposed"),
        (EXPECTED.reshape(6), "the expected values, arranged in shape (6,)"),
        (2 * EXPECTED + 0.5, "every value is 2 times the expected one, plus 0.5"),
        (EXPECTED + np.abs(EXPECTED) + 0.1, "every value is larger than the expected one, by 0.6 to 4.1"),
    ],
)
def test_a_pattern_is_said(actual, said):
    assert said in _message(actual)


def test_nan_where_the_expected_value_is_0_is_said():
    expected = np.array([0.0, 0.5, 0.0, 2.0])
    assert _message(np.array([np.nan, 0.5, np.nan, 2.0]), expected).endswith(
        "2 of 4 values are nan, exactly where the expected value is 0, the others finite"
    )


def test_a_standard_deviation_for_a_variance_is_said():
    variances = np.abs(EXPECTED)
    assert "every value is the square root of the expected one" in _message(np.sqrt(variances), variances)


def test_a_step_from_the_input_is_described_as_a_step():
    """FGSM's adversarial inputs: the inputs moved the other way, or 1.5 times as far."""
    inputs = np.array([[0.0], [1.0], [-1.0]])
    expected = inputs + [[-0.1], [0.1], [0.1]]
    for steps, said in [(-1.0, "every step has the opposite sign"), (1.5, "every step is 1.5 times the expected one")]:
        with pytest.raises(AssertionError) as failed:
            assert_close(inputs + steps * (expected - inputs), expected, "the inputs", start=inputs)
        assert str(failed.value).endswith(f"measured as steps from the inputs, {said}"), failed.value


def test_values_of_another_quantity_are_named():
    with pytest.raises(AssertionError) as failed:
        assert_close([0.0, 0.7], [0.7, 0.0], "the data uncertainty", others={"the knowledge uncertainty": [0.0, 0.7]})
    assert str(failed.value).endswith("every value is that of the knowledge uncertainty")


def test_values_that_fit_no_pattern_get_how_many_are_larger():
    message = _message(np.array([[0.1, 7.0], [-2.0, 3.5], [1.0, 1.0]]))
    assert message.endswith("): 3 of 6 values are larger than the expected ones, the others smaller"), message


@pytest.mark.parametrize(
    "actual, said",
    [
        (1.5, "it is larger than the expected value"),  # any two numbers differ by some factor: no factor said
        (-0.25, "it is smaller than the expected value"),
        (2.0000004, "it is 2 times the expected value"),
        (1 / 3, "it is 0.3333 times the expected value"),
        (-1.0, "it has the opposite sign of the expected value"),
    ],
)
def test_one_number_gets_a_simple_factor_or_its_direction(actual, said):
    assert _message(np.array(actual), np.array(1.0)).endswith(said)


def _place(text):
    """The place of ``text``'s last digit: 0.01 for "0.92", 10 for "120", 1e-05 for "1.2e-04"."""
    mantissa, _, exponent = text.partition("e")
    if "." in mantissa:
        place = 10.0 ** -len(mantissa.split(".")[1])
    else:
        place = 10.0 ** (len(mantissa) - len(mantissa.rstrip("0"))) if mantissa.strip("-0") else 1.0
    return place * 10.0 ** int(exponent or 0)


def _coarse(text, value, within):
    """``text`` says ``value`` truly (to its last digit, or "under" a bound) and pins it no finer than
    COARSE times ``within``, the check's tolerance in ``value``'s units."""
    if text.startswith("under "):
        bound = float(text[6:])
        assert abs(value) < bound and bound >= COARSE * within * (1 - 1e-9), (text, value, within)
        return
    place = _place(text)
    assert abs(value - float(text)) <= place / 2 * (1 + 1e-6), (text, value)
    assert place >= COARSE * within * (1 - 1e-9), (text, value, within)


def test_what_is_said_is_true_of_random_answers():
    """Over many random answers (exact transformations, noise, mixtures of both), each description
    holds of the numbers it describes."""
    generator = np.random.default_rng(0)
    said_any = set()
    for _ in range(3000):
        expected = generator.normal(size=tuple(generator.integers(1, 4, size=generator.integers(1, 3))))
        actual = expected.copy()
        kind = generator.integers(9)
        if kind == 0:
            actual = actual + generator.normal()
        elif kind == 1:
            actual = actual * generator.normal()
        elif kind == 2:
            actual[generator.random(actual.shape) < 0.5] += 1.0
        elif kind == 3:
            actual = np.full_like(actual, generator.normal())
        elif kind == 4:
            actual = actual * generator.normal() + generator.normal()
        elif kind == 5:
            actual = actual + np.abs(generator.normal(size=actual.shape)) * generator.choice([-1, 1])
        elif kind == 6:
            actual = actual + (0.1 + np.abs(generator.normal(size=actual.shape))) * generator.choice(
                [-1, 1], size=actual.shape
            )
        else:
            actual = actual + generator.normal(scale=10.0 ** -generator.integers(0, 6), size=actual.shape)
        try:
            assert_close(actual, expected, "x")
            continue
        except AssertionError as failed:
            message = str(failed)
        wrong = ~np.isclose(actual, expected, rtol=1e-5, atol=1e-6)
        within = 1e-6 + 1e-5 * np.abs(expected).max()  # the check's tolerance
        difference = np.abs(actual - expected).max()
        _coarse(re.search(r"\(largest difference (under \S+|\S+)\)", message).group(1), difference, within)
        if found := re.search(r"off by the same constant, (\S+)$", message):
            said_any.add("offset")
            offsets = actual - expected
            assert np.allclose(offsets, offsets.mean(), atol=within)
            _coarse(found.group(1), offsets.mean(), within)
        elif found := re.search(r"every value is (\S+) times the expected one, (plus|minus) (\S+)$", message):
            said_any.add("affine")
            factor, offset = np.polyfit(expected.ravel(), actual.ravel(), 1)
            _coarse(found.group(1), factor, within / np.abs(expected).max())
            _coarse(found.group(3), abs(offset), within)
            assert (offset > 0) == (found.group(2) == "plus")
            assert np.allclose(actual, factor * expected + offset, rtol=1e-3, atol=1e-4 * abs(offset))
        elif found := re.search(
            r"every value is (larger|smaller) than the expected one, by (under \S+|\S+) to (\S+)$", message
        ):
            said_any.add("direction")
            offset = actual - expected if found.group(1) == "larger" else expected - actual
            assert np.all(offset > 0)
            _coarse(found.group(2), offset.min(), within)
            _coarse(found.group(3), offset.max(), within)
        elif found := re.search(
            r"every value is (larger|smaller) than the expected one where that is below (\S+), "
            r"(larger|smaller) where above$",
            message,
        ):
            said_any.add("spread")
            below = expected < float(found.group(2))
            assert _place(found.group(2)) >= COARSE * within * (1 - 1e-9)  # a round number, not a value
            assert np.all((actual > expected)[below] == (found.group(1) == "larger"))
            assert np.all((actual > expected)[~below] == (found.group(3) == "larger"))
            assert below.any() and (~below).any() and wrong.all()
        elif found := re.search(
            r"(\d+) of (\d+) values (is|are) larger than the expected ones, the others smaller$", message
        ):
            said_any.add("mixed")
            assert int(found.group(1)) == np.sum(actual > expected) and wrong.all()
        elif found := re.search(r"every value is (\S+) times", message):
            said_any.add("factor")
            scale = np.abs(expected) > 1e-6
            factor = np.sum(actual[scale] * expected[scale]) / np.sum(expected[scale] ** 2)
            assert np.allclose(actual, factor * expected, rtol=1e-4, atol=1e-5)
            _coarse(found.group(1), factor, within / np.abs(expected).max())
        elif "the square root of the expected one" in message:
            assert np.allclose(actual, np.sqrt(expected), rtol=1e-4, atol=1e-6)
        elif "the square of the expected one" in message:
            assert np.allclose(actual, np.square(expected), rtol=1e-4, atol=1e-6)
        elif found := re.search(r"(\d+) of (\d+) values (is|are) wrong", message):
            said_any.add("some")
            assert int(found.group(1)) == wrong.sum() < wrong.size
        elif found := re.search(r"every value is the same, (\S+), where", message):
            said_any.add("constant")
            assert np.allclose(actual, float(found.group(1)), rtol=1e-3, atol=1e-5)
            assert not np.allclose(expected, expected.flat[0], rtol=1e-5, atol=1e-6)
        elif found := re.search(r"it is (\S+) times the expected value$", message):
            said_any.add("one factor")
            assert np.isclose(actual.item(), float(found.group(1)) * expected.item(), rtol=1e-3, atol=0)
        elif "it has the opposite sign of the expected value" in message:
            said_any.add("one sign")
            assert np.isclose(actual.item(), -expected.item(), rtol=1e-4, atol=0)
        elif found := re.search(r"it is (larger|smaller) than the expected value$", message):
            said_any.add("one direction")
            assert (actual.item() > expected.item()) == (found.group(1) == "larger")
        elif "right to 0.1 %" in message:
            said_any.add("precision")
            assert np.allclose(actual, expected, rtol=1e-3, atol=1e-6)
        elif "the first" in message:
            said_any.add("rows")
            rows = wrong.reshape(len(expected), -1).any(axis=1)
            assert (not rows[0] and rows[1:].all()) or (rows[0] and not rows[1:].any())
    assert said_any == {
        "offset",
        "factor",
        "some",
        "precision",
        "rows",
        "constant",
        "one direction",
        "one factor",
        "affine",
        "direction",
        "spread",
        "mixed",
    }, said_any


# assert_mean_close: a mean over examples, described by how the answer does on each example alone.
_Y = np.array([[0.0], [1.0], [3.0]], "float32")
_EACH = (_Y[:, 0] ** 2).astype("float64")  # the expected value of each example: its square


def _mean_message(function, each=_EACH):
    with pytest.raises(AssertionError) as failed:
        from bdl.checks import assert_mean_close

        assert_mean_close(function, (_Y,), each, "the loss")
    return str(failed.value)


@pytest.mark.parametrize(
    "function, said",
    [
        (
            lambda y: np.sum(y**2),
            "right for each of the 3 examples alone, wrong for them together (the sum of theirs, not their mean)",
        ),
        (lambda y: np.mean(y**2) + y.shape[0] - 1.0, "right for each of the 3 examples alone, wrong for them together"),
        (lambda y: np.mean(y**2 + 0.5), "for each example alone, every value is off by the same constant, 0.5"),
        (
            lambda y: np.mean(-(y**2)),
            "for each example alone, the first value is right, every later one wrong",
        ),  # -0 == 0
        (
            lambda y: np.mean(np.where(y > 2, 0.0, y**2)),
            "for each example alone, 1 of 3 values is wrong, the others right",
        ),
    ],
)
def test_a_mean_over_examples_says_how_each_example_does(function, said):
    assert said in _mean_message(function)


def test_a_mean_that_cannot_take_one_example_is_described_as_one_number():
    from bdl.checks import assert_mean_close

    assert_mean_close(lambda y: np.mean(y**2), (_Y,), _EACH, "the loss")

    def batch_only(y):
        assert len(y) > 1
        return np.mean(y**2) + 1.0

    assert _mean_message(batch_only).endswith("): it is larger than the expected value")  # the mean's alone


def _moved(actual, expected, rtol, atol):
    """The answers a student could make of ``actual`` with the numbers its failing message shows: moved
    by each number either way, or divided by it."""
    with pytest.raises(AssertionError) as failed:
        assert_close(actual, expected, "the loss", rtol=rtol, atol=atol)
    numbers = [
        float(text) for text in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", str(failed.value).split("values", 1)[1])
    ]
    assert numbers, failed.value
    return [
        candidate
        for value in numbers
        for candidate in (actual + value, actual - value) + ((actual / value,) if value else ())
    ]


@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-6), (1e-4, 1e-4)])
@pytest.mark.parametrize("shape", [(), (5,)])
def test_an_answer_moved_by_the_numbers_its_message_shows_still_fails(rtol, atol, shape):
    """A Gaussian NLL without its 0.5 * log(2 * pi), or off by a factor: the message says by about how
    much, and adding (or dividing by) the number it shows does not pass the check."""
    expected = np.random.default_rng(3).uniform(1.0, 4.0, size=shape)
    for actual in (expected - 0.5 * np.log(2 * np.pi), expected * 1.2345):
        for candidate in _moved(actual, expected, rtol, atol):
            assert not np.allclose(candidate, expected, rtol=rtol, atol=atol), candidate - expected


def test_a_guess_from_the_message_passes_by_luck_alone():
    """Over many one-number answers off by a random amount, the numbers shown move an answer into the
    tolerance about once in fifty tries at most (the step is 100 tolerances wide)."""
    generator = np.random.default_rng(4)
    passed = tries = 0
    for _ in range(400):
        expected = np.array(generator.uniform(-5, 5))
        actual = expected + generator.choice([-1, 1]) * 10.0 ** generator.uniform(-3, 1)
        if np.allclose(actual, expected, rtol=1e-4, atol=1e-4):
            continue
        candidates = _moved(actual, expected, 1e-4, 1e-4)
        passed += any(np.allclose(candidate, expected, rtol=1e-4, atol=1e-4) for candidate in candidates)
        tries += 1
    assert passed <= 0.05 * tries, (passed, tries)
