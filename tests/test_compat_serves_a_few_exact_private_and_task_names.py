"""Under engine.compat, the LangGraph names that libraries' helpers and tests import are
served and behave as LangGraph's: `_internal._timeout.coerce_timeout_policy`,
`pregel._checkpoint.empty_checkpoint` / `copy_checkpoint` (LangGraph's v4 raw dict, with
exactly its keys), `graph.state._warn_invalid_state_schema`, `types.PregelExecutableTask`,
`pregel.protocol.StreamProtocol`; other private names of those modules still say they
are not supported."""
from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

from engine import compat
from engine.policies import TimeoutPolicy


@pytest.fixture(autouse=True)
def served() -> Iterator[None]:
    was = compat.installed()
    compat.install()
    yield
    if not was:
        compat.uninstall()


def test_coerce_timeout_policy() -> None:
    from langgraph._internal._timeout import coerce_timeout_policy

    assert coerce_timeout_policy(None) is None
    assert coerce_timeout_policy(2) == TimeoutPolicy(run_timeout=2)
    assert coerce_timeout_policy(timedelta(seconds=3)) == TimeoutPolicy(run_timeout=3.0)
    policy = TimeoutPolicy(idle_timeout=1.0)
    assert coerce_timeout_policy(policy) == policy


def test_empty_and_copied_raw_checkpoints() -> None:
    from langgraph.pregel._checkpoint import copy_checkpoint, empty_checkpoint

    empty = empty_checkpoint()
    assert set(empty) == {"v", "id", "ts", "channel_values", "channel_versions", "versions_seen"}
    assert empty["v"] == 4 and empty["channel_values"] == {}
    assert empty_checkpoint()["id"] > empty["id"]  # ids sort by time

    raw: dict[str, Any] = {**empty, "channel_values": {"a": [1]}, "channel_versions": {"a": 1},
                           "versions_seen": {"n": {"a": 1}}, "updated_channels": ["a"]}
    copy = copy_checkpoint(raw)
    assert copy == raw
    copy["channel_values"]["b"] = 2
    copy["versions_seen"]["n"]["a"] = 2
    assert raw["channel_values"] == {"a": [1]} and raw["versions_seen"] == {"n": {"a": 1}}


def test_other_private_names_still_say_not_supported() -> None:
    with pytest.raises(ImportError, match="not supported yet by Retrograph"):
        from langgraph.pregel._checkpoint import create_checkpoint  # noqa: F401
    with pytest.raises(ImportError, match="not supported yet by Retrograph"):
        from langgraph.graph.state import _get_channel  # noqa: F401


def test_pregel_executable_task_holds_langgraphs_fields() -> None:
    from langgraph.types import PregelExecutableTask

    task = PregelExecutableTask(name="n", input={"x": 1}, proc=None, writes=deque(), config={},
                                triggers=["n"], retry_policy=[], cache_key=None, id="t1",
                                path=("__pregel_pull", "n"))
    assert (task.writers, task.subgraphs, task.timeout) == ((), (), None)
    with pytest.raises(AttributeError):
        task.name = "other"  # type: ignore[misc]


def test_stream_protocol_is_a_sink_with_modes() -> None:
    from langgraph.pregel.protocol import StreamProtocol

    got: list[Any] = []
    sink = StreamProtocol(got.append, {"custom"})
    sink(((), "custom", {"k": 1}))
    assert got == [((), "custom", {"k": 1})] and sink.modes == {"custom"}
