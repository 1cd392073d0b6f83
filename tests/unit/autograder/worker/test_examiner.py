"""The examiner in a real kernel: test cells run outside it, and only data crosses.

One notebook runs as grading runs it (the guard in the kernel, test cells handed to the
examiner process): a student's cells define functions, test cells check them, and a last
student cell searches the kernel's whole memory for what the tests hold. Its feedback shows
an error of the student's code with its message, written anew, and the student's line."""

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.worker.examiner.relay import ExaminingClient
from autograder.worker.guard import GUARD

# Held by a test cell and never asked about: its expected value, its hidden comment.
EXPECTED_MARK = "the-expected-value-4f1d9"
COMMENT_MARK = "the-hidden-comment-8c2e7"


def _test_cell(source):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {
        "grade": True,
        "solution": False,
        "locked": True,
        "points": 1,
        "grade_id": f"t{abs(hash(source))}",
        "schema_version": 3,
    }
    return cell


STUDENT = """
import bdl
import numpy as np
import tensorflow as tf


def double(x):
    return 2 * np.asarray(x)


def shout(x):
    words = "my own words, which no feedback shows"
    raise ValueError(words)


def add_a_square(x):
    total = x + tf.zeros((2, 2))
    return total


def float32_only(x):
    if np.asarray(x).dtype != np.float32:
        raise TypeError("not float32")
    return x


def eager_only(x):
    return tf.constant(x.numpy())  # a tensor inside a tf.function has no .numpy()


def one_at_a_time(x, y):
    if len(x) > 1:
        raise ValueError("a batch")
    return x


class Box:
    def __init__(self, value):
        self.value = value

    def get(self):
        return tf.constant(self.value)
"""
PASSES = f'''
from bdl.checks import assert_close
_expected = "{EXPECTED_MARK}"  # {COMMENT_MARK}
assert_close(double([1.0, 2.0]), [2.0, 4.0], "double of two numbers")
assert_close(Box(3.0).get(), 3.0, "a box's value")
assert tf.is_tensor(Box(3.0).get()), "a tensor stays a tensor"
'''
FAILS = """
from bdl.checks import assert_close
assert_close(double(1.0), 3.0, "double of one")
"""
RAISES = """
shout(1.0)
"""
# Calls that raise, and would run in float32 or on one example.
RAISES_IN_FLOAT64 = """
float32_only(np.zeros((2, 3)))
"""
RAISES_FOR_A_BATCH = """
one_at_a_time(tf.zeros((4, 3), tf.int32), np.ones(4))
"""
RAISES_UNDER_A_GRADIENT = """
from bdl.questions import gradient
gradient(float32_only, (np.zeros((2, 3)),), wrt=(0,))
"""
RAISES_WHEN_COMPILED = """
from bdl.questions import compiled
compiled(eager_only, (tf.zeros((2, 3)),))
"""
RAISES_A_SHAPE_ERROR = """
from bdl.checks import assert_close
assert_close(add_a_square(tf.zeros((2, 3))), tf.zeros((2, 3)), "a square added")
"""
# Searched for by a pattern whose own text is not the mark (each '-' written as '[-]').
SEARCH_MEMORY = r"""
import re
_found = set()
_patterns = [re.compile(pattern.encode()) for pattern in (%r, %r)]
with open("/proc/self/maps") as _maps, open("/proc/self/mem", "rb", 0) as _memory:
    for _line in _maps:
        _range, _mode = _line.split()[:2]
        if not _mode.startswith("r") or "[vvar" in _line or "[vsyscall" in _line:
            continue
        _start, _end = (int(_part, 16) for _part in _range.split("-"))
        try:
            _memory.seek(_start)
            _chunk = _memory.read(_end - _start)
        except (OSError, ValueError, OverflowError):
            continue
        _found |= {_number for _number, _pattern in enumerate(_patterns) if _pattern.search(_chunk)}
print("found in the kernel:", sorted(_found))
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("examined")
    nb = new_notebook(
        cells=[
            new_code_cell(STUDENT),
            _test_cell(PASSES),
            _test_cell(FAILS),
            _test_cell(RAISES),
            new_code_cell(SEARCH_MEMORY % tuple(mark.replace("-", "[-]") for mark in (EXPECTED_MARK, COMMENT_MARK))),
            _test_cell(RAISES_IN_FLOAT64),
            _test_cell(RAISES_FOR_A_BATCH),
            _test_cell(RAISES_UNDER_A_GRADIENT),
            _test_cell(RAISES_WHEN_COMPILED),
            _test_cell(RAISES_A_SHAPE_ERROR),
        ]
    )
    client = ExaminingClient(
        nb,
        timeout=300,
        allow_errors=True,
        kernel_name="python3",
        extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"],
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    nb.metadata["examiner_left_running"] = client.examiner_running()
    return nb


def _errors(cell):
    return [output for output in cell.outputs if output.output_type == "error"]


def test_a_right_answer_passes(graded):
    assert not _errors(graded.cells[1]), graded.cells[1].outputs


def test_a_wrong_answer_fails_with_the_tests_own_words(graded):
    (error,) = _errors(graded.cells[2])
    assert error.ename == "AssertionError"
    assert "double of one does not match the expected values" in error.evalue
    # As IPython shows a cell's frames, so the feedback tells visible from hidden lines.
    assert any(line.startswith(f"Cell In[{graded.cells[2].execution_count}], line 3") for line in error.traceback)


def test_an_error_of_the_students_code_is_named_by_its_type_and_line_not_its_own_words(graded):
    (error,) = _errors(graded.cells[3])
    assert error.ename == "ValueError"
    assert error.evalue.split("\n") == [
        "shout raised ValueError when the tests called it with 1",
        "in your line: raise ValueError(words)",
    ]
    assert "my own words" not in str(error)


def test_the_feedback_shows_a_known_errors_message_and_the_students_line(graded):
    """Through nbgrader's feedback pipeline, as the student reads it."""
    import copy

    from autograder.outputs.feedback import HideHiddenTests

    (error,) = _errors(graded.cells[9])
    assert error.evalue.split("\n") == [
        "add_a_square raised InvalidArgumentError when the tests called it with a float32 tensor of shape (2, 3)",
        "the error says: Incompatible shapes: (2, 3) vs. (2, 2) [Op:AddV2]",
        "in your line: total = x + tf.zeros((2, 2))",
    ]
    nb = copy.deepcopy(graded)
    HideHiddenTests().preprocess(nb, {})
    assert nb.cells[9].outputs[0].traceback == [
        "InvalidArgumentError: add_a_square raised InvalidArgumentError when the tests called it with a float32 "
        "tensor of shape (2, 3)\n"
        "the error says: Incompatible shapes: (2, 3) vs. (2, 2) [Op:AddV2]\n"
        "in your line: total = x + tf.zeros((2, 2))"
    ]


