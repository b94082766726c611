"""Total functions for code that Qt calls back (Qt-free).

An exception that escapes a model's `data()`, a delegate's `paint()` or an item's
`paint()` goes through Qt's C++ frames: PySide prints it at best, and a paint callback
that raises mid-paint has crashed the process (SIGSEGV). State values are arbitrary user
data: `repr(10**5000)` raises ValueError, a 1,000-deep list raises RecursionError, a
user's `__repr__` may raise anything. So every callback the panels hand to Qt is wrapped
by `total(default)`: it returns `default` instead of raising, and reports the first
failure of each function once on stderr so a bug stays visible.
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["total", "safe_int_text"]

F = TypeVar("F", bound=Callable[..., Any])
_REPORTED: set[str] = set()


def total(default: Any = None) -> Callable[[F], F]:
    """Decorate `fn` so that it returns `default` rather than raise (KeyboardInterrupt and
    SystemExit still go through)."""

    def wrap(fn: F) -> F:
        name = getattr(fn, "__qualname__", repr(fn))

        @functools.wraps(fn)
        def safe(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - nothing may reach Qt
                if name not in _REPORTED:
                    _REPORTED.add(name)
                    try:
                        print(f"retrograph: {name} failed on a value ({type(exc).__name__}: "
                              f"{str(exc)[:200]}); shown as a placeholder", file=sys.stderr)
                    except Exception:  # noqa: BLE001 - even printing may fail
                        pass
                return default

        return safe  # type: ignore[return-value]

    return wrap


def safe_int_text(value: int, limit: int = 120) -> str:
    """An int as text, whatever its size: Python refuses `str()` of ints above 4,300
    digits, and printing a million digits helps nobody."""
    if value.bit_length() <= 1000:
        text = str(value)
        if len(text) <= limit:
            return text
    digits = int(value.bit_length() * 0.30102999566398120) + 1
    sign = "-" if value < 0 else ""
    return f"{sign}≈10^{digits - 1} (int of ~{digits:,} digits)"
