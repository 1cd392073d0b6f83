"""The hub's secrets in HUB_DIR: files only their owner (root) reads, from the moment they exist, and the
tokens and password kept in them, each made once."""

import os
import secrets
from pathlib import Path


def private_file(path, text):
    """Write ``text`` to ``path``, readable by its owner only from the moment it exists."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.fchmod(handle, 0o600)
    with os.fdopen(handle, "w") as file:
        file.write(text)


def _kept_secret(path, make):
    """The secret in ``path``, made by ``make()`` the first time and kept root's alone."""
    if not path.exists():
        private_file(path, make() + "\n")
    return path.read_text().strip()


def service_token(settings, name):
    """The API token of the hub's service ``name`` (HUB_DIR/<name>-token: made once, root's alone)."""
    return _kept_secret(Path(settings.hub_dir) / f"{name}-token", lambda: secrets.token_hex(32))


def dummy_password(settings):
    """The one password every user of a --dummy hub logs in with (HUB_DIR/dummy-password: made once, root's alone)."""
    return _kept_secret(Path(settings.hub_dir) / "dummy-password", lambda: secrets.token_urlsafe(12))
