"""The known mistakes of assignment 04 (Bayesian CNN), recognised by what the answer builds or computes.

Each recogniser gets the student's function and returns whether what it builds (a model, a layer,
a distribution) or computes behaves like the mistake on its probes; ``bdl.diagnoses`` says the
rules (no right answer built here). Settings the spec fixes (filters, kernel and pool sizes,
padding) are read from the built layers; activations are recognised by what they compute.
"""

import warnings

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

from bdl.checks import softmax
from bdl.diagnoses.probes import Function, Mistake, call, fails, same

tfd, tfpl = tfp.distributions, tfp.layers

# A shape no notebook uses, so that one written into the code shows.
_SHAPE = (40, 40, 3)
_PROBE = np.linspace(-2.0, 3.0, 12, dtype="float32").reshape(2, 6)


def _computes(activation, expected):
    values = np.asarray(activation(tf.constant(_PROBE)))
    return values.shape == _PROBE.shape and np.allclose(values, expected(_PROBE), atol=1e-5)


def _relu(x):
    return np.maximum(x, 0.0)


class _Loss(tf.keras.losses.Loss):
    """A loss of the probe's own, to see whether the model is compiled with the one it is given."""

    def call(self, y_true, y_pred):
        return tf.reduce_mean(tf.square(tf.cast(y_true, tf.float32) - tf.convert_to_tensor(y_pred)), axis=-1)


def _built(function):
    """The student's model for the probe shape, compiled with the probe's loss, optimizer and metric."""
    loss, optimizer = _Loss(), tf.keras.optimizers.Adam(0.0123)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(_SHAPE, loss, optimizer, [tf.keras.metrics.MeanSquaredError("probe_metric")]), loss


def _layers(model, kind):
    return [layer for layer in model.layers if isinstance(layer, kind)]


def _first(model, kind):
    found = _layers(model, kind)
    return found[0] if found else None


def _model_mistakes(convolution=tf.keras.layers.Conv2D):
    """The mistakes the deterministic and the probabilistic model share."""

    def conv(f):
        return _first(_built(f)[0], convolution)

    return (
        Mistake(
            "no_input_shape",
            "Your model is not built until it is first called: give its first layer the input shape it is "
            "given (or start the model with an Input).",
            lambda f: not _built(f)[0].built,
        ),
        Mistake(
            "input_shape_ignored",
            "Your model does not take the input shape it is given: use the input_shape argument, not a "
            "shape of the notebook's data.",
            lambda f: tuple(_built(f)[0].input_shape[1:]) != _SHAPE,
        ),
        Mistake(
            "filters",
            "Your convolution has another number of filters than the spec asks for.",
            lambda f: conv(f).filters != 8,
        ),
        Mistake(
            "kernel_size",
            "Your convolution's kernel has another size than the spec asks for.",
            lambda f: tuple(conv(f).kernel_size) != (5, 5),
        ),
        Mistake(
            "padding",
            'Your convolution pads its input; the spec asks for no padding ("valid").',
            lambda f: conv(f).padding.lower() != "valid",
        ),
        Mistake(
            "convolution_activation",
            "Your convolution's activation is not the ReLU the spec asks for.",
            lambda f: not _computes(conv(f).activation, _relu),
        ),
        Mistake(
            "pool_size",
            "Your pooling layer's window has another size than the spec asks for.",
            lambda f: tuple(_first(_built(f)[0], tf.keras.layers.MaxPooling2D).pool_size) != (6, 6),
        ),
        Mistake(
            "loss_ignored",
            "Your model is compiled with another loss than the one it is given: pass the loss argument to compile.",
            lambda f: not isinstance(_built(f)[0].loss, _Loss),
        ),
        Mistake(
            "optimizer_ignored",
            "Your model is compiled with another optimizer than the one it is given: pass the optimizer "
            "argument to compile.",
            lambda f: not np.isclose(float(tf.keras.backend.get_value(_built(f)[0].optimizer.learning_rate)), 0.0123),
        ),
        Mistake(
            "metrics_ignored",
            "Your model is compiled with other metrics than the ones it is given: pass the metrics argument "
            "to compile.",
            lambda f: "probe_metric" not in _metric_names(_built(f)[0]),
        ),
    )


