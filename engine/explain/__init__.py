"""Explanations of a run for people learning state graphs: why each task runs (the edge,
branch, join, Send or Command), the joins still waiting, the writes a superstep keeps
aside until it commits, and how each reducer merges them. Plain data, read from the
engine's own events and checkpoints; `retrograph run --explain` and the studio show it.
"""
from .explainer import Explainer, add_finished, add_writes, merges_of
from .plan import explain_plan, explain_tasks, explain_waiting, parse_trigger, why_not
from .reasons import Conflict, JoinWait, KeyMerge, PendingWrite, Reason, SendBatch, Superstep, TaskReason
from .reducers import find_conflicts, key_reducer, reducer_line
from .text import format_step

__all__ = [
    "Explainer",
    "Superstep",
    "TaskReason",
    "Reason",
    "JoinWait",
    "SendBatch",
    "PendingWrite",
    "Conflict",
    "KeyMerge",
    "explain_plan",
    "explain_tasks",
    "explain_waiting",
    "parse_trigger",
    "why_not",
    "add_finished",
    "add_writes",
    "merges_of",
    "reducer_line",
    "key_reducer",
    "find_conflicts",
    "format_step",
]
