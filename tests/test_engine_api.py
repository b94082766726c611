"""The LangGraph-shaped API: schemas, node signatures, stream modes, interrupts, messages."""
from __future__ import annotations

import asyncio
import dataclasses
import operator
import subprocess
import sys
from typing import Annotated, Literal, TypedDict

import pytest
from pydantic import BaseModel

from engine import (
    END,
    START,
    AIMessage,
    Command,
    HumanMessage,
    InMemorySaver,
    Interrupt,
    MessagesState,
    RemoveMessage,
    SqliteSaver,
    StateGraph,
    ToolMessage,
    add_messages,
    get_stream_writer,
    interrupt,
)


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def test_engine_imports_without_qt_or_studio():
    code = "import sys, engine; print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6','qasync','studio')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_dataclass_state_reaches_nodes_as_instances():
    @dataclasses.dataclass
    class D:
        text: str = ""
        count: int = 0

    seen = []

    def node(state: D):
        seen.append(type(state).__name__)
        return {"text": state.text + "!", "count": state.count + 1}

    g = StateGraph(D)
    g.add_node("node", node)
    g.add_edge(START, "node")
    assert g.compile().invoke({"text": "hi"}) == {"text": "hi!", "count": 1}
    assert seen == ["D"]


def test_pydantic_state_validates_and_reaches_nodes_as_models():
    class P(BaseModel):
        question: str
        answer: str = ""

    def node(state: P):
        assert isinstance(state, P)
        return {"answer": state.question.upper()}

    g = StateGraph(P)
    g.add_node("node", node)
    g.add_edge(START, "node")
    assert g.compile().invoke({"question": "why"}) == {"question": "why", "answer": "WHY"}


def test_input_and_output_schemas_filter_keys():
    class In(TypedDict):
        question: str

    class Out(TypedDict):
        answer: str

    class All(In, Out):
        scratch: str

    g = StateGraph(All, input_schema=In, output_schema=Out)
    g.add_node("think", lambda s: {"scratch": "hmm", "answer": s["question"] + "?"})
    g.add_edge(START, "think")
    assert g.compile().invoke({"question": "q", "scratch": "ignored"}) == {"answer": "q?"}


def test_add_sequence_entry_and_finish_points():
    def first(s):
        return {"log": ["first"]}

    def second(s):
        return {"log": ["second"]}

    g = StateGraph(S)
    g.add_sequence([first, second])
    g.set_entry_point("first")
    g.set_finish_point("second")
    assert g.compile().invoke({"log": []})["log"] == ["first", "second"]


def test_node_taking_config_and_async_nodes():
    async def slow(s, config):
        await asyncio.sleep(0.01)
        return {"log": [config["configurable"]["user"]]}

    g = StateGraph(S)
    g.add_node("slow", slow)
    g.add_edge(START, "slow")
    graph = g.compile()
    cfg = {"configurable": {"user": "ada"}}
    assert graph.invoke({"log": []}, cfg)["log"] == ["ada"]
    assert asyncio.run(graph.ainvoke({"log": []}, cfg))["log"] == ["ada"]


def test_stream_modes_custom_tasks_checkpoints_debug():
    def talk(s):
        get_stream_writer()({"progress": 0.5})
        return {"log": ["talk"]}

    g = StateGraph(S)
    g.add_node("talk", talk)
    g.add_edge(START, "talk")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "modes"}}
    chunks = list(graph.stream({"log": []}, cfg, stream_mode=["custom", "tasks", "checkpoints", "debug"]))
    modes = [m for m, _ in chunks]
    assert ("custom", {"progress": 0.5}) in chunks
    tasks = [c for m, c in chunks if m == "tasks"]
    assert tasks[0]["name"] == "talk" and tasks[0]["triggers"] == ("branch:to:talk",)
    assert tasks[1]["result"] == {"log": ["talk"]}
    checkpoints = [c for m, c in chunks if m == "checkpoints"]
    assert [c["metadata"]["step"] for c in checkpoints] == [-1, 0, 1]
    assert checkpoints[-1]["values"] == {"log": ["talk"]} and checkpoints[-1]["next"] == []
    assert {c["type"] for m, c in chunks if m == "debug"} == {"task", "task_result", "checkpoint"}
    assert modes.index("custom") < len(modes)


def test_async_stream_yields_updates():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"n": 2})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    graph = g.compile()

    async def collect():
        return [c async for c in graph.astream({"log": [], "n": 0}, stream_mode="updates")]

    assert asyncio.run(collect()) == [{"a": {"log": ["a"]}}, {"b": {"n": 2}}]


def test_unknown_stream_mode():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    g.add_edge(START, "a")
    with pytest.raises(ValueError, match="unknown stream_mode 'valuez'"):
        list(g.compile().stream({"log": []}, stream_mode="valuez"))


