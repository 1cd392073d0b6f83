"""``python -m autograder.hub.roster_to_gradebook DB_URL`` (the students as JSON on stdin), as the course
account: each student of the roster in the course's gradebook, added or updated (their names and email
where the roster gives them)."""

import json
import sys

from nbgrader.api import Gradebook


def main(url, students):
    with Gradebook(url) as gradebook:
        for student in students:
            fields = {key: value for key, value in student.items() if key != "id" and value}
            gradebook.update_or_create_student(student["id"], **fields)


if __name__ == "__main__":
    main(sys.argv[1], json.load(sys.stdin))
