"""Questions and stand-ins for the tests of 04 (Bayesian CNN).

The tests build models and layers with the student's functions, then look at them: their layers'
classes and settings, the distributions they output, what they were compiled with. In the examiner a
model is a handle in the student's kernel, so the questions here report what a test needs of it as
data (class names, whether two objects are one, the gradients that reach its variables), and the test
compares them with what it expects, on its side. The stand-ins are the tests' inputs, never a graded
function's answer; those whose state a test reads back (how often they were called) are made in the
kernel with ``made``, so that the test holds a handle to the very object the student's code was given.
"""

import functools
import warnings

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

from bdl.questions import StandIn, class_names, question
from bdl.words import listed, number

tfd, tfpl = tfp.distributions, tfp.layers


# ---------------------------------------------------------------------------------------------
# Objects made where the student's code runs


@question
def make(cls, args=(), kwargs=None):
    """``cls(*args, **kwargs)``: a library class (a Keras loss or optimizer, a stand-in) made here."""
    return cls(*args, **(kwargs or {}))


def made(cls, *args, **kwargs):
    """``cls(*args, **kwargs)``, made where the notebook's code runs: here on a student's machine, in
    the kernel when the examiner runs the test (which then holds a handle to it). So a loss, an
    optimizer or a metric can be given to the student's code and found again on the model it
    builds, and a stand-in's record of its calls can be read back."""
    return make(cls, args, kwargs)  # a question: in the examiner, put to the kernel


# ---------------------------------------------------------------------------------------------
# Questions


@question
def identical(first, second):
    """Whether ``first`` and ``second`` are one object (``first is second``)."""
    return first is second


@question
def is_instance(value, cls):
    """Whether ``value`` is an instance of the library class ``cls`` (``isinstance``)."""
    return isinstance(value, cls)


@question
def unwrapped(distribution):
    """The distribution a TFP distribution layer's output wraps (``bdl.checks.unwrap``)."""
    return getattr(distribution, "tensor_distribution", distribution)


@question
def attribute_or_none(target, name):
    """``getattr(target, name, None)``."""
    return getattr(target, name, None)


@question
def layer_classes(model):
    """``model.layers``, each with the names of its classes: ``[(class names, layer), ...]``."""
    return [(class_names(layer), layer) for layer in model.layers]


@question
def loss_gradient(loss, y_true, logits):
    """``sum(loss(y_true, OneHotCategorical(logits)))`` and its gradient with respect to the logits,
    taken as a ``tf.Variable`` (None when none reaches them)."""
    logits = tf.Variable(logits)
    with tf.GradientTape() as tape:
        value = tf.reduce_sum(loss(y_true, tfd.OneHotCategorical(logits=logits, dtype=tf.float32)))
    return value, tape.gradient(value, logits)


@question
def log_prob_gradients(model, inputs, value):
    """The gradients of ``model(inputs).log_prob(value)`` with respect to each of ``model``'s trainable
    variables (None where none reaches it)."""
    with tf.GradientTape() as tape:
        log_prob = model(inputs).log_prob(value)
    return tape.gradient(log_prob, model.trainable_variables)


@question
def log_prob_moved(model, inputs, value, directions, steps):
    """``model``'s trainable variables moved by ``step * direction`` (one direction per variable, in
    the order of ``trainable_variables``), for each of ``steps``: ``(log_prob(value), mean(),
    stddev())`` of ``model(inputs)``. The variables are put back after."""
    variables = model.trainable_variables
    start = [variable.numpy() for variable in variables]
    found = []
    try:
        for step in steps:
            for variable, value_before, direction in zip(variables, start, directions):
                variable.assign(value_before + step * np.asarray(direction, value_before.dtype))
            distribution = model(inputs)
            found.append((distribution.log_prob(value), distribution.mean(), distribution.stddev()))
    finally:
        for variable, value_before in zip(variables, start):
            variable.assign(value_before)
    return found


