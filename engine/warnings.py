"""The engine's deprecation warnings, as `langgraph.warnings` names them.

Code written for LangGraph filters or asserts on these classes (`pytest.warns(
LangGraphDeprecatedSinceV10)`), so the engine raises the same class for the same old
spelling: `retry=` / `input=` / `output=` (since 0.5), `config_schema=`,
`checkpoint_during=`, `NodeInterrupt`, `Interrupt.interrupt_id`, old constant imports
(since 1.0), dict access on a `GraphOutput` (since 1.1). `deprecated(...)` raises one.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

__all__ = ["LangGraphDeprecationWarning", "LangGraphDeprecatedSinceV05", "LangGraphDeprecatedSinceV10",
           "LangGraphDeprecatedSinceV11", "deprecated", "renamed"]


class LangGraphDeprecationWarning(DeprecationWarning):
    """A LangGraph API that is deprecated: `since` and `expected_removal` are (major, minor)."""

    message: str
    since: tuple[int, int]
    expected_removal: tuple[int, int]

    def __init__(self, message: str, *args: object, since: tuple[int, int],
                 expected_removal: tuple[int, int] | None = None) -> None:
        super().__init__(message, *args)
        self.message = message.rstrip(".")
        self.since = since
        self.expected_removal = expected_removal if expected_removal is not None else (since[0] + 1, 0)

    def __str__(self) -> str:
        return (f"{self.message}. Deprecated in LangGraph V{self.since[0]}.{self.since[1]} to be removed in "
                f"V{self.expected_removal[0]}.{self.expected_removal[1]}.")


class LangGraphDeprecatedSinceV05(LangGraphDeprecationWarning):
    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(0, 5), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV10(LangGraphDeprecationWarning):
    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 0), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV11(LangGraphDeprecationWarning):
    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 1), expected_removal=(3, 0))


_SINCE: dict[str, Callable[[str], LangGraphDeprecationWarning]] = {
    "0.5": LangGraphDeprecatedSinceV05, "1.0": LangGraphDeprecatedSinceV10, "1.1": LangGraphDeprecatedSinceV11}


def deprecated(message: str, since: str, stacklevel: int = 2) -> None:
    """Warn that an old spelling was used (`since`: "0.5", "1.0" or "1.1"), from the caller's caller."""
    warnings.warn(_SINCE[since](message), stacklevel=stacklevel + 1)


def renamed(old: str, new: str, since: str = "0.5", stacklevel: int = 2) -> None:
    """Warn that keyword `old` was used where `new` is the current name."""
    deprecated(f"`{old}` is deprecated and will be removed. Please use `{new}` instead.", since, stacklevel + 1)
