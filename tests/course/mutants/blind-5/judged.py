"""Round five's judgement, written after its answers were frozen (commit 8a23d53) and before they were
measured: for each one-bug answer, the likely mistakes (by their names in ``bdl/diagnoses``) whose every
word is true of it and whose fix is the one the answer needs. An empty set: no likely mistake of the
tables would be right. As in the earlier rounds, a hint whose fix the answer already made is judged
wrong (``integer_one_hot_not_cast``, "cast the labels to the probabilities' dtype", for a score that
casts them but one-hot encodes integer one-hot labels again), and so is one that names another axis
(``wrong_axis``, "sums over the first axis", for a sum over axis 1). Two judgements follow round four's
for the same mistake: ``unstable`` for a log-sum-exp shifted by the batch's largest logit, and
``slab_scale_as_variance`` for a broad component of scale 100."""

RIGHT = {
    "01_likelihoods": {
        "brier_score": {
            "labels_cast_to_float32": {"rejects_float64"},
            "integer_dtype_taken_as_indices": {"one_hot_encoded_again"},
        },
        "gaussian_nll": {"log_of_density_underflows": set()},
        "laplace_nll": {"sum_last_axis_then_mean": {"sum_not_mean"}},
        "categorical_nll": {"global_max_shift": {"unstable"}, "mean_axis0_then_sum": {"sum_not_mean"}},
        "split_mean_scale": {"naive_softplus_overflows": {"unstable_softplus"}},
        "fgsm": {"numpy_sign_breaks_tf_function": set(), "sign_by_division_nan_at_zero": set()},
        "adversarial_loss": {"one_call_on_joined_batch": {"joined_batches"}},
    },
    "02_deep_ensembles": {
        "gaussian_mixture_moments": {
            "squares_scales_in_place": {"changes_its_arguments"},
            "raw_moment_cancellation_in_float32": set(),
        },
        "laplace_mixture_moments": {"mean_absolute_deviation_squared": set()},
        "entropy": {"sum_over_axis_one": set(), "atleast_2d_breaks_scalar_case": set()},
        "uncertainty_decomposition": {"squeeze_drops_singleton_axes": {"size_one_axes_lost"}},
    },
    "03_bayes_by_backprop": {
        "bbb_loss_terms": {
            "log_q_of_stopped_w": {"gradient_stopped"},
            "likelihood_mean_over_points": {"mean_over_data"},
        },
        "bayesian_dense": {
            "numpy_noise_frozen_in_tf_function": {"noise_frozen_when_compiled"},
            "one_initializer_per_kind": {"one_initialiser_for_both_means"},
        },
        "sample_elbo": {"first_layer_only": {"first_layer_only"}},
        "scale_mixture_log_prob": {"log_of_summed_densities": {"underflows"}},
    },
    "04_bayesian_cnn": {
        "get_deterministic_model": {"conv_same_padding": {"padding"}},
        "nll": {"log_of_mean_probabilities": set()},
        "get_probabilistic_model": {"default_convert_to_tensor_sample": {"tensor_not_the_mode"}},
        "get_convolutional_reparameterization_layer": {"bias_divergence_default": {"no_bias_divergence"}},
        "get_prior": {"per_weight_mixture_instead": set()},
        "get_per_weight_prior": {"ten_squared_as_scale": {"slab_scale_as_variance"}},
        "get_posterior": {"raw_scale_variables": {"scales_not_positive"}},
        "get_dense_variational_layer": {"exact_kl": {"exact_kl"}},
        "mc_entropy_decomposition": {"entropies_in_nats": {"nats"}},
    },
    "05_calibration": {
        "reliability_bins": {
            "digitize_left_closed_drops_confidence_one": set(),
            "bincount_without_minlength": {"too_short"},
        },
        "expected_calibration_error": {"unweighted_mean_over_bins": {"unweighted"}},
        "fit_temperature": {
            "shifts_logits_in_place": {"changes_the_logits"},
            "adam_200_steps_too_few": {"not_converged"},
        },
        "planar_flow": {"u_instead_of_u_hat": {"u_not_corrected"}},
    },
}
