"""The wire between the examiner and the kernel carries data only, and refuses anything else."""

import base64
import io
import json

import numpy as np
import pytest

from bdl import wire  # before TensorFlow: Keras 2 for TensorFlow Probability, in every later test of this process

# isort: split
import tensorflow as tf
import tensorflow_probability as tfp

from bdl.questions import StandIn, gradient
from bdl.questions.likelihoods import LinearLoss


def _roundtrip(value):
    return wire.decode(json.loads(json.dumps(wire.encode(value))))


def test_data_comes_back_as_it_went():
    value = {
        "a": [1, 2.5, True, None, "text"],
        "b": (np.arange(6.0).reshape(2, 3),),
        "c": np.float32(1.5),
        "d": tf.float64,
        "e": tf.TensorShape([None, 3]),
    }
    back = _roundtrip(value)
    assert back["a"] == [1, 2.5, True, None, "text"]
    assert type(back["b"]) is tuple and np.array_equal(back["b"][0], value["b"][0])
    assert back["c"] == np.float32(1.5) and back["d"] == tf.float64 and back["e"].as_list() == [None, 3]


def test_a_tensor_arrives_as_a_tensor_and_a_variable_as_a_variable():
    tensor, variable = _roundtrip([tf.constant([1.0, 2.0]), tf.Variable([3.0])])
    assert tf.is_tensor(tensor) and not isinstance(tensor, tf.Variable)
    assert isinstance(variable, tf.Variable) and variable.numpy().tolist() == [3.0]


@pytest.mark.parametrize(
    "data",
    [
        {"t": "array", "v": None},
        {"t": "code", "v": "import os"},
        {"t": "py", "v": {"nested": "dict"}},
        {"t": "library", "v": "os:system"},  # only the examiner names libraries, and only some
        {"t": "distribution", "class": "Normal", "v": {"t": "dict", "v": {}}},
        "not even a dict",
    ],
)
def test_the_examiner_refuses_what_is_not_data(data):
    with pytest.raises((wire.WireError, TypeError, ValueError)):
        wire.decode(data)


def test_an_array_of_objects_or_a_pickle_is_never_read():
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError):  # NumPy refuses to unpickle
        wire.decode({"t": "array", "v": base64.b64encode(buffer.getvalue()).decode()})


def test_a_kernel_object_is_a_handle_and_a_handle_a_remote():
    class Layer:
        pass

    layer = Layer()
    handles = {}
    data = json.loads(json.dumps(wire.encode([layer, layer], lambda obj: handles.setdefault(id(obj), {"handle": 7}))))
    first, second = wire.decode(data)
    assert type(first) is wire.Remote and first == second
    assert any("Layer" in kind for kind in object.__getattribute__(first, "_kind"))


def test_the_examiners_arguments_are_named_and_made_anew_once():
    loss = LinearLoss(2.0)
    data = json.loads(
        json.dumps(
            wire.encode([loss, loss, tfp.distributions.Normal(0.5, 2.0), tf.keras.initializers.Constant(0.25), np.mean])
        )
    )
    made = wire.decode(data, lookup=lambda ref: None)
    assert made[0] is made[1] and made[0] is not loss and float(made[0].w.numpy()) == 2.0
    assert isinstance(made[2], tfp.distributions.Normal) and float(made[2].scale) == 2.0
    assert float(made[3](()).numpy()) == 0.25 and made[4] is np.mean


def test_a_function_of_the_tests_own_cannot_be_sent():
    with pytest.raises(wire.WireError):
        wire.encode(lambda x: x)

    class Local(StandIn):  # a stand-in must live in a library module
        pass

    with pytest.raises(wire.WireError):
        wire.encode(Local())


