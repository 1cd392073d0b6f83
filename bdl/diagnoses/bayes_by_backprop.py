"""The known mistakes of assignment 03 (Bayes by Backprop), recognised by what the answer computes.

Each recogniser gets the student's function or class and returns whether it behaves like the
mistake on its probes; ``bdl.diagnoses`` says the rules (no right answer computed here).
"""

import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

from bdl.diagnoses.probes import Function, Mistake, call, fails, same

tfd = tfp.distributions

NOT_A_TENSOR = (
    "Your {what} is a plain number or a NumPy value, not a tensor: compute it with TensorFlow operations, "
    "so that gradients reach the parameters."
)


def _numpy(value):
    return isinstance(value, (np.ndarray, np.generic, float))


# One weight: w = mu + sigma(rho) * eps, and data on the line y = 1.5 x, so that w = 1.5 fits exactly.
_PRIOR = tfd.Normal(0.3, 1.7)
_X, _Y = tf.constant([2.0, 1.0]), tf.constant([3.0, 1.5])


def _terms(function, mu=1.5, rho=2.0, eps=0.0, x=_X, y=_Y, noise_std=0.5, prior=_PRIOR):
    return call(function, tf.constant(mu), tf.constant(rho), tf.constant(eps), x, y, noise_std, prior)


# Three points off the line y = 1.5 x: with residuals, a wrong noise scale shows in the squared error as
# well as in the normaliser (a normaliser counted once, not per point, matches neither).
_X_OFF, _Y_OFF = tf.constant([2.0, 1.0, -1.0]), tf.constant([3.5, 1.0, -2.0])


def _noise_scale_is(function, power):
    """Whether the log-likelihood is that of Gaussian noise whose scale is noise_std ** power."""
    return all(
        same(
            _terms(function, x=_X_OFF, y=_Y_OFF, noise_std=noise_std)[2],
            float(np.sum(tfd.Normal(1.5 * _X_OFF, noise_std**power).log_prob(_Y_OFF))),
            rtol=1e-4,
        )
        for noise_std in (0.5, 2.0)
    )


def _log_q_gradient(function):
    mu = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        log_q = function(mu, tf.constant(2.0), tf.constant(0.3), _X, _Y, 0.5, _PRIOR)[0]
    gradient = tape.gradient(log_q, mu)
    return None if gradient is None else float(gradient)


