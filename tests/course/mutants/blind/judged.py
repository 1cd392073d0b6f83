"""The judgement of the blind catalogue: for each wrong answer, the hints (by their names in
``bdl.diagnoses``' tables) that would name the mistake it makes.

Written after the catalogue was frozen (commit 9718cb0) and before any hint was measured on it,
by reading each answer's code and its writer's sentence against the tables' sentences. A hint is
right when what it says is true of the code and sends the student to the fix of the mistake made;
an empty set: no sentence of the tables would be right. Never changed after a measurement.
"""
FROZEN = "9718cb04a15ce9b5fea1d5d9e2b591399abc6306"
# The catalogue as frozen: tests/course/test_blind.py checks that nobody edits it.
FROZEN_SHA256 = {
    "01_likelihoods.py": "594e0b39af4e4a38dc581e4980731fdf25abb358f8d8b6df0c486c7a2dbce435",
    "02_deep_ensembles.py": "c20c24682a4d6eeb742e607298c4517dbc56a90f45580a9bb2e37c2f13189ded",
    "03_bayes_by_backprop.py": "c50518375cb6f94c3cb2e992de310e17b3f9df9c3f90d16b73e984c9e8b18803",
    "04_bayesian_cnn.py": "fe7a579ebc68c67ae5a280aca78ba05d0b951654d159dd3794e9c93db94f99ad",
    "05_calibration.py": "3ac9aad2e0fcb3a57967d6edd83e72d9b54e0f3e69214b21dca666d930952847",
    # 06's, frozen later (commit 3596d1f) and judged the same way before any hint was measured on it
    "06_approximate_posteriors.py": "e74f51cd9ef14cc3d245ada83f16f2ad753a8ed9d99f4e79636556141c4b22a8",
}

