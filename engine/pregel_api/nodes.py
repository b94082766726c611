"""The pieces of a low-level graph: what a node reads, runs and writes (LangGraph's
`NodeBuilder`, `PregelNode`, `ChannelWriteEntry`, `ChannelWrite`, `Channel`).

A node is triggered by the channels it subscribes to, reads some channels, runs one
function (or runnable) on what it read, and writes the result (or values made from it)
into channels. graph.py translates these specs onto the engine's own graph.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from ..policies import TimeoutPolicy

__all__ = ["PASSTHROUGH", "ChannelWriteEntry", "ChannelWrite", "PregelNode", "NodeBuilder", "Channel", "StepSequence"]


class _Passthrough:
    __slots__ = ()

    def __repr__(self) -> str:
        return "PASSTHROUGH"


PASSTHROUGH: Any = _Passthrough()
"""A write's value when the node's own output is written."""


@dataclass(frozen=True)
class ChannelWriteEntry:
    """One write of a node: into `channel`, the node's output (PASSTHROUGH) or a fixed
    `value`, through `mapper` when given; a None is not written when `skip_none`."""

    channel: str
    value: Any = PASSTHROUGH
    skip_none: bool = False
    mapper: Callable[[Any], Any] | None = None

    def resolve(self, output: Any) -> tuple[bool, Any]:
        """(written?, value) for the node's `output`."""
        value = output if self.value is PASSTHROUGH else self.value
        if self.mapper is not None:
            value = self.mapper(value)
        if value is None and self.skip_none:
            return False, None
        return True, value


@dataclass(frozen=True, init=False)
class ChannelWrite:
    """A node's writes, in order (ChannelWriteEntry or `(channel, value)` pairs)."""

    writes: tuple[ChannelWriteEntry, ...]
    tags: tuple[str, ...]

    def __init__(self, writes: Sequence[Any], *, tags: Sequence[str] | None = None) -> None:
        entries = []
        for w in writes:
            if isinstance(w, ChannelWriteEntry):
                entries.append(w)
            elif isinstance(w, tuple) and len(w) == 2 and isinstance(w[0], str):
                entries.append(ChannelWriteEntry(w[0], w[1]))
            else:
                raise TypeError(f"ChannelWrite: a write is a ChannelWriteEntry or a (channel, value) pair, "
                                f"got {type(w).__name__}: {w!r:.60}")
        object.__setattr__(self, "writes", tuple(entries))
        object.__setattr__(self, "tags", tuple(tags or ()))


@dataclass(frozen=True, kw_only=True)
class PregelNode:
    """A built node: the channels that trigger it, those it reads (a str: that channel's
    value itself; a list: a dict of the available ones), its function and its writes."""

    triggers: tuple[str, ...]
    channels: str | tuple[str, ...]
    bound: Any = None
    writers: tuple[ChannelWriteEntry, ...] = ()
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)
    retry_policy: tuple[Any, ...] = ()
    cache_policy: Any = None
    timeout: Any = None
    """A TimeoutPolicy (or seconds) for each attempt; only an async node can have one."""

    def __post_init__(self) -> None:
        if isinstance(self.triggers, str) or not isinstance(self.triggers, tuple):
            object.__setattr__(self, "triggers", (self.triggers,) if isinstance(self.triggers, str)
                               else tuple(self.triggers))
        if not isinstance(self.channels, (str, tuple)):
            object.__setattr__(self, "channels", tuple(self.channels))
        object.__setattr__(self, "timeout", TimeoutPolicy.coerce(self.timeout))

    def flat_writers(self) -> tuple[ChannelWriteEntry, ...]:
        return self.writers


def _entries(channels: Sequence[Any], kwargs: Mapping[str, Any]) -> list[ChannelWriteEntry]:
    out: list[ChannelWriteEntry] = []
    for c in channels:
        if isinstance(c, ChannelWriteEntry):
            out.append(c)
        elif isinstance(c, str):
            out.append(ChannelWriteEntry(c))
        else:
            raise TypeError(f"write_to(): a channel is a name or a ChannelWriteEntry, got {type(c).__name__}: {c!r:.60}")
    for name, value in kwargs.items():
        if isinstance(value, ChannelWriteEntry):
            out.append(value)
        elif callable(value):
            out.append(ChannelWriteEntry(name, mapper=value))
        else:
            out.append(ChannelWriteEntry(name, value))
    return out