def _metric_names(model):
    """The names of the metrics the model was compiled with, as given to compile."""
    return [getattr(metric, "name", metric) for metric in model.compiled_metrics._user_metrics or []]


DETERMINISTIC = Function(
    "get_deterministic_model",
    _model_mistakes()
    + (
        Mistake(
            "no_softmax",
            "Your last layer gives raw scores; the spec asks for a softmax, so that the model outputs probabilities.",
            lambda f: _computes(_layers(_built(f)[0], tf.keras.layers.Dense)[-1].activation, lambda x: x),
        ),
        Mistake(
            "not_softmax",
            "Your last layer's activation is not a softmax; the spec asks for one, so that each output is a set "
            "of probabilities that sum to one.",
            lambda f: (
                not any(
                    _computes(_layers(_built(f)[0], tf.keras.layers.Dense)[-1].activation, expected)
                    for expected in (softmax, lambda x: x)
                )
            ),
        ),
    ),
)


def _tensor_is_not_the_mode(model):
    """Whether the distribution the model outputs, taken as a tensor, differs from its mode."""
    distribution = model(tf.random.stateless_uniform((16, *_SHAPE), seed=[4, 2]))
    return not same(np.asarray(tf.convert_to_tensor(distribution)), np.asarray(distribution.mode()))


PROBABILISTIC = Function(
    "get_probabilistic_model",
    _model_mistakes()
    + (
        Mistake(
            "softmax_before_distribution",
            "Your dense layer applies a softmax before the distribution layer; the OneHotCategorical layer "
            "takes logits, so the dense layer has no activation.",
            lambda f: _computes(_layers(_built(f)[0], tf.keras.layers.Dense)[-1].activation, softmax),
        ),
        Mistake(
            "tensor_not_the_mode",
            "Your distribution layer turns into something other than its mode when used as a tensor (a "
            "random sample, or the probabilities); the spec asks for the mode.",
            lambda f: _tensor_is_not_the_mode(_built(f)[0]),
        ),
    ),
)


def _conv_layer(function, divergence=None):
    calls = []
    layer = function(_SHAPE, divergence or (lambda q, p, _: calls.append(1) or tfd.kl_divergence(q, p)))
    layer(tf.zeros((1, *_SHAPE)))
    return layer, calls


def _point_mass(distribution):
    return "Deterministic" in type(getattr(distribution, "distribution", distribution)).__name__


CONVOLUTION = Function(
    "get_convolutional_reparameterization_layer",
    (
        Mistake(
            "no_input_shape",
            "Your layer has no input shape: give it the input shape it is given, since it is the model's first layer.",
            lambda f: getattr(f(_SHAPE, lambda q, p, _: 0.0), "_batch_input_shape", None) is None,
        ),
        Mistake(
            "input_shape_ignored",
            "Your layer does not take the input shape it is given: use the input_shape argument.",
            lambda f: tuple(f(_SHAPE, lambda q, p, _: 0.0)._batch_input_shape[1:]) != _SHAPE,
        ),
        Mistake(
            "filters",
            "Your convolution has another number of filters than the spec asks for.",
            lambda f: _conv_layer(f)[0].filters != 8,
        ),
        Mistake(
            "padding",
            'Your convolution pads its input; the spec asks for no padding ("valid").',
            lambda f: _conv_layer(f)[0].padding.lower() != "valid",
        ),
        Mistake(
            "no_activation",
            "Your convolution's activation is not the ReLU the spec asks for.",
            lambda f: not _computes(_conv_layer(f)[0].activation, _relu),
        ),
        Mistake(
            "point_mass_kernel",
            "Your kernel's posterior is a point mass, so its weights are not random: the spec asks for a "
            "mean-field normal posterior.",
            lambda f: _point_mass(_conv_layer(f)[0].kernel_posterior),
        ),
        Mistake(
            "point_mass_bias",
            "Your bias's posterior is a point mass (the layer's default), so the bias is not random: give the "
            "bias a mean-field normal posterior too.",
            lambda f: _point_mass(_conv_layer(f)[0].bias_posterior),
        ),
        Mistake(
            "no_bias_divergence",
            "Your layer applies the divergence function it is given to the kernel only: give the bias its prior "
            "and that divergence function too (the layer adds a bias's KL divergence only when it has both).",
            lambda f: len(_conv_layer(f)[1]) == 1,
        ),
        Mistake(
            "trainable_prior",
            "Your kernel's prior has trainable parameters; the spec asks for a fixed standard normal prior.",
            lambda f: bool(getattr(_conv_layer(f)[0].kernel_prior, "trainable_variables", ())),
        ),
    ),
)


