"""Short, bounded text for arbitrary state values (Qt-free).

The panels show values they know nothing about: strings of a megabyte, lists of ten
thousand messages, dataclasses, pydantic models. Every function here does bounded work
(it never walks a whole big value), so a panel can call them from `data()` on every paint.
"""
from __future__ import annotations

import dataclasses
from datetime import datetime
import json
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any

from .safe import safe_int_text, total

__all__ = [
    "Message",
    "ELLIPSIS",
    "fold",
    "preview",
    "type_label",
    "is_message",
    "is_message_list",
    "as_message",
    "role_kind",
    "children_of",
    "has_children",
    "pretty",
    "pretty_preview",
    "search_text",
    "clock",
]

ELLIPSIS = "…"

_SCALARS = (str, bytes, int, float, complex, bool, type(None))
_PRETTY_ITEMS = 500
"""`pretty` shows at most this many items of a list (a detail pane, not an export)."""


@dataclass(frozen=True, kw_only=True)
class Message:
    """A chat message read from a LangChain-like object or a `{"role", "content"}` dict."""

    role: str
    content: str
    name: str = ""
    id: str = ""
    tool_calls: tuple[tuple[str, Any], ...] = ()
    """(tool name, arguments) pairs of an AI message that calls tools."""
    tool_call_id: str = ""


def fold(text: str, limit: int = 120) -> str:
    """The first line of `text`, cut to `limit` characters; "…" marks anything left out."""
    first, newline, _ = text.partition("\n")
    if len(first) > limit:
        return first[: limit - 1] + ELLIPSIS
    return first + ELLIPSIS if newline else first


# -- messages -----------------------------------------------------------------------

def is_message(value: Any) -> bool:
    """A dict with a role/type and content, or an object with `type` and `content` attributes."""
    if isinstance(value, Mapping):
        role = value.get("role", value.get("type"))
        return isinstance(role, str) and "content" in value
    if isinstance(value, (type, *_SCALARS, Sequence)):
        return False
    return isinstance(getattr(value, "type", None), str) and hasattr(value, "content")


def is_message_list(value: Any) -> bool:
    """A non-empty list or tuple whose first and last items are messages (checks two items)."""
    return (isinstance(value, (list, tuple)) and len(value) > 0
            and is_message(value[0]) and is_message(value[-1]))


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks: [{"type": "text", "text": ...}, ...]
        parts = []
        for block in content[:50]:
            if isinstance(block, Mapping):
                parts.append(str(block.get("text", block.get("type", ""))))
            else:
                parts.append(str(block))
        return "\n".join(parts)
    return "" if content is None else str(content)


def as_message(value: Any) -> Message:
    """Read a message (see `is_message`) into a `Message`."""
    get = value.get if isinstance(value, Mapping) else (lambda k, d=None: getattr(value, k, d))
    role = get("role") or get("type") or "?"
    calls = []
    for call in (get("tool_calls") or ())[:50]:
        if isinstance(call, Mapping):
            fn: Mapping[Any, Any] = call["function"] if isinstance(call.get("function"), Mapping) else call
            calls.append((str(fn.get("name", "?")), fn.get("args", fn.get("arguments", {}))))
        else:
            calls.append((str(getattr(call, "name", "?")), getattr(call, "args", {})))
    return Message(role=str(role), content=_text(get("content")), name=str(get("name") or ""),
                   id=str(get("id") or ""), tool_calls=tuple(calls),
                   tool_call_id=str(get("tool_call_id") or ""))


def role_kind(role: str) -> str:
    """"user", "ai", "tool", "system" or "other": the colour family of a role badge."""
    role = role.lower()
    if role in ("human", "user"):
        return "user"
    if role in ("ai", "assistant", "aimessagechunk"):
        return "ai"
    if role in ("tool", "function"):
        return "tool"
    if role in ("system", "developer"):
        return "system"
    return "other"


def _call_text(name: str, args: Any, limit: int = 80) -> str:
    if isinstance(args, Mapping):
        inner = ", ".join(f"{k}={_short_repr(v, 30)}" for k, v in list(args.items())[:6])
    else:
        inner = _short_repr(args, 40)
    return fold(f"{name}({inner})", limit)


def _message_preview(m: Message, limit: int) -> str:
    text = m.content.strip()
    if m.tool_calls:
        calls = ", ".join(_call_text(n, a, 60) for n, a in m.tool_calls[:3])
        text = f"{text}  ⚒ {calls}" if text else f"⚒ {calls}"
    return fold(text, limit) if text else "(empty)"


# -- previews -----------------------------------------------------------------------

def _short_repr(value: Any, limit: int) -> str:
    if limit < 12 and not isinstance(value, (str, int, float, bool, type(None))):
        return ELLIPSIS  # deep nesting: stop here, the row's children show the rest
    return preview(value, max(limit, 5))


def _object_name(value: Any) -> str:
    return type(value).__name__


