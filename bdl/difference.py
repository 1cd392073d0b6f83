"""How a student's answer differs from what was expected, in words: what the answer does, never a guess
at its code.

``assert_close`` (``bdl.checks``) adds this to its message when a check fails, so that a student learns
by about how much and which way an answer is off. It is computed in the examiner from the two arrays
the check already holds (and what the test knows of them: ``start``, ``others``), so it costs no
question to the kernel. It says nothing a correct answer could get, since a correct answer passes the
check and gets no message; and a number worked out from the expected values is ``coarse``, so that it
never says where the expected value lies. ``described_failed_call`` describes a call that raised.
"""

import numpy as np

from bdl import loaded_tensorflow
from bdl.words import number, shape_text, shown

# Near misses: within this relative tolerance the values are right but for rounding (float32 for
# float64, a sum in another order over many terms), not wrong.
ROUNDING = 1e-3
# The factors by which one number may be said to differ from another: any two numbers differ by some
# factor, but seldom by one of these to ten times a test's tolerance unless a sum, a sign or a missing
# half made it so.
SIMPLE_FACTORS = (-1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 1 / 2, 1 / 3, 1 / 4, 1 / 5, 1 / 10, -2.0, -1 / 2)
# A number worked out from the expected values is shown to a step no finer than this many times the
# test's tolerance (and to two significant digits at most): guessing the expected value from it lands
# within the tolerance about once in fifty, by luck.
COARSE = 100


def tolerance(expected, rtol, atol):
    """The widest distance from ``expected``'s values that a check with ``rtol`` and ``atol`` accepts."""
    expected = np.asarray(expected, float)
    return float(atol + rtol * np.max(np.abs(expected))) if expected.size else float(atol)


def _finest_step(step_tolerance):
    """The finest step a number worked out from the expected values is shown to: the power of ten at or
    above ``COARSE`` times ``step_tolerance`` (the test's tolerance in the number's units)."""
    return float(10.0 ** np.ceil(np.log10(max(COARSE * step_tolerance, 1e-300))))


def coarse(value, step_tolerance):
    """``value``, a number worked out from the expected values, as a message may show it: rounded to
    ``_finest_step`` at the finest and to two significant digits at most; "under 0.01" (that step)
    where it is smaller. It says how far off an answer is and in which way, never where the expected
    value lies: an answer moved by the number shown still fails (a missing ``0.5 * log(2 * pi)`` shows
    as 0.92 or 0.9, and adding 0.92 is not the formula)."""
    step = _finest_step(step_tolerance)
    if abs(value) < step:
        return f"under {number(step)}"
    step = max(step, 10.0 ** (np.floor(np.log10(abs(value))) - 1))
    return number(float(np.round(value / step) * step))


def largest_difference(actual, expected, rtol, atol):
    """ "largest difference 0.92": how far the farthest value is from its expected one, ``coarse``."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    return f"largest difference {coarse(float(np.max(np.abs(actual - expected))), tolerance(expected, rtol, atol))}"


def described_with(actual, expected, rtol, atol, start=None, others=None):
    """``described``, first looking for what the test knows of the check: values that are another
    quantity's (``others``, {name: its expected values}), or a step from ``start`` that differs in a
    pattern (the answer moves its input the other way, or twice as far)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    for name, values in (others or {}).items():
        values = np.asarray(values, float)
        if (
            values.shape == expected.shape
            and np.allclose(actual, values, rtol=rtol, atol=atol)
            and not np.allclose(values, expected, rtol=rtol, atol=atol)
        ):
            return f"every value is that of {name}"
    if start is not None:
        start = np.broadcast_to(np.asarray(start, float), expected.shape)
        # only a pattern of every step: the test's tolerance is for the values, not for the steps
        step = described(actual - start, expected - start, rtol, atol, tolerance(expected, rtol, atol))
        if step.startswith("every value") and "0.1 %" not in step:
            return f"measured as steps from the inputs, {step.replace('every value', 'every step', 1)}"
    return described(actual, expected, rtol, atol)