def _distribution(function, kernel_size=6, bias_size=2, dtype=tf.float32):
    model = function(kernel_size, bias_size, dtype)
    return model, model(tf.zeros((1, 1)))


def _mixture(scales, probs=(0.5, 0.5), n=8):
    return tfd.Mixture(
        cat=tfd.Categorical(probs=list(probs)),
        components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in scales],
    )


_WEIGHTS = tf.constant(np.linspace(-12.0, 12.0, 24, dtype="float32").reshape(3, 8))


def _log_prob_close(function, values):
    """Whether the answer's prior has the log density ``values`` at the probe's weights."""
    return same(np.asarray(_distribution(function)[1].log_prob(_WEIGHTS)), values)


def _log_prob_like(function, distribution):
    return _log_prob_close(function, np.asarray(distribution.log_prob(_WEIGHTS)))


def _event_size(function, kernel_size=6, bias_size=2):
    return int(np.prod(_distribution(function, kernel_size, bias_size)[1].event_shape))


# Both priors, the original's and the per-weight one, are over the kernel's and the bias's weights.
PRIOR_SIZE_MISTAKES = (
    Mistake(
        "bias_left_out",
        "Your prior covers the kernel's weights only: it is over all the weights, the kernel's and the bias's.",
        lambda f: _event_size(f) == 6,
    ),
    Mistake(
        "bias_size_hard_coded",
        "Your prior has a fixed number of bias weights: take it from bias_size.",
        lambda f: _event_size(f) == 6 + 10,
    ),
)


def _per_weight_log_prob(scales, probs):
    """The log density, at the probe's weights, of a mixture of zero-mean normals of the given scales
    for every weight: a wrong answer's, for the scales and weights that are not the spec's."""
    w = np.asarray(_WEIGHTS, "float64")[..., None]
    scales, log_probs = np.asarray(scales, "float64"), np.log(np.asarray(probs, "float64"))
    one_weight = log_probs - np.log(scales) - 0.5 * np.log(2 * np.pi) - 0.5 * (w / scales) ** 2
    return np.logaddexp.reduce(one_weight, axis=-1).sum(-1)


PRIOR = Function(
    "get_prior",
    (
        *PRIOR_SIZE_MISTAKES,
        Mistake(
            "trainable_prior",
            "Your prior has trainable parameters; the spike-and-slab prior is fixed.",
            lambda f: bool(_distribution(f)[0].trainable_variables),
        ),
        Mistake(
            "standard_normal",
            "Your prior seems to be a single standard normal; the spec asks for the spike-and-slab mixture.",
            lambda f: _log_prob_like(f, tfd.Independent(tfd.Normal(tf.zeros(8), 1.0), 1)),
        ),
        Mistake(
            "slab_scale_as_variance",
            "Your slab's scale seems to be mixed up with its variance: the scale of each component is its "
            "standard deviation, the square root of its variance.",
            lambda f: any(_log_prob_like(f, _mixture((1.0, slab))) for slab in (10.0**0.5, 100.0)),
        ),
        Mistake(
            "unequal_weights",
            "Your mixture seems to weigh its components unequally; the spec's spike and slab weigh one half each.",
            lambda f: _log_prob_like(f, _mixture((1.0, 10.0), (0.2, 0.8))),
        ),
        Mistake(
            "per_weight_mixture",
            "Your prior seems to be a mixture for every weight on its own; the spec's prior is the given "
            "spike_and_slab, which mixes its two components over the whole vector of weights.",
            lambda f: _log_prob_close(f, _per_weight_log_prob((1.0, 10.0), (0.5, 0.5))),
        ),
    ),
)


def _not_per_weight(function):
    """Whether the prior's log density of a vector is not the sum of one term per weight, as it is for
    any prior that takes the weights one by one: with two weights set, it differs from what each
    adds on its own by more than a nat."""
    prior = _distribution(function)[1]
    vectors = np.zeros((4, 8), "float32")
    vectors[1, 0] = vectors[2, 1] = vectors[3, 0] = vectors[3, 1] = 6.0  # (a, 0), (0, b), (a, b)
    zero, first, second, both = np.asarray(prior.log_prob(vectors), "float64")
    return abs(both - first - second + zero) > 1.0


