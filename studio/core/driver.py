"""Driving the engine's `Run` move by move: the studio's stepping commands (Qt-free).

There is no second scheduler here: every command is a sequence of the Run's own moves
(`start`, `run_task`, `run_pending`, `commit`). The driver adds what a debugger needs
around them: the studio's breakpoints (checked against `run.pending` before a task and
against the committed nodes after a superstep), pause, stop, run-to-node, resume, and
the choice of where a new Run starts (fresh input, the thread's latest checkpoint, or an
older one, which the engine forks onto a new branch).
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from engine import (
    Command,
    DriveHooks,
    Interrupt,
    Run,
    RunEvent,
    RunStarted,
    StepCommitted,
    TaskInterrupted,
)
from engine.runtime.protocols import RunHandle

from .runsettings import CONTEXT_KEY, RunSettings, kept_context

__all__ = ["RunDriver", "Refused", "Outcome", "PendingInterrupt", "InnerGate", "Reason"]

Reason = Literal["stepped", "committed", "breakpoint", "paused", "interrupted", "failed", "done", "target", "inside"]


class Refused(RuntimeError):
    """A command that cannot run now; the message says why and what to do instead."""


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """How a command ended: `reason` is one of stepped, committed, breakpoint, paused,
    interrupted, failed, done, target (run-to-node reached)."""

    reason: Reason
    message: str = ""
    nodes: tuple[str, ...] = ()
    where: str = ""
    """A breakpoint's side: "before" the nodes run, or "after" they committed."""
    condition: str = ""
    """A conditional breakpoint's expression (or path), with `value` what it gave."""
    value: str = ""


@dataclass(frozen=True, kw_only=True)
class PendingInterrupt:
    task_id: str
    node: str
    interrupt: Interrupt


class InnerGate:
    """The engine's subgraph gate: parks a subgraph's child Run before each of its moves
    until the user asks for the next one ("step into"). A graph the node invokes (a
    subagent run by a tool) parks here too, from whichever loop it runs on (the engine
    awaits this gate on the driver's loop)."""

    def __init__(self) -> None:
        self.child: Run | None = None
        self.parked = asyncio.Event()
        self._release = asyncio.Event()
        self.free = False
        self.stopped = False

    async def __call__(self, child: Run) -> None:
        if self.stopped:
            raise asyncio.CancelledError("the debugger stopped the run")
        if self.free:
            return
        self.child = child
        self.parked.set()
        await self._release.wait()
        self._release.clear()
        if self.stopped:
            raise asyncio.CancelledError("the debugger stopped the run")

    def release(self) -> None:
        """Let the child make one move (the next `parked` marks the one after it)."""
        self.parked.clear()
        self._release.set()

    def run_free(self) -> None:
        """Let the child run to its end without stopping."""
        self.free = True
        self.parked.clear()
        self._release.set()

    def stop(self) -> None:
        """Cancel the parked child (and any that would park later): a child on a worker
        thread's loop ends too, instead of waiting for a release that never comes."""
        self.stopped = True
        self.parked.clear()
        self._release.set()


