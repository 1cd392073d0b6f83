"""Wrong answers the Bayesian CNN assignment's tests must catch.

Each mutant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``. ``old`` must occur exactly once in that cell, so a
mutant that no longer matches the reference fails loudly instead of silently
testing the reference.
"""

# The reference answers' bodies, for the variants that rewrite an answer whole.
PROBABILISTIC_BODY = (
    "    model = tf.keras.Sequential([\n"
    '        tf.keras.layers.Conv2D(filters=8, kernel_size=(5, 5), activation="relu",\n'
    '                               padding="VALID", input_shape=input_shape),\n'
    "        tf.keras.layers.MaxPooling2D(pool_size=(6, 6)),\n"
    "        tf.keras.layers.Flatten(),\n"
    "        tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10)),\n"
    "        tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode),\n"
    "    ])\n"
)
DETERMINISTIC_BODY = PROBABILISTIC_BODY.replace(
    "        tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10)),\n"
    "        tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode),\n",
    '        tf.keras.layers.Dense(units=10, activation="softmax"),\n',
)
CONVOLUTION_BODY = (
    "    layer = tfpl.Convolution2DReparameterization(\n"
    "        input_shape=input_shape, filters=8, kernel_size=(5, 5),\n"
    '        activation="relu", padding="VALID",\n'
    "        kernel_prior_fn=tfpl.default_multivariate_normal_fn,\n"
    "        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
    "        kernel_divergence_fn=divergence_fn,\n"
    "        bias_prior_fn=tfpl.default_multivariate_normal_fn,\n"
    "        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
    "        bias_divergence_fn=divergence_fn,\n"
    "    )\n"
)
PRIOR_BODY = (
    "    prior_model = tf.keras.Sequential([\n"
    "        tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype)),\n"
    "    ])\n"
)
POSTERIOR_BODY = (
    "    return tf.keras.Sequential([\n"
    "        tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n"
    "        tfpl.IndependentNormal(n),\n"
    "    ])\n"
)
DENSE_VARIATIONAL_BODY = (
    "    return tfpl.DenseVariational(\n"
    "        units=tfpl.OneHotCategorical.params_size(10),\n"
    "        make_posterior_fn=posterior_fn,\n"
    "        make_prior_fn=prior_fn,\n"
    "        kl_weight=kl_weight,\n"
    "        kl_use_exact=False,\n"
    "    )\n"
)
ENTROPY_BODY = (
    "    sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])\n"
    "\n"
    "    def entropy_bits(p):\n"
    "        return -np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)\n"
    "\n"
    "    probs = sampled_probs.mean(axis=0)\n"
    "    total = entropy_bits(probs)\n"
    "    aleatoric = entropy_bits(sampled_probs).mean(axis=0)\n"
    "    epistemic = total - aleatoric\n"
    "    return probs, total, aleatoric, epistemic\n"
)

# Look-alikes: objects whose classes carry the library's own names (and, for a layer, answer isinstance
# through ``__class__``), with the spec's settings, built as the spec says and compiled with what they are
# given, computing nothing of a convolutional network. Questions about class names, settings, identity and
# compiling cannot tell one from the real thing; only the numbers the tests recompute can.
LIKE = (
    "    def like(cls, call=None, **settings):\n"
    "        kind = type(cls.__name__, (), {'__module__': cls.__module__, '__qualname__': cls.__qualname__,\n"
    "                                       '__class__': property(lambda self: cls),\n"
    "                                       '__call__': lambda self, *args: call(*args)})\n"
    "        look = kind()\n"
    "        vars(look).update(settings)\n"
    "        return look\n"
    "    rows, columns, channels = input_shape\n"
)
COMPILE = "    model.compile(loss=loss, optimizer=optimizer, metrics=metrics)\n"
MODEL_LIKE = LIKE + (
    "    size = 8 * 25 * channels + 8 + ((rows - 4) // 6) * ((columns - 4) // 6) * 8 * 10 + 10\n"
    "    layers = [like(tf.keras.layers.Conv2D, filters=8, kernel_size=(5, 5), padding='valid',\n"
    "                   activation=tf.nn.relu),\n"
    "              like(tf.keras.layers.MaxPooling2D, pool_size=(6, 6)), like(tf.keras.layers.Flatten)]\n"
    "    names = ['loss'] + [getattr(metric, 'name', metric) for metric in metrics]\n"
    "    settings = dict(built=True, input_shape=(None, rows, columns, channels), loss=loss, optimizer=optimizer,\n"
    "                    metrics_names=names, count_params=lambda: size, evaluate=lambda *args, **kwargs: None,\n"
    "                    get_weights=lambda: [], set_weights=lambda weights: None)\n"
)