def _batch_not_event(function):
    distribution = _distribution(function)[1]
    return distribution.event_shape.as_list() == [] and distribution.batch_shape.as_list() == [8]


PER_WEIGHT_PRIOR = Function(
    "get_per_weight_prior",
    (
        *PRIOR_SIZE_MISTAKES,
        Mistake(
            "batch_not_event",
            "Your prior is a batch of one-weight distributions, not one distribution over the vector of "
            "weights: its log density of a vector should be one number, the sum over the weights.",
            _batch_not_event,
        ),
        Mistake(
            "trainable_prior",
            "Your prior has trainable parameters; the per-weight mixture is fixed.",
            lambda f: bool(_distribution(f)[0].trainable_variables),
        ),
        Mistake(
            "vector_mixture",
            "Your prior mixes whole vectors of weights, as the original's spike_and_slab does; the spec asks "
            "for a mixture for every weight on its own.",
            _not_per_weight,
        ),
        Mistake(
            "standard_normal",
            "Your prior seems to be a single standard normal; the spec asks for a mixture for every weight.",
            lambda f: _log_prob_like(f, tfd.Independent(tfd.Normal(tf.zeros(8), 1.0), 1)),
        ),
        Mistake(
            "slab_scale_as_variance",
            "Your broad component's scale seems to be mixed up with its variance: the scale of each component "
            "is its standard deviation, the square root of its variance.",
            lambda f: any(
                _log_prob_close(f, _per_weight_log_prob((1.0, slab), (0.5, 0.5))) for slab in (10.0**0.5, 100.0)
            ),
        ),
        Mistake(
            "unequal_weights",
            "Your mixture seems to weigh its components unequally; the spec's components weigh one half each.",
            lambda f: _log_prob_close(f, _per_weight_log_prob((1.0, 10.0), (0.2, 0.8))),
        ),
    ),
)


def _posterior_variables(function, kernel_size=6, bias_size=2, dtype=tf.float32):
    model = function(kernel_size, bias_size, dtype)
    model(tf.zeros((1, 1)))
    return model


def _variable_sizes(function):
    model = function(6, 2, tf.float32)
    try:
        model(tf.zeros((1, 1)))
    except Exception:  # a posterior with the wrong number of parameters fails here, after building them
        pass
    return [int(np.prod(v.shape)) for v in model.variables]


