"""An assignment named as an instructor types it: `student-kit --through 01` (or 1, or likelihoods, or
the folder a shell completes) means 01_likelihoods, for every assignment of the course. No kernel."""

import nbformat
import pytest

from autograder.course.directory import REPO, assignments
from autograder.studentkit import assignment_named, scheduled

NAMES = assignments(REPO)


@pytest.mark.parametrize("name", NAMES)
def test_every_assignment_by_its_number_name_topic_or_folder(name):
    number, topic = name.split("_", 1)
    for given in (
        name,
        number,
        str(int(number)),
        f"0{number}",
        topic,
        topic.upper(),
        f" {number} ",
        f"release/{name}/",
        f"source/{name}",
        name.upper(),
    ):
        assert assignment_named(given, NAMES) == name, given


@pytest.mark.parametrize("name", NAMES)
def test_a_kit_through_a_number_is_the_kit_through_the_name(name):
    number = name.split("_")[0]
    releases, companions = scheduled(REPO, name)
    assert scheduled(REPO, number) == scheduled(REPO, str(int(number))) == (releases, companions)
    assert name in {path.parent.name for path in releases}
    assert max(path.parent.name for path in releases) == name


def test_an_unknown_or_ambiguous_name_lists_the_assignments():
    for given in ("07", "0", "likelihood", "01_likelihood", ""):
        with pytest.raises(ValueError, match=f"no assignment '{given}': give one of {', '.join(NAMES)}"):
            assignment_named(given, NAMES)
    with pytest.raises(ValueError, match="'2' names 2 assignments"):
        assignment_named("2", ["02_ensembles", "2_extra"])
    with pytest.raises(ValueError, match="'calibration' names 2 assignments"):
        assignment_named("calibration", ["05_calibration", "06_calibration"])


def test_a_course_whose_release_is_missing_says_to_make_it(tmp_path):
    """An assignment in source/ without its release is named, not taken for an unknown one."""
    for folder, name in (("source", "01_first"), ("release", "01_first"), ("source", "02_second")):
        path = tmp_path / folder / name / "notebook.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), path)
    (tmp_path / "notebooks").mkdir()
    assert [path.parent.name for path in scheduled(tmp_path, "1")[0]] == ["01_first"]
    with pytest.raises(ValueError, match=r"release/02_second holds no notebook: run `make release`"):
        scheduled(tmp_path, "02")