def described(actual, expected, rtol, atol, within=None):
    """A phrase that says how ``actual`` differs from ``expected`` (arrays of one shape, ``actual``
    finite) beyond ``rtol`` and ``atol``, or "" when no pattern fits. It holds only counts, shapes and at
    most two numbers (an offset, a factor, a range, a cut), written by ``bdl.words.number``.
    ``within``: the check's tolerance, where ``expected`` is not what it compares (steps from an input)."""
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    within = tolerance(expected, rtol, atol) if within is None else within
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
        return _one_number(float(actual.flat[0]), float(expected.flat[0]), rtol, atol)
    # a standard deviation where a variance belongs, or the reverse
    if np.all(expected >= 0) and np.allclose(actual, np.sqrt(expected), rtol=rtol * 10, atol=atol):
        return "every value is the square root of the expected one"
    if np.allclose(actual, np.square(expected), rtol=rtol * 10, atol=atol):
        return "every value is the square of the expected one"
    if wrong.sum() < size:
        return f"{_count(int(wrong.sum()), size)} wrong, the others right"
    varies = not np.allclose(expected, expected.flat[0], rtol=rtol, atol=atol)
    if varies and np.allclose(actual, actual.flat[0], rtol=rtol, atol=atol):
        # a constant answer: a value that never reads its input, or a reduction over the whole batch
        value = float(actual.flat[0]) + 0.0  # -0.0 + 0.0 is 0.0: never "-0"
        return f"every value is the same, {number(value, 4)}, where the expected ones differ"
    offset = actual - expected
    if np.allclose(offset, offset.mean(), rtol=0, atol=max(atol, rtol * np.abs(expected).max())):
        return f"every value is off by the same constant, {coarse(float(offset.mean()), within)}"
    scale = np.abs(expected) > atol
    # a factor's error moves the largest expected value by as much times that value
    per_factor = within / max(float(np.abs(expected).max()), atol)
    if scale.any():
        factor = float(np.sum(actual[scale] * expected[scale]) / np.sum(expected[scale] ** 2))
        if abs(factor) > 1e-6 and np.allclose(actual, factor * expected, rtol=rtol * 10, atol=atol):
            if np.isclose(factor, -1.0):
                return "every value has the opposite sign"
            factor_shown = coarse(factor, per_factor)
            if not factor_shown.startswith("under"):
                return f"every value is {factor_shown} times the expected one"
        affine = _affine(actual, expected, rtol, atol, within, per_factor)
        if affine:
            return affine
    if wrong.all() and (np.all(offset > 0) or np.all(offset < 0)):
        low, high = np.abs(offset).min(), np.abs(offset).max()
        return (
            f"every value is {'larger' if offset.flat[0] > 0 else 'smaller'} than the expected one, "
            f"by {coarse(float(low), within)} to {coarse(float(high), within)}"
        )
    if wrong.all():
        return _spread(actual.ravel(), expected.ravel(), within)
    return ""


def _spread(actual, expected, within):
    """Of values some larger and some smaller than expected: whether the smaller ones are where the
    expected values are smallest and the larger where largest (a wider spread) or the reverse (a
    narrower one), else how many of each."""
    order = np.argsort(expected, kind="stable")
    larger, ordered = (actual > expected)[order], expected[order]
    first = int(np.argmax(larger != larger[0]))  # where the sorted signs first change
    cut = None
    if np.all(larger[first:] != larger[0]) and ordered[first - 1] < ordered[first]:
        cut = _round_between(float(ordered[first - 1]), float(ordered[first]), _finest_step(within))
    if cut is not None:
        below, above = ("smaller", "larger") if larger[-1] else ("larger", "smaller")
        return f"every value is {below} than the expected one where that is below {number(cut)}, {above} where above"
    bigger = int(np.sum(larger))
    return (
        f"{number(bigger)} of {number(larger.size)} values {'is' if bigger == 1 else 'are'} larger than "
        "the expected ones, the others smaller"
    )


def _round_between(low, high, finest):
    """The roundest number strictly between ``low`` and ``high`` (the nearest to their middle of the
    multiples of the largest power of ten that has one there), on a power no finer than ``finest`` (a
    power of ten); None where no multiple of that falls between them: a cut that would pin the two
    values down."""
    power = 10.0 ** np.ceil(np.log10(max(abs(low), abs(high), finest)))
    while power >= finest * (1 - 1e-9):  # the powers from there down to ``finest`` itself
        multiples = np.arange(np.floor(low / power) + 1, np.ceil(high / power)) * power
        if multiples.size:
            return float(multiples[np.argmin(np.abs(multiples - (low + high) / 2))]) + 0.0
        power /= 10
    return None


