"""A new gradebook is stamped with the migration nbgrader's own way finds (the ``alembic`` program),
read in the process instead (``autograder.course.directory.alembic_head``)."""

import subprocess
import sys
from pathlib import Path

import nbgrader.api
from nbgrader.api import Gradebook
from nbgrader.dbutil import _temp_alembic_ini
from sqlalchemy import create_engine, text

from autograder.course.directory import alembic_head


def test_the_head_is_the_one_the_alembic_program_names():
    alembic = Path(sys.executable).parent / "alembic"
    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:  # as nbgrader runs it
        heads = subprocess.run([str(alembic), "-c", ini, "heads"], capture_output=True, text=True, check=True).stdout
    assert heads.split()[0] == alembic_head()


def test_a_new_gradebook_is_stamped_with_it_without_running_a_program(tmp_path, monkeypatch):
    def no_program(*args, **kwargs):
        raise AssertionError(f"nbgrader ran {args}")

    monkeypatch.setattr(nbgrader.api.sp, "check_output", no_program)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    Gradebook(url).close()
    engine = create_engine(url)
    with engine.connect() as connection:
        assert connection.execute(text("select version_num from alembic_version")).scalar() == alembic_head()
    engine.dispose()
