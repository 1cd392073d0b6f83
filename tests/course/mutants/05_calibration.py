"""Wrong answers the calibration assignment's tests must catch, and correct
alternatives they must pass.

Each variant is (name, old, new): the reference solution cell with ``old``
replaced by ``new``; ``old`` must occur exactly once in that cell.
"""

MC_DROPOUT_BODY = (
    "    total = 0.0\n"
    "    for _ in range(num_passes):\n"
    "        logits = model(x, training=True)  # a new dropout mask on every pass\n"
    "        total += tf.nn.softmax(logits).numpy().astype(np.float64)\n"
    "    return total / num_passes\n"
)

MUTANTS = {
    "reliability_bins": [
        (
            "bins by label instead of confidence",
            "bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)",
            "bins = np.clip(labels, 0, num_bins - 1)",
        ),
        (
            "confidence of the true class",
            "confidence = probs.max(axis=1)",
            "confidence = probs[np.arange(len(labels)), labels]",
        ),
        (
            "share instead of count",
            "return bin_accuracy, bin_confidence, count",
            "return bin_accuracy, bin_confidence, count / count.sum()",
        ),
        ("nan in empty bins", "safe = np.maximum(count, 1)", "safe = count"),
        ("one bin too few", "np.ceil(confidence * num_bins)", "np.ceil(confidence * (num_bins - 1))"),
        (
            "overall accuracy in every bin",
            "bin_accuracy = np.bincount(bins, weights=correct, minlength=num_bins) / safe",
            "bin_accuracy = np.where(count > 0, correct.mean(), 0.0)",
        ),
        # Right while some point falls into the top bin; short when the top bins are empty.
        (
            "counts without minlength",
            "count = np.bincount(bins, minlength=num_bins).astype(np.float64)",
            "count = np.bincount(bins).astype(np.float64)",
        ),
        (
            "tensors instead of NumPy arrays",
            "return bin_accuracy, bin_confidence, count",
            "return tf.constant(bin_accuracy), tf.constant(bin_confidence), tf.constant(count)",
        ),
        (
            "num_bins ignored (always the notebook's 15)",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    num_bins = 15\n    probs = np.asarray(probs, dtype=np.float64)\n",
        ),
        # Right unless the largest probabilities tie: then every tied class counts as the prediction.
        (
            "right when the true class's probability is the largest",
            "correct = (probs.argmax(axis=1) == labels).astype(np.float64)",
            "correct = (probs[np.arange(len(labels)), labels] == confidence).astype(np.float64)",
        ),
    ],
    "expected_calibration_error": [
        (
            "unweighted bin average",
            "return float(np.sum(np.where(count > 0, gap, 0.0)) / len(labels))",
            "return float(np.mean((gap / np.maximum(count, 1))[count > 0]))",
        ),
        (
            "bins by label instead of confidence",
            "bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)",
            "bins = np.clip(labels, 0, num_bins - 1)",
        ),
        (
            "confidence of the true class",
            "confidence = probs.max(axis=1)",
            "confidence = probs[np.arange(len(labels)), labels]",
        ),
        ("signed gaps", "gap = np.abs(np.bincount(", "gap = (np.bincount("),
        (
            "signed gaps, confidence minus accuracy",
            "gap = np.abs(np.bincount(bins, weights=correct - confidence,",
            "gap = (np.bincount(bins, weights=confidence - correct,",
        ),
        (
            "one bin for all points",
            "bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)",
            "bins = np.zeros(len(labels), dtype=int)",
        ),
        (
            "num_bins ignored (always the notebook's 15)",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    num_bins = 15\n    probs = np.asarray(probs, dtype=np.float64)\n",
        ),
        # Right whenever num_bins is given: the default is Guo et al.'s 15.
        (
            "default of 10 bins",
            "def expected_calibration_error(probs, labels, num_bins=15):",
            "def expected_calibration_error(probs, labels, num_bins=10):",
        ),
        (
            "a NumPy float32, not a Python float",
            "return float(np.sum(np.where(count > 0, gap, 0.0)) / len(labels))",
            "return np.float32(np.sum(np.where(count > 0, gap, 0.0)) / len(labels))",
        ),
        (
            "through reliability_bins, its sum returned as it comes",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)\n"
            "    return np.sum(count / np.sum(count) * np.abs(accuracy - confidence))\n"
            "    probs = np.asarray(probs, dtype=np.float64)\n",
        ),
        # Right unless the largest probabilities tie: then every tied class counts as the prediction.
        (
            "right when the true class's probability is the largest",
            "correct = (probs.argmax(axis=1) == labels).astype(np.float64)",
            "correct = (probs[np.arange(len(labels)), labels] >= confidence).astype(np.float64)",
        ),
    ],
    "fit_temperature": [
        (
            "temperature multiplies the logits",
            "logits=logits / tf.exp(log_temperature)",
            "logits=logits * tf.exp(log_temperature)",
        ),
        ("returns log T", "return float(tf.exp(log_temperature))", "return float(log_temperature)"),
        (
            "maximises the NLL",
            "optimizer.apply_gradients([(tape.gradient(nll, log_temperature), log_temperature)])",
            "optimizer.apply_gradients([(-tape.gradient(nll, log_temperature), log_temperature)])",
        ),
        ("too few steps", "for _ in range(400):", "for _ in range(10):"),
        (
            "softmax applied twice",
            "logits = tf.constant(logits, dtype=tf.float32)",
            "logits = tf.nn.softmax(tf.constant(logits, dtype=tf.float32))",
        ),
        ("a tensor, not a Python float", "return float(tf.exp(log_temperature))", "return tf.exp(log_temperature)"),
        # Right temperature (a shift per row leaves the softmax alone), but the caller's array changes.
        (
            "shifts the caller's logits in place",
            "    logits = tf.constant(logits, dtype=tf.float32)\n",
            "    logits -= logits.max(axis=1, keepdims=True)\n    logits = tf.constant(logits, dtype=tf.float32)\n",
        ),
        # Right from 0.5 up, but log T is kept above log 0.3 "for safety": the fit stops there when the best
        # temperature is lower, which the task's range (0.2 to 10) allows.
        (
            "log T clipped below at log 0.3",
            "log_temperature = tf.Variable(0.0)",
            "log_temperature = tf.Variable(\n"
            "        0.0, constraint=lambda t: tf.clip_by_value(t, np.log(0.3), np.log(30.0)))",
        ),
        # The inverse temperature multiplies the logits, with Adam's small steps: from 1 it needs many more of
        # them to reach 1 / T = 5 than the 400 it gets, so at a temperature of 0.2 it stops far off (near 0.28).
        (
            "inverse temperature by small Adam steps",
            "    log_temperature = tf.Variable(0.0)  # T = exp(log T) stays positive\n"
            "    optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)\n"
            "\n"
            "    @tf.function\n"
            "    def step():\n"
            "        with tf.GradientTape() as tape:\n"
            "            nll = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(\n"
            "                labels=labels, logits=logits / tf.exp(log_temperature)))\n"
            "        optimizer.apply_gradients([(tape.gradient(nll, log_temperature), log_temperature)])\n"
            "\n"
            "    for _ in range(400):\n"
            "        step()\n"
            "    return float(tf.exp(log_temperature))\n",
            "    inverse = tf.Variable(1.0)  # 1 / T\n"
            "    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)\n"
            "\n"
            "    @tf.function\n"
            "    def step():\n"
            "        with tf.GradientTape() as tape:\n"
            "            nll = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(\n"
            "                labels=labels, logits=logits * inverse))\n"
            "        optimizer.apply_gradients([(tape.gradient(nll, inverse), inverse)])\n"
            "\n"
            "    for _ in range(400):\n"
            "        step()\n"
            "    return float(1.0 / inverse)\n",
        ),
    ],
    "planar_flow": [
        ("size-1 axes squeezed away", "return f_z, log_det", "return tf.squeeze(f_z), tf.squeeze(log_det)"),
        (
            "missing u_hat correction",
            "u_hat = u + (-1.0 + tf.math.softplus(w_dot_u) - w_dot_u) * w / tf.reduce_sum(w * w)",
            "u_hat = u",
        ),
        (
            "log-det without abs",
            "log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))",
            "log_det = tf.math.log(1.0 + tf.linalg.matvec(psi, u_hat))",
        ),
        (
            "m(x) without the -1",
            "(-1.0 + tf.math.softplus(w_dot_u) - w_dot_u)",
            "(tf.math.softplus(w_dot_u) - w_dot_u)",
        ),
        ("divides by |w| instead of |w|^2", "w / tf.reduce_sum(w * w)", "w / tf.norm(w)"),
        ("derivative of tanh taken as 1 - tanh", "psi = (1.0 - tf.square(activation))", "psi = (1.0 - activation)"),
        (
            "log-det with u instead of u_hat",
            "log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))",
            "log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u)))",
        ),
        (
            "two dimensions hard-coded",
            "activation = tf.tanh(tf.linalg.matvec(z, w) + b)",
            "activation = tf.tanh(z[:, 0] * w[0] + z[:, 1] * w[1] + b)",
        ),
        (
            "u and w swapped",
            "    w_dot_u = tf.reduce_sum(w * u)\n",
            "    u, w = w, u\n    w_dot_u = tf.reduce_sum(w * u)\n",
        ),
        # The formula as written: exp(w.u) overflows float32 from w.u = 89, and u_hat, f(z) and log_det are inf or nan.
        ("softplus as log(1 + exp(x))", "tf.math.softplus(w_dot_u)", "tf.math.log(1.0 + tf.exp(w_dot_u))"),
        # The forward values are right, but the gradient of the branch tf.where does not take is inf * 0 = nan.
        (
            "softplus by tf.where, nan gradients for a large w.u",
            "tf.math.softplus(w_dot_u)",
            "tf.where(w_dot_u > 20.0, w_dot_u, tf.math.log1p(tf.exp(w_dot_u)))",
        ),
    ],
    "mc_dropout_predict": [
        ("dropout off", "logits = model(x, training=True)", "logits = model(x)"),
        (
            "softmax of the mean logits",
            "        total += tf.nn.softmax(logits).numpy().astype(np.float64)\n    return total / num_passes",
            "        total += np.asarray(logits, np.float64)\n    return tf.nn.softmax(total / num_passes).numpy()",
        ),
        (
            "mean of the logits, no softmax",
            "tf.nn.softmax(logits).numpy().astype(np.float64)",
            "np.asarray(logits, np.float64)",
        ),
        ("sum over the passes, not the mean", "return total / num_passes", "return total"),
        (
            "the last pass only",
            "        total += tf.nn.softmax(logits).numpy().astype(np.float64)\n    return total / num_passes",
            "        total = tf.nn.softmax(logits).numpy().astype(np.float64)\n    return total",
        ),
        ("a tensor, not a NumPy array", "return total / num_passes", "return tf.constant(total / num_passes)"),
        ("one pass too few", "range(num_passes)", "range(max(num_passes - 1, 1))"),
    ],
}

