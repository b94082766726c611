"""A state as editable JSON, and back (Qt-free).

Messages become JSON objects the user can edit, add and remove:
`{"$message": "ai", "content": "…", "id": "…"}`. Values JSON cannot hold (a datetime,
a tuple, a user's class) become a placeholder object, `{"$kept": 1, "was": "tuple: (1, 2)"}`:
left as it is, the original object comes back; replaced by a JSON value, that value is
used. A placeholder is an object, never a string, so no text can be mistaken for one, and
an object that names `$kept` or `$message` but is not one the editor made (a changed
placeholder, an unknown message type) is an `EditError` naming where it is, never data.
"""
from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.messages import to_message

from .jsontext import loads
from .valuediff import same
from .valuefmt import preview

__all__ = ["KEPT", "MESSAGE", "EditError", "Editable", "to_editable", "check_json"]

KEPT = "$kept"
MESSAGE = "$message"
_MESSAGE_TYPES = ("human", "ai", "system", "tool")
_DEPTH = 60
_INT_BITS = 14_000  # about 4,200 digits: under Python's int-to-text limit


class EditError(ValueError):
    """The edited JSON holds something the editor cannot turn back into a value."""


def _is_message(value: Any) -> bool:
    return isinstance(getattr(value, "type", None), str) and hasattr(value, "content") \
        and type(value).__name__.endswith("Message")


