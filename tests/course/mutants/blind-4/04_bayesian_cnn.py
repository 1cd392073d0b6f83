"""Blind one-bug answers for 04_bayesian_cnn, round four, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "get_deterministic_model": [
        (
            "same_padding",
            "Gives the convolution 'SAME' padding instead of 'VALID'. On 28x28 images the 6x6 pooling floors "
            "both 28 and 24 to 4, so the parameter count is still 1,498 and the visible test passes, but the "
            "convolution's output is 28x28 and the model computes a different function.",
            """def get_deterministic_model(input_shape, loss, optimizer, metrics):
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="SAME", input_shape=input_shape),
        MaxPooling2D((6, 6)),
        Flatten(),
        Dense(10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
""",
        ),
        (
            "optimizer_by_name",
            "Compiles with optimizer='rmsprop' (a new RMSprop) instead of the optimizer object it was given, "
            "so a caller's learning rate or other settings are ignored; the visible test checks that the "
            "model holds the given optimizer and fails.",
            """def get_deterministic_model(input_shape, loss, optimizer, metrics):
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D((6, 6)),
        Flatten(),
        Dense(10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer="rmsprop", metrics=metrics)
    return model
""",
        ),
    ],
    "nll": [
        (
            "log_of_the_mean_probabilities",
            "Computes -sum_k y_k log p_k from y_pred.mean(): where the softmax of a confident network "
            "underflows to exactly 0 the log is -inf and 0 * -inf gives nan, even for the classes that are "
            "not the label (e.g. logits (0, 200) in float32); the visible test's probabilities are moderate "
            "and pass.",
            """def nll(y_true, y_pred):
    probs = y_pred.mean()
    return -tf.reduce_sum(tf.cast(y_true, probs.dtype) * tf.math.log(probs), axis=-1)
""",
        ),
    ],
    "get_convolutional_reparameterization_layer": [
        (
            "bias_prior_left_at_default",
            "Passes the bias posterior and divergence but not bias_prior_fn, whose default in "
            "Convolution2DReparameterization is None, so the bias has no prior and no KL term is added for "
            "it; the parameter count (416) and output shape are unchanged and the visible test passes.",
            """def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    return tfpl.Convolution2DReparameterization(
        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        bias_divergence_fn=divergence_fn)
""",
        ),
    ],
    "get_per_weight_prior": [
        (
            "variance_taken_as_scale",
            "Gives the broad component scale 100 (the variance 10^2) instead of 10. The visible test's cost of "
            "one weight at 10 is still a few nats (about 4.6) and passes, but every log density is wrong, "
            "e.g. log p(0) of one weight.",
            """def get_per_weight_prior(kernel_size, bias_size, dtype=None):
    n = kernel_size + bias_size
    def prior(_):
        mixture = tfd.MixtureSameFamily(
            mixture_distribution=tfd.Categorical(probs=tf.fill([n, 2], tf.constant(0.5, dtype=dtype))),
            components_distribution=tfd.Normal(loc=tf.zeros([n, 2], dtype=dtype),
                                               scale=tf.constant([1.0, 100.0], dtype=dtype) * tf.ones([n, 2], dtype=dtype)))
        return tfd.Independent(mixture, reinterpreted_batch_ndims=1)
    return tf.keras.Sequential([tfpl.DistributionLambda(prior)])
""",
        ),
    ],
    "get_prior": [
        (
            "dtype_ignored",
            "Always builds spike_and_slab in float32, ignoring the dtype argument, so a float64 layer gets a "
            "prior whose dtype and samples are float32 (get_prior(..., dtype=tf.float64) returns a float32 "
            "distribution); the visible test asks for float32 and passes.",
            """def get_prior(kernel_size, bias_size, dtype=None):
    n = kernel_size + bias_size
    return Sequential([
        tfpl.DistributionLambda(lambda t: spike_and_slab(n, tf.float32)),
    ])
""",
        ),
    ],
    "get_dense_variational_layer": [
        (
            "exact_kl_requested",
            "Sets kl_use_exact=True, asking for the closed-form KL; there is none between the spike-and-slab "
            "mixture and a normal (nor between the test's Laplace posterior and normal prior), so the layer "
            "fails as soon as it is called. The visible test only constructs it and reads units, and passes.",
            """def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    return tfpl.DenseVariational(units=10, make_posterior_fn=posterior_fn, make_prior_fn=prior_fn,
                                 kl_weight=kl_weight, kl_use_exact=True)
""",
        ),
    ],
    "mc_entropy_decomposition": [
        (
            "one_call_reused",
            "Calls the model once and reuses that distribution for all num_samples 'samples', so every "
            "sample has the same weights: the epistemic part is 0 and the aleatoric part equals the total "
            "for a Bayesian model; the visible test only checks total = aleatoric + epistemic and passes.",
            """def mc_entropy_decomposition(model, x, num_samples):
    output = model(x)
    samples = np.stack([np.asarray(output.mean(), dtype=np.float64) for _ in range(num_samples)])
    def bits(p):
        safe = np.where(p > 0, p, 1.0)
        return -np.sum(p * np.log2(safe), axis=-1)
    probs = samples.mean(axis=0)
    total = bits(probs)
    aleatoric = bits(samples).mean(axis=0)
    return probs, total, aleatoric, total - aleatoric
""",
        ),
    ],
}

CORRECT = {
    "get_per_weight_prior": [
        (
            "independent_mixture_from_logits",
            """def get_per_weight_prior(kernel_size, bias_size, dtype=None):
    dtype = tf.as_dtype(dtype or tf.float32)
    n = kernel_size + bias_size
    scales = tf.constant([1.0, 10.0], dtype=dtype)

    def make(_):
        per_weight = tfd.MixtureSameFamily(
            mixture_distribution=tfd.Categorical(logits=tf.zeros([n, 2], dtype=dtype)),
            components_distribution=tfd.Normal(loc=tf.zeros([n, 2], dtype=dtype),
                                               scale=tf.broadcast_to(scales, [n, 2])))
        return tfd.Independent(per_weight, reinterpreted_batch_ndims=1)

    inputs = tf.keras.Input(shape=(None,))
    outputs = tfpl.DistributionLambda(make)(inputs)
    return tf.keras.Model(inputs, outputs)
""",
        ),
    ],
}
