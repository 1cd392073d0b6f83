"""bdl: import-time set-up and run modes."""
import os
import subprocess
import sys

import matplotlib
import pytest

matplotlib.use("Agg")

import bdl  # noqa: E402

TFP_LAYER_SCRIPT = """
import bdl
import tensorflow as tf
import tensorflow_probability as tfp
layer = tfp.layers.Convolution2DReparameterization(8, (5, 5), input_shape=(28, 28, 1))
model = tf.keras.Sequential([layer, tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
model(tf.zeros((1, 28, 28, 1)))
print(tf.keras.layers.Dense.__module__, model.count_params())
"""


def test_importing_bdl_first_gives_keras_2_and_a_quiet_stderr():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "NBGRADER"))}
    result = subprocess.run([sys.executable, "-c", TFP_LAYER_SCRIPT], capture_output=True,
                            text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    module, params = result.stdout.split()
    assert module.startswith("tf_keras"), f"tf.keras should be Keras 2 (tf_keras), found {module}"
    assert params == str(408 + 24 * 24 * 8 * 10 + 10)
    assert result.stderr == "", f"TensorFlow wrote to stderr:\n{result.stderr}"


@pytest.mark.parametrize("env, mode", [
    ({}, "full"),
    ({"BDL_FAST": "1"}, "fast"),
    ({"BDL_FAST": "0"}, "full"),
    ({"NBGRADER_EXECUTION": "autograde"}, "grading"),
    ({"NBGRADER_EXECUTION": "validate", "BDL_FAST": "1"}, "grading"),
])
def test_run_mode(monkeypatch, env, mode):
    monkeypatch.delenv("BDL_FAST", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert bdl.run_mode() == mode
    assert bdl.choose(full="full", fast="fast", grading="grading") == mode