@total("<value that cannot be shown>")
def preview(value: Any, limit: int = 120) -> str:
    """One line that says what `value` is, at most `limit` characters; bounded work."""
    if isinstance(value, str):
        return _string_preview(value, limit)
    if isinstance(value, int) and not isinstance(value, bool):
        return fold(safe_int_text(value, limit), limit)
    if isinstance(value, (bool, float, complex, type(None))):
        return fold(repr(value), limit)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if is_message(value):
        m = as_message(value)
        return _message_preview(m, limit)
    if isinstance(value, Mapping):
        return _join("{", "}", ((f"{_key_text(k)}: ", v) for k, v in value.items()), len(value), limit)
    if isinstance(value, (list, tuple)):
        if is_message_list(value):
            n = len(value)
            last = as_message(value[-1])
            head = f"{n:,} message{'s' if n != 1 else ''} · last {last.role}: "
            return head + _message_preview(last, max(limit - len(head), 10))
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        return _join(open_, close, (("", v) for v in value), len(value), limit)
    if isinstance(value, Set):
        return _join("{", "}", (("", v) for v in value), len(value), limit)
    fields = _fields(value)
    if fields is not None:
        return _join(f"{_object_name(value)}(", ")", ((f"{k}=", v) for k, v in fields), len(fields), limit)
    try:
        return fold(repr(value), limit)
    except Exception as exc:  # a broken __repr__ must not break the panel
        return f"<{_object_name(value)}: repr failed: {exc}>"


def _string_preview(value: str, limit: int) -> str:
    first, newline, _ = value[: limit + 1].partition("\n")
    more = bool(newline) or len(value) > len(first)
    text = json.dumps(first, ensure_ascii=False)[1:-1]
    if len(text) > limit - 3:
        text, more = text[: limit - 3], True
    return f'"{text}{ELLIPSIS if more else ""}"'


def _key_text(key: Any) -> str:
    return key if isinstance(key, str) else repr(key)


def _join(open_: str, close: str, items: Any, count: int, limit: int) -> str:
    out = open_
    shown = 0
    for prefix, item in items:
        piece = prefix + _short_repr(item, min(40, limit // 2))
        if len(out) + len(piece) + 2 > limit - 8 and shown:
            break
        out += (", " if shown else "") + piece
        shown += 1
    if shown < count:
        out += f", … +{count - shown}" if shown else f"… {count}"
    return out + close


@total("?")
def type_label(value: Any) -> str:
    """"str", "int", "list[3]", "dict[5]", "messages[10000]", "AIMessage", …"""
    if isinstance(value, str):
        return f"str[{len(value)}]" if len(value) > 120 or "\n" in value else "str"
    if isinstance(value, (Mapping, list, tuple, Set)):
        return f"{type(value).__name__}[{len(value)}]"
    return _object_name(value)


# -- children -------------------------------------------------------------------------

def _fields(value: Any) -> list[tuple[str, Any]] | None:
    """The attributes shown as children of an object, or None for an opaque value."""
    if isinstance(value, (type, *_SCALARS)) or callable(value) and not dataclasses.is_dataclass(value):
        return None
    if dataclasses.is_dataclass(value):
        return [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)]
    model_fields = getattr(type(value), "model_fields", None)
    if isinstance(model_fields, Mapping):  # pydantic v2
        return [(name, getattr(value, name, None)) for name in model_fields]
    if hasattr(value, "_asdict"):  # namedtuple
        return list(value._asdict().items())
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict) and attrs:
        return [(k, v) for k, v in attrs.items() if not k.startswith("_")]
    return None


def _message_children(value: Any) -> list[tuple[str, Any]]:
    m = as_message(value)
    items: list[tuple[str, Any]] = [("role", m.role), ("content", m.content)]
    if m.tool_calls:
        items.append(("tool_calls", [{"name": n, "args": a} for n, a in m.tool_calls]))
    for key in ("name", "id", "tool_call_id"):
        if getattr(m, key):
            items.append((key, getattr(m, key)))
    return items


@total(False)
def has_children(value: Any) -> bool:
    """Whether a tree row for `value` can expand (cheap: no children are built)."""
    if isinstance(value, _SCALARS):
        return False
    if isinstance(value, (Mapping, list, tuple, Set)):
        return len(value) > 0
    return is_message(value) or bool(_fields(value))


@total(())
def children_of(value: Any) -> Sequence[tuple[str, Any]]:
    """(label, child) pairs of a container; lists stay lazy (a view, not a copy)."""
    if isinstance(value, (list, tuple)):
        return _IndexedChildren(value)
    if isinstance(value, Mapping):
        return [(_key_text(k), v) for k, v in value.items()]
    if isinstance(value, Set):
        try:
            items = sorted(value)
        except TypeError:
            items = list(value)
        return [(f"{{{i}}}", v) for i, v in enumerate(items)]
    if is_message(value):
        return _message_children(value)
    return _fields(value) or []


