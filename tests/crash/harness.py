"""The kill harness: SIGKILL a process running a graph on `SqliteSaver`, again and again,
and prove that nothing it reported saved was lost and nothing saved ran twice.

One *trial* drives a fresh run (tests/crash/graph_under_test.py) to the end through a
series of child processes; each child is killed at a random moment (after its N-th
reported event, or after a random delay) until the trial's kill budget is spent and a
last child finishes the run. After every kill the parent reopens the file and checks:

1. `PRAGMA integrity_check` says ok;
2. every checkpoint a child reported committed is in the history, by id, and every
   checkpoint in the history loads and has its parent there.

When the run is done:

3. the final state, and the history's shape (step, source, next of each checkpoint),
   equal those of an uninterrupted run, and the state equals the hand-computed one;
4. no task ran after its writes were *reported saved*. A task's writes are reported
   saved at the first of: (a) its `done` report, when its superstep has more than one
   task (the engine saves each finished task's writes with `put_writes` before
   reporting it; a one-task superstep may skip that, so its task may legitimately run
   again if killed before the commit), and (b) the report of the checkpoint committed
   from the superstep it belongs to. An execution logged at or after that point (the
   side-channel log's size is sent with each report) is a violation.

Child processes are forked from a forkserver that has imported the engine already, so
a kill point costs milliseconds, not an interpreter start. The RNG is seeded: a failure
names the seed, trial and launch, and rerunning with that seed replays the same plan
(timing still varies, so a rare race may need a few runs).
"""
from __future__ import annotations

import multiprocessing
import os
import random
import signal
import sqlite3
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from engine import SqliteSaver

from . import child
from . import graph_under_test as gut

__all__ = ["HarnessFailure", "KillPlan", "Launcher", "Report", "check_integrity", "forkserver_context",
           "run_harness"]

CHILD_TIMEOUT_S = 30.0
KILLS_PER_TRIAL = (2, 8)
"""Each trial kills between these many children (inclusive) before letting one finish."""
MAX_EVENT_INDEX = 70
"""Kill after the N-th event with N up to this (a whole run reports ~95 events)."""
MAX_DELAY_S = 0.25


class HarnessFailure(AssertionError):
    """A crash-safety property did not hold; the message says which, where and the seed."""


@dataclass(frozen=True, kw_only=True)
class KillPlan:
    """When to kill one child: after its `after_events`-th report (plus `extra_s`), or
    `after_s` seconds after it starts when `after_events` is None."""

    after_events: int | None
    after_s: float
    extra_s: float = 0.0
    counts: str | None = None
    """The kind of report counted towards `after_events` (None: every report)."""

    @classmethod
    def draw(cls, rng: random.Random) -> KillPlan:
        if rng.random() < 0.5:
            extra = rng.choice((0.0, 0.0, rng.uniform(0.0, 0.004)))
            return cls(after_events=rng.randint(1, MAX_EVENT_INDEX), after_s=0.0, extra_s=extra)
        return cls(after_events=None, after_s=rng.uniform(0.0, MAX_DELAY_S))


@dataclass
class TrialLog:
    """What the children of one trial reported, in order."""

    checkpoints: dict[str, tuple[str | None, int, int]] = field(default_factory=dict)
    """checkpoint id -> (parent id, step, log size when reported); first report wins."""
    done: list[tuple[str, int]] = field(default_factory=list)
    """(task id, log size when reported) of each task reported finished."""
    kills: int = 0
    launches: int = 0
    finished: bool = False


@dataclass
class Report:
    """What a harness run did and checked."""

    seed: int
    trials: int = 0
    launches: int = 0
    kills: int = 0
    integrity_checks: int = 0
    checkpoint_lookups: int = 0
    histories_loaded: int = 0
    final_states_compared: int = 0
    executions_checked: int = 0
    saved_tasks_checked: int = 0
    allowed_reruns: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (
            f"seed {self.seed}: {self.kills} kill points in {self.trials} trials ({self.launches} child "
            f"processes), {self.seconds:.1f} s. Checks passed: {self.integrity_checks} integrity checks, "
            f"{self.checkpoint_lookups} look-ups of reported checkpoints by id (none missing), "
            f"{self.histories_loaded} histories loaded whole, {self.final_states_compared} final states "
            f"and histories equal to the uninterrupted run's, {self.executions_checked} logged executions "
            f"checked against {self.saved_tasks_checked} tasks reported saved (0 ran again; "
            f"{self.allowed_reruns} allowed re-runs of tasks killed before their writes were saved)."
        )


