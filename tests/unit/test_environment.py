"""environment.yml (conda) and pyproject.toml (pip) pin the same tested set: the conda environment is the
instructor's full set, pyproject's dependencies and every optional group (what `make` installs).
constraints.txt holds that set's every package at its version, and this environment is that set."""

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
ENVIRONMENT = yaml.safe_load((ROOT / "environment.yml").read_text())
# what each Python's venv brings itself, left out of constraints.txt (Makefile: constraints)
INSTALLER = {"pip", "setuptools"}
# every pin of pyproject.toml: the dependencies, then each optional group's
ALL_PINS = PYPROJECT["dependencies"] + [dep for group in PYPROJECT["optional-dependencies"].values() for dep in group]


def normalise(text):
    req = Requirement(text)
    return canonicalize_name(req.name), str(req.specifier), str(req.marker or "")


def pins():
    """pyproject's pins (dependencies and every optional group) as Requirements."""
    return [Requirement(text) for text in ALL_PINS]


def conda_deps():
    """(conda package strings, pip entries) of environment.yml."""
    conda, pip = [], []
    for dep in ENVIRONMENT["dependencies"]:
        if isinstance(dep, dict):
            pip.extend(dep["pip"])
        else:
            conda.append(dep)
    return conda, pip


def pinned_version(req):
    [spec] = req.specifier
    return Version(spec.version)


def test_environment_yml_header():
    assert ENVIRONMENT["name"] == "bdl-course"
    assert ENVIRONMENT["channels"] == ["conda-forge"]
    conda, pip = conda_deps()
    assert "pip" in conda
    assert "-e ." in pip, "environment.yml must install the course's packages with '-e .'"
    assert "-c constraints.txt" in pip, "environment.yml must install the tested set (-c constraints.txt)"


def test_same_requirements_as_pyproject():
    _, pip = conda_deps()
    in_env = sorted(normalise(text) for text in pip if not text.startswith("-"))
    in_pyproject = sorted(normalise(text) for text in ALL_PINS)
    assert len(in_env) == len(set(in_env)), "duplicate requirement in environment.yml"
    assert len(in_pyproject) == len(set(in_pyproject)), "a pin in two groups of pyproject.toml"
    assert set(in_env) == set(in_pyproject)


def test_python_version():
    conda, _ = conda_deps()
    [python] = [dep for dep in conda if dep.split("=")[0] == "python"]
    assert python == "python=3.11"
    assert Version("3.11.0") in SpecifierSet(PYPROJECT["requires-python"])


@pytest.mark.parametrize("text", ALL_PINS)
def test_every_dependency_is_pinned_once(text):
    specs = list(Requirement(text).specifier)
    assert len(specs) == 1 and specs[0].operator == "==", f"{text!r}: pin with exactly one =="
    assert "*" not in specs[0].version, f"{text!r}: pin an exact version"


def test_tensorflow_family_is_consistent():
    by_name = {}
    for req in pins():
        by_name.setdefault(canonicalize_name(req.name), []).append(pinned_version(req))
    # tf-keras requires `tensorflow`: a `tensorflow-cpu` pin beside it installs two TensorFlows into one folder
    assert "tensorflow-cpu" not in by_name, "pin tensorflow, not tensorflow-cpu: tf-keras brings tensorflow anyway"
    [tf] = by_name["tensorflow"]
    [tf_keras] = by_name["tf-keras"]
    assert tf.release[:2] == tf_keras.release[:2], f"tf-keras {tf_keras} must share TensorFlow {tf}'s major.minor"
    [tfp] = by_name["tensorflow-probability"]
    assert tfp in SpecifierSet("==0.25.*"), f"tensorflow-probability {tfp}: expected 0.25.*"


def test_installed_versions_match_pins():
    wrong = []
    for req in pins():
        if req.marker is not None and not req.marker.evaluate():
            continue
        try:
            installed = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            wrong.append(f"{req.name}: not installed, pinned {req.specifier}")
            continue
        if Version(installed) != pinned_version(req):
            wrong.append(f"{req.name}: installed {installed}, pinned {req.specifier}")
    assert not wrong, "environment differs from pyproject.toml; run `make` to reinstall:\n" + "\n".join(wrong)


def test_the_autograder_script_is_python_m_autograder_and_exits_with_its_code(tmp_path):
    """`autograder <command>` (pyproject's [project.scripts]) runs autograder.__main__:main and exits with what
    it returns: 2 for a refused command, as `python -m autograder` does."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"autograder": "autograder.__main__:main"}
    script = Path(sys.executable).parent / "autograder"
    assert script.exists(), f"no {script}: run `make` to reinstall the course's environment"
    (tmp_path / "notes.txt").write_text("not a kit")
    result = subprocess.run([str(script), "student-kit", str(tmp_path)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2, result.stderr
    assert "exists and is not a student kit" in result.stderr


def constraints():
    """{canonical name: Version} of constraints.txt."""
    lines = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if not line.startswith("#")]
    found = {}
    for line in lines:
        req = Requirement(line)
        assert canonicalize_name(req.name) not in found, f"{req.name} twice in constraints.txt"
        found[canonicalize_name(req.name)] = pinned_version(req)
    return found


def test_constraints_hold_every_pin_at_its_version():
    held = constraints()
    wrong = [
        f"{req.name}: pinned {req.specifier}, constraints.txt {held.get(canonicalize_name(req.name))}"
        for req in pins()
        if held.get(canonicalize_name(req.name)) != pinned_version(req)
    ]
    assert not wrong, "constraints.txt is not the pins' set; run `make constraints`:\n" + "\n".join(wrong)
    assert not INSTALLER & set(held), "constraints.txt must leave pip and setuptools to each Python"


def test_this_environment_is_the_constraints_set():
    """The tested environment (what `make` installs with -c constraints.txt) holds every package of
    constraints.txt at its version and nothing else: a pin changed or added without `make constraints`
    (say an unpinned new dependency) fails here."""
    installed = {canonicalize_name(dist.metadata["Name"]): Version(dist.version) for dist in metadata.distributions()}
    installed = {name: version for name, version in installed.items() if name not in INSTALLER | {"bdl-course"}}
    held = constraints()
    wrong = [
        f"{name}: installed {installed.get(name)}, constraints.txt {held.get(name)}"
        for name in sorted(set(installed) | set(held))
        if installed.get(name) != held.get(name)
    ]
    assert not wrong, (
        "this environment is not constraints.txt's set: `make` installs it; after a change of pins, "
        "`make constraints` first:\n" + "\n".join(wrong)
    )


def test_every_constrained_package_runs_on_the_oldest_python_the_course_takes():
    """A package's newer release may need a later 3.11 than pyproject's floor (soupsieve 3 needs 3.11.5,
    Debian 12 has 3.11.2): constraints.txt is made with the oldest Python at hand, and this checks it."""
    [oldest] = [Version(spec.version) for spec in SpecifierSet(PYPROJECT["requires-python"]) if spec.operator == ">="]
    held = constraints()
    refused = []
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        needs = dist.metadata.get("Requires-Python")  # absent: any Python
        if name in held and needs and oldest not in SpecifierSet(needs):
            refused.append(f"{name} {dist.version}: Requires-Python {needs}")
    assert not refused, f"not installable on Python {oldest}:\n" + "\n".join(refused)