POSTERIOR = Function(
    "get_posterior",
    (
        Mistake(
            "one_parameter_per_weight",
            "Your posterior's variable layer holds one number per weight; an independent normal needs two per "
            "weight, a location and a scale.",
            lambda f: _variable_sizes(f) == [8],
        ),
        Mistake(
            "full_covariance",
            "Your posterior seems to have a full covariance matrix; the spec asks for an independent normal, "
            "one location and one scale per weight.",
            lambda f: _variable_sizes(f) == [8 + 8 * 9 // 2],
        ),
        Mistake(
            "bias_left_out",
            "Your posterior covers the kernel's weights only: it is over all the weights, the kernel's and the bias's.",
            lambda f: _variable_sizes(f) == [12],
        ),
        Mistake(
            "bias_size_hard_coded",
            "Your posterior has a fixed number of bias weights: take it from bias_size.",
            lambda f: _variable_sizes(f) == [32],
        ),
        Mistake(
            "not_trainable",
            "Your posterior's parameters are not trainable: the variable layer must be trained.",
            lambda f: not _posterior_variables(f).trainable_variables,
        ),
        Mistake(
            "dtype_ignored",
            "Your posterior ignores the dtype it is given: pass it to the variable layer.",
            lambda f: _posterior_variables(f, dtype=tf.float64).variables[0].dtype != tf.float64,
        ),
        Mistake(
            "scales_not_positive",
            "Your posterior's scales are not all positive: a scale must stay above zero whatever value its "
            "variable takes, so map the variable to a positive number before using it as a scale.",
            lambda f: not np.all(np.asarray(_distribution(f)[1].stddev()) > 0),
        ),
        Mistake(
            "scales_from_means",
            "Your posterior's scales seem to be computed from its means: moving a mean moves its scale. Each "
            "weight needs a location and a scale of its own, from different variables.",
            lambda f: _scales_from_means(f),
        ),
    ),
)


def _scales_from_means(function):
    """Whether every variable that moves a scale moves a mean too (and some scale moves)."""
    model, _ = _distribution(function)
    with tf.GradientTape(persistent=True) as tape:
        posterior = model(tf.zeros((1, 1)))
        means, scales = tf.reduce_sum(posterior.mean()), tf.reduce_sum(posterior.stddev())
    variables = model.trainable_variables

    def moved_by(total):
        gradients = tape.gradient(total, variables)
        return (
            np.concatenate([np.ravel(np.zeros(v.shape) if g is None else g) for g, v in zip(gradients, variables)]) != 0
        )

    moves_means, moves_scales = moved_by(means), moved_by(scales)
    return bool(np.any(moves_scales) and np.all(moves_means[moves_scales]))


def _closure(function):
    """The names a closure holds, and their values."""
    return dict(zip(function.__code__.co_freevars, (cell.cell_contents for cell in function.__closure__ or ())))


def _standard_normal(kernel_size, bias_size, dtype=None):
    weights = kernel_size + bias_size
    standard = tfpl.DistributionLambda(lambda _: tfd.Independent(tfd.Normal(tf.zeros(weights, dtype), 1.0), 1))
    return tf.keras.Sequential([standard])


def _prior_fn(kernel_size, bias_size, dtype=None):
    """A probe's prior function (a standard normal): what the layer under test is given."""
    return _standard_normal(kernel_size, bias_size, dtype)


def _posterior_fn(kernel_size, bias_size, dtype=None):
    """A probe's posterior function. The layer is built, never called, and only where it puts this
    function is looked at: a fixed standard normal will do (a trainable independent normal would be
    get_posterior's answer)."""
    return _standard_normal(kernel_size, bias_size, dtype)


def _dense(function, kl_weight=0.25):
    return function(_prior_fn, _posterior_fn, kl_weight)


DENSE_VARIATIONAL = Function(
    "get_dense_variational_layer",
    (
        Mistake(
            "units",
            "Your layer has another number of units than the OneHotCategorical of ten classes needs.",
            lambda f: _dense(f).units != 10,
        ),
        Mistake(
            "activation",
            "Your layer applies an activation; its outputs are the logits of the distribution layer after it, "
            "so it has none.",
            lambda f: not _computes(_dense(f).activation, lambda x: x),
        ),
        Mistake(
            "prior_and_posterior_swapped",
            "Your layer takes the posterior function as its prior and the prior function as its posterior: "
            "check which argument is which.",
            lambda f: _dense(f)._make_posterior_fn is _prior_fn,
        ),
        Mistake(
            "posterior_as_prior",
            "Your layer uses the posterior function as its prior too: pass the prior function.",
            lambda f: _dense(f)._make_prior_fn is _posterior_fn,
        ),
        Mistake(
            "exact_kl",
            "Your layer computes the KL divergence exactly; the spec asks for the Monte Carlo estimate "
            "(kl_use_exact off), since the spike-and-slab prior has no exact KL.",
            lambda f: _closure(_dense(f)._kl_divergence_fn)["kl_divergence_fn"] is tfd.kl_divergence,
        ),
        Mistake(
            "kl_weight_ignored",
            "Your layer's KL weight is not the one it is given: pass the kl_weight argument.",
            lambda f: _closure(_dense(f)._kl_divergence_fn)["weight"] != 0.25,
        ),
    ),
)

# nll: labels of three classes (one example whose true class has probability one half)
_PROBS = np.array([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6], [0.25, 0.25, 0.5]], "float32")
_LABELS = np.eye(3, dtype="float32")[[0, 2, 1]]


def _nll(function, probs=_PROBS, labels=_LABELS):
    return call(function, tf.constant(labels), tfd.OneHotCategorical(probs=probs, dtype=tf.float32))


def _confident_nll(function):
    """The NLL of two confident predictions, one right and one wrong: logits 150 to 200 apart, whose
    other classes' probabilities underflow to zero in float32."""
    logits = tf.constant([[0.0, 200.0, -200.0], [150.0, 0.0, 0.0]])
    return np.asarray(call(function, tf.one_hot([1, 1], 3), tfd.OneHotCategorical(logits=logits, dtype=tf.float32)))


