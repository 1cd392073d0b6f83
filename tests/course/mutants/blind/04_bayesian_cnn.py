"""Blind one-bug answers for 04_bayesian_cnn, written from the release notebook alone (see README.md beside this file)."""

# function: the nbgrader grade_id of the graded answer cell (its cell metadata "nbgrader": {"grade_id": ...}).
# Each answer: (name, mistake, source). ``mistake`` says, in one plain sentence, the bug as its writer meant it.
# ``source`` is the whole graded cell as the student would submit it: the release cell with the student's
# code in place of every "# YOUR CODE HERE" / "raise NotImplementedError()".
ANSWERS = {
    "get_deterministic_model": [
        ("default pool size", "Uses MaxPooling2D() with its default 2x2 pool instead of a 6x6 pool.", '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(),
        Flatten(),
        Dense(10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
        ("new optimizer", "Compiles with a fresh RMSprop() instead of the optimizer it is given.", '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    model = Sequential([
        Conv2D(filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(pool_size=(6, 6)),
        Flatten(),
        Dense(units=10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer=RMSprop(), metrics=metrics)
    return model
'''),
        ("no softmax", "Leaves the last Dense layer without the softmax activation, so the model outputs logits instead of probabilities.", '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    model = Sequential([
        Conv2D(8, 5, activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(6),
        Flatten(),
        Dense(10),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
    ],
    "nll": [
        ("batch mean", "Returns the mean NLL over the batch (a scalar) instead of one value per example of shape [B].", '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    return -tf.reduce_mean(y_pred.log_prob(y_true))
'''),
        ("numpy log", "Computes the NLL with NumPy on y_pred.mean(), which breaks inside Keras' compiled graph and has no gradient.", '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    probs = np.asarray(y_pred.mean())
    return -np.sum(np.asarray(y_true) * np.log(probs), axis=-1)
'''),
        ("log-likelihood sign", "Returns the log-likelihood y_pred.log_prob(y_true) without the minus sign.", '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    return y_pred.log_prob(y_true)
'''),
    ],
    "get_probabilistic_model": [
        ("softmax before the distribution", "Gives the Dense layer a softmax activation, so probabilities are fed to OneHotCategorical as if they were logits.", '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
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
'''),
        ("sample not mode", "Leaves the OneHotCategorical layer's convert_to_tensor_fn at its default (a random sample) instead of the mode.", '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D((6, 6)),
        Flatten(),
        Dense(tfpl.OneHotCategorical.params_size(10)),
        tfpl.OneHotCategorical(10),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
    ],
    "get_convolutional_reparameterization_layer": [
        ("bias left deterministic", "Sets the prior, posterior and divergence only for the kernel, leaving the bias with the layer's default point-estimate posterior.", '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    return tfpl.Convolution2DReparameterization(
        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn)
'''),
        ("bias divergence unscaled", "Passes divergence_fn for the kernel only, so the bias KL uses the default unscaled divergence instead of the given divergence_fn.", '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    return tfpl.Convolution2DReparameterization(
        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_prior_fn=tfpl.default_multivariate_normal_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False))
'''),
        ("SAME padding", "Uses padding SAME instead of VALID, so the output is 28x28 instead of 24x24.", '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    prior = tfpl.default_multivariate_normal_fn
    posterior = tfpl.default_mean_field_normal_fn(is_singular=False)
    return tfpl.Convolution2DReparameterization(
        8, 5, activation="relu", padding="SAME", input_shape=input_shape,
        kernel_prior_fn=prior, kernel_posterior_fn=posterior, kernel_divergence_fn=divergence_fn,
        bias_prior_fn=prior, bias_posterior_fn=posterior, bias_divergence_fn=divergence_fn)
'''),
    ],
    "get_prior": [
        ("kernel weights only", "Builds the spike-and-slab over kernel_size weights only, forgetting the bias_size bias weights.", '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Sequential model producing the spike-and-slab prior."""
    return tf.keras.Sequential([
        tfpl.DistributionLambda(lambda t: spike_and_slab(kernel_size, dtype)),
    ])
'''),
        ("standard normal prior", "Returns an independent standard normal over the weights instead of the spike-and-slab mixture.", '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Sequential model producing the spike-and-slab prior."""
    n = kernel_size + bias_size
    return tf.keras.Sequential([
        tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(loc=tf.zeros(n, dtype=dtype), scale=1.0),
                                                          reinterpreted_batch_ndims=1)),
    ])
'''),
    ],
    "get_posterior": [
        ("n variables, not params_size", "Gives the VariableLayer n = kernel_size + bias_size variables instead of IndependentNormal.params_size(n) (a mean and a scale per weight).", '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Sequential model producing a trainable independent normal over all weights."""
    n = kernel_size + bias_size
    return tf.keras.Sequential([
        tfpl.VariableLayer(n, dtype=dtype),
        tfpl.IndependentNormal(n),
    ])
'''),
    ],
    "get_dense_variational_layer": [
        ("exact KL", "Passes kl_use_exact=True, asking for a closed-form KL that the spike-and-slab mixture prior does not have.", '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(units=tfpl.OneHotCategorical.params_size(10),
                                 make_posterior_fn=posterior_fn, make_prior_fn=prior_fn,
                                 kl_weight=kl_weight, kl_use_exact=True)
'''),
        ("kl_weight not passed", "Forgets to pass kl_weight, so the KL term is added with weight 1 instead of the given kl_weight.", '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(tfpl.OneHotCategorical.params_size(10),
                                 make_posterior_fn=posterior_fn, make_prior_fn=prior_fn,
                                 kl_use_exact=False)
'''),
    ],
    "mc_entropy_decomposition": [
        ("nats not bits", "Computes the entropies with the natural logarithm (nats) instead of log base 2 (bits).", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = np.stack([model(x).mean().numpy() for _ in range(num_samples)])
    def entropy(p):
        return -np.sum(p * np.log(np.where(p > 0, p, 1.0)), axis=-1)
    probs = samples.mean(axis=0)
    total = entropy(probs)
    aleatoric = entropy(samples).mean(axis=0)
    return probs, total, aleatoric, total - aleatoric
'''),
        ("aleatoric and total swapped", "Computes the total as the mean of the per-sample entropies and the aleatoric part as the entropy of the mean prediction (swapped), so the epistemic part comes out negative.", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = np.stack([model(x).mean().numpy() for _ in range(num_samples)])
    def entropy(p):
        return -np.sum(p * np.log2(np.where(p > 0, p, 1.0)), axis=-1)
    probs = samples.mean(axis=0)
    total = entropy(samples).mean(axis=0)
    aleatoric = entropy(probs)
    return probs, total, aleatoric, total - aleatoric
'''),
        ("one weight sample", "Calls model(x) once and repeats that prediction num_samples times, so the samples never differ and the epistemic part is always 0.", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    one = model(x).mean().numpy()
    samples = np.stack([one] * num_samples)
    def entropy(p):
        return -np.sum(p * np.log2(np.where(p > 0, p, 1.0)), axis=-1)
    probs = samples.mean(axis=0)
    total = entropy(probs)
    aleatoric = entropy(samples).mean(axis=0)
    return probs, total, aleatoric, total - aleatoric
'''),
        ("tensors returned", "Returns TensorFlow tensors instead of the NumPy arrays asked for.", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = tf.stack([model(x).mean() for _ in range(num_samples)])
    def entropy(p):
        return -tf.reduce_sum(tf.math.xlogy(p, p), axis=-1) / tf.math.log(2.0)
    probs = tf.reduce_mean(samples, axis=0)
    total = entropy(probs)
    aleatoric = tf.reduce_mean(entropy(samples), axis=0)
    return probs, total, aleatoric, total - aleatoric
'''),
    ],
}

# Correct answers in idioms of their own (the same cell format): they must earn full marks.
CORRECT = {
    "get_deterministic_model": [
        ("Sequential", '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    model = Sequential([
        Conv2D(filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D(pool_size=(6, 6)),
        Flatten(),
        Dense(units=10, activation="softmax"),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
        ("functional", '''def get_deterministic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled deterministic CNN (Conv2D, MaxPooling2D, Flatten, Dense softmax)."""
    inputs = tf.keras.Input(shape=input_shape)
    h = tf.keras.layers.Conv2D(8, 5, activation="relu", padding="valid")(inputs)
    h = tf.keras.layers.MaxPooling2D(6)(h)
    h = tf.keras.layers.Flatten()(h)
    outputs = tf.keras.layers.Dense(10, activation=tf.nn.softmax)(h)
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=optimizer, loss=loss, metrics=metrics)
    return model
'''),
    ],
    "nll": [
        ("log_prob", '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    return -y_pred.log_prob(y_true)
'''),
        ("from logits", '''def nll(y_true, y_pred):
    """Return the per-example negative log-likelihood of y_true under the distribution y_pred."""
    log_probs = tf.nn.log_softmax(y_pred.logits_parameter(), axis=-1)
    return -tf.reduce_sum(tf.cast(y_true, log_probs.dtype) * log_probs, axis=-1)
'''),
    ],
    "get_probabilistic_model": [
        ("Sequential", '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    model = Sequential([
        Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
        MaxPooling2D((6, 6)),
        Flatten(),
        Dense(tfpl.OneHotCategorical.params_size(10)),
        tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode),
    ])
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
        ("functional", '''def get_probabilistic_model(input_shape, loss, optimizer, metrics):
    """Return the compiled CNN whose output layer is a OneHotCategorical distribution."""
    inputs = tf.keras.Input(shape=input_shape)
    h = Conv2D(8, kernel_size=5, activation="relu", padding="VALID")(inputs)
    h = Flatten()(MaxPooling2D(pool_size=6)(h))
    logits = Dense(tfpl.OneHotCategorical.params_size(10), activation=None)(h)
    outputs = tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode)(logits)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
    return model
'''),
    ],
    "get_convolutional_reparameterization_layer": [
        ("keywords", '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    return tfpl.Convolution2DReparameterization(
        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,
        kernel_prior_fn=tfpl.default_multivariate_normal_fn,
        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        kernel_divergence_fn=divergence_fn,
        bias_prior_fn=tfpl.default_multivariate_normal_fn,
        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),
        bias_divergence_fn=divergence_fn)
'''),
        ("shared dict", '''def get_convolutional_reparameterization_layer(input_shape, divergence_fn):
    """Return a Convolution2DReparameterization layer with normal priors and mean-field posteriors."""
    settings = {}
    for part in ("kernel", "bias"):
        settings[f"{part}_prior_fn"] = tfpl.default_multivariate_normal_fn
        settings[f"{part}_posterior_fn"] = tfpl.default_mean_field_normal_fn(is_singular=False)
        settings[f"{part}_divergence_fn"] = divergence_fn
    return tfpl.Convolution2DReparameterization(8, 5, activation=tf.nn.relu, padding="valid",
                                                input_shape=input_shape, **settings)
'''),
    ],
    "get_prior": [
        ("DistributionLambda", '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Sequential model producing the spike-and-slab prior."""
    n = kernel_size + bias_size
    return tf.keras.Sequential([tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))])
'''),
        ("named function", '''def get_prior(kernel_size, bias_size, dtype=None):
    """Return a non-trainable Sequential model producing the spike-and-slab prior."""
    def make_prior(_inputs):
        return spike_and_slab(kernel_size + bias_size, dtype or tf.float32)
    prior_model = tf.keras.Sequential()
    prior_model.add(tfpl.DistributionLambda(make_prior))
    return prior_model
'''),
    ],
    "get_posterior": [
        ("params_size", '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Sequential model producing a trainable independent normal over all weights."""
    n = kernel_size + bias_size
    return tf.keras.Sequential([
        tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),
        tfpl.IndependentNormal(n),
    ])
'''),
        ("add", '''def get_posterior(kernel_size, bias_size, dtype=None):
    """Return a Sequential model producing a trainable independent normal over all weights."""
    num_weights = kernel_size + bias_size
    posterior = tf.keras.Sequential()
    posterior.add(tfpl.VariableLayer(shape=tfpl.IndependentNormal.params_size(num_weights), dtype=dtype))
    posterior.add(tfpl.IndependentNormal(event_shape=num_weights))
    return posterior
'''),
    ],
    "get_dense_variational_layer": [
        ("keywords", '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    return tfpl.DenseVariational(units=tfpl.OneHotCategorical.params_size(10),
                                 make_posterior_fn=posterior_fn, make_prior_fn=prior_fn,
                                 kl_weight=kl_weight, kl_use_exact=False)
'''),
        ("positional", '''def get_dense_variational_layer(prior_fn, posterior_fn, kl_weight):
    """Return a DenseVariational layer for a 10-class OneHotCategorical, with a Monte Carlo KL."""
    units = tfpl.OneHotCategorical.params_size(10)
    layer = tfpl.DenseVariational(units, posterior_fn, prior_fn, kl_weight=kl_weight, kl_use_exact=False,
                                  activation=None)
    return layer
'''),
    ],
    "mc_entropy_decomposition": [
        ("numpy where", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    samples = np.stack([np.asarray(model(x).mean()) for _ in range(num_samples)])
    def entropy_bits(p):
        return -np.sum(p * np.log2(np.where(p > 0, p, 1.0)), axis=-1)
    probs = samples.mean(axis=0)
    total = entropy_bits(probs)
    aleatoric = entropy_bits(samples).mean(axis=0)
    return probs, total, aleatoric, total - aleatoric
'''),
        ("tf xlogy then numpy", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    draws = tf.stack([tf.convert_to_tensor(model(x).mean()) for _ in range(num_samples)], axis=0)
    def bits(p):
        return -tf.reduce_sum(tf.math.xlogy(p, p), axis=-1) / tf.math.log(tf.constant(2.0, p.dtype))
    mean_probs = tf.reduce_mean(draws, axis=0)
    total = bits(mean_probs)
    aleatoric = tf.reduce_mean(bits(draws), axis=0)
    return mean_probs.numpy(), total.numpy(), aleatoric.numpy(), (total - aleatoric).numpy()
'''),
        ("running sums", '''def mc_entropy_decomposition(model, x, num_samples):
    """Return (probs, total, aleatoric, epistemic) from num_samples calls of model(x); entropies in bits."""
    def entropy_bits(p):
        safe = np.clip(p, 1e-300, 1.0)
        return -np.sum(np.where(p > 0, p * np.log2(safe), 0.0), axis=-1)
    probs_sum, entropy_sum = 0.0, 0.0
    for _ in range(num_samples):
        p = model(x).mean().numpy().astype(np.float64)
        probs_sum = probs_sum + p
        entropy_sum = entropy_sum + entropy_bits(p)
    probs = probs_sum / num_samples
    total = entropy_bits(probs)
    aleatoric = entropy_sum / num_samples
    return probs, total, aleatoric, total - aleatoric
'''),
    ],
}
