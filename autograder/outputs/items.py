"""Item analysis of a graded assignment: for each graded cell, how many submissions lost it, its mean,
and why; and a figure of the points lost per graded cell across the class.

Scores come from the gradebook, so hand grades entered in formgrader count (a manual cell not graded
yet is *awaiting*, not lost). Why a test cell was lost comes from the instructor's autograded
notebooks (``autograded/<student>/<assignment>/``): the error its tests raised, the assertion
message that says what was checked. Messages that differ only in their numbers are one group.

Failures are also grouped by the mistake ``bdl.diagnoses`` noted under them ("31 submissions
seem to use the scale as the variance"): the instructor's first lines, a CSV and a bar chart.
"""

import re
from collections import Counter
from pathlib import Path

import nbformat

from autograder.course import cells, spreadsheet
from autograder.course.gradebook import handed_in
from autograder.course.table import format_table
from bdl.words import ANSI

# A number on its own (not the 32 of float32): "shape (5, 3)" and "shape (2, 4)" are one message.
NUMBER = re.compile(r"(?<![A-Za-z_\d.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![A-Za-z_\d])")
TOP_MESSAGES = 3
MESSAGE_LENGTH = 200
COLUMNS = ["notebook", "cell", "kind", "max_score", "submissions", "lost", "awaiting", "mean_score", "points_lost"] + [
    f"{what}_{rank}" for rank in range(1, TOP_MESSAGES + 1) for what in ("message", "count")
]


def error_message(output):
    """One line saying why a cell failed, from its error output: the assertion's message, or the
    exception's name and message."""
    lines = [line.strip() for line in ANSI.sub("", output.get("evalue", "") or "").splitlines() if line.strip()]
    message = lines[0] if lines else ""
    name = output.get("ename", "Error")
    if name == "NotImplementedError":  # the examiner says which function raised it: the release's stub
        return STUB
    text = message if name == "AssertionError" and message else f"{name}: {message}" if message else name
    return text[:MESSAGE_LENGTH]


def message_group(message):
    """The key that groups messages differing only in their numbers."""
    return NUMBER.sub("#", message)


def _cell_messages(path):
    """({grade_id: why the test cell failed, or None when it raised nothing}, {grade_id: the mistake
    noted under its error}) of an autograded notebook."""
    from bdl.diagnoses import noted  # its recognisers load TensorFlow: only here, not for every command

    found, mistakes = {}, {}
    for cell in nbformat.read(path, 4).cells:
        if not cells.is_test(cell):
            continue
        outputs = cell.get("outputs", [])
        error = next((output for output in outputs if output.get("output_type") == "error"), None)
        if error is not None:
            found[cells.grade_id(cell)] = error_message(error)
            mistakes[cells.grade_id(cell)] = noted("\n".join(error.get("traceback", [])))
        elif any(output.get("name") == "stderr" for output in outputs):
            found[cells.grade_id(cell)] = "wrote to stderr (nbgrader scores such a cell zero)"
        else:
            found[cells.grade_id(cell)] = None
    return found, mistakes


# Reasons that say nothing about the answer: shown after the tests' own messages of the same count.
GENERIC = ("not graded", "no autograded notebook", "cell missing", "score set by hand", "no error shown")
STUB = "NotImplementedError: not answered (the release's stub raises it)"


def _tier(message):
    """0 for a test's own message (what was checked), 1 for the release's stub, 2 for the rest."""
    return 2 if message.startswith(GENERIC) else 1 if message == STUB else 0


def _why_lost(grade, messages, status):
    """Why a test cell scored below its maximum in one submission."""
    if grade.manual_score is not None:
        return "score set by hand in formgrader"
    if messages is None:
        # Without the student's own log file and the notes after it (a review's flags), so that one reason
        # groups every student it hit.
        reason = status.split(" (log: ")[0]
        return f"not graded ({reason})" if status.startswith("error") else "no autograded notebook"
    if grade.name not in messages:
        return "cell missing from the submission" + (" (awaiting a grade by hand)" if grade.needs_manual_grade else "")
    return messages[grade.name] or f"no error shown (scored {float(grade.score):g})"


