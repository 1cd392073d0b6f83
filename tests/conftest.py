"""How `make test` spreads the suite over its workers.

A worker is busy until its last test, and the suite is done when the last
worker is, so long work goes first and short tests fill the gaps at the end:
collection puts the modules of ``ONE_WORKER`` first, then notebooks (nbval) and
slow tests, and `--dist loadscope --no-loadscope-reorder` keeps that order.

- Each case of the per-assignment tests listed in ``ONE_SCOPE_EACH`` is a scope
  of its own, so two assignments' check-tests can run at once.
- The modules of ``ONE_WORKER`` are one scope: one worker runs them one after
  the other, from the start, while the others take everything else. They load
  the machine most and wait on it against timeouts: the grading classes (the
  red team and the class of bad submissions, dozens of submissions two kernels
  at a time, each cell against its timeout) and the browser and hub classes (a
  JupyterLab or JupyterHub driven in Chromium, each step against a timeout; the
  two hub modules share the hub's folder). So the browser and the hub never run
  while a grading class does.
"""

import atexit
import os
import resource
import shutil
import time
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests.support.system_packages import require

# Parametrized tests whose cases share no fixture, and each take minutes.
ONE_SCOPE_EACH = (
    "tests/course/test_assignment_tests.py::test_check_tests_passes[",
    "tests/system/test_grading.py::test_a_wrong_function_loses_exactly_its_points[",
)
# One scope, run in this order: the grading classes, then the browser and hub classes.
ONE_WORKER = (
    "tests/system/test_red_team.py",
    "tests/system/test_class_grading.py",
    "tests/system/test_browser.py",
    "tests/system/test_feedback_math.py",
    "tests/system/test_hub.py",
    "tests/system/test_hub_systemd.py",
)

# Each pytest worker's share of the cores for TensorFlow's ops, in every kernel it starts (nbval's,
# check-tests'; grading processes take one core each anyway, autograder.worker.bwrap.ONE_CORE): pools as
# large as the machine in two workers' kernels at once spent 15 to 25 % more CPU on the same work.
_THREADS = str(max(1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))))
for _name in ("TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS"):
    os.environ.setdefault(_name, _THREADS)


def _one_worker(nodeid):
    return nodeid.split("::")[0] in ONE_WORKER


# xdist's public way, `--dist loadgroup` with `xdist_group` marks, names the group by appending it to
# `item._nodeid`, which pytest 9 no longer reads (nodeid is `item._id`): with pytest 9.2 and xdist 3.8
# every mark is dropped silently and each test is a unit of its own. So the scopes are split here.
class CaseScopeScheduling(LoadScopeScheduling):
    def _split_scope(self, nodeid):
        if _one_worker(nodeid):
            return "one worker: grading, browser and hub classes"
        if nodeid.startswith(ONE_SCOPE_EACH):
            return nodeid
        return super()._split_scope(nodeid)


# optional: the hook is xdist's, and `-p no:xdist` (one quick module) must still load this file
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") == "loadscope":
        return CaseScopeScheduling(config, log)
    return None


@pytest.fixture(scope="session")
def bubblewrap():
    """`grade` runs every kernel under bubblewrap: a test that grades needs it."""
    return require(shutil.which("bwrap"), "bubblewrap")


def _is_long(item):
    return item.get_closest_marker("slow") is not None or item.nodeid.endswith(".ipynb") or ".ipynb::" in item.nodeid


def _order(item):
    path = item.nodeid.split("::")[0]
    if path in ONE_WORKER:
        return (0, ONE_WORKER.index(path))
    return (1, 0) if _is_long(item) else (2, 0)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    items.sort(key=_order)  # stable: file order within each group


def _rusage_seconds():
    """CPU seconds of this process and of the processes it has waited for (kernels, workers, pip)."""
    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )


# Where a cgroup of this process's own can be made (as root): v1's cpuacct, or v2's; how to read its CPU seconds.
CGROUPS = (
    (Path("/sys/fs/cgroup/cpuacct"), "cpuacct.usage", lambda text: int(text) / 1e9),
    (Path("/sys/fs/cgroup"), "cpu.stat", lambda text: int(text.split()[1]) / 1e6),
)  # "usage_usec N" first


def _own_cgroup():
    """A reader of the CPU seconds of a cgroup this process moves into, so that a test counts every process
    it started, those it never waits for included (a grading kernel's sandbox, which init reaps; the hub's
    servers); None where none can be made (not root, no such cgroup file system)."""
    for root, usage, parse in CGROUPS:
        group = root / f"bdl-test-{os.getpid()}"
        if not (root / usage).exists():
            continue
        try:
            group.mkdir(exist_ok=True)
            (group / "cgroup.procs").write_text(str(os.getpid()))
            parse((group / usage).read_text())
        except (OSError, ValueError, IndexError):
            continue
        atexit.register(_leave, root, group)
        return lambda: parse((group / usage).read_text())
    return None


def _leave(root, group):
    """Back to the parent cgroup, and this one removed (unless a process it holds still runs)."""
    try:
        (root / "cgroup.procs").write_text(str(os.getpid()))
        group.rmdir()
    except OSError:
        pass


# BDL_TEST_CPU=<folder>: each pytest process appends a line per test to <folder>/<its name>.tsv: the test, its
# wall and CPU seconds (setup, call and teardown, module fixtures in the first test that needs them). The
# suite is bound by CPU on 2 cores, so this says where its time goes (docs/deploy/sizing.md). As root, each
# pytest process runs in a cgroup of its own, whose CPU counts every process a test started; elsewhere, a
# process that is not waited for (a hub's server, under systemd; a grading kernel, whose sandbox init reaps)
# is not counted.
CPU_LOG = os.environ.get("BDL_TEST_CPU")
_cpu_seconds = (CPU_LOG and _own_cgroup()) or _rusage_seconds


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not CPU_LOG:
        yield
        return
    wall, cpu = time.monotonic(), _cpu_seconds()
    yield
    folder = Path(CPU_LOG)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv", "a") as log:
        log.write(f"{item.nodeid}\t{time.monotonic() - wall:.1f}\t{_cpu_seconds() - cpu:.1f}\n")
