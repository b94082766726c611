"""The kill harness for `update_state` and forks: SIGKILL a process doing runs, updates and
forks on one thread (tests/crash/edit_graph.py), again and again, and count what a kill
lost or left half-written.

Most kills land inside a save: the child reports each `put()` as it starts, and the
parent kills it a random few hundred microseconds after that report (the rest: after a
random report, or a random delay). After every kill the parent reopens the store and
checks that

1. a SQLite file passes `PRAGMA integrity_check`;
2. *lost*: every checkpoint whose `put()` returned is there;
3. *half-written*: every checkpoint there loads, with its pending writes, and is whole:
   its parent is there one step before it, and its values are what its parent and its
   source make (an update: the parent's log plus the update; a fork: its source's; a
   loop step: one entry more);

and when a trial's ops are done, that its history equals the uninterrupted run's,
checkpoint for checkpoint (op, source, step, log, plan): nothing done twice, nothing
missing. The counts go in the report; the first failure raises `HarnessFailure` with
the seed.
"""
from __future__ import annotations

import random
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import edit_child
from . import edit_graph as eg
from .harness import HarnessFailure, KillPlan, Launcher, check_integrity, forkserver_context

__all__ = ["EditReport", "run_edit_harness"]

KILLS_PER_TRIAL = (2, 6)


@dataclass
class EditReport:
    """What an edit harness run did and found."""

    seed: int
    store: str
    trials: int = 0
    launches: int = 0
    attempts: int = 0
    """Ops started or taken up again, over every child."""
    kills: int = 0
    kills_in_put: Counter = field(default_factory=Counter)
    """Kills while a `put()` of that source was in flight."""
    in_flight_kept: int = 0
    """...of which the checkpoint was in the store afterwards (committed before the kill)."""
    lost: int = 0
    half_written: int = 0
    checkpoints_checked: int = 0
    histories_compared: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        puts = ", ".join(f"{n} {s}" for s, n in sorted(self.kills_in_put.items())) or "none"
        return (f"edits on {self.store}, seed {self.seed}: {self.attempts} op attempts, {self.kills} kills "
                f"in {self.trials} trials ({self.launches} processes); kills inside a put: {puts} "
                f"({self.in_flight_kept} of them committed first); {self.lost} lost, {self.half_written} "
                f"half-written; {self.checkpoints_checked} checkpoints checked, {self.histories_compared} "
                f"histories equal to the uninterrupted run's; {self.seconds:.1f} s")


@dataclass
class _Trial:
    stored: set[str] = field(default_factory=set)
    in_flight: tuple[str, str] | None = None
    finished: bool = False
    kills: int = 0
    launches: int = 0


def _draw(rng: random.Random) -> KillPlan:
    roll = rng.random()
    if roll < 0.7:  # inside the save of an update, a fork's copy or a step, just after it started
        kind = rng.choice(("put_update", "put_update", "put_fork", "put_fork", "put_loop"))
        return KillPlan(after_events=rng.randint(1, 3), after_s=0.0, extra_s=rng.uniform(0.0, 0.0004), counts=kind)
    if roll < 0.8:
        return KillPlan(after_events=rng.randint(1, 30), after_s=0.0, extra_s=rng.uniform(0.0, 0.001))
    return KillPlan(after_events=None, after_s=rng.uniform(0.0, 0.08))


def _load(db: Path | str) -> list[Any]:
    """Every checkpoint of the thread, each with its pending writes read (raises if not)."""
    with edit_child.open_saver(str(db)) as saver:
        history = list(saver.history(eg.THREAD_ID))
        for ckpt in history:
            saver.pending_writes(eg.THREAD_ID, ckpt.id)
    return history


