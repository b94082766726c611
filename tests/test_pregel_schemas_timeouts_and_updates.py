"""A `Pregel` graph as LangGraph's: its input/output schemas read from its channels, node
timeouts (`NodeBuilder.set_timeout`), `invoke` returning the last state that wrote an output
channel, and `update_state` going through the writers of the node it names."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine import InMemorySaver, SqliteSaver
from engine.compat.channels import EphemeralValue, LastValue
from engine.errors import NodeTimeoutError
from engine.policies import TimeoutPolicy
from engine.pregel_api import NodeBuilder, Pregel, PregelNode


def add_one(x: int) -> int:
    return x + 1


def _chain(saver: Any = None, **kw: Any) -> Pregel:
    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(add_one).write_to("output")
    return Pregel(nodes={"one": one, "two": two},
                  channels={"input": LastValue(int), "inbox": LastValue(int), "output": LastValue(int)},
                  input_channels="input", output_channels="output", checkpointer=saver, **kw)


def test_one_channel_schema_is_its_type_and_a_list_of_channels_an_object() -> None:
    app = _chain()
    assert app.input_schema.model_json_schema() == {"title": "LangGraphInput", "type": "integer"}
    assert app.get_output_jsonschema() == {"title": "LangGraphOutput", "type": "integer"}
    both = Pregel(nodes={"one": NodeBuilder().subscribe_only("a").do(add_one).write_to("b")},
                  channels={"a": LastValue(int), "b": LastValue(str)},
                  input_channels=["a"], output_channels=["a", "b"])
    assert both.get_input_jsonschema() == {
        "title": "LangGraphInput", "type": "object",
        "properties": {"a": {"title": "A", "type": "integer", "default": None}}}
    assert both.output_schema.model_json_schema()["properties"]["b"] == {"title": "B", "type": "string",
                                                                         "default": None}


def test_invoke_returns_none_when_the_run_wrote_no_output_channel(tmp_path: Any) -> None:
    app = _chain(SqliteSaver(str(tmp_path / "runs.sqlite")), interrupt_after_nodes=["one"])
    cfg = {"configurable": {"thread_id": "t"}}
    assert app.invoke(2, cfg) is None  # stopped after `one`: `output` not written yet
    assert app.invoke(None, cfg) == 4
    # a new input on the same thread: `output` still holds 4, but this run has not written it
    assert app.invoke(20, cfg) is None
    assert app.get_state(cfg).values["output"] == 4
    assert app.invoke(None, cfg) == 22


def test_values_stream_shows_only_supersteps_that_wrote_a_shown_channel() -> None:
    app = _chain()
    assert list(app.stream(2, stream_mode="values", output_keys="output")) == [4]
    assert list(app.stream(2, stream_mode="values", output_keys=["inbox"])) == [{"inbox": 3}]
    # every channel by default; as LangGraph, the input itself is not shown
    assert list(app.stream(2, stream_mode="values")) == [{"input": 2, "inbox": 3}, {"input": 2, "inbox": 3, "output": 4}]


def test_update_state_as_a_node_goes_through_its_writers() -> None:
    app = _chain(InMemorySaver(), interrupt_before_nodes=["two"])
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke(2, cfg)
    app.update_state(cfg, 25, as_node="one")  # as if `one` returned 25: written to inbox
    assert app.get_state(cfg).values["inbox"] == 25
    assert app.get_state(cfg).next == ("two",)
    assert app.invoke(None, cfg) == 26


def test_update_state_without_as_node_is_the_node_that_ran_last() -> None:
    app = _chain(InMemorySaver(), interrupt_after_nodes=["one"])
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke(2, cfg)
    app.update_state(cfg, 9)
    assert app.get_state(cfg).values["inbox"] == 9
    assert app.invoke(None, cfg) == 10


def test_a_timed_out_async_node_raises_node_timeout_error() -> None:
    async def slow(value: int) -> int:
        await asyncio.sleep(5)
        return value

    app = Pregel(nodes={"slow": NodeBuilder().subscribe_only("input").do(slow)
                        .set_timeout(TimeoutPolicy(idle_timeout=0.05)).write_to("output")},
                 channels={"input": EphemeralValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    with pytest.raises(NodeTimeoutError):
        asyncio.run(app.ainvoke(1))


def test_a_fast_async_node_with_a_timeout_finishes() -> None:
    async def fast(value: int) -> int:
        return value * 3

    app = Pregel(nodes={"fast": NodeBuilder().subscribe_only("input").do(fast).set_timeout(30).write_to("output")},
                 channels={"input": EphemeralValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    assert asyncio.run(app.ainvoke(2)) == 6
    assert app.invoke(3) == 9


def test_a_sync_node_with_a_timeout_is_refused_when_the_graph_is_built() -> None:
    with pytest.raises(ValueError, match="only supported for async nodes.*`slow`|`slow`.*only supported for async"):
        Pregel(nodes={"slow": NodeBuilder().subscribe_only("input").do(add_one).set_timeout(1).write_to("output")},
               channels={"input": EphemeralValue(int), "output": LastValue(int)},
               input_channels="input", output_channels="output")


def test_a_timeout_of_zero_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="greater than 0"):
        NodeBuilder().set_timeout(0)
    with pytest.raises(ValueError, match="greater than 0"):
        PregelNode(channels="x", triggers=("x",), timeout=0)


def test_checkpoint_dict_form_lists_the_input_channels() -> None:
    saver = InMemorySaver()
    app = Pregel(nodes={"one": NodeBuilder().subscribe_only("input").write_to("output")},
                 channels={"ephemeral": EphemeralValue(Any), "input": LastValue(int), "output": LastValue(int)},
                 input_channels=["input", "ephemeral"], output_channels="output", checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    assert app.invoke({"input": 1, "ephemeral": "x"}, cfg) == 1
    assert saver.get(cfg)["channel_values"] == {"input": 1, "output": 1}
