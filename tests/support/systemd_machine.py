"""systemd as PID 1, for a test, on a machine whose PID 1 is something else (a container, CI).

``SystemdMachine`` starts /lib/systemd/systemd in PID, mount and UTS namespaces of its own: PID 1 there,
it runs units as on a machine it booted, and `systemctl` and `systemd-run` reach it through ``run``.
It shares the machine's files, users and network, so a hub it runs answers on 127.0.0.1 and makes real
accounts. It must not touch what the machine's other work uses:

- It boots a target of its own that wants nothing; the units that a boot's targets want (sysinit.target's
  systemd-tmpfiles empties /tmp, systemd-sysctl and systemd-sysusers change the machine, udev) are
  masked, all but the journal's.
- Its /run, /tmp, /var/tmp and journal are its own (tmpfs); the folders of the machine's /tmp that a test
  needs there (a checkout in the temp folder) are bound into its /tmp. With cgroup v1, the folder of the
  hierarchies is its own too, holding the machine's hierarchies.
- Its cgroups are below a folder of its own in each hierarchy (``CGROUP``), removed at the end.

Stopping it kills its PID 1, and with it every process in its namespace.
"""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

SYSTEMD = Path("/lib/systemd/systemd")
CGROUP = "bdl-systemd-test"  # its folder in each cgroup hierarchy
TARGET = "bdl-test.target"
UNIT_DIRS = ("/etc/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system")
BOOT_TARGETS = ("sysinit", "basic", "sockets", "timers", "paths", "local-fs", "multi-user")
KEEP_RUNNING = ("systemd-journald.service", "systemd-journald.socket", "systemd-journald-dev-log.socket")


def cgroup_folders():
    """Its folder in each cgroup hierarchy: v2's one, or each v1 hierarchy systemd uses."""
    root = Path("/sys/fs/cgroup")
    if (root / "cgroup.controllers").exists():
        return [root / CGROUP]
    return [
        root / name / CGROUP
        for name in ("systemd", "unified", "memory", "cpu", "cpuacct", "pids")
        if (root / name).is_dir()
    ]


def masked_units():
    """Every unit a boot's targets want, but the journal's."""
    units = set()
    for folder in UNIT_DIRS:
        for target in BOOT_TARGETS:
            wants = Path(folder, f"{target}.target.wants")
            if wants.is_dir():
                units.update(path.name for path in wants.iterdir())
    return sorted(units - set(KEEP_RUNNING))


def boot_script(kept, binds):
    """The shell that makes its mounts and becomes systemd (in the new namespaces, as root)."""
    lines = [
        "set -e",
        *(f"mount --rbind '{source}' '{target}'" for source, target in binds.items()),
        "mount -t tmpfs -o mode=755 tmpfs /run",
        "mkdir -p /run/systemd/system /run/host-tmp",
        "mount --bind /tmp /run/host-tmp",
        "mount -t tmpfs -o mode=1777 tmpfs /tmp",
    ]
    for folder in kept:
        inside = Path("/run/host-tmp", Path(folder).relative_to("/tmp"))
        lines += [f"mkdir -p '{folder}'", f"mount --rbind '{inside}' '{folder}'"]
    lines += ["umount -l /run/host-tmp", "mount -t tmpfs -o mode=1777 tmpfs /var/tmp"]
    if not Path("/sys/fs/cgroup/cgroup.controllers").exists():
        # cgroup v1: the hierarchies' folder is a tmpfs, which systemd remounts read-only, and a remount
        # reaches every namespace: it gets a tmpfs of its own, holding the machine's hierarchies
        hierarchies = [
            path.name
            for path in Path("/sys/fs/cgroup").iterdir()
            if path.is_dir() and not path.is_symlink() and os.path.ismount(path)
        ]
        lines += [
            "mkdir /run/host-cgroup",
            "mount --rbind /sys/fs/cgroup /run/host-cgroup",
            "mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup",
        ]
        for name in hierarchies:
            lines += [
                f"mkdir '/sys/fs/cgroup/{name}'",
                f"mount --bind '/run/host-cgroup/{name}' '/sys/fs/cgroup/{name}'",
            ]
        lines.append("umount -l /run/host-cgroup")
    if Path("/var/log/journal").is_dir():
        lines.append("mount -t tmpfs tmpfs /var/log/journal")
    lines += [f"ln -s /dev/null /run/systemd/system/{unit}" for unit in masked_units()]
    lines += [
        f"printf '[Unit]\\nDescription=the tests: nothing but what they start\\nDefaultDependencies=no\\n' "
        f"> /run/systemd/system/{TARGET}",
        f"exec env container=bdl-test {SYSTEMD} --system --unit={TARGET}",
    ]
    return "\n".join(lines)