class _IndexedChildren(Sequence[Any]):
    """`[i]`-labelled children of a list, built only for the rows asked for."""

    def __init__(self, items: Sequence[Any]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return f"[{i if i >= 0 else len(self._items) + i}]", self._items[i]


# -- full text --------------------------------------------------------------------------

class _Budget:
    """How many items of each list or dict `_jsonable` keeps, and whether it left any out."""

    __slots__ = ("items", "cut")

    def __init__(self, items: int) -> None:
        self.items = items
        self.cut = False


def _jsonable(value: Any, depth: int = 0, budget: _Budget | None = None) -> Any:
    """`value` as JSON-like data for the value views: bounded (`budget` items per list or
    dict, the latest messages of a long conversation) and marked where it cut. The
    exports' unbounded form is `jsonable.jsonable`."""
    budget = budget or _Budget(_PRETTY_ITEMS)
    if depth > 40:
        budget.cut = True
        return preview(value, 200)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 10_000:
        return safe_int_text(value)
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    if is_message(value) and not isinstance(value, Mapping):
        return _message_json(value, depth, budget)
    if isinstance(value, Mapping):
        return _mapping_json(value, depth, budget)
    if isinstance(value, (list, tuple, Set)):
        return _items_json(list(value) if isinstance(value, Set) else value, depth, budget)
    fields = _fields(value)
    if fields is not None:
        return {"__type__": _object_name(value), **{k: _jsonable(v, depth + 1, budget) for k, v in fields}}
    try:
        return repr(value)[:10_000]
    except Exception:
        return f"<{_object_name(value)}>"


def _message_json(value: Any, depth: int, budget: _Budget) -> dict[str, Any]:
    m = as_message(value)
    out: dict[str, Any] = {"type": m.role, "content": m.content}
    if m.tool_calls:
        out["tool_calls"] = [{"name": n, "args": _jsonable(a, depth + 1, budget)} for n, a in m.tool_calls]
    for key in ("name", "id", "tool_call_id"):
        if getattr(m, key):
            out[key] = getattr(m, key)
    return out


def _mapping_json(value: Mapping[Any, Any], depth: int, budget: _Budget) -> dict[str, Any]:
    limit = budget.items
    out_map: dict[str, Any] = {}
    for i, (k, v) in enumerate(value.items()):
        if i >= limit:
            out_map[ELLIPSIS] = f"{len(value) - limit:,} more keys"
            budget.cut = True
            break
        out_map[_key_text(k)] = _jsonable(v, depth + 1, budget)
    return out_map


def _items_json(items: Any, depth: int, budget: _Budget) -> list[Any]:
    """A list, tuple or set: its first items (a conversation: its latest messages)."""
    limit = budget.items
    if len(items) <= limit:
        return [_jsonable(v, depth + 1, budget) for v in items]
    budget.cut = True
    if is_message_list(items):  # a conversation: its latest messages matter most
        earlier = len(items) - limit
        return [f"{ELLIPSIS} {earlier:,} earlier messages"] + [_jsonable(v, depth + 1, budget)
                                                               for v in items[earlier:]]
    out_list = [_jsonable(v, depth + 1, budget) for v in items[:limit]]
    out_list.append(f"{ELLIPSIS} {len(items) - limit:,} more items")
    return out_list


def _render(value: Any, max_chars: int, budget: _Budget) -> tuple[str, bool]:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(_jsonable(value, 0, budget), indent=2, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            try:
                text = repr(value) if budget.items >= _PRETTY_ITEMS else preview(value, max_chars)
            except Exception:  # noqa: BLE001 - a value repr cannot print (a huge int, too deep)
                text = preview(value, max_chars)
    cut = budget.cut
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n{ELLIPSIS} ({len(text) - max_chars:,} more characters)"
        cut = True
    return text, cut


@total("<value that cannot be shown>")
def pretty(value: Any, max_chars: int = 200_000, items: int = _PRETTY_ITEMS) -> str:
    """The full value as indented text (JSON-like; objects by their fields), capped at
    `items` entries per list or dict and `max_chars` characters."""
    return _render(value, max_chars, _Budget(items))[0]


@total(("<value that cannot be shown>", True))
def pretty_preview(value: Any, *, items: int = 20, max_chars: int = 6_000) -> tuple[str, bool]:
    """A quick, folded `pretty`: at most `items` entries of each list or dict (the latest
    ones of a message list) and `max_chars` characters; True when something was left out.
    Bounded work whatever the value's size, so a panel can render it on every step."""
    if isinstance(value, str) and len(value) > max_chars:
        return value[:max_chars] + f"\n{ELLIPSIS} ({len(value) - max_chars:,} more characters)", True
    return _render(value, max_chars, _Budget(items))


@total(None)
def search_text(value: Any) -> str | None:
    """The text a search box matches for a leaf value, or None for a container."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return safe_int_text(value, 10_000)
    if isinstance(value, (int, float, bool, complex, type(None), bytes)):
        return repr(value)
    return None


def clock(created_at: str = "") -> str:
    """HH:MM:SS in local time of an ISO timestamp (now when empty); a timestamp that is
    not one (a crafted file's year 1 or 9999) is shown as it is, cut short."""
    try:
        when = datetime.fromisoformat(created_at).astimezone() if created_at else datetime.now()
    except (ValueError, TypeError, OverflowError, OSError):
        return str(created_at)[:32]
    return when.strftime("%H:%M:%S")
