"""Wrong answers the Bayesian CNN assignment's tests must catch.

Each mutant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``. ``old`` must occur exactly once in that cell, so a
mutant that no longer matches the reference fails loudly instead of silently
testing the reference.
"""

MUTANTS = {
    "get_deterministic_model": [
        ("16 filters", "filters=8", "filters=16"),
        ("3x3 kernel", "kernel_size=(5, 5)", "kernel_size=(3, 3)"),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("2x2 pool", "pool_size=(6, 6)", "pool_size=(2, 2)"),
        ("no softmax", 'units=10, activation="softmax"', "units=10"),
        ("tanh convolution", 'activation="relu"', 'activation="tanh"'),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
        ("loss ignored", "loss=loss,", 'loss="sparse_categorical_crossentropy",'),
        ("metrics ignored", "metrics=metrics", 'metrics=["accuracy"]'),
        ("optimizer ignored", "optimizer=optimizer,", 'optimizer="rmsprop",'),
    ],
    "nll": [
        ("sign error", "return -y_pred.log_prob(y_true)", "return y_pred.log_prob(y_true)"),
        ("mean over the batch", "return -y_pred.log_prob(y_true)",
         "return -tf.reduce_mean(y_pred.log_prob(y_true))"),
        ("bits instead of nats", "return -y_pred.log_prob(y_true)",
         "return -y_pred.log_prob(y_true) / np.log(2.0)"),
        ("not differentiable", "return -y_pred.log_prob(y_true)",
         "return tf.constant(-y_pred.log_prob(y_true).numpy())"),
        ("probability not log", "return -y_pred.log_prob(y_true)",
         "return 1 - y_pred.prob(y_true)"),
    ],
    "get_probabilistic_model": [
        ("softmax before the distribution", "tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10))",
         'tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10), activation="softmax")'),
        ("tensor is a sample", "tfpl.OneHotCategorical(10, convert_to_tensor_fn=tfd.Distribution.mode)",
         "tfpl.OneHotCategorical(10)"),
        ("tensor is the mean", "convert_to_tensor_fn=tfd.Distribution.mode",
         "convert_to_tensor_fn=tfd.Distribution.mean"),
        ("16 filters", "filters=8", "filters=16"),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("loss ignored", "loss=loss,", 'loss="categorical_crossentropy",'),
        ("metrics ignored", "metrics=metrics", 'metrics=["accuracy"]'),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
    ],
    "get_convolutional_reparameterization_layer": [
        ("default (point-mass) bias posterior",
         "bias_posterior_fn=tfpl.default_mean_field_normal_fn(is_singular=False),", ""),
        ("no bias divergence", "bias_divergence_fn=divergence_fn,", ""),
        ("trainable kernel prior", "kernel_prior_fn=tfpl.default_multivariate_normal_fn",
         "kernel_prior_fn=tfpl.default_mean_field_normal_fn(is_singular=False)"),
        ("SAME padding", 'padding="VALID"', 'padding="SAME"'),
        ("no activation", 'activation="relu", ', ""),
        ("16 filters", "filters=8", "filters=16"),
        ("input shape ignored", "input_shape=input_shape", "input_shape=(28, 28, 1)"),
    ],
    "get_prior": [
        ("bias weights left out", "n = kernel_size + bias_size", "n = kernel_size"),
        ("standard normal only", "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
         "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(tf.zeros(n), 1.0), 1))"),
        ("slab variance 10 not std 10", "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
         "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), "
         "components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in (1.0, 10.0 ** 0.5)]))"),
        ("unequal mixture", "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
         "tfpl.DistributionLambda(lambda t: tfd.Mixture(cat=tfd.Categorical(probs=[0.2, 0.8]), "
         "components=[tfd.Independent(tfd.Normal(tf.zeros(n), s), 1) for s in (1.0, 10.0)]))"),
        ("trainable prior", "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype)),",
         "tfpl.VariableLayer(n, dtype=dtype), "
         "tfpl.DistributionLambda(lambda t: tfd.Independent(tfd.Normal(t, 1.0), 1)),"),
    ],
    "get_posterior": [
        ("one parameter per weight", "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype)",
         "tfpl.VariableLayer(n, dtype=dtype)"),
        ("not trainable", "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype)",
         "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype, trainable=False)"),
        ("full covariance", "tfpl.VariableLayer(tfpl.IndependentNormal.params_size(n), dtype=dtype),\n"
                            "        tfpl.IndependentNormal(n),",
         "tfpl.VariableLayer(tfpl.MultivariateNormalTriL.params_size(n), dtype=dtype),\n"
         "        tfpl.MultivariateNormalTriL(n),"),
        ("bias weights left out", "n = kernel_size + bias_size", "n = kernel_size"),
    ],
    "get_dense_variational_layer": [
        ("exact KL", "kl_use_exact=False", "kl_use_exact=True"),
        ("KL weight ignored", "kl_weight=kl_weight", "kl_weight=1 / 60000"),
        ("no KL weight", "kl_weight=kl_weight,", ""),
        ("twice the units", "units=tfpl.OneHotCategorical.params_size(10)", "units=20"),
        ("prior and posterior swapped",
         "make_posterior_fn=posterior_fn,\n        make_prior_fn=prior_fn,",
         "make_posterior_fn=prior_fn,\n        make_prior_fn=posterior_fn,"),
    ],
    "mc_entropy_decomposition": [
        ("nats instead of bits", "p * np.log2(np.where(p > 0, p, 1.0))",
         "p * np.log(np.where(p > 0, p, 1.0))"),
        ("one weight sample reused", "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) "
                                     "for _ in range(num_samples)])",
         "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64)] * num_samples)"),
        ("aleatoric and epistemic swapped", "    return probs, total, aleatoric, epistemic",
         "    return probs, total, epistemic, aleatoric"),
        ("aleatoric is the entropy of the mean", "aleatoric = entropy_bits(sampled_probs).mean(axis=0)",
         "aleatoric = entropy_bits(probs)"),
        ("unsafe at p = 0", "-np.sum(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0), axis=-1)",
         "-np.sum(p * np.log2(p), axis=-1)"),
        ("mean over the wrong axis", "probs = sampled_probs.mean(axis=0)",
         "probs = sampled_probs.mean(axis=1)"),
    ],
}

