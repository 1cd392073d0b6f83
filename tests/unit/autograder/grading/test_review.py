"""Unit tests of the grading parts that need no kernel: collection, metadata
repair, review flags, the kernel guard and the retries after a crash."""
import json
import shutil
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.worker import guard
from autograder.grading.collect import collect
from autograder.course.cells import graded_cells
from autograder.checktests import load_variants
from autograder.course.directory import REPO, assignments
from autograder.grading.repair import repair_notebook
from autograder.grading.review import review_notebook

SOURCE = REPO / "source" / "01_likelihoods" / "likelihoods.ipynb"
RELEASE = REPO / "release" / "01_likelihoods" / "likelihoods.ipynb"


def _nbgrader(nb, grade_id):
    return next(cell for cell in nb["cells"]
                if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def test_repair_restores_edited_grading_metadata():
    release = json.loads(RELEASE.read_text())
    nb = json.loads(SOURCE.read_text())
    tests = _nbgrader(nb, "brier_score_tests")
    tests["metadata"]["nbgrader"]["grade_id"] = "mine"
    _nbgrader(nb, "gaussian_nll_tests")["metadata"]["nbgrader"]["points"] = 99
    copied = json.loads(json.dumps(tests))
    copied["id"] = "a-copy"
    nb["cells"].append(copied)
    text, repaired = repair_notebook(json.dumps(nb), release)
    assert repaired == 3
    fixed = json.loads(text)
    assert _nbgrader(fixed, "brier_score_tests")["metadata"]["nbgrader"]["points"] == 2
    assert _nbgrader(fixed, "gaussian_nll_tests")["metadata"]["nbgrader"]["points"] == 2
    assert "nbgrader" not in fixed["cells"][-1]["metadata"], "a copied graded cell becomes an ordinary one"


def test_repair_leaves_good_and_broken_notebooks_alone():
    release = json.loads(RELEASE.read_text())
    assert repair_notebook(RELEASE.read_text(), release)[1] == 0
    assert repair_notebook("{not json", release) == ("{not json", 0)


@pytest.mark.parametrize("assignment", assignments())
def test_reference_solutions_raise_no_review_flags(assignment):
    release = [cell.source for path in (REPO / "release" / assignment).glob("*.ipynb")
               for cell in nbformat.read(path, 4).cells if cell.cell_type == "code"]
    for path in (REPO / "source" / assignment).glob("*.ipynb"):
        assert review_notebook(path, release) == []


@pytest.mark.parametrize("assignment", assignments())
def test_correct_alternatives_raise_no_review_flags(assignment, tmp_path):
    """Every other correct answer of tests/course/mutants/ is flagged for nothing: a flag asks a person to
    read the code, and honest answers must not cry wolf."""
    release = [cell.source for path in (REPO / "release" / assignment).glob("*.ipynb")
               for cell in nbformat.read(path, 4).cells if cell.cell_type == "code"]
    source = next((REPO / "source" / assignment).glob("*.ipynb"))
    flagged = {}
    for function, variants in load_variants(assignment)["alternatives"].items():
        for name, old, new in variants:
            nb = nbformat.read(source, 4)
            cell = graded_cells(nb)[function]
            cell.source = cell.source.replace(old, new)
            nbformat.write(nb, tmp_path / "nb.ipynb")
            flags = review_notebook(tmp_path / "nb.ipynb", release)
            if flags:
                flagged[f"{function}: {name}"] = flags
    assert flagged == {}


@pytest.mark.parametrize("code, flag", [
    ("get_ipython().input_transformers_cleanup.append(lambda lines: [])", "uses get_ipython"),
    ("ip = get_ipython()\nip.events.callbacks.clear()", "reaches the shell's events"),
    ("x = _ih[-1]", "reads _ih"),
    ("print(In[3], Out)", "reads In"),
    ("y = _i12", "reads _i12"),
    ("getattr(x, 'run_' + 'cell')", "computed name lookup getattr"),
    ("globals()['assert_' + 'close'] = print", "uses globals()"),
    ("import sys\nsys.modules['bdl.checks'] = None", "uses sys.modules"),
    ("class A:\n    def __eq__(self, other):\n        return True", "defines __eq__"),
    ("class A:\n    __class__ = property(lambda self: float)", "defines __class__"),
    ("def f():\n    global _expected\n    _expected = 1", "rebinds the notebook's names from a function"),
    ("import linecache", "imports linecache"),
    ("f = lambda: 0\nc = f.__closure__", "uses .__closure__"),
    ("import IPython", "imports IPython"),
    ("import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None", "rebinds np.testing.assert_allclose"),
    ("from bdl import checks\nchecks.assert_close = print", "rebinds checks.assert_close"),
    ("import builtins\nbuiltins.len = lambda x: 0", "rebinds builtins.len"),
    ("def f():\n    pass\nf.__code__ = (lambda: 1).__code__", "rebinds f.__code__"),
    ("import os\nos.environ['NBGRADER_EXECUTION'] = ''", "writes os.environ"),
    ("exec(open('x').read())", "calls exec"),
    ("import os\nos._exit(0)", "calls os._exit"),
    ("open('../../../source/01_likelihoods/likelihoods.ipynb')", "names course files"),
    ("import ctypes", "imports ctypes"),
    # The Python inside IPython's magics and shell escapes, and strings the standard library runs.
    ("%time exec('x = 1')", "uses the magic %time"),
    ("%time import gc", "imports gc"),
    ("%%capture\nimport inspect", "uses the magic %%capture"),
    ("%%capture\nimport inspect", "imports inspect"),
    ("files = !ls /", "runs a shell command"),
    ("import timeit\ntimeit.timeit('import gc', number=1)", "imports timeit"),
    ("import timeit\ntimeit.timeit('import gc', number=1)", "imports gc"),
    ("import doctest", "imports doctest"),
    ("import runpy", "imports runpy"),
    ("import cProfile\ncProfile.run('get_ipython()')", "uses get_ipython"),
    ("import pdb", "imports pdb"),
    ("import builtins\nx = builtins.print", "reaches builtins.print"),
    ("import bdl.wire\nbdl.wire.respond = print", "imports bdl.wire"),
])
def test_review_flags_suspicious_code(tmp_path, code, flag):
    """Each flag names what it found (``tests/support/red_team.py`` has these in full attacks)."""
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    flags = review_notebook(tmp_path / "nb.ipynb")
    assert any(found.startswith(flag) for found in flags), flags


def test_review_reads_a_cell_whose_source_list_holds_a_non_string(tmp_path):
    """Plain JSON may hold anything: the review reads the cell's strings (``cells.cell_text``) rather
    than give up on the whole notebook and flag nothing."""
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                           "source": ["import ctypes\n", 1]}]}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    assert "imports ctypes" in review_notebook(tmp_path / "nb.ipynb")


