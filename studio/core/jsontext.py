"""JSON typed by a person (an input, a resume value, an edited state), parsed totally.

`json.loads` raises more than `JSONDecodeError` on text a person can type or paste: an
int past Python's 4,300-digit `str()` limit raises ValueError, and a few thousand nested
brackets raise RecursionError. Every place that parses such text goes through
`loads`, which raises a `JsonTextError` with a sentence to show instead, so the studio's dialogs and the
command line say what is wrong rather than crash. Big ints are legal JSON and are kept
exactly, up to `MAX_INT_DIGITS` digits (parsing one is linear through Decimal).
"""
from __future__ import annotations

import decimal
import json
import re
from typing import Any

__all__ = ["loads", "parse_json_input", "JsonTextError", "MAX_INT_DIGITS"]

MAX_INT_DIGITS = 100_000


class JsonTextError(ValueError):
    """Text that is JSON by its syntax but cannot be taken (too deep, too many digits)."""


class _TooManyDigits(ValueError):
    def __init__(self, digits: int) -> None:
        super().__init__(f"a number has {digits:,} digits, more than the {MAX_INT_DIGITS:,} accepted; "
                         "pass it as a string instead")


def _parse_int(text: str) -> int:
    if len(text) <= 4000:  # under the interpreter's digit limit
        return int(text)
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _TooManyDigits(digits)
    return int(decimal.Decimal(text))


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(value: Any, path: str = "") -> str | None:
    """The path of the first string holding a lone surrogate (JSON's `\\ud800` escape
    gives one; no checkpoint can store it: it is not UTF-8), or None."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return where or "the value"
        elif isinstance(item, dict):
            for key, sub in item.items():
                if _lone_surrogate(key) is not None:
                    return f"{where} key {key!r}".strip()
                stack.append((sub, f"{where}[{key!r}]" if where else str(key)))
        elif isinstance(item, list):
            stack.extend((sub, f"{where}[{i}]") for i, sub in enumerate(item))
    return None


def loads(text: str) -> Any:
    """`json.loads(text)`, keeping big ints; raises `json.JSONDecodeError` for a syntax
    mistake (callers name its line and column) and `JsonTextError` (a ValueError with a
    sentence to show) for anything else it cannot take."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes from a non-UTF-8 terminal or file (surrogate escapes)
        raise JsonTextError(f"it is not UTF-8 text (character {exc.start + 1} is not); "
                            "save or type it as UTF-8") from None
    try:
        value = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError:
        raise
    except _TooManyDigits as exc:
        raise JsonTextError(str(exc)) from None
    except RecursionError:
        raise JsonTextError("it is nested too deeply (thousands of levels of brackets); flatten it") from None
    except ValueError as exc:  # anything else json.loads may refuse
        raise JsonTextError(" ".join(str(exc).split())[:200]) from None
    if _SURROGATE_ESCAPE.search(text):
        where = _lone_surrogate(value)
        if where is not None:
            raise JsonTextError(f"{where} holds a lone surrogate (a \\ud800-\\udfff escape without its pair), "
                                "which is not text a checkpoint can store; remove it")
    return value


def parse_json_input(text: str | None) -> tuple[Any, str | None]:
    """(value, None) or (None, a message naming the line and column of the mistake);
    (None, None) for no text."""
    if text is None or not text.strip():
        return None, None
    try:
        return loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"The input is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
    except ValueError as exc:  # JsonTextError: too deep, too many digits
        return None, f"The input cannot be taken: {exc}."
