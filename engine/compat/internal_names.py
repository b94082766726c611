"""The few names of LangGraph's private `langgraph._internal._constants` that the engine
serves: the reserved strings that appear in the engine's own public data.

A task's path in `StateSnapshot.tasks` starts with PULL or PUSH, a failed task's pending
write goes to the ERROR channel, an answered interrupt's to RESUME, and a namespace joins
its levels with NS_SEP and NS_END. Code that compares what the engine returns with these
names gets the same answer as under LangGraph. Every other private name stays unserved
(the engine is not Pregel and does not imitate its internals).
"""
from __future__ import annotations

from ..checkpoint.data import ERROR, RESUME
from ..constants import INTERRUPT_KEY, NODE_FINISHED_KEY, PULL_PATH, PUSH_PATH

__all__ = ["PULL", "PUSH", "ERROR", "RESUME", "INTERRUPT", "NS_SEP", "NS_END", "CONFIG_KEY_NODE_FINISHED"]

PULL = PULL_PATH
PUSH = PUSH_PATH
INTERRUPT = INTERRUPT_KEY
NS_SEP = "|"
"""Between the levels of a checkpoint namespace: "outer:task_id|inner:task_id"."""
NS_END = ":"
"""Between a level's node name and its task id."""
CONFIG_KEY_NODE_FINISHED = NODE_FINISHED_KEY