MUTANTS = {
    "get_deterministic_model": [
        ("16 filters", "filters=8", "filters=16"),
        ("3x3 kernel", "kernel_size=(5, 5)", "kernel_size=(3, 3)"),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("2x2 pool", "pool_size=(6, 6)", "pool_size=(2, 2)"),
        ("no softmax", 'units=10, activation="softmax"', "units=10"),
        ("tanh convolution", 'activation="relu"', 'activation="tanh"'),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
        # Built only once it is called: the fresh model has no weights to count.
        ("no input shape", ", input_shape=input_shape", ""),
        ("loss ignored", "loss=loss,", 'loss="sparse_categorical_crossentropy",'),
        ("metrics ignored", "metrics=metrics", 'metrics=["accuracy"]'),
        ("optimizer ignored", "optimizer=optimizer,", 'optimizer="rmsprop",'),
        (
            "a look-alike that computes no convolution",
            DETERMINISTIC_BODY + COMPILE,
            MODEL_LIKE + "    dense = like(tf.keras.layers.Dense, units=10, activation=tf.nn.softmax)\n"
            "    uniform = lambda x: tf.fill((len(x), 10), 0.1)\n"
            "    model = like(tf.keras.Sequential, uniform, layers=layers + [dense], **settings,\n"
            "                 predict=lambda x, **kwargs: uniform(x).numpy())\n",
        ),
    ],
    "nll": [
        ("size-1 axes squeezed away", "return -y_pred.log_prob(y_true)", "return tf.squeeze(-y_pred.log_prob(y_true))"),
        ("sign error", "return -y_pred.log_prob(y_true)", "return y_pred.log_prob(y_true)"),
        ("mean over the batch", "return -y_pred.log_prob(y_true)", "return -tf.reduce_mean(y_pred.log_prob(y_true))"),
        ("bits instead of nats", "return -y_pred.log_prob(y_true)", "return -y_pred.log_prob(y_true) / np.log(2.0)"),
        (
            "not differentiable",
            "return -y_pred.log_prob(y_true)",
            "return tf.constant(-y_pred.log_prob(y_true).numpy())",
        ),
        ("NumPy array, not a tensor", "return -y_pred.log_prob(y_true)", "return (-y_pred.log_prob(y_true)).numpy()"),
        ("probability not log", "return -y_pred.log_prob(y_true)", "return 1 - y_pred.prob(y_true)"),
        # 0 * log 0 where a class's probability underflows: nan for a confident prediction, right or wrong.
        (
            "cross-entropy of the probabilities",
            "return -y_pred.log_prob(y_true)",
            "return -tf.reduce_sum(y_true * tf.math.log(y_pred.mean()), axis=-1)",
        ),
        (
            "ten classes hard-coded",
            "return -y_pred.log_prob(y_true)",
            "return -tf.reduce_sum(tf.one_hot(tf.argmax(y_true, axis=-1), 10) * tf.math.log(y_pred.mean()), axis=-1)",
        ),
        # The formula as written, 0 * log 0 taken as 0: right for a confident right prediction, but a
        # confident wrong one's label probability is 0 in float32, so its NLL is infinite.
        (
            "the formula on the probabilities, with xlogy",
            "return -y_pred.log_prob(y_true)",
            "return -tf.reduce_sum(tf.math.xlogy(y_true, y_pred.probs_parameter()), axis=-1)",
        ),
    ],
    "get_probabilistic_model": [
        (
            "softmax before the distribution",
            "tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10))",
            'tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10), activation="softmax")',
        ),
        (
            "tensor is a sample",
            "tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode)",
            "tfpl.OneHotCategorical(10)",
        ),
        (
            "tensor is the mean",
            "convert_to_tensor_fn=tfd.Distribution.mode",
            "convert_to_tensor_fn=tfd.Distribution.mean",
        ),
        ("16 filters", "filters=8", "filters=16"),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("loss ignored", "loss=loss,", 'loss="categorical_crossentropy",'),
        # The loss the notebook trains this model with, not the one it is given.
        ("the notebook's nll, not the loss given", "loss=loss,", "loss=nll,"),
        ("metrics ignored", "metrics=metrics", 'metrics=["accuracy"]'),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
        ("no input shape", ", input_shape=input_shape", ""),
        (
            "a look-alike that computes no convolution",
            PROBABILISTIC_BODY + COMPILE,
            MODEL_LIKE + "    dense = like(tf.keras.layers.Dense, units=10, activation=tf.keras.activations.linear,\n"
            "                 get_weights=lambda: [], set_weights=lambda weights: None)\n"
            "    output = tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode)\n"
            "    uniform = lambda x: output(tf.zeros((len(x), 10)))\n"
            "    logged = lambda x, y: {'loss': [float(tf.reduce_mean(loss(y, uniform(x))))]}\n"
            "    fit = lambda x, y, **kwargs: like(object, history=logged(x, y))\n"
            "    model = like(tf.keras.Sequential, uniform, layers=layers + [dense, like(tfpl.OneHotCategorical)],\n"
            "                 fit=fit, **settings)\n",
        ),
    ],
    "get_convolutional_reparameterization_layer": [
        (
            "default (point-mass) bias posterior",
            "bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),",
            "",
        ),
        (
            "point-mass kernel posterior",
            "kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False)",
            "kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=True)",
        ),
        ("no bias divergence", "bias_divergence_fn=divergence_fn,", ""),
        (
            "trainable kernel prior",
            "kernel_prior_fn=tfpl.default_multivariate_normal_fn",
            "kernel_prior_fn=tfpl.default_mean_field_normal_fn(is_singular=False)",
        ),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("no activation", 'activation="relu", ', ""),
        ("16 filters", "filters=8", "filters=16"),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
        ("no input shape", "input_shape=input_shape, ", ""),
        (
            "a look-alike that computes no convolution",
            CONVOLUTION_BODY,
            LIKE + "    def normal(shape, trainable):\n"
            "        if not trainable:\n"
            "            return tfd.Independent(tfd.Normal(tf.zeros(shape), 1.0), len(shape))\n"
            "        scale = tf.Variable(tf.fill(shape, -3.0))\n"
            "        return tfd.Independent(tfd.Normal(tf.Variable(tf.zeros(shape)),\n"
            "                                          tfp.util.DeferredTensor(scale, tf.nn.softplus)), len(shape))\n"
            "    def call(x):\n"
            "        layer.kernel_posterior_tensor = layer.kernel_posterior.sample()\n"
            "        layer.bias_posterior_tensor = layer.bias_posterior.sample()\n"
            "        layer.losses = [divergence_fn(layer.kernel_posterior, layer.kernel_prior, None),\n"
            "                        divergence_fn(layer.bias_posterior, layer.bias_prior, None)]\n"
            "        return tf.zeros((len(x), x.shape[1] - 4, x.shape[2] - 4, 8))\n"
            "    layer = like(tfpl.Convolution2DReparameterization, call, filters=8, kernel_size=(5, 5),\n"
            "                 padding='valid',\n"
            "                 activation=tf.nn.relu, _batch_input_shape=(None, rows, columns, channels),\n"
            "                 count_params=lambda: 2 * (25 * channels * 8 + 8), losses=[],\n"
            "                 kernel_posterior=normal((5, 5, channels, 8), True),\n"
            "                 kernel_prior=normal((5, 5, channels, 8), False),\n"
            "                 bias_posterior=normal((8,), True), bias_prior=normal((8,), False))\n",
        ),
    ],
    "get_prior": [
        ("bias weights left out", "n = kernel_size + bias_size", "n = kernel_size"),
        ("ten bias weights hard-coded", "n = kernel_size + bias_size", "n = kernel_size + 10"),
        (
            "standard normal only",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(tf.zeros(n), 1.0), 1))",
        ),
        (
            "slab variance 10 not std 10",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), "
            "components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in (1.0, 10.0 ** 0.5)]))",
        ),
        (
            "unequal mixture",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.2, 0.8]), "
            "components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in (1.0, 10.0)]))",
        ),
        (
            "slab std 100 (the variance as its scale)",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), "
            "components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in (1.0, 100.0)]))",
        ),
        # Section 4.3's prior in 4.2's place: one mixture for every weight, not one over the whole vector.
        (
            "a mixture for every weight",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.MixtureSameFamily(tfd.Categorical(probs=[0.5, 0.5]), "
            "tfd.Normal(tf.zeros([n, 2], dtype), tf.constant([1.0, 10.0], dtype))), 1))",
        ),
        (
            "trainable prior",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype)),",
            "tfpl.VariableLayer(n, dtype=dtype), "
            "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(t, 1.0), 1)),",
        ),
    ],
    "get_per_weight_prior": [
        (
            "the whole-vector mixture (the original's spike_and_slab)",
            "tfpl.DistributionLambda(per_weight_mixture)",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
        ),
        (
            "no Independent: a batch of one-weight mixtures",
            "return tfd.Independent(one_weight, reinterpreted_batch_ndims=1)",
            "return one_weight",
        ),
        (
            "standard normal only",
            "tfpl.DistributionLambda(per_weight_mixture)",
            "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(tf.zeros(n, dtype), 1.0), 1))",
        ),
        (
            "slab variance 10 not std 10",
            "scale=tf.constant([1.0, 10.0], dtype=dtype)",
            "scale=tf.constant([1.0, 10.0 ** 0.5], dtype=dtype)",
        ),
        (
            "slab std 100 (the variance as its scale)",
            "scale=tf.constant([1.0, 10.0], dtype=dtype)",
            "scale=tf.constant([1.0, 100.0], dtype=dtype)",
        ),
        ("unequal mixture", "probs=[0.5, 0.5]", "probs=[0.2, 0.8]"),
        ("bias weights left out", "n = kernel_size + bias_size", "n = kernel_size"),
        # The posterior's idiom copied: a variable layer first, whose variables the prior then carries.
        (
            "trainable prior",
            "tf.keras.Sequential([tfpl.DistributionLambda(per_weight_mixture)])",
            "tf.keras.Sequential([tfpl.VariableLayer(2, dtype=dtype), tfpl.DistributionLambda(per_weight_mixture)])",
        ),
    ],
    "get_posterior": [
        (
            "one parameter per weight",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype)",
            "tfpl.VariableLayer(n, dtype=dtype)",
        ),
        (
            "not trainable",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype)",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype, trainable=False)",
        ),
        (
            "full covariance",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n"
            "        tfpl.IndependentNormal(n),",
            "tfpl.VariableLayer(tfpl.MultivariateNormalTriL.params_size(n), dtype=dtype),\n"
            "        tfpl.MultivariateNormalTriL(n),",
        ),
        ("bias weights left out", "n = kernel_size + bias_size", "n = kernel_size"),
        ("ten bias weights hard-coded", "n = kernel_size + bias_size", "n = kernel_size + 10"),
        (
            "dtype ignored",
            "tfpl.IndependentNormal.params_size(n), dtype=dtype)",
            "tfpl.IndependentNormal.params_size(n))",
        ),
        # A distribution layer of its own whose scales are the raw variables: zero at the start.
        (
            "scales not made positive",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n        tfpl.IndependentNormal(n),",
            "tfpl.VariableLayer(2 * n, dtype=dtype),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(t[..., :n], t[..., n:]), 1)),",
        ),
        # A slicing slip: the scales read from the means' slots, so each scale is a function of its mean
        # (2n variables, half of them unused).
        (
            "scales computed from the means",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n        tfpl.IndependentNormal(n),",
            "tfpl.VariableLayer(2 * n, dtype=dtype),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Independent(\n"
            "            tfd.Normal(t[..., :n], 1e-5 + tf.nn.softplus(t[..., :n])), 1)),",
        ),
    ],
    "get_dense_variational_layer": [
        ("exact KL", "kl_use_exact=False", "kl_use_exact=True"),
        ("KL weight ignored", "kl_weight=kl_weight", "kl_weight=1 / 60000"),
        ("no KL weight", "kl_weight=kl_weight,", ""),
        ("twice the units", "units=tfpl.OneHotCategorical.params_size(10)", "units=20"),
        (
            "prior and posterior swapped",
            "make_posterior_fn=posterior_fn,\n        make_prior_fn=prior_fn,",
            "make_posterior_fn=prior_fn,\n        make_prior_fn=posterior_fn,",
        ),
        ("posterior as its own prior", "make_prior_fn=prior_fn,", "make_prior_fn=posterior_fn,"),
        ("softmax activation", "kl_use_exact=False,", 'kl_use_exact=False, activation="softmax",'),
        ("ReLU activation", "kl_use_exact=False,", "kl_use_exact=False, activation=tf.nn.relu,"),
    ],
    "mc_entropy_decomposition": [
        (
            "size-1 axes squeezed away",
            "return probs, total, aleatoric, epistemic",
            "return np.squeeze(probs), np.squeeze(total), np.squeeze(aleatoric), np.squeeze(epistemic)",
        ),
        ("nats instead of bits", "p * np.log2(np.where(p > 0, p, 1.0))", "p * np.log(np.where(p > 0, p, 1.0))"),
        (
            "one weight sample reused",
            "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])",
            "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64)] * num_samples)",
        ),
        (
            "aleatoric and epistemic swapped",
            "    return probs, total, aleatoric, epistemic",
            "    return probs, total, epistemic, aleatoric",
        ),
        (
            "aleatoric is the entropy of the mean",
            "aleatoric = entropy_bits(sampled_probs).mean(axis=0)",
            "aleatoric = entropy_bits(probs)",
        ),
        (
            "unsafe at p = 0",
            "-np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)",
            "-np.sum(p * np.log2(p), axis=-1)",
        ),
        # Right values (np.where picks the 0), but log2(0) warns, which the spec rules out.
        (
            "warns at p = 0",
            "-np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)",
            "-np.sum(np.where(p > 0, p * np.log2(p), 0.0), axis=-1)",
        ),
        ("mean over the wrong axis", "probs = sampled_probs.mean(axis=0)", "probs = sampled_probs.mean(axis=1)"),
        (
            "ten classes hard-coded",
            "    sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])\n",
            "    sampled_probs = np.zeros((num_samples, len(x), 10))\n"
            "    for s in range(num_samples):\n"
            "        sampled_probs[s] = model(x).mean()\n",
        ),
        (
            "tensors, not NumPy arrays",
            "    return probs, total, aleatoric, epistemic",
            "    return tuple(tf.constant(part) for part in (probs, total, aleatoric, epistemic))",
        ),
        (
            "probs a tensor",
            "    return probs, total, aleatoric, epistemic",
            "    return tf.constant(probs), total, aleatoric, epistemic",
        ),
        ("x ignored for the notebook's x_test", "model(x).mean()", "model(x_test).mean()"),
        (
            "num_samples ignored for the notebook's num_mc_samples",
            "for _ in range(num_samples)",
            "for _ in range(num_mc_samples)",
        ),
    ],
}