def _nll_gradient(function):
    logits = tf.Variable(np.log(_PROBS))
    with tf.GradientTape() as tape:
        value = function(tf.constant(_LABELS), tfd.OneHotCategorical(logits=logits, dtype=tf.float32))
    return tf.is_tensor(value) and tape.gradient(value, logits) is None


NLL = Function(
    "nll",
    (
        Mistake(
            "not_a_tensor",
            "Your NLL returns a NumPy value; a training loss must be a tensor, computed with TensorFlow operations.",
            lambda f: isinstance(
                f(tf.constant(_LABELS), tfd.OneHotCategorical(probs=_PROBS, dtype=tf.float32)),
                (np.ndarray, np.generic, float),
            ),
        ),
        Mistake(
            "not_differentiable",
            "Your NLL is not differentiable: no gradient reaches the distribution's parameters. Compute it "
            "with TensorFlow operations, without going through NumPy.",
            _nll_gradient,
        ),
        Mistake(
            "classes_hard_coded",
            "Your NLL works for ten classes only: write it for any number of classes.",
            lambda f: (
                fails(lambda: _nll(f))
                and not fails(lambda: _nll(f, np.full((2, 10), 0.1, "float32"), np.eye(10, dtype="float32")[[1, 7]]))
            ),
        ),
        Mistake(
            "nan_when_confident",
            "Your NLL is nan or infinite for confident predictions, where a probability underflows to zero: "
            "compute it from the logits or the log-probabilities (the distribution's log_prob), not from the "
            "log of its probabilities.",
            lambda f: np.all(np.isfinite(_nll(f))) and not np.all(np.isfinite(_confident_nll(f))),
        ),
        Mistake(
            "mean_over_batch",
            "Your NLL averages over the batch; return one value per example (Keras averages them).",
            lambda f: _nll(f).shape == (),
        ),
        Mistake(
            "size_one_axes_lost",
            "Your NLL loses the batch axis for a batch of one: return one value per example, whatever their number.",
            lambda f: _nll(f).shape == (3,) and _nll(f, _PROBS[:1], _LABELS[:1]).shape != (1,),
        ),
        Mistake(
            "log_likelihood",
            "Your NLL is negative: it seems to be the log-likelihood, where the loss is its negative.",
            lambda f: np.all(_nll(f) < 0),
        ),
        Mistake(
            "bits",
            "Your NLL seems to be in bits; the spec asks for nats, with the natural logarithm.",
            lambda f: same(_nll(f)[0], 1.0),
        ),
        Mistake(
            "probability_not_log",
            "Your NLL seems to use the probability of the label itself where its logarithm belongs.",
            lambda f: same(_nll(f), 1 - np.sum(_PROBS * _LABELS, axis=-1)),
        ),
    ),
)


class _Sampled:
    """Stands in for a Bayesian model: each call returns the next of fixed predictions, one per input."""

    def __init__(self, predictions):
        self.predictions, self.count = [np.asarray(p, "float32") for p in predictions], 0

    def __call__(self, inputs):
        now = self.predictions[self.count % len(self.predictions)]
        self.count = self.count + 1
        return tfd.OneHotCategorical(probs=np.resize(now, (len(inputs), now.shape[-1])), dtype=tf.float32)


_INPUTS = np.zeros((2, 4), "float32")
_SURE_APART = [[[1, 0], [1, 0]], [[0, 1], [0, 1]]]  # each sure, of another class: 1 bit, epistemic
_NEARLY_SURE_APART = [[[1 - 1e-6, 1e-6], [1 - 1e-6, 1e-6]], [[1e-6, 1 - 1e-6], [1e-6, 1 - 1e-6]]]
_UNSURE_ALIKE = [[[0.5, 0.5], [0.5, 0.5]]] * 2  # alike and unsure: 1 bit, aleatoric
_VARIED = [[[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]], [[0.3, 0.3, 0.4], [0.1, 0.1, 0.8]], [[0.5, 0.2, 0.3], [0.3, 0.3, 0.4]]]


_TEN_CLASSES = [np.full((2, 10), 0.1), np.eye(10)[[1, 2]]]


def _split(function, samples=_VARIED, num_samples=3, inputs=_INPUTS):
    return call(function, _Sampled(samples), inputs, num_samples)


def _one_input(function):
    return _split(function, [prediction[:1] for prediction in _VARIED], inputs=_INPUTS[:1])