LOSS_TERMS = Function(
    "bbb_loss_terms",
    (
        Mistake(
            "not_a_tensor",
            NOT_A_TENSOR.format(what="log-likelihood"),
            lambda f: _numpy(f(tf.constant(0.5), tf.constant(2.0), tf.constant(0.3), _X, _Y, 0.5, _PRIOR)[2]),
        ),
        Mistake(
            "exp_not_softplus",
            "Your sigma seems to be the exponential of rho; the spec asks for the softplus of rho.",
            lambda f: same(_terms(f, rho=0.0)[0] - _terms(f, rho=1.0)[0], 1.0),
        ),
        # Along w = mu + sigma eps both paths cancel in d log q / d mu. A stopped w leaves the direct
        # path, +eps / sigma; q's parameters held constant ("sticking the landing") leave the path through
        # w, -eps / sigma: the probe's eps is positive, so the sign tells the two cuts apart.
        Mistake(
            "gradient_stopped",
            "Your log q gets a gradient through the sampled weight's value only as a constant: the sample must "
            "stay a function of mu and rho inside log q too (no stopped gradient).",
            lambda f: (_log_q_gradient(f) or 0.0) > 1e-3,
        ),
        Mistake(
            "parameters_stopped",
            "Your log q seems to hold q's own mu and sigma constant and let the gradient pass through the "
            "sampled weight only (the 'sticking the landing' estimator): unbiased on average, but this task "
            "asks for the gradient of the one-sample loss through both paths.",
            lambda f: (_log_q_gradient(f) or 0.0) < -1e-3,
        ),
        Mistake(
            "prior_at_the_mean",
            "Your log prior does not change with the noise draw: evaluate the prior at the sampled weight, not "
            "at its mean.",
            lambda f: same(_terms(f, eps=0.3)[1], _terms(f, eps=-1.0)[1]),
        ),
        Mistake(
            "prior_ignored",
            "Your log prior does not depend on the prior you are given: use the prior argument.",
            lambda f: same(_terms(f, prior=tfd.Normal(0.3, 1.7))[1], _terms(f, prior=tfd.Normal(-2.0, 0.2))[1]),
        ),
        Mistake(
            "mean_over_data",
            "Your log-likelihood does not grow with the number of data points: it seems to average over them; "
            "it sums over them.",
            lambda f: same(
                _terms(f, eps=0.3)[2], _terms(f, eps=0.3, x=tf.concat([_X, _X], 0), y=tf.concat([_Y, _Y], 0))[2]
            ),
        ),
        Mistake(
            "noise_as_variance",
            "Your likelihood seems to mix up the noise's standard deviation and its variance: noise_std is the "
            "standard deviation, the scale of the Gaussian noise itself.",
            lambda f: any(_noise_scale_is(f, power) for power in (0.5, 2.0)),
        ),
        Mistake(
            "x_and_y_swapped",
            "Your likelihood seems to swap the inputs and the targets: the model predicts y as w times x.",
            lambda f: not same(_terms(f)[2], _terms(f, x=2 * _X, y=2 * _Y)[2]),
        ),
        Mistake(
            "log_likelihood_added",
            "Your loss adds the log-likelihood; the loss, the negative ELBO, subtracts it.",
            lambda f: same(
                _terms(f, eps=0.3)[3], _terms(f, eps=0.3)[0] - _terms(f, eps=0.3)[1] + _terms(f, eps=0.3)[2]
            ),
        ),
        # Last: an answer with another mistake in sigma (the exponential of rho) overflows here too.
        Mistake(
            "softplus_unstable",
            "Your sigma is zero or infinite where rho is far from zero: the logarithm of one plus the exponential "
            "of rho, computed as written, rounds to zero for very negative rho and overflows for large rho in "
            "float32. Use TensorFlow's softplus, which stays positive and finite for any rho.",
            lambda f: _finite(_terms(f)) and not all(_finite(_terms(f, mu=0.0, rho=rho)) for rho in (-20.0, 100.0)),
        ),
    ),
)


def _finite(terms):
    return bool(np.all(np.isfinite(np.asarray(terms, dtype=np.float64))))


# BayesianDense: a layer of the student's class, called on [0; I] so that row 0 of its output is
# the bias it sampled and row 1 + i minus row 0 the kernel's row i.
# Only the initialisers a probe sets are passed: an answer whose own defaults sit in its signature
# would take an explicit None for "no initialiser" and never show what its defaults do.
def _layer(cls, units=3, prior=None, mu=None, rho=None):
    given = {name: value for name, value in (("mu_initializer", mu), ("rho_initializer", rho)) if value is not None}
    return cls(units, prior or tfd.Normal(0.0, 1.0), **given)


def _sample(layer, inputs=2):
    rows = np.asarray(layer(tf.concat([tf.zeros((1, inputs)), tf.eye(inputs)], axis=0)), dtype=np.float64)
    bias = rows[0]
    return rows[1:] - bias, bias


def _constant(value):
    return tf.keras.initializers.Constant(value)


def _kernel_mus(cls):
    """The kernel-shaped variables of two new layers of one shape, with the default initialisers."""
    found = []
    for _ in range(2):
        layer = _layer(cls, 5)
        layer(tf.ones((1, 4)))
        found.append([v.numpy() for v in layer.trainable_variables if v.shape == (4, 5) and not np.allclose(v, -6.0)])
    return found


