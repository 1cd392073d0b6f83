"""What grading gives people: students' feedback, the instructor's report, item analysis and LMS
files, and the grading guide."""
