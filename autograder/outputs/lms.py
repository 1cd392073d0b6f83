"""An assignment's totals in the files learning-management systems import: Canvas's gradebook CSV and
Moodle's grade import CSV.

Totals are the gradebook's: automatic points plus the hand grades entered in formgrader. Whom each
row is for comes from nbgrader's student records (name, email, ``lms_user_id``) and, where the LMS
knows students by other ids, from a student-id mapping file (``read_mapping``). Each file is written
as its system's import page reads it (``write_canvas``, ``write_moodle``).
"""

from dataclasses import dataclass, field, replace
from pathlib import Path

from autograder.course import spreadsheet
from autograder.course.gradebook import handed_in, late_text, notebook_points

CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
CANVAS_POINTS_POSSIBLE = "Points Possible"
MOODLE_STUDENT_COLUMNS = ("First name", "Last name", "ID number", "Email address")
MAPPING_COLUMNS = (
    "nbgrader_id",
    "name",
    "first_name",
    "last_name",
    "canvas_id",
    "sis_user_id",
    "sis_login_id",
    "section",
    "email",
    "id_number",
)


@dataclass(frozen=True)
class Student:
    """One student as the LMS files name them."""

    nbgrader_id: str
    name: str = ""  # Canvas's "Student" (its export writes "Last, First")
    first_name: str = ""
    last_name: str = ""
    canvas_id: str = ""  # Canvas's user "ID"
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    email: str = ""
    id_number: str = ""  # Moodle's "ID number"


def read_mapping(path):
    """Return {nbgrader id: {column: value}} of a student-id mapping file (``--students``: a CSV with the
    column ``nbgrader_id`` and any of ``MAPPING_COLUMNS``); raise ValueError on a missing ``nbgrader_id``
    column, an unknown column or an id given twice."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = spreadsheet.DictReader(handle)
        columns = [name.strip() for name in reader.fieldnames or []]
        if "nbgrader_id" not in columns:
            raise ValueError(
                f"{path}: the student-id mapping needs a column 'nbgrader_id' "
                f"(and any of: {', '.join(MAPPING_COLUMNS[1:])})"
            )
        unknown = [name for name in columns if name not in MAPPING_COLUMNS]
        if unknown:
            raise ValueError(f"{path}: unknown columns {unknown}; known: {', '.join(MAPPING_COLUMNS)}")
        mapping = {}
        for number, row in enumerate(reader, start=2):
            row = {key.strip(): (value or "").strip() for key, value in row.items() if key}
            student = row["nbgrader_id"]
            if not student:
                continue
            if student in mapping:
                raise ValueError(f"{path}: line {number}: nbgrader_id {student!r} appears twice")
            mapping[student] = {key: value for key, value in row.items() if value}
    return mapping


@dataclass
class Totals:
    assignment: str
    max_score: float
    scores: dict  # {nbgrader id: total score, less its late penalty}
    awaiting: dict  # {nbgrader id: points of hand-graded cells not graded yet}
    students: dict  # {nbgrader id: Student}, everyone with a submission or in the mapping
    late: dict = field(default_factory=dict)  # {nbgrader id: how late, and what it cost}


def totals(gradebook, assignment, mapping=None):
    """Read the assignment's totals and the students' records from an open ``Gradebook``; ``mapping``
    overrides the records."""
    mapping = mapping or {}
    scores, awaiting, students, late = {}, {}, {}, {}
    max_score = float(gradebook.find_assignment(assignment).max_score)
    for submission in gradebook.assignment_submissions(assignment):
        if not handed_in(submission):
            continue
        scores[submission.student_id] = sum(notebook_points(notebook)["score"] for notebook in submission.notebooks)
        late[submission.student_id] = late_text(submission)
        awaiting[submission.student_id] = sum(
            float(grade.max_score)
            for notebook in submission.notebooks
            for grade in notebook.grades
            if grade.needs_manual_grade and grade.manual_score is None
        )
    for record in gradebook.students:
        if record.id in scores or record.id in mapping:
            students[record.id] = Student(
                record.id,
                first_name=record.first_name or "",
                last_name=record.last_name or "",
                email=record.email or "",
                canvas_id=record.lms_user_id or "",
            )
    for student, values in mapping.items():
        base = students.get(student, Student(student))
        students[student] = replace(base, **{key: value for key, value in values.items() if key != "nbgrader_id"})
    return Totals(assignment, max_score, scores, awaiting, students, late)


def _score(value):
    return "" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def _canvas_name(student):
    if student.name:
        return student.name
    if student.last_name or student.first_name:
        return ", ".join(part for part in (student.last_name, student.first_name) if part)
    return student.nbgrader_id


def canvas_column(assignment, canvas_assignment_id=None):
    """The Canvas header of an assignment's column: ``<name> (<id>)``, or the name alone."""
    return f"{assignment} ({canvas_assignment_id})" if canvas_assignment_id else assignment


