"""Graph lifecycle callbacks (GraphCallbackHandler: on_interrupt, on_resume) and a node's
TracePolicy (what its own trace run records), seen by real LangChain callback handlers."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.tracers.base import BaseTracer
from typing_extensions import TypedDict

from engine import START, Command, InMemorySaver, StateGraph, interrupt
from engine.callbacks import GraphCallbackHandler, GraphInterruptEvent, GraphResumeEvent
from engine.types import TracePolicy, omit_payload


class Recorder(GraphCallbackHandler):
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_interrupt(self, event: GraphInterruptEvent) -> None:
        self.events.append(("interrupt", event))

    def on_resume(self, event: GraphResumeEvent) -> None:
        self.events.append(("resume", event))


class Plain(BaseCallbackHandler):
    def __init__(self) -> None:
        self.custom: list[str] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.custom.append(name)


class Tracer(BaseTracer):
    def __init__(self) -> None:
        super().__init__()
        self.runs: list[Any] = []

    def _persist_run(self, run: Any) -> None:
        self.runs.append(run)

    def named(self, name: str) -> Any:
        stack, found = list(self.runs), []
        while stack:
            run = stack.pop()
            found.append(run)
            stack.extend(run.child_runs)
        return next(r for r in found if r.name == name)


class A(TypedDict):
    answer: str | None


def _asking() -> Any:
    g = StateGraph(A)
    g.add_node("ask", lambda state: {"answer": interrupt("value?")})
    g.add_edge(START, "ask")
    return g.compile(checkpointer=InMemorySaver())


def test_interrupt_and_resume_reach_graph_handlers_only() -> None:
    graph, recorder, plain = _asking(), Recorder(), Plain()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [plain, recorder]}
    assert "__interrupt__" in graph.invoke({"answer": None}, config)
    ((kind, event),) = recorder.events
    assert kind == "interrupt" and event.checkpoint_ns == () and [i.value for i in event.interrupts] == ["value?"]
    assert graph.invoke(Command(resume="done"), config) == {"answer": "done"}
    assert [k for k, _ in recorder.events] == ["interrupt", "resume"]
    assert recorder.events[1][1].checkpoint_id == event.checkpoint_id
    assert plain.custom == []


def test_a_raising_handler_is_logged_unless_it_asks_to_raise() -> None:
    class Raising(GraphCallbackHandler):
        def __init__(self, raise_error: bool) -> None:
            self.raise_error = raise_error

        async def on_interrupt(self, event: GraphInterruptEvent) -> None:
            raise ValueError("boom-interrupt")

    recorder = Recorder()
    out = _asking().invoke({"answer": None}, {"configurable": {"thread_id": "a"},
                                              "callbacks": [Raising(False), recorder]})
    assert "__interrupt__" in out and len(recorder.events) == 1
    with pytest.raises(ValueError, match="boom-interrupt"):
        asyncio.run(_asking().ainvoke({"answer": None}, {"configurable": {"thread_id": "b"},
                                                          "callbacks": [Raising(True)]}))


def test_handlers_in_a_callback_manager_are_found() -> None:
    recorder = Recorder()
    manager = CallbackManager.configure(inheritable_callbacks=[Plain()])
    manager.add_handler(recorder)
    _asking().invoke({"answer": None}, {"configurable": {"thread_id": "m"}, "callbacks": manager})
    assert [k for k, _ in recorder.events] == ["interrupt"]


class V(TypedDict):
    value: int


def _traced(policy: Any) -> Any:
    g = StateGraph(V)
    g.add_node("n", lambda state: {"value": state["value"] + 1}, trace_policy=policy)
    g.add_edge(START, "n")
    return g.compile()


def test_trace_policy_changes_what_the_node_run_records_not_what_it_does() -> None:
    seen: list[Any] = []

    def scrub(value: Any) -> Any:
        seen.append(value)
        return {"scrubbed": True}

    tracer = Tracer()
    graph = _traced(TracePolicy(process_inputs=scrub, process_outputs=omit_payload))
    assert graph.invoke({"value": 1}, {"callbacks": [tracer]}) == {"value": 2}
    run = tracer.named("n")
    assert (run.inputs, run.outputs) == ({"scrubbed": True}, {})
    assert seen == [{"value": 1}]
    plain = Tracer()
    assert _traced(None).invoke({"value": 1}, {"callbacks": [plain]}) == {"value": 2}
    assert (plain.named("n").inputs, plain.named("n").outputs) == ({"value": 1}, {"value": 2})


def test_a_failing_trace_processor_records_the_real_value() -> None:
    def boom(value: Any) -> Any:
        raise RuntimeError("processor failed")

    tracer = Tracer()
    assert _traced(TracePolicy(process_inputs=boom)).invoke({"value": 1}, {"callbacks": [tracer]}) == {"value": 2}
    assert tracer.named("n").inputs == {"value": 1}
    assert _traced(TracePolicy(process_inputs=boom)).invoke({"value": 1}) == {"value": 2}
