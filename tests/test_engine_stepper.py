"""The Run stepper: plan, run one task, commit; diffs, triggers and events; rewind and fork."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    MISSING,
    START,
    Command,
    InMemorySaver,
    RunFinished,
    Send,
    SqliteSaver,
    StateGraph,
    StepCommitted,
    TaskFinished,
    TaskStarted,
)


class S(TypedDict):
    log: Annotated[list, operator.add]
    last: str


def fan_graph(checkpointer=None, **kw):
    g = StateGraph(S)
    g.add_node("plan", lambda s: {"log": ["plan"], "last": "plan"})
    g.add_node("web", lambda s: {"log": ["web"]})
    g.add_node("db", lambda s: {"log": ["db"]})
    g.add_node("merge", lambda s: {"last": "+".join(sorted(s["log"]))})
    g.add_edge(START, "plan")
    g.add_edge("plan", "web")
    g.add_edge("plan", "db")
    g.add_edge(["web", "db"], "merge")
    g.add_edge("merge", END)
    return g.compile(checkpointer=checkpointer, **kw)


def run_async(coro):
    return asyncio.run(coro)


def test_plan_run_one_task_then_commit_shows_writes_before_they_apply():
    graph = fan_graph(InMemorySaver())

    async def scenario():
        run = graph.new_run({"log": [], "last": ""}, {"configurable": {"thread_id": "t"}})
        await run.start()
        assert [t.name for t in run.pending] == ["__start__"]
        await run.superstep()  # the hidden start step
        assert [(t.name, t.trigger) for t in run.pending] == [("plan", "edge:__start__")]
        await run.superstep()
        assert [(t.name, t.trigger) for t in run.pending] == [("db", "edge:plan"), ("web", "edge:plan")]
        first = await run.run_task()
        assert first.task.name == "db"
        assert first.writes == [("log", ["db"])]
        assert run.values["log"] == ["plan"], "a task's writes wait for the commit"
        assert [t.name for t in run.pending] == ["web"]
        assert not run.ready_to_commit
        await run.run_task()
        assert run.ready_to_commit
        committed = run.commit()
        diff = {d.key: d for d in committed.diffs}["log"]
        assert diff.before == ["plan"]
        assert [(w.node, w.value) for w in diff.writes] == [("db", ["db"]), ("web", ["web"])]
        assert diff.reducer == "operator.add"
        assert diff.after == ["plan", "db", "web"]
        assert diff.appended == ("db", "web")
        assert [(t.name, t.trigger) for t in committed.next] == [("merge", "join:web+db")]
        await run.run_to_end()
        return run

    run = run_async(scenario())
    assert run.status == "done"
    assert run.values["last"] == "db+plan+web"


def test_plain_key_diff_shows_missing_before_first_write():
    graph = fan_graph()

    async def scenario():
        run = graph.new_run({"log": []})
        await run.superstep()
        committed = await run.superstep()
        return {d.key: d for d in committed.diffs}

    diffs = run_async(scenario())
    assert diffs["last"].before is MISSING
    assert diffs["last"].after == "plan"
    assert diffs["last"].reducer == "last value"
    assert diffs["last"].changed


def test_events_in_order_with_durations():
    graph = fan_graph()
    events = []

    async def scenario():
        run = graph.new_run({"log": []})
        run.subscribe(events.append)
        await run.run_to_end()

    run_async(scenario())
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "RunStarted"
    assert kinds[-1] == "RunFinished"
    assert events[-1].status == "done"
    finished = [e for e in events if isinstance(e, TaskFinished) and e.name != START]
    assert sorted(e.name for e in finished) == ["db", "merge", "plan", "web"]
    assert all(e.duration_s >= 0 for e in finished)
    commits = [e for e in events if isinstance(e, StepCommitted)]
    assert [c.step for c in commits] == [0, 1, 2, 3]
    started = [e for e in events if isinstance(e, TaskStarted)]
    assert {e.name: e.trigger for e in started}["merge"] == "join:web+db"


def test_node_error_is_an_event_with_traceback_and_the_run_pauses():
    def boom(s):
        raise ValueError("bad tool call")

    g = StateGraph(S)
    g.add_node("boom", boom)
    g.add_edge(START, "boom")
    graph = g.compile(checkpointer=InMemorySaver())
    events = []

    async def scenario():
        run = graph.new_run({"log": []}, {"configurable": {"thread_id": "e"}})
        run.subscribe(events.append)
        with pytest.raises(ValueError, match="bad tool call"):
            await run.run_to_end()
        return run

    run = run_async(scenario())
    assert run.status == "failed"
    failed = [e for e in events if type(e).__name__ == "TaskFailed"][0]
    assert failed.name == "boom" and "bad tool call" in failed.traceback
    assert isinstance(events[-1], RunFinished) and events[-1].status == "failed"
    state = graph.get_state({"configurable": {"thread_id": "e"}})
    assert state.next == ("boom",)
    assert state.tasks[0].error == "ValueError('bad tool call')"


def test_rewind_to_a_checkpoint_runs_a_new_branch_and_keeps_the_old(tmp_path):
    graph = fan_graph(SqliteSaver(tmp_path / "runs.sqlite"))
    cfg = {"configurable": {"thread_id": "r"}}
    graph.invoke({"log": []}, cfg)
    before = list(graph.get_state_history(cfg))
    after_plan = [s for s in before if s.metadata["step"] == 1][0]

    async def scenario():
        run = graph.new_run(None, after_plan.config)
        started = await run.start()
        assert started.mode == "fork"
        assert run.checkpoint.parent_id == after_plan.config["configurable"]["checkpoint_id"]
        await run.run_to_end()

    run_async(scenario())
    history = list(graph.get_state_history(cfg))
    assert len(history) == len(before) + 3  # the fork, then {web, db}, then merge
    children = [s for s in history if s.parent_config and
                s.parent_config["configurable"]["checkpoint_id"] == after_plan.config["configurable"]["checkpoint_id"]]
    assert sorted(s.metadata["source"] for s in children) == ["fork", "loop"], "two branches from one checkpoint"


def test_fork_from_an_edited_state_with_update_state():
    graph = fan_graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "f"}}
    graph.invoke({"log": []}, cfg)
    after_plan = [s for s in graph.get_state_history(cfg) if s.metadata["step"] == 1][0]
    edited = graph.update_state(after_plan.config, {"log": ["human"], "last": "edited"}, as_node="plan")
    snap = graph.get_state(edited)
    assert snap.metadata["source"] == "update"
    assert sorted(snap.next) == ["db", "web"]
    out = graph.invoke(None, edited)
    assert out["last"] == "db+human+plan+web"


def test_send_tasks_run_with_their_argument_and_apply_in_emission_order():
    class M(TypedDict):
        items: list
        out: Annotated[list, operator.add]

    g = StateGraph(M)
    g.add_node("square", lambda s: {"out": [s["x"] * s["x"]]})
    g.add_conditional_edges(START, lambda s: [Send("square", {"x": x}) for x in s["items"]])
    graph = g.compile()

    async def scenario():
        run = graph.new_run({"items": [3, 1, 2]})
        await run.superstep()
        assert [(t.name, t.is_send, t.arg, t.trigger) for t in run.pending] == [
            ("square", True, {"x": 3}, "send:__start__"),
            ("square", True, {"x": 1}, "send:__start__"),
            ("square", True, {"x": 2}, "send:__start__"),
        ]
        await run.run_to_end()
        return run.values

    assert run_async(scenario())["out"] == [9, 1, 4]


def test_command_goto_is_a_trigger():
    g = StateGraph(S)
    g.add_node("a", lambda s: Command(update={"last": "a"}, goto="b"))
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    graph = g.compile()

    async def scenario():
        run = graph.new_run({"log": []})
        await run.superstep()
        await run.superstep()
        return [(t.name, t.trigger) for t in run.pending]

    assert run_async(scenario()) == [("b", "command:a")]


def test_one_execution_path_invoke_uses_the_run(monkeypatch):
    """invoke() is a driver over Run: a patched commit is seen by invoke too."""
    from engine.runtime import run as run_module

    calls = []
    original = run_module.Run.commit

    def spy(self, **kwargs):
        calls.append(self.step)
        return original(self, **kwargs)

    monkeypatch.setattr(run_module.Run, "commit", spy)
    fan_graph().invoke({"log": []})
    assert calls == [-1, 0, 1, 2]


def test_stepping_cost_is_bounded_by_change_not_history():
    """Loading the head for a new step reads one checkpoint, whatever the history length."""
    g = StateGraph(S)
    g.add_node("a", lambda s: {"last": str(len(s["log"]))})
    g.add_edge(START, "a")
    saver = InMemorySaver()
    graph = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "long"}}
    for _ in range(30):
        graph.invoke({"log": ["x"]}, cfg)
    calls = {"list": 0}
    original = saver.list

    def counting_list(*a, **k):
        calls["list"] += 1
        return original(*a, **k)

    saver.list = counting_list
    graph.invoke({"log": ["y"]}, cfg)
    assert calls["list"] == 0, "a step must not walk the history"


def test_step_into_a_subgraph_with_a_gate():
    inner = StateGraph(S)
    inner.add_node("research", lambda s: {"log": ["research"]})
    inner.add_node("write", lambda s: {"log": ["write"]})
    inner.add_edge(START, "research")
    inner.add_edge("research", "write")
    g = StateGraph(S)
    g.add_node("team", inner.compile())
    g.add_edge(START, "team")
    graph = g.compile()
    seen_moves = []
    events = []

    async def gate(child):
        seen_moves.append((child.namespace, [t.name for t in child.pending], child.ready_to_commit))

    async def scenario():
        run = graph.new_run({"log": []})
        run.set_options(gate=gate)
        run.subscribe(events.append)
        await run.superstep()
        result = await run.run_task()  # the whole subgraph, move by move through the gate
        assert result.writes == [("log", ["research", "write"])]
        await run.run_to_end()
        return run

    run = asyncio.run(scenario())
    assert run.values["log"] == ["research", "write"]
    assert (("team",), ["research"], False) in seen_moves
    assert (("team",), ["write"], False) in seen_moves
    assert (("team",), [], True) in seen_moves
    inner_names = [e.name for e in events if isinstance(e, TaskFinished) and e.namespace == ("team",)]
    assert inner_names == ["__start__", "research", "write"]


def test_a_failing_task_lets_its_siblings_finish_and_keeps_their_writes():
    import threading

    release = threading.Event()

    def slow(s):
        release.wait(5)
        return {"log": ["slow"]}

    def fail(s):
        release.set()
        raise RuntimeError("fail")

    g = StateGraph(S)
    g.add_node("slow", slow)
    g.add_node("fail", fail)
    g.add_edge(START, "slow")
    g.add_edge(START, "fail")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "sib"}}
    with pytest.raises(RuntimeError, match="fail"):
        graph.invoke({"log": []}, cfg)
    assert graph.get_state(cfg).next == ("fail",), "the sibling finished and its writes were kept"


def test_routes_to_end_are_reported():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: END)
    events = []

    async def scenario():
        run = g.compile().new_run({"log": []})
        run.subscribe(events.append)
        await run.run_to_end()

    asyncio.run(scenario())
    finished = [e for e in events if isinstance(e, TaskFinished) and e.name == "a"][0]
    assert finished.routes == (END,)
