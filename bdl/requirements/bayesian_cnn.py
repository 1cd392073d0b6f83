"""The requirements of 04 (bayesian_cnn), quoted from its text."""

from bdl.requirements import Requirement

# The priors' dtype: the notebook's DenseVariational passes float32 only.
DTYPE_UNCHECKED = (
    "The notebook only uses float32, and float64 cannot be checked: the given `spike_and_slab` and the "
    "reference per-weight mixture, whose mixing `Categorical` is float32, cannot take `log_prob` in float64, "
    "and a correct answer that builds on a float64 `VariableLayer` comes out float32, as Keras casts the "
    "next layer's input."
)

TABLE = {
    "get_deterministic_model": (
        Requirement(
            "layers",
            "Write `get_deterministic_model(input_shape, loss, optimizer, metrics)` returning a Keras model with "
            "exactly these layers, in this order",
        ),
        Requirement(
            "forms",
            "(build it as a `tf.keras.Sequential` model or with the functional API, `tf.keras.Model(inputs, "
            "outputs)`; an `Input` does not count as a layer)",
            unchecked="It allows two ways of building the model rather than asking for one; check-tests' "
            "alternatives hold that the tests accept both.",
        ),
        Requirement(
            "conv",
            '`Conv2D` with 8 filters, a 5×5 kernel, ReLU activation, `"VALID"` padding and the given `input_shape`;',
        ),
        Requirement("pool", "`MaxPooling2D` with a 6×6 pool;"),
        Requirement("dense", "`Dense` with 10 units and a softmax activation."),
        Requirement("compile", "Compile it with the given `loss`, `optimizer` and `metrics` and return it."),
        Requirement("params", "On 28×28×1 images the model has 1,498 parameters."),
    ),
    "nll": (
        Requirement(
            "value",
            "Write `nll(y_true, y_pred)` returning the negative log-likelihood of each one-hot label in `y_true`",
        ),
        Requirement("classes", "here `K` = 10 classes, but write it for any number of classes"),
        Requirement("shape", "a tensor of shape `[B]`, one value per example (Keras averages over the batch)."),
        Requirement(
            "graph",
            "It is the training loss: Keras calls it inside a compiled graph (`tf.function`) and differentiates it, "
            "so compute it with TensorFlow operations, not NumPy.",
        ),
        Requirement(
            "finite",
            "Compute the NLL from the logits or the log-probabilities instead (the distribution gives both), so "
            "that it is finite for any logits: about 0 for a confident right prediction, and for a confident wrong "
            "one about the gap between the largest logit and the label's.",
        ),
    ),
    "get_probabilistic_model": (
        Requirement(
            "layers",
            "Write `get_probabilistic_model(input_shape, loss, optimizer, metrics)`: the same convolution, pooling "
            "and flattening as before",
        ),
        Requirement(
            "dense",
            "a `Dense` layer with **no activation** and as many units as a 10-class `OneHotCategorical` needs: "
            "`tfpl.OneHotCategorical.params_size(10)` (these are the logits);",
        ),
        Requirement("distribution", "the last layer returns a `tfd.OneHotCategorical` object"),
        Requirement(
            "mode",
            "a `tfpl.OneHotCategorical(10)` layer whose conversion to a tensor is the distribution's **mode** "
            "(`convert_to_tensor_fn=tfd.Distribution.mode`), so that Keras' accuracy metric compares the most "
            "likely class with the label.",
        ),
        Requirement("compile", "Compile it with the given loss, optimizer and metrics."),
    ),
    "get_convolutional_reparameterization_layer": (
        Requirement(
            "layer",
            "Write `get_convolutional_reparameterization_layer(input_shape, divergence_fn)` returning a "
            '`Convolution2DReparameterization` layer with 8 filters, a 5×5 kernel, ReLU activation, `"VALID"` '
            "padding and the given `input_shape`",
        ),
        Requirement("both", "where **both** kernel and bias have"),
        Requirement("prior", "the prior `tfpl.default_multivariate_normal_fn` (a standard normal, not trained);"),
        Requirement(
            "posterior",
            "the posterior `tfpl.default_mean_field_normal_fn(is_singular=False)` (an independent normal with a "
            "trainable mean and scale for every weight);",
        ),
        Requirement("divergence", "the divergence function `divergence_fn`."),
        Requirement(
            "params",
            "On 28×28×1 images the layer has 416 parameters (a mean and a scale for each of the 5·5·8 kernel "
            "weights and 8 biases).",
        ),
    ),
    "get_prior": (
        Requirement(
            "model",
            "Write `get_prior(kernel_size, bias_size, dtype=None)` returning a Keras model that, whatever its "
            "input, outputs the original's prior",
        ),
        Requirement("weights", "`spike_and_slab` over all `kernel_size + bias_size` weights of the layer"),
        Requirement(
            "dtype",
            "in the given `dtype`",
            unchecked=DTYPE_UNCHECKED,
        ),
        Requirement("vector", "(one distribution over the vector of weights)."),
        Requirement("fixed", "The prior is fixed: the model has no trainable parameters."),
    ),
    "get_per_weight_prior": (
        Requirement(
            "each",
            "A prior under which each weight may be small or large on its own puts a mixture on every weight "
            "separately:",
        ),
        Requirement(
            "prior",
            "it returns a Keras model that, whatever its input, outputs this prior over all "
            "`kernel_size + bias_size` weights",
        ),
        Requirement(
            "dtype",
            "in the given `dtype`",
            unchecked=DTYPE_UNCHECKED,
        ),
        Requirement("fixed", "with no trainable parameters."),
        Requirement(
            "one",
            "It must be **one** distribution over the vector of weights (event shape `[kernel_size + bias_size]`, "
            "batch shape `[]`), so that its `log_prob` of a vector of weights is one number, the sum above.",
        ),
        Requirement("tfp", "Build it from TensorFlow Probability's distributions, not by writing its density by hand"),
    ),
    "get_posterior": (
        Requirement(
            "family",
            "The posterior family is an independent normal over the same `kernel_size + bias_size` weights, each "
            "weight with a trainable location and scale of its own.",
        ),
        Requirement(
            "model",
            "Write `get_posterior(kernel_size, bias_size, dtype=None)` returning a Keras model that, whatever its "
            "input, outputs this distribution",
        ),
        Requirement(
            "shape",
            "one distribution over the vector of all the weights (event shape `[kernel_size + bias_size]`, batch "
            "shape `[]`)",
        ),
        Requirement("params", "whose parameters are the model's own trainable variables, two per weight"),
        Requirement("dtype", "in the given `dtype` (float32 when it is None)."),
    ),
    "get_dense_variational_layer": (
        Requirement(
            "layer",
            "Write `get_dense_variational_layer(prior_fn, posterior_fn, kl_weight)` returning a `DenseVariational` "
            "layer whose outputs are the logits of a 10-class `OneHotCategorical`",
        ),
        Requirement("activation", "so it applies **no activation**"),
        Requirement(
            "weights",
            "whose weights have the prior that `prior_fn` builds and the posterior that `posterior_fn` builds",
        ),
        Requirement("kl", "which adds `kl_weight` times that one-sample estimate of the KL to the model's losses."),
        Requirement(
            "params",
            "After flattening, the layer has 128 inputs, so it has (128·10 + 10)·2 = 2,580 parameters.",
        ),
    ),
    "mc_entropy_decomposition": (
        Requirement(
            "calls",
            "call `model(x)` `num_samples` times (each call draws new weights) and take each call's class "
            "probabilities, `model(x).mean()`, of shape `[N, K]` for `N` inputs and `K` classes (`K` = 10 for "
            "MNIST, but write it for any number of classes);",
        ),
        Requirement(
            "tuple",
            "return a tuple of four NumPy arrays (`np.ndarray`, not tensors) `(probs, total, aleatoric, epistemic)`:",
        ),
        Requirement(
            "probs",
            "`probs` the Monte Carlo predictive probabilities, the mean over the samples, shape `[N, K]`;",
        ),
        Requirement("bits", "and the three uncertainties, each of shape `[N]`, **in bits** (log base 2)."),
        Requirement(
            "split",
            r"$$\underbrace{H\Big[\tfrac{1}{S}\textstyle\sum_s p(y \mid x, w_s)\Big]}_{\text{total}} \;=\; "
            r"\underbrace{\tfrac{1}{S}\textstyle\sum_s H\big[p(y \mid x, w_s)\big]}_{\text{aleatoric: expected "
            r"entropy}} \;+\; \underbrace{\Big(H\Big[\tfrac{1}{S}\textstyle\sum_s p(y \mid x, w_s)\Big] - "
            r"\tfrac{1}{S}\textstyle\sum_s H\big[p(y \mid x, w_s)\big]\Big)}_{\text{epistemic: mutual information "
            r"} I(y; w \mid x, \mathcal{D})}$$",
        ),
        Requirement("nonneg", "It is never negative (entropy is concave)"),
        Requirement(
            "safe",
            r"Entropy must be safe where a probability is exactly 0 (take $0 \log 0 = 0$): no `nan`, no warnings.",
        ),
    ),
}
