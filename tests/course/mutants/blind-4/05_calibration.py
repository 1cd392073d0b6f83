"""Blind one-bug answers for 05_calibration, round four, written from the release notebook alone.

Each ANSWERS source is a whole answer cell with exactly one deliberate mistake; each CORRECT source is a
whole answer cell meant to be right on every input the task text allows.
"""

ANSWERS = {
    "reliability_bins": [
        (
            "floor_index_loses_certain_points",
            "Bins by floor(confidence * M): a confidence of exactly 1.0 (a saturated softmax, common for an "
            "over-confident network) gets index M, which np.bincount puts in an extra slot that is then cut "
            "off, so fully confident points vanish from the counts; the visible test's confidences are at "
            "most 0.95 and pass.",
            """def reliability_bins(probs, labels, num_bins=15):
    probs = np.asarray(probs)
    labels = np.asarray(labels)
    confidence = probs.max(axis=1)
    correct = (probs.argmax(axis=1) == labels).astype(np.float64)
    index = np.floor(confidence * num_bins).astype(np.int64)
    count = np.bincount(index, minlength=num_bins + 1)[:num_bins]
    conf_sum = np.bincount(index, weights=confidence, minlength=num_bins + 1)[:num_bins]
    acc_sum = np.bincount(index, weights=correct, minlength=num_bins + 1)[:num_bins]
    safe = np.maximum(count, 1)
    return acc_sum / safe, conf_sum / safe, count
""",
        ),
    ],
    "expected_calibration_error": [
        (
            "signed_gap",
            "Sums the signed gaps conf - acc weighted by the bins' shares instead of their absolute values, so "
            "an over-confident bin and an under-confident bin cancel; the visible test has one bin, "
            "over-confident, and passes.",
            """def expected_calibration_error(probs, labels, num_bins=15):
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    weights = np.asarray(count, dtype=np.float64) / np.sum(count)
    return float(np.sum(weights * (np.asarray(confidence) - np.asarray(accuracy))))
""",
        ),
        (
            "float32_result_not_a_float",
            "Returns np.sum(...) without converting it: np.float64 is a subclass of float, so float64 probs "
            "(the visible test) pass, but float32 probs give an np.float32, which is not a Python float.",
            """def expected_calibration_error(probs, labels, num_bins=15):
    probs = np.asarray(probs)
    accuracy, confidence, count = reliability_bins(probs, labels, num_bins)
    share = (np.asarray(count) / len(probs)).astype(probs.dtype)
    gap = np.abs(np.asarray(accuracy) - np.asarray(confidence)).astype(probs.dtype)
    return np.sum(share * gap)
""",
        ),
    ],
    "fit_temperature": [
        (
            "shifts_logits_in_place",
            "Subtracts each row's maximum from the caller's logits in place (logits -= ...) for numerical "
            "safety; the fitted temperature is right, but the caller's array is changed, which the task "
            "forbids (the notebook reuses it). The visible test passes a fresh product 3.0 * _base and passes.",
            """def fit_temperature(logits, labels):
    logits -= logits.max(axis=1, keepdims=True)
    z = tf.constant(logits, tf.float64)
    y = tf.constant(np.asarray(labels), tf.int64)
    tau = tf.Variable(0.0, dtype=tf.float64)
    optimizer = tf.keras.optimizers.Adam(0.05)
    for _ in range(500):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, z / tf.exp(tau)))
        optimizer.apply_gradients([(tape.gradient(loss, tau), tau)])
    return float(tf.exp(tau))
""",
        ),
        (
            "grid_stops_at_five",
            "Searches the temperature on a grid from 0.5 to 5 only, so any best temperature below 0.5 or above "
            "5 (the task allows 0.2 to 10) is returned as the end of the grid; the visible test's temperature "
            "near 3 passes.",
            """def fit_temperature(logits, labels):
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels)
    best, best_nll = None, np.inf
    for t in np.linspace(0.5, 5.0, 901):
        scaled = z / t
        scaled = scaled - scaled.max(axis=1, keepdims=True)
        log_probs = scaled - np.log(np.exp(scaled).sum(axis=1, keepdims=True))
        value = -log_probs[np.arange(len(y)), y].mean()
        if value < best_nll:
            best, best_nll = t, value
    return float(best)
""",
        ),
    ],
    "planar_flow": [
        (
            "divides_by_norm_not_norm_squared",
            "Corrects u along w / ||w|| instead of w / ||w||^2, so w.u_hat is not m(w.u) (unless ||w|| = 1) "
            "and f(z) and log_det are wrong whenever ||w|| != 1, e.g. the visible inputs w = (1.5, 0.5) checked "
            "against the formula. f and log_det use the same u_hat, so log_det still matches the Jacobian of "
            "this f and the visible test passes (so does the notebook's fixed check, where ||w|| = 1).",
            """def planar_flow(z, u, w, b):
    wu = tf.reduce_sum(w * u)
    u_hat = u + (-1.0 + tf.math.softplus(wu) - wu) * w / tf.norm(w)
    activation = tf.tanh(tf.linalg.matvec(z, w) + b)
    f_z = z + activation[:, None] * u_hat[None, :]
    psi = (1.0 - tf.square(activation))[:, None] * w[None, :]
    log_det = tf.math.log(tf.abs(1.0 + tf.linalg.matvec(psi, u_hat)))
    return f_z, log_det
""",
        ),
        (
            "derivative_of_tanh_forgotten",
            "Writes log_det as log|1 + w.u_hat|, forgetting the factor 1 - tanh^2(w.z + b) in psi(z), so it "
            "is right only where w.z + b = 0; the visible Jacobian check fails.",
            """def planar_flow(z, u, w, b):
    wu = tf.reduce_sum(w * u)
    u_hat = u + (tf.math.softplus(wu) - 1.0 - wu) * w / tf.reduce_sum(w * w)
    f_z = z + tf.tanh(tf.linalg.matvec(z, w) + b)[:, None] * u_hat
    log_det = tf.math.log(tf.abs(1.0 + tf.reduce_sum(w * u_hat))) * tf.ones_like(f_z[:, 0])
    return f_z, log_det
""",
        ),
    ],
}