def forkserver_context(preload: str = child.__name__) -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([preload])
    return ctx


class Launcher:
    """Starts one child (`target(*args, pipe)`), reads its reports, and kills it as planned."""

    def __init__(self, ctx: Any, db: Path | str, target: Callable[..., None], args: tuple) -> None:
        self.ctx, self.db, self.target, self.args = ctx, db, target, args

    def launch(self, plan: KillPlan | None, on_message: Callable[[tuple], None]) -> int:
        """Run one child to its end or its kill; returns its exit code (-9 when killed)."""
        reader, writer = self.ctx.Pipe(duplex=False)
        proc = self.ctx.Process(target=self.target, args=(*self.args, writer))
        proc.start()
        writer.close()
        started = time.monotonic()
        events = 0
        deadline = started + CHILD_TIMEOUT_S
        kill_at = started + plan.after_s if plan is not None and plan.after_events is None else None
        try:
            while True:
                now = time.monotonic()
                until = min(deadline, kill_at) if kill_at is not None else deadline
                ready = wait([reader, proc.sentinel], timeout=max(0.0, until - now))
                if reader in ready:
                    try:
                        message = reader.recv()
                    except EOFError:
                        proc.join(CHILD_TIMEOUT_S)
                        break
                    on_message(message)
                    if plan is not None and plan.counts in (None, message[0]):
                        events += 1
                    if plan is not None and plan.after_events == events:
                        if plan.extra_s:
                            time.sleep(plan.extra_s)
                        self._kill(proc)
                        break
                elif proc.sentinel in ready:
                    break
                elif kill_at is not None and time.monotonic() >= kill_at:
                    self._kill(proc)
                    break
                elif time.monotonic() >= deadline:
                    self._kill(proc)
                    raise HarnessFailure(f"a child ran for over {CHILD_TIMEOUT_S:.0f} s without finishing")
            proc.join(CHILD_TIMEOUT_S)
            while reader.poll(0):  # reports that were in the pipe when it died still count
                try:
                    on_message(reader.recv())
                except EOFError:
                    break
        finally:
            reader.close()
            if proc.is_alive():
                self._kill(proc)
                proc.join()
        return proc.exitcode

    @staticmethod
    def _kill(proc: Any) -> None:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _child_launcher(ctx: Any, db: Path | str, log: Path, sabotage: bool) -> Launcher:
    return Launcher(ctx, db, child.main, (str(db), str(log), sabotage))


def _saver(db: Path | str) -> Any:
    """The store under test: a SQLite file, or a postgresql:// URL (the PostgresSaver)."""
    if isinstance(db, str) and db.startswith("postgresql://"):
        from engine.checkpoint import PostgresSaver

        return PostgresSaver(db)
    return SqliteSaver(db)


def check_integrity(db: Path | str, where: str) -> None:
    """A SQLite file must pass `PRAGMA integrity_check` (a server keeps its own)."""
    if isinstance(db, Path):
        conn = sqlite3.connect(db)
        try:
            result = [row[0] for row in conn.execute("PRAGMA integrity_check")]
        finally:
            conn.close()
        if result != ["ok"]:
            raise HarnessFailure(f"{where}: PRAGMA integrity_check says {result[:5]}")


