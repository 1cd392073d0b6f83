"""bdl.checks: the assertion helpers the notebooks' tests use."""

import bdl  # noqa: F401  (Keras 2 before TensorFlow)

# isort: split
import numpy as np
import pytest
import tensorflow as tf

from bdl.checks import assert_activation, assert_close, assert_equal, assert_model_layers


@pytest.mark.parametrize(
    "activation", ["relu", tf.nn.relu, tf.keras.activations.relu, lambda x: tf.maximum(x, 0.0), tf.keras.layers.ReLU()]
)
def test_relu_is_recognised_by_what_it_computes(activation):
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "relu", "the activation")


@pytest.mark.parametrize(
    "activation", ["softmax", tf.nn.softmax, tf.keras.activations.softmax, tf.keras.layers.Softmax()]
)
def test_softmax_is_recognised_by_what_it_computes(activation):
    # tf.nn.softmax.__name__ is "softmax_v2": a name check would fail it.
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "softmax", "the activation")


@pytest.mark.parametrize("activation", [None, "linear", lambda x: x])
def test_no_activation_is_linear(activation):
    assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, "linear", "the activation")


@pytest.mark.parametrize(
    "activation, expected",
    [
        ("tanh", "relu"),
        ("sigmoid", "softmax"),
        ("relu", "softmax"),
        ("softmax", "linear"),
        ("elu", "relu"),
        (tf.nn.log_softmax, "softmax"),
        (lambda x: tf.nn.softmax(x, axis=0), "softmax"),
        (None, "relu"),
    ],
)
def test_another_activation_fails_with_its_name(activation, expected):
    with pytest.raises(AssertionError, match=f"the activation should be {expected}"):
        assert_activation(tf.keras.layers.Dense(3, activation=activation).activation, expected, "the activation")


def test_something_that_cannot_be_called_fails_cleanly():
    with pytest.raises(AssertionError, match="should be relu; calling it failed"):
        assert_activation("relu", "relu", "the activation")


def _layers():
    return [tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)]


def test_sequential_and_functional_models_have_the_same_layers():
    sequential = tf.keras.Sequential([tf.keras.Input((4, 2))] + _layers())
    inputs = tf.keras.Input((4, 2))
    flatten, dense = _layers()
    functional = tf.keras.Model(inputs, dense(flatten(inputs)))
    for model in (sequential, functional):
        layers = assert_model_layers(model, [tf.keras.layers.Flatten, tf.keras.layers.Dense])
        assert [type(layer) for layer in layers] == [tf.keras.layers.Flatten, tf.keras.layers.Dense]


def test_model_layers_fail_with_what_was_expected():
    model = tf.keras.Sequential([tf.keras.Input((4, 2))] + _layers())
    with pytest.raises(AssertionError, match="the model should have 1 layers"):
        assert_model_layers(model, [tf.keras.layers.Dense])
    with pytest.raises(AssertionError, match="layer 1 of the model should be a Flatten"):
        assert_model_layers(model, [tf.keras.layers.Flatten, tf.keras.layers.Flatten])


def test_comparisons_take_plain_values_only():
    """A student's object may equal anything; the helpers compare plain values, found by type()."""

    class Anything:
        shape = ()
        is_tensor_like = True

        def __eq__(self, other):
            return True

        def __array__(self, *args, **kwargs):
            return np.array(0.5)

    for plain in [0.5, np.float32(0.5), np.array(0.5), tf.constant(0.5), tf.Variable(0.5), [0.5]]:
        assert_close(plain, 0.5 if not isinstance(plain, list) else [0.5], "a plain value")
    assert_close(tf.TensorShape([2, 3]), (2, 3), "a shape")
    with pytest.raises(AssertionError, match="should be numbers .* found a Anything"):
        assert_close(Anything(), 0.5, "an object")
    with pytest.raises(AssertionError, match="should be 3, found a Anything"):
        assert_equal(Anything(), 3, "a count")
    assert_equal(tf.Variable(2.0), 2, "a counter in a variable")
    assert_equal((2, 3), (2, 3), "a tuple")


def test_messages_show_numbers_and_shapes_of_bounded_size():
    """A number or a shape the student's code returned is shown with a few digits at most: a long one
    is text in disguise."""
    from bdl.checks import number, shape_text, shown

    assert [shown(value) for value in (8, np.int64(-3), 0.1, True, None, (3, 1), [15], tf.float32)] == [
        "8",
        "-3",
        "0.1",
        "True",
        "None",
        "(3, 1)",
        "[15]",
        "tf.float32",
    ]
    assert shown(10**77 + 1) == "a number of more than 12 digits" and shown((10**20, 1)) == "a tuple"
    assert shown(float("9" * 300)) == "1e+300" and number(np.float64(3.01234567), 4) == "3.012"
    assert shown(np.zeros((16, 3), "float16")) == "a float16 array of shape (16, 3)"
    assert shape_text((0, 10**17)) == "a shape of rank 2" and shape_text((0,) + (3,) * 31) == "a shape of rank 32"
    with pytest.raises(AssertionError) as raised:
        assert_equal(2**256, 8, "the number of filters")
    assert str(raised.value) == "the number of filters should be 8, found a number of more than 12 digits"
    with pytest.raises(AssertionError) as raised:
        assert_close(np.empty((0, 4611686018427387)), [0.5], "the scores")
    assert str(raised.value) == "the scores should have shape (1,), found a shape of rank 2"


def test_messages_never_show_text():
    from bdl.checks import shown

    for value in ["the hidden test", b"bytes", ["a", 1], {"k": 1}, (1, ("x",))]:
        assert shown(value) in ("a str", "a bytes", "a list", "a dict", "a tuple"), value
    with pytest.raises(AssertionError, match="should be 'valid', found a str$"):
        assert_equal("the hidden test", "valid", "the padding")
