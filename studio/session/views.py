"""The session's time-travel commands: view, rewind, edit-and-fork and compare checkpoints.

A mixin of `Session` (kept apart to keep each module small). Viewing reads through the
`CheckpointReader` on its worker thread and never touches the Run; rewind and
edit-and-fork move the head, so the next step forks a new branch and keeps the old one.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from engine import Overwrite, add_messages
from engine.checkpoint import ERROR, INTERRUPT

from studio.core import convert
from studio.core.records import CompareView, ErrorView
from studio.core.viewmodel import GraphMarks

if TYPE_CHECKING:
    from .session import Session

__all__ = ["SessionViews"]

log = logging.getLogger(__name__)


class SessionViews:
    """Select, back/forward, rewind, edit-and-fork, compare (mixed into Session)."""

    def _schedule_view(self: Session, coro: Awaitable[Any]) -> None:
        """Run a viewing coroutine; a newer one replaces one still loading (but never
        cancels a graph file's import: the view runs after it)."""
        task = self._view_task
        if task is not None and not task.done() and task is not self._load_task:
            task.cancel()
        self._view_task = asyncio.ensure_future(self._viewing(coro))

    async def _viewing(self: Session, coro: Awaitable[Any]) -> None:
        try:
            await self._wait_for_load()
            await coro
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            log.debug("viewing failed", exc_info=True)
            self._set_error(ErrorView(kind="database", title="Could not read the checkpoint",
                                      message=f"{type(exc).__name__}: {exc}"))

    def _reducers(self: Session) -> dict[str, str]:
        if self.graph is None:
            return {}
        return {k: ch.reducer_name for k, ch in self.graph.schema.channels.items()}

    async def _show_checkpoint(self: Session, checkpoint_id: str | None, *, live: bool) -> None:
        """Load a checkpoint and show its state, its diff vs its parent, and its marks."""
        if checkpoint_id is None or self.reader is None or self.thread_id is None:
            return
        ckpt, parent, pending = await self.reader.checkpoint_and_parent(self.thread_id, checkpoint_id)
        if ckpt is None:
            self.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
            return
        diff = self._diffs.get(ckpt.id)
        if diff is None:
            diff = convert.diff_from_values(
                step=ckpt.step, checkpoint_id=ckpt.id, before=parent.values if parent is not None else None,
                after=ckpt.values, nodes=ckpt.nodes_ran, reducers=self._reducers())
        values = dict(ckpt.values)
        if live:
            self.viewed_id = None
            self._values = values
            self._adopt_pending(ckpt, pending)
        else:
            self.viewed_id = ckpt.id
        self.stateChanged.emit(values)
        self.diffChanged.emit(diff)
        self.viewChanged.emit(ckpt.id)
        if live:
            self._emit_marks()
        else:
            trail = [n for cid in reversed(self.history.ancestors(ckpt.id, limit=4))
                     for n in (self.history.get(cid).nodes if self.history.get(cid) else ()) if n != "__start__"]
            failed = frozenset(w.task_name for w in pending if w.channel == ERROR)
            asked = frozenset(w.task_name for w in pending if w.channel == INTERRUPT)
            before, after = self.breakpoints
            self.marksChanged.emit(GraphMarks(
                next=frozenset(ckpt.next) - asked, trail=tuple(trail[-8:]), failed=failed, interrupted=asked,
                breakpoints_before=before, breakpoints_after=after, selected=self.selected_node,
                taken_edges=frozenset(self._taken)))
        self._emit_status()

    def _adopt_pending(self: Session, ckpt: Any, pending: list[Any]) -> None:
        """At the head: show the interrupts and the error a saved run stopped with."""
        from studio.core.driver import PendingInterrupt

        if self._pending_events:
            self._pending_events = False
            self.eventsAdded.emit(convert.pending_events(ckpt.step + 1, pending, error_channel=ERROR,
                                                          interrupt_channel=INTERRUPT))
        if self.run is None or self.run.status != "ready":
            self.driver.interrupts = [PendingInterrupt(task_id=w.task_id, node=w.task_name, interrupt=w.value)
                                      for w in pending if w.channel == INTERRUPT]
            self._emit_interrupts()
            errors = [w for w in pending if w.channel == ERROR]
            if errors and self.error is None:
                err = errors[-1]
                info = err.value if isinstance(err.value, Mapping) else {"message": str(err.value)}
                self._failed = {w.task_name for w in errors}
                code = self.graph is not None
                self._set_error(ErrorView(
                    kind="node" if code else "recorded", node=err.task_name,
                    title=f"Node `{err.task_name}` raised {info.get('type', 'an error')}",
                    message=str(info.get("message", "")), detail=str(info.get("traceback", "")),
                    hint="Fix the code and reload (Ctrl+R), then F10/F5 retries this step." if code else
                         "The recorded run stopped here. To fix it and retry this step, open the database "
                         "with the graph's code: retrograph open DB --graph FILE.py"))
        if not ckpt.next:
            self.status = "done"
        elif self.driver.interrupts:
            self.status = "interrupted"
        elif self.status not in ("failed",):
            self.status = "ready" if self.graph is not None else "read-only"

    # -- public viewing commands -------------------------------------------------------------
    def select_checkpoint(self: Session, checkpoint_id: str | None) -> None:
        """View a checkpoint read-only (its state, diff vs its parent, graph marks)."""
        if checkpoint_id is None or checkpoint_id == self.head_id:
            self._schedule_view(self._show_checkpoint(self.head_id, live=True))
        else:
            self._schedule_view(self._show_checkpoint(checkpoint_id, live=False))

    def back(self: Session) -> None:
        """Ctrl+[: view the parent of the viewed checkpoint."""
        target = self.history.back(self.viewed_id or self.head_id)
        if target is None:
            self.message.emit("This is the first checkpoint of the thread.")
            return
        self.select_checkpoint(target)

    def forward(self: Session) -> None:
        """Ctrl+]: view the next checkpoint towards the head."""
        viewed = self.viewed_id or self.head_id
        target = self.history.forward(viewed, self.head_id)
        if target is None:
            self.message.emit("This is the newest checkpoint of this branch.")
            return
        self.select_checkpoint(target)

    def rewind(self: Session, checkpoint_id: str) -> None:
        """Make `checkpoint_id` the head: the next step forks a new branch from it."""
        if self.busy:
            self.message.emit("Stop the running command before rewinding (Shift+F5).")
            return
        if checkpoint_id not in self.history:
            self.message.emit(f"Unknown checkpoint {checkpoint_id}.")
            return
        self.driver.drop_run()
        self.driver.interrupts = []
        self.driver.head_id = checkpoint_id
        self._reset_marks()
        self.headChanged.emit(checkpoint_id)
        row = self.history.get(checkpoint_id)
        self.status = "ready"
        self._schedule_view(self._show_checkpoint(checkpoint_id, live=True))
        if row is not None and row.id != self.history.latest_id:
            self.message.emit(f"Rewound to step {row.step}: the next step forks a new branch; the old one stays.")

    def edit_and_fork(self: Session, checkpoint_id: str, values: Mapping[str, Any], as_node: str | None = None) -> None:
        """Apply the edited state to `checkpoint_id` through update_state; the result is the head."""
        if self.busy:
            self.message.emit("Stop the running command before editing the state (Shift+F5).")
            return
        self._schedule_view(self._edit_and_fork(checkpoint_id, dict(values), as_node))

    def _edit_updates(self: Session, old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
        """The update that turns `old` into `new`. Writes go through the keys' reducers, so
        a key with a reducer gets its appended tail when the edit only appends (history stays
        compact) and an `Overwrite` of the whole value for any other edit."""
        channels = self.graph.schema.channels
        unknown = [k for k in new if k not in channels]
        if unknown:
            raise ValueError(f"{', '.join(f'`{k}`' for k in unknown)} not in the state schema "
                             f"(keys: {', '.join(channels)})")
        update: dict[str, Any] = {}
        for key, value in new.items():
            before = old.get(key, convert.UNSET)
            if convert._same(before, value):
                continue
            reducer = channels[key].reducer_name
            if reducer == "last value":
                update[key] = value
            elif isinstance(value, list) and isinstance(before, list) and len(value) > len(before) \
                    and convert._same(value[: len(before)], before):
                update[key] = value[len(before):]
            elif reducer == "add_messages" and isinstance(value, list):
                update[key] = Overwrite(add_messages([], value))  # dicts typed in become messages
            else:
                update[key] = Overwrite(value)
        return update

    async def _edit_and_fork(self: Session, checkpoint_id: str, values: dict[str, Any], as_node: str | None) -> None:
        if self.graph is None or self.reader is None or self.thread_id is None:
            self.message.emit("Editing the state needs the graph's code (open with --graph FILE).")
            return
        ckpt = await self.reader.checkpoint(self.thread_id, checkpoint_id)
        if ckpt is None:
            self.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
            return
        try:
            update = self._edit_updates(ckpt.values, values)
        except ValueError as exc:
            self._set_error(ErrorView(kind="input", title="Cannot apply this edit", message=str(exc)))
            return
        if not update:
            self.message.emit("Nothing changed: no fork was made.")
            return
        if as_node is None and len(ckpt.nodes_ran) > 1:
            as_node = ckpt.nodes_ran[0]
        config = {"configurable": {"thread_id": self.thread_id, "checkpoint_id": checkpoint_id}}
        graph = self.graph
        try:  # off the UI thread: it reads and writes a checkpoint, which may be big
            new_config = await asyncio.get_running_loop().run_in_executor(
                None, lambda: graph.update_state(config, update, as_node=as_node))
        except Exception as exc:
            self._set_error(ErrorView(kind="input", title="update_state refused the edit",
                                      message=f"{type(exc).__name__}: {exc}"))
            return
        new_id = new_config["configurable"]["checkpoint_id"]
        created = await self.reader.checkpoint(self.thread_id, new_id)
        if created is not None:
            row = convert.timeline_row(created)
            if self.history.add(row):
                self.timelineRowAdded.emit(row)
        self.driver.drop_run()
        self.driver.interrupts = []
        self.driver.head_id = new_id
        self._reset_marks()
        self.headChanged.emit(new_id)
        self.status = "ready"
        await self._show_checkpoint(new_id, live=True)
        how = ", ".join(f"{k} (replaced)" if isinstance(v, Overwrite) else k for k, v in update.items())
        self.message.emit(f"Edited {how} on a new branch (source: update); F10 goes on from it.")

    def fetch_values(self: Session, checkpoint_id: str, callback: Callable[[dict[str, Any]], None]) -> None:
        """Read a checkpoint's values off the UI thread, then call `callback(values)` from
        the loop (outside any asyncio task, so the callback may open a modal dialog)."""

        async def read() -> None:
            assert self.reader is not None and self.thread_id is not None
            ckpt = await self.reader.checkpoint(self.thread_id, checkpoint_id)
            if ckpt is None:
                self.message.emit(f"Checkpoint {checkpoint_id} is not in the database.")
                return
            values = dict(ckpt.values)
            # a plain loop callback, outside this task, so that it may open a modal dialog
            asyncio.get_running_loop().call_soon(callback, values)

        self._schedule_view(read())

    def compare(self: Session, left_id: str, right_id: str) -> None:
        """The difference between two checkpoints of the thread (any two, any branches)."""
        self._schedule_view(self._compare(left_id, right_id))

    async def _compare(self: Session, left_id: str, right_id: str) -> None:
        assert self.reader is not None and self.thread_id is not None
        left = await self.reader.checkpoint(self.thread_id, left_id)
        right = await self.reader.checkpoint(self.thread_id, right_id)
        if left is None or right is None:
            self.message.emit("One of the two checkpoints is not in the database.")
            return
        diff = convert.diff_from_values(step=right.step, checkpoint_id=right.id, before=left.values,
                                        after=right.values, nodes=(), reducers=self._reducers())
        self.compareReady.emit(CompareView(left_id=left.id, right_id=right.id, left_values=dict(left.values),
                                           right_values=dict(right.values), diff=diff))
