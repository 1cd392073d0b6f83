"""The Kubernetes deployment on paper: deploy/kubernetes/values.yaml and deploy/Dockerfile, linted.

Neither helm nor a container engine runs here, so this stands in for `helm
template` and `docker build`: every key of values.yaml must be one the
targeted chart version documents (deploy/kubernetes/chart_keys.txt, written by
hand from the chart's values.schema.yaml), the course's settings must agree
between the values, the nbgrader config they mount and the exchange's claim,
and the Dockerfile must be pinned, copy nothing of the instructor's side,
install pyproject.toml's dependencies and instructor group (nothing of its
hub or test groups) and run as a user who is not root.
No network, no helm, no docker: a few milliseconds.
"""
import re
import shutil
import subprocess
import sys
import shlex
import tomllib
from pathlib import Path

import nbgrader.auth
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from traitlets.config import Config

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
VALUES = DEPLOY / "kubernetes" / "values.yaml"
CHART_KEYS = DEPLOY / "kubernetes" / "chart_keys.txt"
EXCHANGE = DEPLOY / "kubernetes" / "exchange.yaml"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"

# The chart release targeted: the newest Zero to JupyterHub whose JupyterHub is
# 5.x or 6.x. Changing it means reading that version's values.schema.yaml again.
CHART_VERSION = "4.4.0"
JUPYTERHUB_VERSION = "5.5.0"
HEADER = f"# Zero to JupyterHub chart {CHART_VERSION} (JupyterHub {JUPYTERHUB_VERSION})"

COURSE = "bdl"
EXCHANGE_ROOT = "/srv/nbgrader/exchange"
NBGRADER_CONFIG = "/etc/jupyter/nbgrader_config.py"
# What the image may copy from the repository: what a student kit holds
# (autograder/studentkit.py keeps source/, tests/, autograder/ and the course's
# nbgrader_config.py out of students' hands, and every student runs this image).
COPY_ALLOWED = {"pyproject.toml", "bdl", "notebooks", "release"}
COPY_FORBIDDEN = ("source", "tests", ".git", "autograder", "nbgrader_config.py")
# Pinned in the Dockerfile but not in pyproject.toml: the single-user server,
# whose major version must match the chart's hub.
EXTRA_PINS = {"jupyterhub": JUPYTERHUB_VERSION}
# pyproject's optional groups the image takes beside its dependencies: the instructor's (grading and
# the Dask workers run from the image); not the hub's (the chart's hub image runs the hub) nor the tests'.
IMAGE_GROUPS = ("instructor",)


# ---------------------------------------------------------------- values.yaml against the chart's keys

def chart_keys(text):
    """The documented key patterns (tuples of segments) of chart_keys.txt."""
    return [tuple(line.split(".")) for line in (raw.strip() for raw in text.splitlines())
            if line and not line.startswith("#")]


def key_paths(values, prefix=()):
    """Every key path of a mapping, parents included; list items are Kubernetes objects, not keys."""
    for key, value in values.items():
        path = (*prefix, str(key))
        yield path
        if isinstance(value, dict):
            yield from key_paths(value, path)


def _matches(path, pattern):
    if pattern[-1] == "**":
        head = pattern[:-1]
        return len(path) > len(head) and _matches(path[:len(head)], head)
    return len(path) == len(pattern) and all(p in ("*", seg) for seg, p in zip(path, pattern))


def undocumented(values, patterns):
    """The key paths of ``values`` that no documented pattern allows, dotted."""
    return [".".join(path) for path in key_paths(values)
            if not any(_matches(path, pattern) for pattern in patterns)]


@pytest.fixture(scope="module")
def values():
    return yaml.safe_load(VALUES.read_text())


@pytest.fixture(scope="module")
def patterns():
    return chart_keys(CHART_KEYS.read_text())


def test_every_key_of_the_values_is_one_the_chart_documents(values, patterns):
    assert isinstance(values, dict) and values
    assert undocumented(values, patterns) == []


def test_the_checker_catches_a_misspelt_key(patterns):
    planted = yaml.safe_load(VALUES.read_text())
    planted["singleuser"]["memroy"] = {"limit": "4G"}
    planted["proxy"]["https"]["letsencrypt"]["contactEmial"] = "x@example.org"
    planted["hub"]["config"]["NativeAuthentictor"] = {"open_signup": False}
    planted["culll"] = {"enabled": True}
    assert undocumented(planted, patterns) == [
        "hub.config.NativeAuthentictor", "hub.config.NativeAuthentictor.open_signup",
        "singleuser.memroy", "singleuser.memroy.limit",
        "proxy.https.letsencrypt.contactEmial", "culll", "culll.enabled"]
    # free-form subtrees stay free-form, and "*" stands for exactly one key
    assert _matches(("hub", "loadRoles", "server", "scopes"), ("hub", "loadRoles", "**"))
    assert not _matches(("hub", "loadRoles"), ("hub", "loadRoles", "**"))
    assert _matches(("singleuser", "extraFiles", "x", "mountPath"), ("singleuser", "extraFiles", "*", "mountPath"))
    assert not _matches(("singleuser", "extraFiles", "x", "mountPth"), ("singleuser", "extraFiles", "*", "mountPath"))


