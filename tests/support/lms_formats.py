"""The two LMS import formats, read the way each LMS documents and reads them.

Canvas (Grades > Import; its importer is ``GradebookImporter`` in canvas-lms): the header's first
columns are ``Student`` and ``ID``, then ``SIS User ID`` and ``SIS Login ID`` (or ``SIS Login ID``
alone), and the last student column is ``Section``; every other column is an assignment, titled
``<name> (<assignment id>)`` (``/\\A(.*)\\s\\((\\d+)\\)\\z/``) or by its name alone (a new
assignment); a row whose first field holds ``Points Possible`` gives the assignments' points; a
student row is matched by ``ID``, then ``SIS User ID``, ``SIS Login ID``, then the name.

Moodle (Grades > Import > CSV file; ``gradeimport_csv``): the first line is the header, every line has
as many fields as the header (else "csvweirdcolumns"), one column identifies the user and is mapped to
``useremail`` (``Email address``) or ``useridnumber`` (``ID number``), each other column to a grade
item; a grade is a number or empty.
"""

import csv
import re

CANVAS_ASSIGNMENT = re.compile(r"\A(.*)\s\((\d+)\)\Z")
MOODLE_USER_FIELDS = (
    "First name",
    "Last name",
    "Surname",
    "ID number",
    "Institution",
    "Department",
    "Email address",
    "Username",
)


def _number(value, where):
    try:
        return float(value)
    except ValueError:
        raise AssertionError(f"{where}: {value!r} is not a number") from None


def parse_canvas(path):
    """Return (assignments [(title, id or None)], points possible {title: float},
    students [{"Student", "ID", "SIS User ID", "SIS Login ID", "Section", "grades": {title: float or None}}])."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    assert len(header) > 3 and "Student" in header[0] and "ID" in header[1], header
    columns = 3
    if re.match(r"SIS\s+User\s+ID", header[2]) and re.match(r"SIS\s+Login\s+ID", header[3]):
        columns += 2
    elif re.match(r"SIS\s+Login\s+ID", header[2]):
        columns += 1
    assert "Section" in header[columns - 1], f"the last student column must be Section: {header}"
    assignments = [
        (CANVAS_ASSIGNMENT.match(title).groups() if CANVAS_ASSIGNMENT.match(title) else (title, None))
        for title in header[columns:]
    ]
    assert assignments, "no assignment column"
    titles = [title for title, _ in assignments]
    points, students = {}, []
    for number, row in enumerate(rows[1:], start=2):
        assert len(row) == len(header), f"line {number} has {len(row)} fields, the header {len(header)}"
        if "Points Possible" in row[0]:
            points = {title: _number(value, f"line {number}") for title, value in zip(titles, row[columns:])}
            continue
        student = dict(zip(header[:columns], row[:columns]))
        assert any(student.get(key) for key in ("ID", "SIS User ID", "SIS Login ID", "Student")), (
            f"line {number}: nothing Canvas can find the student by"
        )
        if student["ID"]:
            assert student["ID"].isdigit(), f"line {number}: Canvas's user ID is a number: {student['ID']!r}"
        student["grades"] = {
            title: (_number(value, f"line {number}") if value.strip() else None)
            for title, value in zip(titles, row[columns:])
        }
        students.append(student)
    return assignments, points, students


def parse_moodle(path, identifier, feedback=()):
    """Return {identifier value: {grade item: float or None, feedback column: text}}; ``identifier`` is
    the column mapped to Moodle's users (``Email address`` or ``ID number``), ``feedback`` the columns
    mapped to a grade item's feedback (any text)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header = rows[0]
    assert identifier in header, f"no {identifier!r} column to identify users by: {header}"
    items = [name for name in header if name not in MOODLE_USER_FIELDS]
    assert items, "no grade item column"
    grades = {}
    for number, row in enumerate(rows[1:], start=2):
        assert len(row) == len(header), f"line {number} has {len(row)} fields, the header {len(header)}"
        record = dict(zip(header, row))
        user = record[identifier]
        assert user and user not in grades, f"line {number}: {identifier} {user!r} is empty or repeated"
        grades[user] = {
            item: (_number(record[item], f"line {number}") if record[item].strip() else None)
            for item in items
            if item not in feedback
        } | {column: record[column] for column in feedback}
    return grades
