"""nbgrader configuration for the course. The course directory is the repo root."""

import os

import nbgrader
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import GetGrades

import autograder.outputs
from autograder.course.directory import COURSE_ID, KERNEL_LOG_LEVEL
from autograder.course.exchange import OwnedCollect
from autograder.course.gate import Refusing
from autograder.outputs.feedback import HideHiddenTests
from autograder.outputs.late import LateNote

c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = COURSE_ID

# The exchange: where release_assignment puts assignments, students fetch and
# submit them, and release_feedback puts feedback. By default `exchange/` in
# the course directory (git-ignored), which works when instructor and students
# share one machine; on a JupyterHub point BDL_EXCHANGE at a directory every
# user can reach (nbgrader's usual /usr/local/share/nbgrader/exchange).
# Created here, because the students' Assignment List fails ("Error fetching
# courses!") until it exists; the mode is the one release_assignment sets.
c.Exchange.root = os.environ.get("BDL_EXCHANGE") or os.path.join(c.CourseDirectory.root, "exchange")
if not os.path.isdir(c.Exchange.root):
    try:
        os.makedirs(c.Exchange.root)
        os.chmod(c.Exchange.root, 0o777)
    except OSError:
        pass  # nbgrader reports an exchange it cannot use

# One gate to a grade: nbgrader's own autograde (the command, formgrader's Autograde button) would
# run a submission and its hidden tests in one unsandboxed kernel as the grader, so it refuses before
# it touches a file or the gradebook, naming `python -m autograder grade`, whose worker puts nbgrader's
# own exporter back and its examined pipeline in place (autograder/course/gate.py).
c.Autograde.exporter_class = Refusing

# Collect takes a submission folder only from the student it names, and copies it without
# following links: nbgrader's own follows them, so a student could hand in any file the
# grader can read by a link in their submission (autograder/course/exchange.py).
c.ExchangeFactory.collect = OwnedCollect

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
c.Execute.extra_arguments = [KERNEL_LOG_LEVEL]

# Feedback goes to students: nbgrader's pipeline plus HideHiddenTests, which
# leaves the visible tests, a pass/fail line for the hidden ones and the
# failing assertion's message, never hidden code or tracebacks; LateNote says how late a hand-in was.
c.GenerateFeedback.preprocessors = [GetGrades, LateNote, HideHiddenTests, CSSHTMLHeaderPreprocessor]

# Graders open students' notebooks in formgrader, on the origin of the server it runs in: every page
# rendered from a notebook (formgrader's, the feedback) shows no script of the student's, in markdown
# (the filters) or in outputs (sanitize_html), no id or class that formgrader binds a score to, and
# nothing that requests a page of the server with the grader's login (autograder/outputs/sanitize.py).
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.preprocessors = ["autograder.outputs.sanitize.NoFileLinks"]
c.HTMLExporter.filters = {
    "markdown2html": "autograder.outputs.sanitize.markdown2html",
    "clean_html": "autograder.outputs.sanitize.clean_html",
}

# Formgrader and the feedback pages typeset math with MathJax 2, which nbgrader
# loads from a CDN: derivations would show raw LaTeX offline.
# autograder/outputs/templates/formgrade/ and .../feedback/ replace the
# templates' MathJax macro with the copy that the pinned jupyter-server-mathjax
# package serves at {base_url}static/jupyter_server_mathjax/: formgrader's from
# the server it runs in (on the hub, the course's service), a feedback page's from the student's own, found from
# the page's address (opened from disk, the page says it cannot typeset).
c.HTMLExporter.extra_template_basedirs = [
    os.path.join(os.path.dirname(autograder.outputs.__file__), "templates"),
    os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"),
]