def _cut_in_log_q(cls):
    """Which path a layer's log q cuts, from d log q / d mu and d log q / d rho per weight at
    mu = 0.1, rho = -1 (eps unknown, but eps^2 / sigma^2 = (d log q / d mu)^2 either way):
    "weights" (a stopped w: d/d rho = (eps^2 - 1) sigma' / sigma), "parameters" (mu and sigma held
    constant: d/d rho = -eps^2 sigma' / sigma), or None."""
    layer = _layer(cls, 2, mu=_constant(0.1), rho=_constant(-1.0))
    with tf.GradientTape() as tape:
        layer(tf.ones((3, 2)))
        log_q = layer.log_variational_posterior
    means = [v for v in layer.trainable_variables if np.allclose(v, 0.1)]
    rhos = [v for v in layer.trainable_variables if np.allclose(v, -1.0)]
    pairs = [(m, r) for m in means for r in rhos if m.shape == r.shape]
    if not pairs:
        return None
    gradients = tape.gradient(log_q, [v for pair in pairs for v in pair])
    if any(g is None for g in gradients):
        return None
    sigma, slope = float(np.log1p(np.exp(-1.0))), float(1 / (1 + np.exp(1.0)))
    g_mu = np.concatenate([np.ravel(g) for g in gradients[0::2]])
    g_rho = np.concatenate([np.ravel(g) for g in gradients[1::2]])
    if np.abs(g_mu).max() < 1e-3:
        return None
    eps_squared = (g_mu * sigma) ** 2
    if np.allclose(g_rho, (eps_squared - 1) * slope / sigma, rtol=1e-3, atol=1e-4):
        return "weights"
    if np.allclose(g_rho, -eps_squared * slope / sigma, rtol=1e-3, atol=1e-4):
        return "parameters"
    return None


def _rows_differ(cls):
    """Whether identical rows of one batch come out different (a new draw per example)."""
    output = np.asarray(_layer(cls, rho=_constant(0.0))(tf.ones((4, 2))))
    return output.shape == (4, 3) and not np.allclose(output, output[:1], rtol=1e-5, atol=1e-5)


DENSE = Function(
    "BayesianDense",
    (
        Mistake(
            "size_one_axes_lost",
            "Your layer loses an axis of size one: with one input or one unit, the output still has both axes.",
            lambda cls: tuple(_layer(cls, 1)(tf.ones((1, 3))).shape) != (1, 1),
        ),
        Mistake(
            "weights_per_example",
            "Your layer seems to use different weights for different rows of one batch; the spec asks for one "
            "draw per call, shared by every row.",
            _rows_differ,
        ),
        Mistake(
            "input_size_hard_coded",
            "Your layer works for one input size only: take the kernel's size from the input shape.",
            lambda cls: _layer(cls)(tf.ones((4, 2))).shape == (4, 3) and fails(lambda: _layer(cls)(tf.ones((4, 5)))),
        ),
        Mistake(
            "not_a_tensor",
            # Seen after a call: a value never set there and one set to a NumPy number look the same.
            "Your layer's recorded log density is not a tensor after a call: in call, set it to the sample's "
            "log densities, computed with TensorFlow operations, so that gradients reach the parameters.",
            lambda cls: _numpy(_called(_layer(cls)).log_prior),
        ),
        Mistake(
            "same_noise_every_call",
            "Your layer draws the same weights on every call: draw new noise each time it is called.",
            lambda cls: _twice(_layer(cls), lambda layer: _called(layer, output=True)),
        ),
        Mistake(
            "noise_frozen_when_compiled",
            "Your layer draws new weights when called directly, but the same ones on every run of a compiled "
            "function: draw the noise with TensorFlow's random operations, not NumPy's, which draw once, when "
            "the function is traced.",
            lambda cls: _frozen_when_compiled(_layer(cls)),
        ),
        Mistake(
            "bias_not_sampled",
            "Your layer's bias does not vary from call to call: sample the bias like the kernel.",
            lambda cls: _twice(_layer(cls, rho=_constant(0.0)), lambda layer: _sample(layer)[1]),
        ),
        Mistake(
            "activation_inside",
            "Your layer seems to apply an activation; it returns the inputs times the kernel plus the bias, "
            "with no activation (add an activation layer after it).",
            lambda cls: np.all(
                np.abs(np.asarray(_layer(cls, mu=_constant(2.0), rho=_constant(-8.0))(10 * tf.ones((2, 2))))) < 1.0001
            ),
        ),
        Mistake(
            "exp_not_softplus",
            "Your weights' spread seems to be the exponential of rho; the spec asks for the softplus of rho.",
            lambda cls: (
                abs(np.std(_sample(_layer(cls, 400, mu=_constant(0.0), rho=_constant(1.0)))[0]) / np.e - 1) < 0.1
            ),
        ),
        Mistake(
            "initialisers_swapped",
            "Your kernel's mean starts from the rho initialiser: give each weight the initialiser of its kind.",
            lambda cls: (
                not [
                    v
                    for v in _called(_layer(cls, mu=_constant(0.5), rho=_constant(-2.0))).trainable_variables
                    if v.shape == (2, 3) and np.allclose(v, 0.5)
                ]
            ),
        ),
        Mistake(
            "one_initialiser_for_both_means",
            "Your layer's bias mean starts as a copy of the kernel mean's first row: give each weight its own "
            "initialiser (new_initializer returns a new one on every call).",
            lambda cls: _shared_first_row(_called(_layer(cls))),
        ),
        Mistake(
            "layers_start_equal",
            "Two of your layers of one shape start with the same weights: give each weight its own new "
            "initialiser, not one instance shared by every layer.",
            lambda cls: len(_kernel_mus(cls)[0]) == 1 and np.allclose(_kernel_mus(cls)[0][0], _kernel_mus(cls)[1][0]),
        ),
        Mistake(
            "prior_at_the_mean",
            "Your layer's log prior does not change with the sampled weights: evaluate the prior at the "
            "sampled weights, not at their means.",
            # Two pairs of calls: a sum of nine log densities can repeat to 1e-4 by chance, two cannot.
            lambda cls: _twice(
                _layer(cls, rho=_constant(0.0)),
                lambda layer: (float(_called(layer).log_prior), float(_called(layer).log_prior)),
            ),
        ),
        Mistake(
            "prior_ignored",
            "Your layer's log prior does not depend on the prior it is given: use the prior argument.",
            lambda cls: float(_called(_layer(cls, prior=tfd.Normal(5.0, 0.1))).log_prior) > -1000,
        ),
        Mistake(
            "gradient_stopped",
            "Your log q treats the sampled weights as constants: they must stay functions of mu and rho "
            "inside log q too (no stopped gradient).",
            lambda cls: _cut_in_log_q(cls) == "weights",
        ),
        Mistake(
            "parameters_stopped",
            "Your log q seems to hold q's own mu and sigma constant and let the gradient pass through the "
            "sampled weights only (the 'sticking the landing' estimator): unbiased on average, but the tests "
            "ask for the gradient of the recorded log q through both paths.",
            lambda cls: _cut_in_log_q(cls) == "parameters",
        ),
        Mistake(
            "kernel_only",
            "Your layer's log prior seems to count the kernel's weights only; the bias's weights count too.",
            lambda cls: _kernel_only(cls),
        ),
        Mistake(
            "noise_shared",
            "Your layer's weights are not independent: some of them move together from draw to draw, as if they "
            "shared their noise. Under the mean-field posterior every weight, kernel and bias, has noise of its own.",
            lambda cls: _noise_shared(cls),
        ),
    ),
)