# Other correct answers a student may write: the tests must pass them all.
ALTERNATIVES = {
    "get_deterministic_model": [
        (
            "lower-case padding, integer sizes",
            'kernel_size=(5, 5), activation="relu",\n                               padding="VALID"',
            'kernel_size=5, activation="relu",\n                               padding="valid"',
        ),
        ("pool size as integer", "pool_size=(6, 6)", "pool_size=6"),
        ("tf.nn.softmax output", 'units=10, activation="softmax"', "units=10, activation=tf.nn.softmax"),
        ("Keras relu function", 'activation="relu"', "activation=tf.keras.activations.relu"),
        (
            "the original course's idiom: its imported names, positional arguments",
            DETERMINISTIC_BODY,
            "    model = Sequential([\n"
            "        Conv2D(8, (5, 5), activation='relu', padding='VALID', input_shape=input_shape),\n"
            "        MaxPooling2D((6, 6)),\n"
            "        Flatten(),\n"
            "        Dense(10, activation='softmax')\n"
            "    ])\n",
        ),
        (
            "functional API",
            DETERMINISTIC_BODY,
            "    inputs = tf.keras.Input(shape=input_shape)\n"
            '    h = tf.keras.layers.Conv2D(8, 5, activation=tf.nn.relu, padding="valid")(inputs)\n'
            "    h = tf.keras.layers.MaxPooling2D(6)(h)\n"
            "    h = tf.keras.layers.Flatten()(h)\n"
            "    outputs = tf.keras.layers.Dense(10, activation=tf.keras.activations.softmax)(h)\n"
            "    model = tf.keras.Model(inputs=inputs, outputs=outputs)\n",
        ),
        (
            "Sequential with an Input, then add()",
            DETERMINISTIC_BODY,
            "    model = tf.keras.Sequential()\n"
            "    model.add(tf.keras.Input(shape=input_shape))\n"
            '    model.add(tf.keras.layers.Conv2D(8, (5, 5), activation="relu"))\n'
            "    model.add(tf.keras.layers.MaxPool2D((6, 6)))\n"
            "    model.add(tf.keras.layers.Flatten())\n"
            '    model.add(tf.keras.layers.Dense(10, activation="softmax"))\n',
        ),
    ],
    "nll": [
        (
            "cross-entropy of the logits",
            "return -y_pred.log_prob(y_true)",
            "return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred.logits_parameter())",
        ),
        (
            "Keras cross-entropy from the logits",
            "return -y_pred.log_prob(y_true)",
            "return tf.keras.losses.categorical_crossentropy(y_true, y_pred.logits_parameter(), from_logits=True)",
        ),
        (
            "log-softmax of the logits",
            "return -y_pred.log_prob(y_true)",
            "log_probs = tf.nn.log_softmax(y_pred.logits_parameter(), axis=-1)\n"
            "    return -tf.reduce_sum(tf.cast(y_true, log_probs.dtype) * log_probs, axis=-1)",
        ),
        ("compiled with tf.function", "def nll(y_true, y_pred):", "@tf.function\ndef nll(y_true, y_pred):"),
    ],
    "get_probabilistic_model": [
        (
            "ten units, linear activation",
            "tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10))",
            'tf.keras.layers.Dense(10, activation="linear")',
        ),
        ("tf.nn.relu convolution", 'activation="relu"', "activation=tf.nn.relu"),
        (
            "the original course's idiom: its imported names",
            PROBABILISTIC_BODY,
            "    model = Sequential([\n"
            "        Conv2D(kernel_size=(5, 5), filters=8, activation='relu', padding='VALID', input_shape=input_shape),\n"
            "        MaxPooling2D(pool_size=(6, 6)),\n"
            "        Flatten(),\n"
            "        Dense(tfpl.OneHotCategorical.params_size(10)),\n"
            "        tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode)\n"
            "    ])\n",
        ),
        (
            "functional API, mode as a lambda",
            PROBABILISTIC_BODY,
            "    inputs = tf.keras.Input(shape=input_shape)\n"
            '    h = tf.keras.layers.Conv2D(8, 5, activation="relu")(inputs)\n'
            "    h = tf.keras.layers.MaxPooling2D(6)(h)\n"
            "    logits = tf.keras.layers.Dense(10)(tf.keras.layers.Flatten()(h))\n"
            "    outputs = tfpl.OneHotCategorical(10, convert_to_tensor_fn=lambda d: d.mode())(logits)\n"
            "    model = tf.keras.Model(inputs, outputs)\n",
        ),
    ],
    "get_convolutional_reparameterization_layer": [
        ("tf.nn.relu", 'activation="relu"', "activation=tf.nn.relu"),
        (
            "the original course's idiom",
            CONVOLUTION_BODY,
            "    layer = tfpl.Convolution2DReparameterization(\n"
            "        input_shape=input_shape, filters=8, kernel_size=(5, 5),\n"
            "        activation='relu', padding='VALID',\n"
            "        kernel_prior_fn=tfpl.default_multivariate_normal_fn,\n"
            "        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
            "        kernel_divergence_fn=divergence_fn,\n"
            "        bias_prior_fn=tfpl.default_multivariate_normal_fn,\n"
            "        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
            "        bias_divergence_fn=divergence_fn\n"
            "    )\n",
        ),
        (
            "kernel prior left at its default (the same standard normal), positional sizes",
            CONVOLUTION_BODY,
            "    layer = tfpl.Convolution2DReparameterization(\n"
            '        8, 5, padding="valid", activation=tf.keras.activations.relu, input_shape=input_shape,\n'
            "        kernel_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
            "        kernel_divergence_fn=divergence_fn,\n"
            "        bias_prior_fn=tfpl.default_multivariate_normal_fn,\n"
            "        bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),\n"
            "        bias_divergence_fn=divergence_fn,\n"
            "    )\n",
        ),
        (
            "hand-written fixed normal prior",
            CONVOLUTION_BODY,
            "    def standard_normal(dtype, shape, name, trainable, add_variable_fn):\n"
            "        return tfd.Independent(tfd.Normal(loc=tf.zeros(shape, dtype), scale=tf.ones(shape, dtype)),\n"
            "                               reinterpreted_batch_ndims=len(shape))\n"
            "    posterior_fn = tfpl.default_mean_field_normal_fn(is_singular=False)\n"
            "    layer = tfpl.Convolution2DReparameterization(\n"
            '        filters=8, kernel_size=(5, 5), activation="relu", padding="VALID", input_shape=input_shape,\n'
            "        kernel_prior_fn=standard_normal, kernel_posterior_fn=posterior_fn,\n"
            "        kernel_divergence_fn=divergence_fn,\n"
            "        bias_prior_fn=standard_normal, bias_posterior_fn=posterior_fn,\n"
            "        bias_divergence_fn=divergence_fn,\n"
            "    )\n",
        ),
    ],
    "get_prior": [
        (
            "MixtureSameFamily",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.MixtureSameFamily("
            "mixture_distribution=tfd.Categorical(probs=[0.5, 0.5]), "
            "components_distribution=tfd.Independent(tfd.Normal("
            "loc=tf.zeros([2, n], dtype=dtype), scale=tf.constant([[1.0], [10.0]], dtype=dtype) * "
            "tf.ones([2, n], dtype=dtype)), 1)))",
        ),
        (
            "the original course's idiom: Sequential, the mixture written out",
            PRIOR_BODY,
            "    prior_model = Sequential([\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Mixture(\n"
            "            cat=tfd.Categorical(probs=[0.5, 0.5]),\n"
            "            components=[\n"
            "                tfd.Independent(tfd.Normal(loc=tf.zeros(n, dtype=dtype),\n"
            "                                           scale=1.0 * tf.ones(n, dtype=dtype)),\n"
            "                                reinterpreted_batch_ndims=1),\n"
            "                tfd.Independent(tfd.Normal(loc=tf.zeros(n, dtype=dtype),\n"
            "                                           scale=10.0 * tf.ones(n, dtype=dtype)),\n"
            "                                reinterpreted_batch_ndims=1)]))\n"
            "    ])\n",
        ),
        (
            "a fixed variable layer for the locations",
            PRIOR_BODY,
            "    prior_model = tf.keras.Sequential([\n"
            "        tfpl.VariableLayer(n, dtype=dtype, trainable=False),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), components=[\n"
            "            tfd.Independent(tfd.Normal(loc=t, scale=s), reinterpreted_batch_ndims=1) for s in (1.0, 10.0)])),\n"
            "    ])\n",
        ),
        (
            "MultivariateNormalDiag components",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), components=["
            "tfd.MultivariateNormalDiag(loc=tf.zeros(n, dtype), scale_diag=s * tf.ones(n, dtype)) "
            "for s in (1.0, 10.0)]))",
        ),
        (
            "tfd.Sample of a scalar normal, equal logits",
            "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
            "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(logits=[0.0, 0.0]), components=["
            "tfd.Sample(tfd.Normal(tf.constant(0.0, dtype), tf.constant(s, dtype)), sample_shape=n) "
            "for s in (1.0, 10.0)]))",
        ),
    ],
    "get_per_weight_prior": [
        (
            "tfd.Sample of a one-weight mixture",
            "    return tf.keras.Sequential([tfpl.DistributionLambda(per_weight_mixture)])\n",
            "    one_weight = tfd.MixtureSameFamily(tfd.Categorical(probs=[0.5, 0.5]),\n"
            "                                       tfd.Normal(tf.zeros(2, dtype), tf.constant([1.0, 10.0], dtype)))\n"
            "    return tf.keras.Sequential([tfpl.DistributionLambda(lambda t: tfd.Sample(one_weight, sample_shape=n))])\n",
        ),
        (
            "tfd.Mixture of two normals per weight, Independent",
            "tfpl.DistributionLambda(per_weight_mixture)",
            "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Mixture(\n"
            "        cat=tfd.Categorical(probs=tf.fill([n, 2], 0.5)),\n"
            "        components=[tfd.Normal(loc=tf.zeros(n, dtype), scale=tf.fill([n], tf.constant(s, dtype)))\n"
            "                    for s in (1.0, 10.0)]), reinterpreted_batch_ndims=1))",
        ),
        (
            "a fixed variable layer for the locations, equal logits",
            "    return tf.keras.Sequential([tfpl.DistributionLambda(per_weight_mixture)])\n",
            "    return tf.keras.Sequential([\n"
            "        tfpl.VariableLayer(n, dtype=dtype, trainable=False),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.MixtureSameFamily(\n"
            "            mixture_distribution=tfd.Categorical(logits=tf.zeros([n, 2])),\n"
            "            components_distribution=tfd.Normal(loc=tf.stack([t, t], axis=-1),\n"
            "                                               scale=tf.constant([1.0, 10.0], dtype))), 1)),\n"
            "    ])\n",
        ),
    ],
    "get_posterior": [
        (
            "a distribution layer of its own, softplus scales",
            POSTERIOR_BODY,
            "    return tf.keras.Sequential([\n"
            "        tfpl.VariableLayer(2 * n, dtype=dtype),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.Independent(\n"
            "            tfd.Normal(loc=t[..., :n], scale=1e-5 + tf.nn.softplus(t[..., n:])), reinterpreted_batch_ndims=1)),\n"
            "    ])\n",
        ),
        (
            "MultivariateNormalDiag",
            POSTERIOR_BODY,
            "    return tf.keras.Sequential([\n"
            "        tfpl.VariableLayer(2 * n, dtype=dtype),\n"
            "        tfpl.DistributionLambda(lambda t: tfd.MultivariateNormalDiag(\n"
            "            loc=t[:n], scale_diag=tf.math.softplus(t[n:]))),\n"
            "    ])\n",
        ),
        ("2n parameters written out", "tfpl.IndependentNormal.params_size(n)", "2 * n"),
        (
            "the original course's idiom: Sequential",
            POSTERIOR_BODY,
            "    return Sequential([\n"
            "        tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n"
            "        tfpl.IndependentNormal(n)\n"
            "    ])\n",
        ),
        (
            "event shape as a list",
            POSTERIOR_BODY,
            "    return tf.keras.Sequential([\n"
            "        tfpl.VariableLayer(tfpl.IndependentNormal.params_size([n]), dtype=dtype),\n"
            "        tfpl.IndependentNormal(event_shape=[n]),\n"
            "    ])\n",
        ),
        (
            "random initial means",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype)",
            "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype,\n"
            "                           initializer=tf.keras.initializers.RandomNormal(stddev=0.1))",
        ),
    ],
    "get_dense_variational_layer": [
        ("ten units", "units=tfpl.OneHotCategorical.params_size(10)", "units=10"),
        (
            "the original course's idiom (kl_use_exact left at its default, False)",
            DENSE_VARIATIONAL_BODY,
            "    return tfpl.DenseVariational(units=10, make_posterior_fn=posterior_fn,\n"
            "                                 make_prior_fn=prior_fn, kl_weight=kl_weight)\n",
        ),
        (
            "positional arguments",
            DENSE_VARIATIONAL_BODY,
            "    return tfpl.DenseVariational(10, posterior_fn, prior_fn, kl_weight, False)\n",
        ),
        ("linear activation written out", "kl_use_exact=False,", 'kl_use_exact=False, activation="linear",'),
    ],
    "mc_entropy_decomposition": [
        (
            "scipy entropy, probs_parameter",
            "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])",
            "import scipy.stats\n"
            "    sampled_probs = np.stack([model(x).probs_parameter().numpy() for _ in range(num_samples)])\n"
            "    entropy_bits = lambda p: scipy.stats.entropy(p, base=2, axis=-1)",
        ),
        (
            "TensorFlow, xlogy, float32",
            ENTROPY_BODY,
            "    sampled_probs = tf.stack([tf.convert_to_tensor(model(x).mean()) for _ in range(num_samples)])\n"
            "    entropy_bits = lambda p: -tf.reduce_sum(tf.math.xlogy(p, p), axis=-1) / tf.math.log(2.0)\n"
            "    probs = tf.reduce_mean(sampled_probs, axis=0)\n"
            "    total = entropy_bits(probs)\n"
            "    aleatoric = tf.reduce_mean(entropy_bits(sampled_probs), axis=0)\n"
            "    return probs.numpy(), total.numpy(), aleatoric.numpy(), (total - aleatoric).numpy()\n",
        ),
        (
            "a loop with running sums and the distributions' own entropy",
            ENTROPY_BODY,
            "    probs_sum, entropy_sum = 0.0, 0.0\n"
            "    for _ in range(num_samples):\n"
            "        prediction = model(x)\n"
            "        probs_sum += prediction.mean().numpy()\n"
            "        entropy_sum += prediction.entropy().numpy() / np.log(2)\n"
            "    probs = probs_sum / num_samples\n"
            "    total = tfd.Categorical(probs=probs).entropy().numpy() / np.log(2)\n"
            "    aleatoric = entropy_sum / num_samples\n"
            "    return probs, total, aleatoric, total - aleatoric\n",
        ),
        (
            "np.errstate and nansum, float32",
            ENTROPY_BODY,
            "    sampled_probs = np.array([model(x).mean() for _ in range(num_samples)])\n"
            "\n"
            "    def entropy_bits(p):\n"
            '        with np.errstate(divide="ignore", invalid="ignore"):\n'
            "            return -np.nansum(p * np.log2(p), axis=-1)\n"
            "\n"
            "    probs = np.mean(sampled_probs, axis=0)\n"
            "    total = entropy_bits(probs)\n"
            "    aleatoric = np.mean(entropy_bits(sampled_probs), axis=0)\n"
            "    return (probs, total, aleatoric, total - aleatoric)\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.bayesian_cnn (check-tests counts
# the killed mutants whose failure names it).
_MODEL = {
    "16 filters": "filters",
    "SAME padding": "padding",
    "loss ignored": "loss_ignored",
    "metrics ignored": "metrics_ignored",
    "input shape ignored": "input_shape_ignored",
    "no input shape": "no_input_shape",
}
DIAGNOSES = {
    "get_deterministic_model": {
        **_MODEL,
        "3x3 kernel": "kernel_size",
        "2x2 pool": "pool_size",
        "no softmax": "no_softmax",
        "tanh convolution": "convolution_activation",
        "optimizer ignored": "optimizer_ignored",
    },
    "nll": {
        "size-1 axes squeezed away": "size_one_axes_lost",
        "sign error": "log_likelihood",
        "mean over the batch": "mean_over_batch",
        "bits instead of nats": "bits",
        "not differentiable": "not_differentiable",
        "NumPy array, not a tensor": "not_a_tensor",
        "probability not log": "probability_not_log",
        "ten classes hard-coded": "classes_hard_coded",
        "cross-entropy of the probabilities": "nan_when_confident",
        "the formula on the probabilities, with xlogy": "nan_when_confident",
    },
    "get_probabilistic_model": {
        **_MODEL,
        "the notebook's nll, not the loss given": "loss_ignored",
        "softmax before the distribution": "softmax_before_distribution",
        "tensor is a sample": "tensor_not_the_mode",
        "tensor is the mean": "tensor_not_the_mode",
    },
    "get_convolutional_reparameterization_layer": {
        "default (point-mass) bias posterior": "point_mass_bias",
        "point-mass kernel posterior": "point_mass_kernel",
        "no bias divergence": "no_bias_divergence",
        "trainable kernel prior": "trainable_prior",
        "SAME padding": "padding",
        "no activation": "no_activation",
        "16 filters": "filters",
        "input shape ignored": "input_shape_ignored",
        "no input shape": "no_input_shape",
    },
    "get_prior": {
        "bias weights left out": "bias_left_out",
        "ten bias weights hard-coded": "bias_size_hard_coded",
        "standard normal only": "standard_normal",
        "slab variance 10 not std 10": "slab_scale_as_variance",
        "unequal mixture": "unequal_weights",
        "trainable prior": "trainable_prior",
        "slab std 100 (the variance as its scale)": "slab_scale_as_variance",
        "a mixture for every weight": "per_weight_mixture",
    },
    "get_per_weight_prior": {
        "the whole-vector mixture (the original's spike_and_slab)": "vector_mixture",
        "no Independent: a batch of one-weight mixtures": "batch_not_event",
        "standard normal only": "standard_normal",
        "slab variance 10 not std 10": "slab_scale_as_variance",
        "unequal mixture": "unequal_weights",
        "bias weights left out": "bias_left_out",
        "trainable prior": "trainable_prior",
        "slab std 100 (the variance as its scale)": "slab_scale_as_variance",
    },
    "get_posterior": {
        "one parameter per weight": "one_parameter_per_weight",
        "not trainable": "not_trainable",
        "full covariance": "full_covariance",
        "bias weights left out": "bias_left_out",
        "ten bias weights hard-coded": "bias_size_hard_coded",
        "dtype ignored": "dtype_ignored",
        "scales not made positive": "scales_not_positive",
        "scales computed from the means": "scales_from_means",
    },
    "get_dense_variational_layer": {
        "exact KL": "exact_kl",
        "KL weight ignored": "kl_weight_ignored",
        "no KL weight": "kl_weight_ignored",
        "twice the units": "units",
        "prior and posterior swapped": "prior_and_posterior_swapped",
        "posterior as its own prior": "posterior_as_prior",
        "softmax activation": "activation",
        "ReLU activation": "activation",
    },
    "mc_entropy_decomposition": {
        "size-1 axes squeezed away": "size_one_axes_lost",
        "nats instead of bits": "nats",
        "one weight sample reused": "one_call",
        "aleatoric and epistemic swapped": "aleatoric_and_epistemic_swapped",
        "aleatoric is the entropy of the mean": "aleatoric_is_entropy_of_mean",
        "unsafe at p = 0": "nan_at_zero",
        "warns at p = 0": "warns_at_zero",
        "mean over the wrong axis": "wrong_axis",
        "ten classes hard-coded": "classes_hard_coded",
        "tensors, not NumPy arrays": "not_numpy",
        "probs a tensor": "not_numpy",
        "x ignored for the notebook's x_test": "inputs_ignored",
        "num_samples ignored for the notebook's num_mc_samples": "num_samples_ignored",
    },
}
