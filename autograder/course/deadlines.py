"""Due dates, extensions and late penalties: ``deadline`` and ``extension``.

The due date and each student's extension live in nbgrader's own gradebook columns
(``Assignment.duedate``, ``SubmittedAssignment.extension``), so nbgrader's ``total_seconds_late``
counts from the time it recorded (the exchange's ``timestamp.txt``). The policy, a percentage of each
notebook's points per started day late up to a cap, is kept in ``late_penalties.json`` in the course
directory; none set, none lost. The penalty goes into nbgrader's ``late_submission_penalty``, which
its feedback and export subtract, computed again whenever what it depends on changes (a grading run,
a due date, policy or extension, a report or feedback after hand grading). nbgrader's ``LateSubmissionPlugin``
runs only inside autograde, and sees the score alone.
"""

import datetime
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from nbgrader import utils
from nbgrader.api import Gradebook, MissingEntry

from autograder.course.cli import course_options, db_url, non_negative_number, percent
from autograder.course.directory import check_result, make_api, slug
from autograder.course.gradebook import handed_in, how_late, late_text

POLICY_FILE = "late_penalties.json"
DAY = 86400.0


@dataclass(frozen=True)
class Policy:
    """What a late hand-in costs: ``per_day`` percent of each notebook's points per started day late,
    at most ``cap`` percent. The default costs nothing."""

    per_day: float = 0.0
    cap: float = 100.0

    def percent(self, seconds_late):
        return min(self.cap, self.per_day * math.ceil(seconds_late / DAY)) if seconds_late > 0 else 0.0

    def __str__(self):
        return f"{self.per_day:g}% of the points per started day late, at most {self.cap:g}%"


def _policy_path(root):
    return Path(root) / POLICY_FILE


def _percent(value, what):
    if not 0 <= value <= 100:
        raise ValueError(f"{what} must be a percentage from 0 to 100, not {value:g}")
    return float(value)


def read_policy(root, assignment):
    """The assignment's ``Policy`` (the default if none was set); ValueError in one line if the
    policy file cannot be read."""
    path = _policy_path(root)
    if not path.exists():
        return Policy()
    try:
        entry = json.loads(path.read_text()).get(assignment, {})
        return Policy(
            _percent(float(entry.get("per_day", 0)), "per_day"), _percent(float(entry.get("cap", 100)), "cap")
        )
    except (ValueError, TypeError, AttributeError) as error:
        raise ValueError(
            f"{path}: not a late-penalty file ({error}); set it again with `autograder deadline`"
        ) from None


def save_policy(root, assignment, policy):
    path = _policy_path(root)
    policies = json.loads(path.read_text()) if path.exists() else {}
    policies[assignment] = asdict(policy)
    path.write_text(json.dumps(policies, indent=1, sort_keys=True) + "\n")


def parse_due(text):
    """A due date given as ISO 8601 (``2026-03-01T23:59+01:00``; without an offset, UTC), as the
    gradebook keeps it (naive UTC); ValueError in one line."""
    try:
        if "T" not in text.upper() and " " not in text.strip():
            raise ValueError  # a date alone would be midnight UTC, most likely a day early
        return utils.parse_utc(datetime.datetime.fromisoformat(text))
    except ValueError:
        raise ValueError(f"--due {text!r} is not an ISO 8601 date and time, e.g. 2026-03-01T23:59+01:00") from None


def marked_late_time(db_url, assignment):
    """The time given a hand-in its LMS marks late without a time (Canvas's LATE): a second past the due
    date, the least late it can be; None without a due date. Never a time the student wrote."""
    with Gradebook(db_url) as gradebook:
        try:
            due = gradebook.find_assignment(assignment).duedate
        except MissingEntry:
            return None
    return due + datetime.timedelta(seconds=1) if due else None


def apply(db_url, root, assignment, policy=None):
    """Set every handed-in notebook's late penalty from the policy, its submission's time, the due
    date and the student's extension; return {student: late text} of the late ones."""
    policy = policy or read_policy(root, assignment)
    late = {}
    with Gradebook(db_url) as gradebook:
        for submission in gradebook.assignment_submissions(assignment):
            percent = policy.percent(submission.total_seconds_late)
            for notebook in submission.notebooks:
                # Never more than the notebook scored (nbgrader's AssignLatePenalties clips the same way).
                points = min(float(notebook.score), float(notebook.max_score) * percent / 100)
                notebook.late_submission_penalty = round(points, 6) if points > 0 else None
            gradebook.db.commit()
            text = late_text(submission)
            if text:
                late[submission.student_id] = text
    return late