def _noise_shared(cls):
    """Whether two weights of one sample share their noise: along an axis of the kernel, or a bias with a
    kernel weight of its unit. The mean of N products of independent noise has standard deviation
    1 / sqrt(N) (N = 400 to 800 here); shared noise makes it about 1."""
    kernel, bias = _sample(_layer(cls, 400, mu=_constant(0.0), rho=_constant(1.0)), inputs=4)
    sigma = float(np.log1p(np.e))
    kernel, bias = kernel / sigma, bias / sigma
    products = [kernel[0::2] * kernel[1::2], kernel[:, 0::2] * kernel[:, 1::2]] + [row * bias for row in kernel]
    return max(abs(float(np.mean(p))) for p in products) > 0.5


def _twice(layer, read):
    """Whether ``read(layer)`` gives the same twice: two calls of a layer that samples should differ."""
    return same(read(layer), read(layer))


def _frozen_when_compiled(layer):
    """Whether ``layer`` draws new weights on every direct call but the same on every run of one
    ``tf.function`` that calls it."""
    inputs = tf.constant([[0.5, -1.0], [2.0, 0.3]])
    traced = tf.function(lambda: layer(inputs))
    return not _twice(layer, lambda layer: _called(layer, output=True)) and same(
        np.asarray(traced()), np.asarray(traced())
    )


def _called(layer, output=False):
    result = layer(tf.constant([[0.5, -1.0], [2.0, 0.3]]))
    return np.asarray(result) if output else layer


def _shared_first_row(layer):
    kernel = [v.numpy() for v in layer.trainable_variables if v.shape == (2, 3)]
    bias = [v.numpy() for v in layer.trainable_variables if v.shape == (3,)]
    return any(np.allclose(k[0], b) and not np.allclose(b, b[0]) for k in kernel for b in bias)


