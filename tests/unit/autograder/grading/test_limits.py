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
        process = subprocess.Popen([sys.executable, "-c", code + "\nimport time\ntime.sleep(60)"],
                                   stdout=output.worker_end if output else None, start_new_session=True)
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