@pytest.mark.parametrize("code, flag", [
    # The answering machinery (what answers the examiner's questions in the kernel), however it is named.
    ("import bdl.wire as w", "reaches bdl.wire"),
    ("from bdl import wire", "reaches bdl.wire"),
    ("from bdl.wire import respond", "reaches bdl.wire"),
    ("from bdl import questions", "reaches bdl.questions"),
    ("import bdl\nbdl.wire.respond = print", "reaches bdl.wire"),
    ("import bdl\nf = bdl.questions.wire.QUESTIONS", "reaches bdl.wire"),
    ("__import__('bdl.wire')", "reaches bdl.wire"),
    ("__import__('bdl', fromlist=['wire'])", "reaches bdl.wire"),
    ("import importlib\nimportlib.import_module('bdl.' + 'wire')", "reaches bdl.wire"),
    ("import importlib\nimportlib.import_module(''.join(['bd', 'l.w', 'ire']))", "reaches bdl.wire"),
    ("import importlib\nimportlib.import_module('%s.%s' % ('bdl', 'wire'))", "reaches bdl.wire"),
    ("import importlib\nimportlib.import_module('bdl.{}'.format('questions'))", "reaches bdl.questions"),
    ("import importlib\nimportlib.import_module(f'bdl.{\"wi\" + \"re\"}')", "reaches bdl.wire"),
    ("m = __import__('bdl')\ngetattr(m, 'eriw'[::-1])", "reaches bdl.wire"),
    ("m = __import__('bdl')\ngetattr(m, chr(119) + 'ire')", "reaches bdl.wire"),
    ("import sys\nw = sys.modules['bdl.wire']", "reaches bdl.wire"),
    ("import sys\nw = sys.modules.get('bdl.' 'wire')", "reaches bdl.wire"),
    ("exec('import bdl.' + 'wire')", "reaches bdl.wire"),
    # Attributes set on a module, however the module was got.
    ("import sys\nsetattr(sys.modules['bdl.' + 'wire'], 'resp' + 'ond', print)",
     "rebinds sys.modules['bdl.' + 'wire'].respond"),
    ("import numpy as np\nsetattr(np, 'mean', np.median)", "rebinds np.mean"),
    ("w = __import__('bdl.wire').wire\nw.respond = print", "rebinds w.respond"),
    ("import sys\nm = sys.modules\nc = m.get('bdl.checks')\nc.assert_close = print", "rebinds c.assert_close"),
    ("import importlib\nc = importlib.import_module('bdl.checks')\nc.assert_close = print", "rebinds c.assert_close"),
    ("__import__('sys').modules['bdl.checks'].assert_close = print", "rebinds __import__('sys').modules"),
    ("object.__setattr__(module, 'respond', print)", "uses .__setattr__"),
])
def test_review_flags_every_reach_into_the_answering_machinery(tmp_path, code, flag):
    """``bdl.wire.respond`` answers the examiner's questions in the kernel: a submission that reaches it, or
    rebinds what a module holds, is read by a person, whatever spelling it hides the names in."""
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    flags = review_notebook(tmp_path / "nb.ipynb")
    assert any(found.startswith(flag) for found in flags), flags


