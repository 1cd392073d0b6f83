"""nbgrader configuration for the course. The course directory is the repo root."""
import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import GetGrades

from autograder.feedback import HideHiddenTests

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "bdl"

# Grading mode (NBGRADER_EXECUTION) keeps every cell to seconds; this bound only
# stops a submission that loops forever.
c.Execute.timeout = 300

# nbgrader scores a test cell zero when it writes to stderr. bdl silences
# TensorFlow at the source; this drops any TensorFlow or absl log line that
# still gets through, and nothing else.
c.IgnorePattern.pattern = (
    r"(^|\n)(WARNING|INFO):(tensorflow|absl)"
    # C++ log lines, absl's format ("I0000 00:00:...  123 file.cc:42]") and
    # TensorFlow's ("2026-01-01 00:00:00.000000: I path/file.cc:42]")
    r"|(^|\n)([IWEF]\d{4} \S+ +\d+ |\S+ \S+: [IWEF] )\S+\.(cc|h):\d+\]"
    r"|oneDNN custom operations are on"
)

# The kernel's own start-up notices (e.g. "running over TCP without
# encryption" on a local machine) are not the student's output: keep them out
# of the instructor's terminal.
c.Execute.extra_arguments = ["--IPKernelApp.log_level=ERROR"]

# Feedback goes to students: nbgrader's pipeline plus HideHiddenTests, which
# leaves the visible tests, a pass/fail line for the hidden ones and the
# failing assertion's message, never hidden code or tracebacks.
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