class SystemdMachine:
    """systemd as PID 1 of namespaces of its own; ``kept``: folders of the machine's /tmp it must see;
    ``binds``: {folder: an empty folder where it also shows, inside only}."""

    def __init__(self, kept=(), binds=None):
        self.kept = [str(Path(folder).resolve()) for folder in kept if Path(folder).resolve().is_relative_to("/tmp")]
        self.binds = dict(binds or {})
        self.process = None

    def __enter__(self):
        folders = cgroup_folders()
        for folder in folders:
            folder.mkdir(exist_ok=True)

        def own_cgroups():  # before it becomes systemd, which takes the cgroup it is in as its root
            for folder in folders:
                (folder / "cgroup.procs").write_text(str(os.getpid()))

        self.process = subprocess.Popen(
            [
                "unshare",
                "--pid",
                "--fork",
                "--mount-proc",
                "--mount",
                "--uts",
                "--propagation",
                "private",
                "sh",
                "-c",
                boot_script(self.kept, self.binds),
            ],
            preexec_fn=own_cgroups,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            self.wait_until_running()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    @property
    def pid(self):
        """systemd's pid, as this machine numbers it (unshare's child)."""
        children = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return int(children.split()[0])

    def command(self, *command, cwd="/"):
        """``command`` as it runs inside: in systemd's namespaces, in the folder ``cwd`` as seen there."""
        return ["nsenter", f"--target={self.pid}", "--mount", "--pid", "--uts", f"--wd={cwd}", "--", *map(str, command)]

    def run(self, *command, check=True, cwd="/", **options):
        return subprocess.run(self.command(*command, cwd=cwd), check=check, capture_output=True, text=True, **options)

    def wait_until_running(self, timeout=60):
        deadline = time.monotonic() + timeout
        state = ""
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"systemd did not start: {self.process.stderr.read().decode()[-2000:]}")
            try:
                state = self.run("systemctl", "is-system-running", check=False, timeout=30).stdout.strip()
            except (IndexError, subprocess.TimeoutExpired):  # not yet forked
                state = ""
            if state in ("running", "degraded"):
                return
            time.sleep(0.5)
        raise RuntimeError(f"systemd is not running after {timeout} s: {state!r}")

    def show(self, unit, *properties):
        """``systemctl show``'s ``properties`` of ``unit``, by name."""
        text = self.run("systemctl", "show", unit, *(f"--property={name}" for name in properties)).stdout
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def cgroup(self, unit, controller):
        """``unit``'s cgroup folder in ``controller``'s hierarchy (systemd names it from the hierarchy's root)."""
        group = self.show(unit, "ControlGroup")["ControlGroup"].lstrip("/")
        root = Path("/sys/fs/cgroup")
        return root / group if (root / "cgroup.controllers").exists() else root / controller / group

    def __exit__(self, *exc):
        if self.process and self.process.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)  # PID 1 of its namespace: every process there goes with it
            except (IndexError, ProcessLookupError):
                self.process.kill()
            self.process.wait(60)
        for folder in cgroup_folders():
            if folder.is_dir():  # deepest first: a cgroup goes once it has no children and no process
                for child in sorted(folder.rglob("*"), key=lambda path: len(path.parts), reverse=True):
                    if child.is_dir():
                        _rmdir(child)
                _rmdir(folder)


def _rmdir(folder, tries=50):
    for _ in range(tries):  # the kernel empties a cgroup a moment after its last process dies
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)


def available():
    """Why systemd cannot be started here, or None."""
    if not SYSTEMD.exists():
        return "systemd is not installed"
    if not shutil.which("unshare") or not shutil.which("nsenter"):
        return "util-linux's unshare and nsenter are missing"
    return None
