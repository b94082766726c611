"""Threads put through the saver API in LangGraph's checkpoint form (the current layout and
the older ones: `start:NODE`, `branch:SRC:COND:NODE`, node-named channels, SHA-1 task
ids) are planned as LangGraph plans them: `next` and `tasks` from `channel_versions` and
`versions_seen`, a task's kept writes found under LangGraph's task id, and a resume runs
what is left. The rows are built by hand here, on real SQLite files and in memory."""
from __future__ import annotations

import binascii
import hashlib
import operator
from typing import Annotated, TypedDict

import pytest
import xxhash

from engine import END, START, Command, InMemorySaver, Send, SqliteSaver, StateGraph, interrupt
from engine.runtime.lg_thread import lg_task_id, migrate_checkpoint
from engine.types import Interrupt

CIDS = [f"1f0b2c3d-4e5f-6{i:03x}-8{i:03x}-0123456789ab" for i in range(6)]


class S(TypedDict, total=False):
    topic: str
    notes: Annotated[list[str], operator.add]
    answer: str


def _graph(saver, calls: list[str] | None = None):
    calls = calls if calls is not None else []

    def draft(s):
        calls.append("draft")
        return {"topic": "drafted " + s["topic"]}

    def research(s):
        calls.append("research")
        return {"notes": ["n1"]}

    def ask(s):
        calls.append("ask")
        return {"answer": interrupt("ok?")}

    g = StateGraph(S)
    g.add_node("draft", draft)
    g.add_node("research", research)
    g.add_node("ask", ask)
    g.add_edge(START, "draft")
    g.add_edge("draft", "research")
    g.add_edge("research", "ask")
    g.add_edge("ask", END)
    return g.compile(checkpointer=saver)


def _id(cid: str, v: int, step: int, name: str, *triggers: str) -> str:
    """LangGraph's pull-task id, spelled out: hash(id bytes + ns + step + name + path + triggers)."""
    data = binascii.unhexlify(cid.replace("-", "")) + "".join([name, str(step), name, "__pregel_pull", *triggers]).encode()
    h = hashlib.sha1(data).hexdigest() if v == 1 else xxhash.xxh3_128_hexdigest(data)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def V(n: int) -> str:
    return f"{n:032}.0.5"


def _current_thread():
    """(checkpoint dict, metadata, writes) per step, oldest first, in LangGraph 1.x's layout."""
    seen0 = {"__input__": {}}
    seen1 = {**seen0, "__start__": {"__start__": V(1)}}
    seen2 = {**seen1, "draft": {"branch:to:draft": V(2)}}
    seen3 = {**seen2, "research": {"branch:to:research": V(3)}}
    rows = [
        ({"__start__": {"topic": "t"}}, {"__start__": V(1)}, seen0,
         ("__start__", ("__start__",), [("topic", "t"), ("branch:to:draft", None)])),
        ({"topic": "t", "branch:to:draft": None}, {"__start__": V(2), "topic": V(2), "branch:to:draft": V(2)}, seen1,
         ("draft", ("branch:to:draft",), [("topic", "drafted t"), ("branch:to:research", None)])),
        ({"topic": "drafted t", "branch:to:research": None},
         {"__start__": V(2), "topic": V(3), "branch:to:draft": V(3), "branch:to:research": V(3)}, seen2,
         ("research", ("branch:to:research",), [("notes", ["n1"]), ("branch:to:ask", None)])),
        ({"topic": "drafted t", "notes": ["n1"], "branch:to:ask": None},
         {"__start__": V(2), "topic": V(3), "branch:to:draft": V(3), "branch:to:research": V(4), "notes": V(4),
          "branch:to:ask": V(4)}, seen3,
         ("ask", ("branch:to:ask",), [("__interrupt__", [Interrupt(value="ok?", id="i1")])])),
    ]
    out = []
    for step, (values, versions, seen, (node, triggers, writes)) in enumerate(rows, start=-1):
        cid = CIDS[step + 1]
        cp = {"v": 2, "id": cid, "ts": f"2025-01-01T00:00:0{step + 1}+00:00", "channel_values": values,
              "channel_versions": versions, "versions_seen": seen}
        out.append((cp, {"source": "input" if step < 0 else "loop", "step": step, "parents": {}},
                    {_id(cid, 2, step + 1, node, *triggers): writes}))
    return out


