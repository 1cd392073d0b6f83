"""The course's nbgrader configuration."""

import re

from autograder.course.directory import REPO, load_config


def test_course_directory_is_the_repo_root():
    assert load_config(REPO).CourseDirectory.root == str(REPO)


def test_ignore_pattern_drops_tensorflow_logs_only():
    pattern = re.compile(load_config(REPO).IgnorePattern.pattern)
    noise = [
        "2026-11-22 04:34:01.123456: I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find cuda",
        "I0000 00:00:1732249999.123456   12345 cpu_feature_guard.cc:210] This TensorFlow binary is optimized",
        "WARNING:tensorflow:5 out of the last 5 calls to <function> triggered tf.function retracing.",
        "WARNING:absl:Compiled the loaded model, but the compiled metrics have yet to be built.",
        "oneDNN custom operations are on. You may see slightly different numerical results",
    ]
    kept = [
        "AssertionError: the number of Conv2D filters should be 8, found 16",
        "/tmp/x.py:3: RuntimeWarning: divide by zero encountered in log2",
        "Traceback (most recent call last):",
    ]
    for line in noise:
        assert pattern.search(line), f"not ignored: {line}"
    for line in kept:
        assert not pattern.search(line), f"wrongly ignored: {line}"
