"""Assertion helpers that the notebooks' visible and hidden tests import.

Messages say what was expected of the student's code, never the answer, and
never quote the student's objects (a ``repr`` is the object's to choose: it
could carry what it read of the tests) beyond plain values and a type's name.

The values they compare are the student's, and an object can be written to
equal anything (``__eq__``, ``__array__``, ``__bool__``, a lying ``__class__``).
So they compare only plain values, recognised by ``type()``, which an object
cannot fake: Python's numbers, strings and containers of them, NumPy's arrays
and scalars, TensorFlow's tensors and variables (whose classes the grading
guard keeps as they were); anything else fails with its type's name.
"""
import re

import numpy as np
import tensorflow as tf

_PYTHON = (int, float, bool, complex, str, bytes, type(None))
_NUMPY_SCALARS = frozenset(np.sctypeDict.values())
_NUMPY_DTYPES = frozenset(type(np.dtype(kind)) for kind in _NUMPY_SCALARS)
_TENSORS = frozenset({type(tf.constant(0.0)), type(tf.Variable(0.0))})
_TENSORFLOW = frozenset({tf.dtypes.DType, tf.TensorShape})


def _plain(value):
    """Whether ``value`` is a plain value: one whose comparisons run no code of the student's."""
    kind = type(value)
    if kind in (tuple, list, set, frozenset):
        return all(_plain(item) for item in value)
    if kind is dict:
        return all(_plain(key) and _plain(item) for key, item in value.items())
    return kind in _PYTHON or kind in _NUMPY_SCALARS or kind in _NUMPY_DTYPES or kind in _TENSORFLOW \
        or kind is np.ndarray or kind in _TENSORS


def type_name(value):
    """The name of ``value``'s type, reduced to identifier characters (a class's name is its
    author's to choose)."""
    return re.sub(r"[^A-Za-z0-9_.]", "", type(value).__name__)[:40] or "object"


def _has_text(value):
    if type(value) in (str, bytes):
        return True
    if type(value) in (tuple, list, set, frozenset):
        return any(_has_text(item) for item in value)
    if type(value) is dict:
        return any(_has_text(key) or _has_text(item) for key, item in value.items())
    return False


def shown(value):
    """``value`` as a message may show it: its repr if it is plain, short and holds no text (a
    string from the student's code is its to choose: it could carry what it read), else its type."""
    if _plain(value) and not _has_text(value) and type(value) not in _TENSORS and type(value) is not np.ndarray:
        text = repr(value)
        if len(text) <= 80:
            return text
    return f"a {type_name(value)}"


def _numbers(value, what):
    """``value`` as a NumPy array, from plain values only (see the module's docstring)."""
    kind = type(value)
    if kind in _TENSORS:
        return np.array(value.numpy())
    if kind is np.ndarray or kind in _NUMPY_SCALARS or kind in (int, float, bool):
        return np.array(value)
    if kind in (list, tuple):
        return np.array([_numbers(item, what) for item in value])
    if kind is tf.TensorShape:
        return np.array(value.as_list())
    if tf.is_tensor(value) and kind.__module__.startswith(("tensorflow", "tf_keras")):
        converted = tf.convert_to_tensor(value)  # a variable or a TFP deferred tensor
        if type(converted) in _TENSORS:
            return np.array(converted.numpy())
    raise AssertionError(f"{what} should be numbers (a NumPy array, a tensor or a float), found a {type_name(value)}")


def assert_layer_types(model, expected, what="the model"):
    """Check ``model.layers`` has exactly the classes in ``expected``, in order."""
    actual = [type(layer) for layer in model.layers]
    names = [cls.__name__ for cls in expected]
    assert len(actual) == len(expected), (
        f"{what} should have {len(expected)} layers ({', '.join(names)}), "
        f"found {len(actual)}: {[cls.__name__ for cls in actual]}")
    for position, (layer_cls, cls) in enumerate(zip(actual, expected)):
        assert issubclass(layer_cls, cls), (
            f"layer {position} of {what} should be a {cls.__name__}, "
            f"found {layer_cls.__name__}")


def assert_model_layers(model, expected, what="the model"):
    """Check a Sequential or functional model's layers are the classes in ``expected``; return them.

    A functional ``tf.keras.Model`` lists its ``Input`` as an ``InputLayer``
    and a Sequential model does not; the input is not counted here, so the
    two ways of building the same model pass alike. Returns the layers, in
    order, for a test to look at one by one.
    """
    layers = [layer for layer in model.layers if not isinstance(layer, tf.keras.layers.InputLayer)]
    assert_layer_types(_Layers(layers), expected, what)
    return layers


class _Layers:
    """Just the ``layers`` attribute that ``assert_layer_types`` reads."""

    def __init__(self, layers):
        self.layers = layers


def assert_close(actual, expected, what, rtol=1e-5, atol=1e-6):
    """Check two arrays have the same shape and values within tolerance."""
    actual = _numbers(actual, what)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (
        f"{what} should have shape {expected.shape}, found {actual.shape}")
    assert np.all(np.isfinite(actual)), f"{what} should be finite (found nan or inf)"
    assert np.allclose(actual, expected, rtol=rtol, atol=atol), (
        f"{what} does not match the expected values "
        f"(largest difference {np.max(np.abs(actual - expected)):.3g})")


# Inputs on which the identity, ReLU and softmax (over the last axis) all differ.
_ACTIVATION_PROBE = np.array([[-2.0, -0.5, 0.0, 0.5, 3.0], [1.0, 1.0, -1.0, 4.0, 0.25]], "float32")


def _softmax(x):
    exp = np.exp(x - x.max(axis=-1, keepdims=True))
    return exp / exp.sum(axis=-1, keepdims=True)


_ACTIVATIONS = {"linear": lambda x: x, "relu": lambda x: np.maximum(x, 0.0), "softmax": _softmax}


def assert_activation(activation, expected, what):
    """Check that ``activation`` computes ``expected``: "linear", "relu" or "softmax".

    Recognised by what it computes on a few inputs, never by its name, so
    "relu", ``tf.nn.relu``, ``tf.keras.activations.relu`` and a lambda all pass.
    """
    try:
        actual = _numbers(activation(tf.constant(_ACTIVATION_PROBE)), what)
    except Exception as error:  # an activation that cannot be called is simply not the one asked for
        raise AssertionError(f"{what} should be {expected}; calling it failed: {error}") from None
    expected_values = _ACTIVATIONS[expected](_ACTIVATION_PROBE)
    assert actual.shape == expected_values.shape and np.allclose(actual, expected_values, atol=1e-5), (
        f"{what} should be {expected}: its outputs on test inputs differ from {expected}'s")


def assert_equal(actual, expected, what):
    """Check a configuration value, naming it in the message."""
    if type(actual) in _TENSORS:  # a counter kept in a variable, say
        actual = np.array(actual.numpy()).tolist()
    assert _plain(actual) and actual == expected, f"{what} should be {expected!r}, found {shown(actual)}"


def unwrap(distribution):
    """Return the distribution a TFP distribution layer's output wraps.

    The layers wrap what they build so Keras can convert it to a tensor; the
    wrapper is not an instance of the distribution's own class.
    """
    return getattr(distribution, "tensor_distribution", distribution)
