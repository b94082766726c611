"""Older LangGraph code (and its migration data) calls `put_writes` for a checkpoint before
`put` stores it: the writes are kept and attached when the checkpoint arrives, on every
saver; a checkpoint that never arrives leaves nothing in the store."""
from __future__ import annotations

from engine import InMemorySaver, SqliteSaver
from engine.checkpoint.base import uuid6


def checkpoint(cid: str) -> dict:
    return {"v": 4, "id": cid, "ts": "2025-01-01T00:00:00+00:00", "channel_values": {"a": 1},
            "channel_versions": {"a": "1"}, "versions_seen": {}}


def test_writes_put_before_their_checkpoint_are_attached_to_it(tmp_path) -> None:
    for saver in (InMemorySaver(), SqliteSaver(str(tmp_path / "c.sqlite"))):
        cid = str(uuid6())
        cfg = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": cid}}
        saver.put_writes(cfg, [("a", 2)], "task-1")
        saver.put_writes(cfg, [("a", 2)], "task-1")  # the same write again: kept once
        assert saver.get_tuple(cfg) is None
        saver.put({"configurable": {"thread_id": "t", "checkpoint_ns": ""}}, checkpoint(cid), {"step": 0}, {"a": "1"})
        got = saver.get_tuple(cfg)
        assert got is not None and got.pending_writes == [("task-1", "a", 2)]
        assert "__langgraph_form__" not in got.metadata
