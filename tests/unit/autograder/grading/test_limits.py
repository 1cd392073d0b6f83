"""The watchdog (``limits._watch``) on a process that fills the grader's disk or its log. No kernel."""

import sys


def _watched(code, tmp_path, kernel_io="", log=None):
    """Why the watchdog killed a process running ``code`` (it would otherwise sleep a minute); its stdout
    goes to ``log`` through the host's pipes, as a worker's does, if a log is given."""
    import subprocess
    import time

    from autograder.grading import limits

    output = limits._Output(log) if log else None
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", code + "\nimport time\ntime.sleep(60)"],
            stdout=output.worker_end if output else None,
            start_new_session=True,
        )
    finally:
        if output:
            output.close_write_ends()
    started = time.monotonic()
    killed = limits._watch(process, limits.Limits(), started, kernel_io, output)
    assert time.monotonic() - started < 30 and process.poll() is not None
    if output:
        output.join()
        assert log.tell() == limits.LOG_BYTES, "the log stops at its bound"
    return killed


def test_the_watchdog_stops_a_kernel_that_fills_the_graders_disk(tmp_path):
    """The folder the kernel shares with the worker, and the log it shares with it (its stdout and
    stderr), are on the grader's disk: past their bounds the run is killed, costing that submission only."""
    folder = tmp_path / "kernel io"
    folder.mkdir()
    big = f"open({str(folder / 'big')!r}, 'wb').write(b'0' * 32 * 2**20)"
    assert "to the grader's disk" in _watched(big, tmp_path, str(folder))
    many = tmp_path / "many"
    many.mkdir()
    files = f"import os\nfor i in range(500): os.symlink('/', os.path.join({str(many)!r}, str(i)))"
    assert "to the grader's disk" in _watched(files, tmp_path, str(many))
    with open(tmp_path / "log", "w+b") as log:
        assert "standard output and error" in _watched("import os\nos.write(1, b'x' * 70 * 2**20)", tmp_path, "", log)
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / "connection.json").write_text("{}")
    assert _watched("import sys\nsys.exit(0)", tmp_path, str(quiet)) == ""


def _sleeping(*prefix, code="", stdout=None):
    import subprocess

    return subprocess.Popen(
        [*prefix, sys.executable, "-c", code + "\nimport time\ntime.sleep(20)"], start_new_session=True, stdout=stdout
    )


def test_files_in_a_sandboxs_memory_count_towards_the_memory_limit(bubblewrap, tmp_path):
    """The kernel's /tmp, /dev/shm and working folder are tmpfs: what it writes there is memory that no
    process's RSS shows. Here 192 MiB in 4 MiB writes to a tmpfs over a folder of the test's own (not
    /tmp, which may hold the venv), the limit 128 MiB."""
    import time

    from autograder.grading import limits

    folder = tmp_path / "in memory"
    folder.mkdir()
    fill = f"f = open({str(folder / 'fill')!r}, 'wb')\nfor _ in range(48):\n    f.write(bytes(4 * 2**20))\nf.close()"
    process = _sleeping("bwrap", "--dev-bind", "/", "/", "--size", str(256 * 2**20), "--tmpfs", str(folder), code=fill)
    started = time.monotonic()
    killed = limits._watch(process, limits.Limits(memory_bytes=128 * 2**20), started)
    assert "exceeded the memory limit" in killed and time.monotonic() - started < 15 and process.poll() is not None


def test_the_slots_examiner_counts_towards_the_memory_limit():
    """The slot's examiner parses this submission's answers: its memory (here 300 MiB) is the submission's too."""
    import subprocess
    import time

    from autograder.grading import limits

    examiner = _sleeping(
        code="held = bytearray(300 * 2**20)\nfor i in range(0, len(held), 4096):\n    held[i] = 1\n"
        "print('held', flush=True)",
        stdout=subprocess.PIPE,
    )
    worker = None
    try:
        assert examiner.stdout.readline() == b"held\n"
        worker = _sleeping()
        started = time.monotonic()
        killed = limits._watch(worker, limits.Limits(memory_bytes=200 * 2**20), started, examiner=examiner.pid)
        assert "exceeded the memory limit" in killed and time.monotonic() - started < 15
    finally:
        examiner.kill()
        if worker:
            worker.kill()