def test_review_reads_the_words_of_honest_prose_as_prose(tmp_path):
    """The machinery's names in a docstring, a message or an attribute of one's own are not a reach into it;
    and an expression too deep for Python's parser is no error of the review's."""
    code = ('def answer(x):\n    """Wire the layers; see how the models respond to noise."""\n'
            '    print("questions: how do they respond?", "a live wire")\n'
            '    x.questions = 3\n    return x\n')
    deep = "x = " + " + ".join(["'a'"] * 3000)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code), nbformat.v4.new_code_cell(deep)]),
                   tmp_path / "nb.ipynb")
    assert review_notebook(tmp_path / "nb.ipynb") == []


def test_review_flags_code_nested_too_deep_for_it_to_read(tmp_path):
    code = "import sys\nsetattr(sys.modules" + "[0]" * 2000 + ", 'x', 1)"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    assert review_notebook(tmp_path / "nb.ipynb") == ["nests code too deep for the review to read"]


def test_collect_reads_every_input_form_and_never_overwrites_silently(tmp_path):
    root, incoming = tmp_path / "course", tmp_path / "in"
    (incoming / "tree" / "dan" / "01_likelihoods").mkdir(parents=True)
    shutil.copyfile(SOURCE, incoming / "tree" / "dan" / "01_likelihoods" / "likelihoods.ipynb")
    (incoming / "folder").mkdir()
    shutil.copyfile(SOURCE, incoming / "folder" / "eve.ipynb")
    with zipfile.ZipFile(incoming / "lms.zip", "w") as archive:
        archive.write(RELEASE, "course export/fay.ipynb")
        archive.writestr("../../outside.ipynb", "{}")
    (incoming / "notes.txt").write_text("not a submission")
    names = ["likelihoods"]
    items = collect(root, "01_likelihoods", names,
                    [incoming / "tree", incoming / "folder", incoming / "lms.zip", incoming / "notes.txt",
                     incoming / "missing.ipynb"])
    by_student = {item.student: item for item in items}
    assert {"dan", "eve", "fay"} <= set(by_student)
    assert not any(by_student[s].error for s in ("dan", "eve", "fay"))
    assert sorted(p.parent.parent.name for p in (root / "submitted").glob("*/01_likelihoods/likelihoods.ipynb")) \
        == ["dan", "eve", "fay"]
    errors = [item.error for item in items if item.error]
    assert any("is not a notebook" in error for error in errors)
    assert any("no such submission" in error for error in errors)
    assert not (tmp_path / "outside.ipynb").exists()
    # The same file again is fine; a different one is refused, then replaced on request.
    assert not collect(root, "01_likelihoods", names, [incoming / "folder"])[0].error
    shutil.copyfile(RELEASE, incoming / "folder" / "eve.ipynb")
    assert "already has a different submission" in collect(root, "01_likelihoods", names, [incoming / "folder"])[0].error
    assert (root / "submitted" / "eve" / "01_likelihoods" / "likelihoods.ipynb").read_bytes() == SOURCE.read_bytes()
    assert not collect(root, "01_likelihoods", names, [incoming / "folder"], replace=True)[0].error
    assert (root / "submitted" / "eve" / "01_likelihoods" / "likelihoods.ipynb").read_bytes() == RELEASE.read_bytes()
    assert list((root / "submitted_replaced").glob("*/eve/01_likelihoods/likelihoods.ipynb"))
    # Two submissions for one student in one run: the second is refused.
    (incoming / "twice").mkdir()
    shutil.copyfile(SOURCE, incoming / "twice" / "gus.ipynb")
    items = collect(root, "01_likelihoods", names, [incoming / "twice", incoming / "lms.zip",
                                                    incoming / "twice" / "gus.ipynb"])
    assert "a second submission for gus" in items[-1].error


