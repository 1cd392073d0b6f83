"""Round four's judgement, written after its answers were frozen and before they were measured: for
each one-bug answer, the likely mistakes (by their names in ``bdl/diagnoses``) whose every word is true
of it. An empty set: no likely mistake of the tables would be right. As in rounds two and three, a hint
whose fix the answer already made is judged wrong (``no_bias_divergence``, "pass the divergence function
for the bias too", for a layer given the bias's divergence function but no bias prior), and so is one
that names another axis (``wrong_axis``, "sums over the first axis", for a sum over axis 1)."""

RIGHT = {
    "01_likelihoods": {
        "brier_score": {"depth_from_largest_label": {"classes_hard_coded"}},
        "gaussian_nll": {"divides_by_rows_not_entries": {"sum_not_mean"}},
        "laplace_nll": {"abs_as_sqrt_of_square": set()},
        "categorical_nll": {"one_max_for_the_whole_batch": {"unstable"}},
        "split_mean_scale": {"softplus_written_by_hand": {"unstable_softplus"}},
        "fgsm": {"sign_as_gradient_over_its_size": set()},
        "adversarial_loss": {"one_call_on_joined_batch": {"joined_batches"}},
    },
    "02_deep_ensembles": {
        "gaussian_mixture_moments": {
            "spread_with_sample_variance": {"sample_variance"},
            "second_moment_cancels_in_float32": set(),
        },
        "laplace_mixture_moments": {"squares_scales_in_place": set()},
        "entropy": {"classes_on_axis_one": set()},
        "uncertainty_decomposition": {
            "averages_over_inputs": {"wrong_axis"},
            "squeeze_drops_single_axes": {"size_one_axes_lost"},
        },
    },
    "03_bayes_by_backprop": {
        "bbb_loss_terms": {"likelihood_averaged_over_points": {"mean_over_data"}},
        "bayesian_dense": {
            "bias_left_out_of_log_prior": {"kernel_only"},
            "noise_drawn_with_numpy": {"noise_frozen_when_compiled"},
        },
        "sample_elbo": {
            "likelihood_arguments_swapped": {"log_likelihood_arguments_swapped"},
            "kl_read_after_the_loop": set(),
        },
        "scale_mixture_log_prob": {"direct_in_float64": {"underflows"}},
    },
    "04_bayesian_cnn": {
        "get_deterministic_model": {"same_padding": {"padding"}, "optimizer_by_name": {"optimizer_ignored"}},
        "nll": {"log_of_the_mean_probabilities": set()},
        "get_convolutional_reparameterization_layer": {"bias_prior_left_at_default": set()},
        "get_per_weight_prior": {"variance_taken_as_scale": {"slab_scale_as_variance"}},
        "get_prior": {"dtype_ignored": set()},
        "get_dense_variational_layer": {"exact_kl_requested": {"exact_kl"}},
        "mc_entropy_decomposition": {"one_call_reused": {"one_call"}},
    },
    "05_calibration": {
        "reliability_bins": {"floor_index_loses_certain_points": set()},
        "expected_calibration_error": {"signed_gap": {"signed_gaps"}, "float32_result_not_a_float": {"not_a_float"}},
        "fit_temperature": {"shifts_logits_in_place": {"changes_the_logits"}, "grid_stops_at_five": set()},
        "planar_flow": {
            "divides_by_norm_not_norm_squared": {"divides_by_the_norm"},
            "derivative_of_tanh_forgotten": {"log_det_mismatch"},
        },
    },
}