def _kernel_only(cls):
    prior = tfd.Normal(0.3, 1.7)
    layer = _layer(cls, 3, prior=prior, rho=_constant(-1.0))
    kernel, bias = _sample(layer)
    return same(float(layer.log_prior), float(np.sum(prior.log_prob(kernel))), rtol=1e-3, atol=1e-3)


# sample_elbo: two stand-in Bayesian layers whose log densities are known constants, set when
# they are called (as BayesianDense's are), and that count their calls.
class _KnownLayer(tf.keras.layers.Layer):
    def __init__(self, log_prior, log_q, **kwargs):
        super().__init__(**kwargs)
        self.values, self.count = (log_prior, log_q), 0

    def call(self, inputs):
        self.count = self.count + 1
        self.log_prior, self.log_variational_posterior = (tf.constant(value) for value in self.values)
        return inputs


_LAYERS = ((-2.0, 1.0), (-5.0, 3.0))  # (log prior, log q) of each layer
_KL = sum(q - p for p, q in _LAYERS)
_X_ELBO, _Y_ELBO = tf.constant([[1.0], [2.0]]), tf.constant([[0.5], [1.0]])


def _log_likelihood(y, outputs):
    """Not symmetric in its arguments: y against twice the outputs."""
    return -tf.reduce_sum(tf.square(y - 2.0 * outputs))


_LOG_LIKELIHOOD = float(_log_likelihood(_Y_ELBO, _X_ELBO))
_SWAPPED = float(_log_likelihood(_X_ELBO, _Y_ELBO))


def _model(called=True):
    model = tf.keras.Sequential([_KnownLayer(*values) for values in _LAYERS])
    if called:
        model(_X_ELBO)
    return model


def _elbo(function, num_samples=1, kl_scale=0.5, model=None):
    return float(call(function, model or _model(), _X_ELBO, _Y_ELBO, num_samples, _log_likelihood, kl_scale))


def _calls(function, num_samples):
    model = _model(called=False)
    function(model, _X_ELBO, _Y_ELBO, num_samples, _log_likelihood, 0.5)
    return model.layers[0].count


SAMPLE_ELBO = Function(
    "sample_elbo",
    (
        Mistake(
            "not_a_tensor",
            NOT_A_TENSOR.format(what="loss"),
            lambda f: _numpy(f(_model(), _X_ELBO, _Y_ELBO, 1, _log_likelihood, 0.5)),
        ),
        Mistake(
            "one_call",
            "Your loss calls the model once, whatever num_samples: call it once per sample, each call "
            "drawing new weights.",
            lambda f: _calls(f, 3) == _calls(f, 1),
        ),
        Mistake(
            "layers_before_the_call",
            "Your loss leaves out the KL term for a model that was never called: collect the layers' log "
            "densities after each call of the model.",
            lambda f: (
                same(_elbo(f, model=_model(called=False)), -_LOG_LIKELIHOOD) and not same(_elbo(f), -_LOG_LIKELIHOOD)
            ),
        ),
        Mistake(
            "sum_over_samples",
            "Your loss grows with the number of samples: it seems to add them up, where it averages over them.",
            lambda f: same(_elbo(f, num_samples=3), 3 * _elbo(f)),
        ),
        Mistake(
            "kl_scale_ignored",
            "Your loss does not change with kl_scale: multiply the KL term by the kl_scale you are given.",
            # Said only where the loss has a KL term: one that left it out (or a layer's) ignores kl_scale
            # too, and multiplying would not mend it.
            lambda f: same(_elbo(f, kl_scale=0.5), _elbo(f, kl_scale=0.25)) and not same(_elbo(f), -_LOG_LIKELIHOOD),
        ),
        Mistake(
            "kl_negated",
            "Your KL term has the wrong sign: it is log q minus the log prior.",
            lambda f: same(_elbo(f), -0.5 * _KL - _LOG_LIKELIHOOD),
        ),
        Mistake(
            "first_layer_only",
            "Your loss seems to count the log densities of the first Bayesian layer only; every layer that "
            "has them counts.",
            lambda f: same(_elbo(f), 0.5 * (_LAYERS[0][1] - _LAYERS[0][0]) - _LOG_LIKELIHOOD),
        ),
        Mistake(
            "log_likelihood_scaled",
            "Your loss seems to scale the log-likelihood by kl_scale; only the KL term is scaled.",
            lambda f: any(
                same(_elbo(f), value) for value in (0.5 * (_KL - _LOG_LIKELIHOOD), _KL - 0.5 * _LOG_LIKELIHOOD)
            ),
        ),
        Mistake(
            "log_likelihood_arguments_swapped",
            "Your loss seems to call the log-likelihood with its arguments swapped: it takes the targets "
            "first, then the outputs.",
            lambda f: same(_elbo(f), 0.5 * _KL - _SWAPPED),
        ),
    ),
)