def test_guard_skips_the_cells_that_crashed_and_writes_no_file(tmp_path, monkeypatch):
    import warnings

    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # put back after the test
    monkeypatch.chdir(tmp_path)
    crashed = "import os\nos._exit(0)\n"
    monkeypatch.setenv(guard.SKIP_ENV, json.dumps([guard.cell_key(crashed)]))
    shell = InteractiveShell()
    guard.install(shell)
    assert shell.run_cell("noted = 1").success
    result = shell.run_cell(crashed)  # would end this process if it ran
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "not run when graded" in str(result.error_in_exec)
    assert shell.run_cell("noted += 1").success and shell.user_ns["noted"] == 2
    assert list(tmp_path.iterdir()) == []  # the worker notes the cells, in a folder of its own


def test_a_harmless_magic_is_not_flagged(tmp_path):
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%matplotlib inline\nx = 1")]),
                   tmp_path / "nb.ipynb")
    assert review_notebook(tmp_path / "nb.ipynb") == []


def _crashing_runs(tmp_path, monkeypatch, crashes, limits):
    """``task._grade_crash_safe`` with a worker whose kernel dies in the cells ``crashes``, one a
    run, then succeeds; returns (the runs' (skip, crashed), the notes, the last result)."""
    from types import SimpleNamespace

    from autograder.grading import task
    from autograder.worker.job import GradingJob, WorkerResult

    runs, crashes = [], list(crashes)

    def run_isolated(job, limits):
        runs.append((job.skip, job.crashed))
        if not crashes:
            return WorkerResult(True, examiner_clean=True)
        assert Path(job.kernel_io).is_dir() and not any(Path(job.kernel_io).iterdir())  # new each run
        Path(job.progress).write_text(guard.cell_key(crashes.pop(0)))
        return WorkerResult(False, "the kernel died", crashed=True, examiner_clean=True)

    monkeypatch.setattr(task, "run_isolated", run_isolated)
    slots = SimpleNamespace(examiner=lambda sandbox: SimpleNamespace(fds=lambda: ()))
    source = nbformat.read(SOURCE, 4)
    submitted = nbformat.read(SOURCE, 4)
    submitted.cells.append(nbformat.v4.new_code_cell("print(1)"))
    job = GradingJob(scratch=str(tmp_path), assignment="01_likelihoods", student="s", db_url="",
                     cell_timeout=1, progress=str(tmp_path / "worker" / "progress"))
    result, notes = task._grade_crash_safe(job, limits, [submitted], [source], slots)
    return runs, notes, result


