"""Shared test setup: Qt offscreen, and a guard against tests that leave threads running."""
from __future__ import annotations

import os
import threading
import time

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _foreign_threads(before: set[int]) -> list[threading.Thread]:
    return [
        t for t in threading.enumerate()
        if t.ident not in before and t.is_alive() and not t.daemon
        and not t.name.startswith(("asyncio_", "ThreadPoolExecutor", "QThread", "Dummy"))
    ]


@pytest.fixture(autouse=True)
def no_leaked_threads():
    """Fail a test that leaves a (non-daemon) thread of its own running."""
    before = {t.ident for t in threading.enumerate()}
    yield
    deadline = time.monotonic() + 2.0
    leaked = _foreign_threads(before)
    while leaked and time.monotonic() < deadline:
        time.sleep(0.02)
        leaked = _foreign_threads(before)
    assert not leaked, f"test left threads running: {[t.name for t in leaked]}"


@pytest.fixture(scope="session")
def pg_server():
    """A throwaway PostgreSQL server for the session (tests/pg_server.py). Skipped with the
    reason where none can start; under CI (CI=true) that is a failure instead."""
    from pg_server import PgUnavailable, in_ci, start

    try:
        server = start()
    except PgUnavailable as e:
        if in_ci():
            pytest.fail(f"PostgreSQL tests must run in CI, but no server started: {e}")
        pytest.skip(f"no PostgreSQL server here: {e}")
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server):
    """A postgresql:// URL on a fresh, empty schema of the session's server."""
    return pg_server.url()


@pytest.fixture
def deterministic_ids():
    """Checkpoint ids and timestamps from a counter and a fixed clock (see
    `engine.checkpoint.ids`): two runs of one graph write identical histories."""
    from engine.checkpoint.ids import deterministic_ids as counting

    with counting() as source:
        yield source


@pytest.fixture(autouse=True)
def compat_left_as_found():
    """A test that opens a graph file turns engine.compat on (the loader does); turn it off
    after, so a later test that compares with the real `langgraph` gets the real one."""
    from engine import compat

    was = compat.installed()
    yield
    if compat.installed() and not was:
        compat.uninstall()
