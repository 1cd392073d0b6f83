"""Blind one-bug answers for 04_bayesian_cnn, round five, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "get_deterministic_model": [
        (
            "conv_same_padding",
            "Gives the Conv2D padding='SAME' instead of 'VALID'. On 28x28 images the convolution then outputs "
            "28x28x8, the 6x6 pooling floors it to 4x4x8 = 128 features, exactly as many as with 'VALID' (24x24 -> "
            "4x4), so the parameter count 1,498 and the visible asserts pass; the layer's settings are wrong, and "
            "its features are other ones (the border pixels are padded in, the pooling windows shift).",
            '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    model = Sequential([
        Conv2D(filters=8, kernel_size=(5, 5), activation="relu", padding="SAME", input_shape=input_shape),
        MaxPooling2D(pool_size=(6, 6)),
        Flatten(),
        Dense(units=10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
''',
        ),
    ],
    "nll": [
        (
            "log_of_mean_probabilities",
            "Computes -sum_k y_k log p_k from the distribution's probabilities, y_pred.mean(), instead of "
            "y_pred.log_prob(y_true). Where a probability underflows to 0 in float32 (confident logits, e.g. "
            "logits [100, 0, -100]), 0 * log 0 = 0 * -inf = nan, so the loss of that example is nan even when the "
            "true class has probability 1, and training breaks. Visible asserts pass (moderate probabilities).",
            '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    probs = y_pred.mean()
    return -tf.reduce_sum(tf.cast(y_true, probs.dtype) * tf.math.log(probs), axis=-1)
''',
        ),
    ],
    "get_probabilistic_model": [
        (
            "default_convert_to_tensor_sample",
            "Leaves out convert_to_tensor_fn=tfd.Distribution.mode, so the OneHotCategorical layer converts to a "
            "tensor by its default, a random sample. The layers, the parameter count and the output distribution "
            "are right (visible asserts pass), but Keras' accuracy metric then compares a random draw with the "
            "label instead of the most likely class, and tf.convert_to_tensor(model(x)) differs from the mode.",
            '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    model = Sequential([
        Conv2D(filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(pool_size=(6, 6)),
        Flatten(),
        Dense(tfpl.OneHotCategorical.params_size(10)),
        tfpl.OneHotCategorical(10),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
''',
        ),
    ],
    "get_convolutional_reparameterization_layer": [
        (
            "bias_divergence_default",
            "Passes divergence_fn for the kernel only and leaves bias_divergence_fn at its default, the unscaled "
            "tfd.kl_divergence. The layer, its output shape and its 416 parameters are right (visible asserts "
            "pass), but the bias's KL term is added to the losses undivided by the number of training images: "
            "with ScaledKL(60000) the bias's loss is 60,000 times too large.",
            '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    return tfpl.Convolution2DReparameterization(
        input_shape=input_shape, filters=8, kernel_size=(5, 5), activation="relu", padding="VALID",
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_prior_fn=tfpl.default_multivariate_normal_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
    )
''',
        ),
    ],
    "get_prior": [
        (
            "per_weight_mixture_instead",
            "Builds a mixture for every weight (tfd.Independent of a tfd.MixtureSameFamily of N(0, 1) and "
            "N(0, 10^2)) instead of the given spike_and_slab, whose two components are mixed over the whole "
            "vector. It is one fixed distribution with event shape [kernel_size + bias_size] and no trainable "
            "variables, so the visible asserts pass, but its log density is another one: for the dense layer's "
            "1,290 weights drawn from N(0, 3^2) it differs from spike_and_slab's by hundreds of nats, and one "
            "weight at 10 costs about 2.9 nats instead of about 50.",
            '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Keras model producing the spike-and-slab prior over all the weights."""
    n = kernel_size + bias_size
    dtype = tf.float32 if dtype is None else dtype

    def make(_):
        mixture = tfd.MixtureSameFamily(
            mixture_distribution=tfd.Categorical(probs=tf.fill([n, 2], tf.constant(0.5, dtype))),
            components_distribution=tfd.Normal(loc=tf.zeros([n, 2], dtype),
                                               scale=tf.constant([1.0, 10.0], dtype) * tf.ones([n, 2], dtype)))
        return tfd.Independent(mixture, reinterpreted_batch_ndims=1)

    return Sequential([tfpl.DistributionLambda(make)])
