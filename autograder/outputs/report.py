"""An assignment's grades for the instructor: a CSV and a histogram of the scores, the item analysis
and the likely mistakes its failing tests noted (``autograder.outputs.items``) and the totals for the LMS
(``autograder.outputs.lms``).

Everything is read from nbgrader's gradebook (scores, per-cell points, hand grades entered in
formgrader), the statuses ``grade`` recorded in ``grading_status/<assignment>.json`` and the
autograded notebooks.
"""

from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.course import deadlines, spreadsheet
from autograder.course.cli import course_options, db_url
from autograder.course.gradebook import check_graded, handed_in, late_text, notebook_points
from autograder.course.statuses import load_statuses
from autograder.outputs import items, lms


def gradebook_rows(gradebook, assignment, statuses):
    """Return (rows, cell ids) from an open ``Gradebook``: one row per submitted notebook, with each
    grade cell's points and the status ``grade`` recorded."""
    rows, cells = [], []
    for notebook in gradebook.find_assignment(assignment).notebooks:
        cells += [
            f"{notebook.name}:{cell.name}"
            for cell in notebook.grade_cells
            if f"{notebook.name}:{cell.name}" not in cells
        ]
    for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
        if not handed_in(submission):
            continue
        for notebook in submission.notebooks:
            points = notebook_points(notebook)
            row = {
                "student": submission.student_id,
                "notebook": notebook.name,
                "score": points["score"],
                "max_score": points["max_score"],
                "late": late_text(submission, notebook),
                "status": statuses.get(
                    f"{submission.student_id}/{notebook.name}", "graded (before grading statuses were recorded)"
                ),
            }
            for grade in notebook.grades:
                row[f"{notebook.name}:{grade.name}"] = float(grade.score)
            rows.append(row)
    return rows, cells


@dataclass
class Report:
    """What ``write_report`` wrote: {what: path}, the item rows, and notes for the instructor."""

    submissions: int
    files: dict
    items: list
    notes: list = field(default_factory=list)


def write_report(
    root,
    assignment,
    db_url,
    out=None,
    csv_path=None,
    png_path=None,
    students=None,
    canvas_assignment_id=None,
    lms_item=None,
):
    """Write every output of ``report`` into ``out`` (default ``root/reports``): the scores CSV and
    histogram, the item analysis CSV and figure, the Canvas and Moodle files. ``students`` is a
    student-id mapping file; ``canvas_assignment_id`` and ``lms_item`` name the assignment's column."""
    mapping = lms.read_mapping(students) if students else None  # a bad mapping stops before any file
    out = Path(out) if out else Path(root) / "reports"
    files = {
        "scores": Path(csv_path) if csv_path else out / f"{assignment}.csv",
        "histogram": Path(png_path) if png_path else out / f"{assignment}_scores.png",
        "items": out / f"{assignment}_items.csv",
        "points lost": out / f"{assignment}_points_lost.png",
        "mistakes": out / f"{assignment}_mistakes.csv",
        "mistakes figure": out / f"{assignment}_mistakes.png",
        "Canvas": out / f"{assignment}_canvas.csv",
        "Moodle": out / f"{assignment}_moodle.csv",
    }
    statuses = load_statuses(root, assignment)  # the statuses and the gradebook are read once
    deadlines.apply(db_url, root, assignment)  # again: a hand grade since may change what it may cost
    with Gradebook(db_url) as gradebook:
        scores, cells = gradebook_rows(gradebook, assignment, statuses)
        rows = items.item_rows(root, assignment, gradebook, statuses)
        totals = lms.totals(gradebook, assignment, mapping)
    count = _write_scores(scores, cells, assignment, files["scores"], files["histogram"])
    items.write_items(rows, files["items"])
    items.points_lost_figure(rows, assignment, files["points lost"])
    items.write_mistakes(rows, files["mistakes"])
    items.mistakes_figure(rows, assignment, files["mistakes figure"])
    lms.write_canvas(totals, files["Canvas"], canvas_assignment_id, lms_item)
    lms.write_moodle(totals, files["Moodle"], lms_item)
    return Report(count, files, rows, _to_read(statuses) + lms.notes(totals, mapping))


def _to_read(statuses):
    """A note per submission whose code a person should read before trusting its score: the review's
    flags (``autograder.grading.review``) in its status."""
    return [
        f"read {key} before trusting its score: {status[status.index('review: ') :]}"
        for key, status in sorted(statuses.items())
        if "review: " in status
    ]


def _write_scores(rows, cells, assignment, csv_path, png_path):
    """Write the CSV and the score histogram; return the number of submissions."""
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    with open(csv_path, "w", newline="") as handle:
        writer = spreadsheet.DictWriter(
            handle, fieldnames=["student", "notebook", "score", "max_score", *cells, "late", "status"], restval=""
        )
        writer.writeheader()
        writer.writerows(rows)
    totals, maximum = {}, {}
    for row in rows:
        totals[row["student"]] = totals.get(row["student"], 0) + row["score"]
        maximum[row["student"]] = maximum.get(row["student"], 0) + row["max_score"]
    _histogram(list(totals.values()), max(maximum.values(), default=0), assignment, png_path)
    return len(totals)


def _histogram(scores, max_score, assignment, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    bins = max(1, min(20, int(max_score) + 1))
    axes.hist(scores, bins=bins, range=(0, max(max_score, 1)), color="tab:blue", edgecolor="white")
    axes.set_title(f"{assignment}: automatic scores of {len(scores)} submissions")
    axes.set_xlabel(f"score (of {max_score:g}; hand-graded answers count once graded)")
    axes.set_ylabel("submissions")
    figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _report(args):
    url = db_url(args)
    check_graded(url, args.assignment)
    written = write_report(
        Path(args.root),
        args.assignment,
        url,
        args.out,
        args.csv,
        args.png,
        args.students,
        args.canvas_assignment_id,
        args.lms_item,
    )
    print(items.format_items(written.items) + "\n")
    for note in written.notes:
        print(f"note: {note}")
    print(f"{written.submissions} submissions:")
    print("\n".join(f"  {what:<12} {path}" for what, path in written.files.items()))
    return 0


def add_parser(commands):
    report_cmd = commands.add_parser(
        "report",
        help="from the gradebook: the scores (CSV, histogram), the "
        "item analysis (CSV, figure) and the totals for Canvas and Moodle",
    )
    report_cmd.add_argument("assignment")
    report_cmd.add_argument("--out", help="the folder of every output (default: ROOT/reports)")
    report_cmd.add_argument("--csv", help="the scores CSV (default: OUT/<assignment>.csv)")
    report_cmd.add_argument("--png", help="the score histogram (default: OUT/<assignment>_scores.png)")
    report_cmd.add_argument(
        "--students",
        metavar="CSV",
        help="student-id mapping: nbgrader_id and any of name, first_name, last_name, "
        "canvas_id, sis_user_id, sis_login_id, section, email, id_number",
    )
    report_cmd.add_argument(
        "--canvas-assignment-id", metavar="ID", help="the assignment's id in Canvas: its column becomes '<name> (<ID>)'"
    )
    report_cmd.add_argument(
        "--lms-item", metavar="NAME", help="the assignment's name in the LMS (default: the assignment id)"
    )
    course_options(report_cmd)
    report_cmd.set_defaults(run=_report)
