"""The Kubernetes deployment on paper: deploy/kubernetes/ and deploy/Dockerfile, linted.

Neither helm, a cluster nor a container engine runs here, so this stands in for `helm
template` and `docker build`: values.yaml, laid over the chart's defaults as helm lays it,
must satisfy the chart's own schema (both stored from the targeted chart version), and each
hub.config key must be a live setting of the hub's classes; the course's settings must agree
between the values, the nbgrader config they mount, the exchange's claim and Job and the
grading network policy; the hub's extra configuration runs here against the course's pins of
JupyterHub and NativeAuthenticator (a uid per user, the instructor's account made at start, no
login as the course account), and the roles' scopes through JupyterHub's own scope code;
and the Dockerfile must be pinned, copy nothing of the instructor's side, install
pyproject.toml's dependencies and instructor group (nothing of its hub or test groups) and
run as a user who is not root.
No network, no helm, no docker: a few seconds (bcrypt hashes a few passwords).
"""

import asyncio
import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import nbgrader.auth
import nbgrader.exchange.abc
import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from traitlets.config import Config

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
VALUES = DEPLOY / "kubernetes" / "values.yaml"
# The chart's own, stored as they are at its tag (docs/deploy/kubernetes.md says from where):
# its values.schema.yaml as JSON, and its default values.yaml.
SCHEMA = DEPLOY / "kubernetes" / "values.schema.json"
CHART_DEFAULTS = DEPLOY / "kubernetes" / "chart-defaults.yaml"
EXCHANGE = DEPLOY / "kubernetes" / "exchange.yaml"
GRADING = DEPLOY / "kubernetes" / "grading.yaml"
GUIDE = REPO / "docs" / "deploy" / "kubernetes.md"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"

# The chart release targeted: the newest Zero to JupyterHub whose JupyterHub is
# 5.x or 6.x. Changing it means storing that version's schema and defaults again.
CHART_VERSION = "4.4.0"
JUPYTERHUB_VERSION = "5.5.0"
HEADER = f"# Zero to JupyterHub chart {CHART_VERSION} (JupyterHub {JUPYTERHUB_VERSION})"

COURSE = "bdl"
EXCHANGE_ROOT = "/srv/nbgrader/exchange"
NBGRADER_CONFIG = "/etc/jupyter/nbgrader_config.py"
INSTRUCTOR_SECRET = "bdl-instructor"
# What the image may copy from the repository: what a student kit holds
# (autograder/studentkit.py keeps source/, tests/, autograder/ and the course's
# nbgrader_config.py out of students' hands, and every student runs this image).
COPY_ALLOWED = {"pyproject.toml", "constraints.txt", "bdl", "notebooks", "release"}
COPY_FORBIDDEN = ("source", "tests", ".git", "autograder", "nbgrader_config.py")
# Pinned in the Dockerfile but not in pyproject.toml: the single-user server,
# whose major version must match the chart's hub.
EXTRA_PINS = {"jupyterhub": JUPYTERHUB_VERSION}
# pyproject's optional groups the image takes beside its dependencies: the instructor's (grading and
# the Dask workers run from the image); not the hub's (the chart's hub image runs the hub) nor the tests'.
IMAGE_GROUPS = ("instructor",)


# ---------------------------------------------------------------- values.yaml against the chart's schema