def _older_thread():
    """The same thread as LangGraph before 0.3 kept it: the entry edge as `start:draft`, a
    plain edge as the source node's own channel, format 1 (SHA-1 task ids)."""
    rename = {"branch:to:draft": "start:draft", "branch:to:research": "draft", "branch:to:ask": "research"}
    out = []
    for cp, meta, writes in _current_thread():
        values = {rename.get(k, k): (k if k in rename else v) for k, v in cp["channel_values"].items()}
        versions = {rename.get(k, k): v for k, v in cp["channel_versions"].items()}
        seen = {n: {rename.get(k, k): v for k, v in s.items()} for n, s in cp["versions_seen"].items()}
        old = {**cp, "v": 1, "channel_values": values, "channel_versions": versions, "versions_seen": seen}
        step = meta["step"]
        kept = {}
        for ws in writes.values():
            node = {-1: "__start__", 0: "draft", 1: "research", 2: "ask"}[step]
            trigger = {-1: "__start__", 0: "start:draft", 1: "draft", 2: "research"}[step]
            kept[_id(cp["id"], 1, step + 1, node, trigger)] = [(rename.get(c, c), v) for c, v in ws]
        out.append((old, meta, kept))
    return out


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver()
    else:
        s = SqliteSaver(tmp_path / "older.sqlite")
        yield s
        s.close()


def _put(saver, rows, thread="t"):
    parent = None
    for cp, meta, writes in rows:
        conf = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": parent}}
        saver.put(conf, cp, meta, cp["channel_versions"])
        at = {"configurable": {"thread_id": thread, "checkpoint_ns": "", "checkpoint_id": cp["id"]}}
        for task_id, ws in writes.items():
            saver.put_writes(at, ws, task_id)
        parent = cp["id"]


def cfg(thread="t"):
    return {"configurable": {"thread_id": thread}}


def test_current_layout_plans_next_tasks_and_finds_each_tasks_writes(saver):
    _put(saver, _current_thread())
    history = list(_graph(saver).get_state_history(cfg()))
    assert [h.next for h in history] == [("ask",), ("research",), ("draft",), ("__start__",)]
    assert [[t.result for t in h.tasks] for h in history] == [
        [None], [{"notes": ["n1"]}], [{"topic": "drafted t"}], [{"topic": "t"}]]
    assert [i.value for i in history[0].interrupts] == ["ok?"]
    assert history[-1].values == {"notes": []}  # a reducer's channel starts empty, as in LangGraph
    assert history[0].tasks[0].id == _id(CIDS[3], 2, 3, "ask", "branch:to:ask")


def test_older_layout_plans_the_same_next_but_its_writes_find_no_task(saver):
    _put(saver, _older_thread())
    history = list(_graph(saver).get_state_history(cfg()))
    assert [h.next for h in history] == [("ask",), ("research",), ("draft",), ("__start__",)]
    # the older ids were hashed over older trigger names: LangGraph shows no result either
    assert [[t.result for t in h.tasks] for h in history] == [[None], [None], [None], [{"topic": "t"}]]
    assert history[0].interrupts == ()
    assert "draft" not in history[1].values and "start:draft" not in history[2].values


@pytest.mark.parametrize("rows", [_current_thread, _older_thread], ids=["current", "older"])
def test_resume_of_a_langgraph_thread_runs_only_what_is_left(saver, rows):
    _put(saver, rows())
    calls: list[str] = []
    graph = _graph(saver, calls)
    assert list(graph.stream(Command(resume="yes"), cfg())) == [{"ask": {"answer": "yes"}}]
    assert calls == ["ask"]
    state = graph.get_state(cfg())
    assert state.values == {"topic": "drafted t", "notes": ["n1"], "answer": "yes"}
    assert state.next == ()
    assert state.parent_config["configurable"]["checkpoint_id"] == CIDS[3]


