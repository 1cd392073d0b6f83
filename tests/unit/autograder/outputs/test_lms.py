"""The LMS files' students: the mapping file's mistakes, each named in one line."""

import pytest

from autograder.outputs import lms


def test_mapping_file_errors_are_one_line(tmp_path):
    path = tmp_path / "students.csv"
    path.write_text("student,email\nalice,a@example.org\n")
    with pytest.raises(ValueError, match="needs a column 'nbgrader_id'"):
        lms.read_mapping(path)
    path.write_text("nbgrader_id,canvas\nalice,1\n")
    with pytest.raises(ValueError, match=r"unknown columns \['canvas'\]"):
        lms.read_mapping(path)
    path.write_text("nbgrader_id,email\nalice,a@example.org\nalice,b@example.org\n")
    with pytest.raises(ValueError, match="line 3: nbgrader_id 'alice' appears twice"):
        lms.read_mapping(path)