def item_rows(root, assignment, gradebook, statuses):
    """Return one row per graded cell of the assignment (see ``COLUMNS``), in notebook order, from an
    open ``Gradebook`` and the statuses ``grade`` recorded; each row also holds ``messages``: every
    (message, count) group, most common first."""
    rows = {}
    for notebook in gradebook.find_assignment(assignment).notebooks:
        # graded cells (a markdown one is graded by hand), then task cells (always by hand)
        cells = [(cell, "manual" if cell.cell_type == "markdown" else "automatic") for cell in notebook.grade_cells]
        for cell, kind in cells + [(task, "manual") for task in notebook.task_cells]:
            rows[(notebook.name, cell.name)] = {
                "notebook": notebook.name,
                "cell": cell.name,
                "kind": kind,
                "max_score": float(cell.max_score),
                "submissions": 0,
                "lost": 0,
                "awaiting": 0,
                "scores": [],
                "reasons": [],
                "mistakes": Counter(),
            }
    for submission in gradebook.assignment_submissions(assignment):
        if not handed_in(submission):  # a row that only holds an extension
            continue
        for notebook in submission.notebooks:
            path = Path(root) / "autograded" / submission.student_id / assignment / f"{notebook.name}.ipynb"
            messages, mistakes = _cell_messages(path) if path.exists() else (None, {})
            status = statuses.get(f"{submission.student_id}/{notebook.name}", "graded")
            for grade in notebook.grades:
                row = rows.get((notebook.name, grade.name))
                if row is None:
                    continue
                row["submissions"] += 1
                if row["kind"] == "manual" and grade.needs_manual_grade and grade.manual_score is None:
                    row["awaiting"] += 1
                    continue
                score = float(grade.score)
                row["scores"].append(score)
                if score < row["max_score"]:
                    row["lost"] += 1
                    if row["kind"] == "automatic":
                        row["reasons"].append(_why_lost(grade, messages, status))
                        if grade.manual_score is None and mistakes.get(grade.name):
                            row["mistakes"][mistakes[grade.name]] += 1
    return [_finish(row) for row in rows.values()]


def _finish(row):
    scores, reasons = row.pop("scores"), row.pop("reasons")
    row["mean_score"] = round(sum(scores) / len(scores), 4) if scores else None
    row["points_lost"] = round(sum(row["max_score"] - score for score in scores), 4)
    groups = {}
    for reason in reasons:
        groups.setdefault(message_group(reason), Counter())[reason] += 1
    # each group shown by its most common message; the largest groups first, and of groups as large
    # the ones that say what a test checked
    row["messages"] = sorted(
        ((counter.most_common(1)[0][0], sum(counter.values())) for counter in groups.values()),
        key=lambda item: (-item[1], _tier(item[0]), item[0]),
    )
    for rank in range(1, TOP_MESSAGES + 1):
        message, count = row["messages"][rank - 1] if rank <= len(row["messages"]) else ("", "")
        row[f"message_{rank}"], row[f"count_{rank}"] = message, count
    return row


def mistake_rows(rows):
    """[{notebook, cell, mistake, submissions}]: each mistake noted under a lost test cell, with how
    many submissions it was noted in, the most common first."""
    found = [
        {"notebook": row["notebook"], "cell": row["cell"], "mistake": mistake, "submissions": count}
        for row in rows
        for mistake, count in row["mistakes"].items()
    ]
    return sorted(found, key=lambda item: (-item["submissions"], item["notebook"], item["cell"], item["mistake"]))


def format_mistakes(rows):
    """One line per noted mistake, the most common first: what the instructor reads first."""
    return "\n".join(
        f"{item['submissions']} submission{'s' if item['submissions'] != 1 else ''} "
        f"({cells.answer_id(item['cell'])}): {item['mistake']}"
        for item in mistake_rows(rows)
    )


def write_mistakes(rows, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=["notebook", "cell", "mistake", "submissions"])
        writer.writeheader()
        writer.writerows(mistake_rows(rows))


def write_items(rows, path):
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "mean_score": "" if row["mean_score"] is None else row["mean_score"]})