def _check_store(db: Path | str, trial: TrialLog, report: Report, where: str) -> None:
    """Checks 1 and 2: the store is intact and holds every checkpoint reported committed
    (a SQLite file passes `PRAGMA integrity_check`; a server keeps its own)."""
    check_integrity(db, where)
    report.integrity_checks += 1
    with _saver(db) as saver:
        headers = {h.id: h for h in saver.list_headers(gut.THREAD_ID)}
        lost = [(cid, step) for cid, (_, step, _) in trial.checkpoints.items() if cid not in headers]
        if lost:
            raise HarnessFailure(f"{where}: checkpoints reported committed are missing from the history: {lost}")
        report.checkpoint_lookups += len(trial.checkpoints)
        for header in headers.values():
            if saver.load(gut.THREAD_ID, header.id) is None:
                raise HarnessFailure(f"{where}: checkpoint {header.id} is listed but does not load")
            parent = headers.get(header.parent_id) if header.parent_id else None
            if header.parent_id is not None and (parent is None or parent.step != header.step - 1):
                raise HarnessFailure(f"{where}: checkpoint {header.id} (step {header.step}) has no parent "
                                     f"{header.parent_id} one step before it")
    report.histories_loaded += 1


def _history_shape(db: Path | str) -> list[tuple[int, str, tuple[str, ...]]]:
    with _saver(db) as saver:
        return [(h.step, h.source, h.next) for h in saver.list_headers(gut.THREAD_ID)]


def _final_state(db: Path | str) -> tuple[dict[str, Any], tuple[str, ...]]:
    with _saver(db) as saver:
        state = gut.build(saver).get_state({"configurable": {"thread_id": gut.THREAD_ID}})
    return dict(state.values), tuple(state.next)


def _read_log(log: Path) -> list[tuple[int, str]]:
    """(byte offset, identity) of every logged execution."""
    out, offset = [], 0
    data = log.read_bytes() if log.exists() else b""
    for line in data.splitlines(keepends=True):
        out.append((offset, line.decode().strip()))
        offset += len(line)
    return out


def _saved_at(db: Path | str, trial: TrialLog) -> dict[str, int]:
    """Identity -> log size when its writes were first reported saved (rule 4)."""
    tasks: dict[str, tuple[str, str | None, int]] = {}  # task id -> (checkpoint id, identity, tasks in step)
    with _saver(db) as saver:
        for ckpt in saver.history(gut.THREAD_ID):
            for task in ckpt.tasks:
                hidden = task.name.startswith("__")  # the __start__ task logs nothing
                ident = None if hidden else gut.identity(task.name, task.arg if task.is_send else ckpt.values)
                tasks[task.id] = (ckpt.id, ident, len(ckpt.tasks))
    saved: dict[str, int] = {}

    def mark(ident: str | None, size: int) -> None:
        if ident is not None:
            saved[ident] = min(size, saved.get(ident, size))

    for task_id, size in trial.done:
        if task_id not in tasks:
            raise HarnessFailure(f"task {task_id} was reported finished but no checkpoint plans it")
        _, ident, n_tasks = tasks[task_id]
        if n_tasks > 1:
            mark(ident, size)
    by_checkpoint: dict[str, list[str | None]] = {}
    for cid, ident, _ in tasks.values():
        by_checkpoint.setdefault(cid, []).append(ident)
    for parent, _, size in trial.checkpoints.values():
        for ident in by_checkpoint.get(parent or "", ()):
            mark(ident, size)
    return saved


def _check_executions(db: Path | str, log: Path, trial: TrialLog, report: Report, where: str) -> None:
    """Check 4: no execution logged after the task's writes were reported saved."""
    saved = _saved_at(db, trial)
    entries = _read_log(log)
    reran = [(ident, offset, saved[ident]) for offset, ident in entries
             if ident in saved and offset >= saved[ident]]
    if reran:
        shown = ", ".join(f"{i} (logged at byte {o}, saved at byte {s})" for i, o, s in reran[:8])
        raise HarnessFailure(f"{where}: {len(reran)} task(s) ran again after their writes were reported saved: "
                             f"{shown}")
    seen = [ident for _, ident in entries]
    missing = gut.expected_identities() - set(seen)
    unknown = set(seen) - gut.expected_identities()
    if missing or unknown:
        raise HarnessFailure(f"{where}: executions missing {sorted(missing)}, unexpected {sorted(unknown)}")
    report.executions_checked += len(entries)
    report.saved_tasks_checked += len(saved)
    interrupt_reruns = gut.ROUNDS  # review runs once to ask and once resumed
    report.allowed_reruns += len(entries) - len(gut.expected_identities()) - interrupt_reruns


