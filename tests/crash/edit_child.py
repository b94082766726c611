"""The process the edit kill harness kills: does the ops of tests/crash/edit_graph.py on one
thread, going on from whatever the store holds, and tells the parent about every save.

Messages (small tuples on a pipe, so a SIGKILL never leaves half of one):

- `("op", k, kind)`: op k starts or goes on (`run`, `update`, `fork`, `continue`);
- `("put_<source>", checkpoint_id)`: the saver is about to write that checkpoint
  (`put_update`, `put_fork`, `put_loop`, `put_input`);
- `("stored", checkpoint_id)`: `put()` returned: it is committed (the parent holds the
  store to every one of these);
- `("finished",)`, or `("error", text)`.
"""
from __future__ import annotations

import traceback
from typing import Any

from engine import SqliteSaver

from . import edit_graph as eg

MAX_MOVES = 3 * eg.OPS + 8


def _reporting(base: type, send: Any) -> type:
    class Reporting(base):  # type: ignore[misc, valid-type]
        def save(self, checkpoint: Any, **kwargs: Any) -> None:
            send((f"put_{checkpoint.source}", checkpoint.id))
            super().save(checkpoint, **kwargs)
            send(("stored", checkpoint.id))

    return Reporting


def open_saver(db: str, send: Any | None = None) -> Any:
    """The store under test (a SQLite file or a postgresql:// URL), reporting its puts."""
    if db.startswith("postgresql://"):
        from engine.checkpoint import PostgresSaver

        base: type = PostgresSaver
    else:
        base = SqliteSaver
    return (_reporting(base, send) if send is not None else base)(db)


def _move(graph: Any, saver: Any, send: Any) -> bool:
    """One op, or the rest of an unfinished one; False when every op is done."""
    history = list(saver.history(eg.THREAD_ID))
    if not history:
        send(("op", 0, "run"))
        graph.invoke(eg.INPUT, eg.op_config(0))
        return True
    head = history[0]
    if head.tasks:  # a run (or an update's follow-up) that a kill cut short
        send(("op", eg.op_of(head), "continue"))
        graph.invoke(None, eg.op_config(eg.op_of(head)))
        return True
    op = max(eg.op_of(c) for c in history) + 1
    if op >= eg.OPS:
        return False
    if op % 2:
        send(("op", op, "update"))
        values, as_node = eg.update_for(op)
        graph.update_state(eg.op_config(op, head.id), values, as_node=as_node)
    else:
        send(("op", op, "fork"))
        graph.invoke(None, eg.op_config(op, eg.fork_target(history, op).id))
    return True


def drive(db: str, send: Any) -> None:
    saver = open_saver(db, send)
    try:
        graph = eg.build(saver)
        for _ in range(MAX_MOVES):
            if not _move(graph, saver, send):
                send(("finished",))
                return
        send(("error", f"the ops were not done after {MAX_MOVES} moves"))
    finally:
        saver.close()


def main(db: str, conn: Any) -> None:
    """Entry point in the forked child; never raises (errors go to the parent)."""
    try:
        drive(db, conn.send)
    except Exception:  # noqa: BLE001 -- reported, not printed: the parent owns the output
        conn.send(("error", traceback.format_exc()[-3000:]))
    finally:
        conn.close()
