"""bench-hub's arithmetic and report, without a hub (the run itself needs root and minutes)."""

from autograder.hub.bench import Load, format_report, percentile, summary


def test_percentile_is_the_nearest_rank():
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == 5.0
    assert percentile(values, 0) == 1.0
    assert percentile([7.0], 95) == 7.0
    assert percentile(list(range(1, 21)), 95) == 19  # of 20: the 19th, not the maximum


def test_a_failed_step_is_an_error_not_a_latency():
    load = Load()
    assert load.step("login", "s1", lambda: "session") == "session"
    assert load.step("login", "s2", lambda: 1 / 0) is None
    assert load.step("fetch", "s1", lambda: []) is None  # an empty answer is no success
    assert len(load.latencies["login"]) == 1 and "fetch" not in load.latencies
    assert [(e["step"], e["student"]) for e in load.errors] == [("login", "s2"), ("fetch", "s1")]
    assert "ZeroDivisionError" in load.errors[0]["reason"]


def test_the_report_lists_steps_memory_and_each_error():
    load = Load()
    load.latencies = {"login": [0.5, 0.25, 1.0], "spawn": [12.0]}
    load.errors = [{"step": "submit", "student": "bdlload02", "reason": "HTTP 500: boom"}]
    report = summary(load, {"hub": 150 * 2**20, "proxy": 60 * 2**20, "servers": 3 * 2**30}, 42.0, 3)
    assert report["steps"][0] == {"step": "login", "count": 3, "p50": 0.5, "p95": 1.0, "max": 1.0}
    assert report["memory_mib"] == {"hub": 150, "proxy": 60, "servers": 3072}
    lines = format_report(report).splitlines()
    assert lines[0].split() == ["step", "count", "p50", "s", "p95", "s", "max", "s"]
    assert lines[1].split() == ["login", "3", "0.50", "1.00", "1.00"]
    assert lines[2].split() == ["spawn", "1", "12.00", "12.00", "12.00"]
    assert "hub 150 MiB, proxy 60 MiB, users' servers 3072 MiB" in lines[3]
    assert "3 students, wall time 42.0 s, errors: 1" in lines[4]
    assert lines[5] == "  error in submit for bdlload02: HTTP 500: boom"