ALTERNATIVES = {
    "reliability_bins": [
        # Divides by zero in empty bins: NumPy warns, and a warning costs no points.
        (
            "np.where over a division that warns",
            "    safe = np.maximum(count, 1)  # empty bins: 0 / 1 = 0, not nan\n"
            "    bin_accuracy = np.bincount(bins, weights=correct, minlength=num_bins) / safe\n"
            "    bin_confidence = np.bincount(bins, weights=confidence, minlength=num_bins) / safe\n",
            "    bin_accuracy = np.where(count > 0, np.bincount(bins, weights=correct, minlength=num_bins) / count, 0)\n"
            "    bin_confidence = np.where(count > 0, np.bincount(bins, weights=confidence, minlength=num_bins) / count, 0)\n",
        ),
        (
            "a loop over (lower, upper] bins",
            "    count = np.bincount(bins, minlength=num_bins).astype(np.float64)\n"
            "    safe = np.maximum(count, 1)  # empty bins: 0 / 1 = 0, not nan\n"
            "    bin_accuracy = np.bincount(bins, weights=correct, minlength=num_bins) / safe\n"
            "    bin_confidence = np.bincount(bins, weights=confidence, minlength=num_bins) / safe\n",
            "    edges = np.linspace(0.0, 1.0, num_bins + 1)\n"
            "    count, bin_accuracy, bin_confidence = np.zeros((3, num_bins))\n"
            "    for m in range(num_bins):\n"
            "        inside = (confidence > edges[m]) & (confidence <= edges[m + 1])\n"
            "        if m == 0:\n"
            "            inside |= confidence == 0\n"
            "        count[m] = inside.sum()\n"
            "        if count[m]:\n"
            "            bin_accuracy[m], bin_confidence[m] = correct[inside].mean(), confidence[inside].mean()\n",
        ),
        (
            "TensorFlow's [lower, upper) bins",
            "bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)",
            "bins = tf.histogram_fixed_width_bins(confidence, tf.constant([0.0, 1.0], tf.float64), nbins=num_bins).numpy()",
        ),
        (
            "np.digitize on the inner edges",
            "bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)",
            "bins = np.digitize(confidence, np.linspace(0.0, 1.0, num_bins + 1)[1:-1], right=True)",
        ),
        (
            "the prediction by tf.argmax",
            "correct = (probs.argmax(axis=1) == labels).astype(np.float64)",
            "correct = (tf.argmax(probs, axis=1).numpy() == labels).astype(np.float64)",
        ),
    ],
    "expected_calibration_error": [
        (
            "through reliability_bins",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)\n"
            "    return float(np.sum(count / np.sum(count) * np.abs(accuracy - confidence)))\n"
            "    probs = np.asarray(probs, dtype=np.float64)\n",
        ),
        (
            "tfp.stats on log-probabilities",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    logits = np.log(np.maximum(np.asarray(probs, dtype=np.float64), 1e-30))\n"
            "    return float(tfp.stats.expected_calibration_error(\n"
            "        num_bins, logits=logits.astype(np.float32), labels_true=np.asarray(labels).reshape(-1)))\n",
        ),
        (
            "a loop over (lower, upper] bins",
            "    bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)\n",
            "    edges = np.linspace(0.0, 1.0, num_bins + 1)\n"
            "    ece = 0.0\n"
            "    for lower, upper in zip(edges[:-1], edges[1:]):\n"
            "        inside = (confidence > lower) & (confidence <= upper)\n"
            "        if inside.any():\n"
            "            ece += inside.mean() * abs(correct[inside].mean() - confidence[inside].mean())\n"
            "    return float(ece)\n"
            "    bins = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)\n",
        ),
        (
            "TensorFlow segment sums",
            "    probs = np.asarray(probs, dtype=np.float64)\n",
            "    probs = tf.cast(probs, tf.float64)\n"
            "    labels = tf.cast(tf.reshape(labels, [-1]), tf.int64)\n"
            "    confidence = tf.reduce_max(probs, axis=1)\n"
            "    correct = tf.cast(tf.argmax(probs, axis=1) == labels, tf.float64)\n"
            "    bins = tf.clip_by_value(tf.cast(tf.math.ceil(confidence * num_bins), tf.int32) - 1, 0, num_bins - 1)\n"
            "    gap = tf.abs(tf.math.unsorted_segment_sum(correct - confidence, bins, num_bins))\n"
            "    return float(tf.reduce_sum(gap)) / len(probs)\n"
            "    probs = np.asarray(probs, dtype=np.float64)\n",
        ),
    ],
    "fit_temperature": [
        (
            "grid search over log T",
            "    log_temperature = tf.Variable(0.0)  # T = exp(log T) stays positive\n",
            "    grid = tf.exp(tf.linspace(np.log(0.05), np.log(50.0), 4001)).numpy().astype(np.float32)\n"
            "    nlls = [tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits / float(t))) for t in grid]\n"
            "    return float(grid[int(np.argmin(nlls))])\n"
            "    log_temperature = tf.Variable(0.0)  # T = exp(log T) stays positive\n",
        ),
        (
            "L-BFGS on log T",
            "    log_temperature = tf.Variable(0.0)  # T = exp(log T) stays positive\n",
            "    def value_and_gradient(log_t):\n"
            "        return tfp.math.value_and_gradient(lambda s: tf.reduce_mean(\n"
            "            tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits / tf.exp(s[0]))), log_t)\n"
            "    result = tfp.optimizer.lbfgs_minimize(value_and_gradient, tf.zeros(1), tolerance=1e-10)\n"
            "    return float(tf.exp(result.position[0]))\n"
            "    log_temperature = tf.Variable(0.0)  # T = exp(log T) stays positive\n",
        ),
        (
            "SciPy's bounded scalar minimiser, in NumPy",
            "    logits = tf.constant(logits, dtype=tf.float32)\n",
            "    from scipy.optimize import minimize_scalar\n"
            "    z, y = np.asarray(logits, dtype=np.float64), np.asarray(labels).reshape(-1)\n"
            "    def nll(log_t):\n"
            "        scaled = z / np.exp(log_t)\n"
            "        scaled = scaled - scaled.max(axis=1, keepdims=True)\n"
            "        return np.mean(np.log(np.exp(scaled).sum(axis=1)) - scaled[np.arange(len(y)), y])\n"
            "    result = minimize_scalar(nll, bounds=(np.log(0.01), np.log(100.0)), method='bounded',\n"
            "                             options={'xatol': 1e-6})\n"
            "    return float(np.exp(result.x))\n"
            "    logits = tf.constant(logits, dtype=tf.float32)\n",
        ),
        # d NLL / d log T has the sign of mean(z_y - E_p[z]), which grows with T: bisect on it.
        (
            "bisection on the slope's sign",
            "    logits = tf.constant(logits, dtype=tf.float32)\n",
            "    z, y = np.asarray(logits, dtype=np.float64), np.asarray(labels).reshape(-1)\n"
            "    true_logit = z[np.arange(len(y)), y]\n"
            "    lower, upper = np.log(0.01), np.log(100.0)\n"
            "    for _ in range(60):\n"
            "        middle = (lower + upper) / 2\n"
            "        scaled = z / np.exp(middle)\n"
            "        p = np.exp(scaled - scaled.max(axis=1, keepdims=True))\n"
            "        p = p / p.sum(axis=1, keepdims=True)\n"
            "        if np.mean(true_logit - (p * z).sum(axis=1)) > 0:\n"
            "            upper = middle\n"
            "        else:\n"
            "            lower = middle\n"
            "    return float(np.exp((lower + upper) / 2))\n"
            "    logits = tf.constant(logits, dtype=tf.float32)\n",
        ),
    ],
    "planar_flow": [
        (
            "einsum and log-softplus form",
            "    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))\n",
            '    log_det = tf.math.log(tf.abs(1.0 + tf.einsum("nd,d->n", psi, u_hat)))\n',
        ),
        (
            "tensordot",
            "    activation = tf.tanh(tf.linalg.matvec(z, w) + b)                   # [N]\n",
            "    activation = tf.tanh(tf.tensordot(z, w, axes=1) + b)\n",
        ),
        (
            "explicit broadcasting with expand_dims and matmul",
            "    activation = tf.tanh(tf.linalg.matvec(z, w) + b)                   # [N]\n"
            "    f_z = z + activation[:, None] * u_hat[None, :]\n",
            "    activation = tf.tanh(tf.matmul(z, tf.expand_dims(w, 1))[:, 0] + b)\n"
            "    f_z = z + tf.expand_dims(activation, 1) * tf.expand_dims(u_hat, 0)\n",
        ),
        (
            "the Jacobian built and tf.linalg.slogdet",
            "    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))\n",
            "    jacobian = tf.eye(tf.shape(z)[1])[None] + u_hat[None, :, None] * psi[:, None, :]  # I + u_hat psi^T\n"
            "    log_det = tf.linalg.slogdet(jacobian)[1]\n",
        ),
        (
            "a subclassed Keras layer",
            "def planar_flow(z, u, w, b):\n",
            "class PlanarFlow(tf.keras.layers.Layer):\n"
            "    # The flow's parameters come in as arguments: the layer holds no weights.\n"
            "    def call(self, z, u, w, b):\n"
            "        w_dot_u = tf.tensordot(w, u, axes=1)\n"
            "        u_hat = u + (tf.nn.softplus(w_dot_u) - 1.0 - w_dot_u) * w / tf.norm(w) ** 2\n"
            "        h = tf.tanh(tf.reduce_sum(z * w, axis=1, keepdims=True) + b)\n"
            "        log_det = tf.math.log(tf.abs(1.0 + (1.0 - h[:, 0] ** 2) * tf.tensordot(w, u_hat, axes=1)))\n"
            "        return z + h * u_hat, log_det\n"
            "\n\n"
            "def planar_flow(z, u, w, b):\n"
            "    return PlanarFlow()(z, u, w, b)\n"
            "\n\n"
            "def _unused(z, u, w, b):\n",
        ),
        # Softplus kept finite for a large w.u without tf.math.softplus (its value and its gradient).
        ("softplus as a log-sum-exp", "tf.math.softplus(w_dot_u)", "tf.reduce_logsumexp(tf.stack([0.0, w_dot_u]))"),
        (
            "softplus as relu plus log1p(exp(-|x|))",
            "tf.math.softplus(w_dot_u)",
            "(tf.nn.relu(w_dot_u) + tf.math.log1p(tf.exp(-tf.abs(w_dot_u))))",
        ),
    ],
    "mc_dropout_predict": [
        (
            "stacked passes, tf.reduce_mean",
            MC_DROPOUT_BODY,
            "    passes = [tf.nn.softmax(model(x, training=True), axis=-1) for _ in range(num_passes)]\n"
            "    return tf.reduce_mean(tf.stack(passes), axis=0).numpy()\n",
        ),
        (
            "one call on a tiled batch, reshaped",
            MC_DROPOUT_BODY,
            "    tiled = np.concatenate([x] * num_passes, axis=0)\n"
            "    probs = tf.nn.softmax(model(tiled, training=True)).numpy()\n"
            "    return probs.reshape(num_passes, len(x), -1).mean(axis=0)\n",
        ),
        (
            "NumPy softmax by hand, running mean",
            MC_DROPOUT_BODY,
            "    mean = 0\n"
            "    for t in range(1, num_passes + 1):\n"
            "        logits = np.asarray(model(x, training=True), dtype=np.float64)\n"
            "        e = np.exp(logits - logits.max(axis=1, keepdims=True))\n"
            "        mean = mean + (e / e.sum(axis=1, keepdims=True) - mean) / t\n"
            "    return mean\n",
        ),
        (
            "Keras Softmax layer, np.mean of a list",
            MC_DROPOUT_BODY,
            "    softmax = tf.keras.layers.Softmax()\n"
            "    return np.mean([softmax(model(x, training=True)).numpy() for _ in range(num_passes)], axis=0)\n",
        ),
        # The passes traced into one graph, as a student who compiles for speed writes it.
        (
            "tf.function over the passes",
            MC_DROPOUT_BODY,
            "    @tf.function\n"
            "    def passes(batch):\n"
            "        return tf.stack([tf.nn.softmax(model(batch, training=True)) for _ in range(num_passes)])\n"
            "    return passes(tf.constant(x, tf.float32)).numpy().mean(axis=0)\n",
        ),
    ],
}

