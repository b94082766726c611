"""The v3 event stream of a run (`stream_events` / `astream_events(version="v3")`): lazily
pulled projections over the one Run's stream parts, transformers of the graph and the call,
chat models' protocol events, subgraph handles, failures and aborts."""
from __future__ import annotations

import asyncio
import functools
import operator
from typing import Annotated, Any

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.language_models.chat_model_stream import AsyncChatModelStream, ChatModelStream
from langchain_core.messages import AIMessage
from typing_extensions import TypedDict

from engine import END, START, InMemorySaver, MessagesState, StateGraph, interrupt
from engine.errors import GraphInterrupt
from engine.streaming import (
    CustomTransformer,
    GraphRunStream,
    StreamChannel,
    StreamTransformer,
    TasksTransformer,
    UpdatesTransformer,
)



class S(TypedDict):
    value: str
    items: Annotated[list[str], operator.add]


def _step(name: str, calls: list[str] | None = None) -> Any:
    def node(state: S) -> dict[str, Any]:
        if calls is not None:
            calls.append(name)
        return {"value": state["value"] + name, "items": [name]}
    return node


def _chain(*steps: tuple[str, Any], **compile_kw: Any) -> Any:
    g = StateGraph(S)
    for name, fn in steps:
        g.add_node(name, fn)
    g.add_edge(START, steps[0][0])
    for (a, _), (b, _) in zip(steps, steps[1:]):
        g.add_edge(a, b)
    g.add_edge(steps[-1][0], END)
    return g.compile(**compile_kw)


def _nested() -> Any:
    return _chain(("a", _step("a")), ("sub", _chain(("x", _step("x")))))


