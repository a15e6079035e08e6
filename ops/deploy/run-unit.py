#!/usr/bin/env python3
"""Starts a systemd service unit the way systemd would, inside a test "host": a root file system
entered with chroot, in a network namespace of its own. Used by ops/test-deploy.sh so that the
deployment test runs the installed units as they are written (their User and Group, their
Environment= and EnvironmentFile= settings, ExecStartPre= with the "+" prefix as root, and
ExecStart=), rather than copies of their command lines.

    run-unit.py ROOT NETNS UNIT LOG       starts it in the background; prints the main pid

Only what the farm's units use is understood; anything else in [Service] that would change how
the program runs is refused, so the test cannot silently drift from the unit.
"""
import os
import re
import shlex
import subprocess
import sys

# Settings whose effect the test does not reproduce but that do not change what runs: sandboxing
# (the chroot is the test's sandbox), restart policy (the test kills and restarts by hand),
# directories the package's postinst already makes.
IGNORED = {
    "Type", "KillSignal", "TimeoutStopSec", "Restart", "RestartSec", "RestartPreventExitStatus", "NoNewPrivileges",
    "ProtectSystem", "ProtectHome", "ReadWritePaths", "StateDirectory", "CacheDirectory", "Nice",
}


def read_unit(path):
    service = []
    section = None
    with open(path) as unit:
        lines = unit.read().replace("\\\n", " ").splitlines()
    for line in lines:
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        if section == "Service":
            key, _, value = line.partition("=")
            service.append((key.strip(), value.strip()))
    return service


def read_environment_file(path):
    """KEY=VALUE lines, as systemd reads them: comments and blank lines skipped, quotes removed."""
    environment = {}
    with open(path) as file:
        for line in file:
            line = line.strip()
            if not line or line.startswith(("#", ";")):
                continue
            key, _, value = line.partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            environment[key.strip()] = value
    return environment


def expand(command, environment):
    """systemd's expansion of an Exec line: ${NAME} is one word, $NAME alone as a word splits
    into words (none when empty)."""
    words = []
    for word in shlex.split(command):
        match = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word)
        if match:
            words.extend(environment.get(match.group(1), "").split())
            continue
        words.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: environment.get(m.group(1), ""), word))
    return words


def main():
    root, netns, unit, log = sys.argv[1:5]
    settings = read_unit(os.path.join(root, "lib/systemd/system", unit))
    user = group = "root"
    environment = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    pre, start = [], None
    for key, value in settings:
        if key == "User":
            user = value
        elif key == "Group":
            group = value
        elif key == "Environment":
            for assignment in shlex.split(value):
                name, _, text = assignment.partition("=")
                environment[name] = text
        elif key == "EnvironmentFile":
            optional = value.startswith("-")
            path = os.path.join(root, value.lstrip("-").lstrip("/"))
            if os.path.exists(path) or not optional:
                environment.update(read_environment_file(path))
        elif key == "ExecStartPre":
            pre.append(value)
        elif key == "ExecStart":
            start = value
        elif key not in IGNORED:
            sys.exit(f"run-unit: {unit}: [Service] {key}= is not reproduced by this test")
    if start is None:
        sys.exit(f"run-unit: {unit}: no ExecStart=")
    home = {"root": "/root"}.get(user, "/var/lib/farm")
    environment.update({"USER": user, "LOGNAME": user, "HOME": home})

    def host(words, as_root):
        spec = [] if as_root else [f"--userspec={user}:{group}"]
        return ["ip", "netns", "exec", netns, "chroot", *spec, root, *words]

    output = open(log, "ab")
    for command in pre:
        as_root = command.startswith("+")
        words = expand(command.lstrip("+-@!"), environment)
        subprocess.run(host(words, as_root or user == "root"), env=environment, stdout=output, stderr=output,
                       check=not command.startswith("-"))
    words = expand(start.lstrip("-@"), environment)
    process = subprocess.Popen(host(words, user == "root"), env=environment, stdout=output, stderr=output,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    print(process.pid)


if __name__ == "__main__":
    main()