@dataclass
class Editable:
    """The JSON form of a state plus what it takes to turn an edited copy back."""

    data: dict[str, Any]
    """What the editor shows (JSON-able)."""
    original: dict[str, Any]
    kept: dict[int, tuple[dict[str, Any], Any]] = field(default_factory=dict)
    """placeholder number -> (its placeholder object, the original value)."""
    messages: dict[str, tuple[dict[str, Any], Any]] = field(default_factory=dict)
    """message id -> (its JSON form, the original message): an edited message keeps its
    other fields (metadata, class)."""

    def text(self) -> str:
        return json.dumps(self.data, indent=2, ensure_ascii=False)

    def restore(self, edited: Mapping[str, Any]) -> dict[str, Any]:
        """The values the edited JSON stands for: every key, unedited ones with their
        original objects. Raises EditError naming the place of a bad placeholder."""
        out: dict[str, Any] = {}
        for key, value in edited.items():
            if key in self.original and key in self.data and same(value, self.data[key]):
                out[key] = self.original[key]
            else:
                out[key] = self._back(value, key, 0)
        return out

    def changed(self, edited: Mapping[str, Any]) -> dict[str, Any]:
        """Only the keys that were added or whose value changed."""
        restored = self.restore(edited)
        return {k: v for k, v in restored.items()
                if k not in self.original or not same(self.original[k], v)}

    # -- JSON -> values ---------------------------------------------------------------
    def _back(self, value: Any, where: str, depth: int) -> Any:
        if depth > _DEPTH:
            raise EditError(f"{where}: nested deeper than {_DEPTH} levels")
        if isinstance(value, dict):
            if KEPT in value:
                return self._kept(value, where)
            if MESSAGE in value:
                return self._message(value, where, depth)
            return {k: self._back(v, f"{where}.{k}", depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self._back(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        return value

    def _kept(self, value: dict[str, Any], where: str) -> Any:
        number = value.get(KEPT)
        known = self.kept.get(number) if isinstance(number, int) and not isinstance(number, bool) else None
        if known is None or not same(known[0], value):
            shown = json.dumps(value, ensure_ascii=False)[:120]
            raise EditError(
                f"{where}: {shown} is not a placeholder this editor made (they cannot be edited). "
                f"Put it back as it was, or replace the whole {{\"{KEPT}\": …}} object with a JSON value.")
        return known[1]

    def _message(self, value: dict[str, Any], where: str, depth: int) -> Any:
        kind = value.get(MESSAGE)
        if kind not in _MESSAGE_TYPES:
            raise EditError(f"{where}: unknown message type {kind!r}; use one of "
                            f"{', '.join(map(repr, _MESSAGE_TYPES))}: {{\"{MESSAGE}\": \"human\", \"content\": \"…\"}}")
        if not isinstance(value.get("content", ""), (str, list)):
            raise EditError(f"{where}: a message's content is a string or a list of parts")
        fields = {k: self._back(v, f"{where}.{k}", depth + 1) for k, v in value.items() if k != MESSAGE}
        known = self.messages.get(str(fields.get("id"))) if fields.get("id") is not None else None
        if known is not None and known[1].type == kind:
            return known[1] if same(known[0], value) else _with_fields(known[1], fields)
        try:
            return to_message({"type": kind, **fields})
        except Exception as exc:  # noqa: BLE001 - any refusal of the message classes is the user's to fix
            raise EditError(f"{where}: not a valid {kind} message: {type(exc).__name__}: {exc}") from None

    # -- values -> JSON ---------------------------------------------------------------
    def _convert(self, value: Any, depth: int) -> Any:
        if isinstance(value, (str, bool, type(None))):
            return value
        if type(value) is int and value.bit_length() <= _INT_BITS:
            return value  # a bigger int is kept: json.dumps cannot print past 4,300 digits
        if isinstance(value, float) and type(value) is float and value == value and abs(value) != float("inf"):
            return value
        if depth < _DEPTH and _is_message(value) and value.type in _MESSAGE_TYPES:
            shown = _message_json(value, self._convert, depth)
            if getattr(value, "id", None):
                self.messages[str(value.id)] = (shown, value)
            return shown
        if depth < _DEPTH and type(value) is dict and all(isinstance(k, str) for k in value) \
                and KEPT not in value and MESSAGE not in value:
            return {k: self._convert(v, depth + 1) for k, v in value.items()}
        if depth < _DEPTH and type(value) is list:
            return [self._convert(v, depth + 1) for v in value]
        return self._keep(value)

    def _keep(self, value: Any) -> dict[str, Any]:
        shown = preview(value, 80)
        name = type(value).__name__
        if not shown.startswith(name):
            shown = f"{name}: {shown}"
        number = len(self.kept) + 1
        placeholder = {KEPT: number, "was": shown}
        self.kept[number] = (placeholder, value)
        return placeholder


def _message_json(message: Any, convert: Any, depth: int) -> dict[str, Any]:
    """`{"$message": type, "content": …, "id": …}` plus the fields a user edits."""
    out: dict[str, Any] = {MESSAGE: message.type, "content": convert(message.content, depth + 1)}
    for name in ("id", "name", "tool_call_id"):
        value = getattr(message, name, None)
        if value:
            out[name] = value
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["tool_calls"] = convert(list(calls), depth + 1)
    return out


def _with_fields(message: Any, fields: Mapping[str, Any]) -> Any:
    """A copy of `message` with the edited fields (its other fields, metadata and class kept)."""
    changes = dict(fields)
    for name in ("name", "tool_call_id"):
        changes.setdefault(name, None if name == "name" else getattr(message, name, None))
    if "tool_calls" in changes or hasattr(message, "tool_calls"):
        changes.setdefault("tool_calls", [])
    changes = {k: v for k, v in changes.items() if hasattr(message, k)}
    model_copy = getattr(message, "model_copy", None)
    if model_copy is not None:  # langchain-core (pydantic)
        return model_copy(update=changes)
    out = copy.copy(message)
    for key, value in changes.items():
        setattr(out, key, value)
    return out


def to_editable(values: Mapping[str, Any]) -> Editable:
    """The editable JSON form of `values`."""
    editable = Editable(data={}, original=dict(values))
    editable.data = {str(k): editable._convert(v, 0) for k, v in values.items()}
    return editable


def check_json(text: str) -> tuple[Any, str]:
    """(parsed, "") or (None, "Line 3, column 5: Expecting ',' delimiter")."""
    try:
        return loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"Line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except ValueError as exc:  # JsonTextError: too deep, too many digits
        return None, f"The JSON cannot be taken: {exc}"
