"""Recording a run (config["record"], as the studio and `run --db` do) must not lower the
nesting limit: a node's write kept in the task record counts its own depth, not the
levels of the record around it."""
from __future__ import annotations

from typing import Any, TypedDict

import pytest

from engine import StateGraph
from engine.checkpoint.memory import InMemorySaver
from engine.checkpoint.serde import MAX_DEPTH
from engine.checkpoint.sqlite import SqliteSaver
from engine.errors import SerializationError


class S(TypedDict, total=False):
    x: Any


def _nested(levels: int) -> Any:
    v: Any = 1
    for _ in range(levels):
        v = {"a": v}
    return v


def _depth(v: Any) -> int:
    n = 0
    while isinstance(v, dict):
        v, n = v["a"], n + 1
    return n


def _app(saver: Any, levels: int) -> Any:
    g = StateGraph(S)
    g.add_node("n", lambda s: {"x": _nested(levels)})
    g.set_entry_point("n")
    g.set_finish_point("n")
    return g.compile(checkpointer=saver)


@pytest.fixture(params=["sqlite", "memory"])
def saver(request: Any, tmp_path: Any) -> Any:
    if request.param == "sqlite":
        s = SqliteSaver(str(tmp_path / "d.db"))
        yield s
        s.close()
    else:
        yield InMemorySaver()


@pytest.mark.parametrize("levels", [95, MAX_DEPTH])
def test_recorded_write_nested_up_to_the_limit_is_kept_and_read_back(saver: Any, levels: int) -> None:
    app = _app(saver, levels)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({}, {**config, "record": True})
    assert _depth(app.get_state(config).values["x"]) == levels
    recorded = [h.metadata["record"] for h in app.get_state_history(config) if h.metadata.get("record")]
    write = next(w for rec in recorded for task in rec for w in task["writes"] if w[0] == "x")
    assert _depth(write[1]) == levels


@pytest.mark.parametrize("record", [False, True])
def test_over_the_limit_fails_the_same_with_or_without_record(saver: Any, record: bool) -> None:
    app = _app(saver, MAX_DEPTH + 1)
    with pytest.raises(SerializationError, match=f"nested more than {MAX_DEPTH} levels"):
        app.invoke({}, {"configurable": {"thread_id": "t"}, "record": record})


def test_export_redacts_a_secret_at_the_bottom_of_a_write_at_the_limit(tmp_path: Any) -> None:
    """The record's wrapper levels must not carry a deep secret past the redactor."""
    from engine.checkpoint.export import export_thread

    def deep_secret(levels: int) -> Any:
        v: Any = {"token": "sk-deep-secret"}
        for _ in range(levels - 1):
            v = {"a": v}
        return v

    src = SqliteSaver(str(tmp_path / "src.db"))
    g = StateGraph(S)
    g.add_node("n", lambda s: {"x": deep_secret(MAX_DEPTH - 1)})
    g.set_entry_point("n")
    g.set_finish_point("n")
    g.compile(checkpointer=src).invoke({}, {"configurable": {"thread_id": "t"}, "record": True})
    out = tmp_path / "out.db"
    export_thread(src, "t", str(out), redact=["token"])
    src.close()
    assert b"sk-deep-secret" not in out.read_bytes()