# Other correct answers a student may write: the tests must pass them all.
ALTERNATIVES = {
    "get_deterministic_model": [
        ("lower-case padding, integer sizes",
         'kernel_size=(5, 5), activation="relu",\n                               padding="VALID"',
         'kernel_size=5, activation="relu",\n                               padding="valid"'),
        ("pool size as integer", "pool_size=(6, 6)", "pool_size=6"),
        ("tf.nn.softmax output", 'units=10, activation="softmax"', "units=10, activation=tf.nn.softmax"),
        ("Keras relu function", 'activation="relu"', "activation=tf.keras.activations.relu"),
        ("the original course's idiom: its imported names, positional arguments",
         "    model = tf.keras.Sequential([\n"
         "        tf.keras.layers.Conv2D(filters=8, kernel_size=(5, 5), activation=\"relu\",\n"
         "                               padding=\"VALID\", input_shape=input_shape),\n"
         "        tf.keras.layers.MaxPooling2D(pool_size=(6, 6)),\n"
         "        tf.keras.layers.Flatten(),\n"
         "        tf.keras.layers.Dense(units=10, activation=\"softmax\"),\n"
         "    ])\n",
         "    model = Sequential([\n"
         "        Conv2D(8, (5, 5), activation='relu', padding='VALID', input_shape=input_shape),\n"
         "        MaxPooling2D((6, 6)),\n"
         "        Flatten(),\n"
         "        Dense(10, activation='softmax')\n"
         "    ])\n"),
    ],
    "nll": [
        ("cross-entropy of the probabilities", "return -y_pred.log_prob(y_true)",
         "return -tf.reduce_sum(y_true * tf.math.log(y_pred.mean()), axis=-1)"),
        ("cross-entropy of the logits", "return -y_pred.log_prob(y_true)",
         "return tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred.logits_parameter())"),
    ],
    "get_probabilistic_model": [
        ("ten units, linear activation", "tf.keras.layers.Dense(tfpl.OneHotCategorical.params_size(10))",
         'tf.keras.layers.Dense(10, activation="linear")'),
        ("tf.nn.relu convolution", 'activation="relu"', "activation=tf.nn.relu"),
    ],
    "get_convolutional_reparameterization_layer": [
        ("tf.nn.relu", 'activation="relu"', "activation=tf.nn.relu"),
    ],
    "get_prior": [
        ("MixtureSameFamily", "tfpl.DistributionLambda(lambda t: spike_and_slab(n, dtype))",
         "tfpl.DistributionLambda(lambda t: tfd.MixtureSameFamily("
         "mixture_distribution=tfd.Categorical(probs=[0.5, 0.5]), "
         "components_distribution=tfd.Independent(tfd.Normal("
         "loc=tf.zeros([2, n], dtype=dtype), scale=tf.constant([[1.0], [10.0]], dtype=dtype) * "
         "tf.ones([2, n], dtype=dtype)), 1)))"),
    ],
    "get_posterior": [
        ("2n parameters written out", "tfpl.IndependentNormal.params_size(n)", "2 * n"),
    ],
    "get_dense_variational_layer": [
        ("ten units", "units=tfpl.OneHotCategorical.params_size(10)", "units=10"),
    ],
    "mc_entropy_decomposition": [
        ("scipy entropy, probs_parameter",
         "sampled_probs = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])",
         "import scipy.stats\n"
         "    sampled_probs = np.stack([model(x).probs_parameter().numpy() for _ in range(num_samples)])\n"
         "    entropy_bits = lambda p: scipy.stats.entropy(p, base=2, axis=-1)"),
    ],
}