@pytest.mark.parametrize(
    "cell, said",
    [
        (
            5,
            "float32_only raised TypeError when the tests called it with a float64 array of shape (2, 3); "
            "the same call in float32 runs",
        ),
        (
            6,
            "one_at_a_time raised ValueError when the tests called it with an int32 tensor of shape (4, 3) and a "
            "float64 array of shape (4,); the same call runs with each input cut to its first entry along the first "
            "axis",
        ),
        (
            7,
            "float32_only raised TypeError when the tests used it with a float64 array of shape (2, 3); "
            "the same call in float32 runs",
        ),
        (
            8,
            "eager_only raised AttributeError when the tests used it inside a compiled function (tf.function) "
            "with a float32 tensor of shape (2, 3)",
        ),
    ],
)
def test_a_call_that_raised_says_what_it_was_given_and_what_runs(graded, cell, said):
    (error,) = _errors(graded.cells[cell])
    assert said in error.evalue, error.evalue


def test_nothing_a_test_holds_enters_the_kernel(graded):
    """The kernel never held the test cells' code: not their expected values, not their comments."""
    text = "".join(output.get("text", "") for output in graded.cells[4].outputs)
    assert "found in the kernel: []" in text, graded.cells[4].outputs


def test_the_examiner_stops_with_the_notebook(graded):
    assert graded.metadata["examiner_left_running"] is False


