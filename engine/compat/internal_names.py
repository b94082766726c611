"""The few names of LangGraph's private `langgraph._internal._constants` that the engine
serves: the reserved strings that appear in the engine's own public data.

A task's path in `StateSnapshot.tasks` starts with PULL or PUSH, a failed task's pending
write goes to the ERROR channel, an answered interrupt's to RESUME, a namespace joins
its levels with NS_SEP and NS_END, and an Overwrite's JSON form is keyed by OVERWRITE.
Code that compares what the engine returns with these names gets the same answer as
under LangGraph. Four config keys are served for what the engine does with them: the
node-finished hook, the CONFIG_KEY_RUNTIME slot a caller may seed, and a running node's
CONFIG_KEY_READ / CONFIG_KEY_SEND (its channels, which deepagents uses). Every other private name stays unserved
(the engine is not Pregel and does not imitate its internals).
"""
from __future__ import annotations

from ..channels.reducer import OVERWRITE_KEY
from ..checkpoint.data import ERROR, RESUME
from ..constants import INTERRUPT_KEY, NODE_FINISHED_KEY, PULL_PATH, PUSH_PATH, READ_KEY, RUNTIME_KEY, SEND_KEY

__all__ = ["PULL", "PUSH", "ERROR", "RESUME", "INTERRUPT", "NS_SEP", "NS_END", "CONFIG_KEY_NODE_FINISHED",
           "CONFIG_KEY_RUNTIME", "OVERWRITE", "CONFIG_KEY_READ", "CONFIG_KEY_SEND", "CONF"]

PULL = PULL_PATH
PUSH = PUSH_PATH
INTERRUPT = INTERRUPT_KEY
NS_SEP = "|"
"""Between the levels of a checkpoint namespace: "outer:task_id|inner:task_id"."""
NS_END = ":"
"""Between a level's node name and its task id."""
CONFIG_KEY_NODE_FINISHED = NODE_FINISHED_KEY
CONFIG_KEY_RUNTIME = RUNTIME_KEY
"""The config slot a caller may seed with a runtime object (its context and store)."""
OVERWRITE = OVERWRITE_KEY
"""The key of an Overwrite's JSON forms ({"__overwrite__": v}, {"type": ..., "value": v})."""
CONFIG_KEY_READ = READ_KEY
"""The config slot of a running node's `read(select, fresh=False)` (its state's channels)."""
CONFIG_KEY_SEND = SEND_KEY
"""The config slot of a running node's `send([(key, value), ...])` (writes while it runs)."""
CONF = "configurable"
