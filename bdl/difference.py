"""How a student's numbers differ from the expected ones, in words: what the answer does, never a guess
at its code.

``assert_close`` (``bdl.checks``) adds this to its message when a check fails. It is computed in the
examiner from the two arrays the check already holds, so it costs no question to the kernel. Each
description holds only counts, shapes and at most one number (an offset or a factor), written by
``bdl.checks.number``; it says nothing a correct answer could get, since a correct answer passes the
check and gets no message at all. One number gets a simple factor of the expected one, or only its
direction (larger or smaller).
"""
import numpy as np

# Near misses: within this relative tolerance the values are right but for rounding (float32 for
# float64, a sum in another order over many terms), not wrong.
ROUNDING = 1e-3
# The factors by which one number may be said to differ from another: any two numbers differ by some
# factor, but seldom by one of these to ten times a test's tolerance unless a sum, a sign or a missing
# half made it so.
SIMPLE_FACTORS = (-1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 10, -2.0, -1 / 2)


def described(actual, expected, rtol, atol, number):
    """A phrase that says how ``actual`` differs from ``expected`` (arrays of one shape, ``actual``
    finite) beyond ``rtol`` and ``atol``, or "" when no pattern fits; ``number`` writes a number."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    wrong = ~np.isclose(actual, expected, rtol=rtol, atol=atol)
    size = wrong.size
    if np.allclose(actual, expected, rtol=ROUNDING, atol=atol):
        return "every value is right to 0.1 % but not to the test's tolerance (a loss of precision)"
    if expected.ndim >= 1 and expected.shape[0] > 1:
        rows = wrong.reshape(expected.shape[0], -1).any(axis=1)
        item = "value" if expected.ndim == 1 else "row"
        if not rows[0] and rows[1:].all():
            return f"the first {item} is right, every later one wrong"
        if rows[0] and not rows[1:].any():
            return f"the first {item} is wrong, every later one right"
    if size == 1:  # one number is off by some constant and some factor: only a simple factor tells
        return _one_number(float(actual.flat[0]), float(expected.flat[0]), rtol, atol, number)
    # a standard deviation where a variance belongs, or the reverse
    if np.all(expected >= 0) and np.allclose(actual, np.sqrt(expected), rtol=rtol * 10, atol=atol):
        return "every value is the square root of the expected one"
    if np.allclose(actual, np.square(expected), rtol=rtol * 10, atol=atol):
        return "every value is the square of the expected one"
    if wrong.sum() < size:
        return f"{_count(int(wrong.sum()), size, number)} wrong, the others right"
    varies = not np.allclose(expected, expected.flat[0], rtol=rtol, atol=atol)
    if varies and np.allclose(actual, actual.flat[0], rtol=rtol, atol=atol):
        # a constant answer: a value that never reads its input, or a reduction over the whole batch
        value = float(actual.flat[0]) + 0.0  # -0.0 + 0.0 is 0.0: never "-0"
        return f"every value is the same, {number(value, 4)}, where the expected ones differ"
    offset = actual - expected
    if np.allclose(offset, offset.mean(), rtol=0, atol=max(atol, rtol * np.abs(expected).max())):
        return f"every value is off by the same constant, {number(float(offset.mean()), 4)}"
    scale = np.abs(expected) > atol
    if scale.any():
        factor = float(np.sum(actual[scale] * expected[scale]) / np.sum(expected[scale] ** 2))
        if abs(factor) > 1e-6 and np.allclose(actual, factor * expected, rtol=rtol * 10, atol=atol):
            if np.isclose(factor, -1.0):
                return "every value has the opposite sign"
            return f"every value is {number(factor, 4)} times the expected one"
    return ""


def _one_number(actual, expected, rtol, atol, number):
    """How one number differs from another: a simple factor of it (2, a half, the opposite sign, ...)
    where the two agree to ten times the test's tolerance, else only which is larger."""
    if abs(expected) > atol:
        ratio = actual / expected
        for factor in SIMPLE_FACTORS:
            if np.isclose(ratio, factor, rtol=10 * rtol, atol=0):
                if factor == -1:
                    return "it has the opposite sign of the expected value"
                return f"it is {number(factor, 4)} times the expected value"
    return f"it is {'larger' if actual > expected else 'smaller'} than the expected value"


def described_shape(actual, expected, number, shape_text):
    """A phrase that says how ``actual``'s numbers relate to ``expected``'s when their shapes differ,
    or "" when no pattern fits."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    if not np.all(np.isfinite(actual)):
        return ""
    if actual.size == 1 and expected.size > 1:
        value = actual.reshape(())
        for name, total in (("sum", expected.sum()), ("mean", expected.mean())):
            if np.isclose(value, total, rtol=1e-5, atol=1e-6):
                return f"one number, the {name} of the values expected one by one"
        return f"one number where {number(expected.size)} are expected"
    if actual.size == expected.size:
        if actual.ndim == 2 and actual.T.shape == expected.shape and np.allclose(actual.T, expected, 1e-5, 1e-6):
            return "the expected values, transposed"
        if np.allclose(actual.reshape(expected.shape), expected, rtol=1e-5, atol=1e-6):
            return f"the expected values, arranged in shape {shape_text(actual.shape)}"
        return f"as many numbers as expected ({number(expected.size)}), in another arrangement"
    return ""


def described_nonfinite(actual, number):
    """Where ``actual`` is nan or infinite, in words."""
    actual = np.asarray(actual, float)
    bad = ~np.isfinite(actual)
    kinds = " or ".join(name for name, found in (("nan", np.isnan(actual).any()), ("inf", np.isinf(actual).any()))
                        if found)
    if actual.size == 1:
        return f"it is {kinds}"
    if bad.all():
        return f"every value is {kinds}"
    return f"{_count(int(bad.sum()), actual.size, number)} {kinds}, the others finite"


def _count(part, whole, number):
    """"1 of 4 values is" or "3 of 4 values are"."""
    return f"{number(part)} of {number(whole)} values {'is' if part == 1 else 'are'}"