CORRECT = {
    "reliability_bins": [
        (
            "ceil_index_bincount",
            """def reliability_bins(probs, labels, num_bins=15):
    p = np.asarray(probs, dtype=np.float64)
    confidence = p.max(axis=-1)
    hit = (p.argmax(axis=-1) == np.asarray(labels)).astype(np.float64)
    index = np.clip(np.ceil(confidence * num_bins).astype(np.int64) - 1, 0, num_bins - 1)
    count = np.bincount(index, minlength=num_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(count > 0, np.bincount(index, hit, num_bins) / count, 0.0)
        mean_confidence = np.where(count > 0, np.bincount(index, confidence, num_bins) / count, 0.0)
    return accuracy, mean_confidence, count
""",
        ),
    ],
    "fit_temperature": [
        (
            "bisection_on_inverse_temperature",
            """def fit_temperature(logits, labels):
    z = np.array(logits, dtype=np.float64, copy=True)
    y = np.asarray(labels).astype(np.int64)
    true_logit = z[np.arange(len(y)), y]

    def slope(beta):
        # d/d beta of the mean NLL of softmax(beta z): E_softmax[z] - z_true, increasing in beta (convex NLL).
        s = beta * z
        s = s - s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        return float(np.mean(np.sum(p * z, axis=1) - true_logit))

    lo, hi = np.log(1e-3), np.log(1e3)  # log beta, beta = 1 / T
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if slope(np.exp(mid)) > 0:
            hi = mid
        else:
            lo = mid
    return float(np.exp(-0.5 * (lo + hi)))
""",
        ),
    ],
}
