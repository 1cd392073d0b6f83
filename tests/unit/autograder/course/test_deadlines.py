"""The late-penalty rule, the due date's reading and the words for lateness; a real gradebook in a
temporary SQLite file for the penalty applied. No kernel (the graded hand-ins: tests/system/test_late_handins.py)."""

import datetime

import pytest
from nbgrader.api import Gradebook

from autograder.course import deadlines
from autograder.course.gradebook import handed_in, how_late

# nbgrader's add_submission trips this SQLAlchemy warning; it is harmless (grade filters it too).
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")


def test_a_started_day_costs_a_whole_days_percentage_up_to_the_cap():
    policy = deadlines.Policy(per_day=10, cap=25)
    assert [policy.percent(s) for s in (0, 1, 86400, 86401, 3 * 86400, 30 * 86400)] == [0, 10, 10, 20, 25, 25]
    assert deadlines.Policy().percent(10 * 86400) == 0, "no policy, no penalty"


def test_the_due_date_is_read_as_iso_8601_and_kept_in_utc():
    assert deadlines.parse_due("2026-03-01T23:59+01:00") == datetime.datetime(2026, 3, 1, 22, 59)
    assert deadlines.parse_due("2026-03-01T23:59") == datetime.datetime(2026, 3, 1, 23, 59)
    for text in ("friday", "2026-03-01"):  # a date alone would be midnight UTC, likely a day early
        with pytest.raises(ValueError, match="not an ISO 8601 date and time"):
            deadlines.parse_due(text)


def test_lateness_in_its_two_largest_units():
    assert [how_late(s) for s in (59, 3600, 90000, 86400 * 2 + 7200, 86400 * 3 + 61)] == [
        "1 min",
        "1 h",
        "1 day 1 h",
        "2 days 2 h",
        "3 days 2 min",
    ]


def test_a_policy_file_that_cannot_be_read_is_one_line(tmp_path):
    (tmp_path / deadlines.POLICY_FILE).write_text('{"00_tiny": {"per_day": "lots"}}')
    with pytest.raises(ValueError, match="not a late-penalty file") as raised:
        deadlines.read_policy(tmp_path, "00_tiny")
    assert "\n" not in str(raised.value)
    deadlines.save_policy(tmp_path, "00_tiny", deadlines.Policy(5, 20))
    assert deadlines.read_policy(tmp_path, "00_tiny") == deadlines.Policy(5, 20)
    assert deadlines.read_policy(tmp_path, "other") == deadlines.Policy()


def test_the_penalty_follows_the_due_date_and_the_extension(tmp_path):
    """nbgrader's own lateness: the submission's time against the due date plus the extension."""
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        gradebook.add_assignment("a1", duedate=datetime.datetime(2026, 3, 1, 12))
        gradebook.add_notebook("nb", "a1")
        gradebook.add_grade_cell("q1", "nb", "a1", max_score=10, cell_type="code")
        for student in ("early", "late", "excused", "waiting"):
            gradebook.add_student(student)
        for student in ("early", "late", "excused"):
            submitted = datetime.datetime(2026, 3, 1 if student == "early" else 3, 11)
            submission = gradebook.add_submission("a1", student, timestamp=submitted)
            submission.notebooks[0].grades[0].auto_score = 8
        gradebook.db.commit()
    deadlines.save_policy(tmp_path, "a1", deadlines.Policy(10, 50))
    deadlines.grant(url, tmp_path, "a1", "excused", days=3)
    late = deadlines.grant(url, tmp_path, "a1", "waiting", days=1)  # before handing anything in
    assert late == {"late": "1 day 23 h late, -2 points"}, "two started days: 20 % of 10 points"
    with Gradebook(url) as gradebook:
        submissions = {s.student_id: s for s in gradebook.assignment_submissions("a1")}
        assert {s: submissions[s].late_submission_penalty for s in ("early", "late", "excused")} == {
            "early": 0,
            "late": 2,
            "excused": 0,
        }
        assert not handed_in(submissions["waiting"]), "a row that only holds an extension"
        assert all(handed_in(submissions[s]) for s in ("early", "late", "excused"))
    assert deadlines.set_deadline(url, tmp_path, "a1", due=datetime.datetime(2026, 3, 4)) == {}

    # An extension taken back before anything was handed in leaves no row that would read as a hand-in;
    # none given to a student with no row makes none.
    deadlines.grant(url, tmp_path, "a1", "waiting")
    deadlines.grant(url, tmp_path, "a1", "typo")
    deadlines.grant(url, tmp_path, "a1", "excused")
    with Gradebook(url) as gradebook:
        submissions = {s.student_id: s for s in gradebook.assignment_submissions("a1")}
        assert sorted(submissions) == ["early", "excused", "late"]
        assert submissions["excused"].extension is None and handed_in(submissions["excused"])
