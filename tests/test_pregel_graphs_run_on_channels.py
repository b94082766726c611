"""The low-level graph API (`Pregel` + `NodeBuilder`): nodes triggered by the channels
they subscribe to, writes folded through LangGraph's channel classes, on real savers."""
from __future__ import annotations

import asyncio
import operator
from pathlib import Path

import pytest

from engine import InMemorySaver, SqliteSaver, StateGraph
from engine.compat.channels import BinaryOperatorAggregate, LastValue, Topic
from engine.errors import InvalidUpdateError
from engine.pregel_api import Channel, ChannelWriteEntry, NodeBuilder, Pregel


def add_one(x: int) -> int:
    return x + 1


def _chain(saver=None, **kw) -> Pregel:
    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("inbox")
    two = NodeBuilder().subscribe_only("inbox").do(add_one).write_to("output")
    return Pregel(nodes={"one": one, "two": two},
                  channels={"input": LastValue(int), "inbox": LastValue(int), "output": LastValue(int)},
                  input_channels="input", output_channels="output", checkpointer=saver, **kw)


def test_a_node_runs_in_the_superstep_after_its_channel_is_written() -> None:
    app = _chain()
    assert app.invoke(2) == 4
    assert list(app.stream(2, stream_mode="updates")) == [{"one": {"inbox": 3}}, {"two": {"output": 4}}]


def test_subscribe_to_reads_a_dict_and_read_from_does_not_trigger() -> None:
    seen = []

    def record(x):
        seen.append(x)
        return 10

    both = NodeBuilder().subscribe_to("a", "b").write_to("c")
    reader = NodeBuilder().subscribe_to("a").read_from("c").do(record).write_to(d=lambda v: v + 1, fixed=5)
    app = Pregel(nodes={"both": both, "reader": reader},
                 channels={"a": LastValue(int), "b": LastValue(int), "c": LastValue(dict), "d": LastValue(int),
                           "fixed": LastValue(int)},
                 input_channels=["a", "b"], output_channels=["c", "d", "fixed"])
    assert app.invoke({"a": 1}) == {"c": {"a": 1}, "d": 11, "fixed": 5}
    assert seen == [{"a": 1}]  # c was still empty when reader ran, and writing c did not trigger it again


def test_two_writes_of_a_last_value_in_one_step_are_refused() -> None:
    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("output")
    two = NodeBuilder().subscribe_only("input").do(add_one).write_to("output")
    app = Pregel(nodes={"one": one, "two": two}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    with pytest.raises(InvalidUpdateError):
        app.invoke(2)


def test_topic_and_aggregate_channels_collect_every_writer() -> None:
    one = NodeBuilder().subscribe_only("input").do(add_one).write_to("topic", "total")
    two = NodeBuilder().subscribe_only("input").do(lambda x: x * 10).write_to("topic", "total")
    app = Pregel(nodes={"one": one, "two": two},
                 channels={"input": LastValue(int), "topic": Topic(int),
                           "total": BinaryOperatorAggregate(int, operator.add)},
                 input_channels="input", output_channels=["topic", "total"])
    out = app.invoke(2)
    assert sorted(out["topic"]) == [3, 20] and out["total"] == 23


def test_a_skip_none_write_is_not_written() -> None:
    node = NodeBuilder().subscribe_only("input").do(lambda x: None).write_to(
        ChannelWriteEntry("output", skip_none=True), ChannelWriteEntry("seen", value=True))
    app = Pregel(nodes={"n": node},
                 channels={"input": LastValue(int), "output": LastValue(int), "seen": LastValue(bool)},
                 input_channels="input", output_channels=["output", "seen"])
    assert app.invoke(1) == {"seen": True}


def test_channel_spelling_builds_the_same_node() -> None:
    node = Channel.subscribe_to("input").do(add_one).write_to("output")
    app = Pregel(nodes={"n": node}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    assert app.invoke(1) == 2
    piped = Channel.subscribe_to("input") | add_one | Channel.write_to("output")
    assert Pregel(nodes={"n": piped}, channels={"input": LastValue(int), "output": LastValue(int)},
                  input_channels="input", output_channels="output").invoke(1) == 2
    assert Channel.write_to("a", b=1).writes == (ChannelWriteEntry("a"), ChannelWriteEntry("b", 1))


def test_an_unknown_channel_is_named_when_the_graph_is_built() -> None:
    node = NodeBuilder().subscribe_only("input").write_to("nowhere")
    with pytest.raises(ValueError, match="`nowhere`"):
        Pregel(nodes={"n": node}, channels={"input": LastValue(int)}, input_channels="input",
               output_channels="input")


def test_checkpoints_and_interrupt_before_on_a_sqlite_file(tmp_path: Path) -> None:
    app = _chain(SqliteSaver(str(tmp_path / "runs.sqlite")), interrupt_before_nodes=["two"])
    cfg = {"configurable": {"thread_id": "t"}}
    assert app.invoke(2, cfg) is None
    state = app.get_state(cfg)
    assert state.next == ("two",) and state.values == {"input": 2, "inbox": 3}
    app.update_state(cfg, 10)  # as the node that ran last ("one"): through its writer, into inbox
    assert app.get_state(cfg).values["inbox"] == 10
    assert app.invoke(None, cfg) == 11
    assert app.get_state(cfg).values["output"] == 11


def test_interrupt_after_resumes_in_memory() -> None:
    app = _chain(InMemorySaver(), interrupt_after_nodes=["one"])
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke(5, cfg)
    assert app.get_state(cfg).next == ("two",)
    assert app.invoke(None, cfg) == 7


def test_every_compiled_graph_is_a_pregel() -> None:
    builder = StateGraph(dict)
    builder.add_node("x", lambda s: s)
    builder.set_entry_point("x")
    assert isinstance(builder.compile(), Pregel)
    assert isinstance(_chain(), Pregel) and not isinstance(object(), Pregel)


def test_an_async_node_runs_under_ainvoke() -> None:
    async def double(x):
        return x * 2

    node = NodeBuilder().subscribe_only("input").do(double).write_to("output")
    app = Pregel(nodes={"n": node}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    assert asyncio.run(app.ainvoke(4)) == 8


def test_langgraph_pregel_imports_are_served_by_the_engine() -> None:
    from engine import compat

    compat.install()
    try:
        from langgraph.pregel import NodeBuilder as LGNodeBuilder
        from langgraph.pregel import Pregel as LGPregel
        from langgraph.pregel.main import ChannelWriteEntry as LGEntry
        from langgraph.pregel.protocol import PregelProtocol
        from langgraph.pregel.types import StateSnapshot

        from engine.types import StateSnapshot as Snapshot
    finally:
        compat.uninstall()
    assert (LGPregel, LGNodeBuilder, LGEntry, StateSnapshot) == (Pregel, NodeBuilder, ChannelWriteEntry, Snapshot)
    assert isinstance(_chain(), PregelProtocol)


class _Recorder:
    """A callable whose every attribute exists on the instance only (as a test double's):
    `invoke` here is data, not the runnable method of its class."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.invoke = "not a method"

    def __call__(self, x: int) -> int:
        self.calls.append(x)
        return x * 10


def test_a_callable_with_an_instance_invoke_attribute_is_called_not_invoked() -> None:
    rec = _Recorder()
    node = NodeBuilder().subscribe_only("input").do(rec).write_to("output")
    app = Pregel(nodes={"n": node}, channels={"input": LastValue(int), "output": LastValue(int)},
                 input_channels="input", output_channels="output")
    assert app.invoke(3) == 30
    assert asyncio.run(app.ainvoke(4)) == 40
    assert rec.calls == [3, 4]
