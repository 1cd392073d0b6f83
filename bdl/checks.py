"""Assertion helpers that the notebooks' visible and hidden tests import.

Messages say what was expected of the student's code, never the answer.
"""
import numpy as np
import tensorflow as tf


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
    actual = np.asarray(actual)
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
        actual = np.asarray(activation(tf.constant(_ACTIVATION_PROBE)))
    except Exception as error:  # an activation that cannot be called is simply not the one asked for
        raise AssertionError(f"{what} should be {expected}; calling it failed: {error}") from None
    expected_values = _ACTIVATIONS[expected](_ACTIVATION_PROBE)
    assert actual.shape == expected_values.shape and np.allclose(actual, expected_values, atol=1e-5), (
        f"{what} should be {expected}: its outputs on test inputs differ from {expected}'s")


def assert_equal(actual, expected, what):
    """Check a configuration value, naming it in the message."""
    assert actual == expected, f"{what} should be {expected!r}, found {actual!r}"


def unwrap(distribution):
    """Return the distribution a TFP distribution layer's output wraps.

    The layers wrap what they build so Keras can convert it to a tensor; the
    wrapper is not an instance of the distribution's own class.
    """
    return getattr(distribution, "tensor_distribution", distribution)