@question
def with_warnings(function, args, kwargs=None):
    """``function(*args)`` and the warnings it gave, every RuntimeWarning recorded: ``(value, [the
    names of each warning's category's classes])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        value = function(*args, **(kwargs or {}))
    return value, [[f"{cls.__module__}.{cls.__qualname__}" for cls in warning.category.__mro__] for warning in caught]


# ---------------------------------------------------------------------------------------------
# Checks of a model's layers that work on a handle too (``bdl.checks``' work on local objects)


def class_name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


@functools.lru_cache(maxsize=1)
def _known_layers():
    """{``module.qualname``: name} of the layer and model classes of Keras and TFP: the only class
    names a message shows (the kernel reports a class's names, and a class is named by its author)."""
    classes = [value for module in (tf.keras.layers, tfpl) for value in vars(module).values()]
    classes += [tf.keras.Model, tf.keras.Sequential]
    return {class_name(cls): cls.__name__ for cls in classes if isinstance(cls, type)}


def _shown(names):
    """A layer's class as a message may show it: the first of its classes (most derived first) that
    is Keras' or TFP's own, by its name; "object" when none is."""
    names = names if type(names) is list else []
    return next((_known_layers()[name] for name in names if type(name) is str and name in _known_layers()), "object")


def assert_layer_types(model, expected, what="the model", count_input=True):
    """Check ``model.layers`` are of the classes in ``expected``, in order; return the layers."""
    found = layer_classes(model)
    if not count_input:
        found = [(names, layer) for names, layer in found if class_name(tf.keras.layers.InputLayer) not in names]
    names = [cls.__name__ for cls in expected]
    assert len(found) == len(expected), (
        f"{what} should have {len(expected)} layers ({', '.join(names)}), "
        f"found {number(len(found))}: {listed(_shown(classes) for classes, _ in found)}"
    )
    for position, ((classes, _), cls) in enumerate(zip(found, expected)):
        assert type(classes) is list and class_name(cls) in classes, (
            f"layer {position} of {what} should be a {cls.__name__}, found {_shown(classes)}"
        )
    return [layer for _, layer in found]


def assert_model_layers(model, expected, what="the model"):
    """Check a Sequential or functional model's layers are the classes in ``expected``; return them.
    The ``Input`` of a functional model is not counted (``bdl.checks.assert_model_layers``)."""
    return assert_layer_types(model, expected, what, count_input=False)


# ---------------------------------------------------------------------------------------------
# Stand-ins


class ScaledKL(StandIn):
    """A divergence function for the reparameterization layers: ``KL[q || p] / divisor``."""

    def __init__(self, divisor):
        super().__init__(divisor)
        self.divisor = divisor

    def __call__(self, q, p, _):
        return tfd.kl_divergence(q, p) / self.divisor


class NormalPrior(StandIn):
    """A prior function for ``DenseVariational``: an independent N(0, scale^2) over all the weights."""

    def __init__(self, scale):
        super().__init__(scale)
        self.scale = float(scale)

    def __call__(self, kernel_size, bias_size, dtype=None):
        size, scale = kernel_size + bias_size, self.scale
        return tf.keras.Sequential(
            [tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(tf.zeros(size), scale * tf.ones(size)), 1))]
        )


class LaplaceMixturePrior(StandIn):
    """A prior function for ``DenseVariational`` that no task asks for: the equal mixture of
    independent zero-mean Laplace distributions over all the weights, one of each of the given
    scales. A mixture has no exact KL divergence from a posterior."""

    def __init__(self, scales):
        super().__init__(scales)
        self.scales = [float(scale) for scale in scales]

    def __call__(self, kernel_size, bias_size, dtype=None):
        size, scales = kernel_size + bias_size, self.scales
        return tf.keras.Sequential(
            [
                tfpl.DistributionLambda(
                    lambda t: tfd.Mixture(
                        cat=tfd.Categorical(probs=[1 / len(scales)] * len(scales)),
                        components=[tfd.Independent(tfd.Laplace(tf.zeros(size), s * tf.ones(size)), 1) for s in scales],
                    )
                )
            ]
        )


class FixedPosterior(StandIn):
    """A posterior function for ``DenseVariational`` that no task asks for: independent Laplace
    distributions whose parameters all start at ``value`` (the locations ``value``, the scales
    ``softplus(value)``), and whose sample is its mean, so that the layer's weights, and its Monte
    Carlo KL estimate, are known."""

    def __init__(self, value):
        super().__init__(value)
        self.value = float(value)

    def __call__(self, kernel_size, bias_size, dtype=None):
        size = kernel_size + bias_size
        return tf.keras.Sequential(
            [
                tfpl.VariableLayer(2 * size, initializer=tf.keras.initializers.Constant(self.value)),
                tfpl.DistributionLambda(
                    lambda t: tfd.Independent(tfd.Laplace(t[..., :size], tf.nn.softplus(t[..., size:])), 1),
                    convert_to_tensor_fn=tfd.Distribution.mean,
                ),
            ]
        )


class Recorded(StandIn):
    """A prior or posterior function that notes each call, ``(name, kernel_size, bias_size)``, in
    ``calls``, then calls ``make``."""

    def __init__(self, name, make):
        super().__init__(name, make)
        self.name, self.make, self.calls = name, make, []

    def __call__(self, kernel_size, bias_size, dtype=None):
        self.calls.append((self.name, int(kernel_size), int(bias_size)))
        return self.make(kernel_size, bias_size, dtype)


class BrierLoss(StandIn):
    """A loss for a model whose output is a distribution: the squared distance between the one-hot
    labels and the distribution's mean (its probabilities), summed over the classes; one value per
    example."""

    def __call__(self, y_true, y_pred):
        return tf.reduce_sum(tf.square(tf.cast(y_true, tf.float32) - y_pred.mean()), axis=-1)


class FixedSamples(StandIn):
    """Stands in for a Bayesian model: each call returns the next of a fixed list of predictions (one
    ``[N, K]`` array of probabilities per weight sample) as a OneHotCategorical, whatever its input;
    ``calls`` counts the calls."""

    def __init__(self, samples):
        super().__init__(samples)
        self.samples = [np.asarray(sample, dtype="float32") for sample in samples]
        self.calls = 0

    def __call__(self, x):
        probs = self.samples[self.calls % len(self.samples)]
        self.calls += 1
        return tfd.OneHotCategorical(probs=probs, dtype=tf.float32)


class SmallBayesianClassifier(tf.keras.Sequential):
    """A small Bayesian classifier (a Keras model; make it with ``made``): flattened images, a
    ``DenseReparameterization`` layer giving the logits, and a ``OneHotCategorical`` of them as its
    output. Each call draws new weights."""

    def __init__(self, input_shape, classes):
        super().__init__(
            [
                tf.keras.layers.Flatten(input_shape=tuple(input_shape)),
                tfpl.DenseReparameterization(int(classes)),
                tfpl.DistributionLambda(lambda logits: tfd.OneHotCategorical(logits=logits, dtype=tf.float32)),
            ]
        )
