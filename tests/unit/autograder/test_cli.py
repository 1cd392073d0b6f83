"""The command line as a user meets it: each command's help, and each mistake said in one line, exit 2."""

import argparse

import nbformat
import pytest

from autograder.__main__ import main, parser
from autograder.course.directory import REPO


def run(capsys, *argv):
    """(exit code, stdout, stderr) of ``autograder ARGV``, in this process."""
    try:
        code = main([str(arg) for arg in argv])
    except SystemExit as exit:  # argparse's refusals and --help
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def subparsers(command):
    return [action for action in command._actions if isinstance(action, argparse._SubParsersAction)]


def every_command(command=None, name="autograder"):
    """(name, parser) of every command and subcommand, those added later too."""
    command = command or parser()
    yield name, command
    for group in subparsers(command):
        for sub_name, sub in group.choices.items():
            yield from every_command(sub, f"{name} {sub_name}")


def test_every_option_with_a_default_names_it_in_its_help():
    unnamed = [
        f"{name} {action.option_strings[0]}"
        for name, command in every_command()
        for action in command._actions
        if action.option_strings
        and not any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS))  # 0 is a default
        and "default" not in (action.help or "")
        and not isinstance(action, (argparse._HelpAction, argparse._VersionAction))
    ]
    assert not unnamed, f"options whose help does not name their default: {unnamed}"


def test_the_walk_reaches_the_hubs_actions():
    names = [name for name, _ in every_command()]
    assert "autograder grade" in names and "autograder hub backup" in names and len(names) > 12


