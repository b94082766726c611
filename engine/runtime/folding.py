"""Folding a superstep's writes through the channels: the pure core of a commit.

`fold_writes` takes the values before the superstep, the tasks' results in LangGraph's
order and the new checkpoint's id, and returns the new values, the channels' versions,
a `ChannelDiff` per written key (when asked for) and, per list that was only appended
to, the appended part (what a store saves instead of the whole list). It reads and
changes nothing else: the Run saves and reports what it returns (commit.py).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..channels import MISSING
from ..channels.reducer import reducer_error
from ..errors import InvalidUpdateError
from .diff import ChannelDiff, ChannelWrite
from .task import TaskResult

__all__ = ["fold_writes"]

Appended = dict[str, tuple[str, Sequence[Any]]]
"""key -> (the version the appended part follows, the appended part)."""


def fold_writes(channels: Mapping[str, Any], values: Mapping[str, Any], base_versions: Mapping[str, str], cid: str,
                ordered: Sequence[TaskResult], report: bool, transient: Sequence[str] = (),
                ) -> tuple[dict[str, Any], dict[str, str], list[ChannelDiff], Appended, tuple[str, ...]]:
    """(new values, versions, diffs (empty unless `report`), appended parts, the keys
    written) of applying the writes of `ordered` (every task's result of the superstep,
    in order) to `values`.
    `transient`: keys that the superstep clears when none of its tasks wrote them."""
    if not report and len(ordered) == 1:
        only = ordered[0]
        folded = only.applied
        if folded and len(folded) == len(only.writes) and only.folded_on is values:
            return _fold_folded(folded, only.folded, base_versions, cid, transient)
    grouped: dict[str, list[tuple[TaskResult, Any]]] = {}
    for result in ordered:
        for key, value in result.writes:
            grouped.setdefault(key, []).append((result, value))
    new_values = dict(values)
    versions = dict(base_versions)
    diffs: list[ChannelDiff] = []
    appended: dict[str, tuple[str, Sequence[Any]]] = {}
    for key, writes in grouped.items():
        old = values.get(key, MISSING)
        writer = writes[0][0]
        if key in writer.applied and all(r is writer for r, _ in writes):
            applied = writer.applied[key]  # the router already folded this task's writes
        else:
            try:
                applied = channels[key].apply(old, [v for _, v in writes])
            except Exception as exc:
                named = _named(exc, key, channels[key], writes)
                if named is exc:
                    raise
                raise named from exc
        _keep(key, applied, new_values, versions, appended, cid)
        if report:
            diffs.append(ChannelDiff(
                key=key, reducer=channels[key].reducer_name, before=old,
                writes=tuple(ChannelWrite(node=r.task.name, task_id=r.task.id, value=v) for r, v in writes),
                after=applied.value,
                appended=tuple(applied.appended) if applied.appended is not None else None,
            ))
    _settle(transient, grouped, new_values, versions, cid)
    return new_values, versions, diffs, appended, tuple(grouped)


def _fold_folded(applied: Mapping[str, Any], new_values: dict[str, Any] | None, base_versions: Mapping[str, str],
                 cid: str, transient: Sequence[str],
                 ) -> tuple[dict[str, Any], dict[str, str], list[ChannelDiff], Appended, tuple[str, ...]]:
    """`fold_writes` of a superstep whose lone task wrote each key once and whose router
    already folded those writes (`applied`) into `new_values`, the state it saw (a dict
    of its own, taken as it is): the same result, nothing folded or copied again."""
    assert new_values is not None
    versions = dict(base_versions)
    appended: Appended = {}
    for key, one in applied.items():  # (_keep without the value: `new_values` has it)
        previous_version = versions.get(key)
        versions[key] = cid
        if one.appended is not None and previous_version is not None:
            appended[key] = (previous_version, one.appended)
    if transient:
        _settle(transient, applied, new_values, versions, cid)
    else:  # (_settle's second half: a reducer's empty value never stored yet gets a version)
        for key in new_values:
            if key not in versions:
                versions[key] = cid
    return new_values, versions, [], appended, tuple(applied)


def _keep(key: str, applied: Any, new_values: dict[str, Any], versions: dict[str, str], appended: Appended,
          cid: str) -> None:
    """Store one key's folded value (`applied`: its `.value` and `.appended` part) at version `cid`."""
    if applied.value is MISSING:  # a channel left without a value (an empty collect)
        new_values.pop(key, None)
    else:
        new_values[key] = applied.value
    previous_version = versions.get(key)
    versions[key] = cid
    if applied.appended is not None and previous_version is not None:
        appended[key] = (previous_version, applied.appended)


def _settle(transient: Sequence[str], written: Mapping[str, Any], new_values: dict[str, Any],
            versions: dict[str, str], cid: str) -> None:
    """Clear the transient keys nobody wrote, and version a reducer's empty value never stored yet."""
    for key in transient:
        if key not in written and key in new_values:
            del new_values[key]
            versions[key] = cid
    for key in new_values:
        if key not in versions:
            versions[key] = cid


def _named(exc: Exception, key: str, channel: Any, writes: Sequence[tuple[TaskResult, Any]]) -> Exception:
    """A reducer's own error, restated with the key and the node whose write it folded."""
    reducer = getattr(channel, "reducer_name", None)
    if reducer is None or isinstance(exc, InvalidUpdateError):
        return exc
    at = getattr(exc, "write_index", None)
    nodes = [r.task.name for r, _ in writes]
    node = nodes[at] if isinstance(at, int) and 0 <= at < len(nodes) else ", ".join(dict.fromkeys(nodes))
    return reducer_error(exc, key, reducer, node)
