"""bdl.diagnoses: a failing test notes the answer's likely mistake, and only adds words.

The share of the mutant catalogue each table names is measured by check-tests
(tests/course/test_assignment_tests.py); here, the mechanism and its guarantees."""

import json
import re
import subprocess
import sys
import traceback

import numpy as np
import pytest

import bdl  # noqa: F401 (before TensorFlow: Keras 2)

# isort: split
import tensorflow as tf

from autograder.course.directory import REPO
from autograder.course.leaks import course_secrets, leaked_lines
from bdl.checks import assert_close
from bdl.diagnoses import NOTE_WIDTH, PREFIX, all_tables, diagnose, diagnosed, note, noted, noted_mistake, sentences
from bdl.diagnoses.likelihoods import GAUSSIAN


def no_constant(y, mean, scale):
    return tf.reduce_mean(tf.math.log(scale) + tf.square(y - mean) / (2 * tf.square(scale)))


def sentence(function, name):
    return next(mistake.sentence for mistake in all_tables()[function].mistakes if mistake.name == name)


def _failing_test(namespace):
    with diagnosed("gaussian_nll", namespace):
        assert_close(
            namespace["gaussian_nll"](tf.zeros((2, 1)), tf.zeros((2, 1)), tf.ones((2, 1))),
            0.9189385,
            "the Gaussian NLL at the mean",
        )


def test_a_failing_test_notes_the_mistake_and_keeps_its_own_line():
    with pytest.raises(AssertionError) as caught:
        _failing_test({"gaussian_nll": no_constant})
    assert caught.value.__notes__ == [note(sentence("gaussian_nll", "missing_constant"))]
    assert all(len(line) <= NOTE_WIDTH for line in caught.value.__notes__[0].split("\n"))
    assert str(caught.value).startswith("the Gaussian NLL at the mean does not match")
    # The error still comes from the test's own line, which the feedback looks for.
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert [frame.name for frame in frames] == [
        "test_a_failing_test_notes_the_mistake_and_keeps_its_own_line",
        "_failing_test",
        "assert_close",
    ]


def test_an_error_of_the_answer_is_noted_too_and_stays_what_it_was():
    def float32_only(probs, labels):
        probs = tf.convert_to_tensor(probs, dtype=tf.float32)
        labels = tf.one_hot(labels, 3) if np.ndim(labels) == 1 else tf.cast(labels, tf.float32)
        return tf.reduce_mean(tf.reduce_sum(tf.square(probs - labels), axis=-1))

    with pytest.raises((TypeError, ValueError)) as caught:
        with diagnosed("brier_score", {"brier_score": float32_only}):
            float32_only(tf.constant([[0.5, 0.5, 0.0]], tf.float64), [0])
    assert caught.value.__notes__ == [note(sentence("brier_score", "rejects_float64"))]


def test_no_note_without_a_failure_or_without_a_match():
    with diagnosed("gaussian_nll", {"gaussian_nll": no_constant}):
        pass  # nothing failed: nothing to say
    with pytest.raises(AssertionError) as caught:
        with diagnosed("gaussian_nll", {"gaussian_nll": lambda y, mean, scale: tf.reduce_mean(tf.abs(y - mean))}):
            raise AssertionError("some check")
    assert not hasattr(caught.value, "__notes__")
    with pytest.raises(NameError):  # an answer that is not there is not diagnosed, and the error is kept
        with diagnosed("gaussian_nll", {}):
            raise NameError("gaussian_nll")
    with pytest.raises(KeyboardInterrupt):  # only errors: an interrupt goes through untouched
        with diagnosed("gaussian_nll", {"gaussian_nll": no_constant}):
            raise KeyboardInterrupt


