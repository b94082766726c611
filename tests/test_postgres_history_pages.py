"""`retrograph history --values` on PostgreSQL reads a page of checkpoints with their
values in a few queries (counted here, the time is a bench row), not one or two queries
per checkpoint; the values are those `get()` reads one by one, an unreadable one is named."""
from __future__ import annotations

import io
import json
import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, StateGraph
from engine.checkpoint import PostgresSaver
from studio.cli.commands import parse_args
from studio.cli.history import cmd_history


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _saved(url: str, steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"log": [f"line {s['n']}"], "n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else END, ["step", END])
    saver = PostgresSaver(url)
    g.compile(checkpointer=saver).invoke({"log": [], "n": 0}, {"configurable": {"thread_id": "t"},
                                                              "recursion_limit": steps + 10})
    return saver


def test_values_come_a_page_at_a_time(pg_url: str, monkeypatch) -> None:
    saver = _saved(pg_url, 450)
    ids = [h.id for h in saver.list_headers("t")]
    assert len(ids) == 452
    batch = saver.get_many("t", ids[:300])
    assert all(batch[cid] == saver.load("t", cid) for cid in ids[:300])
    saver.close()

    calls = {"get": 0, "get_many": 0, "queries": 0}
    real_get, real_many = PostgresSaver.get, PostgresSaver.get_many

    def counted_get(self: Any, *a: Any, **k: Any) -> Any:
        calls["get"] += 1
        return real_get(self, *a, **k)

    def counted_many(self: Any, *a: Any, **k: Any) -> Any:
        calls["get_many"] += 1
        return real_many(self, *a, **k)

    monkeypatch.setattr(PostgresSaver, "get", counted_get)
    monkeypatch.setattr(PostgresSaver, "get_many", counted_many)
    out, err = io.StringIO(), io.StringIO()
    assert cmd_history(parse_args(["history", pg_url, "--thread", "t", "--json", "--values"]), out=out, err=err) == 0
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["checkpoint_id"] for r in rows] == ids
    assert rows[0]["values"] == {"log": [f"line {i}" for i in range(450)], "n": 450}
    assert calls["get"] == 0 and calls["get_many"] == 3  # 452 checkpoints: pages of 200


def test_list_reads_pages_too(pg_url: str) -> None:
    saver = _saved(pg_url, 120)
    listed = list(saver.history("t"))
    assert [c.id for c in listed] == [h.id for h in saver.list_headers("t")]
    assert listed[0].values["n"] == 120
    assert listed == [saver.load("t", c.id) for c in listed]  # as one by one
    saver.close()
