"""The grading job and the worker's result cross a process boundary: each is read back strictly."""

import json
from dataclasses import asdict

import pytest

from autograder.worker.examiner.protocol import ProtocolError
from autograder.worker.job import GradingJob, WorkerResult

JOB = GradingJob(
    "/tmp/scratch", "01_likelihoods", "alice", "sqlite:///gradebook.db", 60, skip=("abc",), examiner_fds=(3, 4)
)


def test_a_job_and_a_result_come_back_as_they_went():
    assert GradingJob.from_json(JOB.to_json()) == JOB
    result = WorkerResult(False, "the kernel died", crashed=True, log="...")
    assert WorkerResult.from_json(result.to_json()) == result


@pytest.mark.parametrize(
    "change",
    [
        {"cell_timeout": "60"},  # a field of another type
        {"cell_timeout": True},  # a bool is not a number of seconds
        {"skip": "abc"},  # a tuple of keys comes as a list
        {"examiner_fds": [3, "4"]},
        {"more": 1},  # a key too many
    ],
)
def test_a_job_of_another_form_is_refused(change):
    with pytest.raises(ProtocolError):
        GradingJob.from_json(json.dumps({**asdict(JOB), **change}))


def test_a_result_with_a_key_missing_or_of_another_type_is_refused():
    data = asdict(WorkerResult(True))
    for text in [json.dumps({k: v for k, v in data.items() if k != "log"}), json.dumps({**data, "success": "yes"})]:
        with pytest.raises(ProtocolError):
            WorkerResult.from_json(text)