def test_interrupt_resume_and_state_in_sqlite(tmp_path):
    def approve(s):
        decision = interrupt({"question": "ship it?", "n": s["n"]})
        return {"log": [f"decision:{decision}"]}

    g = StateGraph(S)
    g.add_node("approve", approve)
    g.add_edge(START, "approve")
    graph = g.compile(checkpointer=SqliteSaver(tmp_path / "runs.sqlite"))
    cfg = {"configurable": {"thread_id": "hitl"}}
    first = graph.invoke({"log": [], "n": 3}, cfg)
    assert first["__interrupt__"][0].value == {"question": "ship it?", "n": 3}
    assert isinstance(first["__interrupt__"][0], Interrupt) and len(first["__interrupt__"][0].id) == 32
    paused = graph.get_state(cfg)
    assert paused.next == ("approve",)
    assert paused.interrupts[0].value["question"] == "ship it?"
    # a new process would open the file afresh: the interrupt survives
    again = g.compile(checkpointer=SqliteSaver(tmp_path / "runs.sqlite"))
    assert again.invoke(Command(resume="yes"), cfg) == {"log": ["decision:yes"], "n": 3}


def test_interrupt_before_and_after_at_invoke_time():
    g = StateGraph(S)
    for name in ("a", "b", "c"):
        g.add_node(name, lambda s, name=name: {"log": [name]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "bp"}}
    assert graph.invoke({"log": []}, cfg, interrupt_before=["b"])["log"] == ["a"]
    assert graph.get_state(cfg).next == ("b",)
    assert graph.invoke(None, cfg, interrupt_after=["b"])["log"] == ["a", "b"]
    assert graph.invoke(None, cfg)["log"] == ["a", "b", "c"]


def test_add_messages_converts_assigns_ids_replaces_and_removes():
    left = [HumanMessage("hi", id="1")]
    merged = add_messages(left, [{"role": "assistant", "content": "yo"}, ("user", "again")])
    assert [m.type for m in merged] == ["human", "ai", "human"]
    assert all(m.id for m in merged)
    replaced = add_messages(merged, AIMessage("better", id=merged[1].id))
    assert replaced[1].content == "better" and len(replaced) == 3
    removed = add_messages(replaced, RemoveMessage(id="1"))
    assert [m.content for m in removed] == ["better", "again"]
    with pytest.raises(ValueError, match="no message with that id"):
        add_messages(removed, RemoveMessage(id="nope"))


def test_messages_state_react_loop_with_tool_calls():
    def llm(s):
        if not any(isinstance(m, ToolMessage) for m in s["messages"]):
            return {"messages": [AIMessage("", tool_calls=[{"name": "weather", "args": {}, "id": "c1"}])]}
        return {"messages": [AIMessage("sunny")]}

    def tools(s):
        call = s["messages"][-1].tool_calls[0]
        return {"messages": [ToolMessage("22C", tool_call_id=call["id"])]}

    def route(s) -> Literal["tools", "__end__"]:
        return "tools" if s["messages"][-1].tool_calls else END

    g = StateGraph(MessagesState)
    g.add_node("llm", llm)
    g.add_node("tools", tools)
    g.add_edge(START, "llm")
    g.add_conditional_edges("llm", route)
    g.add_edge("tools", "llm")
    out = g.compile(checkpointer=InMemorySaver()).invoke(
        {"messages": [("user", "weather?")]}, {"configurable": {"thread_id": "m"}})
    assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai"]
    assert out["messages"][-1].content == "sunny"


def test_subgraph_node():
    inner = StateGraph(S)
    inner.add_node("x", lambda s: {"n": s["n"] * 10})
    inner.add_edge(START, "x")
    g = StateGraph(S)
    g.add_node("sub", inner.compile())
    g.add_edge(START, "sub")
    assert g.compile().invoke({"log": [], "n": 4})["n"] == 40


def test_sync_nodes_of_a_parallel_step_run_concurrently():
    import threading

    barrier = threading.Barrier(2, timeout=5)

    def meet(name):
        def node(s):
            barrier.wait()  # deadlocks (then times out) unless both run at once
            return {"log": [name]}
        return node

    g = StateGraph(S)
    g.add_node("a", meet("a"))
    g.add_node("b", meet("b"))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    assert sorted(g.compile().invoke({"log": []})["log"]) == ["a", "b"]


def test_config_secrets_are_not_persisted(tmp_path):
    graph = StateGraph(S)
    graph.add_node("a", lambda s: {"log": ["a"]})
    graph.add_edge(START, "a")
    db = tmp_path / "runs.sqlite"
    compiled = graph.compile(checkpointer=SqliteSaver(db))
    compiled.invoke({"log": []}, {"configurable": {"thread_id": "k", "api_key": "sk-SECRET-123"},
                                  "metadata": {"purpose": "demo"}})
    assert compiled.get_state({"configurable": {"thread_id": "k"}}).metadata["purpose"] == "demo"
    compiled.checkpointer.close()
    wal = db.with_name(db.name + "-wal")
    raw = db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert b"sk-SECRET-123" not in raw


def test_command_as_input_updates_and_routes():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    out = g.compile().invoke(Command(update={"log": ["cmd"], "n": 1}, goto="b"))
    assert out == {"log": ["cmd", "a", "b"], "n": 1}