class Counter(StreamTransformer):
    """Counts the root's values events on a named channel (wired into the main log)."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self.channel: StreamChannel[int] = StreamChannel("counter")
        self.count = 0

    def init(self) -> dict[str, Any]:
        return {"counter": self.channel}

    def process(self, event: dict[str, Any]) -> bool:
        if event["method"] == "values" and self.in_scope(event):
            self.count += 1
            self.channel.push(self.count)
        return True


def test_nothing_runs_until_the_stream_is_read_then_only_as_far_as_needed() -> None:
    calls: list[str] = []
    graph = _chain(("a", _step("a", calls)), ("b", _step("b", calls)), ("c", _step("c", calls)))
    run = graph.stream_events({"value": "", "items": []}, version="v3")
    assert calls == []
    values = iter(run.values)
    assert next(values) == {"value": "", "items": []}
    assert next(values) == {"value": "a", "items": ["a"]}
    assert calls == ["a"]  # b has not run: the reader has not asked for more
    run.abort()
    assert list(values) == []
    assert calls == ["a"]


def test_main_log_is_numbered_and_names_each_subgraph_lifecycle() -> None:
    run = _nested().stream_events({"value": "", "items": []}, version="v3")
    events = list(run)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    lifecycle = [e["params"]["data"] for e in events if e["method"] == "lifecycle"]
    assert [(p["event"], p["graph_name"] if "graph_name" in p else None) for p in lifecycle] == [
        ("started", "sub"), ("completed", None)]
    assert lifecycle[0]["namespace"][0].startswith("sub:")
    assert {e["method"] for e in events} == {"values", "lifecycle"}  # tasks events stay out of the log
    assert run.output == {"value": "ax", "items": ["a", "a", "x"]}


def test_subgraph_handle_sees_its_own_values_and_ends_completed() -> None:
    run = _nested().stream_events({"value": "", "items": []}, version="v3")
    handles = []
    for handle in run.subgraphs:
        handles.append((handle.graph_name, list(handle.values), handle.status))
    assert handles == [("sub", [{"value": "ax", "items": ["a", "x"]}], "completed")]


def test_custom_transformer_projection_and_its_wired_events() -> None:
    graph = _chain(("a", _step("a")), ("b", _step("b")))
    run = graph.stream_events({"value": "", "items": []}, version="v3", transformers=[Counter])
    counts = iter(run.extensions["counter"])
    assert not hasattr(run, "counter")  # only the built-in projections are attributes
    assert run.output["value"] == "ab"
    assert list(counts) == [1, 2, 3]
    wired = [e for e in graph.stream_events({"value": "", "items": []}, version="v3", transformers=[Counter])
             if e["method"] == "custom:counter"]
    assert [e["params"]["data"] for e in wired] == [1, 2, 3]


def test_compile_transformers_apply_to_every_run_and_instances_are_refused() -> None:
    g = StateGraph(S)
    g.add_node("a", _step("a"))
    g.add_edge(START, "a")
    graph = g.compile(transformers=[Counter])
    assert "counter" in graph.stream_events({"value": "", "items": []}, version="v3").extensions
    with pytest.raises(TypeError, match="pre-built instance of Counter"):
        graph.stream_events({"value": "", "items": []}, version="v3", transformers=[Counter()])
    with pytest.raises(TypeError, match="pre-built instance"):
        g.compile(transformers=[Counter()])


def test_configured_factory_and_opt_in_mode_projections() -> None:
    class Labelled(Counter):
        def __init__(self, scope: tuple[str, ...] = (), *, label: str = "") -> None:
            super().__init__(scope)
            self.channel = StreamChannel(label)

        def init(self) -> dict[str, Any]:
            return {self.channel.name or "": self.channel}

    def writer_node(state: S, writer: Any) -> dict[str, Any]:
        writer({"working": True})
        return {"value": "w", "items": ["w"]}

    graph = _chain(("w", writer_node))
    run = graph.stream_events({"value": "", "items": []}, version="v3",
                              transformers=[functools.partial(Labelled, label="seen"), CustomTransformer,
                                            UpdatesTransformer, TasksTransformer])
    got: dict[str, list[Any]] = {"custom": [], "updates": [], "tasks": [], "seen": []}
    for name, item in run.interleave("custom", "updates", "tasks", "seen"):
        got[name].append(item)
    assert got["custom"] == [{"working": True}]
    assert got["updates"] == [{"w": {"value": "w", "items": ["w"]}}]
    assert [t["name"] for t in got["tasks"]] == ["w", "w"]  # its start and its result
    assert got["seen"] == [1, 2]


def test_stream_mode_and_subgraphs_are_not_arguments_of_v3() -> None:
    graph = _chain(("a", _step("a")))
    for kwargs in ({"stream_mode": "values"}, {"subgraphs": True}):
        with pytest.raises(TypeError, match=next(iter(kwargs))):
            graph.stream_events({"value": "", "items": []}, version="v3", **kwargs)
    with pytest.raises(ValueError, match="v3"):
        graph.stream_events({"value": "", "items": []}, version="v2")


def test_a_failure_fails_every_projection_and_a_subgraph_handle_says_why() -> None:
    def boom(state: S) -> dict[str, Any]:
        raise ValueError("child boom")

    graph = _chain(("inner", _chain(("fail", boom))))
    run = graph.stream_events({"value": "", "items": []}, version="v3")
    handle = next(iter(run.subgraphs))
    with pytest.raises(RuntimeError, match="child boom"):
        _ = handle.output
    assert (handle.status, handle.error) == ("failed", "child boom")
    with pytest.raises(ValueError, match="child boom"):
        _ = run.output
    with pytest.raises(ValueError, match="child boom"):
        list(graph.stream_events({"value": "", "items": []}, version="v3").values)


def test_an_interrupted_run_reports_its_interrupts() -> None:
    def ask(state: S) -> dict[str, Any]:
        return {"value": interrupt("approve?"), "items": []}

    graph = _chain(("a", _step("a")), ("ask", ask), checkpointer=InMemorySaver())
    run = graph.stream_events({"value": "", "items": []}, {"configurable": {"thread_id": "t"}}, version="v3")
    assert run.output == {"value": "a", "items": ["a"]}
    assert run.interrupted is True
    assert [i.value for i in run.interrupts] == ["approve?"]


def test_chat_model_invoked_in_a_node_streams_protocol_events() -> None:
    model = GenericFakeChatModel(messages=iter(["hello world"]))

    def call(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}



    g = StateGraph(MessagesState)
    g.add_node("call", call)
    g.add_edge(START, "call")
    run = g.compile().stream_events({"messages": "hi"}, version="v3")
    (stream,) = list(run.messages)
    assert isinstance(stream, ChatModelStream)
    assert stream.node == "call"
    assert "".join(stream.text) == "hello world"
    kinds = [e.get("event") for e in stream]
    assert kinds[0] == "message-start" and kinds[-1] == "message-finish"
    assert run.output["messages"][-1].text == "hello world"


def test_a_message_returned_whole_is_one_finished_stream() -> None:


    g = StateGraph(MessagesState)
    g.add_node("say", lambda state: {"messages": [AIMessage(content="hardcoded", id="m1")]})
    g.add_edge(START, "say")
    (stream,) = list(g.compile().stream_events({"messages": "hi"}, version="v3").messages)
    assert stream.done and stream.output.text == "hardcoded"


def test_async_run_stream_output_messages_and_abort() -> None:
    model = GenericFakeChatModel(messages=iter(["async answer"]))

    async def call(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}



    g = StateGraph(MessagesState)
    g.add_node("call", call)
    g.add_edge(START, "call")
    graph = g.compile()

    async def main() -> tuple[list[str], Any, bool]:
        run = await graph.astream_events({"messages": "hi"}, version="v3")
        texts = []
        async for stream in run.messages:
            assert isinstance(stream, AsyncChatModelStream)
            texts.append((await stream.output).text)
        output = await run.output()
        later = await graph.astream_events({"messages": "again"}, version="v3")
        async with later:
            await later.__aiter__().__anext__()
        return texts, output, later._exhausted

    texts, output, aborted = asyncio.run(main())
    assert texts == ["async answer"]
    assert output["messages"][-1].text == "async answer"
    assert aborted


def test_async_transformer_is_refused_by_a_sync_run_and_runs_in_an_async_one() -> None:
    class Slow(StreamTransformer):
        requires_async = True

        def __init__(self, scope: tuple[str, ...] = ()) -> None:
            super().__init__(scope)
            self.log: StreamChannel[str] = StreamChannel()

        def init(self) -> dict[str, Any]:
            return {"slow": self.log}

        async def aprocess(self, event: dict[str, Any]) -> bool:
            await asyncio.sleep(0)
            self.log.push(event["method"])
            return True

    graph = _chain(("a", _step("a")))
    with pytest.raises(RuntimeError, match="requires an async run"):
        graph.stream_events({"value": "", "items": []}, version="v3", transformers=[Slow])

    async def main() -> list[str]:
        run = await graph.astream_events({"value": "", "items": []}, version="v3", transformers=[Slow])
        seen = aiter(run.extensions["slow"])
        await run.output()
        return [m async for m in seen]

    assert asyncio.run(main()) == ["values", "tasks", "tasks", "values"]


def test_graph_interrupt_marks_open_subgraphs_interrupted() -> None:
    from engine.streaming import LifecycleTransformer

    t = LifecycleTransformer()
    t._channel._bind(is_async=False)
    items = iter(t._channel)
    t.process({"type": "event", "method": "tasks",
               "params": {"namespace": ["agent:abc"], "timestamp": 0,
                          "data": {"id": "t1", "name": "tool", "input": None, "triggers": []}}})
    t.fail(GraphInterrupt(()))
    t._channel.close()
    assert [p["event"] for p in items] == ["started", "interrupted"]


def test_run_stream_is_the_type_stream_events_returns() -> None:
    assert isinstance(_chain(("a", _step("a"))).stream_events({"value": "", "items": []}, version="v3"),
                      GraphRunStream)
