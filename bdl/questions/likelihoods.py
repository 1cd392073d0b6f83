"""Stand-ins for the tests of 01 (likelihoods): the losses ``fgsm`` and ``adversarial_loss`` are given."""

import numpy as np
import tensorflow as tf

from bdl.questions import STAND_IN_ERRORS, StandIn


class LinearLoss(StandIn):
    """The squared error of the one-weight model ``y = w x``, averaged: ``mean((w x - y)^2)``;
    ``w`` is a variable (``variables``), so a loss of it can be differentiated by it."""

    def __init__(self, w):
        super().__init__(w)
        self.w = tf.Variable(float(w))
        self.variables = [self.w]

    def __call__(self, x, y):
        return tf.reduce_mean(tf.square(self.w * x - y))


class NetworkLoss(StandIn):
    """``scale * reduce(|net(x) - y|)`` for the network ``tanh(x W1 + b1) W2 + b2`` with the given
    weights; ``reduce`` is "mean" or "sum"."""

    def __init__(self, weights, scale=1.0, reduce="mean"):
        super().__init__(weights, scale=scale, reduce=reduce)
        self.weights = [tf.constant(np.asarray(w, "float32")) for w in weights]
        self.scale, self.reduce = float(scale), reduce

    def net(self, x):
        w1, b1, w2, b2 = self.weights
        return tf.tanh(tf.cast(x, tf.float32) @ w1 + b1) @ w2 + b2

    def __call__(self, x, y):
        error = tf.abs(self.net(x) - y)
        return self.scale * (tf.reduce_mean(error) if self.reduce == "mean" else tf.reduce_sum(error))


class SignStep(StandIn):
    """Stands in for ``fgsm``: given the sign of the loss's input gradient at each input the test
    uses (one per input shape), returns ``x + eps * sign`` for any ``eps``, as a correct FGSM
    would; an input of another shape is an error. It is told the gradient's sign, never how to
    find it."""

    def __init__(self, signs):
        super().__init__(signs)
        self.signs = {tuple(np.shape(sign)): tf.constant(np.asarray(sign, "float32")) for sign in signs}

    def __call__(self, loss_fn, x, y, eps):
        inputs = tf.cast(x, "float32")
        sign = self.signs.get(tuple(inputs.shape))
        if sign is None:
            raise ValueError(STAND_IN_ERRORS["fgsm_input"])
        return inputs + tf.cast(eps, "float32") * sign