def set_deadline(db_url, root, assignment, due=None, per_day=None, cap=None):
    """Set what is given of the due date and the policy, and apply it; return {student: late text}."""
    policy = read_policy(root, assignment)
    if per_day is not None or cap is not None:
        policy = Policy(
            _percent(policy.per_day if per_day is None else per_day, "--per-day"),
            _percent(policy.cap if cap is None else cap, "--cap"),
        )
        save_policy(root, assignment, policy)
    with Gradebook(db_url) as gradebook:
        if due is not None:
            gradebook.update_or_create_assignment(assignment, duedate=due)
    return apply(db_url, root, assignment, policy)


def grant(db_url, root, assignment, student, days=0.0, hours=0.0):
    """Give ``student`` an extension of ``days`` and ``hours`` (both 0: none), replacing any earlier
    one, and apply the policy; a student with no submission yet gets an empty one in the gradebook,
    which holds the extension (nbgrader keeps it there)."""
    if not (0 <= days <= 3650 and 0 <= hours <= 24 * 3650):  # and not NaN
        raise ValueError(f"an extension is 0 to 3650 days, not {days:g} days {hours:g} hours")
    with Gradebook(db_url) as gradebook:
        try:
            generated = bool(gradebook.find_assignment(assignment).notebooks)
        except MissingEntry:
            generated = False
    if not generated:  # nbgrader refuses to add notebooks to an assignment once it has a submission
        api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
        check_result(
            api.generate_assignment(assignment, force=True, create=True), f"nbgrader generate_assignment {assignment}"
        )
    with Gradebook(db_url) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            submission = None
        if submission is None:
            if days == hours == 0:
                return apply(db_url, root, assignment)  # no extension to hold
            gradebook.update_or_create_student(student)
            gradebook.add_submission(assignment, student)
        elif days == hours == 0 and not handed_in(submission):
            # the row held only the extension: without it, it would read as an empty hand-in
            gradebook.remove_submission(assignment, student)
            return apply(db_url, root, assignment)
        gradebook.grant_extension(assignment, student, days=days, hours=hours)
    return apply(db_url, root, assignment)


def summary(db_url, root, assignment):
    """Lines that say the assignment's due date, policy, extensions and late hand-ins."""
    lines = []
    with Gradebook(db_url) as gradebook:
        try:
            due = gradebook.find_assignment(assignment).duedate
        except MissingEntry:
            due = None
        lines.append(f"{assignment}: due {due:%Y-%m-%d %H:%M} UTC" if due else f"{assignment}: no due date")
        lines.append(f"late penalty: {read_policy(root, assignment)}")
        for submission in sorted(gradebook.assignment_submissions(assignment), key=lambda s: s.student_id):
            notes = [f"extension {how_late(submission.extension.total_seconds())}"] if submission.extension else []
            notes += [late_text(submission)] if submission.total_seconds_late else []
            notes += [] if handed_in(submission) else ["nothing handed in yet"]
            if notes:
                lines.append(f"  {submission.student_id}: {'; '.join(notes)}")
    return lines


def _deadline(args):
    url = db_url(args)
    due = parse_due(args.due) if args.due else None
    if due is not None or args.per_day is not None or args.cap is not None:
        set_deadline(url, args.root, args.assignment, due, args.per_day, args.cap)
    print("\n".join(summary(url, args.root, args.assignment)))
    return 0


def _extension(args):
    if slug(args.student) != args.student:  # as ``grade`` names students
        raise ValueError(f"not a student id (letters, digits, '_', '.', '-'): {args.student!r}")
    url = db_url(args)
    grant(url, args.root, args.assignment, args.student, args.days, args.hours)
    print("\n".join(summary(url, args.root, args.assignment)))
    return 0


def add_parser(commands):
    deadline = commands.add_parser(
        "deadline",
        help="set or show an assignment's due date and late penalty (graded hand-ins' penalties follow at once)",
    )
    deadline.add_argument("assignment")
    deadline.add_argument(
        "--due",
        metavar="ISO8601",
        help="the due date, e.g. 2026-03-01T23:59+01:00 (no offset: UTC; default: as set before, at first none)",
    )
    deadline.add_argument(
        "--per-day",
        type=percent,
        metavar="PERCENT",
        help="percent of the points lost per started day late (default: as set before, at first 0)",
    )
    deadline.add_argument(
        "--cap",
        type=percent,
        metavar="PERCENT",
        help="at most this percent lost (default: as set before, at first 100)",
    )
    course_options(deadline)
    deadline.set_defaults(run=_deadline)
    extension = commands.add_parser("extension", help="give one student more time for an assignment")
    extension.add_argument("assignment")
    extension.add_argument("student", help="the student's id in the gradebook")
    extension.add_argument(
        "--days", type=non_negative_number, default=0.0, help="days added to the due date (default 0)"
    )
    extension.add_argument(
        "--hours", type=non_negative_number, default=0.0, help="hours added (default 0; both 0: no extension)"
    )
    course_options(extension)
    extension.set_defaults(run=_extension)