# The mistake each mutant makes, by its name in bdl.diagnoses.calibration (check-tests counts
# the killed mutants whose failure names it). The planar flow's log-determinant without abs
# behaves as the right one wherever the map is invertible: no behaviour names it.
DIAGNOSES = {
    "reliability_bins": {
        "bins by label instead of confidence": "binned_by_label",
        "confidence of the true class": "confidence_of_the_true_class",
        "share instead of count": "shares_not_counts",
        "nan in empty bins": "nan_in_empty_bins",
        "one bin too few": "top_bin_unused",
        "overall accuracy in every bin": "overall_accuracy",
        "counts without minlength": "too_short",
        "tensors instead of NumPy arrays": "not_numpy",
        "num_bins ignored (always the notebook's 15)": "num_bins_ignored",
    },
    "expected_calibration_error": {
        "unweighted bin average": "unweighted",
        "bins by label instead of confidence": "binned_by_label",
        "confidence of the true class": "confidence_of_the_true_class",
        "signed gaps": "signed_gaps",
        "signed gaps, confidence minus accuracy": "signed_gaps",
        "one bin for all points": "one_bin",
        "num_bins ignored (always the notebook's 15)": "num_bins_ignored",
        "a NumPy float32, not a Python float": "not_a_float",
        "through reliability_bins, its sum returned as it comes": "not_a_float",
    },
    "fit_temperature": {
        "temperature multiplies the logits": "multiplies",
        "returns log T": "returns_log_temperature",
        "maximises the NLL": "maximises",
        "too few steps": "not_converged",
        "softmax applied twice": "softmax_twice",
        "a tensor, not a Python float": "not_a_float",
        "shifts the caller's logits in place": "changes_the_logits",
    },
    "planar_flow": {
        "size-1 axes squeezed away": "size_one_axes_lost",
        "missing u_hat correction": "u_not_corrected",
        "m(x) without the -1": "m_without_minus_one",
        "divides by |w| instead of |w|^2": "divides_by_the_norm",
        "derivative of tanh taken as 1 - tanh": "log_det_mismatch",
        "log-det with u instead of u_hat": "log_det_mismatch",
        "two dimensions hard-coded": "two_dimensions_hard_coded",
        "u and w swapped": "u_and_w_swapped",
    },
    "mc_dropout_predict": {
        "dropout off": "dropout_off",
        "softmax of the mean logits": "softmax_of_mean_logits",
        "mean of the logits, no softmax": "no_softmax",
        "sum over the passes, not the mean": "sum_not_mean",
        "the last pass only": "one_pass",
        "a tensor, not a NumPy array": "not_numpy",
    },
}