def format_items(rows):
    """The item analysis for the terminal: the noted mistakes, then a table of the graded cells."""
    mistakes = format_mistakes(rows)
    lines = ["likely mistakes, the most common first:", mistakes, ""] if mistakes else []
    header = ("cell", "kind", "max", "lost", "of", "await", "mean", "most common failure (count)")
    lines.append(
        format_table(
            header,
            [
                (
                    row["cell"],
                    row["kind"],
                    f"{row['max_score']:g}",
                    str(row["lost"]),
                    str(row["submissions"] - row["awaiting"]),
                    str(row["awaiting"]),
                    "-" if row["mean_score"] is None else f"{row['mean_score']:.2f}",
                    f"{row['message_1'][:70]} ({row['count_1']})" if row["message_1"] else "",
                )
                for row in rows
            ],
            right=(2, 3, 4, 5, 6),
        )
    )
    return "\n".join(lines)


def points_lost_figure(rows, assignment, path):
    """A horizontal bar per graded cell: points lost across the class, in automatic tests and in
    hand-graded answers, and the points of hand-graded answers still awaiting a grader."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    several = len({row["notebook"] for row in rows}) > 1
    labels = [
        (f"{row['notebook']}: " if several else "")
        + (cells.answer_id(row["cell"]) if row["kind"] == "automatic" else f"{row['cell']} (by hand)")
        for row in rows
    ]
    lost = [row["points_lost"] for row in rows]
    awaiting = [row["awaiting"] * row["max_score"] for row in rows]
    submissions = max((row["submissions"] for row in rows), default=0)
    colours = {"automatic": "tab:red", "manual": "tab:purple"}
    figure, axes = plt.subplots(figsize=(8.5, 1.6 + 0.36 * max(len(rows), 1)))
    positions = list(range(len(rows)))
    axes.barh(positions, lost, color=[colours[row["kind"]] for row in rows])
    axes.barh(positions, awaiting, left=lost, color="none", edgecolor="grey", hatch="//")
    for position, row, end in zip(positions, rows, [a + b for a, b in zip(lost, awaiting)]):
        graded = row["submissions"] - row["awaiting"]
        text = f" lost by {row['lost']} of {graded}" + (f", {row['awaiting']} awaiting" if row["awaiting"] else "")
        axes.text(end, position, text, va="center", fontsize=8)
    axes.set_yticks(positions, labels)
    axes.invert_yaxis()
    axes.set_xlim(0, max([a + b for a, b in zip(lost, awaiting)] + [1]) * 1.45)
    axes.set_xlabel("points lost, summed over the class")
    axes.set_ylabel("graded function or answer")
    axes.set_title(f"{assignment}: points lost per graded cell ({submissions} submissions)")
    figure.legend(
        handles=[
            Patch(color=colours["automatic"], label="lost in automatic tests"),
            Patch(color=colours["manual"], label="lost in hand-graded answers"),
            Patch(facecolor="none", edgecolor="grey", hatch="//", label="hand-graded, awaiting a grader"),
        ],
        loc="lower center",
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


def mistakes_figure(rows, assignment, path, top=12):
    """A horizontal bar per noted mistake (the ``top`` most common): how many submissions made it."""
    import textwrap

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    found = mistake_rows(rows)[:top]
    labels = ["\n".join(textwrap.wrap(f"{cells.answer_id(item['cell'])}: {item['mistake']}", 70)) for item in found]
    figure, axes = plt.subplots(figsize=(10, 1.6 + 0.62 * max(len(found), 1)))
    positions = list(range(len(found)))
    axes.barh(positions, [item["submissions"] for item in found], color="tab:orange")
    axes.set_yticks(positions, labels, fontsize=7)
    axes.invert_yaxis()
    axes.xaxis.get_major_locator().set_params(integer=True)
    axes.set_xlabel("submissions whose failing test noted this mistake")
    axes.set_title(f"{assignment}: the most common likely mistakes")
    if not found:
        axes.text(0.5, 0.5, "no test noted a likely mistake", ha="center", va="center", transform=axes.transAxes)
    figure.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
