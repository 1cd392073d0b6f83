"""``report``'s item analysis and LMS files for every assignment, on a generated class with known
failures and hand grades, without grading anything: the gradebook and the autograded notebooks are
written as ``grade`` and formgrader would leave them. (tests/system/test_class_grading.py checks the same
outputs on a class graded for real.)
"""

import csv
import shutil

import nbformat
import pytest
from nbformat.v4 import new_output
from nbgrader.api import Gradebook

from autograder.course import cells
from autograder.course import directory as course
from autograder.course.directory import REPO
from autograder.outputs import report
from tests.support.lms_formats import parse_canvas, parse_moodle

ASSIGNMENTS = course.assignments()
# nbgrader's add_submission trips this SQLAlchemy warning; it is harmless (grading/host.py ignores it too).
pytestmark = pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")
# Messages that differ only in their numbers are one group.
FAILURES = {
    "pat": "the value of 3 examples does not match the expected values (largest difference 0.5)",
    "quinn": "the value of 7 examples does not match the expected values (largest difference 0.25)",
    "blank": None,
}  # None: the release's stub raises NotImplementedError
STUDENTS = ["blank", "pat", "quinn", "rosa"]  # rosa: everything right


def _error(message):
    if message is None:
        return new_output("error", ename="NotImplementedError", evalue="", traceback=[])
    return new_output(
        "error", ename="AssertionError", evalue=message, traceback=[f"\x1b[31mAssertionError\x1b[39m: {message}"]
    )


