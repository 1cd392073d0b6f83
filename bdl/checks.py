"""Assertion helpers that the notebooks' visible and hidden tests import.

Messages say what was expected of the student's code, never the answer.
"""
import numpy as np


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


def assert_equal(actual, expected, what):
    """Check a configuration value, naming it in the message."""
    assert actual == expected, f"{what} should be {expected!r}, found {actual!r}"


def unwrap(distribution):
    """Return the distribution a TFP distribution layer's output wraps.

    The layers wrap what they build so Keras can convert it to a tensor; the
    wrapper is not an instance of the distribution's own class.
    """
    return getattr(distribution, "tensor_distribution", distribution)
