"""The kill harness for the savers' thread maintenance (`copy_thread`, `delete_for_runs`,
`prune`, their async twins): SIGKILL a process in the middle of one, again and again, and
check that each thread is as it was before the call or as it is after, never in between.

The child works on numbered *rounds*. Round i first puts a thread `t<i>` (LangGraph's
`put`/`put_writes`): ROOT checkpoints in the root namespace and SUB in a subgraph's, each
with one pending write, checkpoint k of run `r<i>-<k % 3>`. It reports `("ready", i)`,
then runs the round's operations, reporting `("begin", i, n)` before operation n and
`("done", i, n)` once it returned:

0. copy_thread(t<i>, c<i>)
1. delete_for_runs([r<i>-1])        (from both threads)
2. prune([t<i>], "keep_latest")
3. prune([t<i>, c<i>], "delete")

so the two threads pass through five joint states, STATES[0..4]. The parent kills the
child a random fraction of a millisecond after some `begin`, reopens the database and
reads both threads of every ready round (their checkpoints by content, with their pending
writes). Such a round is

- *half-written* when the pair is in none of the five states (a copy in part, a thread
  pruned in one namespace and not the other, writes without their checkpoint);
- *lost* when it is in a state before that of the last operation reported done.

The next child starts with the round after the last one begun; rounds whose put was cut
short (never reported ready) are not checked.
"""
from __future__ import annotations

import asyncio
import random
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .harness import HarnessFailure, KillPlan, Launcher, forkserver_context

__all__ = ["KINDS", "MaintenanceReport", "expected_states", "observe", "run_maintenance_harness"]

ROOT, SUB = 10, 3
SUB_NS = "child:1"
PAD = "y" * 800
KINDS = ("sqlite", "sqlite-async", "postgres", "postgres-async")
OPS = ("copy_thread", "delete_for_runs", "prune keep_latest", "prune delete")

_Sig = tuple[tuple[str, int, tuple[Any, ...]], ...]
"""A thread by content: (namespace, k, its pending writes) per checkpoint, sorted."""


@dataclass
class MaintenanceReport:
    seed: int
    saver: str
    rounds_ready: int = 0
    ops_begun: int = 0
    kills: int = 0
    kills_in_op: int = 0
    """Kills between an operation's `begin` and `done` as the parent saw them."""
    round_checks: int = 0
    lost: int = 0
    half_written: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"thread maintenance on {self.saver}, seed {self.seed}: {self.rounds_ready} rounds, "
                f"{self.ops_begun} operations begun, {self.kills} kills ({self.kills_in_op} inside an operation), "
                f"{self.round_checks} round checks after the kills: {self.lost} lost, "
                f"{self.half_written} half-written; {self.seconds:.1f} s")


def open_saver(kind: str, db: str) -> Any:
    import engine.compat  # noqa: F401  (serves langgraph.*)

    if kind == "sqlite":
        from engine.checkpoint import SqliteSaver

        return SqliteSaver(db)
    if kind == "sqlite-async":
        from engine.checkpoint.sqlite_aio import AsyncSqliteSaver

        return AsyncSqliteSaver(db)
    if kind == "postgres":
        from engine.checkpoint.postgres import PostgresSaver

        return PostgresSaver(db)
    if kind == "postgres-async":
        from engine.checkpoint.postgres_aio import AsyncPostgresSaver

        return AsyncPostgresSaver(db)
    raise ValueError(f"open_saver(kind={kind!r}): one of {', '.join(KINDS)}")


def _run_of(i: int, k: int) -> str:
    return f"r{i}-{k % 3}"


