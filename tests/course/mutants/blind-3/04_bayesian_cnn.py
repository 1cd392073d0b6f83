"""Blind one-bug answers for 04_bayesian_cnn, round three, written from the release notebook alone."""

ANSWERS = {
    "get_deterministic_model": [
        (
            "same_padding",
            'Gives the convolution "SAME" padding instead of "VALID". On 28x28 images the 28x28x8 feature map '
            "pooled 6x6 is still 4x4x8 = 128, so the parameter count (1,498) and the visible test do not change, but "
            "the layer is not the one asked for and it sees zero-padded borders.",
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
            "log_of_mean_probs",
            "Computes the NLL as -sum y log(p) from the distribution's probabilities y_pred.mean(). The value is right "
            "for moderate predictions (the visible test), but for a confident model a probability underflows to 0 in "
            "float32: the NLL of a wrong confident prediction is inf instead of the logit gap, and 0 * log 0 gives nan "
            "even for the right class, so training turns nan.",
            '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    probs = y_pred.mean()
    return -tf.reduce_sum(y_true * tf.math.log(probs), axis=-1)
''',
        ),
    ],
    "get_probabilistic_model": [
        (
            "softmax_before_one_hot_categorical",
            "Gives the Dense layer a softmax activation. The OneHotCategorical layer reads its input as logits, so the "
            "model applies the softmax twice: its probabilities are squashed towards uniform (never more confident "
            "than about e/(e + 9), 0.23, for 10 classes). The layer types, the parameter count and the output "
            "distribution's shapes are unchanged, so the visible test passes.",
            '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    model = Sequential([
        Conv2D(filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(pool_size=(6, 6)),
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
            "bias_divergence_left_default",
            "Sets the prior and posterior of both kernel and bias but passes divergence_fn only as the kernel's "
            "divergence; the bias keeps the layer's default divergence, the unscaled KL. The parameter count (416) "
            "and the output shape are right, so the visible test passes, but the bias's KL term is added to the loss "
            "without the 1/N of divergence_fn (60,000 times too heavy).",
            '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    return tfpl.Convolution2DReparameterization(
        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_prior_fn=tfpl.default_multivariate_normal_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
    )
''',
        ),
    ],
    "get_posterior": [
        (
            "scale_not_positive",
            "Uses the second half of the variables directly as the normal's scale, with no softplus. The variables "
            "start at 0, so every scale starts at 0 (log q is nan) and can become negative during training. The "
            "event and batch shapes are right, so the visible test passes.",
            '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Keras model producing a trainable independent normal over all the weights."""
    n = kernel_size + bias_size
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
            "prior_and_posterior_swapped",
            "Passes the prior and posterior functions positionally in the order of this function's own signature, "
            "DenseVariational(units, prior_fn, posterior_fn, ...); DenseVariational's positional order is "
            "(units, make_posterior_fn, make_prior_fn), so the weights are sampled from the prior and the KL is taken "
            "against the posterior. The layer type and the units are right, so the visible test passes (and the "
            "parameter count is still 2,580, the prior model now holding the variables), but with get_prior and "
            "get_posterior the outputs come from the fixed spike-and-slab: no gradient of the outputs reaches the "
            "trainable variables, which enter only the KL term.",
            '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(tfpl.OneHotCategorical.params_size(10), prior_fn, posterior_fn,
                                 kl_weight=kl_weight, kl_use_exact=False)
''',
        ),
    ],
    "mc_entropy_decomposition": [
        (
            "entropies_in_nats",
            "Computes the three entropies with the natural logarithm, in nats instead of the bits asked for (each "
            "ln 2 = 0.69 times the right value). total = aleatoric + epistemic still holds, so the visible test passes.",
            '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = np.stack([np.asarray(model(x).mean()) for _ in range(num_samples)])  # [S, N, K]
    probs = samples.mean(axis=0)

    def entropy(p):
        return -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), axis=-1)

    total = entropy(probs)
    aleatoric = entropy(samples).mean(axis=0)
    return probs, total, aleatoric, total - aleatoric
''',
        ),
    ],
}
CORRECT = {
    "nll": [
        (
            "cross_entropy_from_logits_parameter",
            '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    logits = y_pred.logits_parameter()
    return tf.nn.softmax_cross_entropy_with_logits(labels=tf.cast(y_true, logits.dtype), logits=logits, axis=-1)
''',
        ),
    ],
}
