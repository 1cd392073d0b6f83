"""What grading gives people: students' feedback, the instructor's report, item analysis and LMS
files, and the grading guide.

Never imports ``worker``: what the examiner decided a student reads travels as data in the autograded
notebooks (``autograder.course.decision``)."""