def write_canvas(totals, path, canvas_assignment_id=None, item_name=None):
    """Write the Canvas gradebook CSV; return its rows (after the header and Points Possible).

    Canvas (Grades > Import) reads a header ``Student, ID, SIS User ID, SIS Login ID, Section`` and one
    column per assignment, ``<name> (<Canvas assignment id>)`` (without an id Canvas creates an
    assignment of that name), then an optional ``Points Possible`` row; it finds each student by ``ID``,
    then ``SIS User ID``, ``SIS Login ID``, then the name. It has no ``late`` column: Canvas would
    read one as an assignment; its totals are less their late penalties."""
    column = canvas_column(item_name or totals.assignment, canvas_assignment_id)
    rows = [
        {
            "Student": _canvas_name(s),
            "ID": s.canvas_id,
            "SIS User ID": s.sis_user_id,
            "SIS Login ID": s.sis_login_id or s.nbgrader_id,
            "Section": s.section,
            column: _score(totals.scores.get(s.nbgrader_id)),
        }
        for s in sorted(totals.students.values(), key=lambda s: (_canvas_name(s).lower(), s.nbgrader_id))
    ]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=[*CANVAS_STUDENT_COLUMNS, column])
        writer.writeheader()
        writer.writerow({"Student": CANVAS_POINTS_POSSIBLE, column: _score(totals.max_score)})
        writer.writerows(rows)
    return rows


def _first_last(student):
    """(first name, last name) for Moodle: the records', else the name split (Canvas's ``Last, First``,
    or Moodle's own full name, ``First Last``, at its last space)."""
    if student.first_name or student.last_name:
        return student.first_name, student.last_name
    name = student.name.strip()
    if "," in name:
        last, first = (part.strip() for part in name.split(",", 1))
    else:
        first, _, last = name.rpartition(" ")
    return (first, last) if first else (last, "")


def write_moodle(totals, path, item_name=None):
    """Write the Moodle grade import CSV; return its rows.

    Moodle (Grades > Import > CSV file) reads any header: its import page maps a column such as
    ``Email address`` (to ``useremail``) or ``ID number`` (to ``useridnumber``) to its users, and each
    other column to a grade item or its feedback (``late``: how late, and what it cost); every row has
    as many fields as the header."""
    column = item_name or totals.assignment
    rows = [
        {
            "First name": _first_last(s)[0],
            "Last name": _first_last(s)[1],
            "ID number": s.id_number or s.nbgrader_id,
            "Email address": s.email,
            column: _score(totals.scores.get(s.nbgrader_id)),
            "late": totals.late.get(s.nbgrader_id, ""),
        }
        for s in sorted(totals.students.values(), key=lambda s: s.nbgrader_id)
    ]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=[*MOODLE_STUDENT_COLUMNS, column, "late"])
        writer.writeheader()
        writer.writerows(rows)
    return rows


def notes(totals, mapping=None):
    """Lines an instructor should read before importing: hand grades still missing, students without
    a submission, submissions of students the mapping does not name."""
    found = []
    waiting = sorted(student for student, points in totals.awaiting.items() if points)
    if waiting:
        found.append(
            f"{len(waiting)} submissions have hand-graded cells not graded yet, counted as 0 in the "
            f"totals (grade them in formgrader, then run report again): {', '.join(waiting[:10])}"
            + (" ..." if len(waiting) > 10 else "")
        )
    absent = sorted(set(totals.students) - set(totals.scores))
    if absent:
        found.append(
            f"{len(absent)} students of the mapping have no submission (left blank): "
            f"{', '.join(absent[:10])}" + (" ..." if len(absent) > 10 else "")
        )
    if mapping is not None:
        unmapped = sorted(set(totals.scores) - set(mapping))
        if unmapped:
            found.append(
                f"{len(unmapped)} students are not in the mapping file (their nbgrader id is used as "
                f"the SIS Login ID and ID number): {', '.join(unmapped[:10])}" + (" ..." if len(unmapped) > 10 else "")
            )
    return found
