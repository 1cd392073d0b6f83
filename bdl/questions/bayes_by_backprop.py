"""Questions and stand-ins for the tests of 03 (Bayes by Backprop).

``BayesianDense``'s tests ask what a layer recorded (its output and log densities) under a tape or
inside a ``tf.function``. ``sample_elbo``'s tests hand it models of stand-in layers whose outputs
and log densities are known (``CountingLayer``), and log-likelihoods of their own; the kernel
builds its own copy of each, so what it did to them (how often it called a layer) comes back in
the same answer as its loss (``with_calls``).
"""

import tensorflow as tf

from bdl.questions import StandIn, question


def _recorded(layer, inputs):
    """Call ``layer`` once: ``(its output, log_prior, log_variational_posterior)`` as it recorded
    them (None for one it did not record)."""
    result = layer(inputs)
    return result, getattr(layer, "log_prior", None), getattr(layer, "log_variational_posterior", None)


@question
def layer_gradients(layer, inputs):
    """One call of ``layer`` on ``inputs`` under a tape. For each of its trainable variables:
    ``(value, d log_variational_posterior, d (sum of the output + log_variational_posterior -
    log_prior))``. The objective's gradient is None where none reaches the variable; log q's is zero
    there, as it is for a log q written in epsilon (-log sigma - eps^2 / 2 + const), which holds no mu:
    d log q / d mu is zero along the path either way."""
    with tf.GradientTape(persistent=True) as tape:
        result, log_prior, log_q = _recorded(layer, inputs)
        objective = tf.reduce_sum(result) + log_q - log_prior
    return [
        (
            variable.numpy(),
            tape.gradient(log_q, variable, unconnected_gradients=tf.UnconnectedGradients.ZERO),
            tape.gradient(objective, variable),
        )
        for variable in layer.trainable_variables
    ]


@question
def compiled_layer_calls(layer, inputs, calls=2, runs=2):
    """``runs`` runs of one ``tf.function`` that calls ``layer`` on ``inputs`` ``calls`` times: for
    each run, a list of ``(output, log_prior, log_variational_posterior)``, one per call, as the
    layer recorded them right after that call."""
    traced = tf.function(lambda x: [_recorded(layer, x) for _ in range(calls)])
    return [traced(inputs) for _ in range(runs)]


@question
def with_calls(function, args, model):
    """``function(*args)`` and, after it, how many times each ``CountingLayer`` of ``model`` (one
    of the ``args``) had been called: ``(value, [count, ...])``."""
    value = function(*args)
    return value, [int(layer.calls.numpy()) for layer in model.layers if isinstance(layer, CountingLayer)]


# ---------------------------------------------------------------------------------------------
# Stand-ins. Keras tracks a layer's attributes: the arguments a stand-in keeps to be sent again
# are kept out of its sight.


class _KerasStandIn(StandIn):
    def _keep_arguments(self, *args, **kwargs):
        object.__setattr__(self, "given_args", args)
        object.__setattr__(self, "given_kwargs", kwargs)


class CountingLayer(_KerasStandIn, tf.keras.layers.Layer):
    """Stands in for a Bayesian layer: its call k (1, 2, ...) outputs ``inputs * k * scale`` and
    records ``log_prior = -k * scale`` and ``log_variational_posterior = 2 k * scale``.

    k is counted in a variable (``calls``): calls inside ``tf.function`` count, Keras' symbolic
    calls while it builds a model do not."""

    def __init__(self, scale):
        tf.keras.layers.Layer.__init__(self)
        self._keep_arguments(scale)
        self.scale = float(scale)
        self.calls = tf.Variable(0.0, trainable=False)

    def call(self, inputs):
        self.calls.assign_add(1.0)
        count = self.calls.read_value()
        self.log_prior = -count * self.scale
        self.log_variational_posterior = 2.0 * count * self.scale
        return inputs * count * self.scale


class Activation(_KerasStandIn, tf.keras.layers.Activation):
    """Keras' ``Activation`` layer (a layer with no log densities): ``Activation("linear")``."""

    def __init__(self, activation):
        tf.keras.layers.Activation.__init__(self, activation)
        self._keep_arguments(activation)


class Dense(_KerasStandIn, tf.keras.layers.Dense):
    """Keras' ``Dense`` layer, starting from the given ``kernel`` (inputs x units) and ``bias``."""

    def __init__(self, kernel, bias):
        kernel, bias = [[float(w) for w in row] for row in kernel], [float(b) for b in bias]
        tf.keras.layers.Dense.__init__(
            self,
            len(bias),
            kernel_initializer=tf.keras.initializers.Constant(kernel),
            bias_initializer=tf.keras.initializers.Constant(bias),
        )
        self._keep_arguments(kernel, bias)


class Sequential(_KerasStandIn, tf.keras.Sequential):
    """``tf.keras.Sequential(layers)`` of stand-in layers. With ``input_shape``, the model starts
    with an ``Input`` of that shape (so it is built); with ``called`` too, it has been called once,
    on ones, and its ``CountingLayer``s' counts set back to zero."""

    def __init__(self, layers, input_shape=None, called=False):
        layers = list(layers)
        start = [] if input_shape is None else [tf.keras.Input(shape=tuple(input_shape))]
        tf.keras.Sequential.__init__(self, start + layers)
        self._keep_arguments(layers, input_shape=input_shape, called=called)
        if called:
            self(tf.ones((1, *input_shape)))
            for layer in layers:
                if isinstance(layer, CountingLayer):
                    layer.calls.assign(0.0)


class NegativeSquaredError(StandIn):
    """A log-likelihood: ``-sum((y - outputs)^2)``."""

    def __call__(self, y, outputs):
        return -tf.reduce_sum(tf.square(y - outputs))


class BernoulliLogLikelihood(StandIn):
    """A log-likelihood whose two arguments play different roles: labels in {0, 1}, then logits;
    ``sum(labels * logits - softplus(logits))``."""

    def __call__(self, labels, logits):
        return tf.reduce_sum(labels * logits - tf.math.softplus(logits))
