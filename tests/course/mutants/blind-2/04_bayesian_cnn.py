"""Blind one-bug answers for 04_bayesian_cnn, round two, written from the release notebook alone."""

ANSWERS = {
    "get_deterministic_model": [
        (
            "same padding",
            'The convolution uses padding="SAME" instead of "VALID", so it outputs 28x28 maps instead of 24x24; after the 6x6 pooling the flattened size is still 128, so the parameter count (1,498) hides the wrong layer setting.',
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
            "averaged over the batch",
            "The negative log-likelihood is averaged over the batch with tf.reduce_mean, so the function returns one scalar instead of one value per example (shape [B]).",
            '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    return tf.reduce_mean(-y_pred.log_prob(y_true))
''',
        ),
    ],
    "get_probabilistic_model": [
        (
            "softmax before the distribution",
            "The Dense layer before the OneHotCategorical has a softmax activation, so probabilities are passed to a layer that reads its input as logits and applies a second softmax, which squashes the predicted probabilities towards uniform.",
            '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D((6, 6)),
        Flatten(),
        Dense(tfpl.OneHotCategorical.params_size(10), activation="softmax"),
        tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
''',
        ),
    ],
    "get_convolutional_reparameterization_layer": [
        (
            "bias divergence left at its default",
            "The kernel gets the given divergence_fn but the bias does not, so the bias keeps the layer's default divergence, the full unscaled KL, which is not divided by the number of training examples like the kernel's.",
            '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    layer = tfpl.Convolution2DReparameterization(
        input_shape=input_shape, filters=8, kernel_size=(5, 5), activation="relu", padding="VALID",
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_prior_fn=tfpl.default_multivariate_normal_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
    )
    return layer
''',
        ),
    ],
    "get_prior": [
        (
            "bias weights left out",
            "The spike-and-slab is built over kernel_size weights only, forgetting bias_size, so the prior's event shape is too short for the layer's kernel and bias together.",
            '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Keras model producing the spike-and-slab prior over all the weights."""
    prior_model = Sequential([
        tfpl.DistributionLambda(lambda t: spike_and_slab(kernel_size, dtype))
    ])
    return prior_model
''',
        ),
    ],
    "get_per_weight_prior": [
        (
            "mixture not made independent",
            "The per-weight MixtureSameFamily is returned without tfd.Independent, so it is a batch of kernel_size + bias_size one-weight distributions (batch shape [n], event shape []) and its log_prob gives one value per weight instead of one sum over the vector.",
            '''def get_per_weight_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable model producing an equal mixture of N(0, 1) and N(0, 10^2) for every weight."""
    n = kernel_size + bias_size
    dtype = dtype or tf.float32

    def per_weight_mixture(_):
        return tfd.MixtureSameFamily(
            mixture_distribution=tfd.Categorical(probs=tf.fill([n, 2], tf.constant(0.5, dtype))),
            components_distribution=tfd.Normal(loc=tf.zeros([n, 2], dtype),
                                               scale=tf.constant([1.0, 10.0], dtype) * tf.ones([n, 2], dtype)))

    return Sequential([tfpl.DistributionLambda(per_weight_mixture)])
''',
        ),
    ],
    "get_posterior": [
        (
            "full-covariance posterior",
            "The posterior is a MultivariateNormalTriL with a full lower-triangular scale matrix instead of an independent normal, so it has n + n(n+1)/2 trainable parameters instead of two per weight and is not mean-field.",
            '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Keras model producing a trainable independent normal over all the weights."""
    n = kernel_size + bias_size
    return Sequential([
        tfpl.VariableLayer(tfpl.MultivariateNormalTriL.params_size(n), dtype=dtype),
        tfpl.MultivariateNormalTriL(n),
    ])
''',
        ),
    ],
    "get_dense_variational_layer": [
        (
            "exact KL asked for",
            "The layer is built with kl_use_exact=True, asking for the closed-form KL, which does not exist for the spike-and-slab mixture prior, so the layer fails when it is called instead of using the one-sample estimate log q(w) - log p(w).",
            '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(
        units=tfpl.OneHotCategorical.params_size(10),
        make_posterior_fn=posterior_fn,
        make_prior_fn=prior_fn,
        kl_weight=kl_weight,
        kl_use_exact=True,
    )
''',
        ),
    ],
    "mc_entropy_decomposition": [
        (
            "entropies in nats",
            "The entropies use the natural logarithm, so total, aleatoric and epistemic uncertainty are in nats instead of bits, ln 2 (about 0.69) times the asked values; they still add up.",
            '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = np.stack([np.asarray(model(x).mean()) for _ in range(num_samples)])  # [S, N, K]

    def entropy(p):
        safe = np.where(p > 0, p, 1.0)
        return -np.sum(p * np.log(safe), axis=-1)

    probs = samples.mean(axis=0)
    total = entropy(probs)
    aleatoric = entropy(samples).mean(axis=0)
    epistemic = total - aleatoric
    return probs, total, aleatoric, epistemic
''',
        ),
    ],
}
CORRECT = {
    "get_deterministic_model": [
        (
            "functional API",
            '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    inputs = tf.keras.Input(shape=input_shape)
    h = tf.keras.layers.Conv2D(8, 5, activation="relu", padding="valid")(inputs)
    h = tf.keras.layers.MaxPooling2D(pool_size=6)(h)
    h = tf.keras.layers.Flatten()(h)
    outputs = tf.keras.layers.Dense(10, activation="softmax")(h)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    return model
''',
        )
    ],
    "mc_entropy_decomposition": [
        (
            "running sums with tf.math.xlogy",
            '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    ln2 = np.log(2.0)
    prob_sum = 0.0
    entropy_sum = 0.0
    for _ in range(num_samples):
        p = tf.cast(tf.convert_to_tensor(model(x).mean()), tf.float64)
        prob_sum += p
        entropy_sum += -tf.reduce_sum(tf.math.xlogy(p, p), axis=-1) / ln2
    probs = prob_sum / num_samples
    total = -tf.reduce_sum(tf.math.xlogy(probs, probs), axis=-1) / ln2
    aleatoric = entropy_sum / num_samples
    epistemic = total - aleatoric
    return probs.numpy(), total.numpy(), aleatoric.numpy(), epistemic.numpy()
''',
        )
    ],
}
