"""Old spellings of LangGraph's API still work on the engine and warn with LangGraph's
warning classes (`langgraph.warnings`), so code that filters or asserts on them behaves
the same: renamed keywords, `config_schema`, `checkpoint_during`, moved imports,
`Interrupt.interrupt_id`, dict access on a `GraphOutput`, MessageGraph, and a node whose
`config` parameter has a hint that is not RunnableConfig."""
from __future__ import annotations

import warnings
from typing import Any

from typing_extensions import TypedDict

import pytest

from engine import compat


class S(TypedDict, total=False):
    n: int
    durability: str


@pytest.fixture
def lg():
    compat.install()
    import langgraph.warnings as w

    yield w
    compat.uninstall()


def test_renamed_keywords_warn_since_v05_and_still_apply(lg) -> None:
    from langgraph.func import entrypoint, task
    from langgraph.graph import StateGraph
    from langgraph.types import RetryPolicy

    with pytest.warns(lg.LangGraphDeprecatedSinceV05, match="`input` is deprecated.*`input_schema`"):
        g = StateGraph(S, input=S)
    assert g.input_schema is S
    with pytest.warns(lg.LangGraphDeprecatedSinceV05, match="`output` is deprecated.*`output_schema`"):
        assert StateGraph(S, output=S).output_schema is S
    with pytest.warns(lg.LangGraphDeprecatedSinceV05, match="`retry` is deprecated.*`retry_policy`"):
        g.add_node("a", lambda s: s, retry=RetryPolicy(max_attempts=2))
    assert g.nodes["a"].retry[0].max_attempts == 2
    with pytest.warns(lg.LangGraphDeprecatedSinceV05, match="`retry` is deprecated"):
        task(retry=RetryPolicy())(lambda x: x)
    with pytest.warns(lg.LangGraphDeprecatedSinceV05, match="`retry` is deprecated"):
        entrypoint(retry=RetryPolicy())(lambda x: x)


def test_config_schema_is_the_context_schema_and_warns_since_v10(lg) -> None:
    from langgraph.func import entrypoint
    from langgraph.graph import StateGraph

    class Ctx(TypedDict):
        user: str

    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`config_schema` is deprecated and will be removed"):
        g = StateGraph(S, config_schema=Ctx)
    assert g.context_schema is Ctx
    g.add_node("a", lambda s: s)
    g.set_entry_point("a")
    app = g.compile()
    assert app.context_schema is Ctx
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="Use `get_context_jsonschema`"):
        model = app.config_schema()
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`get_config_jsonschema` is deprecated"):
        schema = app.get_config_jsonschema()
    assert model.model_json_schema() == schema
    assert schema["title"] == "LangGraphConfig" and "configurable" in schema["properties"]
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`config_schema` is deprecated"):
        ep = entrypoint(config_schema=Ctx)(lambda x: x)
    assert ep.context_schema is Ctx


def test_checkpoint_during_maps_to_durability_which_a_node_can_read(lg) -> None:
    from langgraph.graph import StateGraph

    def node(state: S, config: Any) -> S:
        return {"durability": config["configurable"]["__pregel_durability"]}

    g = StateGraph(S)
    with pytest.warns(UserWarning, match="'config' parameter should be typed as 'RunnableConfig'"):
        g.add_node("node", node)
    g.set_entry_point("node")
    app = g.compile()
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`checkpoint_during` is deprecated"):
        assert app.invoke({}, checkpoint_during=False)["durability"] == "exit"
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`checkpoint_during` is deprecated"):
        assert [c["node"]["durability"] for c in app.stream({}, checkpoint_during=True)] == ["async"]
    assert app.invoke({}, durability="sync")["durability"] == "sync"
    assert app.invoke({})["durability"] == "async"


def test_a_config_parameter_hinted_as_runnable_config_or_not_at_all_draws_no_warning(lg) -> None:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph import StateGraph

    def typed(state: S, config: RunnableConfig) -> S:
        return state

    def optional(state: S, config: RunnableConfig | None) -> S:
        return state

    def bare(state, config):  # noqa: ANN001
        return state

    g = StateGraph(S)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (typed, optional, bare):
            g.add_node(fn)


def test_moved_imports_warn_every_time(lg) -> None:
    import langgraph.types as types

    for _ in range(2):
        with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="Importing Send from langgraph.constants"):
            from langgraph.constants import Send
        assert Send is types.Send
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="Importing Interrupt from langgraph.constants"):
        from langgraph.constants import Interrupt
    assert Interrupt is types.Interrupt
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="PREVIOUS from langgraph.constants.*now private"):
        from langgraph.constants import PREVIOUS
    assert PREVIOUS == "__previous__"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from langgraph.constants import END, START  # noqa: F401
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="Importing from langgraph.pregel.types"):
        from langgraph.pregel.types import StateSnapshot
    assert StateSnapshot is types.StateSnapshot


def test_old_attribute_and_dict_access_warn(lg) -> None:
    from langgraph.types import GraphOutput, Interrupt

    i = Interrupt(value="q", id="abc")
    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="`interrupt_id` is deprecated. Use `id`"):
        assert i.interrupt_id == "abc"
    out = GraphOutput(value={"a": 1}, interrupts=(i,))
    with pytest.warns(lg.LangGraphDeprecatedSinceV11, match=r"GraphOutput via `result\[key\]` is deprecated"):
        assert out["a"] == 1 and out["__interrupt__"] == (i,)
    with pytest.warns(lg.LangGraphDeprecatedSinceV11, match="GraphOutput via `key in result` is deprecated"):
        assert "a" in out and "b" not in out


def test_message_graph_warns_and_runs_on_a_message_list(lg) -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from langgraph.graph import END, MessageGraph

    with pytest.warns(lg.LangGraphDeprecatedSinceV10, match="MessageGraph is deprecated"):
        g = MessageGraph()
    g.add_node("bot", lambda messages: AIMessage(f"{len(messages)} seen"))
    g.set_entry_point("bot")
    g.add_edge("bot", END)
    out = g.compile().invoke([HumanMessage("hi")])
    assert [type(m).__name__ for m in out] == ["HumanMessage", "AIMessage"]
    assert out[-1].content == "1 seen"
