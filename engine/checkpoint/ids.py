"""Checkpoint ids, task ids and timestamps, with a switch that makes them deterministic.

Every id and timestamp the engine writes comes from `new_checkpoint_id()`,
`new_task_id()` and `now_iso()`. They call the current `IdSource`; `deterministic_ids()`
swaps in a counter and a fixed clock for a `with` block, so that two runs of the same
graph write identical histories (the tests' snapshot fixture uses it). Swapping the
source, not the functions, works however a module imported them.
"""
from __future__ import annotations

import os
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

__all__ = ["uuid6", "new_checkpoint_id", "new_task_id", "now_iso", "IdSource", "CountingIds", "deterministic_ids",
           "NS_SEP", "ns_thread_key", "split_thread_key"]

_PROCESS_TAG = os.urandom(3).hex()
_last_ms = 0
_seq = 0
_ms_prefix = f"{0:012x}-"  # `_last_ms` as an id's first part


def _system_checkpoint_id() -> str:
    """A unique id that sorts in creation order: milliseconds, a sequence within the
    millisecond, and a per-process tag (so two processes writing one file never clash).
    """
    global _last_ms, _seq, _ms_prefix
    ms = time.time_ns() // 1_000_000
    if ms <= _last_ms:  # (the usual case: supersteps are microseconds apart; its prefix is made)
        _seq += 1
        return _ms_prefix + "%06x-" % _seq + _PROCESS_TAG
    _ms_prefix = f"{ms:012x}-"  # (before `_last_ms`: whoever reads the new one reads its prefix)
    _last_ms, _seq = ms, 0
    return f"{_ms_prefix}000000-{_PROCESS_TAG}"


_GREGORIAN_OFFSET = 0x01B21DD213814000
"""100-ns intervals from the Gregorian epoch (1582-10-15) to the Unix epoch (RFC 9562)."""
_uuid6_last = 0
_uuid6_lock = threading.Lock()


def uuid6(node: int | None = None, clock_seq: int | None = None) -> uuid.UUID:
    """A version 6 UUID (RFC 9562): the time in 100-ns steps from the Gregorian epoch,
    most significant bits first, so the UUIDs of one process sort in the order they were
    made (a time not after the last one made takes the last one plus one). `node` (48
    bits) and `clock_seq` (14 bits; only its low bits count) are random when not given.
    What LangGraph's savers name checkpoints with (`langgraph.checkpoint.base.id`)."""
    global _uuid6_last
    with _uuid6_lock:
        stamp = time.time_ns() // 100 + _GREGORIAN_OFFSET
        if stamp <= _uuid6_last:
            stamp = _uuid6_last + 1
        _uuid6_last = stamp
    seq = (secrets.randbits(14) if clock_seq is None else clock_seq) & 0x3FFF
    node = (secrets.randbits(48) if node is None else node) & 0xFFFFFFFFFFFF
    stamp &= (1 << 60) - 1
    value = (stamp >> 12) << 80 | 0x6 << 76 | (stamp & 0xFFF) << 64 | 0b10 << 62 | seq << 48 | node
    return uuid.UUID(int=value)


_iso_second = -1
_iso_prefix = ""


def _system_now_iso() -> str:
    """The current time as ISO 8601 UTC (microseconds).

    Formats the date part once per second: it is called on every superstep."""
    global _iso_second, _iso_prefix
    now_us = time.time_ns() // 1000
    second, micros = divmod(now_us, 1_000_000)
    if second != _iso_second:
        _iso_second = second
        _iso_prefix = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return _iso_prefix + ".%06d+00:00" % micros  # (printf-style: no format spec to parse per call)


def new_task_id(checkpoint_id: str, index: int) -> str:
    """Deterministic: the same plan of the same checkpoint yields the same task ids."""
    return f"{checkpoint_id}/{index}"


class IdSource:
    """Where ids and timestamps come from: the system clock and a per-process tag."""

    def checkpoint_id(self) -> str:
        return _system_checkpoint_id()

    def now(self) -> str:
        return _system_now_iso()


class CountingIds(IdSource):
    """Ids `000000000001-000000-test00`, `...2-...`, and a clock that starts at
    2025-01-01T00:00:00Z and ticks one second per timestamp: the same on every run."""

    def __init__(self) -> None:
        self._ids = 0
        self._ticks = 0
        self._start = datetime(2025, 1, 1, tzinfo=timezone.utc)

    def checkpoint_id(self) -> str:
        self._ids += 1
        return f"{self._ids:012x}-000000-test00"

    def now(self) -> str:
        self._ticks += 1
        return (self._start + timedelta(seconds=self._ticks)).isoformat(timespec="microseconds")


_SYSTEM = IdSource()
_source: IdSource = _SYSTEM


def new_checkpoint_id() -> str:
    """A unique id that sorts in creation order: milliseconds, a sequence within the
    millisecond, and a per-process tag (so two processes writing one file never clash)."""
    if _source is _SYSTEM:  # the usual source, called directly: this runs every superstep
        return _system_checkpoint_id()
    return _source.checkpoint_id()


def now_iso() -> str:
    """The current time as ISO 8601 UTC with microseconds."""
    if _source is _SYSTEM:
        return _system_now_iso()
    return _source.now()


@contextmanager
def deterministic_ids(source: IdSource | None = None) -> Iterator[IdSource]:
    """Within the block, ids and timestamps come from `source` (default: `CountingIds()`)."""
    global _source
    previous, _source = _source, source if source is not None else CountingIds()
    try:
        yield _source
    finally:
        _source = previous


NS_SEP = "\x1f"
"""Joins a thread id and a subgraph's checkpoint namespace into the key its checkpoints
are stored under: a subgraph's history is a thread of its own in the parent's store, so
every store keeps and lists it with no change of layout (and old files still open)."""


def ns_thread_key(thread_id: str, checkpoint_ns: str = "") -> str:
    """The store key of `thread_id`'s checkpoints in namespace `checkpoint_ns` ("" = the top graph)."""
    return f"{thread_id}{NS_SEP}{checkpoint_ns}" if checkpoint_ns else thread_id


def split_thread_key(key: str) -> tuple[str, str]:
    """(thread id, checkpoint namespace) of a store key made by `ns_thread_key`."""
    thread_id, _, ns = key.partition(NS_SEP)
    return thread_id, ns
