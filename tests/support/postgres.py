"""A real PostgreSQL server for the tests that need a shared gradebook: the
fixture ``postgres_url`` (import it into a test module) starts one in a
temporary folder (Debian's `postgresql` package: `initdb` and `pg_ctl`),
listening on a Unix socket only, and stops it at the end of the module."""

import getpass
import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.system_packages import require


def _postgres_bin():
    initdb = shutil.which("initdb") or next(
        iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)), None
    )
    return Path(require(initdb, "postgresql")).parent


def _as_server_user(command):
    # PostgreSQL refuses to run as root: there it runs as Debian's postgres user.
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="module")
def postgres_url():
    bin_dir = _postgres_bin()
    folder = Path(tempfile.mkdtemp(prefix="bdl-postgres-"))
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    subprocess.run(
        _as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust"]), check=True, capture_output=True
    )
    pg_ctl = _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-w"])
    subprocess.run(
        pg_ctl + ["-l", str(folder / "server.log"), "-o", f"-k {folder} -c listen_addresses='' -F", "start"],
        check=True,
        capture_output=True,
    )
    user = "postgres" if os.geteuid() == 0 else getpass.getuser()
    try:
        yield f"postgresql://{user}@/postgres?host={folder}"
    finally:
        subprocess.run(pg_ctl + ["-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
