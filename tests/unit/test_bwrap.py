"""The bubblewrap command a grading kernel runs under (``autograder.worker.bwrap``), without running it."""
import sys

from autograder.worker import bwrap
from autograder.course.directory import REPO


def test_the_empty_tmp_is_mounted_before_what_the_kernel_reads():
    """bwrap mounts in order: a /tmp mounted after the venv would hide a venv that lives under /tmp."""
    args = bwrap.command("/tmp/grading/kernel", "/tmp/grading/cwd")
    tmp = args.index("/tmp", args.index("--tmpfs"))
    readable = bwrap._readable()
    binds = [index for index, arg in enumerate(args) if arg == "--ro-bind" and args[index + 1] in readable]
    assert len(binds) == len(readable) and all(index > tmp for index in binds)
    assert args.index("/tmp/grading/cwd") > max(binds) and args.index("/tmp/grading/kernel") > max(binds)
    assert str(REPO) not in readable, "the course folder (source/) is never readable"
    assert sys.prefix in readable or any(sys.prefix.startswith(path + "/") for path in readable)
