"""``python -m autograder bench-hub``: a class at once on the course's hub.

It sets up its own hub (``autograder.hub.setup``, --dummy, 127.0.0.1) with N students bdlload01..NN and the
instructor bdlloadi, then: the instructor releases 01_likelihoods; every student at once (a thread each)
logs in, gets a token, starts a server, lists, fetches and submits through the hub's REST API; the
instructor collects and releases feedback; every student at once fetches it and it must land in that
student's own home. It prints each step's latency (p50, p95, max), every error, the peak RSS of the hub,
the proxy and the users' servers, and the wall time; it exits 1 on any error. The feedback pages are the
benchmark's own (``write_feedback``): grading 30 submissions takes minutes and ``bench`` measures it already.
"""

import json
import math
import pwd
import shutil
import threading
import time
from pathlib import Path

import psutil
import requests

from autograder.course.cli import output_file, positive_int
from autograder.course.table import format_table
from autograder.hub.accounts import as_user, chown_tree, remove_accounts
from autograder.hub.private import dummy_password
from autograder.hub.process import jupyterhub
from autograder.hub.settings import HubSettings
from autograder.hub.setup import set_up

ASSIGNMENT, NOTEBOOK = "01_likelihoods", "likelihoods"
PREFIX = "bdlload"
SPAWN_DEADLINE = 300  # seconds: above the hub's start_timeout, so the hub reports a failed spawn first
REQUEST_TIMEOUT = 120


def percentile(values, q):
    """The nearest-rank q-th percentile of ``values`` (one of them, never an interpolation)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


class Load:
    """Latencies per step and errors, written by many threads."""

    def __init__(self):
        self.latencies, self.errors, self.tokens, self.lock = {}, [], {}, threading.Lock()

    def step(self, name, student, action):
        """Time ``action()``; on an exception or a false result record an error and return None."""
        start = time.monotonic()
        try:
            result = action()
        except Exception as error:  # any failure is the benchmark's finding, not a crash
            result, reason = None, f"{type(error).__name__}: {error}"
        else:
            reason = None if result else "no result"
        with self.lock:
            if reason:
                self.errors.append({"step": name, "student": student, "reason": reason[:500]})
            else:
                self.latencies.setdefault(name, []).append(time.monotonic() - start)
        return None if reason else result


def _api(method, url, token, *codes, **kwargs):
    """One request with the student's token; raise on an answer outside ``codes``."""
    response = requests.request(
        method, url, headers={"Authorization": f"token {token}"}, timeout=REQUEST_TIMEOUT, **kwargs
    )
    if response.status_code not in codes:
        raise RuntimeError(f"{method} {url}: HTTP {response.status_code}: {response.text[:300]}")
    return response


def _listing(base, user, token, course, action, want):
    """The Assignment List's answer to ``action`` ("" lists) in ``course`` (its id); ``want(statuses)`` says
    whether it happened (fetch and fetch_feedback answer with the listing even when they failed)."""
    method, path = ("GET", "assignments") if not action else ("POST", f"assignments/{action}")
    answer = _api(
        method,
        f"{base}/user/{user}/{path}",
        token,
        200,
        **(
            {"params": {"course_id": course}}
            if not action
            else {"data": {"course_id": course, "assignment_id": ASSIGNMENT}}
        ),
    ).json()
    if not answer.get("success"):
        raise RuntimeError(str(answer.get("value"))[-300:])
    mine = [entry for entry in answer["value"] if entry["assignment_id"] == ASSIGNMENT]
    if not want(mine):
        raise RuntimeError(f"{action or 'list'} answered, but the listing shows {[e['status'] for e in mine]}")
    return True


def _login(base, user, password):
    """The login form, then a token for the hub's API; return the token."""
    session = requests.Session()
    session.get(f"{base}/hub/login", timeout=REQUEST_TIMEOUT).raise_for_status()
    # no redirects: following them would start the server from /hub/spawn, inside the login's time
    answer = session.post(
        f"{base}/hub/login",
        allow_redirects=False,
        timeout=REQUEST_TIMEOUT,
        data={"username": user, "password": password, "_xsrf": session.cookies.get("_xsrf")},
    )
    if answer.status_code != 302:
        raise RuntimeError(f"login: HTTP {answer.status_code}")
    answer = session.post(
        f"{base}/hub/api/users/{user}/tokens",
        json={"note": "bench-hub", "expires_in": 3600},
        headers={"X-XSRFToken": session.cookies.get("_xsrf")},
        timeout=REQUEST_TIMEOUT,
    )
    answer.raise_for_status()
    return answer.json()["token"]