# The scale mixture: w = 0 and w = 1 under mixtures whose components are worked out by hand.
_W = tf.constant([0.0, 1.0])


def _mixture(function, pi=0.25, sigma1=1.0, sigma2=0.5, w=_W):
    return call(function, w, pi, sigma1, sigma2)


def _constant_offset(difference):
    """Whether a difference is the same non-zero number at every w."""
    return same(difference, float(difference[0])) and abs(float(difference[0])) > 1e-3


def _gaussian(sigma, w=_W):
    return np.asarray(tfd.Normal(0.0, sigma).log_prob(w))


SCALE_MIXTURE = Function(
    "scale_mixture_log_prob",
    (
        Mistake("not_a_tensor", NOT_A_TENSOR.format(what="log density"), lambda f: _numpy(f(_W, 0.25, 1.0, 0.5))),
        Mistake(
            "size_one_axes_lost",
            "Your log density loses an axis of size one: return one value per entry of w, in w's shape.",
            lambda f: _mixture(f).shape == (2,) and _mixture(f, w=tf.constant([0.5])).shape != (1,),
        ),
        Mistake(
            "underflows",
            "Your log density is minus infinity far from zero: the densities underflow to zero there; work "
            "in log space, with a log-sum-exp.",
            lambda f: (
                np.all(np.isfinite(_mixture(f)))
                and not np.all(np.isfinite(_mixture(f, sigma2=float(np.exp(-6.0)), w=tf.constant([0.5, 40.0]))))
            ),
        ),
        Mistake(
            "sigma2_ignored",
            "Your log density does not change with sigma2: use the argument, not a value of the paper's.",
            lambda f: same(_mixture(f, sigma2=0.5), _mixture(f, sigma2=0.2)),
        ),
        Mistake(
            "weights_swapped",
            "Your mixture seems to give the weight pi to the second Gaussian; pi belongs to the first, the one "
            "with sigma1.",
            lambda f: same(_mixture(f, pi=1 - 1e-9, sigma1=1.0, sigma2=0.5), _gaussian(0.5)),
        ),
        Mistake(
            "sigma_as_variance",
            "Your mixture seems to take a sigma as a variance; both sigmas are standard deviations.",
            lambda f: (
                same(_mixture(f, pi=1e-9, sigma2=4.0), _gaussian(2.0))
                or same(_mixture(f, pi=1 - 1e-9, sigma1=4.0), _gaussian(2.0))
            ),
        ),
        Mistake(
            "max_not_sum",
            "Your log density seems to keep only the larger of the two weighted components; the mixture "
            "adds them (a log-sum-exp, not a maximum).",
            lambda f: same(_mixture(f, pi=0.5, sigma1=1.0, sigma2=1.0), np.log(0.5) + _gaussian(1.0)),
        ),
        Mistake(
            "weights_unnormalised",
            "Your mixture's weights do not add up to one: weigh the first component by pi and the second by "
            "one minus pi.",
            # an offset of log(the weights' sum), whatever the sigmas; a missing normaliser's grows with them
            lambda f: (
                _constant_offset(_mixture(f, sigma1=1.0, sigma2=1.0) - _gaussian(1.0))
                and same(
                    _mixture(f, sigma1=1.0, sigma2=1.0) - _gaussian(1.0),
                    _mixture(f, sigma1=2.0, sigma2=2.0) - _gaussian(2.0),
                )
            ),
        ),
    ),
)

TABLE = {
    "bbb_loss_terms": LOSS_TERMS,
    "bayesian_dense": DENSE,
    "sample_elbo": SAMPLE_ELBO,
    "scale_mixture_log_prob": SCALE_MIXTURE,
}