def test_version_and_a_help_without_markup(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("autograder ") and out.split()[1][0].isdigit()
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "`" not in out


def test_each_hub_action_has_its_own_help_and_options(capsys):
    code, out, _ = run(capsys, "hub", "backup", "--help")
    assert code == 0 and "DEST" in out and "--students" not in out and "--dummy" not in out
    code, _, err = run(capsys, "hub", "backup", "dest", "--dummy", "--port", "5")
    assert code == 2 and "--dummy --port 5" in err
    for option in (["--port", "5"], ["--no-limits"]):
        code, _, err = run(capsys, "hub", *option, "backup", "dest")
        assert code == 2 and err.strip().splitlines() == [
            f"autograder: error: {option[0].replace('no-', '')} is an option of the hub's start, "
            "not of `autograder hub backup`"
        ]


def test_hub_actions_on_a_folder_without_a_hub_say_so(capsys, tmp_path):
    code, _, err = run(capsys, "hub", "backup", tmp_path / "saved", "--dir", tmp_path)
    assert (code, err) == (2, f"autograder: error: {tmp_path} holds no hub yet: nothing to back up\n")
    assert not (tmp_path / "saved").exists()
    code, _, err = run(capsys, "hub", "restore", tmp_path, "--dir", tmp_path / "new")
    assert (code, err) == (2, f"autograder: error: {tmp_path} is not a backup of the hub (no hub/settings.json)\n")


@pytest.mark.parametrize("action", ["backup", "restore", "roster"])
def test_hub_actions_need_their_folder(capsys, action):
    code, _, err = run(capsys, "hub", action)
    assert code == 2 and "the following arguments are required" in err


@pytest.fixture
def course(tmp_path):
    """A course folder of two assignments, neither graded yet."""
    for assignment in ("00_tiny", "01_other"):
        path = tmp_path / "source" / assignment / "notebook.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), path)
    return tmp_path


@pytest.mark.parametrize("command", ["grade", "report", "feedback", "guide", "check-tests"])
def test_an_unknown_assignment_is_named_with_the_known_ones(capsys, course, command):
    code, out, err = run(capsys, command, "nosuch", *(["x"] if command == "grade" else []), "--root", course)
    assert (code, out) == (2, "")
    assert err == "autograder: error: unknown assignment 'nosuch'; known: 00_tiny, 01_other (or its number)\n"


def test_an_assignment_is_its_number_or_topic_everywhere(capsys, course):
    code, _, err = run(capsys, "grade", "1", course / "nothing-here", "--root", course)
    assert code == 2 and err.startswith("autograder: error: no submission of 01_other found in")
    code, _, err = run(capsys, "report", "tiny", "--root", course)
    assert (code, err) == (
        2,
        "autograder: error: 00_tiny is not graded yet: grade it first (autograder grade 00_tiny ...)\n",
    )
    code, _, err = run(capsys, "feedback", "01", "--root", course)
    assert code == 2 and "01_other is not graded yet" in err


def written(folder):
    """Every path under ``folder``, to see that a refused command wrote nothing."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


# (the command line, with {course} and {tmp} to fill in, and the argument its one line names)
REFUSED = [
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--workers", "0"], "--workers"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--workers", "-3"], "--workers"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--cell-timeout", "-1"], "--cell-timeout"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--submission-timeout", "nan"], "--submission-timeout"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--memory", "0"], "--memory"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--csv", "{tmp}/missing/grades.csv"], "--csv"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--csv", "{course}"], "--csv"),
    (["grade", "00_tiny", "x.ipynb", "--root", "{course}", "--csv", ""], "--csv"),
    (["check-tests", "00_tiny", "--root", "{course}", "--seeds", "0"], "--seeds"),
    (["bench", "01", "--class-size", "-1"], "--class-size"),
    (["bench", "01", "--workers", "0"], "--workers"),
    (["bench-hub", "--students", "0", "--dir", "{tmp}/srv/hub", "--home-root", "{tmp}/srv/home"], "--students"),
    (["bench-hub", "--json", "{tmp}/missing/report.json", "--dir", "{tmp}/srv/hub"], "--json"),
    (["deadline", "00_tiny", "--per-day", "150", "--root", "{course}"], "--per-day"),
    (["extension", "00_tiny", "bob", "--days", "-1", "--root", "{course}"], "--days"),
    (["deadline", "01", "--root", "{tmp}"], "--root"),
    (["deadline", "01", "--root", "{tmp}/nothing"], "--root"),
    (["deadline", "01", "--root", "{tmp}/empty"], "--root"),  # a source/ without an assignment
]


@pytest.mark.parametrize(
    "argv, argument", REFUSED, ids=[f"{argv[0]} {arg} {argv[argv.index(arg) + 1]}" for argv, arg in REFUSED]
)
def test_a_wrong_argument_is_one_line_before_any_work(capsys, monkeypatch, tmp_path_factory, course, argv, argument):
    """Refused as it is parsed: exit 2, one line naming the argument, nothing written (no gradebook under
    --root, nothing under the fake /srv, no file in the current folder)."""
    tmp = tmp_path_factory.mktemp("elsewhere")
    (tmp / "empty" / "source").mkdir(parents=True)
    before = written(course), written(tmp)
    monkeypatch.chdir(tmp)
    code, out, err = run(capsys, *(arg.format(course=course, tmp=tmp) for arg in argv))
    assert (code, out) == (2, "")
    (line,) = err.splitlines()
    assert line.startswith(f"autograder {argv[0]}: error: argument {argument}"), line
    assert (written(course), written(tmp)) == before


def commands_with_a_root():
    return [name for name, command in every_command() if any("--root" in a.option_strings for a in command._actions)]


def test_every_command_that_reads_a_course_takes_root():
    without = {name for name, _ in every_command()} - set(commands_with_a_root())
    assert {name.split()[1] for name in without - {"autograder"}} == {"bench", "hub", "bench-hub"}, without


@pytest.mark.parametrize("name", commands_with_a_root())
def test_a_root_that_is_not_a_course_is_refused_by_every_command(capsys, monkeypatch, tmp_path, name):
    monkeypatch.chdir(tmp_path)  # a positional that is a folder to write (student-kit's OUT) is "x" here
    command = dict(every_command())[name]
    positionals = ["01" for action in command._actions if not action.option_strings and action.nargs != "*"]
    code, out, err = run(capsys, *name.split()[1:], *positionals, "--root", tmp_path)
    assert (code, out, err) == (
        2,
        "",
        f"{name}: error: argument --root: {tmp_path} is not a course directory: it holds no source/ folder\n",
    )
    assert written(tmp_path) == []


def test_right_arguments_and_the_defaults_pass(tmp_path):
    args = parser().parse_args(
        ["grade", "01", "x", "--workers", "1", "--cell-timeout", "1", "--memory", "0.5", "--csv", str(tmp_path / "g")]
    )
    assert (args.workers, args.cell_timeout, args.memory, args.csv) == (1, 1, 0.5, str(tmp_path / "g"))
    assert parser().parse_args(["bench", "01", "--class-size", "0"]).class_size == 0
    assert parser().parse_args(["release"]).root == str(REPO)
    assert parser().parse_args(["extension", "01", "bob", "--days", "0", "--hours", "1.5"]).hours == 1.5


def test_release_validate_and_selfgrade_read_the_course_at_root(capsys, tmp_path):
    """Each reads --root's source/, not the repository's: an assignment only this course has is named."""
    (tmp_path / "source" / "07_broken").mkdir(parents=True)
    (tmp_path / "source" / "07_broken" / "notebook.ipynb").write_text("{")
    for command in ("release", "selfgrade"):  # nbgrader's generate_assignment fails on it
        code, _, err = run(capsys, command, "--root", tmp_path)
        assert code == 2 and "nbgrader generate_assignment 07_broken failed" in err, (command, err)
    code, _, err = run(capsys, "validate", "01", "--root", tmp_path)
    assert (code, err) == (2, "autograder: error: unknown assignment '01'; known: 07_broken (or its number)\n")
