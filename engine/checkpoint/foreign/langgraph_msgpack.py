"""LangGraph's stored values decoded without running any of the code they name.

LangGraph writes values as msgpack whose *ext* types name a class and how to build it:
`(module, class, args)` (codes 0-2), `(module, class, arg, method)` (3), pydantic models
(4, 5), numpy arrays (6). Here an ext is never imported: a fixed allow-list rebuilds the
types Retrograph knows (langchain-core messages as the engine's message classes, `Send`,
`Interrupt`, `Command`, datetimes, UUID, Decimal, sets, paths) from their plain fields,
and every other type becomes an inert `UnknownValue(type_name, data)`.

A blob's type column says its encoding: `msgpack`, `json`, `null`, `empty` (no value),
`bytes`, `bytearray`. A `pickle` blob is refused: unpickling runs code.
"""
from __future__ import annotations

import datetime as dt
import decimal
import pathlib
import uuid
from collections.abc import Callable
from typing import Any

import orjson
import ormsgpack

from ...errors import CheckpointDecodeError
from ...message_types import AIMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
from ...policies import TimeoutPolicy
from ...types import Command, Interrupt, Send
from ..registry import UnknownValue

__all__ = ["EMPTY", "build_ext", "decode", "decode_for_listing", "decode_typed", "send_node_hook", "PICKLE_REFUSED"]

EMPTY = object()
"""`decode_typed`'s answer for a blob of type `empty`: the channel has no value."""

PICKLE_REFUSED = (
    "is stored as a Python pickle (type 'pickle'); Retrograph never unpickles data it reads, because "
    "unpickling runs code. Only msgpack/JSON values (LangGraph's default serializer) can be read"
)
_MAX_EXT_DEPTH = 64

_MESSAGES: dict[str, type[BaseMessage]] = {
    "HumanMessage": HumanMessage, "HumanMessageChunk": HumanMessage,
    "AIMessage": AIMessage, "AIMessageChunk": AIMessage,
    "SystemMessage": SystemMessage, "SystemMessageChunk": SystemMessage,
    "ToolMessage": ToolMessage, "ToolMessageChunk": ToolMessage,
    "RemoveMessage": RemoveMessage,
}
# The fields of a langchain-core message kept on the engine's message (plain data only).
_MESSAGE_FIELDS = (
    "content", "id", "name", "additional_kwargs", "response_metadata", "tool_calls", "invalid_tool_calls",
    "usage_metadata", "tool_call_id", "status", "artifact",
)


def _message(name: str, fields: Any) -> Any:
    if not isinstance(fields, dict):
        return UnknownValue(f"langchain_core.messages.{name}", fields)
    kept = {k: fields[k] for k in _MESSAGE_FIELDS if k in fields}
    cls = _MESSAGES[name]
    content = kept.pop("content", "")
    if cls is not AIMessage:
        kept.pop("tool_calls", None)
        kept.pop("invalid_tool_calls", None)
    if cls is AIMessage and not isinstance(kept.get("tool_calls", []), list):
        kept["tool_calls"] = []
    if kept.get("additional_kwargs") is not None and not isinstance(kept["additional_kwargs"], dict):
        kept["additional_kwargs"] = {}
    return cls(content, **kept)


def _datetime(args: Any) -> Any:
    return dt.datetime.fromisoformat(args) if isinstance(args, str) else None


def _date(args: Any) -> Any:
    return dt.date(*args) if isinstance(args, list) and len(args) == 3 and all(type(a) is int for a in args) else None


def _timedelta(args: Any) -> Any:
    return dt.timedelta(*args) if isinstance(args, list) and len(args) <= 3 and all(type(a) is int for a in args) else None


def _time(kw: Any) -> Any:
    if not isinstance(kw, dict) or kw.get("tzinfo") is not None:
        return None
    parts = {k: kw[k] for k in ("hour", "minute", "second", "microsecond") if type(kw.get(k)) is int}
    return dt.time(**parts)


def _uuid(arg: Any) -> Any:
    return uuid.UUID(arg) if isinstance(arg, str) else None


def _decimal(arg: Any) -> Any:
    return decimal.Decimal(arg) if isinstance(arg, str) and len(arg) <= 1000 else None


def _set(arg: Any) -> Any:
    return set(arg) if isinstance(arg, list) else None


def _frozenset(arg: Any) -> Any:
    return frozenset(arg) if isinstance(arg, list) else None


def _path(args: Any) -> Any:
    return pathlib.PurePosixPath(*args) if isinstance(args, list) and all(isinstance(a, str) for a in args) else None


def _send(args: Any) -> Any:
    """A Send: `[node, arg]` or `[node, arg, timeout]` (LangGraph's), or its fields."""
    if isinstance(args, list) and len(args) in (2, 3) and isinstance(args[0], str):
        timeout = args[2] if len(args) == 3 else None
        return Send(args[0], args[1], timeout=timeout if isinstance(timeout, TimeoutPolicy) else None)
    if isinstance(args, dict) and isinstance(args.get("node"), str):
        timeout = args.get("timeout")
        return Send(args["node"], args.get("arg"), timeout=timeout if isinstance(timeout, TimeoutPolicy) else None)
    return None


def _timeout_policy(kw: Any) -> Any:
    if not isinstance(kw, dict):
        return None
    refresh = kw.get("refresh_on", "auto")
    try:
        return TimeoutPolicy(run_timeout=kw.get("run_timeout"), idle_timeout=kw.get("idle_timeout"),
                             refresh_on=refresh if refresh in ("auto", "heartbeat") else "auto")
    except (TypeError, ValueError):  # a damaged policy stays an UnknownValue
        return None


