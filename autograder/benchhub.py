"""``python -m autograder bench-hub``: a class at once on the course's hub (issue 29, "load held").

It sets up its own hub (``autograder.hub``, --dummy, 127.0.0.1) with N students bdlload01..NN and the
instructor bdlloadi, then: the instructor releases 01_likelihoods; every student at once (a thread each)
logs in, gets a token, starts a server, lists, fetches and submits through the hub's REST API; the
instructor collects and releases feedback; every student at once fetches it and it must land in that
student's own home. It prints each step's latency (p50, p95, max), every error, the peak RSS of the hub,
the proxy and the users' servers, and the wall time; it exits 1 on any error.

The feedback pages are the benchmark's own ("load benchmark feedback", in nbgrader's layout
feedback/<student>/01_likelihoods/likelihoods.html with the submission's timestamp and secret, which
release_feedback hashes): grading 30 submissions takes minutes and ``bench`` measures it already.
"""
import json
import math
import os
import pwd
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import psutil
import requests

from autograder import hub

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


def _check(response, *codes):
    if response.status_code not in codes:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:300]}")
    return response


def _action(base, user, token, action, want):
    """POST an Assignment List action; ``want(listing)`` says whether it happened (fetch and fetch_feedback
    answer with the listing even when they failed)."""
    response = _check(requests.post(f"{base}/user/{user}/assignments/{action}", timeout=REQUEST_TIMEOUT,
                                    data={"course_id": "bdl", "assignment_id": ASSIGNMENT},
                                    headers={"Authorization": f"token {token}"}), 200).json()
    if not response.get("success"):
        raise RuntimeError(str(response.get("value"))[-300:])
    mine = [entry for entry in response["value"] if entry["assignment_id"] == ASSIGNMENT]
    if not want(mine):
        raise RuntimeError(f"{action} answered but the listing shows {[e['status'] for e in mine]}")
    return mine


def _login(base, user, password):
    session = requests.Session()
    _check(session.get(f"{base}/hub/login", timeout=REQUEST_TIMEOUT), 200)
    # no redirects: following them would start the server from /hub/spawn, inside the login's time
    _check(session.post(f"{base}/hub/login", allow_redirects=False, timeout=REQUEST_TIMEOUT,
                        data={"username": user, "password": password, "_xsrf": session.cookies.get("_xsrf")}), 302)
    return session


def _spawn(base, user, token):
    headers = {"Authorization": f"token {token}"}
    _check(requests.post(f"{base}/hub/api/users/{user}/server", headers=headers, timeout=REQUEST_TIMEOUT), 201, 202)
    deadline = time.monotonic() + SPAWN_DEADLINE
    while time.monotonic() < deadline:
        server = _check(requests.get(f"{base}/hub/api/users/{user}", headers=headers, timeout=REQUEST_TIMEOUT),
                        200).json()["servers"].get("")
        if server and server["ready"]:
            return True
        if not server or not server["pending"]:
            raise RuntimeError("the server stopped while starting (see the hub's log)")
        time.sleep(0.5)  # polling interval; the deadline decides
    raise RuntimeError(f"not ready after {SPAWN_DEADLINE} s")


def _student(base, password, user, load, barrier):
    barrier.wait()
    session = load.step("login", user, lambda: _login(base, user, password))
    token = session and load.step("token", user, lambda: _check(session.post(
        f"{base}/hub/api/users/{user}/tokens", json={"note": "bench-hub", "expires_in": 3600},
        headers={"X-XSRFToken": session.cookies.get("_xsrf")}, timeout=REQUEST_TIMEOUT), 200, 201).json()["token"])
    headers = {"Authorization": f"token {token}"}
    ok = token and load.step("spawn", user, lambda: _spawn(base, user, token))
    ok = ok and load.step("list", user, lambda: any(e["assignment_id"] == ASSIGNMENT for e in _check(requests.get(
        f"{base}/user/{user}/assignments?course_id=bdl", headers=headers, timeout=REQUEST_TIMEOUT), 200).json()["value"]))
    ok = ok and load.step("fetch", user, lambda: _action(base, user, token, "fetch",
                                                          lambda mine: any(e["status"] == "fetched" for e in mine)))
    ok = ok and load.step("submit", user, lambda: _action(base, user, token, "submit",
                                                           lambda mine: any(e["status"] == "submitted" for e in mine)))
    if ok:
        with load.lock:
            load.tokens[user] = token


