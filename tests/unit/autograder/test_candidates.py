"""check-tests' kit sweep, its kernel side (``autograder.checktests.candidates``) without a kernel: which of bdl's
callables it keeps for a graded function, and what it records of the stand-ins the tests make."""

import matplotlib
import numpy as np

matplotlib.use("Agg")  # listing bdl's callables imports its figures

from autograder.checktests import candidates  # noqa: E402
from bdl import wire  # noqa: E402
from bdl.questions import Returns  # noqa: E402


def test_a_candidate_must_take_the_call_and_return_what_the_reference_returned_in_form():
    def cube(x):
        return x**3

    namespace = {"cube": cube}
    candidates.watch(namespace, "cube")
    assert namespace["cube"](2) == 8, "the watched reference answers as before"
    chosen = candidates.choose(namespace, "cube")
    assert "bdl.toy.cubic" in chosen  # it returns a number from cube(2): worth a run of the tests
    assert "bdl.toy.cubic_data" not in chosen  # it returns a pair
    assert "bdl.metrics.auroc" not in chosen  # it needs two arguments
    assert "bdl.checks.type_name" not in chosen  # it returns text
    unscreened = candidates.choose(namespace, "cube", screen=False)
    assert len(unscreened) > 3 * len(chosen) and "bdl.toy.cubic_data" in unscreened
    candidates.unwatch(namespace, "cube")
    assert namespace["cube"] is cube


def test_the_stand_ins_the_kernel_is_sent_are_recorded_once_with_their_arguments():
    candidates.start_recording()
    try:
        for _ in range(2):
            wire.decode(wire.encode([Returns(6)]), lookup=lambda ref: None)
        wire.decode(wire.encode([Returns(np.arange(3))]), lookup=lambda ref: None)
    finally:
        candidates.stop_recording()
    labels = [label for label, value in candidates.callables() if isinstance(value, Returns)]
    assert labels.count("bdl.questions.Returns(6)") == 1
    assert len(labels) == 2
    assert wire.decode.__name__ == "decode", "the decoder is put back"


def test_forms():
    import tensorflow as tf
    import tensorflow_probability as tfp

    assert candidates.form(np.zeros((3, 1))) == candidates.form([1.0, 2.0, 3.0]) == candidates.form(tf.ones(3))
    assert candidates.form((np.zeros(2), 1.0)) == ("parts", (("data", 2), ("data", 1)))
    assert candidates.form(tf.keras.Sequential()) == candidates.form(tf.keras.layers.Dense(2))
    assert candidates.form(tfp.distributions.Normal(0.0, 1.0)) != candidates.form(tf.keras.Sequential())
    assert candidates.form(None) != candidates.form("text") != candidates.form(Returns(1))
    assert candidates.form(True) == candidates.form(np.bool_(False)) != candidates.form(1.0)


def test_a_class_is_watched_through_its_constructor_and_stays_itself():
    class Layer:
        def __init__(self, units):
            self.units = units

    namespace = {"Layer": Layer}
    candidates.watch(namespace, "Layer")
    assert namespace["Layer"] is Layer and isinstance(Layer(3), Layer) and Layer(4).units == 4
    candidates.unwatch(namespace, "Layer")
    assert not hasattr(Layer.__init__, "watched")
    assert Layer(5).units == 5
    assert candidates._sweep.first_calls["Layer"][:2] == ((3,), {})
