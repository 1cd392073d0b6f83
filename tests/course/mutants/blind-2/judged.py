"""Round two's judgement, written after its answers were frozen and before they were measured: for each
one-bug answer, the likely mistakes (by their names in ``bdl/diagnoses``) whose every word is true of it.
An empty set: no likely mistake of the tables would be right. (A hint that gives the right fix but says
something false of the answer, such as "adds the KL divergence of the kernel only" for a layer that adds
the bias's unscaled, is judged wrong.)"""

RIGHT = {
    "01_likelihoods": {
        "brier_score": {
            "mean over all entries": {"mean_over_classes"},
            "one-hot float32 against float64 probs": {"rejects_float64"},
        },
        "gaussian_nll": {"scale used as variance": {"scale_as_variance"}},
        "laplace_nll": {"error multiplied by the scale": set()},
        "categorical_nll": {"log of softmax": {"unstable"}, "log-sum-exp over the whole batch": {"wrong_axis"}},
        "split_mean_scale": {"last axis dropped": {"last_axis_dropped"}},
        "fgsm": {"step against the gradient": {"sign_flipped"}},
        "adversarial_loss": {"one call on the joined batch": {"joined_batches"}},
    },
    "02_deep_ensembles": {
        "gaussian_mixture_moments": {
            "standard deviation returned": {"standard_deviation"},
            "sample variance of the means": {"sample_variance"},
        },
        "laplace_mixture_moments": {
            "scale squared as the variance": {"gaussian_member_variance"},
            "spread averaged over every input": set(),
        },
        "entropy": {"kept the class axis": set(), "summed over axis 1": set()},
        "uncertainty_decomposition": {
            "total and data swapped": {"total_is_mean_entropy", "data_is_entropy_of_mean", "knowledge_negated"},
            "members summed, not averaged": {"members_from_the_notebook"},
        },
    },
    "03_bayes_by_backprop": {
        "bbb_loss_terms": {"sample detached inside log q": {"gradient_stopped"}, "rho used as the scale of q": set()},
        "bayesian_dense": {
            "noise drawn with NumPy": {"noise_frozen_when_compiled"},
            "one mu initialiser for kernel and bias": {"one_initialiser_for_both_means"},
        },
        "sample_elbo": {
            "kl_scale on the whole loss": {"log_likelihood_scaled"},
            "Bayesian layers listed before the first call": {"layers_before_the_call"},
        },
        "scale_mixture_log_prob": {
            "densities mixed directly": {"underflows"},
            "mixture weights swapped": {"weights_swapped"},
        },
    },
    "04_bayesian_cnn": {
        "get_deterministic_model": {"same padding": {"padding"}},
        "nll": {"averaged over the batch": {"mean_over_batch"}},
        "get_probabilistic_model": {"softmax before the distribution": {"softmax_before_distribution"}},
        "get_convolutional_reparameterization_layer": {"bias divergence left at its default": set()},
        "get_prior": {"bias weights left out": {"bias_left_out"}},
        "get_per_weight_prior": {"mixture not made independent": {"batch_not_event"}},
        "get_posterior": {"full-covariance posterior": {"full_covariance"}},
        "get_dense_variational_layer": {"exact KL asked for": {"exact_kl"}},
        "mc_entropy_decomposition": {"entropies in nats": {"nats"}},
    },
    "05_calibration": {
        "reliability_bins": {
            "a confidence of exactly 1 overflows the bins": set(),
            "empty bins divided by zero": {"nan_in_empty_bins"},
        },
        "expected_calibration_error": {
            "bins not weighted by their size": {"unweighted"},
            "absolute value of the sum": set(),
        },
        "fit_temperature": {
            "logits multiplied by T": {"multiplies"},
            "logits shifted in place": {"changes_the_logits"},
        },
        "planar_flow": {
            "u used without the invertibility fix": {"u_not_corrected"},
            "derivative of tanh as 1 - tanh": {"log_det_mismatch"},
        },
    },
}
