"""The kill harness for the long-term memory stores (`SqliteStore`, `PostgresStore`):
SIGKILL a process in the middle of `batch()`, again and again, and count what was lost
or left half-written.

The child writes numbered batches for ever, each one `batch()` call of mixed operations:
ITEMS new items under `("kill", "b<i>")`, an overwrite of the shared `("kill",)/"last"`
item with `i`, and the delete of batch i-1's `scratch` item (put in batch i-1). It tells
the parent `("begin", i)` before the call and `("done", i)` once it returned; the parent
kills it a random fraction of a millisecond after some `begin`, so most kills land inside
a batch. After every kill the parent reopens the store and counts

- *lost*: a batch reported done whose items, values or last-marker are not all there;
- *half-written*: a batch visible in part: some of its items but not all, an item whose
  value is not the one written, a scratch item whose delete was done without the rest,
  or a last-marker ahead of the batches it stands for.

The next child goes on from the store's last-marker, so batches are never written twice.
"""
from __future__ import annotations

import random
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .harness import HarnessFailure, KillPlan, Launcher, forkserver_context

__all__ = ["StoreReport", "run_store_harness"]

ITEMS = 4
PAD = "x" * 1500


@dataclass
class StoreReport:
    seed: int
    store: str
    attempts: int = 0
    """Batches begun, over every child."""
    kills: int = 0
    kills_in_batch: int = 0
    """Kills between a batch's `begin` and `done` reports as the parent saw them."""
    batch_checks: int = 0
    lost: int = 0
    half_written: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"store writes on {self.store}, seed {self.seed}: {self.attempts} batches begun, {self.kills} kills "
                f"({self.kills_in_batch} inside a batch()), {self.batch_checks} batch checks after the kills: "
                f"{self.lost} lost, {self.half_written} half-written; {self.seconds:.1f} s")


def open_store(db: str) -> Any:
    if db.startswith("postgresql://"):
        from engine.store import PostgresStore

        return PostgresStore.from_conn_string(db)
    from engine.store import SqliteStore

    return SqliteStore.from_conn_string(db)


def _ops(i: int) -> list[Any]:
    from engine.store import PutOp

    ops = [PutOp(("kill", f"b{i}"), f"item{j}", {"batch": i, "n": j, "pad": PAD}) for j in range(ITEMS)]
    ops.append(PutOp(("kill", f"b{i}"), "scratch", {"batch": i}))
    if i > 0:
        ops.append(PutOp(("kill", f"b{i - 1}"), "scratch", None))  # a delete
    ops.append(PutOp(("kill",), "last", {"batch": i}))
    return ops


def writer(db: str, conn: Any) -> None:
    """The child: batches from the one after the store's last-marker, until killed."""
    try:
        with open_store(db) as store:
            store.setup()
            last = store.get(("kill",), "last")
            i = last.value["batch"] + 1 if last is not None else 0
            while True:
                conn.send(("begin", i))
                store.batch(_ops(i))
                conn.send(("done", i))
                i += 1
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which owns the output
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def count_defects(store: Any, done: int) -> tuple[int, int, list[str]]:
    """(lost, half-written, why) for a store whose batches up to `done` were reported done."""
    last_item = store.get(("kill",), "last")
    last = last_item.value["batch"] if last_item is not None else -1
    lost, half, why = 0, 0, []
    for i in range(max(done, last) + 2):
        items = {it.key: it.value for it in store.search(("kill", f"b{i}"), limit=ITEMS + 5)}
        expected = {f"item{j}": {"batch": i, "n": j, "pad": PAD} for j in range(ITEMS)}
        body = {k: v for k, v in items.items() if k != "scratch"}
        scratch_ok = ("scratch" in items) == (i == last)  # deleted by the batch after it
        whole = body == expected and scratch_ok and (not items or i <= last)
        if whole or (not items and i > last):
            continue
        if i <= done and not items:
            lost += 1
            why.append(f"batch {i} reported done is not there (last-marker {last})")
        else:
            half += 1
            why.append(f"batch {i} is there in part: {sorted(items)} (last-marker {last})")
    if last < done:
        lost += 1
        why.append(f"the last-marker says {last}, batch {done} was reported done")
    return lost, half, why


def run_store_harness(kills: int = 60, seed: int | None = None, *, new_db: Callable[[], str] | None = None,
                      workdir: Path | None = None) -> StoreReport:
    """Kill writers until `kills` kills were made, checking after each; raise HarnessFailure
    at the first loss or half-written batch. `new_db()`: a postgresql:// URL (PostgresStore)
    instead of a SQLite file (SqliteStore)."""
    seed = random.randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    report = StoreReport(seed=seed, store="PostgreSQL" if new_db is not None else "SQLite")
    started = time.monotonic()
    ctx = forkserver_context("engine.store")
    with tempfile.TemporaryDirectory(prefix="retrograph-crash-stores-", dir=workdir) as tmp:
        db = new_db() if new_db is not None else str(Path(tmp) / "store.sqlite")
        launcher = Launcher(ctx, db, writer, (db,))
        done, in_batch = -1, False

        def on_message(message: tuple) -> None:
            nonlocal done, in_batch
            if message[0] == "begin":
                report.attempts += 1
                in_batch = True
            elif message[0] == "done":
                done, in_batch = max(done, message[1]), False
            elif message[0] == "error":
                raise HarnessFailure(f"seed {seed}: the writer failed: {message[1]}")

        while report.kills < kills:
            plan = KillPlan(after_events=rng.randint(1, 6), after_s=0.0, extra_s=rng.uniform(0.0, 0.003),
                            counts="begin")
            in_batch = False
            if launcher.launch(plan, on_message) != -signal.SIGKILL:
                raise HarnessFailure(f"seed {seed}: the writer ended by itself ({plan})")
            report.kills += 1
            report.kills_in_batch += in_batch
            with open_store(db) as store:
                lost, half, why = count_defects(store, done)
            report.batch_checks += done + 1
            report.lost += lost
            report.half_written += half
            if why:
                raise HarnessFailure(f"seed {seed}, kill {report.kills} ({plan}): " + "; ".join(why[:5]))
    report.seconds = time.monotonic() - started
    return report