def coalesce(defaults, values):
    """The values helm validates and renders: ``values`` laid over the chart's ``defaults``
    (mappings merged key by key, anything else replaced, a null deleting the default's key)."""
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = coalesce(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def schema_errors(values):
    """What the chart's schema refuses in ``values`` laid over its defaults, as "path: message"."""
    schema = json.loads(SCHEMA.read_text())
    merged = coalesce(yaml.safe_load(CHART_DEFAULTS.read_text()), values)
    errors = jsonschema.Draft7Validator(schema).iter_errors(merged)
    return sorted(f"{'.'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}" for error in errors)


def hub_classes():
    """The classes hub.config may configure here, by section name: the hub's own and the
    authenticator's, at the course's pins of JupyterHub 5 and NativeAuthenticator (the chart's)."""
    from jupyterhub.app import JupyterHub
    from jupyterhub.auth import Authenticator
    from nativeauthenticator import NativeAuthenticator

    return {cls.__name__: cls for cls in (JupyterHub, Authenticator, NativeAuthenticator)}


def hub_config_errors(values):
    """The hub.config keys that configure nothing: the schema takes any section starting with a
    capital and any key below it, and the hub ignores a misspelt one, or one deprecated to nothing."""
    classes, errors = hub_classes(), []
    for section, settings in values["hub"]["config"].items():
        cls = classes.get(section)
        if cls is None:
            errors.append(f"hub.config.{section}: not one of {sorted(classes)}")
            continue
        traits = cls.class_traits(config=True)
        for key in settings:
            if key not in traits:
                errors.append(f"hub.config.{section}.{key}: not a setting of {section}")
            elif (traits[key].help or "").lstrip().upper().startswith("DEPRECATED"):
                errors.append(f"hub.config.{section}.{key}: deprecated, does nothing")
    return errors


@pytest.fixture(scope="module")
def values():
    return yaml.safe_load(VALUES.read_text())


def test_the_stored_schema_is_a_draft_7_schema():
    schema = json.loads(SCHEMA.read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema_errors({}) == []  # the chart's defaults pass their own schema


def test_the_values_pass_the_charts_schema(values):
    assert isinstance(values, dict) and values
    assert schema_errors(values) == []


def test_every_hub_config_key_is_a_live_setting(values):
    assert hub_config_errors(values) == []


def test_the_checks_refuse_a_misspelt_key(values):
    planted = copy.deepcopy(values)
    planted["singleuser"]["memroy"] = {"limit": "4G"}
    planted["proxy"]["https"]["letsencrypt"]["contactEmial"] = "x@example.org"
    planted["culll"] = {"enabled": True}
    planted["singleuser"]["networkPolicy"] = {"egressAllowRules": {"privateIP": True}}
    planted["singleuser"]["extraFiles"]["no-path"] = {"stringData": "x"}  # mountPath is required
    planted["singleuser"]["cpu"]["limit"] = "two"
    errors = schema_errors(planted)
    for key in (
        "'memroy' was unexpected",
        "'contactEmial' was unexpected",
        "'culll' was unexpected",
        "'privateIP' was unexpected",
        "'mountPath' is a required property",
        "singleuser.cpu.limit: 'two' is not of type",
    ):
        assert any(key in error for error in errors), (key, errors)
    assert len(errors) == 6, errors
    # the schema takes any capitalised hub.config section: the hub's classes check those
    planted["hub"]["config"]["NativeAuthentictor"] = {"open_signup": False}
    planted["hub"]["config"]["NativeAuthenticator"]["open_sigup"] = False
    planted["hub"]["config"]["JupyterHub"]["admin_access"] = False
    assert schema_errors(planted) == errors
    assert hub_config_errors(planted) == [
        "hub.config.JupyterHub.admin_access: deprecated, does nothing",
        "hub.config.NativeAuthenticator.open_sigup: not a setting of NativeAuthenticator",
        "hub.config.NativeAuthentictor: not one of ['Authenticator', 'JupyterHub', 'NativeAuthenticator']",
    ]


def test_coalesce_lays_values_over_defaults_as_helm_does():
    defaults = {"a": {"b": 1, "c": [1, 2]}, "d": 2, "e": {"f": 3}}
    assert coalesce(defaults, {"a": {"c": [3]}, "d": None, "e": 4}) == {"a": {"b": 1, "c": [3]}, "e": 4}
    assert defaults == {"a": {"b": 1, "c": [1, 2]}, "d": 2, "e": {"f": 3}}


def test_the_chart_version_is_the_one_targeted():
    assert VALUES.read_text().splitlines()[0] == HEADER
    helm = [line for line in VALUES.read_text().splitlines() if "--version" in line]
    assert helm and all(f"--version {CHART_VERSION}" in line for line in helm)
    guide = GUIDE.read_text()  # the Kubernetes guide, once the README's
    assert f"--version {CHART_VERSION}" in guide and f"chart {CHART_VERSION}" in guide
    # the stored schema and defaults name their source: this tag of the chart's repository
    for stored in (SCHEMA, CHART_DEFAULTS):
        assert re.search(rf"`deploy/kubernetes/{stored.name}`[^.]*tag `{re.escape(CHART_VERSION)}`", guide, re.S), (
            stored.name
        )


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
    # collect's owner check names a uid the course account's pod cannot: off, and really nbgrader's setting
    assert config.ExchangeCollect.check_owner is False
    assert "check_owner" in nbgrader.exchange.abc.ExchangeCollect.class_trait_names(config=True)


def test_the_hub_knows_the_course_groups_and_lets_servers_read_them(values):
    hub = values["hub"]
    groups = hub["config"]["JupyterHub"]["load_groups"]
    assert {f"nbgrader-{COURSE}", f"formgrade-{COURSE}"} <= set(groups)
    admins = set(hub["config"]["Authenticator"]["admin_users"])
    assert admins and admins <= set(groups[f"formgrade-{COURSE}"]["users"])
    # JupyterHubAuthPlugin GETs /hub/api/users/<self> with the server's token and reads "groups"
    scopes = hub["loadRoles"]["server"]["scopes"]
    assert {"read:users:groups!user", "read:users:name!user", "access:servers!server"} <= set(scopes)


def test_the_instructor_is_named_alike_everywhere(values):
    instructor = values["custom"]["instructor"]
    hub = values["hub"]
    assert hub["config"]["Authenticator"]["admin_users"] == [instructor]
    assert instructor in hub["config"]["JupyterHub"]["load_groups"][f"formgrade-{COURSE}"]["users"]
    # the instructor's own server is a plain one: no role opens it, no network policy widens it
    assert not any(instructor in scope for role in hub["loadRoles"].values() for scope in role["scopes"])
    policy = yaml.safe_load(GRADING.read_text())
    assert policy["spec"]["podSelector"]["matchLabels"]["hub.jupyter.org/username"] != instructor


def test_the_course_account_is_named_alike_everywhere(values):
    account = values["custom"]["course_account"]
    assert account == f"grader-{COURSE}" and account != values["custom"]["instructor"]
    hub = values["hub"]
    assert account in hub["config"]["JupyterHub"]["load_groups"][f"formgrade-{COURSE}"]["users"]
    assert account not in hub["config"]["Authenticator"]["admin_users"]
    graders = hub["loadRoles"][f"{COURSE}-graders"]
    assert set(graders["scopes"]) == {f"access:servers!user={account}", f"servers!user={account}"}
    assert graders["groups"] == [f"formgrade-{COURSE}"]
    assert hub["loadRoles"][f"{COURSE}-course"]["users"] == [account]
    policy = yaml.safe_load(GRADING.read_text())
    assert policy["spec"]["podSelector"]["matchLabels"]["hub.jupyter.org/username"] == account


def test_resources_guarantee_no_more_than_the_limit(values):
    gib = {"G": 1, "M": 1 / 1024}
    memory, cpu = values["singleuser"]["memory"], values["singleuser"]["cpu"]
    guarantee, limit = (float(memory[k][:-1]) * gib[memory[k][-1]] for k in ("guarantee", "limit"))
    assert 0 < guarantee <= limit
    assert 0 < cpu["guarantee"] <= cpu["limit"]


def exchange_job():
    claim, job = yaml.safe_load_all(EXCHANGE.read_text())
    return claim, job["spec"]["template"]["spec"]["containers"][0]


def test_the_exchange_claim_is_shared_and_the_one_mounted(values):
    claim, container = exchange_job()
    assert claim["kind"] == "PersistentVolumeClaim" and claim["spec"]["accessModes"] == ["ReadWriteMany"]
    volumes = values["singleuser"]["storage"]["extraVolumes"]
    claims = [v["persistentVolumeClaim"]["claimName"] for v in volumes if "persistentVolumeClaim" in v]
    assert claims == [claim["metadata"]["name"]]
    assert [m["mountPath"] for m in container["volumeMounts"]] == [EXCHANGE_ROOT]
    assert ":" in container["image"] and not container["image"].endswith(":latest")


# ---------------------------------------------------------------- hub.extraConfig: a uid per user, the instructor's account


def extra_config(values):
    """Run hub.extraConfig as the chart's jupyterhub_config.py does (after loading hub.config into
    ``c``), with z2jh's get_config reading the values laid over the chart's defaults; return ``c``
    and the names it defined."""
    merged = coalesce(yaml.safe_load(CHART_DEFAULTS.read_text()), values)

    def get_config(key, default=None):
        value = merged
        for level in key.split("."):
            if not isinstance(value, dict) or level not in value:
                return default
            value = value[level]
        return value

    c = Config()
    for section, settings in merged["hub"]["config"].items():
        c[section].update(settings)
    names = {"c": c, "get_config": get_config}
    for key, code in sorted(merged["hub"]["extraConfig"].items()):
        exec(compile(code, f"hub.extraConfig.{key}", "exec"), names)
    return c, names


def spawner(name, user_id):
    """What the uid callables read of KubeSpawner: its user's name and id."""
    return SimpleNamespace(user=SimpleNamespace(name=name, id=user_id))


def test_each_user_pod_runs_as_a_uid_of_its_own(values):
    c, _ = extra_config(values)
    account, instructor = values["custom"]["course_account"], values["custom"]["instructor"]
    uid, pod = c.KubeSpawner.uid, c.KubeSpawner.pod_security_context
    assert uid(spawner(account, 2)) == 1000  # the image's jovyan
    # the instructor's own pod is a student's like any other
    assert uid(spawner(instructor, 1)) == 10001
    others = [uid(spawner(f"student{n}", n)) for n in range(3, 600)] + [uid(spawner(instructor, 1))]
    assert len(set(others)) == len(others) and min(others) > 1000 and 1000 not in others
    assert uid(spawner("student7", 7)) == uid(spawner("student7", 7))  # the same at every start
    # the pod's other containers (the passwd init container) run as the same uid, group users
    for user in (spawner(account, 2), spawner(instructor, 1), spawner("student7", 7)):
        assert pod(user) == {"runAsUser": uid(user), "runAsGroup": 100}
    assert c.KubeSpawner.gid == values["singleuser"]["fsGid"] == 100


def test_the_exchange_course_folder_is_the_course_accounts(values):
    c, _ = extra_config(values)
    account_uid = c.KubeSpawner.uid(spawner(values["custom"]["course_account"], 2))
    _, container = exchange_job()
    assert container["command"][:2] == ["sh", "-c"]
    script = container["command"][2]
    subprocess.run(["sh", "-n", "-c", script], check=True)
    lines = [line.strip() for line in script.splitlines()]
    assert lines[:3] == ["set -e", f"cd {EXCHANGE_ROOT}", "chmod 1777 ."]
    assert f"chown {account_uid}:{c.KubeSpawner.gid} {COURSE}" in lines
    assert f"chmod 755 {COURSE}" in lines
    assert f"grep -qx {account_uid}" in script  # an existing bdl/ of anyone else stops the Job


def test_the_passwd_init_container_names_the_pods_uid_jovyan(values, tmp_path):
    single = values["singleuser"]
    image = single["image"]
    (init,) = single["initContainers"]
    assert init["image"] == f"{image['name']}:{image['tag']}"
    (mount,) = init["volumeMounts"]
    volume = next(v for v in single["storage"]["extraVolumes"] if v["name"] == mount["name"])
    assert "emptyDir" in volume
    (over,) = [m for m in single["storage"]["extraVolumeMounts"] if m["name"] == mount["name"]]
    assert over == {"name": mount["name"], "mountPath": "/etc/passwd", "subPath": "passwd", "readOnly": True}
    script = init["command"][2]
    # KubeSpawner formats every string of an init container ({name}) and Kubernetes expands $(NAME)
    assert not re.search(r"[{}]|\$\(", script)
    # the script itself, on a copy of the image's passwd line for jovyan
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\njovyan:x:1000:100::/home/jovyan:/bin/bash\n")
    out = tmp_path / "out"
    out.mkdir()
    run = script.replace("/etc/passwd", str(passwd)).replace(mount["mountPath"], str(out))
    subprocess.run(["sh", "-c", run], check=True)
    assert (out / "passwd").read_text().splitlines() == [
        "root:x:0:0:root:/root:/bin/bash",
        f"jovyan:x:{os.getuid()}:100::/home/jovyan:/bin/bash",
    ]


@pytest.fixture
def authenticator(values, monkeypatch):
    """A function making the hub's authenticator as the hub does at its start, on one database."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    c, names = extra_config(values)
    cls = c.JupyterHub.authenticator_class
    assert cls is names["CourseAuthenticator"]
    config = Config()
    for section in ("Authenticator", "NativeAuthenticator"):
        config[section] = c[section]
    session = sessionmaker(bind=create_engine("sqlite://"))()
    yield lambda: cls(config=config, _deprecated_db_session=session)
    session.close()


def test_the_instructors_account_exists_before_anyone_signs_up(values, authenticator, monkeypatch):
    from nativeauthenticator.orm import UserInfo

    env = values["hub"]["extraEnv"]["BDL_INSTRUCTOR_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert env == {"name": INSTRUCTOR_SECRET, "key": "password"}
    instructor = values["custom"]["instructor"]
    monkeypatch.setenv("BDL_INSTRUCTOR_PASSWORD", "the instructor's own")
    auth = authenticator()
    info = UserInfo.find(auth.db, instructor)
    assert info.is_authorized and info.is_valid_password("the instructor's own")
    assert instructor in auth.admin_users and not auth.open_signup
    # a sign-up under the instructor's name is refused; another waits for approval
    assert auth.create_user(instructor, "somebody else's password") is None
    assert UserInfo.find(auth.db, instructor).is_valid_password("the instructor's own")
    auth.create_user("student1", "a long enough password")
    assert not UserInfo.find(auth.db, "student1").is_authorized
    # a restart keeps the account as it is (the instructor may have changed the password)
    monkeypatch.setenv("BDL_INSTRUCTOR_PASSWORD", "the Secret changed since")
    auth = authenticator()
    assert len([u for u in UserInfo.all_users(auth.db) if u.username == instructor]) == 1
    assert UserInfo.find(auth.db, instructor).is_valid_password("the instructor's own")


def test_no_one_logs_in_or_signs_up_as_the_course_account(values, authenticator, monkeypatch):
    import bcrypt
    from nativeauthenticator.orm import UserInfo

    account, instructor = values["custom"]["course_account"], values["custom"]["instructor"]
    monkeypatch.setenv("BDL_INSTRUCTOR_PASSWORD", "the instructor's own")
    auth = authenticator()
    for name in (account, account.upper()):
        assert auth.create_user(name, "a long enough password") is None
    assert UserInfo.find(auth.db, account) is None
    # an account of that name, approved (made before this hook, or by hand), with its right password
    password = "the course account's password"
    auth.db.add(
        UserInfo(username=account, is_authorized=True, password=bcrypt.hashpw(password.encode(), bcrypt.gensalt()))
    )
    auth.db.commit()
    assert UserInfo.find(auth.db, account).is_valid_password(password)

    def log_in(name, password):  # as the login page does: the authenticator, then the login hook
        user = asyncio.run(auth.get_authenticated_user(None, {"username": name, "password": password}))
        return user and user["name"]

    for name in (account, account.upper()):
        assert log_in(name, password) is None
    assert log_in(instructor, "the instructor's own") == instructor
    assert log_in(instructor, "wrong") is None


@pytest.mark.parametrize("password", [None, "", "short"])
def test_without_the_instructors_password_the_hub_does_not_start(values, authenticator, monkeypatch, password):
    if password is None:
        monkeypatch.delenv("BDL_INSTRUCTOR_PASSWORD", raising=False)
    else:
        monkeypatch.setenv("BDL_INSTRUCTOR_PASSWORD", password)
    with pytest.raises(ValueError, match=INSTRUCTOR_SECRET):
        authenticator()


def test_another_authenticator_is_left_as_it_is(values):
    other = copy.deepcopy(values)
    other["hub"]["config"]["JupyterHub"]["authenticator_class"] = "ldapauthenticator.LDAPAuthenticator"
    c, _ = extra_config(other)
    assert c.JupyterHub.authenticator_class == "ldapauthenticator.LDAPAuthenticator"
    # and still no login as the course account: the login hook is every authenticator's
    from jupyterhub.auth import Authenticator

    auth, account = Authenticator(), values["custom"]["course_account"]
    for name in (account, account.upper()):
        assert c.Authenticator.post_auth_hook(auth, None, {"name": name}) is None
    assert c.Authenticator.post_auth_hook(auth, None, {"name": "student1"}) == {"name": "student1"}


def test_the_course_accounts_pod_alone_reaches_the_gradebook_and_the_scheduler(values):
    policy = yaml.safe_load(GRADING.read_text())
    assert policy["kind"] == "NetworkPolicy" and policy["spec"]["policyTypes"] == ["Egress"]
    labels = policy["spec"]["podSelector"]["matchLabels"]
    assert labels["component"] == "singleuser-server" and labels["hub.jupyter.org/username"]
    (rule,) = policy["spec"]["egress"]
    assert {(p["protocol"], p["port"]) for p in rule["ports"]} == {("TCP", 5432), ("TCP", 8786)}
    assert {"namespaceSelector": {}} in rule["to"]
    assert {t["ipBlock"]["cidr"] for t in rule["to"] if "ipBlock" in t} == {
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
    }
    # every user's pod keeps the chart's default: no private address, so no student reaches either
    merged = coalesce(yaml.safe_load(CHART_DEFAULTS.read_text()), values)
    network = merged["singleuser"]["networkPolicy"]
    assert network["enabled"] and not network["egressAllowRules"]["privateIPs"] and not network["egress"]


# ---------------------------------------------------------------- the roles, through JupyterHub's own scope code


def hub_database(values, students, graders):
    """An in-memory hub database as JupyterHub 5 makes it at its start from the values: the default roles and
    hub.loadRoles (z2jh names each by its key), admin_users, load_groups, plus ``students`` in nbgrader-<course>
    and ``graders`` in formgrade-<course>; returns the session and {name: orm.User}."""
    from jupyterhub import orm, roles

    db = orm.new_session_factory("sqlite://")()
    db.add(orm.OAuthClient(identifier="jupyterhub"))  # the client a server's token belongs to
    for role in roles.get_default_roles():
        roles.create_role(db, role)
    config = values["hub"]["config"]
    groups = copy.deepcopy(config["JupyterHub"]["load_groups"])
    groups[f"nbgrader-{COURSE}"]["users"] += students
    groups[f"formgrade-{COURSE}"]["users"] += graders
    admins = config["Authenticator"]["admin_users"]
    users = {}
    for name in {*admins, *(n for group in groups.values() for n in group["users"])}:
        users[name] = orm.User(name=name, admin=name in admins)
        db.add(users[name])
        db.commit()
        roles.assign_default_roles(db, users[name])
    for name, group in groups.items():
        db.add(orm.Group(name=name, users=[users[n] for n in group["users"]]))
    db.commit()
    for name, spec in values["hub"]["loadRoles"].items():
        role = roles.create_role(db, {"name": name, **spec})
        for user in spec.get("users", []):
            roles.grant_role(db, users[user], role)
        for group in spec.get("groups", []):
            roles.grant_role(db, orm.Group.find(db, group), role)
    return db, users


def server_token_scopes(db, user):
    """The expanded scopes of a user's server's $JUPYTERHUB_API_TOKEN, made as JupyterHub 5's User.spawn
    makes it (the "server" role's scopes that the user holds) and checked as each request checks it."""
    from jupyterhub import orm, roles, scopes

    requested = {
        scope + f"={user.name}/" if scope.endswith("!server") else scope for scope in orm.Role.find(db, "server").scopes
    }
    have = roles.roles_to_scopes(roles.get_roles_for(user)) | {"inherit"}
    client = db.query(orm.OAuthClient).filter_by(identifier="jupyterhub").one()
    granted, _ = scopes._resolve_requested_scopes(requested, have, user, client, db)
    return scopes.get_scopes_for(orm.APIToken.find(db, user.new_api_token(scopes=granted)))


def test_only_the_course_accounts_server_manages_the_students(values):
    from jupyterhub.scopes import get_scopes_for, has_scope

    account, instructor = values["custom"]["course_account"], values["custom"]["instructor"]
    db, users = hub_database(values, students=["student1"], graders=["ta1"])
    manage = ("list:users", "read:users", "list:groups", "read:groups", f"groups!group=nbgrader-{COURSE}")
    # formgrader's Manage Students, with the course account's server's token
    course = server_token_scopes(db, users[account])
    assert all(has_scope(scope, course, db=db) for scope in manage)
    assert not has_scope("admin:users", course) and not has_scope(f"groups!group=formgrade-{COURSE}", course, db=db)
    # the instructor's too (an admin holds them all), and no more of an admin's
    own = server_token_scopes(db, users[instructor])
    assert all(has_scope(scope, own, db=db) for scope in manage) and not has_scope("admin:users", own)
    # a student's and a TA's servers read their own user alone, as nbgrader's course list needs
    for name in ("student1", "ta1"):
        token = server_token_scopes(db, users[name])
        assert not any(has_scope(scope, token, db=db) for scope in manage), name
        assert has_scope(f"read:users:groups!user={name}", token, db=db)
        assert not has_scope(f"read:users:groups!user={account}", token, db=db)
    # the TAs and the instructor start and open the course account's server; no one but the instructor
    # (an admin) opens the instructor's
    for name in ("ta1", instructor):
        have = get_scopes_for(users[name])
        assert has_scope(f"access:servers!server={account}/", have, db=db)
        assert has_scope(f"servers!server={account}/", have, db=db)
    for name in ("ta1", "student1", account):
        have = get_scopes_for(users[name])
        assert not has_scope(f"access:servers!server={instructor}/", have, db=db), name
        assert not has_scope(f"servers!user={instructor}", have, db=db), name
    assert not has_scope(f"access:servers!server={account}/", get_scopes_for(users["student1"]), db=db)
    db.close()


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
    return {
        name: group
        for group, deps in project["optional-dependencies"].items()
        if group not in IMAGE_GROUPS
        for name in _pins(deps)
    }


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
    if "constraints.txt" not in copied or not re.search(r"pip install [^&]*-c \S*constraints\.txt", runs):
        problems.append("does not install with constraints.txt (the tested versions of everything else)")
    for name, version in re.findall(r"([A-Za-z0-9][A-Za-z0-9._\-\[\]]*)==([^\s\"';,]+)", runs):
        name = canonicalize_name(name.split("[")[0])
        expected = EXTRA_PINS.get(name, pins.get(name)) or (
            f"in pyproject.toml's {other_groups()[name]} group, which the image does not take"
            if name in other_groups()
            else "missing (add it to pyproject.toml)"
        )
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
    made = subprocess.run(
        [sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert made == image_requirements()
    names = {canonicalize_name(Requirement(line).name) for line in made}
    assert {"psutil", "distributed"} <= names
    left_out = other_groups()
    assert {"jupyterhub", "pytest", "playwright"} <= set(left_out) and not names & set(left_out)


@pytest.mark.parametrize(
    "change, problem",
    [
        (("FROM python:3.11.13-slim-bookworm", "FROM python:latest"), "not pinned"),
        (("FROM python:3.11.13-slim-bookworm", "FROM python"), "not pinned"),
        (("FROM python:3.11.13-slim-bookworm", "FROM python:3.12.9-slim"), "Python is 3.11"),
        (("COPY bdl ./bdl", "COPY . ."), "students must not get"),
        (("COPY bdl ./bdl", "COPY source/ ./source/"), "students must not get"),
        (("COPY bdl ./bdl", "COPY --chown=1000 tests /opt/tests"), "students must not get"),
        (("COPY bdl ./bdl", "COPY .git .git"), "students must not get"),
        (("COPY bdl ./bdl", "COPY autograder ./autograder"), "students must not get"),
        (("COPY bdl ./bdl", "COPY Makefile ./"), "not one of"),
        (("-c /tmp/constraints.txt", ""), "does not install with constraints.txt"),
        (("jupyterhub==5.5.0", "jupyterhub==5.5.0 numpy==1.26.4"), "numpy==1.26.4, but the pin is 2.4.6"),
        (("jupyterhub==5.5.0", "jupyterhub==6.1.1"), "jupyterhub==6.1.1, but the pin is 5.5.0"),
        (("jupyterhub==5.5.0", "jupyterhub==5.5.0 requests==2.0"), "add it to pyproject.toml"),
        (("jupyterhub==5.5.0", "jupyterhub==5.5.0 pytest==9.2.0"), "test group, which the image does not take"),
        (("ENV TF_USE_LEGACY_KERAS=1", "ENV TF_USE_LEGACY_KERAS=0"), "TF_USE_LEGACY_KERAS=1"),
        (("USER jovyan", "USER root"), "not root"),
        (("USER jovyan", "USER 0:100"), "not root"),
    ],
)
def test_the_dockerfile_checker_catches(change, problem):
    text = DOCKERFILE.read_text()
    old, new = change
    assert old in text
    problems = dockerfile_problems(text.replace(old, new, 1), pyproject_pins())
    assert any(problem in p for p in problems), problems


def test_the_dockerfile_parser_joins_continuations_and_drops_comments():
    steps = instructions('FROM a:1\n# note\nRUN one \\\n  # inside\n  two\nENV A=1 B="x y"\nENV C 3\n')
    assert steps == [("FROM", "a:1"), ("RUN", "one two"), ("ENV", 'A=1 B="x y"'), ("ENV", "C 3")]
    assert env_vars(steps) == {"A": "1", "B": "x y", "C": "3"}


def test_the_build_context_holds_only_what_the_image_copies():
    patterns = [
        line.strip() for line in DOCKERIGNORE.read_text().splitlines() if line.strip() and not line.startswith("#")
    ]
    assert patterns[0] == "*"  # everything out, then only what COPY names back in
    back_in = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    copied = {
        source.removeprefix("./").rstrip("/")
        for word, args in instructions(DOCKERFILE.read_text())
        if word == "COPY"
        for source in copy_sources(args)
    }
    assert back_in == copied and back_in <= COPY_ALLOWED


def test_the_image_tag_in_the_values_is_pinned(values):
    image = values["singleuser"]["image"]
    assert image["tag"] and image["tag"] != "latest" and ":" not in image["name"].rsplit("/", 1)[-1]