def test_interrupt_inside_a_subgraph_pauses_the_parent_and_resumes():
    def ask(s):
        return {"log": [f"inner:{interrupt('inner?')}"]}

    inner = StateGraph(S)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    g = StateGraph(S)
    g.add_node("before", lambda s: {"log": ["before"]})
    g.add_node("sub", inner.compile())
    g.add_edge(START, "before")
    g.add_edge("before", "sub")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "nested"}}
    first = graph.invoke({"log": []}, cfg)
    assert first["__interrupt__"][0].value == "inner?"
    assert graph.get_state(cfg).next == ("sub",)
    out = graph.invoke(Command(resume="ok"), cfg)
    assert out["log"] == ["before", "before", "inner:ok"]


def test_command_to_parent_from_inside_a_subgraph():
    inner = StateGraph(S)
    inner.add_node("escalate", lambda s: Command(graph=Command.PARENT, goto="human", update={"log": ["escalated"]}))
    inner.add_edge(START, "escalate")
    g = StateGraph(S)
    g.add_node("team", inner.compile())
    g.add_node("human", lambda s: {"log": ["human"]})
    g.add_edge(START, "team")
    assert g.compile().invoke({"log": []})["log"] == ["escalated", "human"]


def test_retry_policy_runs_a_flaky_node_again():
    from engine import RetryPolicy

    attempts = []

    def flaky(s):
        attempts.append(1)
        if len(attempts) < 3:
            raise ConnectionError("network blip")
        return {"log": ["ok"]}

    g = StateGraph(S)
    g.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0.001, jitter=False))
    g.add_edge(START, "flaky")
    assert g.compile().invoke({"log": []})["log"] == ["ok"]
    assert len(attempts) == 3

    attempts.clear()
    g2 = StateGraph(S)
    g2.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0.001, max_attempts=2, jitter=False))
    g2.add_edge(START, "flaky")
    with pytest.raises(ConnectionError, match="network blip"):
        g2.compile().invoke({"log": []})
    assert len(attempts) == 2


def test_command_is_subscriptable_for_destination_hints():
    def decide(s) -> Command[Literal["yes", "no"]]:
        return Command(goto="yes")

    g = StateGraph(S)
    g.add_node("decide", decide)
    g.add_node("yes", lambda s: {"log": ["yes"]})
    g.add_node("no", lambda s: {"log": ["no"]})
    g.add_edge(START, "decide")
    graph = g.compile()
    assert graph.invoke({"log": []})["log"] == ["yes"]
    kinds = {(u, v): d["kind"] for u, v, d in graph.get_graph().nx.edges(data=True)}
    assert kinds[("decide", "yes")] == "command" and kinds[("decide", "no")] == "command"


def test_unresolvable_schema_annotations_are_a_clear_error():
    ns: dict = {}
    exec(
        "from __future__ import annotations\n"
        "from typing import TypedDict\n"
        "class Broken(TypedDict):\n"
        "    items: Annotated[list, add]\n",
        ns,
    )
    with pytest.raises(TypeError, match="cannot read the state schema 'Broken'.*do not resolve"):
        StateGraph(ns["Broken"]).compile()


def test_overwrite_bypasses_a_reducer():
    from engine import Overwrite

    g = StateGraph(S)
    g.add_node("reset", lambda s: {"log": Overwrite(["fresh"]), "n": Overwrite(7)})
    g.add_node("more", lambda s: {"log": ["more"]})
    g.add_edge(START, "reset")
    g.add_edge("reset", "more")
    assert g.compile().invoke({"log": ["old", "older"], "n": 0}) == {"log": ["fresh", "more"], "n": 7}


def test_update_state_with_overwrite_replaces_a_list():
    from engine import Overwrite

    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "ow"}}
    graph.invoke({"log": ["x"]}, cfg)
    graph.update_state(cfg, {"log": Overwrite(["edited"])})
    assert graph.get_state(cfg).values["log"] == ["edited"]


def test_add_messages_stays_correct_across_steps_and_in_place_edits():
    msgs = add_messages([], [HumanMessage("1", id="1"), HumanMessage("2", id="2")])
    step2 = add_messages(msgs, AIMessage("3", id="3"))
    step3 = add_messages(step2, AIMessage("2b", id="2"))
    assert [m.content for m in step3] == ["1", "2b", "3"]
    step3.insert(0, HumanMessage("0", id="0"))  # a node edits the list in place
    step4 = add_messages(step3, AIMessage("1b", id="1"))
    assert [m.content for m in step4] == ["0", "1b", "2b", "3"]


def test_a_command_input_is_kept_in_the_checkpoint_and_survives_a_restart(tmp_path):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    db = tmp_path / "runs.sqlite"
    graph = g.compile(checkpointer=SqliteSaver(db), interrupt_before=["a", "b"])
    cfg = {"configurable": {"thread_id": "cmd"}}

    async def save_input_only():
        run = graph.new_run(Command(update={"log": ["cmd"]}, goto="b"), cfg)
        await run.start()  # the input checkpoint is saved; the process "dies" here

    asyncio.run(save_input_only())
    reopened = g.compile(checkpointer=SqliteSaver(db))
    assert reopened.invoke(None, cfg) == {"log": ["cmd", "a", "b"]}
