"""Blind one-bug answers for 05_calibration, round five, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "reliability_bins": [
        (
            "digitize_left_closed_drops_confidence_one",
            "Bins with np.digitize(confidence, edges) - 1, which makes the bins left-closed, [m/M, (m+1)/M), so a "
            "confidence of exactly 1.0 (a one-hot prediction, common for an over-confident network) gets index M "
            "and falls into no bin: it is missing from the counts, accuracies and confidences of the top bin. "
            "Visible asserts pass (no confidence of 1).",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = np.max(probs, axis=1)
    correct = (np.argmax(probs, axis=1) == labels).astype(np.float64)
    edges = np.linspace(0.0, 1.0, num_bins + 1)
    bin_index = np.digitize(confidence, edges) - 1
    accuracy, mean_confidence, count = np.zeros(num_bins), np.zeros(num_bins), np.zeros(num_bins, dtype=int)
    for m in range(num_bins):
        in_bin = bin_index == m
        count[m] = np.sum(in_bin)
        if count[m] > 0:
            accuracy[m] = np.mean(correct[in_bin])
            mean_confidence[m] = np.mean(confidence[in_bin])
    return accuracy, mean_confidence, count
''',
        ),
        (
            "bincount_without_minlength",
            "Counts with np.bincount but without minlength=num_bins, so the arrays stop at the highest occupied "
            "bin: when the top bins are empty (e.g. every confidence below 0.5 with three classes and 3 bins) "
            "the three arrays are shorter than num_bins. Visible asserts pass (their top bin is occupied).",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    confidence = np.max(probs, axis=1).astype(np.float64)
    correct = (np.argmax(probs, axis=1) == labels).astype(np.float64)
    bin_index = np.clip(np.ceil(confidence * num_bins).astype(int) - 1, 0, num_bins - 1)
    count = np.bincount(bin_index)
    safe = np.maximum(count, 1)
    accuracy = np.bincount(bin_index, weights=correct) / safe
    mean_confidence = np.bincount(bin_index, weights=confidence) / safe
    return accuracy, mean_confidence, count
''',
        ),
    ],
    "expected_calibration_error": [
        (
            "unweighted_mean_over_bins",
            "Averages |acc - conf| over the non-empty bins with equal weights instead of weighting each bin by its "
            "share of the points. With all points in one bin (the visible assert) the two agree; with points in "
            "several bins of different sizes, e.g. 9 points at confidence 0.95 (all right) and 1 at 0.6 (wrong), it "
            "gives 0.325 instead of 0.105.",
            '''def expected_calibration_error(probs, labels, num_bins=15):
    """Return the expected calibration error (a float) with num_bins equal-width confidence bins."""
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    occupied = count > 0
    return float(np.mean(np.abs(accuracy[occupied] - confidence[occupied])))
''',
        ),
    ],
    "fit_temperature": [
        (
            "shifts_logits_in_place",
            "Subtracts each row's maximum from the logits in place (logits -= ...) for numerical stability, which "
            "overwrites the caller's array; the notebook uses the validation logits again after the call. The "
            "fitted temperature itself is right. Visible asserts pass.",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    from scipy.optimize import minimize_scalar
    from scipy.special import logsumexp

    logits -= logits.max(axis=1, keepdims=True)
    z = logits.astype(np.float64)
    z_true = z[np.arange(len(labels)), labels]

    def nll(tau):
        t = np.exp(tau)
        return np.mean(logsumexp(z / t, axis=1) - z_true / t)

    result = minimize_scalar(nll, bounds=(np.log(0.01), np.log(100.0)), method="bounded",
                             options={"xatol": 1e-6})
    return float(np.exp(result.x))
''',
        ),
        (
            "adam_200_steps_too_few",
            "Runs 200 Adam steps with learning rate 0.01 on tau = log T from tau = 0. Adam moves tau by about the "
            "learning rate per step (less once the gradient shrinks), so tau moves by at most about 2: T = 3 (the "
            "visible assert) is reached, but T = 10 (tau = 2.30), which the task requires to about 1%, is not (on "
            "logits like the visible test's, ten times too large, it stops near 4), and T = 0.2 comes out about 4% "
            "too high.",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    z = tf.constant(logits, dtype=tf.float64)
    y = tf.constant(labels)
    tau = tf.Variable(0.0, dtype=tf.float64)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    for _ in range(200):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(tau)))
        optimizer.apply_gradients([(tape.gradient(loss, tau), tau)])
    return float(tf.exp(tau))
''',
        ),
    ],
    "planar_flow": [
        (
            "u_instead_of_u_hat",
            "Uses u itself in place of the constrained u_hat, in f(z) and in the log-determinant alike. The two "
            "are consistent with each other, so the visible Jacobian check passes, but f(z) and log_det differ "
            "from the task's flow whenever w.u differs from m(w.u) (always), e.g. for the notebook's check input "
            "(u = [-2, 1], w = [1, 0]) log|det| at z = 0 is log|1 - 2| = 0 instead of log(softplus(-2)) = -2.06, "
            "and the map is not invertible when w.u < -1.",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    h = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + u[None, :] * h[:, None]
    psi = (1.0 - tf.square(h))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u)))
    return f_z, log_det
''',
        ),
    ],
}
CORRECT = {
    "reliability_bins": [
        (
            "bincount_with_ceil_index",
            '''def reliability_bins(probs, labels, num_bins=15):
    """Return (accuracy, confidence, count) per equal-width confidence bin, each of length num_bins."""
    # Bin m holds (m/M, (m+1)/M]: index ceil(c M) - 1, with c = 0 sent to bin 0; weighted bincounts sum
    # each bin's hits and confidences at once.
    probs = np.asarray(probs)
    confidence = probs.max(axis=1).astype(np.float64)
    hit = (probs.argmax(axis=1) == np.asarray(labels)).astype(np.float64)
    index = np.clip(np.ceil(confidence * num_bins).astype(np.int64) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(count > 0, np.bincount(index, weights=hit, minlength=num_bins) / count, 0.0)
        mean_conf = np.where(count > 0, np.bincount(index, weights=confidence, minlength=num_bins) / count, 0.0)
    return accuracy, mean_conf, count
''',
        ),
    ],
    "fit_temperature": [
        (
            "bisection_on_inverse_temperature",
            '''def fit_temperature(logits, labels):
    """Return the temperature T > 0 (a float) that minimises the NLL of softmax(logits / T)."""
    # In beta = 1 / T the NLL, mean(logsumexp(beta z) - beta z_y), is convex: its derivative
    # mean(E_softmax(beta z)[z] - z_y) increases with beta, so bisect it for its zero (in log beta).
    z = np.array(logits, dtype=np.float64)  # a copy: the caller's array is left as it was
    z_true = z[np.arange(len(z)), np.asarray(labels)]

    def slope(beta):
        scaled = beta * z
        scaled -= scaled.max(axis=1, keepdims=True)
        p = np.exp(scaled)
        p /= p.sum(axis=1, keepdims=True)
        return np.mean(np.sum(p * z, axis=1) - z_true)

    low, high = np.log(1e-3), np.log(1e3)
    for _ in range(100):
        middle = 0.5 * (low + high)
        if slope(np.exp(middle)) > 0:
            high = middle
        else:
            low = middle
    return float(np.exp(-0.5 * (low + high)))
''',
        ),
    ],
    "planar_flow": [
        (
            "einsum_closed_form_determinant",
            '''def planar_flow(z, u, w, b):
    """Return (f(z), log|det df/dz|) of the planar flow f(z) = z + u_hat tanh(w.z + b), shapes [N, D] and [N]."""
    w_dot_u = tf.einsum("d,d->", w, u)
    u_hat = u + (tf.math.softplus(w_dot_u) - 1.0 - w_dot_u) * w / tf.einsum("d,d->", w, w)
    h = tf.tanh(tf.einsum("nd,d->n", z, w) + b)
    f_z = z + tf.einsum("n,d->nd", h, u_hat)
    # u_hat . psi(z) = (1 - h^2) (w . u_hat) = (1 - h^2) (softplus(w . u) - 1), so
    # 1 + u_hat . psi(z) = h^2 + (1 - h^2) softplus(w . u) > 0, without a cancellation near -1.
    log_det = tf.math.log(tf.square(h) + (1.0 - tf.square(h)) * tf.math.softplus(w_dot_u))
    return f_z, log_det
''',
        ),
    ],
}
