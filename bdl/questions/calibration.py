"""Questions and stand-ins for the tests of 05 (calibration).

``reliability_bins`` is given to ``expected_calibration_error``'s tests as ``KnownBins``: a table
of bins the examiner computed, never a way to compute them. ``KnownDropout`` stands in for a dropout
network: a table of the logits each pass returns, never their mean. The questions say what is asked (a
Jacobian, the arguments as a call left them), never what the answer should be.
"""

import numpy as np
import tensorflow as tf

from bdl.questions import STAND_IN_ERRORS, StandIn, question


class KnownBins(StandIn):
    """Stands in for ``reliability_bins(probs, labels, num_bins=15)`` on the one set of probabilities
    and labels it is made for: ``bins`` maps ``str(num_bins)`` to the ``(accuracy, confidence, count)``
    the examiner worked out for them, and a call returns copies of that entry. A call with other
    probabilities or labels, or a ``num_bins`` the table lacks, raises ``ValueError``: the stand-in
    knows nothing else."""

    def __init__(self, probs, labels, bins):
        super().__init__(probs, labels, bins)
        self.probs, self.labels = np.asarray(probs, dtype=np.float64), np.ravel(labels)
        self.bins = {str(key): tuple(np.asarray(part) for part in value) for key, value in bins.items()}

    def __call__(self, probs, labels, num_bins=15):
        given_probs, given_labels = np.asarray(probs, dtype=np.float64), np.ravel(labels)
        if (
            given_probs.shape != self.probs.shape
            or given_labels.shape != self.labels.shape
            or not np.allclose(given_probs, self.probs, rtol=1e-5, atol=1e-6)
            or not np.array_equal(given_labels, self.labels)
        ):
            raise ValueError(STAND_IN_ERRORS["bins_inputs"])
        key = str(int(num_bins)) if float(num_bins) == int(num_bins) else None
        if key not in self.bins:
            raise ValueError(STAND_IN_ERRORS["bins_count"])
        return tuple(part.copy() for part in self.bins[key])


class KnownDropout(StandIn):
    """Stands in for a Keras model with dropout that outputs logits, on the inputs ``x`` it is made for
    (its rows, one input each). Called with ``training=True`` (dropout on), it returns for each row of its
    input the logits ``passes[t][i]``, where ``i`` is that row's input and ``t`` counts how often that
    input was seen with dropout on before (``t`` modulo ``len(passes)``): one call per pass, a batch of
    copies of ``x`` and batches of some of its rows all see the same passes. Called otherwise (dropout
    off), it returns ``plain[i]``. A row that is none of ``x``'s raises ``ValueError`` (in a
    ``tf.function``, ``InvalidArgumentError``). TensorFlow operations throughout, with the count in a
    variable, so that it also runs inside a ``tf.function``, as a Keras model does."""

    def __init__(self, x, passes, plain):
        super().__init__(x, passes, plain)
        self.x = tf.constant(np.asarray(x, dtype=np.float32).reshape(len(x), -1))
        self.passes = tf.constant(np.asarray(passes, dtype=np.float32))
        self.plain = tf.constant(np.asarray(plain, dtype=np.float32))
        self.seen = tf.Variable(tf.zeros(len(x), dtype=tf.int32), trainable=False)

    def __call__(self, inputs, training=None, **kwargs):
        inputs = tf.convert_to_tensor(inputs, dtype=tf.float32)
        if (
            inputs.shape.rank is None
            or inputs.shape.num_elements() is not None
            and (inputs.shape.rank == 0 or int(np.prod(inputs.shape[1:])) != self.x.shape[1])
        ):
            raise ValueError(STAND_IN_ERRORS["dropout_inputs"])
        rows = tf.reshape(inputs, (-1, self.x.shape[1]))
        # match[r, i]: row r is input i.
        match = tf.reduce_all(tf.abs(rows[:, None, :] - self.x[None, :, :]) <= 1e-6, axis=2)
        if tf.executing_eagerly() and not bool(tf.reduce_all(tf.reduce_any(match, axis=1))):
            raise ValueError(STAND_IN_ERRORS["dropout_inputs"])
        checks = [
            tf.debugging.assert_equal(
                tf.reduce_all(tf.reduce_any(match, axis=1)), True, message=STAND_IN_ERRORS["dropout_inputs"]
            )
        ]
        with tf.control_dependencies(checks):
            index = tf.argmax(tf.cast(match, tf.int32), axis=1, output_type=tf.int32)
        if not bool(training):
            return tf.gather(self.plain, index)
        # A row's pass: how often its input was seen before this call, plus its copies earlier in this batch.
        counts = tf.cast(match, tf.int32)
        earlier = tf.reduce_sum((tf.cumsum(counts, axis=0) - counts) * counts, axis=1)
        step = (tf.gather(self.seen, index) + earlier) % self.passes.shape[0]
        logits = tf.gather_nd(self.passes, tf.stack([step, index], axis=1))
        with tf.control_dependencies([logits]):
            update = self.seen.assign_add(tf.reduce_sum(counts, axis=0))
        with tf.control_dependencies([update]):
            return tf.identity(logits)


@question
def batch_jacobian(function, args, wrt=0, part=0):
    """The Jacobian, example by example, of part ``part`` of ``function(*args)`` (its whole value if
    ``part`` is None) with respect to ``args[wrt]`` (a tensor): ``tf.GradientTape.batch_jacobian``."""
    args = list(args)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(args[wrt])
        value = function(*args)
        if part is not None:
            value = value[part]
    return tape.batch_jacobian(value, args[wrt], experimental_use_pfor=False)