def _cfg(thread: str, ns: str = "", checkpoint_id: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


def put_round(saver: Any, i: int) -> None:
    """Thread t<i>: ROOT + SUB checkpoints, each with its pending write (see the docstring)."""
    from langgraph.checkpoint.base import Checkpoint, empty_checkpoint

    for ns, ks in (("", range(ROOT)), (SUB_NS, range(100, 100 + SUB))):
        parent: dict[str, Any] = _cfg(f"t{i}", ns)
        for k in ks:
            base = empty_checkpoint()
            cp = Checkpoint(v=1, id=base["id"], ts=base["ts"], channel_values={"k": k, "pad": PAD},
                            channel_versions={"k": k + 1, "pad": 1}, versions_seen={}, updated_channels=None)
            parent = saver.put(parent, cp, {"source": "loop", "step": k, "run_id": _run_of(i, k)},
                               {"k": k + 1, "pad": 1} if k in (0, 100) else {"k": k + 1})
            saver.put_writes(parent, [("w", k)], f"task{k}")


async def _aop(saver: Any, i: int, n: int) -> None:
    if n == 0:
        await saver.acopy_thread(f"t{i}", f"c{i}")
    elif n == 1:
        await saver.adelete_for_runs([_run_of(i, 1)])
    elif n == 2:
        await saver.aprune([f"t{i}"], strategy="keep_latest")
    else:
        await saver.aprune([f"t{i}", f"c{i}"], strategy="delete")


def _op(saver: Any, i: int, n: int) -> None:
    if n == 0:
        saver.copy_thread(f"t{i}", f"c{i}")
    elif n == 1:
        saver.delete_for_runs([_run_of(i, 1)])
    elif n == 2:
        saver.prune([f"t{i}"], strategy="keep_latest")
    else:
        saver.prune([f"t{i}", f"c{i}"], strategy="delete")


def worker(kind: str, db: str, first: int, conn: Any) -> None:
    """The child: rounds from `first` on, until killed."""
    try:
        saver = open_saver(kind, db)
        i = first
        while True:
            conn.send(("setup", i))
            put_round(saver, i)
            conn.send(("ready", i))
            for n in range(len(OPS)):
                conn.send(("begin", i, n))
                if kind.endswith("-async"):
                    asyncio.run(_aop(saver, i, n))
                else:
                    _op(saver, i, n)
                conn.send(("done", i, n))
            i += 1
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which owns the output
        conn.send(("error", f"{type(e).__name__}: {e}"))
    finally:
        conn.close()


def expected_states() -> list[tuple[_Sig, _Sig]]:
    """(t<i>, c<i>) in the five states a round passes through, by content."""
    def sig(ks: list[tuple[str, int]]) -> _Sig:
        return tuple(sorted((ns, k, ((f"task{k}", "w", k),)) for ns, k in ks))

    full = [("", k) for k in range(ROOT)] + [(SUB_NS, k) for k in range(100, 100 + SUB)]
    runs = [(ns, k) for ns, k in full if k % 3 != 1]
    latest = [(ns, max(k for n2, k in runs if n2 == ns)) for ns in ("", SUB_NS)]
    return [(sig(full), ()), (sig(full), sig(full)), (sig(runs), sig(runs)), (sig(latest), sig(runs)), ((), ())]


def _thread_sig(saver: Any, thread: str) -> _Sig:
    out = []
    for ns in ("", SUB_NS):
        for t in saver.list(_cfg(thread, ns)):
            values = t.checkpoint["channel_values"]
            if values.get("pad") != PAD:
                raise HarnessFailure(f"thread {thread!r}, namespace {ns!r}: a checkpoint loads {values!r}")
            out.append((ns, values["k"], tuple(t.pending_writes or ())))
    return tuple(sorted(out))


def observe(saver: Any, i: int) -> tuple[_Sig, _Sig]:
    return _thread_sig(saver, f"t{i}"), _thread_sig(saver, f"c{i}")


def check_round(saver: Any, i: int, done: int, begun: int) -> tuple[int, int, str | None]:
    """(lost, half-written, why) for round i, whose operations below `done` were reported
    done and below `begun` begun."""
    states = expected_states()
    seen = observe(saver, i)
    if seen not in states:
        return 0, 1, f"round {i} is in no state before or after an operation: t={seen[0]!r} c={seen[1]!r}"
    at = states.index(seen)
    if at < done:
        return 1, 0, f"round {i} is at state {at}, but {OPS[done - 1]} was reported done"
    if at > begun:
        return 0, 1, f"round {i} is at state {at}, but only {begun} operations began"
    return 0, 0, None


def run_maintenance_harness(kind: str = "sqlite", kills: int = 30, seed: int | None = None, *,
                            new_db: Callable[[], str] | None = None,
                            workdir: Path | None = None) -> MaintenanceReport:
    """Kill workers until `kills` kills were made, checking every ready round after each;
    raise HarnessFailure at the first loss or half-written round. `new_db()`: a
    postgresql:// URL (the PostgreSQL kinds) instead of a SQLite file."""
    seed = random.randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    report = MaintenanceReport(seed=seed, saver=kind)
    started = time.monotonic()
    ctx = forkserver_context("engine.checkpoint")
    with tempfile.TemporaryDirectory(prefix="retrograph-crash-maintenance-", dir=workdir) as tmp:
        db = new_db() if new_db is not None else str(Path(tmp) / "checkpoints.db")
        ready: dict[int, list[int]] = {}  # round -> [ops done, ops begun]
        nxt, in_op = 0, False

        def on_message(message: tuple) -> None:
            nonlocal nxt, in_op
            if message[0] == "setup":
                nxt = max(nxt, message[1] + 1)
            elif message[0] == "ready":
                ready[message[1]] = [0, 0]
                report.rounds_ready += 1
            elif message[0] == "begin":
                ready[message[1]][1] = message[2] + 1
                report.ops_begun += 1
                in_op = True
            elif message[0] == "done":
                ready[message[1]][0] = message[2] + 1
                in_op = False
            elif message[0] == "error":
                raise HarnessFailure(f"seed {seed}: the {kind} worker failed: {message[1]}")

        while report.kills < kills:
            plan = KillPlan(after_events=rng.randint(1, 6), after_s=0.0, extra_s=rng.uniform(0.0, 0.004),
                            counts="begin")
            in_op = False
            launcher = Launcher(ctx, db, worker, (kind, db, nxt))
            if launcher.launch(plan, on_message) != -signal.SIGKILL:
                raise HarnessFailure(f"seed {seed}: the {kind} worker ended by itself ({plan})")
            report.kills += 1
            report.kills_in_op += in_op
            saver = open_saver(kind, db)
            try:
                why = []
                for i, (done, begun) in ready.items():
                    lost, half, reason = check_round(saver, i, done, begun)
                    report.round_checks += 1
                    report.lost += lost
                    report.half_written += half
                    if reason:
                        why.append(reason)
            finally:
                saver.close()
            if why:
                raise HarnessFailure(f"seed {seed}, {kind}, kill {report.kills} ({plan}): " + "; ".join(why[:5]))
            for i in [i for i, (done, _) in ready.items() if done == len(OPS)]:
                del ready[i]  # checked once at its end: both threads are gone for good
    report.seconds = time.monotonic() - started
    return report
