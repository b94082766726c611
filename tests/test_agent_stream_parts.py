"""The stream parts agent libraries build on: ToolCallTransformer's tool-call handles, the
`_TasksLifecycleBase` hooks langchain's SubagentTransformer overrides (driven by a real
subgraph run's v3 stream), and the `langgraph.typing` / `langgraph.constants` names."""
from __future__ import annotations

import contextlib
import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.compat.agent_stream_names import _TasksLifecycleBase
from engine.prebuilt import ToolCallTransformer


def _event(data, ns=()):
    return {"type": "event", "method": "tools", "params": {"namespace": list(ns), "data": data}}


def test_tool_events_become_one_handle_per_call_with_its_deltas_and_output():
    t = ToolCallTransformer()
    log = t.init()["tool_calls"]
    log._bind(is_async=False)
    handles = iter(log)
    t.process(_event({"event": "tool-started", "tool_call_id": "c1", "tool_name": "add", "input": {"a": 1}}))
    t.process(_event({"event": "tool-started", "tool_call_id": "c9", "tool_name": "x"}, ns=("sub:1",)))
    first = next(handles)
    deltas = iter(first.output_deltas)
    t.process(_event({"event": "tool-output-delta", "tool_call_id": "c1", "delta": "pa"}))
    t.process(_event({"event": "tool-finished", "tool_call_id": "c1",
                      "output": {"type": "constructor", "id": ["x", "ToolMessage"], "kwargs": {"content": "3"}}}))
    assert (first.tool_name, first.input, first.output, first.completed) == ("add", {"a": 1}, "3", True)
    assert list(deltas) == ["pa"]
    t.process(_event({"event": "tool-started", "tool_call_id": "c2", "tool_name": "boom"}))
    t.process(_event({"event": "tool-error", "tool_call_id": "c2", "message": "bad"}))
    second = next(handles)
    assert (second.error, second.completed, "failed" in repr(second)) == ("bad", True, True)
    t.finalize()
    log.close()
    assert list(handles) == []  # the subgraph's call belongs to the subgraph's own scope


class Hooks(_TasksLifecycleBase):
    def __init__(self, scope=()):
        super().__init__(scope)
        self.seen: list[tuple] = []

    def _on_started(self, ns, graph_name, trigger_call_id):
        self.seen.append(("started", ns[-1].split(":")[0], graph_name))

    def _on_terminal(self, ns, status, error):
        self.seen.append(("ended", ns[-1].split(":")[0], status))


class S(TypedDict):
    xs: Annotated[list, operator.add]


def _graph(fail: bool):
    inner = StateGraph(S)

    def step(s):
        if fail:
            raise ValueError("inner broke")
        return {"xs": ["i"]}

    inner.add_node("step", step)
    inner.add_edge(START, "step")
    inner.add_edge("step", END)
    outer = StateGraph(S)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    outer.add_edge("child", END)
    return outer.compile(transformers=[Hooks])


@pytest.mark.parametrize("fail", [False, True])
def test_lifecycle_hooks_see_a_subgraph_start_and_end(fail):
    run = _graph(fail).stream_events({"xs": []}, version="v3")
    events = []
    with pytest.raises(ValueError) if fail else contextlib.nullcontext():
        for e in run:
            events.append(e)
    hooks = next(t for t in run._mux._transformers if isinstance(t, Hooks))
    assert hooks.seen[0] == ("started", "child", "child")
    assert hooks.seen[-1] == ("ended", "child", "failed" if fail else "completed")
    assert not any(e["method"] == "tasks" for e in events)  # folded, not logged twice


def test_langgraph_typing_and_tag_names_are_served():
    from engine import compat

    compat.install()
    from langgraph.constants import TAG_NOSTREAM
    from langgraph.typing import ContextT, StateT

    assert TAG_NOSTREAM == "nostream"
    assert ContextT.__name__ == "ContextT" and StateT.__name__ == "StateT"