def test_the_chart_version_is_the_one_targeted():
    assert VALUES.read_text().splitlines()[0] == HEADER
    assert CHART_KEYS.read_text().splitlines()[0] == HEADER
    helm = [line for line in VALUES.read_text().splitlines() if "--version" in line]
    assert helm and all(f"--version {CHART_VERSION}" in line for line in helm)
    guide = (REPO / "docs" / "deploy" / "kubernetes.md").read_text()  # the Kubernetes guide, once the README's
    assert f"--version {CHART_VERSION}" in guide and f"chart {CHART_VERSION}" in guide


# ---------------------------------------------------------------- the course's settings agree

def nbgrader_config(values):
    """The traitlets Config of the nbgrader_config.py that values.yaml mounts for every user."""
    files = [f for f in values["singleuser"]["extraFiles"].values() if f["mountPath"] == NBGRADER_CONFIG]
    assert len(files) == 1, f"values.yaml must mount one {NBGRADER_CONFIG}"
    config = Config()
    exec(compile(files[0]["stringData"], NBGRADER_CONFIG, "exec"), {"get_config": lambda: config})
    return config


def test_user_pods_get_the_exchange_and_legacy_keras(values):
    env = values["singleuser"]["extraEnv"]
    assert env["BDL_EXCHANGE"] == EXCHANGE_ROOT
    assert env["TF_USE_LEGACY_KERAS"] == "1"  # a string: Kubernetes env values are strings
    mounts = values["singleuser"]["storage"]["extraVolumeMounts"]
    assert [m["mountPath"] for m in mounts if m["mountPath"] == EXCHANGE_ROOT] == [EXCHANGE_ROOT]
    # the course's own nbgrader_config.py (the instructor's) takes the exchange from BDL_EXCHANGE
    course_config = (REPO / "nbgrader_config.py").read_text()
    assert re.search(r'c\.Exchange\.root = os\.environ\.get\("BDL_EXCHANGE"\)', course_config)


def test_every_user_gets_the_course_nbgrader_config(values):
    config = nbgrader_config(values)
    assert config.CourseDirectory.course_id == COURSE
    assert config.Exchange.root == EXCHANGE_ROOT
    plugin = config.Authenticator.plugin_class
    assert plugin == "nbgrader.auth.JupyterHubAuthPlugin"
    # the trait and the class are nbgrader's own (0.9.6): a misspelling is silently ignored otherwise
    assert "plugin_class" in nbgrader.auth.Authenticator.class_trait_names(config=True)
    assert issubclass(getattr(nbgrader.auth, plugin.rsplit(".", 1)[1]), nbgrader.auth.BaseAuthPlugin)


def test_the_hub_knows_the_course_groups_and_lets_servers_read_them(values):
    hub = values["hub"]
    groups = hub["config"]["JupyterHub"]["load_groups"]
    assert {f"nbgrader-{COURSE}", f"formgrade-{COURSE}"} <= set(groups)
    admins = set(hub["config"]["Authenticator"]["admin_users"])
    assert admins and admins <= set(groups[f"formgrade-{COURSE}"]["users"])
    # JupyterHubAuthPlugin GETs /hub/api/users/<self> with the server's token and reads "groups"
    scopes = hub["loadRoles"]["server"]["scopes"]
    assert {"read:users:groups!user", "read:users:name!user", "access:servers!server"} <= set(scopes)


def test_resources_guarantee_no_more_than_the_limit(values):
    gib = {"G": 1, "M": 1 / 1024}
    memory, cpu = values["singleuser"]["memory"], values["singleuser"]["cpu"]
    guarantee, limit = (float(memory[k][:-1]) * gib[memory[k][-1]] for k in ("guarantee", "limit"))
    assert 0 < guarantee <= limit
    assert 0 < cpu["guarantee"] <= cpu["limit"]