RIGHT = {
    "01_likelihoods": {
        "brier_score": {
            "sum over examples": {"sum_over_examples"},
            "mean over all entries": {"mean_over_classes"},
            # the number of classes from the labels: the fix is to take it from the probabilities
            "one-hot depth from labels": {"classes_hard_coded"},
        },
        "gaussian_nll": {
            "no 2pi constant": {"missing_constant"},
            "log variance without half": set(),  # log(scale^2): no sentence says the log term is doubled
            "scale treated as variance": {"scale_as_variance"},
            "sum not mean": {"sum_not_mean"},
        },
        "laplace_nll": {
            "no log 2": {"wrong_constant"},
            "no absolute value": set(),
            "squared error": {"squared_error"},
        },
        "categorical_nll": {
            "log of softmax": {"unstable"},
            "logsumexp over all axes": {"wrong_axis"},  # normalised over the examples as well
            "mean over classes too": set(),
            "logsumexp without max shift": {"unstable"},
        },
        "split_mean_scale": {
            "exp instead of softplus": {"exp_not_softplus"},
            "dropped last axis": {"last_axis_dropped"},
            # NumPy's log1p(exp(.)) also overflows for large outputs, and TensorFlow's softplus mends both
            "numpy softplus": {"unstable_softplus"},
        },
        "fgsm": {
            "gradient not sign": {"gradient_without_sign"},
            "descends the loss": {"sign_flipped"},
        },
        "adversarial_loss": {
            "one call on joined batch": {"joined_batches"},
            "sum without half": {"sum_not_mean"},
            "global epsilon": {"eps_ignored"},
        },
    },
    "02_deep_ensembles": {
        "gaussian_mixture_moments": {
            "returns std": {"standard_deviation"},
            "second moment only": {"missing_squared_mean"},
            "sample variance of means": {"sample_variance"},
            "wrong member axis": {"members_on_last_axis"},
            "scale as variance": {"scale_not_squared"},
        },
        "laplace_mixture_moments": {
            "b squared as variance": {"gaussian_member_variance"},
            "2b not squared": {"linear_member_variance"},
            "spread of means dropped": set(),
        },
        "entropy": {
            "bits not nats": {"bits"},
            "nan at zero": {"nan_at_zero"},
            "sum over first axis": {"wrong_axis"},
        },
        "uncertainty_decomposition": {
            "knowledge sign flipped": {"knowledge_negated"},
            "order of averaging swapped": {"total_is_mean_entropy", "data_is_entropy_of_mean"},
            "averages over inputs": {"wrong_axis"},
        },
    },
    "03_bayes_by_backprop": {
        "bbb_loss_terms": {
            "exp instead of softplus": {"exp_not_softplus"},
            "stop_gradient in log q": {"gradient_stopped"},
            # the variance passed as the scale: a standard deviation and a variance confused
            "noise variance as scale": {"noise_as_variance"},
            "mean log-likelihood": {"mean_over_data"},
            "prior sign in loss": set(),
        },
        "bayesian_dense": {
            "one shared mu initialiser": {"one_initialiser_for_both_means"},
            "noise drawn in build": {"same_noise_every_call"},
            "mean of log densities": set(),
            "bias left out of the densities": {"kernel_only"},
            "numpy noise": {"noise_frozen_when_compiled"},
        },
        "sample_elbo": {
            "sum over samples": {"sum_over_samples"},
            # it does scale the log-likelihood by kl_scale, and the sentence says only the KL is scaled
            "kl_scale on the likelihood": {"log_likelihood_scaled"},
            "one forward pass": {"one_call"},
            "layers read before the call": {"layers_before_the_call"},
        },
        "scale_mixture_log_prob": {
            "densities then log": {"underflows"},
            "weights swapped": {"weights_swapped"},
            "mixing weights outside the log": set(),
            "no normalising constant": set(),
        },
    },
    "04_bayesian_cnn": {
        "get_deterministic_model": {
            "default pool size": {"pool_size"},
            "new optimizer": {"optimizer_ignored"},
            "no softmax": {"no_softmax"},
        },
        "nll": {
            "batch mean": {"mean_over_batch"},
            "numpy log": {"not_a_tensor", "not_differentiable"},
            "log-likelihood sign": {"log_likelihood"},
        },
        "get_probabilistic_model": {
            "softmax before the distribution": {"softmax_before_distribution"},
            "sample not mode": {"tensor_not_the_mode"},
        },
        "get_convolutional_reparameterization_layer": {
            # the bias keeps the default point mass and gets no divergence: both are what it does
            "bias left deterministic": {"point_mass_bias", "no_bias_divergence"},
            "bias divergence unscaled": {"no_bias_divergence"},
            "SAME padding": {"padding"},
        },
        "get_prior": {
            "kernel weights only": {"bias_left_out"},
            "standard normal prior": {"standard_normal"},
        },
        "get_posterior": {
            "n variables, not params_size": {"one_parameter_per_weight"},
        },
        "get_dense_variational_layer": {
            "exact KL": {"exact_kl"},
            "kl_weight not passed": {"kl_weight_ignored"},
        },
        "mc_entropy_decomposition": {
            "nats not bits": {"nats"},
            # its aleatoric part is the entropy of the mean (and its total the mean entropy)
            "aleatoric and total swapped": {"aleatoric_is_entropy_of_mean"},
            "one weight sample": {"one_call"},
            "tensors returned": {"not_numpy"},
        },
    },
    "05_calibration": {
        "reliability_bins": {
            "floor binning without clip": set(),  # a confidence of one falls past the last bin
            "nan in empty bins": {"nan_in_empty_bins"},
            "probability of the true class": {"confidence_of_the_true_class"},
            "hard-coded 15 bins": {"num_bins_ignored"},
        },
        "expected_calibration_error": {
            "unweighted mean over bins": {"unweighted"},
            "no absolute value": {"signed_gaps"},
            # no bins at all: one bin, and nothing changes with num_bins
            "no binning": {"one_bin", "num_bins_ignored"},
        },
        "fit_temperature": {
            "returns log T": {"returns_log_temperature"},
            "multiplies by T": {"multiplies"},
            "logits changed in place": {"changes_the_logits"},
        },
        "planar_flow": {
            "u used instead of u_hat": {"u_not_corrected"},
            "m without the -1": {"m_without_minus_one"},
            "norm not squared": {"divides_by_the_norm"},
            "psi without tanh derivative": {"log_det_mismatch"},  # "check the derivative of tanh"
            "numpy tanh": set(),
        },
    },
    "06_approximate_posteriors": {
        "log_joint": {
            "normalising constants dropped": {"likelihood_constant", "prior_constant"},  # both are missing
            "mean over the points": {"mean_not_sum"},
            "variance as the scale": {"variance_for_sd"},
            "targets not transposed": {"targets_as_column"},
            "float64 result": {"not_float32"},
            # one value per vector, but each depends on the whole batch: no sentence says so
            "prior summed over the batch": set(),
            "NumPy arithmetic": {"no_gradient"},  # float32 NumPy: only the gradient is lost
        },
        "mc_dropout_moments": {
            "variance with T - 1": {"ddof_one"},
            "noise variance forgotten": {"no_noise"},
            "dropout off": {"dropout_off"},
            "standard deviation returned": {"sd_not_variance"},
            "tensors returned": {"not_numpy"},
            "moments over the wrong axis": set(),
            "num_passes ignored": set(),
        },
        "last_layer_laplace": {
            "prior precision forgotten": {"no_prior"},
            "noise std not squared": {"noise_not_squared"},
            "prior std not squared": {"prior_not_squared"},
            "noise left out of the predictive": {"no_noise"},
            "Phi Phi^T": set(),
            "full predictive covariance": {"matrix_not_diagonal"},
            "precision in the predictive": {"variance_with_precision"},
        },
        "gaussian_w2": {
            "variances for stds": {"variances"},
            "squared distance": {"no_root"},
            "sum of the stds": {"sum_of_sds"},
            "L1 instead of L2": {"absolute_differences"},
            "averaged over the points": {"one_number"},
            "tensor returned": set(),
            "loop over zip": set(),
        },
        "conformal_quantile": {
            # it never returns infinity either, but only because of the rank: "no_infinity" would send the
            # student to an infinity branch that is already there
            "rank ceil(n(1 - alpha))": {"n_not_n_plus_one"},
            "np.quantile": {"plain_quantile"},
            "index off by one": {"rank_too_high"},
            "sorted in place": {"sorts_in_place"},
            "rank clipped to n": {"no_infinity"},
            "inf already at k = n": set(),
            "scores not sorted": set(),
        },
    },
}
