"""Assertion helpers that the notebooks' visible and hidden tests import.

Messages say what was expected of the student's code, never the answer, and write a value only
through ``bdl.words``' formatters (``number``, ``shown``, ``shape_text``, ``listed``, ``type_name``,
which the tests import from here too).

The values they compare are the student's, and an object can be written to equal anything
(``__eq__``, ``__array__``, ``__bool__``, a lying ``__class__``). So they compare only plain values,
recognised by ``type()``, which an object cannot fake: Python's numbers, strings and containers of
them, NumPy's arrays and scalars, TensorFlow's tensors and variables (whose classes the grading guard
keeps as they were); anything else fails with its type's name.
"""

import numpy as np

from bdl import difference, loaded_tensorflow
from bdl.wire import AnswerError
from bdl.words import (
    NUMPY_DTYPES,
    NUMPY_SCALARS,
    PLAIN_PYTHON,
    listed,
    number,
    shape_text,
    shown,
    tensor_kinds,
    tensorflow_kinds,
    type_name,
)


def _plain(value):
    """Whether ``value`` is a plain value: one whose comparisons run no code of the student's."""
    kind = type(value)
    if kind in (tuple, list, set, frozenset):
        return all(_plain(item) for item in value)
    if kind is dict:
        return all(_plain(key) and _plain(item) for key, item in value.items())
    tensors, tensorflow_values = tensorflow_kinds(loaded_tensorflow())
    return (
        kind in PLAIN_PYTHON
        or kind in NUMPY_SCALARS
        or kind in NUMPY_DTYPES
        or kind in tensorflow_values
        or kind is np.ndarray
        or kind in tensors
    )


def as_numbers(value, what):
    """``value`` as a NumPy array, from plain values only (see the module's docstring)."""
    kind = type(value)
    tf = loaded_tensorflow()
    if kind in tensor_kinds():
        return np.array(value.numpy())
    if kind is np.ndarray or kind in NUMPY_SCALARS or kind in (int, float, bool):
        return np.array(value)
    if kind in (list, tuple):
        return np.array([as_numbers(item, what) for item in value])
    if tf is not None and kind is tf.TensorShape:
        return np.array(value.as_list())
    if tf is not None and tf.is_tensor(value) and kind.__module__.startswith(("tensorflow", "tf_keras")):
        converted = tf.convert_to_tensor(value)  # a variable or a TFP deferred tensor
        if type(converted) in tensor_kinds():
            return np.array(converted.numpy())
    raise AssertionError(f"{what} should be numbers (a NumPy array, a tensor or a float), found a {type_name(value)}")


def assert_layer_types(model, expected, what="the model"):
    """Check ``model.layers`` has exactly the classes in ``expected``, in order."""
    actual = [type(layer) for layer in model.layers]
    names = [cls.__name__ for cls in expected]
    assert len(actual) == len(expected), (
        f"{what} should have {len(expected)} layers ({', '.join(names)}), "
        f"found {number(len(actual))}: {listed(type_name(layer) for layer in model.layers)}"
    )
    for position, (layer_cls, cls) in enumerate(zip(actual, expected)):
        assert issubclass(layer_cls, cls), (
            f"layer {position} of {what} should be a {cls.__name__}, found {type_name(model.layers[position])}"
        )


def assert_model_layers(model, expected, what="the model"):
    """Check a Sequential or functional model's layers are the classes in ``expected``; return them.

    A functional ``tf.keras.Model`` lists its ``Input`` as an ``InputLayer``
    and a Sequential model does not; the input is not counted here, so the
    two ways of building the same model pass alike. Returns the layers, in
    order, for a test to look at one by one.
    """
    import tensorflow as tf

    layers = [layer for layer in model.layers if not isinstance(layer, tf.keras.layers.InputLayer)]
    assert_layer_types(_Layers(layers), expected, what)
    return layers


class _Layers:
    """Just the ``layers`` attribute that ``assert_layer_types`` reads."""

    def __init__(self, layers):
        self.layers = layers


def assert_close(actual, expected, what, rtol=1e-5, atol=1e-6, start=None, others=None):
    """Check two arrays have the same shape and values within tolerance. A failure says how the values
    differ where a pattern fits (``bdl.difference``): an offset, a factor, some entries, a row.

    ``start``: where the expected values are a step from (an input the answer moves), so that a failure
    can say how the step differs. ``others``: {name: expected values} of quantities the answer may have
    given in this one's place (another part of the same result), so that a failure can say which."""
    actual = as_numbers(actual, what)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, _with(
        f"{what} should have shape {expected.shape}, found {shape_text(actual.shape)}",
        difference.described_shape,
        actual,
        expected,
    )
    assert np.all(np.isfinite(actual)), _with(
        f"{what} should be finite (found nan or inf)", difference.described_nonfinite, actual, expected
    )
    assert np.allclose(actual, expected, rtol=rtol, atol=atol), _with(
        f"{what} does not match the expected values ({difference.largest_difference(actual, expected, rtol, atol)})",
        difference.described_with,
        actual,
        expected,
        rtol,
        atol,
        start,
        others,
    )