def test_the_exchange_claim_is_shared_and_the_one_mounted(values):
    claim, job = yaml.safe_load_all(EXCHANGE.read_text())
    assert claim["kind"] == "PersistentVolumeClaim" and claim["spec"]["accessModes"] == ["ReadWriteMany"]
    volumes = values["singleuser"]["storage"]["extraVolumes"]
    assert [v["persistentVolumeClaim"]["claimName"] for v in volumes] == [claim["metadata"]["name"]]
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["chmod", "1777", EXCHANGE_ROOT]
    assert [m["mountPath"] for m in container["volumeMounts"]] == [EXCHANGE_ROOT]
    assert ":" in container["image"] and not container["image"].endswith(":latest")


# ---------------------------------------------------------------- the Dockerfile

def instructions(text):
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continuation lines joined."""
    result, current = [], ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue  # Docker drops comment lines, even inside a continued instruction
        continued = stripped.endswith("\\")
        current += " " + (stripped[:-1].rstrip() if continued else stripped)
        if not continued:
            word, _, rest = current.strip().partition(" ")
            result.append((word.upper(), rest.strip()))
            current = ""
    if current.strip():
        raise ValueError("the Dockerfile ends inside a continued instruction")
    return result


def env_vars(steps):
    """The ENV settings (both `ENV K=V K2=V2` and `ENV K V`), later ones winning."""
    env = {}
    for word, args in steps:
        if word != "ENV":
            continue
        parts = shlex.split(args)
        if parts and "=" not in parts[0]:
            env[parts[0]] = " ".join(parts[1:])
        else:
            env.update(part.split("=", 1) for part in parts)
    return env


def copy_sources(args):
    parts = [part for part in shlex.split(args) if not part.startswith("--")]
    return parts[:-1]


def _pins(deps):
    pins = {}
    for dep in deps:
        req = Requirement(dep)
        (spec,) = req.specifier
        pins[canonicalize_name(req.name)] = spec.version
    return pins


def image_requirements():
    """The requirements the image takes from pyproject.toml: its dependencies and IMAGE_GROUPS' (strings, in order)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return project["dependencies"] + [dep for group in IMAGE_GROUPS for dep in project["optional-dependencies"][group]]


def pyproject_pins():
    """{name: version} of the pins the image takes from pyproject.toml."""
    return _pins(image_requirements())