# The pipes of the examiner as the kernel would see them, were they passed on: (device, inode) of each fd.
LIST_FDS = r"""
import os
_seen = set()
for _fd in os.listdir("/proc/self/fd"):
    try:
        _status = os.fstat(int(_fd))
        _seen.add((_status.st_dev, _status.st_ino))
    except OSError:
        pass
print("fds:", sorted(_seen))
"""


@pytest.fixture(scope="module")
def slot(tmp_path_factory):
    """Two submissions examined by one examiner, as a grading slot keeps it: its pipe ends inherited
    by the client, as the worker inherits them."""
    import os

    from autograder.worker.examiner import pool

    examiner = pool.Examiner.start(sandbox=False)
    runs, slots = [], []
    for number in range(2):
        # a copy of the pipe ends per run, inheritable: what pass_fds gives each worker process
        fds = tuple(os.dup(fd) for fd in examiner.fds())
        for fd in fds:
            os.set_inheritable(fd, True)
        folder = tmp_path_factory.mktemp(f"slot{number}")
        nb = new_notebook(
            cells=[new_code_cell(STUDENT), _test_cell(PASSES), _test_cell(FAILS), new_code_cell(LIST_FDS)]
        )
        client = ExaminingClient(
            nb,
            timeout=300,
            allow_errors=True,
            kernel_name="python3",
            extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"],
            resources={"metadata": {"path": str(folder)}},
        )
        client.slot = pool.LentExaminer(fds)
        client.execute()
        runs.append((nb, client._attached and client._examiner.process is None))
        slots.append(client.slot)
    pipes = {(os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in examiner.fds()}
    yield runs, examiner, pipes, all(slot.clean for slot in slots)
    examiner.stop()


def test_a_slots_examiner_examines_one_submission_after_another(slot):
    runs, examiner, _, clean = slot
    for nb, attached in runs:
        assert attached  # the slot's, not one of the client's own
        assert not _errors(nb.cells[1]) and "double of one" in _errors(nb.cells[2])[0].evalue
    assert examiner.running() and clean  # waiting for the next cell, after both


def test_the_kernel_holds_no_pipe_of_the_slots_examiner(slot):
    runs, _, pipes, _ = slot
    for nb, _ in runs:
        text = "".join(output.get("text", "") for output in nb.cells[3].outputs)
        assert "fds:" in text and not any(f"({dev}, {ino})" in text for dev, ino in pipes), text


def test_an_examiner_past_the_cell_timeout_fails_the_cell_and_is_stopped(tmp_path):
    """The examiner has the cell's timeout for each of its messages, as the kernel has for each answer: a
    test that never ends (here the test cell's own loop) fails its cell, and the next test cell runs."""
    import time

    nb = new_notebook(
        cells=[
            new_code_cell("def double(x):\n    return 2 * x\n"),
            _test_cell("while True:\n    pass\n"),
            _test_cell("assert double(1) == 2, 'double of one'\n"),
        ]
    )
    client = ExaminingClient(
        nb,
        timeout=3,
        allow_errors=True,
        kernel_name="python3",
        extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"],
        resources={"metadata": {"path": str(tmp_path)}},
    )
    started = time.monotonic()
    client.execute()
    (error,) = _errors(nb.cells[1])
    assert error.ename == "TimeoutError" and "took longer than 3 seconds" in error.evalue
    assert not _errors(nb.cells[2]) and time.monotonic() - started < 60
