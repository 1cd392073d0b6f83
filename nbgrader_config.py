"""nbgrader configuration for the course. The course directory is the repo root."""
import os

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
    r"|(^|\n)[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.(cc|h):\d+\]"
    r"|oneDNN custom operations are on"
)
