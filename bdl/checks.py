"""Assertion helpers that the notebooks' visible and hidden tests import.

Messages say what was expected of the student's code, never the answer, and
never quote the student's objects (a ``repr`` is the object's to choose: it
could carry what it read of the tests) beyond what the formatters here write
themselves: numbers of at most ``MAX_DIGITS`` digits, shapes of at most
``MAX_RANK`` dimensions each under ``MAX_DIMENSION``, short containers of them,
dtypes and a type's name; never a string. A long number is text in disguise.

The values they compare are the student's, and an object can be written to
equal anything (``__eq__``, ``__array__``, ``__bool__``, a lying ``__class__``).
So they compare only plain values, recognised by ``type()``, which an object
cannot fake: Python's numbers, strings and containers of them, NumPy's arrays
and scalars, TensorFlow's tensors and variables (whose classes the grading
guard keeps as they were); anything else fails with its type's name.
"""
import functools
import re

import numpy as np

from bdl import difference, loaded_tensorflow
from bdl.wire import AnswerError

_PYTHON = (int, float, bool, complex, str, bytes, type(None))
_NUMPY_SCALARS = frozenset(np.sctypeDict.values())
_NUMPY_DTYPES = frozenset(type(np.dtype(kind)) for kind in _NUMPY_SCALARS)


@functools.lru_cache(maxsize=2)
def _tensorflow_kinds(tf):
    """(the classes of a tensor and a variable, those of a dtype and a shape), or two empty sets before
    TensorFlow is loaded, when no value is one of them: a NumPy-only notebook's tests never import it."""
    if tf is None:
        return frozenset(), frozenset()
    return frozenset({type(tf.constant(0.0)), type(tf.Variable(0.0))}), frozenset({tf.dtypes.DType, tf.TensorShape})


def _tensors():
    return _tensorflow_kinds(loaded_tensorflow())[0]

# The most a message shows of a value: digits of a number (significant digits of a float), dimensions
# of a shape and the size of each, items of a container, characters in all.
MAX_DIGITS = 12
FLOAT_DIGITS = 8
MAX_RANK = 6
MAX_DIMENSION = 10**7
MAX_ITEMS = 6
MAX_SHOWN = 60


def _plain(value):
    """Whether ``value`` is a plain value: one whose comparisons run no code of the student's."""
    kind = type(value)
    if kind in (tuple, list, set, frozenset):
        return all(_plain(item) for item in value)
    if kind is dict:
        return all(_plain(key) and _plain(item) for key, item in value.items())
    tensors, tensorflow_values = _tensorflow_kinds(loaded_tensorflow())
    return kind in _PYTHON or kind in _NUMPY_SCALARS or kind in _NUMPY_DTYPES or kind in tensorflow_values \
        or kind is np.ndarray or kind in tensors


def type_name(value):
    """The name of ``value``'s type, reduced to identifier characters (a class's name is its
    author's to choose). In the examiner every value is of its own types (``bdl.wire`` makes the
    kernel's answers of a few), so there the name is one of a fixed few."""
    return re.sub(r"[^A-Za-z0-9_.]", "", type(value).__name__)[:40] or "object"


def listed(names):
    """Names (each already fit to show) as a message may list them: the first ``MAX_ITEMS``."""
    names = list(names)
    more = ", ..." if len(names) > MAX_ITEMS else ""
    return f"[{', '.join(names[:MAX_ITEMS])}{more}]"


def number(value, digits=FLOAT_DIGITS):
    """A real number as a message may show it: an integer of at most ``MAX_DIGITS`` digits, a float
    to ``digits`` significant digits (at most ``FLOAT_DIGITS``), a one-element array or tensor as
    its number; anything else as ``shown`` shows it."""
    kind = type(value)
    if kind in _tensors() or kind is np.ndarray:
        array = np.asarray(value.numpy()) if kind is not np.ndarray else value
        if array.size == 1 and array.dtype.kind in "biuf":
            value, kind = array.reshape(()).item(), None
    if kind is not None and not (kind in (bool, int, float) or kind in _NUMPY_SCALARS):
        return shown(value)
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        value = int(value)
        return str(value) if abs(value) < 10**MAX_DIGITS else f"a number of more than {MAX_DIGITS} digits"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.{max(1, min(int(digits), FLOAT_DIGITS))}g}"
    return shown(value)