def test_an_error_with_no_note_is_read_without_loading_tensorflow():
    # The feedback and the report read every failing test's error: most carry no note, and loading the
    # tables for them (TensorFlow, 5 to 7 s of CPU) would cost each command that much.
    code = (
        "import json, sys\nfrom bdl.diagnoses import noted\n"
        "found = noted('Traceback\\nAssertionError: the Brier score of a certain right answer should be 0')\n"
        "print(json.dumps([found, 'tensorflow' in sys.modules]))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout.splitlines()[-1]) == [None, False]
    with_note = f"AssertionError: some check\n{note(sentence('gaussian_nll', 'scale_as_variance'))}"
    assert noted(with_note) == sentence("gaussian_nll", "scale_as_variance")


def test_the_answer_runs_quietly_and_cannot_break_the_diagnosis(capsys):
    calls = []

    def noisy(y, mean, scale):
        calls.append(1)
        print("printed by the answer")
        print("to stderr", file=sys.stderr)
        if len(calls) % 2:
            raise RuntimeError("now and then")
        return no_constant(y, mean, scale)

    diagnose("gaussian_nll", noisy)
    assert calls, "the answer was run on the probes"
    assert capsys.readouterr() == ("", "")


def test_a_right_answer_matches_no_mistake():
    def right(y, mean, scale):
        return tf.reduce_mean(0.5 * np.log(2 * np.pi) + tf.math.log(scale) + (y - mean) ** 2 / (2 * scale**2))

    assert diagnose("gaussian_nll", right) is None


def test_only_the_tables_sentences_are_ever_taken_for_a_diagnosis():
    known = GAUSSIAN.mistakes[0].sentence
    wrapped = note(known).replace("\n", "\n\x1b[31m    ")  # as a traceback or Validate shows it
    assert noted(f"Traceback\n\x1b[31mAssertionError\x1b[39m: no\n{wrapped}\n") == known
    assert noted(f"{PREFIX}{known} and the hidden test says x = 3") == known  # the sentence, no more
    assert noted(PREFIX + "the answer is 42") is None
    assert noted_mistake(f"AssertionError: no\n{note(known)}", "gaussian_nll") == GAUSSIAN.mistakes[0].name
    assert noted_mistake("AssertionError: no", "gaussian_nll") is None


def test_the_sentences_give_nothing_away():
    """No numbers (an expected value), no secret line of any assignment (a hidden test, a model
    answer, a rubric), no code; one sentence each, and a name each unique in its table."""
    secrets = course_secrets(REPO)
    assert len(sentences()) >= 50
    for text in sentences():
        assert not re.search(r"(?<![A-Za-z_\d])\d", text), text  # a number; sigma1 and float64 are names
        assert not leaked_lines(text, secrets), text
        assert not re.search(r"[`=\[\]{}]|\b(tf|np|tfp|tfd)\.", text), text
    for text in sentences():  # each note, however wrapped, is found again as its sentence
        assert noted(note(text[len(PREFIX) :])) == text[len(PREFIX) :], text
    for function in all_tables().values():
        names = [mistake.name for mistake in function.mistakes]
        assert len(names) == len(set(names)), function.name


@pytest.mark.slow
def test_the_validate_button_shows_the_likely_mistake(tmp_path):
    """nbgrader's Validate (the button runs ``nbgrader validate``) on a student's copy of 01 whose
    Gaussian NLL leaves out the normalising constant: the visible test's failure names it."""
    import subprocess

    import nbformat

    from autograder.course.cells import graded_cells

    nb = nbformat.read(REPO / "release" / "01_likelihoods" / "likelihoods.ipynb", 4)
    graded_cells(nb)["gaussian_nll"].source = (
        "def gaussian_nll(y, mean, scale):\n"
        "    return tf.reduce_mean(tf.math.log(scale) + tf.square(y - mean) / (2 * tf.square(scale)))\n"
    )
    path = tmp_path / "likelihoods.ipynb"
    nbformat.write(nb, path)
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "validate", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert "the Gaussian NLL of three observations does not match" in output, output[-3000:]
    assert noted(output) == sentence("gaussian_nll", "missing_constant"), output[-3000:]
    assert "Likely mistake:" in output and "for eve..." not in output  # whole, within Validate's width


# A likely mistake names a cause only where a probe proves it. Answers of the classes a blind round
# was told a false cause for, each with another mistake that shows the same symptom.


def test_a_loss_without_its_kl_term_is_not_told_to_scale_it():
    class OwnBayesianDense(tf.keras.layers.Layer):  # the student's class: the probe's layers are not it
        pass

    def sample_elbo(model, x, y, num_samples, log_likelihood_fn, kl_scale):
        losses = []
        for _ in range(num_samples):
            outputs = model(x)
            kl = sum(
                layer.log_variational_posterior - layer.log_prior
                for layer in model.layers
                if isinstance(layer, OwnBayesianDense)
            )
            losses.append(kl_scale * kl - log_likelihood_fn(y, outputs))
        return tf.reduce_mean(tf.stack(losses))

    found = diagnose("sample_elbo", sample_elbo)
    assert found is None or found.name != "kl_scale_ignored", found.sentence


def test_entropies_are_not_blamed_for_a_nan_in_the_averaged_probabilities():
    def mc_entropy_decomposition(model, x, num_samples):
        sampled = np.stack([np.asarray(model(x).mean(), dtype=np.float64) for _ in range(num_samples)])
        with np.errstate(divide="ignore", invalid="ignore"):
            log_mean = np.log(sampled).mean(axis=0)  # a geometric mean, renormalised: nan where it is 0 / 0
            probs = np.exp(log_mean - np.log(np.exp(log_mean).sum(axis=-1, keepdims=True)))

        def entropy_bits(p):  # 0 log 0 taken as 0; a nan stays nan
            with np.errstate(divide="ignore", invalid="ignore"):
                return -np.sum(np.where(p == 0, 0.0, p * np.log2(p)), axis=-1)

        total, aleatoric = entropy_bits(probs), entropy_bits(sampled).mean(axis=0)
        return probs, total, aleatoric, total - aleatoric

    found = diagnose("mc_entropy_decomposition", mc_entropy_decomposition)
    assert found is None or found.name != "nan_at_zero", found.sentence


def test_a_sigmoid_last_layer_is_not_called_raw_scores():
    def get_deterministic_model(input_shape, loss, optimizer, metrics):
        model = tf.keras.Sequential(
            [
                tf.keras.layers.Conv2D(8, (5, 5), activation="relu", padding="VALID", input_shape=input_shape),
                tf.keras.layers.MaxPooling2D(pool_size=(6, 6)),
                tf.keras.layers.Flatten(),
                tf.keras.layers.Dense(units=10, activation="sigmoid"),
            ]
        )
        model.compile(loss=loss, optimizer=optimizer, metrics=metrics)
        return model

    found = diagnose("get_deterministic_model", get_deterministic_model)
    assert found is not None and found.name == "not_softmax", found