@pytest.fixture(scope="module")
def classes(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(REPO / "source", root / "source")
    course.generate_release(root)  # fills root/gradebook.db with every assignment's cells
    db_url = f"sqlite:///{root / 'gradebook.db'}"
    expected = {}
    with Gradebook(db_url) as gradebook:
        gradebook.update_or_create_student(
            "rosa", first_name="Rosa", last_name="Luxe", email="rosa@example.org", lms_user_id="1001"
        )
        for assignment in ASSIGNMENTS:
            first_test = None
            for student in STUDENTS:
                gradebook.update_or_create_student(student)
                submission = gradebook.add_submission(assignment, student)
                for notebook in submission.notebooks:
                    path = root / "source" / assignment / f"{notebook.name}.ipynb"
                    nb = nbformat.read(path, 4)
                    tests = [cell for cell in nb.cells if cells.is_test(cell)]
                    first_test = first_test or cells.grade_id(tests[0])
                    for cell in tests:
                        failed = student == "blank" or (student in FAILURES and cells.grade_id(cell) == first_test)
                        cell.outputs = [_error(FAILURES[student])] if failed else []
                    for grade in notebook.grades:
                        if grade.cell.cell_type == "code":
                            failed = student == "blank" or (student in FAILURES and grade.name == first_test)
                            grade.auto_score, grade.needs_manual_grade = (0.0 if failed else grade.max_score), False
                        elif student == "rosa":  # graded in formgrader: full marks
                            grade.manual_score, grade.needs_manual_grade = grade.max_score, False
                        elif student == "pat":  # graded in formgrader: half marks
                            grade.manual_score, grade.needs_manual_grade = grade.max_score / 2, False
                        # the others' answers still await a grader
                    folder = root / "autograded" / student / assignment
                    folder.mkdir(parents=True, exist_ok=True)
                    nbformat.write(nb, folder / f"{notebook.name}.ipynb")
            expected[assignment] = first_test
        gradebook.db.commit()
    mapping = root / "students.csv"
    mapping.write_text(
        "nbgrader_id,name,canvas_id,sis_login_id,section,email,id_number\n"
        'pat,"Ortiz, Pat",2002,portiz,A,pat@example.org,S2\n'
        "quinn,Quinn Park,2003,qpark,B,quinn@example.org,S3\n"
        "rosa,,,rluxe,A,,S1\n"
        "blank,Blank Page,2004,bpage,B,blank@example.org,S4\n"
        'sam,"Stone, Sam",2005,sstone,A,sam@example.org,S5\n'
    )  # sam handed nothing in
    outputs = {}
    for assignment in ASSIGNMENTS:
        outputs[assignment] = report.write_report(
            root,
            assignment,
            db_url,
            root / "reports",
            students=mapping,
            canvas_assignment_id="731" if assignment == ASSIGNMENTS[0] else None,
        )
    return {"root": root, "db_url": db_url, "first_test": expected, "outputs": outputs}


def _points(db_url, assignment):
    with Gradebook(db_url) as gradebook:
        cells_ = [cell for notebook in gradebook.find_assignment(assignment).notebooks for cell in notebook.grade_cells]
        return ({cell.name: cell.max_score for cell in cells_}, float(gradebook.find_assignment(assignment).max_score))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_item_analysis_counts_the_known_failures_and_hand_grades(classes, assignment):
    written = classes["outputs"][assignment]
    points, _ = _points(classes["db_url"], assignment)
    with open(written.files["items"]) as handle:
        rows = {row["cell"]: row for row in csv.DictReader(handle)}
    assert list(rows) == [row["cell"] for row in written.items] and set(rows) == set(points)
    first = classes["first_test"][assignment]
    for name, row in rows.items():
        assert float(row["max_score"]) == points[name] and int(row["submissions"]) == len(STUDENTS)
        if row["kind"] == "manual":
            # rosa's full and pat's half marks from formgrader; blank and quinn await a grader
            assert (int(row["awaiting"]), int(row["lost"])) == (2, 1), row
            assert float(row["mean_score"]) == pytest.approx(0.75 * points[name])
        elif name == first:
            assert (int(row["lost"]), float(row["mean_score"])) == (3, pytest.approx(points[name] / 4))
            assert row["message_1"] == FAILURES["pat"] and row["count_1"] == "2", row  # pat's and quinn's, one group
            assert row["message_2"].startswith("NotImplementedError") and row["count_2"] == "1"
            assert float(row["points_lost"]) == 3 * points[name]
        else:
            assert (int(row["lost"]), row["message_1"], row["count_1"], row["message_2"]) == (
                1,
                "NotImplementedError: not answered (the release's stub raises it)",
                "1",
                "",
            ), row
    assert written.files["points lost"].read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_canvas_and_moodle_files_parse_as_each_lms_reads_them(classes, assignment):
    written = classes["outputs"][assignment]
    points, max_score = _points(classes["db_url"], assignment)
    manual = sum(value for name, value in points.items() if not name.endswith(cells.TESTS_SUFFIX))
    first = points[classes["first_test"][assignment]]
    totals = {
        "rosa": max_score,
        "pat": max_score - first - manual / 2,
        "quinn": max_score - first - manual,
        "blank": 0.0,
    }
    assignments, possible, students = parse_canvas(written.files["Canvas"])
    title = assignment
    assert assignments == [(title, "731" if assignment == ASSIGNMENTS[0] else None)]
    assert possible == {title: max_score}
    by_login = {row["SIS Login ID"]: row for row in students}
    assert set(by_login) == {"portiz", "qpark", "rluxe", "bpage", "sstone"}
    assert by_login["portiz"]["Student"] == "Ortiz, Pat" and by_login["portiz"]["ID"] == "2002"
    assert by_login["rluxe"]["Student"] == "Luxe, Rosa" and by_login["rluxe"]["ID"] == "1001"  # nbgrader's records
    assert by_login["sstone"]["grades"] == {title: None}, "no submission: left blank"
    for student, login in (("rosa", "rluxe"), ("pat", "portiz"), ("quinn", "qpark"), ("blank", "bpage")):
        assert by_login[login]["grades"][title] == pytest.approx(totals[student]), student
    moodle = parse_moodle(written.files["Moodle"], "ID number")
    assert {user: grades[title] for user, grades in moodle.items()} == pytest.approx(
        {"S1": totals["rosa"], "S2": totals["pat"], "S3": totals["quinn"], "S4": 0.0, "S5": None}
    )
    by_email = parse_moodle(written.files["Moodle"], "Email address")
    assert by_email["rosa@example.org"][title] == pytest.approx(totals["rosa"])  # nbgrader's record
    assert any("2 submissions have hand-graded cells not graded yet" in note for note in written.notes) == (manual > 0)
    assert any("sam" in note and "no submission" in note for note in written.notes)


def test_the_report_names_each_submission_with_review_flags_and_no_other():
    from autograder.outputs.report import _to_read

    statuses = {
        "ada/likelihoods": "graded; review: uses get_ipython",
        "bob/likelihoods": "graded",
        "eve/likelihoods": "error: the kernel died; review: imports ctypes",
        "sam/likelihoods": "error: not a notebook (the file is not JSON)",
    }
    assert _to_read(statuses) == [
        "read ada/likelihoods before trusting its score: review: uses get_ipython",
        "read eve/likelihoods before trusting its score: review: imports ctypes",
    ]