def test_resume_addressed_by_checkpoint_id_runs_a_finished_task_again(saver):
    """As LangGraph: with a checkpoint id in the config, the tasks already done run again
    (their answers kept), and nothing is reported from the cache."""
    rows = _current_thread()
    cp, meta, writes = rows[-1]
    (tid, ws), = writes.items()
    rows[-1] = (cp, meta, {tid: [*ws, ("__resume__", ["first"]), ("answer", "first")]})
    _put(saver, rows)
    calls: list[str] = []
    graph = _graph(saver, calls)
    at = {"configurable": {"thread_id": "t", "checkpoint_id": CIDS[3]}}
    assert list(graph.stream(Command(resume="second"), at)) == [{"ask": {"answer": "first"}}]
    assert calls == ["ask"]


def test_older_layouts_migrate_to_branch_to_channels():
    graph = _graph(InMemorySaver())
    cp = {"v": 1, "id": CIDS[0], "channel_values": {"draft": "draft", "start:draft": "__start__", "topic": "x"},
          "channel_versions": {"start:draft": 2, "draft": 3, "branch:draft:pick:ask": 4, "topic": 3},
          "versions_seen": {"draft": {"start:draft": 1}, "research": {"draft": 2},
                            "__interrupt__": {"draft": 3, "start:draft": 2}},
          "pending_sends": [Send("ask", {"topic": "s"})]}
    migrate_checkpoint(graph, cp)
    assert cp["channel_versions"] == {"topic": 3, "__pregel_tasks": 4, "branch:to:draft": 2,
                                      "branch:to:ask": 4, "branch:to:research": 3}
    assert cp["versions_seen"] == {"draft": {"branch:to:draft": 1}, "research": {"branch:to:research": 2},
                                   "__interrupt__": {"branch:to:draft": 2, "branch:to:research": 3}}
    assert cp["channel_values"] == {"topic": "x", "branch:to:draft": "__start__", "branch:to:research": "draft",
                                    "__pregel_tasks": [Send("ask", {"topic": "s"})]}
    assert "pending_sends" not in cp


def test_pending_sends_and_joins_plan_push_tasks_and_wait_for_every_source():
    g = StateGraph(S)
    for name in ("a", "b", "c", "ask"):
        g.add_node(name, lambda s: {})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    saver = InMemorySaver()
    graph = g.compile(checkpointer=saver)
    join = "join:a+b:c"
    cp = {"v": 2, "id": CIDS[1], "ts": "2025-01-01T00:00:00+00:00",
          "channel_values": {"topic": "x", join: {"a"}, "__pregel_tasks": [Send("ask", {"topic": "s"})]},
          "channel_versions": {"topic": V(2), join: V(2), "__pregel_tasks": V(2)}, "versions_seen": {}}
    saver.put({"configurable": {"thread_id": "j", "checkpoint_ns": ""}}, cp, {"source": "loop", "step": 1}, {})
    state = graph.get_state(cfg("j"))
    assert state.next == ("ask",)  # the join waits for `b`
    assert state.tasks[0].path == ("__pregel_push", 0, False)
    assert state.tasks[0].id == lg_task_id(CIDS[1], 2, "ask", "2", "ask", "__pregel_push", "0")
    cp2 = {**cp, "id": CIDS[2], "channel_values": {"topic": "x", join: {"a", "b"}}}
    saver.put({"configurable": {"thread_id": "j", "checkpoint_ns": "", "checkpoint_id": CIDS[1]}}, cp2,
              {"source": "loop", "step": 2}, {})
    assert graph.get_state(cfg("j")).next == ("c",)


def test_lg_task_id_is_none_for_an_id_that_is_no_uuid():
    assert lg_task_id("not-a-uuid", 2, "a") is None
    assert lg_task_id(CIDS[0], 1, "a", "0") != lg_task_id(CIDS[0], 2, "a", "0")