def shape_text(shape):
    """A shape as a message may show it: ``(3, 4)``, or ``a shape of rank 9`` when it has more than
    ``MAX_RANK`` dimensions or one of ``MAX_DIMENSION`` or more (or not a whole number)."""
    dims = list(shape)
    if len(dims) <= MAX_RANK and all(type(dim) in (int, type(None)) or isinstance(dim, np.integer)
                                     for dim in dims) \
            and all(dim is None or 0 <= dim < MAX_DIMENSION for dim in dims):
        return repr(tuple(None if dim is None else int(dim) for dim in dims))
    return f"a shape of rank {number(len(dims))}"


def _text(value, depth=0):
    """``value`` written by this module (see ``shown``), or None when it cannot be."""
    kind = type(value)
    if value is None:
        return "None"
    if kind in (bool, int, float) or kind in _NUMPY_SCALARS and np.dtype(kind).kind in "biuf":
        text = number(value)
        return None if text.startswith("a ") else text
    if kind in (tuple, list) and depth < 2 and len(value) <= MAX_ITEMS:
        items = [_text(item, depth + 1) for item in value]
        if None in items:
            return None
        if kind is list:
            return f"[{', '.join(items)}]"
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    tf = loaded_tensorflow()
    if tf is not None and kind is tf.TensorShape:
        return "TensorShape(None)" if value.rank is None else (
            f"TensorShape({list(value.as_list())})" if not shape_text(value.as_list()).startswith("a ") else None)
    if tf is not None and kind is tf.dtypes.DType:
        return f"tf.{value.name}"
    if kind in _NUMPY_DTYPES and re.fullmatch(r"[a-z]+[0-9]{0,3}", value.name):
        return f"dtype('{value.name}')"
    return None


def _dtype_name(array):
    name = str(getattr(array.dtype, "name", ""))
    return name if re.fullmatch(r"[a-z]+[0-9]{0,3}", name) else "numeric"


def shown(value):
    """``value`` as a message may show it, in words this module writes: a number (``number``), a
    short list or tuple of numbers, a dtype, a shape; an array or tensor by its dtype and shape;
    anything else (text above all: a string from the student's code is its to choose, it could
    carry what it read) by its type's name."""
    kind = type(value)
    if kind is np.ndarray or kind in _tensors():
        noun = "array" if kind is np.ndarray else "tensor"
        shape = shape_text(value.shape)
        where = f"of shape {shape}" if shape.startswith("(") else f"of rank {len(value.shape)}"
        dtype = _dtype_name(value)
        return f"{'an' if dtype[0] in 'aeiou' else 'a'} {dtype} {noun} {where}"
    if kind in (int, float) or kind in _NUMPY_SCALARS and np.dtype(kind).kind in "iuf":
        return number(value)
    text = _text(value)
    if text is not None and len(text) <= MAX_SHOWN:
        return text
    return f"a {type_name(value)}"


def _numbers(value, what):
    """``value`` as a NumPy array, from plain values only (see the module's docstring)."""
    kind = type(value)
    tf = loaded_tensorflow()
    if kind in _tensors():
        return np.array(value.numpy())
    if kind is np.ndarray or kind in _NUMPY_SCALARS or kind in (int, float, bool):
        return np.array(value)
    if kind in (list, tuple):
        return np.array([_numbers(item, what) for item in value])
    if tf is not None and kind is tf.TensorShape:
        return np.array(value.as_list())
    if tf is not None and tf.is_tensor(value) and kind.__module__.startswith(("tensorflow", "tf_keras")):
        converted = tf.convert_to_tensor(value)  # a variable or a TFP deferred tensor
        if type(converted) in _tensors():
            return np.array(converted.numpy())
    raise AssertionError(f"{what} should be numbers (a NumPy array, a tensor or a float), found a {type_name(value)}")