def _inspect(db: Path | str, trial: _Trial, report: EditReport, where: str) -> list[Any]:
    check_integrity(db, where)
    try:
        history = _load(db)
    except Exception as e:  # noqa: BLE001 -- an unreadable store is a half-written one
        report.half_written += 1
        raise HarnessFailure(f"{where}: the store does not load: {type(e).__name__}: {e}") from e
    ids = {c.id for c in history}
    lost = sorted(trial.stored - ids)
    bad = eg.defects(history)
    report.lost += len(lost)
    report.half_written += len(bad)
    report.checkpoints_checked += len(history)
    if lost or bad:
        raise HarnessFailure(f"{where}: {len(lost)} lost {lost[:5]}, {len(bad)} half-written: " + "; ".join(bad[:5]))
    return history


def _run_trial(launcher: Launcher, rng: random.Random, budget: int, report: EditReport, where: str) -> list[Any]:
    trial = _Trial()

    def on_message(message: tuple) -> None:
        kind = message[0]
        if kind.startswith("put_"):
            trial.in_flight = (message[1], kind[4:])
        elif kind == "stored":
            trial.stored.add(message[1])
            trial.in_flight = None
        elif kind == "op":
            report.attempts += 1
        elif kind == "finished":
            trial.finished = True
        elif kind == "error":
            raise HarnessFailure(f"{where}, child {trial.launches}: {message[1]}")

    while not trial.finished:
        plan = _draw(rng) if trial.kills < budget else None
        trial.launches += 1
        if trial.launches > budget + 20:
            raise HarnessFailure(f"{where}: the ops were not done after {trial.launches - 1} processes")
        trial.in_flight = None
        code = launcher.launch(plan, on_message)
        report.launches += 1
        here = f"{where}, child {trial.launches} ({plan})"
        if code == -signal.SIGKILL:
            if not trial.finished:
                trial.kills += 1
                report.kills += 1
            history = _inspect(launcher.db, trial, report, f"after the kill of {here}")
            if trial.in_flight is not None:
                report.kills_in_put[trial.in_flight[1]] += 1
                report.in_flight_kept += any(c.id == trial.in_flight[0] for c in history)
        elif code != 0 or not trial.finished:
            raise HarnessFailure(f"{here} exited with code {code} without finishing the ops")
    return _inspect(launcher.db, trial, report, f"{where}, at the end")


def run_edit_harness(kills: int = 100, seed: int | None = None, *, workdir: Path | None = None,
                     new_db: Callable[[str], str] | None = None,
                     progress: Callable[[str], None] | None = None) -> EditReport:
    """Kill children until `kills` kills were made; raise HarnessFailure at the first loss
    or half-written checkpoint. `new_db(name)`: a fresh postgresql:// URL per trial
    (the engine's PostgresSaver) instead of SQLite files."""
    seed = random.randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    report = EditReport(seed=seed, store="PostgreSQL" if new_db is not None else "SQLite")
    started = time.monotonic()
    ctx = forkserver_context(edit_child.__name__)
    with tempfile.TemporaryDirectory(prefix="retrograph-crash-edits-", dir=workdir) as tmp:
        root = Path(tmp)

        def launcher(name: str) -> Launcher:
            db: Path | str = new_db(name) if new_db is not None else root / f"{name}.sqlite"
            return Launcher(ctx, db, edit_child.main, (str(db),))

        reference = Counter(map(eg.signature, _run_trial(launcher("reference"), rng, 0, report,
                                                          f"seed {seed}, the uninterrupted run")))
        while report.kills < kills:
            n = report.trials + 1
            where = f"seed {seed}, trial {n}"
            budget = min(rng.randint(*KILLS_PER_TRIAL), kills - report.kills)
            history = Counter(map(eg.signature, _run_trial(launcher(f"trial{n}"), rng, budget, report, where)))
            if history != reference:
                raise HarnessFailure(f"{where}: the history differs from the uninterrupted run's: missing "
                                     f"{sorted(map(repr, (reference - history).elements()))[:5]}, extra "
                                     f"{sorted(map(repr, (history - reference).elements()))[:5]}")
            report.histories_compared += 1
            report.trials = n
            if progress is not None:
                progress(f"trial {n}: {report.kills} kills so far")
            for path in root.glob(f"trial{n}.*"):
                path.unlink()
    report.seconds = time.monotonic() - started
    return report