def other_groups():
    """{name: group} of pyproject's pins in the optional groups the image does not take."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return {name: group for group, deps in project["optional-dependencies"].items() if group not in IMAGE_GROUPS
            for name in _pins(deps)}


def dockerfile_problems(text, pins):
    """What is wrong with a Dockerfile's text for this course, as sentences (empty: nothing)."""
    steps = instructions(text)
    problems = []
    froms = [args.split()[0] for word, args in steps if word == "FROM"]
    for image in froms:
        name, _, digest = image.partition("@")
        tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
        if not digest and tag in ("", "latest"):
            problems.append(f"FROM {image} is not pinned (give a tag other than latest, or a digest)")
        elif re.match(r"\d", tag) and not tag.startswith("3.11"):
            problems.append(f"FROM {image}: the course's Python is 3.11")
    if not froms:
        problems.append("no FROM")
    for word, args in steps:
        if word not in ("COPY", "ADD") or "--from=" in args:
            continue  # a copy from another build stage takes nothing from the repository
        for source in copy_sources(args):
            top = source.removeprefix("./").rstrip("/").split("/")[0]
            if top in ("", ".", "*") or top.startswith(COPY_FORBIDDEN):
                problems.append(f"{word} {args}: copies {source!r}, which students must not get")
            elif top not in COPY_ALLOWED:
                problems.append(f"{word} {args}: copies {source!r}, not one of {sorted(COPY_ALLOWED)}")
    copied = {source.removeprefix("./") for word, args in steps if word == "COPY" for source in copy_sources(args)}
    runs = " ".join(args for word, args in steps if word == "RUN")
    if "pyproject.toml" not in copied or not re.search(r"pyproject\.toml.*pip install", runs):
        problems.append("does not install the pins from pyproject.toml")
    for name, version in re.findall(r"([A-Za-z0-9][A-Za-z0-9._\-\[\]]*)==([^\s\"';,]+)", runs):
        name = canonicalize_name(name.split("[")[0])
        expected = EXTRA_PINS.get(name, pins.get(name)) or (
            f"in pyproject.toml's {other_groups()[name]} group, which the image does not take"
            if name in other_groups() else "missing (add it to pyproject.toml)")
        if expected != version:
            problems.append(f"installs {name}=={version}, but the pin is {expected}")
    if env_vars(steps).get("TF_USE_LEGACY_KERAS") != "1":
        problems.append("does not set TF_USE_LEGACY_KERAS=1")
    users = [args.split()[0] for word, args in steps if word == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        problems.append("does not end as a user who is not root (USER)")
    return problems


def test_the_dockerfile_is_pinned_and_copies_nothing_of_the_instructors_side():
    assert dockerfile_problems(DOCKERFILE.read_text(), pyproject_pins()) == []


def test_the_dockerfile_installs_the_chart_jupyterhub():
    runs = " ".join(args for word, args in instructions(DOCKERFILE.read_text()) if word == "RUN")
    assert f"jupyterhub=={JUPYTERHUB_VERSION}" in runs


def test_the_dockerfile_requirements_are_pyprojects_dependencies_and_instructor_group(tmp_path):
    """The image's requirements, made by the Dockerfile's own one-liner from pyproject.toml: the dependencies
    and the instructor group, as pyproject writes them; nothing of the hub's group (its jupyterhub pin is
    not the chart's) or the tests'."""
    runs = " ".join(args for word, args in instructions(DOCKERFILE.read_text()) if word == "RUN")
    program = re.search(r'python -c "(import tomllib.*?)"', runs).group(1)
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    made = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout.splitlines()
    assert made == image_requirements()
    names = {canonicalize_name(Requirement(line).name) for line in made}
    assert {"psutil", "distributed"} <= names
    left_out = other_groups()
    assert {"jupyterhub", "pytest", "playwright"} <= set(left_out) and not names & set(left_out)


@pytest.mark.parametrize("change, problem", [
    (("FROM python:3.11.13-slim-bookworm", "FROM python:latest"), "not pinned"),
    (("FROM python:3.11.13-slim-bookworm", "FROM python"), "not pinned"),
    (("FROM python:3.11.13-slim-bookworm", "FROM python:3.12.9-slim"), "Python is 3.11"),
    (("COPY bdl ./bdl", "COPY . ."), "students must not get"),
    (("COPY bdl ./bdl", "COPY source/ ./source/"), "students must not get"),
    (("COPY bdl ./bdl", "COPY --chown=1000 tests /opt/tests"), "students must not get"),
    (("COPY bdl ./bdl", "COPY .git .git"), "students must not get"),
    (("COPY bdl ./bdl", "COPY autograder ./autograder"), "students must not get"),
    (("COPY bdl ./bdl", "COPY Makefile ./"), "not one of"),
    (("jupyterhub==5.5.0", "jupyterhub==5.5.0 numpy==1.26.4"), "numpy==1.26.4, but the pin is 2.4.6"),
    (("jupyterhub==5.5.0", "jupyterhub==6.1.1"), "jupyterhub==6.1.1, but the pin is 5.5.0"),
    (("jupyterhub==5.5.0", "jupyterhub==5.5.0 requests==2.0"), "add it to pyproject.toml"),
    (("jupyterhub==5.5.0", "jupyterhub==5.5.0 pytest==9.2.0"), "test group, which the image does not take"),
    (("ENV TF_USE_LEGACY_KERAS=1", "ENV TF_USE_LEGACY_KERAS=0"), "TF_USE_LEGACY_KERAS=1"),
    (("USER jovyan", "USER root"), "not root"),
    (("USER jovyan", "USER 0:100"), "not root"),
])
def test_the_dockerfile_checker_catches(change, problem):
    text = DOCKERFILE.read_text()
    old, new = change
    assert old in text
    problems = dockerfile_problems(text.replace(old, new, 1), pyproject_pins())
    assert any(problem in p for p in problems), problems


def test_the_dockerfile_parser_joins_continuations_and_drops_comments():
    steps = instructions("FROM a:1\n# note\nRUN one \\\n  # inside\n  two\nENV A=1 B=\"x y\"\nENV C 3\n")
    assert steps == [("FROM", "a:1"), ("RUN", "one two"), ("ENV", 'A=1 B="x y"'), ("ENV", "C 3")]
    assert env_vars(steps) == {"A": "1", "B": "x y", "C": "3"}


def test_the_build_context_holds_only_what_the_image_copies():
    patterns = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*"  # everything out, then only what COPY names back in
    back_in = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    copied = {source.removeprefix("./").rstrip("/") for word, args in instructions(DOCKERFILE.read_text())
              if word == "COPY" for source in copy_sources(args)}
    assert back_in == copied and back_in <= COPY_ALLOWED


def test_the_image_tag_in_the_values_is_pinned(values):
    image = values["singleuser"]["image"]
    assert image["tag"] and image["tag"] != "latest" and ":" not in image["name"].rsplit("/", 1)[-1]
