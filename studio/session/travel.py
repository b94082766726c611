"""Time travel: view, rewind, edit-and-fork and compare checkpoints.

Viewing reads through the `CheckpointReader` on its worker thread and never touches the
Run; rewind and edit-and-fork move the head, so the next step forks a new branch and
keeps the old one.
"""
from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from engine.checkpoint import ERROR, INTERRUPT
from engine.checkpoint.ids import ns_thread_key
from studio.core import convert
from studio.core.stops import interrupt_stop
from studio.core.driver import PendingInterrupt
from studio.core.dryrun import run_in_slot
from studio.core.edits import EditHow, EditPlanner, plan_edit
from studio.core.funcview import shown_values
from studio.core.records import Comparison, ErrorReport, GraphMarks
from studio.core.state import TRAIL, SessionState, ran_nodes, task_counts

from .presenter import Presenter
from .signals import SessionSignals
from .tasks import ViewTasks

__all__ = ["TimeTravel"]


class TimeTravel:
    """Select, back/forward, rewind, edit-and-fork, compare."""

    def __init__(self, state: SessionState, signals: SessionSignals, presenter: Presenter,
                 tasks: ViewTasks, submit: Callable[[str, Callable[[], Awaitable[Any]]], bool]) -> None:
        self.state = state
        self.signals = signals
        self.presenter = presenter
        self.tasks = tasks
        self.submit = submit
        """The session's command guard: run a command, one at a time."""

    async def show_checkpoint(self, checkpoint_id: str | None, *, live: bool) -> None:
        """Load a checkpoint and show its state, its diff vs its parent, and its marks."""
        s = self.state
        if checkpoint_id is None or s.reader is None or s.thread_id is None:
            return
        sub = s.history.subgraph_row(checkpoint_id)
        if sub is not None:
            await self._show_subgraph_checkpoint(sub.id, sub.namespace)
            return
        ckpt, parent, pending = await s.reader.checkpoint_and_parent(s.thread_id, checkpoint_id)
        if ckpt is None:
            self.signals.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
            return
        ran = () if ckpt.source == "fork" else ckpt.nodes_ran  # a fork copies; nothing ran
        diff = s.diffs.get(ckpt.id)
        if diff is None:
            diff = convert.diff_from_values(
                step=ckpt.step, checkpoint_id=ckpt.id,
                before=shown_values(parent.values) if parent is not None else None,
                after=shown_values(ckpt.values), nodes=ran, reducers=s.reducers(), source=ckpt.source)
        values = dict(shown_values(ckpt.values))  # an @entrypoint's: what it returned, as get_state() gives
        if live:
            s.viewed_id = None
            s.values = values
            self._adopt_pending(ckpt, pending)
        else:
            s.viewed_id = ckpt.id
        self.signals.stateChanged.emit(values)
        await asyncio.sleep(0)  # the state, the diff and the graph's marks: each repaints in a turn of its own
        self.signals.diffChanged.emit(diff)
        await asyncio.sleep(0)
        self.signals.viewChanged.emit(ckpt.id)
        if live:
            self.presenter.emit_marks()
        else:
            await asyncio.sleep(0)  # the timeline's selection repaints apart from the graph's marks
            self.signals.marksChanged.emit(self._viewed_marks(ckpt, pending, ran))
        self.presenter.emit_status()

    def _viewed_marks(self, ckpt: Any, pending: list[Any], ran: Any) -> GraphMarks:
        """The graph's marks for a checkpoint viewed read-only: what it plans next, the trail
        of the few steps before it, the tasks that failed or asked there."""
        s = self.state
        rows = [s.history.get(cid) for cid in reversed(s.history.ancestors(ckpt.id, limit=4))]
        trail = [n for row in rows if row is not None for n in ran_nodes(row.nodes)]
        failed = frozenset(w.task_name for w in pending if w.channel == ERROR)
        asked = frozenset(w.task_name for w in pending if w.channel == INTERRUPT)
        before, after = s.breakpoints
        return GraphMarks(
            next=frozenset(ckpt.next) - asked, trail=tuple(trail[-TRAIL:]), failed=failed, interrupted=asked,
            last_ran=frozenset(ran_nodes(ran)),
            breakpoints_before=before, breakpoints_after=after, selected=s.selected_node,
            taken_edges=frozenset(s.taken), tasks=task_counts(ckpt.next, ()),
            ended=not ckpt.next and ckpt.source != "input")

    async def _show_subgraph_checkpoint(self, checkpoint_id: str, namespace: str) -> None:
        """A subgraph's checkpoint, read-only: its state and its diff vs its parent in the
        subgraph's namespace. The head and the graph's marks stay the thread's."""
        s = self.state
        assert s.reader is not None and s.thread_id is not None
        key = ns_thread_key(s.thread_id, namespace)
        ckpt, parent, _pending = await s.reader.checkpoint_and_parent(key, checkpoint_id)
        if ckpt is None:
            self.signals.message.emit(f"Subgraph checkpoint {checkpoint_id} is not in the database.")
            return
        diff = convert.diff_from_values(
            step=ckpt.step, checkpoint_id=ckpt.id, before=parent.values if parent is not None else None,
            after=ckpt.values, nodes=ckpt.nodes_ran, reducers={}, source=ckpt.source)
        s.viewed_id = ckpt.id
        self.signals.stateChanged.emit(dict(ckpt.values))
        self.signals.diffChanged.emit(diff)
        self.signals.viewChanged.emit(ckpt.id)
        self.presenter.emit_status()

    def _adopt_pending(self, ckpt: Any, pending: list[Any]) -> None:
        """At the head: show the interrupts and the error a saved run stopped with."""
        s, p = self.state, self.presenter
        if s.history.children(ckpt.id):
            # its superstep went on (or was forked): the interrupts and errors stored under
            # it were answered or retried there; a run from here asks and fails afresh
            pending = []
        if s.pending_events:
            s.pending_events = False
            self.signals.eventsAdded.emit(convert.pending_events(ckpt.step + 1, pending, error_channel=ERROR,
                                                                 interrupt_channel=INTERRUPT))
        run = s.driver.run
        if run is None or run.status != "ready":
            s.driver.adopt_interrupts([PendingInterrupt(task_id=w.task_id, node=w.task_name, interrupt=w.value)
                                       for w in pending if w.channel == INTERRUPT])
            p.emit_interrupts()
            if s.driver.interrupts and not s.busy:  # a saved run waiting at an interrupt: say so
                self.signals.stopChanged.emit(interrupt_stop([(w.node, w.interrupt.value) for w in s.driver.interrupts]))
            errors = [w for w in pending if w.channel == ERROR]
            if errors and s.error is None:
                err = errors[-1]
                info = err.value if isinstance(err.value, Mapping) else {"message": str(err.value)}
                s.failed = {w.task_name for w in errors}
                code = s.graph is not None
                p.set_error(ErrorReport(
                    kind="node" if code else "recorded", node=err.task_name,
                    title=f"Node `{err.task_name}` raised {info.get('type', 'an error')}",
                    message=str(info.get("message", "")), detail=str(info.get("traceback", "")),
                    hint="Fix the code and reload (Ctrl+R), then F10/F5 retries this step." if code else
                         "The recorded run stopped here. To fix it and retry this step, open the database "
                         "with the graph's code: retrograph open DB --graph FILE.py"))
        if not ckpt.next:
            s.status = "done"
        elif s.driver.interrupts:
            s.status = "interrupted"
        elif s.status not in ("failed",):
            s.status = "ready" if s.graph is not None else "read-only"

    # -- viewing -----------------------------------------------------------------------
    def select_checkpoint(self, checkpoint_id: str | None) -> None:
        """View a checkpoint read-only (its state, diff vs its parent, graph marks)."""
        head = self.state.head_id
        if checkpoint_id is None or checkpoint_id == head:
            self.tasks.schedule(self.show_checkpoint(head, live=True))
        else:
            self.tasks.schedule(self.show_checkpoint(checkpoint_id, live=False))

    def back(self) -> None:
        """Ctrl+[: view the parent of the viewed checkpoint."""
        s = self.state
        target = s.history.back(s.viewed_id or s.head_id)
        if target is None:
            self.signals.message.emit("This is the first checkpoint of the thread.")
            return
        self.select_checkpoint(target)

    def forward(self) -> None:
        """Ctrl+]: view the next checkpoint towards the head."""
        s = self.state
        target = s.history.forward(s.viewed_id or s.head_id, s.head_id)
        if target is None:
            self.signals.message.emit("This is the newest checkpoint of this branch.")
            return
        self.select_checkpoint(target)

    # -- moving the head ---------------------------------------------------------------
    def _move_head(self, checkpoint_id: str) -> None:
        self.state.driver.move_head(checkpoint_id)
        self.presenter.reset_marks()
        self.signals.headChanged.emit(checkpoint_id)
        self.state.status = "ready"

    def rewind(self, checkpoint_id: str) -> None:
        """Make `checkpoint_id` the head: the next step forks a new branch from it."""
        s = self.state
        if s.busy:
            self.signals.message.emit("Stop the running command before rewinding (Shift+F5).")
            return
        if checkpoint_id not in s.history:
            self.signals.message.emit(f"Unknown checkpoint {checkpoint_id}.")
            return
        if s.read_only:  # nothing can run from it: the head stays (Back/Forward view any step)
            self.signals.message.emit("Read-only: without the graph's code (or on a read-only store) nothing can "
                                      "run from a checkpoint, so there is no rewind; Back/Forward show any step.")
            return
        self._move_head(checkpoint_id)
        row = s.history.get(checkpoint_id)
        self.tasks.schedule(self.show_checkpoint(checkpoint_id, live=True))
        if row is not None and row.id != s.history.latest_id:
            self.signals.message.emit(f"Rewound to step {row.step}: the next step forks a new branch; "
                                      "the old one stays.")

    def edit_and_fork(self, checkpoint_id: str, values: Mapping[str, Any], as_node: str | None = None,
                      how: Mapping[str, EditHow] | None = None) -> None:
        """Write the edited keys (`values`: {key: new value}) onto `checkpoint_id` through
        update_state, as `as_node`'s write (None: a node after which the run goes on), each
        key through its reducer or replaced as `how` says (see studio.core.edits); the new
        checkpoint is the head."""
        if self.state.busy:
            self.signals.message.emit("Stop the running command before editing the state (Shift+F5).")
            return
        self.submit("fork", lambda: self._edit_and_fork(checkpoint_id, dict(values), as_node, dict(how or {})))

    def planner(self, checkpoint_id: str, callback: Callable[[dict[str, Any], Any], None]) -> None:
        """Read a checkpoint off the UI thread, then call `callback(values, planner)` from
        the loop (outside any task, so it may open a modal dialog); the EditPlanner previews
        edits of it by dry runs that save nothing."""
        s = self.state

        async def read() -> None:
            if s.graph is None or s.thread_id is None:
                self.signals.message.emit("Editing the state needs the graph's code (open with --graph FILE).")
                return
            graph, thread = s.graph, s.thread_id
            base = await asyncio.get_running_loop().run_in_executor(
                None, lambda: graph.checkpointer.load(thread, checkpoint_id))
            if base is None:
                self.signals.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
                return
            asyncio.get_running_loop().call_soon(callback, dict(base.values), EditPlanner(graph, base))

        self.tasks.schedule(read())

    async def _edit_and_fork(self, checkpoint_id: str, values: dict[str, Any], as_node: str | None,
                             how: dict[str, EditHow]) -> None:
        try:
            await self._fork(checkpoint_id, values, as_node, how)
        except asyncio.CancelledError:  # Abandon / Stop: the guard is released now
            self.signals.message.emit("Fork abandoned: the graph's code goes on in its thread until it "
                                      "returns, and its result is dropped. The history is unchanged.")
        finally:
            error = self.state.error
            if error is not None and error.kind == "waiting":
                self.presenter.set_error(None)

    def _waiting(self, label: str, seconds: float) -> None:
        """The fork's dry run or save has run past its time: say what, offer to abandon."""
        self.presenter.set_error(ErrorReport(
            kind="waiting", title="Fork waiting",
            message=f"fork waiting: {label} has not returned after {seconds:.{0 if seconds >= 10 else 1}f} s.",
            hint="Abandon (or Stop, Shift+F5) gives this fork up and frees the studio: the code goes on in "
                 "its thread until it returns (Python cannot stop a thread), and its result is dropped."))

    async def _fork(self, checkpoint_id: str, values: dict[str, Any], as_node: str | None,
                    how: dict[str, EditHow]) -> None:
        s, p = self.state, self.presenter
        if s.graph is None or s.reader is None or s.thread_id is None:
            self.signals.message.emit("Editing the state needs the graph's code (open with --graph FILE).")
            return
        graph, thread = s.graph, s.thread_id
        loop = asyncio.get_running_loop()
        base = await loop.run_in_executor(None, lambda: graph.checkpointer.load(thread, checkpoint_id))
        if base is None:
            self.signals.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
            return
        try:  # off the UI thread, abandonable: the dry run calls the graph's reducers and routers
            plan = await run_in_slot(lambda report: plan_edit(graph, base, values, how=how, as_node=as_node,
                                                              on_try=report), on_late=self._waiting)
        except ValueError as exc:
            p.set_error(ErrorReport(kind="input", title="Cannot apply this edit", message=str(exc)))
            return
        if plan.error:
            p.set_error(ErrorReport(kind="input", title="Cannot apply this edit", message=plan.error))
            return
        if not plan.edits:
            self.signals.message.emit("Nothing changed: no fork was made.")
            return
        config = {"configurable": {"thread_id": thread, "checkpoint_id": checkpoint_id}}

        def save(report: Callable[[str], None]) -> Any:
            report(f"saving the edit as `{plan.as_node}` (its routers)")
            return graph.update_state(config, plan.update(), as_node=plan.as_node)

        try:  # it reads and writes a checkpoint, which may be big, and calls the routers again
            new_config = await run_in_slot(save, on_late=self._waiting)
        except Exception as exc:
            p.set_error(ErrorReport(kind="input", title="update_state refused the edit",
                                  message=f"{type(exc).__name__}: {exc}"))
            return
        if s.error is not None and s.error.kind == "waiting":
            p.set_error(None)
        new_id = new_config["configurable"]["checkpoint_id"]
        created = await s.reader.checkpoint(s.thread_id, new_id)
        if created is not None:
            row = convert.timeline_row(created)
            if s.history.add(row):
                self.signals.timelineRowAdded.emit(row)
        self._move_head(new_id)
        # shown as a view (as rewind does): "settled" waits for it, a newer view replaces it
        self.tasks.schedule(self.show_checkpoint(new_id, live=True))
        done = ", ".join(f"{e.key} (replaced)" if e.how == "replace" else
                         f"{e.key} (through {e.reducer})" if e.how == "reduce" else e.key for e in plan.edits)
        self.signals.message.emit(f"Edited {done} on a new branch (source: update, as {plan.as_node}). "
                                  + plan.next_text())

    # -- reading -----------------------------------------------------------------------
    def fetch_values(self, checkpoint_id: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Read a checkpoint's values off the UI thread, then call `callback(values)` from
        the loop (outside any asyncio task, so the callback may open a modal dialog)."""
        s = self.state

        async def read() -> None:
            assert s.reader is not None and s.thread_id is not None
            ckpt = await s.reader.checkpoint(s.thread_id, checkpoint_id)
            if ckpt is None:
                self.signals.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
                return
            values = dict(ckpt.values)
            # a plain loop callback, outside this task, so that it may open a modal dialog
            asyncio.get_running_loop().call_soon(callback, values)

        self.tasks.schedule(read())

    def compare(self, left_id: str, right_id: str) -> None:
        """The difference between two checkpoints of the thread (any two, any branches)."""
        self.tasks.schedule(self._compare(left_id, right_id))

    async def _compare(self, left_id: str, right_id: str) -> None:
        s = self.state
        assert s.reader is not None and s.thread_id is not None
        left = await s.reader.checkpoint(s.thread_id, left_id)
        right = await s.reader.checkpoint(s.thread_id, right_id)
        if left is None or right is None:
            self.signals.message.emit("One of the two checkpoints is not in the database.")
            return
        diff = convert.diff_from_values(step=right.step, checkpoint_id=right.id, before=left.values,
                                        after=right.values, nodes=(), reducers=s.reducers())
        self.signals.compareReady.emit(Comparison(left_id=left.id, right_id=right.id,
                                                   left_values=dict(left.values),
                                                   right_values=dict(right.values), diff=diff,
                                                   left_label=s.history.describe(left.id),
                                                   right_label=s.history.describe(right.id)))