def _run_trial(launcher: Launcher, rng: random.Random, kills: int, report: Report,
               where: str) -> TrialLog:
    trial = TrialLog()

    def on_message(message: tuple) -> None:
        kind = message[0]
        if kind == "ckpt":
            _, cid, parent, step, size = message
            trial.checkpoints.setdefault(cid, (parent, step, size))
        elif kind == "done":
            trial.done.append((message[1], message[2]))
        elif kind == "finished":
            trial.finished = True
        elif kind == "error":
            raise HarnessFailure(f"{where}, child {trial.launches}: the run failed:\n{message[1]}")

    while not trial.finished:
        plan = KillPlan.draw(rng) if trial.kills < kills else None
        trial.launches += 1
        if trial.launches > kills + 20:
            raise HarnessFailure(f"{where}: the run did not finish after {trial.launches - 1} child processes")
        code = launcher.launch(plan, on_message)
        report.launches += 1
        here = f"{where}, child {trial.launches} ({plan})"
        if code == -signal.SIGKILL:
            if not trial.finished:  # a kill after the run ended proves nothing new
                trial.kills += 1
                report.kills += 1
            _check_store(launcher.db, trial, report, f"after the kill of {here}")
        elif code != 0:
            raise HarnessFailure(f"{here} exited with code {code}")
        elif not trial.finished:
            raise HarnessFailure(f"{here} exited without finishing the run")
    return trial


def run_harness(kills: int = 200, seed: int | None = None, *, workdir: Path | None = None,
                sabotage: bool = False, progress: Callable[[str], None] | None = None,
                new_db: Callable[[str], str] | None = None) -> Report:
    """Kill children until at least `kills` kill points were hit; raise HarnessFailure
    at the first property that does not hold. `sabotage` runs a saver that loses
    pending writes, to show the harness catches it. `new_db(name)`: a fresh postgresql://
    URL per run, to kill the engine's PostgresSaver instead of SQLite files."""

    def db(name: str) -> Path | str:
        return new_db(name) if new_db is not None else root / f"{name}.sqlite"

    seed = random.randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    report = Report(seed=seed)
    started = time.monotonic()
    ctx = forkserver_context()
    with tempfile.TemporaryDirectory(prefix="retrograph-crash-", dir=workdir) as tmp:
        root = Path(tmp)
        ref_log = root / "reference.log"
        reference = _child_launcher(ctx, db("reference"), ref_log, False)
        ref_trial = _run_trial(reference, rng, 0, report, f"seed {seed}, the uninterrupted run")
        ref_state, ref_next = _final_state(reference.db)
        ref_shape = _history_shape(reference.db)
        if ref_state != gut.expected_final_state() or ref_next:
            raise HarnessFailure(f"the uninterrupted run ended in {ref_state} (next {ref_next}), "
                                 f"expected {gut.expected_final_state()}")
        _check_executions(reference.db, ref_log, ref_trial, report, "the uninterrupted run")
        while report.kills < kills:
            n = report.trials + 1
            where = f"seed {seed}, trial {n}"
            log = root / f"trial{n}.log"
            launcher = _child_launcher(ctx, db(f"trial{n}"), log, sabotage)
            budget = min(rng.randint(*KILLS_PER_TRIAL), kills - report.kills)
            trial = _run_trial(launcher, rng, budget, report, where)
            _check_store(launcher.db, trial, report, f"{where}, at the end")
            state, nxt = _final_state(launcher.db)
            if state != ref_state or nxt:
                raise HarnessFailure(f"{where}: final state {state} (next {nxt}) differs from the "
                                     f"uninterrupted run's {ref_state}")
            shape = _history_shape(launcher.db)
            if shape != ref_shape:
                raise HarnessFailure(f"{where}: history (step, source, next) {shape} differs from the "
                                     f"uninterrupted run's {ref_shape}")
            report.final_states_compared += 1
            _check_executions(launcher.db, log, trial, report, where)
            report.trials = n
            if progress is not None:
                progress(f"trial {n}: {trial.kills} kills, {trial.launches} children; {report.kills} kills so far")
            for path in root.glob(f"trial{n}.*"):
                path.unlink()
    report.seconds = time.monotonic() - started
    return report