def test_the_kernel_answers_a_question_and_names_an_error_by_its_classes_only():
    namespace = {"square": lambda x: x * x, "broken": lambda x: 1 / 0}
    request = {
        "question": "bdl.questions:call",
        "args": wire.encode([wire.Remote({"name": "square"}), np.arange(3.0)]),
        "kwargs": wire.encode({}),
    }
    answer = repr(wire.respond(json.dumps(request), namespace))  # as the reply's text/plain carries it
    assert wire.decode(json.loads(answer)["value"]).tolist() == [0.0, 1.0, 4.0]
    request["args"] = wire.encode([wire.Remote({"name": "broken"}), 1.0])
    assert json.loads(repr(wire.respond(json.dumps(request), namespace)))["error"][0] == "builtins.ZeroDivisionError"


def test_a_question_is_an_ordinary_function_outside_the_examiner():
    value, (grad,) = gradient(lambda x: tf.reduce_sum(x**2), (tf.constant([1.0, 2.0]),), wrt=(0,))
    assert float(value) == 5.0 and grad.numpy().tolist() == [2.0, 4.0]


def test_a_kernel_object_is_never_taken_for_a_tensor():
    """``tf.is_tensor`` reads ``is_tensor_like``; a Remote answers it itself, so a kernel that says yes
    to every question cannot make a non-data answer pass for a tensor."""
    asked = []
    examining = wire.ask_kernel.set(lambda question, args, kwargs: asked.append(question) or True)
    try:
        assert not tf.is_tensor(wire.Remote({"handle": 0}))
    finally:
        wire.ask_kernel.reset(examining)
    assert asked == []


def test_the_kernel_tells_an_errors_message_and_the_notebook_line_it_was_raised_in(monkeypatch):
    """The innermost frame in one of the notebook's cells (as the shell compiled them), not in a library;
    the examiner shows either only as far as it vouches for it (``autograder.worker.examiner.catalogue``)."""
    import IPython
    from IPython.core.compilerop import CachingCompiler

    class Shell:
        compile = CachingCompiler()

    cell = "def outer(x):\n    return inner(x)\n\ndef inner(x):\n    total = np.reshape(x, (4,))\n    return total\n"
    namespace = {"np": np}
    exec(Shell.compile(cell, Shell.compile.cache(cell, 3), "exec"), namespace)
    exec(compile("def elsewhere(x):\n    return x + 'text'\n", "<a library>", "exec"), namespace)
    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell())
    request = {"question": "bdl.questions:call", "kwargs": wire.encode({})}

    def told(name, value):
        request["args"] = wire.encode([wire.Remote({"name": name}), value])
        answer = json.loads(repr(wire.respond(json.dumps(request), namespace)))
        return answer["error"][0], answer["message"], answer["line"]

    assert told("outer", np.zeros(6)) == (
        "builtins.ValueError",
        "cannot reshape array of size 6 into shape (4,)",
        "total = np.reshape(x, (4,))",
    )
    assert told("elsewhere", 1.0)[2] == ""  # raised in no cell of the notebook
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)  # outside a kernel: no cell at all
    assert told("outer", np.zeros(6))[1:] == ("cannot reshape array of size 6 into shape (4,)", "")


def test_a_reply_is_read_back_only_in_the_form_respond_writes():
    """Both sides share ``Reply``: what ``respond`` writes reads back as it was; any other object is refused."""
    namespace = {"f": lambda x: 1 / x}
    for arg, expected in [(2, wire.Reply(value=wire.encode(0.5))), (0, None)]:
        request = {
            "question": "bdl.questions:call",
            "args": wire.encode([wire.Remote({"name": "f"}), arg]),
            "kwargs": wire.encode({}),
        }
        reply = wire.Reply.read(repr(wire.respond(json.dumps(request), namespace)))
        if expected is not None:
            assert reply == expected
        else:
            assert reply.error[0] == "builtins.ZeroDivisionError" and reply.message == "division by zero"
    for text in [
        "[1]",
        '{"value": 1, "error": []}',
        '{"error": "builtins.ValueError", "message": "", "line": ""}',
        '{"error": [1], "message": "", "line": ""}',
        '{"error": [], "message": null, "line": ""}',
        '{"error": []}',
        "not json",
    ]:
        with pytest.raises(wire.WireError):
            wire.Reply.read(text)