def _spawn(base, user, token):
    _api("POST", f"{base}/hub/api/users/{user}/server", token, 201, 202)
    deadline = time.monotonic() + SPAWN_DEADLINE
    while time.monotonic() < deadline:
        server = _api("GET", f"{base}/hub/api/users/{user}", token, 200).json()["servers"].get("")
        if server and server["ready"]:
            return True
        if not server or not server["pending"]:
            raise RuntimeError("the server stopped while starting (see the hub's log)")
        time.sleep(1)  # polling interval (the deadline decides): 30 students polling faster load the hub
    raise RuntimeError(f"not ready after {SPAWN_DEADLINE} s")


def _all_at_once(target, users):
    """Run ``target(user)`` in a thread per user, all released together."""
    barrier = threading.Barrier(len(users))
    threads = [threading.Thread(target=lambda user=user: (barrier.wait(), target(user))) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def students_submit(base, password, users, course, load=None):
    """Step 3 on a running hub (its URL, the --dummy password): every user at once logs in, starts a server,
    lists, fetches and submits 01_likelihoods of ``course`` (its id). Return the Load; its tokens are the
    users that submitted."""
    load = load or Load()

    def student(user):
        token = load.step("login", user, lambda: _login(base, user, password))
        ok = token and load.step("spawn", user, lambda: _spawn(base, user, token))
        for action, status in (("", "released"), ("fetch", "fetched"), ("submit", "submitted")):
            ok = ok and load.step(
                action or "list",
                user,
                lambda: _listing(
                    base, user, token, course, action, lambda mine: status in [entry["status"] for entry in mine]
                ),
            )
        if ok:
            with load.lock:
                load.tokens[user] = token

    _all_at_once(student, users)
    return load


def _own_feedback(user):
    """The feedback pages in ``user``'s home: exactly one, the page written for ``user``."""
    pages = list(Path(pwd.getpwnam(user).pw_dir, ASSIGNMENT, "feedback").glob(f"*/{NOTEBOOK}.html"))
    if len(pages) != 1 or f'data-student="{user}"' not in pages[0].read_text():
        raise RuntimeError(f"not one feedback page of {user}'s own in the home: {[str(p) for p in pages]}")
    return True


def students_fetch_feedback(base, course, load):
    """Step 5 on a running hub: every user that submitted fetches feedback of ``course`` (its id) at once; it
    must be in their home."""

    def student(user):
        load.step(
            "fetch_feedback",
            user,
            lambda: _listing(
                base,
                user,
                load.tokens[user],
                course,
                "fetch_feedback",
                lambda mine: any(
                    sub.get("has_local_feedback") for entry in mine for sub in entry.get("submissions", [])
                ),
            ),
        )
        load.step("feedback_in_home", user, lambda: _own_feedback(user))

    _all_at_once(student, sorted(load.tokens))
    return load


def write_feedback(course, instructor):
    """A page per collected submission in nbgrader's feedback layout, with the timestamp and secret
    release_feedback hashes; return the students. Each is the benchmark's own ("load benchmark feedback",
    at feedback/<student>/01_likelihoods/likelihoods.html), not graded."""
    students = []
    for submitted in sorted(Path(course, "submitted").glob(f"*/{ASSIGNMENT}")):
        student = submitted.parent.name
        folder = Path(course, "feedback", student, ASSIGNMENT)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("timestamp.txt", "submission_secret.txt"):
            shutil.copy(submitted / name, folder / name)
        (folder / f"{NOTEBOOK}.html").write_text(
            f'<!DOCTYPE html><html><body data-student="{student}"><h1>Load benchmark feedback</h1>'
            f"<p>Written by python -m autograder bench-hub for {student}: not a grade.</p></body></html>\n"
        )
        students.append(student)
    chown_tree(Path(course, "feedback"), instructor)
    return students


def sample_memory(hub_pid, uids, peak, done):
    """Until ``done`` is set, every 0.5 s: the peak RSS (bytes) of the hub, its proxy, and the users'
    processes together, in ``peak``."""
    while not done.is_set():
        try:
            hub_process = psutil.Process(hub_pid)
            proxy = sum(
                child.memory_info().rss
                for child in hub_process.children(recursive=True)
                if "configurable-http-proxy" in " ".join(child.cmdline())
            )
            servers = sum(
                p.info["memory_info"].rss
                for p in psutil.process_iter(["uids", "memory_info"])
                if p.info["uids"] and p.info["uids"].real in uids and p.info["memory_info"]
            )
            for key, value in (("hub", hub_process.memory_info().rss), ("proxy", proxy), ("servers", servers)):
                peak[key] = max(peak.get(key, 0), value)
        except psutil.Error:
            pass  # a process ended between listing and reading it: the next sample counts
        done.wait(0.5)


def summary(load, memory, seconds, students):
    """The report as a dict (what --json writes)."""
    steps = [
        {
            "step": step,
            "count": len(values),
            "p50": percentile(values, 50),
            "p95": percentile(values, 95),
            "max": max(values),
        }
        for step, values in load.latencies.items()
    ]
    return {
        "students": students,
        "steps": steps,
        "errors": load.errors,
        "memory_mib": {key: value / 2**20 for key, value in memory.items()},
        "wall_seconds": seconds,
    }


def format_report(report):
    lines = format_table(
        ("step", "count", "p50 s", "p95 s", "max s"),
        [
            (row["step"], str(row["count"]), f"{row['p50']:.2f}", f"{row['p95']:.2f}", f"{row['max']:.2f}")
            for row in report["steps"]
        ],
        right=(1, 2, 3, 4),
    ).splitlines()
    memory = report["memory_mib"]
    lines += [
        f"peak RSS: hub {memory['hub']:.0f} MiB, proxy {memory['proxy']:.0f} MiB, "
        f"users' servers {memory['servers']:.0f} MiB in all",
        f"{report['students']} students, wall time {report['wall_seconds']:.1f} s, errors: {len(report['errors'])}",
    ]
    lines += [f"  error in {e['step']} for {e['student']}: {e['reason']}" for e in report["errors"]]
    return "\n".join(lines)


def _remove_users(names, settings):
    """Delete the accounts this run made, and the exchange's course folder: it holds only their files."""
    remove_accounts(names)
    shutil.rmtree(Path(settings.exchange, settings.course_id), ignore_errors=True)


def main(args):
    students = [
        {"id": f"{PREFIX}{n:02d}", "first_name": "", "last_name": "", "email": ""} for n in range(1, args.students + 1)
    ]
    settings = HubSettings(
        hub_dir=str(Path(args.dir).resolve()),
        ip="127.0.0.1",
        port=args.port,
        hub_port=args.port + 81,
        proxy_api_port=args.port + 1,
        instructor=f"{PREFIX}i",
        students=students,
        dummy=True,
        home_root=args.home_root,
    )
    names = [settings.instructor] + [s["id"] for s in students]
    existing = {user.pw_name for user in pwd.getpwall()}  # accounts this run did not make stay
    process, start = None, time.monotonic()
    try:
        Path(args.home_root).mkdir(parents=True, exist_ok=True)
        config = set_up(settings)
        instructor = pwd.getpwnam(settings.instructor)
        course = str(Path(instructor.pw_dir, settings.course_id))
        print(f"set up in {time.monotonic() - start:.0f} s; starting the hub", flush=True)
        process = jupyterhub(settings, config, Path(settings.hub_dir) / "bench-hub.log").start()
        process.wait_until_up(120)
        peak, done = {}, threading.Event()
        sampler = threading.Thread(
            target=sample_memory,
            daemon=True,
            args=(process.process.pid, {pwd.getpwnam(s["id"]).pw_uid for s in students}, peak, done),
        )
        sampler.start()
        load, start = Load(), time.monotonic()

        def instructor_step(name, *command):  # as the instructor, with the hub's environment
            load.step(
                name,
                settings.instructor,
                lambda: as_user(instructor, ["nbgrader", *command], settings, name, cwd=course) or True,
            )

        instructor_step("release", "release_assignment", ASSIGNMENT, "--force")
        base = f"http://127.0.0.1:{settings.port}"
        students_submit(base, dummy_password(settings), [s["id"] for s in students], settings.course_id, load)
        instructor_step("collect", "collect", ASSIGNMENT, "--update")
        load.step("write_feedback", settings.instructor, lambda: write_feedback(course, instructor))
        print("feedback: the load benchmark's own page per student (not graded)", flush=True)
        instructor_step("release_feedback", "release_feedback", ASSIGNMENT)
        students_fetch_feedback(base, settings.course_id, load)
        done.set()
        sampler.join()
        report = summary(load, peak, time.monotonic() - start, len(students))
    finally:
        if process:
            process.stop()
        if not args.keep_users:
            _remove_users([name for name in names if name not in existing], settings)
    print(format_report(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if report["errors"] else 0


def add_parser(commands):
    bench = commands.add_parser(
        "bench-hub",
        help="N students at once on a hub of their own (as root): log in, "
        "start a server, fetch, submit, fetch feedback; latencies, errors, memory",
    )
    bench.add_argument("--students", type=positive_int, default=30, help="how many (default %(default)d)")
    bench.add_argument(
        "--dir",
        default="/srv/bdl-hub-bench/hub",
        help="the hub's folder; its environment is reused (default %(default)s)",
    )
    bench.add_argument(
        "--port",
        type=int,
        default=28000,
        help="the hub's port; PORT+1 and PORT+81 for the proxy's and the hub's APIs (default %(default)d)",
    )
    bench.add_argument(
        "--home-root", default="/srv/bdl-hub-bench/home", help="where the accounts' homes go (default %(default)s)"
    )
    bench.add_argument("--keep-users", action="store_true", help="keep the accounts, homes and exchange afterwards")
    bench.add_argument("--json", type=output_file, metavar="PATH", help="also write the report as JSON")
    bench.set_defaults(run=main)