def _affine(actual, expected, rtol, atol, within, per_factor):
    """ "every value is 2 times the expected one, plus 0.5" where a factor and an offset together fit
    every value (a log density of the wrong scale, say), else ""."""
    values = np.sort(expected.ravel())
    if np.sum(np.diff(values) > atol + rtol * np.abs(values[1:])) < 2:  # two numbers fit any two values
        return ""
    factor, offset = np.polyfit(expected.ravel(), actual.ravel(), 1)
    if abs(factor) < 1e-6 or abs(factor - 1.0) < 0.01 or abs(offset) <= atol:  # noise, not a pattern
        return ""
    fitted = factor * expected + offset
    # as close as the factor rule asks, but for the rounding of the two numbers shown
    if not np.all(
        np.abs(actual - fitted) <= atol + 10 * rtol * np.abs(actual) + 1e-4 * (np.abs(factor * expected) + abs(offset))
    ):
        return ""
    sign = "plus" if offset > 0 else "minus"
    factor_shown, offset_shown = coarse(float(factor), per_factor), coarse(abs(float(offset)), within)
    if factor_shown.startswith("under") or offset_shown.startswith("under"):
        return ""
    return f"every value is {factor_shown} times the expected one, {sign} {offset_shown}"


def _one_number(actual, expected, rtol, atol):
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


def described_shape(actual, expected):
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


def described_nonfinite(actual, expected=None):
    """Where ``actual`` is nan or infinite, in words: exactly where the expected value is 0 (an exact
    fit, a probability of 0, a zero gradient), if so."""
    actual = np.asarray(actual, float)
    bad = ~np.isfinite(actual)
    kinds = " or ".join(
        name for name, found in (("nan", np.isnan(actual).any()), ("inf", np.isinf(actual).any())) if found
    )
    if actual.size == 1:
        return f"it is {kinds}"
    if bad.all():
        return f"every value is {kinds}"
    where = ""
    if expected is not None and np.shape(expected) == actual.shape and np.array_equal(bad, np.asarray(expected) == 0):
        where = ", exactly where the expected value is 0"
    return f"{_count(int(bad.sum()), actual.size)} {kinds}{where}, the others finite"


def _count(part, whole):
    """ "1 of 4 values is" or "3 of 4 values are"."""
    return f"{number(part)} of {number(whole)} values {'is' if part == 1 else 'are'}"


def described_failed_call(args, kwargs, runs, show=shown):
    """What the tests called the answer with when it raised (the dtype and shape of each input, as
    ``show`` writes them: ``bdl.words.shown``, by default), and whether the same call runs in float32, or cut to one entry of the first
    axis (one example, most often); ``runs(args, kwargs)`` puts a call to the answer again and says
    whether it returned. These calls are made only here, after the answer has failed."""
    inputs = list(args) + list(kwargs.values())
    if not inputs:
        return ""
    texts = [show(value) for value in inputs[:4]] + (["..."] if len(inputs) > 4 else [])
    said = "with " + (texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1])
    arrays = [value for value in inputs if _is_array(value)]

    def changed(change):
        new = [change(value) if _is_array(value) else value for value in args]
        return new, {key: change(value) if _is_array(value) else value for key, value in kwargs.items()}

    if any(_dtype(value) == "float64" for value in arrays):
        if runs(*changed(_cast)):
            return f"{said}; the same call in float32 runs"
    sizes = {value.shape[0] for value in arrays if len(value.shape) >= 1}
    if len(sizes) == 1 and arrays and all(len(value.shape) >= 1 for value in arrays):
        size = sizes.pop()
        if size > 1 and runs(*changed(lambda value: value[:1])):
            return f"{said}; the same call runs with each input cut to its first entry along the first axis"
        if size == 1 and runs(
            *changed(
                lambda value: (
                    loaded_tensorflow().concat([value, value], 0)
                    if _is_tensor(value)
                    else np.concatenate([value, value])
                )
            )
        ):
            return f"{said}; the same call runs with each input's one entry along the first axis given twice"
    return said


def _is_tensor(value):
    tf = loaded_tensorflow()  # no value is a tensor before TensorFlow is loaded
    return tf is not None and tf.is_tensor(value)


def _is_array(value):
    return (
        type(value) is np.ndarray
        and value.dtype.kind in "biuf"
        or (_is_tensor(value) and hasattr(value, "numpy") and value.dtype.is_numpy_compatible)
    )


def _dtype(value):
    return value.dtype.name if _is_tensor(value) else str(value.dtype)


def _cast(value):
    """``value`` in float32 if it is float64, in its own kind (an array or a tensor)."""
    if _dtype(value) != "float64":
        return value
    if _is_tensor(value):
        tf = loaded_tensorflow()
        return tf.cast(value, tf.float32)
    return value.astype("float32")