def _all_at_once(target, users, *args):
    """Run ``target(user, *args, barrier)`` in a thread per user, released together by a barrier."""
    barrier = threading.Barrier(len(users))
    threads = [threading.Thread(target=target, args=(user, *args, barrier)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def students_submit(base, password, users, load=None):
    """Step 3 on a running hub: every user at once logs in, starts a server, lists, fetches and submits.
    Return the Load (its tokens: the users that submitted)."""
    load = load or Load()
    _all_at_once(lambda user, barrier: _student(base, password, user, load, barrier), users)
    return load


def _own_feedback(user):
    """The feedback pages in ``user``'s home: exactly one, the page written for ``user``."""
    pages = list(Path(pwd.getpwnam(user).pw_dir, ASSIGNMENT, "feedback").glob(f"*/{NOTEBOOK}.html"))
    if len(pages) != 1 or f'data-student="{user}"' not in pages[0].read_text():
        raise RuntimeError(f"expected one feedback page for {user} in the home, found {[str(p) for p in pages]}")
    return True


def students_fetch_feedback(base, load):
    """Step 5 on a running hub: every user that submitted fetches feedback at once; it must be in their home."""
    def fetch(user, barrier):
        barrier.wait()
        load.step("fetch_feedback", user, lambda: _action(base, user, load.tokens[user], "fetch_feedback", lambda mine: any(
            s.get("has_local_feedback") for e in mine for s in e.get("submissions", []))))
        load.step("feedback_in_home", user, lambda: _own_feedback(user))
    _all_at_once(fetch, sorted(load.tokens))
    return load


def write_feedback(course, instructor):
    """A page per collected submission in nbgrader's feedback layout, with the timestamp and secret
    release_feedback hashes; return the students."""
    students = []
    for submitted in sorted(Path(course, "submitted").glob(f"*/{ASSIGNMENT}")):
        student = submitted.parent.name
        folder = Path(course, "feedback", student, ASSIGNMENT)
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("timestamp.txt", "submission_secret.txt"):
            shutil.copy(submitted / name, folder / name)
        (folder / f"{NOTEBOOK}.html").write_text(
            f'<!DOCTYPE html><html><body data-student="{student}"><h1>Load benchmark feedback</h1>'
            f"<p>Written by python -m autograder bench-hub for {student}: not a grade.</p></body></html>\n")
        students.append(student)
    hub._chown_tree(Path(course, "feedback"), instructor)
    return students


class MemorySampler(threading.Thread):
    """The peak RSS (bytes) of the hub, its proxy, and the users' servers together, every 0.5 s."""

    def __init__(self, hub_pid, uids):
        super().__init__(daemon=True)
        self.hub_pid, self.uids, self.done = hub_pid, set(uids), threading.Event()
        self.peak = {"hub": 0, "proxy": 0, "servers": 0}

    def sample(self):
        hub_process = psutil.Process(self.hub_pid)
        proxy = sum(child.memory_info().rss for child in hub_process.children(recursive=True)
                    if "configurable-http-proxy" in " ".join(child.cmdline()))
        servers = sum(p.info["memory_info"].rss for p in psutil.process_iter(["uids", "memory_info"])
                      if p.info["uids"] and p.info["uids"].real in self.uids and p.info["memory_info"])
        for key, value in (("hub", hub_process.memory_info().rss), ("proxy", proxy), ("servers", servers)):
            self.peak[key] = max(self.peak[key], value)

    def run(self):
        while not self.done.is_set():
            try:
                self.sample()
            except psutil.Error:
                pass  # a process ended between listing and reading it: the next sample counts
            self.done.wait(0.5)


def summary(load, memory, seconds, students):
    """The report as a dict (what --json writes)."""
    steps = [{"step": step, "count": len(values), "p50": percentile(values, 50), "p95": percentile(values, 95),
              "max": max(values)} for step, values in load.latencies.items()]
    return {"students": students, "steps": steps, "errors": load.errors,
            "memory_mib": {key: value / 2**20 for key, value in memory.items()}, "wall_seconds": seconds}


def format_report(report):
    lines = [f"{'step':<18} {'count':>5} {'p50 s':>8} {'p95 s':>8} {'max s':>8}"]
    lines += [f"{row['step']:<18} {row['count']:>5} {row['p50']:8.2f} {row['p95']:8.2f} {row['max']:8.2f}"
              for row in report["steps"]]
    memory = report["memory_mib"]
    lines += [f"peak RSS: hub {memory['hub']:.0f} MiB, proxy {memory['proxy']:.0f} MiB, "
              f"users' servers {memory['servers']:.0f} MiB in all",
              f"{report['students']} students, wall time {report['wall_seconds']:.1f} s, "
              f"errors: {len(report['errors'])}"]
    lines += [f"  error in {e['step']} for {e['student']}: {e['reason']}" for e in report["errors"]]
    return "\n".join(lines)


def _start_hub(settings, config):
    """JupyterHub in its own process group; return it once its API answers."""
    log = open(Path(settings.hub_dir) / "bench-hub.log", "w")
    process = subprocess.Popen([f"{settings.venv}/bin/jupyterhub", "-f", str(config)], cwd=settings.hub_dir,
                               env=hub.hub_process_environment(settings), stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if requests.get(f"http://127.0.0.1:{settings.port}/hub/api/", timeout=5).status_code == 200:
                return process
        except requests.ConnectionError:
            pass
        time.sleep(0.5)  # polling interval; the deadline decides
    _stop_hub(process)
    raise RuntimeError(f"the hub did not answer (see {log.name})")


def _stop_hub(process):
    """SIGTERM to the hub's group (it stops the servers and the proxy it started), SIGKILL after 60 s."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass


def _remove_users(names, settings):
    """Delete the accounts this run made (their leftover processes first) and their cgroups."""
    for name in names:
        try:
            uid = pwd.getpwnam(name).pw_uid
        except KeyError:
            continue  # the run stopped before making it
        for process in psutil.process_iter(["uids"]):
            if process.info["uids"] and process.info["uids"].real == uid:
                process.kill()
        subprocess.run(["userdel", "-r", name], capture_output=True)
        for folder in ("memory", "cpu", ""):
            path = Path("/sys/fs/cgroup", folder, "bdl-hub", name)
            if path.is_dir():
                path.rmdir()  # empty: its processes were killed above
    # the exchange's course folder holds only the deleted users' files now
    shutil.rmtree(Path(settings.exchange, settings.course_id), ignore_errors=True)


def main(args):
    students = [{"id": f"{PREFIX}{n:02d}", "first_name": "", "last_name": "", "email": ""}
                for n in range(1, args.students + 1)]
    settings = hub.HubSettings(hub_dir=str(Path(args.dir).resolve()), ip="127.0.0.1", port=args.port,
                               hub_port=args.port + 81, proxy_api_port=args.port + 1, instructor=f"{PREFIX}i",
                               students=students, dummy=True)
    names = [settings.instructor] + [s["id"] for s in students]
    existing = set()
    for name in names:
        try:
            pwd.getpwnam(name)
            existing.add(name)
        except KeyError:
            pass
    process, start = None, time.monotonic()
    try:
        Path(args.home_root).mkdir(parents=True, exist_ok=True)
        config = hub.set_up(settings, args.home_root)
        instructor = pwd.getpwnam(settings.instructor)
        course = str(Path(instructor.pw_dir, settings.course_id))
        print(f"set up in {time.monotonic() - start:.0f} s; starting the hub", flush=True)
        process = _start_hub(settings, config)
        sampler = MemorySampler(process.pid, [pwd.getpwnam(s["id"]).pw_uid for s in students])
        sampler.start()
        load, start = Load(), time.monotonic()

        def instructor_step(name, command):
            load.step(name, settings.instructor, lambda: hub.as_user(instructor, command, settings, name, cwd=course)
                      or True)
        instructor_step("release", ["nbgrader", "release_assignment", ASSIGNMENT, "--force"])
        base = f"http://127.0.0.1:{settings.port}"
        students_submit(base, hub.dummy_password(settings), [s["id"] for s in students], load)
        instructor_step("collect", ["nbgrader", "collect", ASSIGNMENT, "--update"])
        load.step("write_feedback", settings.instructor, lambda: write_feedback(course, instructor))
        print("feedback: the load benchmark's own page per student (not graded)", flush=True)
        instructor_step("release_feedback", ["nbgrader", "release_feedback", ASSIGNMENT])
        students_fetch_feedback(base, load)
        sampler.done.set()
        sampler.join()
        report = summary(load, sampler.peak, time.monotonic() - start, len(students))
    finally:
        if process:
            _stop_hub(process)
        if not args.keep_users:
            _remove_users([name for name in names if name not in existing], settings)
    print(format_report(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if report["errors"] else 0


def add_parser(commands):
    bench = commands.add_parser("bench-hub", help="N students at once on a hub of their own (as root): log in, "
                                "start a server, fetch, submit, fetch feedback; latencies, errors, memory")
    bench.add_argument("--students", type=int, default=30, help="how many (default %(default)d)")
    bench.add_argument("--dir", default="/tmp/bench-hub/hub", help="the hub's folder; its environment is reused "
                       "(default %(default)s)")
    bench.add_argument("--port", type=int, default=28000, help="the hub's port; PORT+1 and PORT+81 for the proxy's "
                       "and the hub's APIs (default %(default)d)")
    bench.add_argument("--home-root", default="/tmp/bench-hub/home", help="where the accounts' homes go")
    bench.add_argument("--keep-users", action="store_true", help="keep the accounts, homes and exchange afterwards")
    bench.add_argument("--json", metavar="PATH", help="also write the report as JSON")
