"""The roster of a hub: its CSV (nbgrader's format) read and checked, the gradebook's students, and
``hub roster CSV``, which changes who is in the course while the hub runs, no restart, so no one's
kernel stops.

A student added gets an account, a place in the gradebook and a hub user in the course's group; a student
removed leaves the group and the hub (their server stops, and NativeAuthenticator forgets their sign-up),
but keeps their account, home and grades. The hub's login hook and spawner read the roster from
HUB_DIR/settings.json at each login and start, so the change holds at once. The hub's API is called with
the token of its ``roster`` service (HUB_DIR/roster-token, root's alone), whose role may manage users and
the course's group and nothing else.
"""

import csv
import json
import pwd
import urllib.error
import urllib.request
from dataclasses import asdict, replace
from pathlib import Path

from autograder.hub.accounts import as_user, ensure_user
from autograder.hub.private import private_file, service_token
from autograder.hub.settings import USERNAME, HubError, stored_settings
from autograder.hub.systemd_unit import running

ROSTER_FIELDS = ("first_name", "last_name", "email")


def read_roster(path):
    """Return the roster's students: dicts with ``id`` and any of first_name, last_name, email
    (nbgrader's roster format: a CSV with an ``id`` column)."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    if rows and "id" not in rows[0]:
        raise HubError(f"{path}: the roster needs an 'id' column (nbgrader's format: id,first_name,last_name,email)")
    students, seen = [], set()
    for number, row in enumerate(rows, start=2):
        name = (row.get("id") or "").strip()
        if not USERNAME.fullmatch(name):
            raise HubError(
                f"{path}, line {number}: {name!r} is not a Unix user name "
                "(lower-case letters, digits, _ and -, at most 32, starting with a letter, not ending with _)"
            )
        if name in seen:
            raise HubError(f"{path}, line {number}: {name!r} is in the roster twice")
        seen.add(name)
        students.append({"id": name, **{key: (row.get(key) or "").strip() for key in ROSTER_FIELDS}})
    return students


def sync_gradebook(settings, owner, course):
    """The roster's students in the course's gradebook, written as the course account."""
    as_user(
        owner,
        [f"{settings.venv}/bin/python", "-m", "autograder.hub.roster_to_gradebook", f"sqlite:///{course}/gradebook.db"],
        settings,
        "adding the roster to the gradebook",
        cwd=course,
        input=json.dumps(settings.students),
    )


def _api(settings, method, path, body=None):
    """Call the running hub's REST API as the roster service; 404 and 409 (gone, there already) are fine."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{settings.hub_port}/hub/api{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"token {service_token(settings, 'roster')}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120):
            return
    except urllib.error.HTTPError as error:
        if error.code not in (404, 409):
            raise HubError(
                f"the hub refused {method} {path}: {error.code} {error.read()[:300].decode(errors='replace')}"
            ) from None
    except OSError as error:
        raise HubError(f"the hub's API at 127.0.0.1:{settings.hub_port} did not answer: {error}") from None


def change_roster(settings, students, log=print):
    """Make ``students`` (read_roster's dicts) the course's roster, on the running hub too; return
    (added, removed) names."""
    staff = {settings.instructor, *settings.graders}
    both = sorted(staff & {student["id"] for student in students})
    if both:
        raise HubError(f"{both[0]!r} is staff and also in the roster")
    before = {student["id"] for student in settings.students}
    after = {student["id"] for student in students}
    added, removed = sorted(after - before), sorted(before - after)
    for name in added:
        ensure_user(name, settings.home_root, log)
    new = replace(settings, students=students)
    owner = pwd.getpwnam(settings.course_account)
    sync_gradebook(new, owner, Path(owner.pw_dir) / settings.course_id)
    private_file(Path(settings.hub_dir) / "settings.json", json.dumps(asdict(new), indent=1))
    if running(settings.hub_dir):
        group = f"/groups/nbgrader-{settings.course_id}/users"
        for name in added:
            _api(settings, "POST", f"/users/{name}")
        if added:
            _api(settings, "POST", group, {"users": added})
        if removed:
            _api(settings, "DELETE", group, {"users": removed})
        for name in removed:
            _api(settings, "DELETE", f"/users/{name}")  # stops their server first
    return added, removed


def roster_command(args):
    settings = stored_settings(Path(args.dir).resolve())
    if not (Path(settings.hub_dir) / "settings.json").exists():
        raise HubError(f"{settings.hub_dir} holds no hub yet: set it up with `autograder hub` first")
    added, removed = change_roster(settings, read_roster(args.path))
    print(
        f"roster of {settings.course_id}: added {', '.join(added) or 'no one'}; removed "
        f"{', '.join(removed) or 'no one'} (their accounts, homes and grades stay)"
        + ("" if running(settings.hub_dir) else "; the hub is not running: it starts with this roster")
    )
    return 0
