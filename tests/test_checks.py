"""bdl.checks: the assertion helpers the notebooks' tests use."""
import bdl  # noqa: F401  (Keras 2 before TensorFlow)
import pytest
import tensorflow as tf

from bdl.checks import assert_activation


@pytest.mark.parametrize("activation", ["relu", tf.nn.relu, tf.keras.activations.relu,
                                        lambda x: tf.maximum(x, 0.0), tf.keras.layers.ReLU()])
def test_relu_is_recognised_by_what_it_computes(activation):
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "relu", "the activation")


@pytest.mark.parametrize("activation", ["softmax", tf.nn.softmax, tf.keras.activations.softmax,
                                        tf.keras.layers.Softmax()])
def test_softmax_is_recognised_by_what_it_computes(activation):
    # tf.nn.softmax.__name__ is "softmax_v2": a name check would fail it.
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "softmax", "the activation")


@pytest.mark.parametrize("activation", [None, "linear", lambda x: x])
def test_no_activation_is_linear(activation):
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "linear", "the activation")


@pytest.mark.parametrize("activation, expected", [
    ("tanh", "relu"), ("sigmoid", "softmax"), ("relu", "softmax"), ("softmax", "linear"), ("elu", "relu"),
    (tf.nn.log_softmax, "softmax"), (lambda x: tf.nn.softmax(x, axis=0), "softmax"), (None, "relu"),
])
def test_another_activation_fails_with_its_name(activation, expected):
    with pytest.raises(AssertionError, match=f"the activation should be {expected}"):
        assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, expected, "the activation")


def test_something_that_cannot_be_called_fails_cleanly():
    with pytest.raises(AssertionError, match="should be relu; calling it failed"):
        assert_activation("relu", "relu", "the activation")
