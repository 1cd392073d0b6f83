"""nbgrader's HTML feedback for every graded student of an assignment."""
from pathlib import Path

from nbgrader.api import Gradebook

from autograder.course import make_api


def write_feedback(root, assignment, db_url):
    """Generate nbgrader's HTML feedback for every graded student; return (written, problems)."""
    api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
    written, problems = [], []
    with Gradebook(db_url) as gradebook:
        students = sorted(s.student_id for s in gradebook.assignment_submissions(assignment))
    for student in students:
        if not (Path(root) / "autograded" / student / assignment).exists():
            problems.append(f"{student}: no autograded notebook (grade it first)")
            continue
        result = api.generate_feedback(assignment, student, force=True)
        if result["success"]:
            written += sorted(str(p) for p in (Path(root) / "feedback" / student / assignment).glob("*.html"))
        else:
            problems.append(f"{student}: {(result['error'] or result['log']).strip().splitlines()[-1]}")
    return written, problems
