"""The scratch folders (``grading.scratch``): a killed grader's folder is removed by the next grader,
a live grader's never, nor one just made."""

import os
import signal
import subprocess
import sys
import time

from autograder.grading import scratch

# A grader that makes its folder and is killed in the middle of its work.
GRADER = """
import sys, time
from autograder.grading.scratch import scratch_folder
with scratch_folder("bdl-test-") as path:
    open(path + "/submission.ipynb", "w").write("{}")
    print(path, flush=True)
    time.sleep(600)
"""


def _grader(tmp_path):
    """A grader process whose temp folder is ``tmp_path``, and its scratch folder, once made."""
    process = subprocess.Popen(
        [sys.executable, "-c", GRADER], stdout=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path)}
    )
    return process, process.stdout.readline().strip()


def _age(path, seconds):
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_killed_graders_folder_is_removed_and_a_live_ones_is_not(tmp_path):
    killed, abandoned = _grader(tmp_path)
    live, in_use = _grader(tmp_path)
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        for path in (abandoned, in_use):
            _age(path, scratch.SETTLING_SECONDS + 1)
        assert scratch.remove_abandoned("bdl-test-", str(tmp_path)) == 1
        assert not os.path.exists(abandoned)
        assert os.path.exists(os.path.join(in_use, "submission.ipynb"))
    finally:
        live.kill()
        live.wait()


def test_a_new_folder_is_left_alone_though_nobody_locks_it_yet(tmp_path):
    young = tmp_path / "bdl-test-young"
    young.mkdir()
    assert scratch.remove_abandoned("bdl-test-", str(tmp_path)) == 0
    _age(young, scratch.SETTLING_SECONDS + 1)
    assert scratch.remove_abandoned("bdl-test-", str(tmp_path)) == 1


def test_the_folder_is_removed_after_use_and_other_names_are_never_touched(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch.tempfile, "tempdir", str(tmp_path))
    other = tmp_path / "someone-elses"
    other.mkdir()
    _age(other, scratch.SETTLING_SECONDS + 1)
    with scratch.scratch_folder("bdl-test-") as path:
        (tmp_path / path / "submission.ipynb").write_text("{}")
    assert not os.path.exists(path)
    assert other.is_dir()
