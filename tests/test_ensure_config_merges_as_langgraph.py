"""`langgraph.utils.config.ensure_config`: tags concatenated in order, the running Runnable's
config underneath unless a given config names its own checkpoint coordinates, unknown keys
into `configurable`, and the run's ids copied into `metadata`."""
from __future__ import annotations

from langchain_core.runnables.config import var_child_runnable_config

from engine.prebuilt.config_merge import ensure_config


def test_tags_concat_unknown_keys_and_ids_in_metadata() -> None:
    merged = ensure_config({"tags": ["s", "a"]}, {"tags": ["s", "b"], "user": "u"},
                           {"configurable": {"thread_id": "t", "api_key": "k"}, "metadata": {"thread_id": "mine"}})
    assert merged["tags"] == ["s", "a", "s", "b"]
    assert merged["configurable"] == {"user": "u", "thread_id": "t", "api_key": "k"}
    assert merged["metadata"] == {"thread_id": "mine"}
    assert ensure_config({"configurable": {"run_id": "r", "model": "m"}})["metadata"] == {"run_id": "r"}
    empty = ensure_config()
    assert (empty["tags"], empty["configurable"], empty["callbacks"], empty["recursion_limit"]) == ([], {}, None, 25)


def test_the_ambient_config_is_kept_unless_the_call_names_its_own_thread() -> None:
    token = var_child_runnable_config.set({"configurable": {"thread_id": "p", "checkpoint_ns": "n:1"},
                                           "tags": ["inherited"]})
    try:
        kept = ensure_config({"configurable": {"flag": 1}, "tags": ["inherited", "new"]})
        own = ensure_config({"configurable": {"thread_id": "p"}})
    finally:
        var_child_runnable_config.reset(token)
    assert kept["configurable"] == {"thread_id": "p", "checkpoint_ns": "n:1", "flag": 1}
    assert kept["tags"] == ["inherited", "new"]
    assert own["configurable"] == {"thread_id": "p"}
