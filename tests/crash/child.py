"""The process the harness kills: drives the graph to the end on a SQLite file, reporting
each committed checkpoint and each finished task to the parent as it observes them.

Messages (tuples on a multiprocessing pipe; each is far below PIPE_BUF, so a SIGKILL
never leaves half of one in the pipe):

- `("ckpt", checkpoint_id, parent_id, step, log_size)`: the stream reported a superstep
  committed (the checkpoint is saved before the event is emitted);
- `("start", task_id)`: a task is about to run (only to count events for kill points);
- `("done", task_id, log_size)`: a task finished without error or interrupt (its writes
  were handed to `put_writes` before the event, when the engine saves them);
- `("finished",)`, or `("error", text)`.

`log_size` is the size of the execution log when the event was observed: an execution
logged at an offset at or after it started after the event.
"""
from __future__ import annotations

import os
import traceback
from typing import Any

from engine import Command, ResumeError, SqliteSaver
from engine.checkpoint import ERROR, INTERRUPT, RESUME

from . import graph_under_test as gut

MAX_RUNS = 4 * gut.ROUNDS + 8
"""stream() calls one process may make; more means the run stopped making progress."""


def _log_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


class _DroppingSaver(SqliteSaver):
    """Sabotage for the harness's self-test: loses the state writes of finished tasks
    (keeping interrupts), so tasks reported saved run again."""

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Any) -> None:
        kept = [w for w in writes if w.channel in (INTERRUPT, RESUME, ERROR)]
        if kept:
            super().save_writes(thread_id, checkpoint_id, kept)


def drive(db_path: str, log_path: str, send: Any, *, sabotage: bool = False) -> None:
    """Start, continue or resume the thread until it is done; report events via `send`."""
    gut.LOG_PATH = log_path
    if db_path.startswith("postgresql://"):  # the same harness on the engine's PostgresSaver
        from engine.checkpoint import PostgresSaver

        saver: Any = PostgresSaver(db_path)
    else:
        saver = (_DroppingSaver if sabotage else SqliteSaver)(db_path)
    try:
        graph = gut.build(saver)
        config = {"configurable": {"thread_id": gut.THREAD_ID}}
        for _ in range(MAX_RUNS):
            state = graph.get_state(config)
            if state.created_at is None:
                run_input: Any = gut.initial_input()
            elif not state.tasks:  # not `next`: it omits tasks whose writes are saved
                send(("finished",))
                return
            elif state.interrupts:
                run_input = Command(resume=gut.answer_for(state.interrupts[0].value))
            else:
                run_input = None
            try:
                for chunk in graph.stream(run_input, config, stream_mode="debug"):
                    _report(chunk, send, log_path)
            except ResumeError:
                # Engine bug (xfail in tests/test_crash.py): after a kill between a resumed
                # task's saved writes and the commit, get_state() still lists the answered
                # interrupt. The run fails at start, before any task, so continue plainly.
                if not isinstance(run_input, Command):
                    raise
                for chunk in graph.stream(None, config, stream_mode="debug"):
                    _report(chunk, send, log_path)
        send(("error", f"the run made no progress after {MAX_RUNS} stream() calls"))
    finally:
        saver.close()


def _report(chunk: dict[str, Any], send: Any, log_path: str) -> None:
    kind, payload = chunk["type"], chunk["payload"]
    if kind == "checkpoint":
        parent = payload["parent_config"]
        send(("ckpt", payload["config"]["configurable"]["checkpoint_id"],
              parent["configurable"]["checkpoint_id"] if parent else None,
              payload["metadata"]["step"], _log_size(log_path)))
    elif kind == "task":
        send(("start", payload["id"]))
    elif kind == "task_result" and payload["error"] is None and not payload["interrupts"]:
        send(("done", payload["id"], _log_size(log_path)))


def main(db_path: str, log_path: str, sabotage: bool, conn: Any) -> None:
    """Entry point in the forked child; never raises (errors go to the parent)."""
    try:
        drive(db_path, log_path, conn.send, sabotage=sabotage)
    except Exception:  # noqa: BLE001 -- reported, not printed: the parent owns the output
        conn.send(("error", traceback.format_exc()[-3000:]))
    finally:
        conn.close()
