"""The retries after a crash (``task._grade_crash_safe``), with a worker faked: a test cell that
crashes charges its function, and the retries end. No kernel."""

from pathlib import Path

import nbformat

from autograder.course.cells import graded_cells
from autograder.worker import guard
from tests.support.small_course import SOURCE


def _crashing_runs(tmp_path, monkeypatch, crashes, limits):
    """``task._grade_crash_safe`` with a worker whose kernel dies in the cells ``crashes``, one a
    run, then succeeds; returns (the runs' (skip, crashed), the notes, the last result)."""
    from types import SimpleNamespace

    from autograder.grading import task
    from autograder.worker.job import GradingJob, WorkerResult

    runs, crashes = [], list(crashes)

    def run_isolated(job, limits, examiner=None):
        runs.append((job.skip, job.crashed))
        if not crashes:
            return WorkerResult(True, examiner_clean=True)
        assert Path(job.kernel_io).is_dir() and not any(Path(job.kernel_io).iterdir())  # new each run
        Path(job.progress).write_text(guard.cell_key(crashes.pop(0)))
        return WorkerResult(False, "the kernel died", crashed=True, examiner_clean=True)

    monkeypatch.setattr(task, "run_isolated", run_isolated)
    slots = SimpleNamespace(examiner=lambda sandbox: SimpleNamespace(fds=lambda: (), process=None))
    source = nbformat.read(SOURCE, 4)
    submitted = nbformat.read(SOURCE, 4)
    submitted.cells.append(nbformat.v4.new_code_cell("print(1)"))
    job = GradingJob(
        scratch=str(tmp_path),
        assignment="01_likelihoods",
        student="s",
        db_url="",
        cell_timeout=1,
        progress=str(tmp_path / "worker" / "progress"),
    )
    result, notes = task._grade_crash_safe(job, limits, [submitted], [source], slots)
    return runs, notes, result


def test_a_test_cell_that_crashes_charges_its_function_and_the_retries_end(tmp_path, monkeypatch):
    from autograder.grading.limits import Limits

    source = graded_cells(nbformat.read(SOURCE, 4))
    tests, answer = source["fgsm_tests"].source, source["fgsm"].source
    runs, notes, result = _crashing_runs(tmp_path, monkeypatch, [tests, "print(1)"], Limits())
    assert result.success and [crashed for _, crashed in runs] == [(), ("fgsm",), ("fgsm",)]
    assert notes[0].endswith("and every later call of fgsm raised an error instead of running")
    assert notes[1] == "graded again without cell `print(1)` (the kernel died)"
    # An answer cell is left out, charging nothing more; a cell that crashes again ends the retries.
    runs, notes, result = _crashing_runs(tmp_path, monkeypatch, [answer, answer], Limits())
    assert not result.success and len(runs) == 2 and runs[1][1] == ()
    # Never more runs than the notebook has code cells, plus one; none once past the wall-clock limit.
    code_cells = sum(cell.cell_type == "code" for cell in nbformat.read(SOURCE, 4).cells) + 1  # and print(1)
    runs, _, result = _crashing_runs(tmp_path, monkeypatch, [f"x = {i}" for i in range(100)], Limits())
    assert not result.success and len(runs) == code_cells + 1
    runs, _, _ = _crashing_runs(tmp_path, monkeypatch, [tests], Limits(submission_timeout=-1))
    assert len(runs) == 1
