"""LangGraph's deprecation warnings for old spellings (class and text), a thread moved from a
BinaryOperatorAggregate key to a DeltaChannel key, and the ids DeltaChannel writes get."""
import operator
import warnings
from typing import Annotated

from typing_extensions import TypedDict


def _mods(api):
    if api.impl == "langgraph":
        from langgraph.channels.binop import BinaryOperatorAggregate
        from langgraph.channels.delta import DeltaChannel
        from langgraph.func import task
        from langgraph.graph.message import MessageGraph
        from langgraph.types import GraphOutput, Interrupt, RetryPolicy
    else:
        from engine.compat.channels import BinaryOperatorAggregate, DeltaChannel
        from engine.func import task
        from engine.graph import MessageGraph
        from engine.types import GraphOutput, Interrupt, RetryPolicy
    return BinaryOperatorAggregate, DeltaChannel, task, MessageGraph, GraphOutput, Interrupt, RetryPolicy


def _caught(fn):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        value = fn()
    return [[type(w.message).__name__, str(w.message).split(" is deprecated")[0][:60], getattr(w.message, "expected_removal", None)]
            for w in seen
            if "Deprecat" in type(w.message).__name__ or w.category is UserWarning], value


class S(TypedDict, total=False):
    n: int


def case_old_spellings_warn_with_langgraphs_classes(api, tmp):
    _, _, task, MessageGraph, GraphOutput, Interrupt, RetryPolicy = _mods(api)
    out = {}
    out["input"] = _caught(lambda: api.StateGraph(S, input=S).input_schema is S)
    out["config_schema"] = _caught(lambda: api.StateGraph(S, config_schema=S).context_schema is S)
    g = api.StateGraph(S)
    out["retry"] = _caught(lambda: g.add_node("a", lambda s: s, retry=RetryPolicy()) is g)
    out["task_retry"] = _caught(lambda: task(retry=RetryPolicy())(lambda x: x) is not None)

    def typed_dict_config(state: S, config: dict) -> S:
        return state

    out["config_hint"] = _caught(lambda: g.add_node("b", typed_dict_config) is g)
    g.add_edge(api.START, "a")
    app = g.compile()
    out["config_schema_call"] = _caught(lambda: sorted(app.config_schema().model_json_schema()))
    out["checkpoint_during"] = _caught(lambda: app.invoke({"n": 1}, checkpoint_during=False))
    i = Interrupt(value="q", id="abc")
    out["interrupt_id"] = _caught(lambda: i.interrupt_id)
    go = GraphOutput(value={"a": 1}, interrupts=(i,))
    out["getitem"] = _caught(lambda: go["a"])
    out["contains"] = _caught(lambda: "a" in go)
    out["message_graph"] = _caught(lambda: type(MessageGraph()).__name__)
    return out


def _concat(state, writes):
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


def _noop(state):
    return {}


def case_binop_key_moved_to_a_delta_channel_keeps_its_thread(api, tmp):
    Binop, Delta, *_ = _mods(api)

    class Before(TypedDict):
        items: Annotated[list, Binop(list, operator.add)]

    class After(TypedDict):
        items: Annotated[list, Delta(_concat)]

    saver = api.InMemorySaver()
    cfg = {"configurable": {"thread_id": "t"}}

    def build(schema):
        return (api.StateGraph(schema).add_node("noop", _noop).add_edge(api.START, "noop")
                .add_edge("noop", api.END).compile(checkpointer=saver))

    before = build(Before)
    for i in range(2):
        before.invoke({"items": [f"u{i}"]}, cfg)
    after = build(After)
    out = {"migrated": after.get_state(cfg).values}
    out["settled"] = [s.values.get("items") for s in after.get_state_history(cfg) if s.next == ("__start__",)]
    out["next_turn"] = after.invoke({"items": ["v0"]}, cfg)
    out["after_next_turn"] = after.get_state(cfg).values
    return out


def case_messages_written_to_a_delta_channel_get_stable_ids(api, tmp):
    _, Delta, *_ = _mods(api)
    from langchain_core.messages import AIMessage, HumanMessage

    class State(TypedDict):
        messages: Annotated[list, Delta(_concat)]

    app = (api.StateGraph(State).add_node("agent", lambda s: {"messages": [AIMessage("reply", id="ai-1")]})
           .add_edge(api.START, "agent").compile(checkpointer=api.InMemorySaver()))
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"messages": [HumanMessage("hello"), {"role": "user", "content": "hi"}]}, cfg)
    reads = [[m.id for m in app.get_state(cfg).values["messages"]] for _ in range(2)]
    return {"types": [type(m).__name__ for m in app.get_state(cfg).values["messages"]],
            "has_ids": [i is not None for i in reads[0]], "stable": reads[0] == reads[1], "ai": reads[0][-1]}
