"""The review flags: code a person should read before trusting its score, and none on honest answers
(the reference solutions and every other correct answer of tests/course/mutants/). No kernel."""

import json

import nbformat
import pytest

from autograder.checktests import load_variants
from autograder.course.cells import graded_cells, is_test
from autograder.course.directory import REPO, assignments
from autograder.grading.handin import read_handin
from autograder.grading.review import review_notebook


def review(path, provided=(), tests=()):
    """The review of the notebook file at ``path``, read as the host reads a hand-in."""
    return review_notebook(read_handin(path.read_bytes()), tuple(provided), tests)


def release_tests(assignment):
    """The cell ids of the release's test cells."""
    return frozenset(
        cell.get("id")
        for path in (REPO / "release" / assignment).glob("*.ipynb")
        for cell in nbformat.read(path, 4).cells
        if is_test(cell)
    )


@pytest.mark.parametrize("assignment", assignments())
def test_reference_solutions_raise_no_review_flags(assignment):
    release = [
        cell.source
        for path in (REPO / "release" / assignment).glob("*.ipynb")
        for cell in nbformat.read(path, 4).cells
        if cell.cell_type == "code"
    ]
    for path in (REPO / "source" / assignment).glob("*.ipynb"):
        assert review(path, release, release_tests(assignment)) == []


@pytest.mark.parametrize("assignment", assignments())
def test_correct_alternatives_raise_no_review_flags(assignment, tmp_path):
    """Every other correct answer of tests/course/mutants/ is flagged for nothing: a flag asks a person to
    read the code, and honest answers must not cry wolf."""
    release = [
        cell.source
        for path in (REPO / "release" / assignment).glob("*.ipynb")
        for cell in nbformat.read(path, 4).cells
        if cell.cell_type == "code"
    ]
    source = next((REPO / "source" / assignment).glob("*.ipynb"))
    flagged = {}
    for function, variants in load_variants(assignment)["alternatives"].items():
        for name, old, new in variants:
            nb = nbformat.read(source, 4)
            cell = graded_cells(nb)[function]
            cell.source = cell.source.replace(old, new)
            nbformat.write(nb, tmp_path / "nb.ipynb")
            flags = review(tmp_path / "nb.ipynb", release, release_tests(assignment))
            if flags:
                flagged[f"{function}: {name}"] = flags
    assert flagged == {}


@pytest.mark.parametrize(
    "code, flag",
    [
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
    ],
)
def test_review_flags_suspicious_code(tmp_path, code, flag):
    """Each flag names what it found (``tests/support/red_team.py`` has these in full attacks)."""
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    flags = review(tmp_path / "nb.ipynb")
    assert any(found.startswith(flag) for found in flags), flags


def test_review_reads_a_cell_whose_source_list_holds_a_non_string(tmp_path):
    """Plain JSON may hold anything: the review reads the cell's strings (``cells.cell_text``) rather
    than give up on the whole notebook and flag nothing."""
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {},
        "cells": [
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": ["import ctypes\n", 1],
            }
        ],
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    assert "imports ctypes" in review(tmp_path / "nb.ipynb")


@pytest.mark.parametrize(
    "code, flag",
    [
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
        ('import importlib\nimportlib.import_module(f\'bdl.{"wi" + "re"}\')', "reaches bdl.wire"),
        ("m = __import__('bdl')\ngetattr(m, 'eriw'[::-1])", "reaches bdl.wire"),
        ("m = __import__('bdl')\ngetattr(m, chr(119) + 'ire')", "reaches bdl.wire"),
        ("import sys\nw = sys.modules['bdl.wire']", "reaches bdl.wire"),
        ("import sys\nw = sys.modules.get('bdl.' 'wire')", "reaches bdl.wire"),
        ("exec('import bdl.' + 'wire')", "reaches bdl.wire"),
        # Attributes set on a module, however the module was got.
        (
            "import sys\nsetattr(sys.modules['bdl.' + 'wire'], 'resp' + 'ond', print)",
            "rebinds sys.modules['bdl.' + 'wire'].respond",
        ),
        ("import numpy as np\nsetattr(np, 'mean', np.median)", "rebinds np.mean"),
        ("w = __import__('bdl.wire').wire\nw.respond = print", "rebinds w.respond"),
        ("import sys\nm = sys.modules\nc = m.get('bdl.checks')\nc.assert_close = print", "rebinds c.assert_close"),
        (
            "import importlib\nc = importlib.import_module('bdl.checks')\nc.assert_close = print",
            "rebinds c.assert_close",
        ),
        ("__import__('sys').modules['bdl.checks'].assert_close = print", "rebinds __import__('sys').modules"),
        ("object.__setattr__(module, 'respond', print)", "uses .__setattr__"),
    ],
)
def test_review_flags_every_reach_into_the_answering_machinery(tmp_path, code, flag):
    """``bdl.wire.respond`` answers the examiner's questions in the kernel: a submission that reaches it, or
    rebinds what a module holds, is read by a person, whatever spelling it hides the names in."""
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    flags = review(tmp_path / "nb.ipynb")
    assert any(found.startswith(flag) for found in flags), flags


