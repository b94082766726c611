"""A superstep's pending writes stay beside its checkpoint after it commits, as the record
history shows (results, errors, interrupts), on every store; and what the run does with
them on resume (re-asked interrupts, error handlers that take over)."""
from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, InMemorySaver, Send, SqliteSaver, StateGraph, interrupt
from engine.checkpoint import ERROR, INTERRUPT, RESUME, PendingWrite
from engine.checkpoint.task_status import task_statuses, writes_result
from engine.types import Interrupt


class S(TypedDict):
    log: Annotated[list, operator.add]
    tag: str


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":
        from engine.checkpoint.postgres import PostgresSaver

        store = PostgresSaver(request.getfixturevalue("pg_url"))
    else:
        store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "w.db")
    yield store
    store.close()


def cfg(tid: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": tid}}


def test_a_failed_task_error_stays_in_history_after_the_retry_succeeds(saver: Any) -> None:
    fail = [True]

    def flaky(s: S) -> dict:
        if fail[0]:
            raise KeyError("no such tool")
        return {"log": ["flaky"]}

    g = StateGraph(S).add_node("flaky", flaky).add_edge(START, "flaky").add_edge("flaky", END)
    g = g.compile(checkpointer=saver)
    with pytest.raises(KeyError):
        g.invoke({"log": []}, cfg())
    fail[0] = False
    assert g.invoke(None, cfg())["log"] == ["flaky"]
    failed = [s for s in g.get_state_history(cfg()) if s.tasks and s.tasks[0].error]
    assert len(failed) == 1
    task = failed[0].tasks[0]
    assert task.error == "KeyError(\"'no such tool'\")" and task.result == {"log": ["flaky"]}
    assert failed[0].next == ("flaky",)  # the record lists every task of the step


def test_parallel_interrupts_the_unanswered_one_is_asked_again_and_history_keeps_both(saver: Any) -> None:
    calls: list[str] = []

    def ask(name: str) -> Any:
        def node(s: S) -> dict:
            calls.append(name)
            return {"log": [f"{name}={interrupt(name + '?')}"]}
        return node

    g = StateGraph(S).add_node("x", ask("x")).add_node("y", ask("y"))
    g = g.add_edge(START, "x").add_edge(START, "y").compile(checkpointer=saver)
    g.invoke({"log": []}, cfg())
    xid = next(i.id for t in g.get_state(cfg()).tasks if t.name == "x" for i in t.interrupts)
    chunks = list(g.stream(Command(resume={xid: "X"}), cfg(), stream_mode="updates"))
    assert {"x": {"log": ["x=X"]}} in chunks
    assert [i.value for c in chunks for i in c.get("__interrupt__", ())] == ["y?"]  # asked again
    assert sorted(calls) == ["x", "x", "y", "y"]
    live = g.get_state(cfg())
    assert live.next == ("y",) and [i.value for i in live.interrupts] == ["y?"]
    assert live.values["log"] == ["x=X"]
    record = g.get_state(live.config)  # the same checkpoint named by id: the record of its step
    assert sorted(record.next) == ["x", "y"] and record.values["log"] == []
    by_name = {t.name: t for t in record.tasks}
    assert [i.value for i in by_name["x"].interrupts] == ["x?"] and by_name["x"].result == {"log": ["x=X"]}
    assert [i.value for i in by_name["y"].interrupts] == ["y?"] and by_name["y"].result is None


def test_update_state_on_the_head_records_its_writes_as_the_task_result(saver: Any) -> None:
    g = StateGraph(S).add_node("a", lambda s: {"tag": "a"}).add_node("b", lambda s: {"tag": "b"})
    g = g.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=saver, interrupt_before=["b"])
    g.invoke({"log": []}, cfg())
    paused = g.get_state(cfg())
    g.update_state(cfg(), {"tag": "by hand"}, as_node="b")
    again = g.get_state(paused.config)
    assert [(t.name, t.result) for t in again.tasks] == [("b", {"tag": "by hand"})]
    # an update of a checkpoint the thread moved on from records nothing there
    first = list(g.get_state_history(cfg()))[-2]
    g.update_state(first.config, {"tag": "fork"}, as_node="a")
    assert [t.result for t in g.get_state(first.config).tasks] == [{"tag": "a"}]