def _interrupt(kw: Any) -> Any:
    if not isinstance(kw, dict):
        return None
    ident = kw.get("id")
    if not isinstance(ident, str):  # older LangGraph: no id, a namespace list instead
        ns = kw.get("ns")
        ident = "|".join(ns) if isinstance(ns, list) and all(isinstance(n, str) for n in ns) else ""
    return Interrupt(value=kw.get("value"), id=ident)


def _command(kw: Any) -> Any:
    if not isinstance(kw, dict):
        return None
    goto = kw.get("goto", ())
    if not isinstance(goto, (str, Send, list)):
        goto = ()
    graph = kw.get("graph") if isinstance(kw.get("graph"), str) else None
    return Command(update=kw.get("update"), goto=goto, resume=kw.get("resume"), graph=graph)


# (module, class) -> builder of the ext's argument; a builder answers None for a shape it
# does not expect, and the value then stays an UnknownValue.
_ALLOWED: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("datetime", "datetime"): _datetime,
    ("datetime", "date"): _date,
    ("datetime", "time"): _time,
    ("datetime", "timedelta"): _timedelta,
    ("uuid", "UUID"): _uuid,
    ("decimal", "Decimal"): _decimal,
    ("builtins", "set"): _set,
    ("builtins", "frozenset"): _frozenset,
    ("pathlib", "Path"): _path,
    ("pathlib", "PosixPath"): _path,
    ("pathlib", "PurePosixPath"): _path,
    ("langgraph.types", "Send"): _send,
    ("langgraph.constants", "Send"): _send,
    ("langgraph.types", "Interrupt"): _interrupt,
    ("langgraph.types", "Command"): _command,
    ("langgraph.types", "TimeoutPolicy"): _timeout_policy,
}


def _build(code: int, payload: Any) -> Any:
    if code == 6 or not isinstance(payload, list) or len(payload) < 3:
        return UnknownValue(f"msgpack-ext-{code}", payload if code != 6 else None)
    module, name, arg = payload[0], payload[1], payload[2]
    if not isinstance(module, str) or not isinstance(name, str):
        return UnknownValue(f"msgpack-ext-{code}", None)
    type_name = f"{module}.{name}"
    if module.startswith("langchain_core.messages") and name in _MESSAGES:
        return _message(name, arg)
    builder = _ALLOWED.get((module, name))
    if builder is not None:
        try:
            built = builder(arg)
        except (ValueError, TypeError, OverflowError, decimal.InvalidOperation):
            built = None
        if built is not None:
            return built
    return UnknownValue(type_name, arg)


def build_ext(code: int, payload: Any) -> Any:
    """One ext value from its unpacked payload: a known type rebuilt, else `UnknownValue`."""
    return _build(code, payload)


def _hook_at(depth: int) -> Callable[[int, bytes], Any]:
    def hook(code: int, data: bytes) -> Any:
        if depth >= _MAX_EXT_DEPTH:
            raise CheckpointDecodeError(f"values nested deeper than {_MAX_EXT_DEPTH} typed objects")
        return _build(code, ormsgpack.unpackb(data, ext_hook=_hook_at(depth + 1)))

    return hook


_HOOK = _hook_at(0)


def decode(data: bytes) -> Any:
    """One msgpack value, with ext types decoded inertly (see the module docstring)."""
    try:
        return ormsgpack.unpackb(data, ext_hook=_HOOK)
    except CheckpointDecodeError:
        raise
    except (ormsgpack.MsgpackDecodeError, ValueError, TypeError, RecursionError) as e:
        raise CheckpointDecodeError(f"not valid msgpack ({e})") from None


_SEND_PREFIX = b"\x93\xaflanggraph.types\xa4Send"
_SET_PREFIX = b"\x93\xa8builtins\xa3set"


def send_node_hook(code: int, data: bytes) -> Any:
    """A cheap hook for listing: decodes only `Send`s and sets (the plan needs a Send's
    node and a join's arrivals); every other ext becomes None without being unpacked."""
    if (code == 1 and data.startswith(_SEND_PREFIX)) or (code == 0 and data.startswith(_SET_PREFIX)):
        return _HOOK(code, data)
    return None


def decode_for_listing(data: bytes) -> Any:
    """Like `decode`, with `send_node_hook`: fast, for headers."""
    try:
        return ormsgpack.unpackb(data, ext_hook=send_node_hook)
    except CheckpointDecodeError:
        raise
    except (ormsgpack.MsgpackDecodeError, ValueError, TypeError, RecursionError) as e:
        raise CheckpointDecodeError(f"not valid msgpack ({e})") from None


def decode_typed(kind: Any, blob: Any) -> Any:
    """A stored (type, blob) pair; `EMPTY` for no value. Raises CheckpointDecodeError."""
    if kind == "msgpack":
        return decode(bytes(blob))
    if kind == "null" or kind is None and blob is None:
        return None
    if kind == "empty":
        return EMPTY
    if kind == "json":
        try:
            return orjson.loads(bytes(blob))
        except orjson.JSONDecodeError as e:
            raise CheckpointDecodeError(f"not valid JSON ({e})") from None
    if kind == "bytes":
        return bytes(blob)
    if kind == "bytearray":
        return bytearray(blob)
    if kind == "pickle":
        raise CheckpointDecodeError(f"the value {PICKLE_REFUSED}")
    raise CheckpointDecodeError(
        f"the value is stored as type {str(kind)[:40]!r}, which Retrograph cannot read (an encrypted or "
        "custom serializer?); only msgpack/JSON values can be read"
    )
