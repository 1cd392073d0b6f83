"""Round three's judgement, written after its answers were frozen and before they were measured: for
each one-bug answer, the likely mistakes (by their names in ``bdl/diagnoses``) whose every word is true
of it. An empty set: no likely mistake of the tables would be right. As in round two, a hint that gives
the right fix but says something false of the answer is judged wrong (``no_bias_divergence``, "adds the
KL divergence of the kernel only", for a layer that adds the bias's unscaled; ``wrong_axis``, "sums over
the first axis", for a sum over axis 1)."""

RIGHT = {
    "01_likelihoods": {
        "brier_score": {"one_hot_int_not_cast": {"integer_one_hot_not_cast", "rejects_float64"}},
        "gaussian_nll": {"log_variance_without_half": set()},
        "laplace_nll": {"divides_by_first_axis_only": {"sum_not_mean"}},
        "categorical_nll": {"softmax_then_log": {"unstable"}, "logsumexp_over_axis_1": {"wrong_axis"}},
        "split_mean_scale": {"softplus_by_hand_overflows": {"unstable_softplus"}},
        "fgsm": {"sign_as_ratio": set()},
        "adversarial_loss": {"one_call_on_joined_batch": {"joined_batches"}},
    },
    "02_deep_ensembles": {
        "gaussian_mixture_moments": {
            "raw_second_moment_cancels": set(),
            "returns_standard_deviation": {"standard_deviation"},
        },
        "laplace_mixture_moments": {"laplace_variance_b_squared": {"gaussian_member_variance"}},
        "entropy": {"sum_over_axis_1": set(), "entropy_in_bits": {"bits"}},
        "uncertainty_decomposition": {"summed_not_averaged_probs": {"members_from_the_notebook"}},
    },
    "03_bayes_by_backprop": {
        "bbb_loss_terms": {"log_q_of_stopped_w": {"gradient_stopped"}, "mean_over_weights": set()},
        "bayesian_dense": {
            "numpy_noise_constant_in_graph": {"noise_frozen_when_compiled"},
            "one_initializer_shared_by_kernel_and_bias": {"one_initialiser_for_both_means"},
        },
        "sample_elbo": {"kl_scale_on_whole_loss": {"log_likelihood_scaled"}, "numpy_mean_of_samples": {"not_a_tensor"}},
        "scale_mixture_log_prob": {"log_of_summed_densities": {"underflows"}},
    },
    "04_bayesian_cnn": {
        "get_deterministic_model": {"same_padding": {"padding"}},
        "nll": {"log_of_mean_probs": set()},
        "get_probabilistic_model": {"softmax_before_one_hot_categorical": {"softmax_before_distribution"}},
        "get_convolutional_reparameterization_layer": {"bias_divergence_left_default": set()},
        "get_posterior": {"scale_not_positive": {"scales_not_positive"}},
        "get_dense_variational_layer": {"prior_and_posterior_swapped": {"prior_and_posterior_swapped"}},
        "mc_entropy_decomposition": {"entropies_in_nats": {"nats"}},
    },
    "05_calibration": {
        "reliability_bins": {"floor_index_drops_confidence_one": set(), "empty_bin_nan": {"nan_in_empty_bins"}},
        "expected_calibration_error": {"unweighted_mean_over_bins": {"unweighted"}},
        "fit_temperature": {"shifts_caller_logits_in_place": {"changes_the_logits"}, "grid_too_narrow": set()},
        "planar_flow": {"u_not_constrained": {"u_not_corrected"}},
    },
}
