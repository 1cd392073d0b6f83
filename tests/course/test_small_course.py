"""The small course the whole-system grading tests use (``tests/support/small_course.py``): 01 with
only its ungraded experiments left out, so that what those tests find holds for 01 itself."""

import nbformat

from autograder.course import cells
from autograder.course.directory import make_api
from tests.support.small_course import ASSIGNMENT, SOURCE, automatic_points, manual_points, reference, write_course


def test_only_ungraded_code_cells_are_left_out():
    whole, small = nbformat.read(SOURCE, 4), reference()
    kept = {cell.id for cell in small.cells}
    left_out = [cell for cell in whole.cells if cell.id not in kept]
    assert left_out, "01 has experiments to leave out"
    assert all(cell.cell_type == "code" and not cells.is_graded(cell) for cell in left_out)
    assert [cell.id for cell in whole.cells if cell.id in kept] == [cell.id for cell in small.cells]
    first, second = [cell for cell in small.cells if cell.cell_type == "code"][:2]
    assert "import bdl" in first.source and "parameters" in second.metadata.get("tags", []), (
        "the imports and the parameters stay"
    )
    assert (automatic_points(small), manual_points(small)) == (automatic_points(whole), manual_points(whole))


def test_its_release_is_what_nbgrader_generates(tmp_path):
    """`grade` generates release/ anew: the class test's check that the course is left intact needs
    the same bytes."""
    source, release = write_course(tmp_path)
    written = release.read_bytes()
    api = make_api(tmp_path, {"CourseDirectory": {"db_url": f"sqlite:///{tmp_path / 'gradebook.db'}"}})
    assert api.generate_assignment(ASSIGNMENT, force=True, create=True)["success"]
    assert release.read_bytes() == written