def _calls(function, num_samples):
    model = _Sampled(_VARIED)
    function(model, _INPUTS, num_samples)
    return model.count


def _warns(function):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        function(_Sampled(_SURE_APART), _INPUTS, 2)
    return any(issubclass(w.category, RuntimeWarning) for w in caught)


MC_ENTROPY = Function(
    "mc_entropy_decomposition",
    (
        Mistake(
            "not_numpy",
            "Your function returns tensors; the spec asks for NumPy arrays.",
            lambda f: any(tf.is_tensor(part) for part in f(_Sampled(_VARIED), _INPUTS, 3)),
        ),
        Mistake(
            "one_call",
            "Your function calls the model once and reuses its prediction: call it once per sample, each call "
            "drawing new weights.",
            lambda f: _calls(f, 3) == 1,
        ),
        Mistake(
            "num_samples_ignored",
            "Your function calls the model another number of times than num_samples: use the argument, not a "
            "number from the notebook.",
            lambda f: _calls(f, 3) != 3,
        ),
        Mistake(
            "inputs_ignored",
            "Your function does not use the inputs it is given: call the model on x.",
            lambda f: _split(f)[0].shape[0] != len(_INPUTS),
        ),
        Mistake(
            "wrong_axis",
            "Your function works only when there are as many samples as inputs: average over the samples, the "
            "first axis of the stacked predictions.",
            lambda f: fails(lambda: _split(f)) and not fails(lambda: _split(f, _VARIED[:2], 2)),
        ),
        Mistake(
            "classes_hard_coded",
            "Your function works for ten classes only: write it for any number of classes.",
            lambda f: fails(lambda: _split(f)) and not fails(lambda: _split(f, _TEN_CLASSES, 2)),
        ),
        Mistake(
            "size_one_axes_lost",
            "Your function loses an axis of size one: with one input, the parts still have one entry per input.",
            lambda f: _split(f)[1].shape == (2,) and _one_input(f)[1].shape != (1,),
        ),
        Mistake(
            "nan_at_zero",
            "Your entropies give nan where a probability is exactly zero: take zero times the log of zero to be zero.",
            # Said only where the entropies are the cause: the averaged probabilities are numbers, and the
            # same predictions a hair away from zero give numbers throughout.
            lambda f: (
                np.all(np.isfinite(_split(f, _SURE_APART, 2)[0]))
                and not np.all(np.isfinite(np.concatenate(_split(f, _SURE_APART, 2)[1:])))
                and all(np.all(np.isfinite(part)) for part in _split(f, _NEARLY_SURE_APART, 2))
            ),
        ),
        Mistake(
            "warns_at_zero",
            "Your entropies warn where a probability is exactly zero: the spec asks for no warnings, so never "
            "take the log of zero, even where the result is thrown away.",
            _warns,
        ),
        Mistake(
            "nats",
            "Your entropies seem to be in nats; the spec asks for bits (log base two).",
            lambda f: same(_split(f, _SURE_APART, 2)[1], np.log(2.0)),
        ),
        Mistake(
            "aleatoric_and_epistemic_swapped",
            "Your aleatoric and epistemic parts seem swapped: when every sample predicts alike, all of the "
            "uncertainty is aleatoric.",
            lambda f: same(_split(f, _UNSURE_ALIKE, 2)[2], 0.0) and same(_split(f, _UNSURE_ALIKE, 2)[3], 1.0),
        ),
        Mistake(
            "aleatoric_is_entropy_of_mean",
            "Your aleatoric part seems to be the entropy of the averaged prediction; it is the samples' average "
            "entropy.",
            # samples each sure of another class: their average entropy is zero, that of their mean is not
            lambda f: same(_split(f, _SURE_APART, 2)[2], 1.0),
        ),
    ),
)

TABLE = {
    "get_deterministic_model": DETERMINISTIC,
    "nll": NLL,
    "get_probabilistic_model": PROBABILISTIC,
    "get_convolutional_reparameterization_layer": CONVOLUTION,
    "get_prior": PRIOR,
    "get_per_weight_prior": PER_WEIGHT_PRIOR,
    "get_posterior": POSTERIOR,
    "get_dense_variational_layer": DENSE_VARIATIONAL,
    "mc_entropy_decomposition": MC_ENTROPY,
}
