"""Debian packages some tests need: in CI (``CI=true``) their absence fails the
test, since `.ci/run` installs them; elsewhere the test is skipped with a
one-line message naming the package."""

import os

import pytest


def require(found, package):
    """Return ``found`` (a path); fail or skip when it is None, naming the Debian ``package``."""
    if found:
        return found
    message = f"needs the Debian package {package!r} (apt-get install {package})"
    if os.environ.get("CI") == "true":
        pytest.fail(message + "; .ci/run should have installed it")
    pytest.skip(message)