def test_a_test_cell_that_crashes_charges_its_function_and_the_retries_end(tmp_path, monkeypatch):
    from autograder.grading.limits import Limits

    source = graded_cells(nbformat.read(SOURCE, 4))
    tests, answer = source["fgsm_tests"].source, source["fgsm"].source
    runs, notes, result = _crashing_runs(tmp_path, monkeypatch, [tests, "print(1)"], Limits())
    assert result.success and [crashed for _, crashed in runs] == [(), ("fgsm",), ("fgsm",)]
    assert notes[0].endswith("and every later call of fgsm raised an error instead of running")
    assert notes[1] == "graded again without cell `print(1)` (the kernel died)"
    # An answer cell is left out, charging nothing more; a cell that crashes again ends the retries.
    runs, notes, result = _crashing_runs(tmp_path, monkeypatch, [answer, answer], Limits())
    assert not result.success and len(runs) == 2 and runs[1][1] == ()
    # Never more runs than the notebook has code cells, plus one; none once past the wall-clock limit.
    code_cells = sum(cell.cell_type == "code" for cell in nbformat.read(SOURCE, 4).cells) + 1  # and print(1)
    runs, _, result = _crashing_runs(tmp_path, monkeypatch, [f"x = {i}" for i in range(100)], Limits())
    assert not result.success and len(runs) == code_cells + 1
    runs, _, _ = _crashing_runs(tmp_path, monkeypatch, [tests], Limits(submission_timeout=-1))
    assert len(runs) == 1


def _watched(code, tmp_path, kernel_io="", log=None):
    """Why the watchdog killed a process running ``code`` (it would otherwise sleep a minute)."""
    import subprocess
    import time

    from autograder.grading import limits

    process = subprocess.Popen([sys.executable, "-c", code + "\nimport time\ntime.sleep(60)"],
                               stdout=log, start_new_session=True)
    started = time.monotonic()
    killed = limits._watch(process, limits.Limits(), started, kernel_io, log)
    assert time.monotonic() - started < 30 and process.poll() is not None
    return killed


def test_the_watchdog_stops_a_kernel_that_fills_the_graders_disk(tmp_path):
    """The folder the kernel shares with the worker, and the log it shares with it (its stdout and
    stderr), are on the grader's disk: past their bounds the run is killed, costing that submission only."""
    folder = tmp_path / "kernel io"
    folder.mkdir()
    big = f"open({str(folder / 'big')!r}, 'wb').write(b'0' * 32 * 2**20)"
    assert "to the grader's disk" in _watched(big, tmp_path, str(folder))
    many = tmp_path / "many"
    many.mkdir()
    files = f"import os\nfor i in range(500): os.symlink('/', os.path.join({str(many)!r}, str(i)))"
    assert "to the grader's disk" in _watched(files, tmp_path, str(many))
    with open(tmp_path / "log", "w+b") as log:
        assert "standard output and error" in _watched("import os\nos.write(1, b'x' * 70 * 2**20)", tmp_path, "", log)
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    (quiet / "connection.json").write_text("{}")
    assert _watched("import sys\nsys.exit(0)", tmp_path, str(quiet)) == ""