''',
        ),
    ],
    "get_per_weight_prior": [
        (
            "ten_squared_as_scale",
            "Reads N(0, 10^2) as a standard deviation of 100 (scale=[1, 100]) instead of 10. It is still one "
            "distribution over the vector with no trainable variables, and one weight at 10 costs 4.6 nats, inside "
            "the visible assert's 0 to 10, so the visible asserts pass; the log density is wrong everywhere (at 15 "
            "weights at 0 it is -24.0 instead of -22.8).",
            '''def get_per_weight_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable model producing an equal mixture of N(0, 1) and N(0, 10^2) for every weight."""
    n = kernel_size + bias_size
    dtype = tf.float32 if dtype is None else dtype

    def make(_):
        mixture = tfd.MixtureSameFamily(
            mixture_distribution=tfd.Categorical(probs=tf.fill([n, 2], tf.constant(0.5, dtype))),
            components_distribution=tfd.Normal(loc=tf.zeros([n, 2], dtype),
                                               scale=tf.constant([1.0, 100.0], dtype) * tf.ones([n, 2], dtype)))
        return tfd.Independent(mixture, reinterpreted_batch_ndims=1)

    return Sequential([tfpl.DistributionLambda(make)])
''',
        ),
    ],
    "get_posterior": [
        (
            "raw_scale_variables",
            "Uses the second half of the trainable variables directly as the scales, without a softplus (or any "
            "positive transform). The event shape is right, so the visible asserts pass, but tfpl.VariableLayer "
            "starts its variables at 0: every scale starts at 0, log_prob is nan or inf from the first step, and "
            "training can push scales negative.",
            '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Keras model producing a trainable independent normal over all the weights."""
    n = kernel_size + bias_size
    dtype = tf.float32 if dtype is None else dtype
    return Sequential([
        tfpl.VariableLayer(2 * n, dtype=dtype),
        tfpl.DistributionLambda(lambda t: tfd.Independent(
            tfd.Normal(loc=t[..., :n], scale=t[..., n:]), reinterpreted_batch_ndims=1)),
    ])
''',
        ),
    ],
    "get_dense_variational_layer": [
        (
            "exact_kl",
            "Sets kl_use_exact=True instead of the Monte Carlo estimate the task asks for. The layer is a "
            "DenseVariational with 10 units (visible asserts pass, they never call it), but on its first call with "
            "the spike-and-slab prior (a Mixture) TFP has no closed-form KL and raises NotImplementedError.",
            '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(units=tfpl.OneHotCategorical.params_size(10),
                                 make_posterior_fn=posterior_fn, make_prior_fn=prior_fn,
                                 kl_weight=kl_weight, kl_use_exact=True)
''',
        ),
    ],
    "mc_entropy_decomposition": [
        (
            "entropies_in_nats",
            "Uses the natural logarithm, so the three uncertainties are in nats, not the bits the task asks for "
            "(each is ln 2 = 0.693 times too small). Shapes and total = aleatoric + epistemic hold, so the visible "
            "asserts pass.",
            '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    from scipy.special import xlogy

    samples = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])
    probs = samples.mean(axis=0)
    total = -np.sum(xlogy(probs, probs), axis=-1)
    aleatoric = np.mean(-np.sum(xlogy(samples, samples), axis=-1), axis=0)
    return probs, total, aleatoric, total - aleatoric
''',
        ),
    ],
}
CORRECT = {
    "get_per_weight_prior": [
        (
            "sample_of_one_weight_mixture",
            '''def get_per_weight_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable model producing an equal mixture of N(0, 1) and N(0, 10^2) for every weight."""
    # One weight's mixture, drawn independently kernel_size + bias_size times: tfd.Sample makes the
    # draws one event, so log_prob of a vector is the sum of the weights' log densities.
    n = kernel_size + bias_size
    dtype = tf.float32 if dtype is None else tf.as_dtype(dtype)
    one_weight = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(logits=tf.zeros([2], dtype)),
        components_distribution=tfd.Normal(loc=tf.zeros([2], dtype), scale=tf.constant([1.0, 10.0], dtype)))
    return tf.keras.Sequential([tfpl.DistributionLambda(lambda _: tfd.Sample(one_weight, sample_shape=[n]))])
''',
        ),
    ],
}