class NodeBuilder:
    """Builds a node step by step: `NodeBuilder().subscribe_only("a").do(fn).write_to("b")`."""

    def __init__(self) -> None:
        self._triggers: list[str] = []
        self._channels: str | list[str] = []
        self._bound: Any = None
        self._writes: list[ChannelWriteEntry] = []
        self._tags: list[str] = []
        self._metadata: dict[str, Any] = {}
        self._retry: list[Any] = []
        self._cache: Any = None
        self._timeout: TimeoutPolicy | None = None

    def subscribe_only(self, channel: str) -> Self:
        """Run when `channel` is updated, and get its value itself."""
        if self._channels:
            raise ValueError("subscribe_only(): this node already reads channels; "
                             "subscribe_only() must be its only subscription")
        self._triggers.append(channel)
        self._channels = channel
        return self

    def subscribe_to(self, *channels: str, read: bool = True) -> Self:
        """Run when any of `channels` is updated; read them too (a dict) unless read=False."""
        if isinstance(self._channels, str):
            raise ValueError(f"subscribe_to(): the node reads only `{self._channels}` (subscribe_only); "
                             "use subscribe_to() for every channel instead")
        self._triggers.extend(channels)
        if read:
            self._channels.extend(c for c in channels if c not in self._channels)
        return self

    def read_from(self, *channels: str) -> Self:
        """Read `channels` too (in the dict the node gets) without being triggered by them."""
        if isinstance(self._channels, str):
            raise ValueError(f"read_from(): the node reads only `{self._channels}` (subscribe_only)")
        self._channels.extend(c for c in channels if c not in self._channels)
        return self

    def do(self, node: Any) -> Self:
        """The function (or runnable) the node runs on what it read; several run in sequence."""
        if self._bound is None:
            self._bound = node
        else:
            self._bound = StepSequence(self._bound, node)
        return self

    def write_to(self, *channels: str | ChannelWriteEntry, **kwargs: Any) -> Self:
        """Write the output to `channels`; `name=value` writes a fixed value, `name=fn` writes fn(output)."""
        self._writes.extend(_entries(channels, kwargs))
        return self

    def __or__(self, other: Any) -> Self:
        """`Channel.subscribe_to("a") | fn | Channel.write_to("b")`: a ChannelWrite adds
        writes, anything else is a step of `do()`."""
        if isinstance(other, ChannelWrite):
            self._writes.extend(other.writes)
            return self
        return self.do(other)

    def meta(self, *tags: str, **metadata: Any) -> Self:
        self._tags.extend(tags)
        self._metadata.update(metadata)
        return self

    def add_retry_policies(self, *policies: Any) -> Self:
        self._retry.extend(policies)
        return self

    def add_cache_policy(self, policy: Any) -> Self:
        self._cache = policy
        return self

    def set_timeout(self, timeout: float | Any) -> Self:
        """Limit each attempt of the node (seconds, a timedelta or a TimeoutPolicy); the
        node's steps must be async."""
        self._timeout = TimeoutPolicy.coerce(timeout)
        return self

    def build(self) -> PregelNode:
        channels = self._channels if isinstance(self._channels, str) else tuple(self._channels)
        return PregelNode(triggers=tuple(dict.fromkeys(self._triggers)), channels=channels, bound=self._bound,
                          writers=tuple(self._writes), tags=tuple(self._tags), metadata=dict(self._metadata),
                          retry_policy=tuple(self._retry), cache_policy=self._cache, timeout=self._timeout)


class StepSequence:
    """Two steps of `do()`, the second on the first's output."""

    __slots__ = ("first", "second")

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second


class Channel:
    """LangGraph's older spelling of a node: `Channel.subscribe_to("a") | fn | Channel.write_to("b")`."""

    @staticmethod
    def subscribe_to(channels: str | Sequence[str], *, key: str | None = None, tags: Sequence[str] | None = None
                     ) -> NodeBuilder:
        builder = NodeBuilder()
        if isinstance(channels, str):
            builder.subscribe_only(channels)
        else:
            builder.subscribe_to(*channels)
        if tags:
            builder.meta(*tags)
        return builder

    @staticmethod
    def write_to(*channels: str, **kwargs: Any) -> ChannelWrite:
        return ChannelWrite(_entries(channels, kwargs))
