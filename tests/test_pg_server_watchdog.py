"""The throwaway PostgreSQL server of the tests never outlives the process that started
it: a process killed with SIGKILL (no teardown runs) leaves no server running and no
data dir behind; a normal stop leaves no watchdog running."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pg_server import PgUnavailable, _alive, in_ci, start

TESTS = Path(__file__).resolve().parent

_STARTER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from pg_server import PgUnavailable, start
try:
    server = start()
except PgUnavailable as e:
    print(json.dumps({"unavailable": str(e)}), flush=True)
    sys.exit(0)
print(json.dumps({"pid": server.process.pid, "root": str(server.root), "watchdog": server.watchdog.pid}), flush=True)
time.sleep(600)
"""


def _until(done, what: str, limit: float = 60.0) -> None:
    """Wait (a liveness bound, not a measurement) until `done()` holds."""
    deadline = time.monotonic() + limit
    while not done():
        assert time.monotonic() < deadline, f"still waiting: {what}"
        time.sleep(0.1)


def test_a_killed_starter_leaves_no_server_and_no_data_dir() -> None:
    child = subprocess.Popen([sys.executable, "-c", _STARTER, str(TESTS)], stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        info = json.loads(line or "{}")
        if "unavailable" in info:
            if in_ci():
                pytest.fail(f"PostgreSQL tests must run in CI, but no server started: {info['unavailable']}")
            pytest.skip(f"no PostgreSQL server here: {info['unavailable']}")
        pid, root, watchdog = info["pid"], Path(info["root"]), info["watchdog"]
        assert _alive(pid) and (root / "data").is_dir() and _alive(watchdog)
        os.kill(child.pid, signal.SIGKILL)  # no fixture teardown, no atexit: only the watchdog is left
        child.wait()
        _until(lambda: not _alive(pid), "the server to stop after its starter was killed")
        _until(lambda: not root.exists(), "the server's data dir to be removed")
        _until(lambda: not _alive(watchdog), "the watchdog to exit")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_a_normal_stop_ends_the_watchdog_too() -> None:
    try:
        server = start()
    except PgUnavailable as e:
        if in_ci():
            pytest.fail(f"PostgreSQL tests must run in CI, but no server started: {e}")
        pytest.skip(f"no PostgreSQL server here: {e}")
    assert server.watchdog is not None and server.watchdog.poll() is None
    server.stop()
    assert server.watchdog.poll() is not None and not _alive(server.process.pid)
    assert not server.root.exists()