def test_review_reads_the_words_of_honest_prose_as_prose(tmp_path):
    """The machinery's names in a docstring, a message or an attribute of one's own are not a reach into it;
    and an expression too deep for Python's parser is no error of the review's."""
    code = (
        'def answer(x):\n    """Wire the layers; see how the models respond to noise."""\n'
        '    print("questions: how do they respond?", "a live wire")\n'
        "    x.questions = 3\n    return x\n"
    )
    deep = "x = " + " + ".join(["'a'"] * 3000)
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code), nbformat.v4.new_code_cell(deep)]),
        tmp_path / "nb.ipynb",
    )
    assert review(tmp_path / "nb.ipynb") == []


def test_review_flags_code_nested_too_deep_for_it_to_read(tmp_path):
    code = "import sys\nsetattr(sys.modules" + "[0]" * 2000 + ", 'x', 1)"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]), tmp_path / "nb.ipynb")
    assert review(tmp_path / "nb.ipynb") == ["nests code too deep for the review to read"]


def test_a_harmless_magic_is_not_flagged(tmp_path):
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%matplotlib inline\nx = 1")]), tmp_path / "nb.ipynb"
    )
    assert review(tmp_path / "nb.ipynb") == []


def _raw(cells, version=4):
    """A notebook's bytes, as a student may write them (plain JSON)."""
    return json.dumps({"nbformat": version, "nbformat_minor": 5, "metadata": {}, "cells": cells}).encode()


def _code(source, **nbgrader):
    return {
        "cell_type": "code",
        "id": f"c{len(source)}",
        "metadata": {"nbgrader": nbgrader} if nbgrader else {},
        "outputs": [],
        "execution_count": None,
        "source": source,
    }


def test_the_review_reads_what_the_kernel_runs_whatever_the_bytes_and_metadata_say():
    """An invalid UTF-8 byte, a cell whose own metadata calls it a test, an nbformat 3 notebook: each once
    turned the review off. Only the release's test cells (by id) are left out; repair strips a test's
    marks from any other cell, which then runs as the student's."""
    takeover = "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])"
    undecodable = _raw([_code(f"s = 'caf\udce9'\n{takeover}")]).replace(b"\\udce9", b"\xe9")
    assert b"\xe9" in undecodable
    claims_test = _raw([_code(takeover, grade=True, solution=False, grade_id="my_tests", points=1)])
    released_test = _raw([_code(takeover, grade=True, solution=False, grade_id="f_tests", points=1)])
    version_3 = json.dumps(
        {
            "nbformat": 3,
            "nbformat_minor": 0,
            "metadata": {},
            "worksheets": [
                {
                    "cells": [
                        {"cell_type": "code", "input": takeover, "outputs": [], "language": "python", "metadata": {}}
                    ]
                }
            ],
        }
    ).encode()
    for data in (undecodable, claims_test, version_3):
        assert "uses get_ipython" in review_notebook(read_handin(data)), data[:80]
    assert review_notebook(read_handin(released_test), tests={f"c{len(takeover)}"}) == []


def test_a_cell_magic_is_read_as_what_its_body_is_and_a_huge_cell_is_flagged_not_parsed():
    """A cell magic's body is Python only for the magics that run it; megabytes of Python-looking text
    once cost the host gigabytes to parse (a 3 MB tuple: 2.2 GB)."""
    import tracemalloc

    body = "(" + "1, " * 1_000_000 + ")\n"
    tracemalloc.start()
    try:
        written = review_notebook(read_handin(_raw([_code("%%writefile data.py\nimport ctypes\n" + body)])))
        captured = review_notebook(read_handin(_raw([_code("%%capture\nimport ctypes\n" + body)])))
        short = review_notebook(read_handin(_raw([_code("%%capture\nimport ctypes\n")])))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == ["uses the magic %%writefile"]
    assert len(captured) == 1 and captured[0].endswith("characters, too long for the review to read")
    assert "imports ctypes" in short
    assert peak < 200 * 2**20, f"the review took {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    "data, why",
    [
        (b'{"nbformat": 4, "cells": ' + b"[" * 20000 + b"]" * 20000 + b"}", "nested too deep"),
        (b'{"nbformat": 4, "cells": [' + b"{}," * 1_000_000 + b"{}]}", "JSON values or more"),
        (b"\x89PNG\r\n", "not JSON"),
        (b'{"cells": []}', "no nbformat version"),
    ],
)
def test_the_host_reads_a_hand_in_within_bounds_or_says_why_not(data, why):
    from autograder.grading.handin import Unreadable

    with pytest.raises(Unreadable, match=why):
        read_handin(data)