def assert_mean_close(function, arguments, each, what, rtol=1e-5, atol=1e-6):
    """Check that ``function(*arguments)`` is the mean of ``each``, the expected values of the examples
    (the first axis of every argument). A failure says how the answer does on each example alone (one
    more call of it per example, made only then): right for each but wrong for the batch (the sum of
    theirs, say), or how its values differ from ``each`` (``bdl.difference``)."""
    each = np.asarray(each, dtype="float64")
    actual = as_numbers(function(*arguments), what)
    expected = np.asarray(each.mean())
    assert actual.shape == expected.shape, f"{what} should have shape (), found {shape_text(actual.shape)}"
    assert np.all(np.isfinite(actual)), f"{what} should be finite (found nan or inf)"
    if np.allclose(actual, expected, rtol=rtol, atol=atol):
        return
    message = (
        f"{what} does not match the expected values ({difference.largest_difference(actual, expected, rtol, atol)})"
    )
    raise AssertionError(_with(message, _each_alone, function, arguments, actual, each, rtol, atol))


def _each_alone(function, arguments, batch, each, rtol, atol):
    """How ``function`` does on each example of ``arguments`` alone against ``each``; where that shows
    no pattern, how the mean ``batch`` differs from theirs."""
    alone = None
    try:
        alone = np.array(
            [as_numbers(function(*(argument[i : i + 1] for argument in arguments)), "") for i in range(len(each))],
            dtype="float64",
        )
    except Exception:  # an answer that cannot take one example: only the mean is described
        pass
    if alone is not None and alone.shape == each.shape and np.all(np.isfinite(alone)):
        if np.allclose(alone, each, rtol=rtol, atol=atol):
            total = (
                " (the sum of theirs, not their mean)" if np.isclose(batch, alone.sum(), rtol=rtol, atol=atol) else ""
            )
            return f"right for each of the {number(len(each))} examples alone, wrong for them together{total}"
        described = difference.described(alone, each, rtol, atol)
        if described:
            return f"for each example alone, {described}"
    return difference.described(batch, each.mean(), rtol, atol)


def _with(message, describe, *arguments):
    """``message``, and after it what ``describe(*arguments)`` says of the difference, if anything."""
    try:
        description = describe(*arguments)
    except (TypeError, ValueError, OverflowError):  # numbers of a kind no pattern is looked for in
        description = ""
    return f"{message}: {description}" if description else message


# Inputs on which the identity, ReLU and softmax (over the last axis) all differ.
_ACTIVATION_PROBE = np.array([[-2.0, -0.5, 0.0, 0.5, 3.0], [1.0, 1.0, -1.0, 4.0, 0.25]], "float32")


def softmax(x):
    exp = np.exp(x - x.max(axis=-1, keepdims=True))
    return exp / exp.sum(axis=-1, keepdims=True)


_ACTIVATIONS = {"linear": lambda x: x, "relu": lambda x: np.maximum(x, 0.0), "softmax": softmax}


def assert_activation(activation, expected, what):
    """Check that ``activation`` computes ``expected``: "linear", "relu" or "softmax".

    Recognised by what it computes on a few inputs, never by its name, so
    "relu", ``tf.nn.relu``, ``tf.keras.activations.relu`` and a lambda all pass.
    """
    import tensorflow as tf

    try:
        output = activation(tf.constant(_ACTIVATION_PROBE))
    except AnswerError as error:  # in the examiner: the kernel's error, in the examiner's words
        raise AssertionError(f"{what} should be {expected}; calling it failed: {error.args[0]}") from None
    except Exception as error:  # an activation that cannot be called is simply not the one asked for
        raise AssertionError(f"{what} should be {expected}; calling it failed ({type_name(error)})") from None
    actual = as_numbers(output, what)
    expected_values = _ACTIVATIONS[expected](_ACTIVATION_PROBE)
    assert actual.shape == expected_values.shape and np.allclose(actual, expected_values, atol=1e-5), (
        f"{what} should be {expected}: its outputs on test inputs differ from {expected}'s"
    )


def assert_equal(actual, expected, what):
    """Check a configuration value, naming it in the message."""
    if type(actual) in tensor_kinds():  # a counter kept in a variable, say
        actual = np.array(actual.numpy()).tolist()
    assert _plain(actual) and actual == expected, f"{what} should be {expected!r}, found {shown(actual)}"


def unwrap(distribution):
    """Return the distribution a TFP distribution layer's output wraps.

    The layers wrap what they build so Keras can convert it to a tensor; the
    wrapper is not an instance of the distribution's own class.
    """
    return getattr(distribution, "tensor_distribution", distribution)
