"""A stubborn scripted agent for the reaping tests (run as a script, never imported by tests).

    stubborn_agent.py PIDFILE silent|session [TERMINAL_PIDFILE]

It ignores SIGTERM (its children inherit that) and the end of its stdin, and starts three
processes that sleep: a child in its process group, a child in a session of its own (setsid),
and a daemon (the classic double fork: a child calls setsid(), forks the daemon and exits, so
the daemon's parent is gone). Once they run, it writes all their pids as JSON to PIDFILE.

``silent`` never answers: the client waits for ``initialize``. ``session`` answers
``initialize`` and ``session/new``, then asks the client to run this same script as a terminal
command (``terminal/create``, mode ``terminal``: the same three processes, pids written to
TERMINAL_PIDFILE), and answers nothing else.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

SLEEP = ["sleep", "600"]


def write_json(path: str, data: object) -> None:
    temp = f"{path}.tmp"
    with open(temp, "w") as file:
        json.dump(data, file)
    os.replace(temp, path)


def double_fork() -> int:
    """Start a daemon whose parent exits at once; returns the daemon's pid."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.setsid()
        daemon = os.fork()
        if daemon == 0:
            os.execvp(SLEEP[0], SLEEP)
        os.write(write_end, str(daemon).encode())
        os._exit(0)
    os.close(write_end)
    os.waitpid(child, 0)
    with os.fdopen(read_end) as pipe:
        return int(pipe.read())


def start_family(pidfile: str) -> None:
    group_child = subprocess.Popen(SLEEP)
    session_child = subprocess.Popen(SLEEP, start_new_session=True)
    daemon = double_fork()
    pids = {
        "leader": os.getpid(),
        "group_child": group_child.pid,
        "session_child": session_child.pid,
        "daemon": daemon,
    }
    write_json(pidfile, pids)


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(terminal_pidfile: str) -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
            send({"jsonrpc": "2.0", "id": request_id, "result": result})
        elif method == "session/new":
            cwd = message["params"]["cwd"]
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": "s1"}})
            params = {
                "sessionId": "s1",
                "command": sys.executable,
                "args": [os.path.abspath(__file__), terminal_pidfile, "terminal"],
                "cwd": cwd,
            }
            send({"jsonrpc": "2.0", "id": "t1", "method": "terminal/create", "params": params})


def main() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    pidfile, mode = sys.argv[1], sys.argv[2]
    start_family(pidfile)
    if mode == "session":
        serve(sys.argv[3])
    while True:  # past the end of stdin too
        time.sleep(600)


if __name__ == "__main__":
    main()