def assert_layer_types(model, expected, what="the model"):
    """Check ``model.layers`` has exactly the classes in ``expected``, in order."""
    actual = [type(layer) for layer in model.layers]
    names = [cls.__name__ for cls in expected]
    assert len(actual) == len(expected), (
        f"{what} should have {len(expected)} layers ({', '.join(names)}), "
        f"found {number(len(actual))}: {listed(type_name(layer) for layer in model.layers)}")
    for position, (layer_cls, cls) in enumerate(zip(actual, expected)):
        assert issubclass(layer_cls, cls), (
            f"layer {position} of {what} should be a {cls.__name__}, "
            f"found {type_name(model.layers[position])}")


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
    actual = _numbers(actual, what)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, _with(
        f"{what} should have shape {expected.shape}, found {shape_text(actual.shape)}",
        difference.described_shape, actual, expected, number, shape_text)
    assert np.all(np.isfinite(actual)), _with(f"{what} should be finite (found nan or inf)",
                                              difference.described_nonfinite, actual, number, expected)
    assert np.allclose(actual, expected, rtol=rtol, atol=atol), _with(
        f"{what} does not match the expected values "
        f"({difference.largest_difference(actual, expected, rtol, atol, number)})",
        difference.described_with, actual, expected, rtol, atol, number, start, others)


def assert_mean_close(function, arguments, each, what, rtol=1e-5, atol=1e-6):
    """Check that ``function(*arguments)`` is the mean of ``each``, the expected values of the examples
    (the first axis of every argument). A failure says how the answer does on each example alone (one
    more call of it per example, made only then): right for each but wrong for the batch (the sum of
    theirs, say), or how its values differ from ``each`` (``bdl.difference``)."""
    each = np.asarray(each, dtype="float64")
    actual = _numbers(function(*arguments), what)
    expected = np.asarray(each.mean())
    assert actual.shape == expected.shape, f"{what} should have shape (), found {shape_text(actual.shape)}"
    assert np.all(np.isfinite(actual)), f"{what} should be finite (found nan or inf)"
    if np.allclose(actual, expected, rtol=rtol, atol=atol):
        return
    message = (f"{what} does not match the expected values "
               f"({difference.largest_difference(actual, expected, rtol, atol, number)})")
    raise AssertionError(_with(message, _each_alone, function, arguments, actual, each, rtol, atol))


def _each_alone(function, arguments, batch, each, rtol, atol):
    """How ``function`` does on each example of ``arguments`` alone against ``each``; where that shows
    no pattern, how the mean ``batch`` differs from theirs."""
    alone = None
    try:
        alone = np.array([_numbers(function(*(argument[i:i + 1] for argument in arguments)), "")
                          for i in range(len(each))], dtype="float64")
    except Exception:  # an answer that cannot take one example: only the mean is described
        pass
    if alone is not None and alone.shape == each.shape and np.all(np.isfinite(alone)):
        if np.allclose(alone, each, rtol=rtol, atol=atol):
            total = " (the sum of theirs, not their mean)" if np.isclose(batch, alone.sum(), rtol=rtol, atol=atol) else ""
            return f"right for each of the {number(len(each))} examples alone, wrong for them together{total}"
        described = difference.described(alone, each, rtol, atol, number)
        if described:
            return f"for each example alone, {described}"
    return difference.described(batch, each.mean(), rtol, atol, number)


def _with(message, describe, *arguments):
    """``message``, and after it what ``describe(*arguments)`` says of the difference, if anything."""
    try:
        description = describe(*arguments)
    except (TypeError, ValueError, OverflowError):  # numbers of a kind no pattern is looked for in
        description = ""
    return f"{message}: {description}" if description else message


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
    import tensorflow as tf

    try:
        output = activation(tf.constant(_ACTIVATION_PROBE))
    except AnswerError as error:  # in the examiner: the kernel's error, in the examiner's words
        raise AssertionError(f"{what} should be {expected}; calling it failed: {error.args[0]}") from None
    except Exception as error:  # an activation that cannot be called is simply not the one asked for
        raise AssertionError(f"{what} should be {expected}; calling it failed ({type_name(error)})") from None
    actual = _numbers(output, what)
    expected_values = _ACTIVATIONS[expected](_ACTIVATION_PROBE)
    assert actual.shape == expected_values.shape and np.allclose(actual, expected_values, atol=1e-5), (
        f"{what} should be {expected}: its outputs on test inputs differ from {expected}'s")


def assert_equal(actual, expected, what):
    """Check a configuration value, naming it in the message."""
    if type(actual) in _tensors():  # a counter kept in a variable, say
        actual = np.array(actual.numpy()).tolist()
    assert _plain(actual) and actual == expected, f"{what} should be {expected!r}, found {shown(actual)}"


def unwrap(distribution):
    """Return the distribution a TFP distribution layer's output wraps.

    The layers wrap what they build so Keras can convert it to a tensor; the
    wrapper is not an instance of the distribution's own class.
    """
    return getattr(distribution, "tensor_distribution", distribution)
