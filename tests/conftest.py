"""How `make test` spreads the suite over its workers.

A worker is busy until its last test, and the suite is done when the last
worker is, so long work goes first and short tests fill the gaps at the end:
collection puts notebooks (nbval) and slow tests first, and `--dist
loadscope --no-loadscope-reorder` keeps that order. Each case of the
per-assignment tests listed in ``ONE_SCOPE_EACH`` is a scope of its own, so
two assignments' check-tests can run at once.
"""
import shutil

import pytest
from xdist.scheduler import LoadScopeScheduling

from system_packages import require

# Parametrized tests whose cases share no fixture, and each take minutes.
ONE_SCOPE_EACH = ("tests/course/test_assignment_tests.py::test_check_tests_passes[",
                  "tests/system/test_grading.py::test_a_wrong_function_loses_exactly_its_points[")


class CaseScopeScheduling(LoadScopeScheduling):
    def _split_scope(self, nodeid):
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
    return item.get_closest_marker("slow") is not None or item.nodeid.endswith(".ipynb") \
        or ".ipynb::" in item.nodeid


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not _is_long(item))  # stable: file order within each group