def test_a_loop_of_plain_keys_saves_no_writes_and_history_still_shows_results() -> None:
    saver = InMemorySaver()

    class N(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    g = StateGraph(N).add_node("step", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    g = g.add_edge(START, "step").add_conditional_edges("step", lambda s: "step" if s["n"] < 3 else END)
    g = g.compile(checkpointer=saver)
    g.invoke({"n": 0, "log": []}, cfg())
    history = list(g.get_state_history(cfg()))
    assert all(saver.pending_writes("t", h.config["configurable"]["checkpoint_id"]) == [] for h in history)
    assert [t.result for h in history for t in h.tasks if t.name == "step"] == [
        {"n": 3, "log": [2]}, {"n": 2, "log": [1]}, {"n": 1, "log": [0]}]


def test_writes_that_cannot_be_read_back_are_kept_for_one_task_steps() -> None:
    saver = InMemorySaver()

    class J(TypedDict):
        text: Annotated[str, lambda a, b: f"{a}+{b}" if a else b]

    g = StateGraph(J).add_node("one", lambda s: Command(update=[("text", "a"), ("text", "b")]))
    g = g.add_edge(START, "one").compile(checkpointer=saver)
    assert list(g.stream({"text": "in"}, cfg(), stream_mode="updates")) == [{"one": [{"text": "a"}, {"text": "b"}]}]
    (task,) = [t for h in g.get_state_history(cfg()) for t in h.tasks if t.name == "one"]
    assert task.result == {"text": {"$writes": ["a", "b"]}}


def test_an_error_handler_that_crashed_runs_again_on_resume_not_the_node(saver: Any) -> None:
    calls = {"node": 0, "handler": 0}
    crash = [True]

    def node(s: S) -> dict:
        calls["node"] += 1
        raise ValueError("node broke")

    def handler(s: S, error: Any) -> dict:
        calls["handler"] += 1
        assert error.node == "node" and isinstance(error.error, ValueError) and "node broke" in str(error.error)
        if crash[0]:
            raise RuntimeError("handler broke")
        return {"tag": "recovered"}

    g = StateGraph(S).add_node("node", node, error_handler=handler).add_edge(START, "node")
    g = g.compile(checkpointer=saver)
    with pytest.raises(RuntimeError, match="handler broke"):
        g.invoke({"log": []}, cfg())
    crash[0] = False
    assert g.invoke(None, cfg())["tag"] == "recovered"
    assert calls == {"node": 1, "handler": 2}


def test_snapshots_list_sends_first_with_langgraph_paths() -> None:
    g = StateGraph(S).add_node("fan", lambda s: {}).add_node("work", lambda s: {"log": [s]})
    g = g.add_node("zz", lambda s: {}).add_edge(START, "fan")
    g = g.add_conditional_edges("fan", lambda s: [Send("work", 1), "zz", Send("work", 2)])
    g = g.compile(checkpointer=InMemorySaver())
    g.invoke({"log": []}, cfg())
    step = next(h for h in g.get_state_history(cfg()) if len(h.tasks) == 3)
    assert step.next == ("work", "work", "zz")
    assert [t.path for t in step.tasks] == [("__pregel_push", 0, False), ("__pregel_push", 1, False),
                                            ("__pregel_pull", "zz")]
    assert [t.result for t in step.tasks] == [{"log": [1]}, {"log": [2]}, {}]
    assert repr(Command(goto=Send("work", 3))) == "Command(goto=Send(node='work', arg=3))"


def _w(task: str, channel: str, value: Any) -> PendingWrite:
    return PendingWrite(task_id=task, task_name=task, channel=channel, value=value)


def test_task_statuses_reads_the_latest_pause_and_error() -> None:
    q1, q2 = Interrupt(value="q1", id="1" * 32), Interrupt(value="q2", id="2" * 32)
    statuses = task_statuses([
        _w("a", INTERRUPT, q1),
        _w("a", INTERRUPT, q1),  # ran again without an answer: the same question, once
        _w("b", INTERRUPT, q1),
        _w("b", RESUME, ["yes"]),
        _w("b", INTERRUPT, q2),  # answered, then asked something else
        _w("c", ERROR, {"type": "KeyError", "message": "x"}),
        _w("c", "log", [1]),  # failed, then finished
    ])
    assert statuses["a"].interrupts == (q1,) and not statuses["a"].finished
    assert statuses["b"].interrupts == (q2,) and statuses["b"].resume == ("yes",)
    assert statuses["c"].finished and statuses["c"].error["type"] == "KeyError"
    assert statuses["c"].pending_interrupts == ()
    assert writes_result([("k", 1), ("j", 2), ("k", 3), ("k", 4)]) == {"k": {"$writes": [1, 3, 4]}, "j": 2}


def test_an_async_task_that_took_an_answer_hands_the_next_one_on(saver: Any) -> None:
    import asyncio

    from engine.func import entrypoint, task

    @entrypoint(checkpointer=saver)
    async def flow(n: int) -> list:
        @task
        async def ask(q: str) -> str:
            return interrupt(q)

        return [await ask(f"q{i}") for i in range(n)]

    async def go() -> Any:
        await flow.ainvoke(2, config=cfg())
        await flow.ainvoke(Command(resume="a1"), config=cfg())
        return await flow.ainvoke(Command(resume="a2"), config=cfg())

    assert asyncio.run(go()) == ["a1", "a2"]