class RunDriver:
    """Holds the current Run of one thread and advances it on request.

    Its fields are read from outside and changed only through its methods: the head and
    the pending interrupts follow the Run's own events (see `_on_event`)."""

    def __init__(self, listener: Callable[[RunEvent], None], *,
                 latest_id: Callable[[], str | None] = lambda: None,
                 head_finished: Callable[[], bool] = lambda: False) -> None:
        self.graph: Any = None
        self.thread_id: str | None = None
        self.input: Any = None
        self.head_id: str | None = None
        """The checkpoint the next Run starts from; None means the thread's latest."""
        self.latest_id = latest_id
        self.head_finished = head_finished
        self.before: set[str] = set()
        self.after: set[str] = set()
        self.interrupts: list[PendingInterrupt] = []
        self.run: Run | None = None
        self.pause_requested = False
        self._listener = listener
        self._unsubscribe: Callable[[], None] | None = None
        self.gate: InnerGate | None = None
        self.inside: str | None = None
        """The subgraph node being stepped into (its task is parked at the gate)."""
        self._outer: asyncio.Future[Any] | None = None
        self.conditions: Any = None
        """Conditional breakpoints (conditions.Conditions), checked by continue_."""
        self._committed: StepCommitted | None = None
        self.settings = RunSettings()
        """The context, config and durability of the Runs made from now on (runsettings)."""

    # -- what the session sets -------------------------------------------------------
    def set_graph(self, graph: Any) -> None:
        """The compiled graph new Runs come from (None: read-only); breakpoints on nodes it
        lacks are dropped."""
        self.graph = graph
        if graph is not None:
            nodes = set(graph.node_names)
            self.before &= nodes
            self.after &= nodes

    def set_input(self, value: Any) -> None:
        """The input of the next new run."""
        self.input = value

    def context_metadata(self) -> dict[str, Any]:
        """The checkpoint metadata that keeps the context with the thread, so a restart, a
        resume and a replay reuse it (its secret-looking keys left out)."""
        if self.settings.context is None:
            return {}
        kept, _ = kept_context(self.settings.context)
        return {CONTEXT_KEY: kept}

    def set_settings(self, settings: RunSettings) -> None:
        """The context, config and durability every Run of this thread gets from now on."""
        self.settings = settings

    def open_thread(self, thread_id: str | None) -> None:
        """Drive `thread_id` from its latest checkpoint on."""
        self.drop_run()
        self.thread_id = thread_id
        self.head_id = None
        self.interrupts = []

    def move_head(self, checkpoint_id: str | None) -> None:
        """The next Run starts from `checkpoint_id` (None: the thread's latest)."""
        self.drop_run()
        self.interrupts = []
        self.head_id = checkpoint_id

    def adopt_interrupts(self, pending: list[PendingInterrupt]) -> None:
        """The interrupts a saved run stopped at (read back from the checkpoint)."""
        self.interrupts = list(pending)

    def toggle_breakpoint(self, node: str, where: str = "before") -> bool:
        """Set or remove a breakpoint before/after `node`; True when it is now set."""
        points = self.before if where == "before" else self.after
        if node in points:
            points.discard(node)
            return False
        points.add(node)
        return True

    def request_pause(self) -> None:
        """Stop after the running task(s) finish."""
        self.pause_requested = True

    def _on_event(self, event: RunEvent) -> None:
        """The Run's own events move the head and collect interrupts, then reach the listener."""
        if not getattr(event, "namespace", ()):
            if isinstance(event, RunStarted):
                self.head_id = event.checkpoint_id or self.head_id
            elif isinstance(event, StepCommitted):
                self.head_id = event.checkpoint_id
            elif isinstance(event, TaskInterrupted):
                self.interrupts.extend(PendingInterrupt(task_id=event.task_id, node=event.name, interrupt=i)
                                       for i in event.interrupts)
        self._listener(event)

    # -- the run ---------------------------------------------------------------------
    def drop_run(self) -> None:
        """Forget the current Run (cancelling it when it could still move)."""
        self._leave_inside(cancel=True)
        run = self.run
        if run is not None:
            if run.status in ("new", "ready"):
                run.cancel()
            if self._unsubscribe is not None:
                self._unsubscribe()
        self.run, self._unsubscribe = None, None

    def _config(self, *, at_head: bool) -> dict[str, Any]:
        config = dict(self.settings.config)
        conf: dict[str, Any] = {**dict(config.get("configurable") or {}), "thread_id": self.thread_id}
        if at_head and self.head_id is not None and self.head_id != self.latest_id():
            conf["checkpoint_id"] = self.head_id
        if self.settings.context is not None:
            config["metadata"] = {**dict(config.get("metadata") or {}), **self.context_metadata()}
        return {**config, "configurable": conf, "record": True}  # keep each task's writes: recorded replay

    def _failed(self, run: RunHandle) -> bool:
        return run.status == "failed" or any(r.error is not None for r in run.results.values())

    async def _start(self, run_input: Any, config: dict[str, Any]) -> Run:
        run: Run = self.graph.new_run(run_input, config, context=self.settings.context,
                                      durability=self.settings.durability)
        # a rewound branch goes on at step N+1 (its "fork" copy keeps step N); no node runs on
        # the loop's thread, the UI's, however quick it was: one that blocks cannot freeze the window
        run.set_options(fork_same_step=True, keep_loop_free=True)
        self.run = run
        self._unsubscribe = run.subscribe(self._on_event)
        await run.start()
        return run

    async def ensure_run(self) -> Run:
        """The Run to advance: the current one, or a new one from the head checkpoint."""
        if self.graph is None:
            raise Refused("No graph code is loaded: this database is open read-only. "
                          "Open it with --graph FILE to continue its runs.")
        run = self.run
        if run is not None and run.status == "ready" and not self._failed(run):
            return run
        if self.interrupts:
            raise Refused("The run is waiting at an interrupt: enter a resume value in the Interrupts panel "
                          "and press Resume.")
        self.drop_run()
        if self.latest_id() is None:
            if self.input is None:
                raise Refused("No input for a new run: use Run ▸ New run… (Ctrl+N) to enter one.")
            run = await self._start(self.input, self._config(at_head=False))
        else:
            if self.head_finished():
                raise Refused("This run has finished. Rewind to an earlier checkpoint in the timeline, "
                              "or Restart (a new thread with the same input).")
            run = await self._start(None, self._config(at_head=True))
        if run.status != "ready":
            raise Refused(f"The run is {run.status}: nothing to run from this checkpoint.")
        return run

    # -- moves -----------------------------------------------------------------------
    def _commit_if_ready(self, run: Run) -> Outcome | None:
        if not run.ready_to_commit:
            return None
        event = run.commit()
        self._committed = event
        return Outcome(reason="committed", nodes=event.nodes_ran if event is not None else ())

    def _end_of(self, run: RunHandle, stepped: tuple[str, ...]) -> Outcome:
        if self._failed(run):
            failed = tuple(r.task.name for r in run.results.values() if r.error is not None)
            return Outcome(reason="failed", nodes=failed or stepped)
        if run.status == "interrupted":
            return Outcome(reason="interrupted", nodes=stepped)
        if run.status == "done":
            return Outcome(reason="done", nodes=stepped)
        return Outcome(reason="stepped", nodes=stepped)

    async def step_node(self, task_id: str | None = None) -> Outcome:
        """Run one task (the first pending, or `task_id`); commit when it was the last one.
        Inside a subgraph: one move of the subgraph's run."""
        if self.inside is not None:
            return await self._inner_move()
        run = await self.ensure_run()
        stepped: tuple[str, ...] = ()
        if run.pending:
            task = next((t for t in run.pending if t.id == task_id), run.pending[0])
            result = await run.run_task(task.id)
            stepped = (task.name,)
            if result.error is not None or run.status != "ready":
                return self._end_of(run, stepped)
        committed = self._commit_if_ready(run)
        if committed is not None:
            stepped = stepped or committed.nodes
        return self._end_of(run, stepped)

    async def step_superstep(self) -> Outcome:
        """Run every pending task of the superstep concurrently, then commit it."""
        if self.inside is not None:
            return await self._inner_move()
        run = await self.ensure_run()
        names = tuple(t.name for t in run.pending)
        if run.pending:
            await run.run_pending()
            if run.status != "ready" or self._failed(run):
                return self._end_of(run, names)
        committed = self._commit_if_ready(run)
        return self._end_of(run, committed.nodes if committed else names)

    async def continue_(self, target: str | None = None) -> Outcome:
        """Run supersteps until a breakpoint, an interrupt, an error, the end, a pause,
        or (with `target`) until `target` is about to run. Breakpoints at the spot the
        run is paused at now are passed, as a debugger's continue does."""
        self.pause_requested = False
        if self.inside is not None:  # inside a subgraph: F5 runs it to its end, then stops in the parent
            node = self.inside
            outcome = await self.step_out()
            if outcome.reason != "stepped":
                return outcome
            return Outcome(reason="stepped", nodes=outcome.nodes,
                           message=f"Ran `{node}` to its end; back in the parent graph. F5 continues.")
        run = await self.ensure_run()
        stops = _Stops(self, target)
        await run.drive(stops)  # the engine's one driver; the breakpoints are its hooks
        return stops.outcome or self._end_of(run, stops.nodes)

    async def resume(self, value: Any, interrupt_id: str | None = None) -> Outcome:
        """Hand `value` to the pending interrupt and run the interrupted node again."""
        if self.graph is None:
            raise Refused("No graph code is loaded: cannot resume a run of a read-only database.")
        if not self.interrupts:
            raise Refused("No interrupt is pending on this thread (it may have been resumed already).")
        waiting = list(self.interrupts)
        if interrupt_id is not None and all(p.interrupt.id != interrupt_id for p in waiting):
            raise Refused(f"The interrupt {interrupt_id} is no longer pending; it may have been resumed already.")
        if len(waiting) > 1 and interrupt_id is not None:
            resume: Any = {interrupt_id: value}
        else:
            resume = value
        task_id = next((p.task_id for p in waiting if interrupt_id in (None, p.interrupt.id)), None)
        self.drop_run()
        self.interrupts = []
        try:
            run = await self._start(Command(resume=resume), self._config(at_head=True))
        except Exception:
            self.interrupts = waiting  # nothing was resumed: keep showing them
            raise
        if run.status != "ready":
            return self._end_of(run, ())
        return await self.step_node(task_id)

    # -- stepping into a subgraph ------------------------------------------------------
    async def step_into(self) -> Outcome:
        """F11: run the next task with the gate, so that the inner moves of a subgraph node,
        or of a graph its code invokes (a deep agent's subagent, run by its `task` tool),
        are stepped one by one; a task that runs no graph ends as with step_node."""
        if self.inside is not None:
            return await self._inner_move()
        run = await self.ensure_run()
        task = run.pending[0] if run.pending else None
        if task is None:
            return await self.step_node()
        # any node: a subgraph node parks at its first inner move, and so does a node whose
        # code invokes a graph (a tool running a subagent); a node that invokes none just runs
        self.gate = InnerGate()
        run.set_options(gate=self.gate)
        self.inside = task.name
        self._outer = asyncio.ensure_future(run.run_task(task.id))
        return await self._until_parked(entered=True)

    async def _until_parked(self, *, entered: bool = False) -> Outcome:
        """Wait until the child parks before its next move, or the subgraph's task ends."""
        assert self.gate is not None and self._outer is not None
        node = self.inside or ""
        while True:
            parked = asyncio.ensure_future(self.gate.parked.wait())
            try:
                await asyncio.wait({parked, self._outer}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                parked.cancel()
            if self._outer.done():
                return self._finish_inside()
            child = self.gate.child
            # a commit right after the superstep's last task: take it too, as the outer F10 does
            if not entered and child is not None and child.ready_to_commit and not child.pending:
                self.gate.release()
                continue
            names = tuple(t.name for t in child.pending) if child is not None else ()
            text = f"Inside `{node}`: next {', '.join(names) or 'commit'}; F10 steps, F5 runs it to its end."
            return Outcome(reason="inside", nodes=(node,), message=text)

    async def _inner_move(self) -> Outcome:
        assert self.gate is not None
        self.gate.release()
        return await self._until_parked()

    async def step_out(self) -> Outcome:
        """Shift+F11: run the rest of the subgraph at full speed and finish its task (the
        parent's superstep is committed when it was its last task)."""
        if self.inside is None or self.gate is None or self._outer is None:
            return Outcome(reason="stepped")
        self.gate.run_free()
        await asyncio.wait({self._outer})
        return self._finish_inside()

    def _finish_inside(self) -> Outcome:
        outer, node, run = self._outer, self.inside or "", self.run
        self._leave_inside(cancel=False)
        assert outer is not None and run is not None
        outer.result()  # a CancelledError or an engine error propagates to the command
        if run.status != "ready" or self._failed(run):
            return self._end_of(run, (node,))
        self._commit_if_ready(run)
        return self._end_of(run, (node,))

    def _leave_inside(self, *, cancel: bool) -> None:
        if self.run is not None:
            self.run.set_options(gate=None)
        if cancel and self.gate is not None:
            self.gate.stop()
        if cancel and self._outer is not None and not self._outer.done():
            self._outer.cancel()
        self.gate, self.inside, self._outer = None, None, None

    def cancel(self) -> None:
        """Stop the run: nothing more is planned or committed; what was saved stays."""
        self.drop_run()


class _Stops(DriveHooks):
    """`continue_`'s breakpoints as the engine driver's hooks: each returns True to stop
    the drive, with `outcome` saying why (None: the run ended on its own)."""

    def __init__(self, driver: RunDriver, target: str | None) -> None:
        self.driver, self.target = driver, target
        self.first = True
        """The superstep the run is paused at now: its breakpoints are passed."""
        self.conditions: Any = driver.conditions if driver.conditions is not None and driver.conditions.items \
            else None
        self.outcome: Outcome | None = None
        self.nodes: tuple[str, ...] = ()
        self.before_values: dict[str, Any] = {}

    def stop(self, outcome: Outcome) -> bool:
        self.outcome = outcome
        return True

    def on_condition(self, nodes: tuple[str, ...], why: str, where: str) -> Outcome:
        """A conditional breakpoint's stop: its expression and the value it gave."""
        text, value = self.conditions.hit or ("", "")
        return Outcome(reason="breakpoint", nodes=nodes, message=why, where=where, condition=text, value=value)

    async def before_superstep(self, run: RunHandle) -> bool:
        driver, conditions = self.driver, self.conditions
        due = {t.name for t in run.pending}
        self.nodes = tuple(t.name for t in run.pending)
        self.before_values = run.values
        if not self.first:
            if self.target is not None and self.target in due:
                return self.stop(Outcome(reason="target", nodes=(self.target,),
                                         message=f"Reached `{self.target}`: it runs next."))
            hit = tuple(sorted(due & driver.before))
            if hit:
                return self.stop(Outcome(reason="breakpoint", nodes=hit, where="before",
                                         message=f"Breakpoint before {', '.join(hit)}."))
        if conditions is not None:
            if self.first:
                conditions.prime(run.values)
            elif why := conditions.before_tasks(run.values, tuple(due)):
                return self.stop(self.on_condition(tuple(sorted(due)), why, "before"))
        if driver.pause_requested:
            return self.stop(Outcome(reason="paused", message="Paused."))
        return False

    async def after_tasks(self, run: RunHandle) -> bool:
        if self.driver._failed(run):
            return self.stop(self.driver._end_of(run, self.nodes))
        if self.conditions is not None and not run.pending and (why := self.conditions.before_commit(
                [(r.task.name, k) for r in run.results.values() for k, _ in r.writes])):
            return self.stop(self.on_condition(self.nodes, why, "before"))
        return False

    async def after_commit(self, run: RunHandle, committed: StepCommitted | None) -> bool:
        driver = self.driver
        driver._committed = committed
        nodes = committed.nodes_ran if committed is not None else self.nodes
        self.nodes = nodes
        if run.status != "ready":
            return False  # the drive ends; continue_ reports how
        after = tuple(sorted(set(nodes) & driver.after))
        if after:
            return self.stop(Outcome(reason="breakpoint", nodes=after, where="after",
                                     message=f"Breakpoint after {', '.join(after)}."))
        if self.conditions is not None and committed is not None and (why := self.conditions.after_commit(
                self.before_values, committed.values, nodes, {d.key: [w.node for w in d.writes] for d in committed.diffs})):
            return self.stop(self.on_condition(nodes, why, "after"))
        if driver.pause_requested:
            return self.stop(Outcome(reason="paused", message="Paused."))
        self.first = False
        await asyncio.sleep(0)  # let the window repaint between supersteps
        return False
