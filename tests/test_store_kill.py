"""Kill a process mid-way through store writes (SIGKILL), reopen the store: no batch that
`batch()` returned is lost, and no batch is there in part."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from engine.store import PostgresStore, SqliteStore
from store_writer import ITEMS

KILLS = 6
WRITER = Path(__file__).with_name("store_writer.py")


def _write_then_kill(kind: str, target: str, start: int, batches: int) -> int:
    """Start a writer, SIGKILL it after it reported `batches` commits; the last one reported."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WRITER.parent.parent), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen([sys.executable, str(WRITER), kind, target, str(start)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    last = start - 1
    assert child.stdout is not None
    for _ in range(batches):
        line = child.stdout.readline()
        if not line:
            raise AssertionError(f"the writer stopped: {child.stderr.read() if child.stderr else ''}")
        last = int(line)
    child.send_signal(signal.SIGKILL)  # while it writes the next batch
    child.wait()
    for line in child.stdout:  # printed between the readline and the kill
        last = int(line)
    return last


def _check(store: SqliteStore | PostgresStore, committed: int) -> tuple[int, int]:
    """(lost, half-written) among the batches in the store."""
    lost = half = 0
    seen = {ns[1]: 0 for ns in store.list_namespaces(prefix=("kill",), limit=10_000) if len(ns) == 2}
    for name in seen:
        seen[name] = len(store.search(("kill", name), limit=ITEMS + 10))
    for i in range(committed + 1):
        if seen.get(f"b{i}", 0) != ITEMS:
            lost += 1
    half = sum(1 for n in seen.values() if n not in (0, ITEMS))
    last = store.get(("kill",), "last")
    assert last is not None and last.value["batch"] >= committed
    return lost, half


def _run(kind: str, target: str, reopen) -> None:
    rng = random.Random(os.environ.get("RETROGRAPH_CRASH_SEED", "stores"))
    start, committed = 0, -1
    for _ in range(KILLS):
        committed = _write_then_kill(kind, target, start, rng.randint(1, 8))
        with reopen() as store:
            lost, half = _check(store, committed)
            assert (lost, half) == (0, 0), f"after a kill at batch {committed}: {lost} lost, {half} half-written"
            start = (store.get(("kill",), "last").value["batch"]) + 1


def test_sigkill_during_sqlite_store_writes_loses_nothing_committed(tmp_path):
    path = str(tmp_path / "kill.db")
    _run("sqlite", path, lambda: SqliteStore.from_conn_string(path))


def test_sigkill_during_postgres_store_writes_loses_nothing_committed(pg_server):
    url = pg_server.url()
    _run("postgres", url, lambda: PostgresStore.from_conn_string(url))


def test_the_check_sees_a_half_written_batch(tmp_path):
    """The checker can fail: a batch with an item missing is reported."""
    path = str(tmp_path / "half.db")
    committed = _write_then_kill("sqlite", path, 0, 3)
    with SqliteStore.from_conn_string(path) as store:
        store.delete(("kill", "b1"), "item3")
        assert _check(store, committed) == (1, 1)
    with pytest.raises(AssertionError):
        with SqliteStore.from_conn_string(path) as store:
            store.delete(("kill",), "last")
            _check(store, committed)
