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
