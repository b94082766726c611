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
from typing import Any

__all__ = ["loads", "JsonTextError", "MAX_INT_DIGITS"]

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


def loads(text: str) -> Any:
    """`json.loads(text)`, keeping big ints; raises `json.JSONDecodeError` for a syntax
    mistake (callers name its line and column) and `JsonTextError` (a ValueError with a
    sentence to show) for anything else it cannot take."""
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError:
        raise
    except _TooManyDigits as exc:
        raise JsonTextError(str(exc)) from None
    except RecursionError:
        raise JsonTextError("it is nested too deeply (thousands of levels of brackets); flatten it") from None
    except ValueError as exc:  # anything else json.loads may refuse
        raise JsonTextError(" ".join(str(exc).split())[:200]) from None
