"""`langgraph.pregel.debug.map_debug_tasks`: a planned task as a "task" payload, carrying
only the user-meaningful part of its config (metadata without the run's own keys, tags
without the `seq:step:*` markers), as a copy; hidden tasks are left out."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine import compat


@dataclass
class Planned:
    id: str
    name: str
    input: Any
    triggers: list[str]
    config: dict[str, Any] | None


@pytest.fixture
def map_debug_tasks():
    compat.install()
    from langgraph.pregel.debug import map_debug_tasks

    yield map_debug_tasks
    compat.uninstall()


def test_user_metadata_and_tags_ride_along_framework_keys_do_not(map_debug_tasks) -> None:
    md = {"lc_agent_name": "weather", "mine": 1, "thread_id": "t", "langgraph_step": 2,
          "langgraph_node": "tools", "checkpoint_ns": ""}
    task = Planned("t1", "tools", [1], ["x"], {"metadata": md, "tags": ["seq:step:1", "user"]})
    (payload,) = map_debug_tasks([task])
    assert payload == {"id": "t1", "name": "tools", "input": [1], "triggers": ["x"],
                       "metadata": {"lc_agent_name": "weather", "mine": 1, "tags": ["user"]}}
    md["mine"] = 2
    assert payload["metadata"]["mine"] == 1


@pytest.mark.parametrize("config", [None, {}, {"metadata": {}}, {"metadata": {"thread_id": "t"}},
                                    {"tags": ["seq:step:3"]}])
def test_no_user_metadata_means_no_metadata_key(map_debug_tasks, config) -> None:
    (payload,) = map_debug_tasks([Planned("t1", "n", None, [], config)])
    assert "metadata" not in payload


def test_hidden_tasks_are_left_out(map_debug_tasks) -> None:
    hidden = Planned("h", "n", None, [], {"tags": ["langsmith:hidden"]})
    shown = Planned("s", "n", None, [], {"tags": ["t"]})
    assert [p["id"] for p in map_debug_tasks([hidden, shown])] == ["s"]
    assert next(iter(map_debug_tasks([shown])))["metadata"] == {"tags": ["t"]}
