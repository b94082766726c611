"""Managed values: state keys whose value the engine computes for each task instead of
storing, as in LangGraph. Declare them in the state schema:

    class State(TypedDict):
        messages: Annotated[list, add_messages]
        remaining_steps: RemainingSteps   # supersteps left before the recursion limit
        is_last_step: IsLastStep          # True in the last superstep the limit allows

They are never channels: a node reads them, and what it (or the input) writes to them
is dropped.
"""
from __future__ import annotations

from typing import Annotated, Any, get_args, get_origin

__all__ = ["ManagedValue", "RemainingSteps", "IsLastStep", "RemainingStepsManager", "IsLastStepManager",
           "managed_of", "unqualified"]


class ManagedValue:
    """A value computed for a task from where its superstep stands."""

    @staticmethod
    def get(step: int, stop: int) -> Any:
        """The value for a task of superstep `step` of a run allowed to reach `stop`."""
        raise NotImplementedError


class RemainingStepsManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> int:
        return stop - step


class IsLastStepManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> bool:
        return step == stop - 1


RemainingSteps = Annotated[int, RemainingStepsManager]
IsLastStep = Annotated[bool, IsLastStepManager]

_QUALIFIERS = ("Required", "NotRequired", "ReadOnly")


def unqualified(annotation: Any) -> Any:
    """`NotRequired[X]`, `Required[X]`, `ReadOnly[X]` -> X (TypedDict qualifiers)."""
    while _qualifier(get_origin(annotation)) in _QUALIFIERS:
        annotation = get_args(annotation)[0]
    return annotation


def _qualifier(origin: Any) -> str | None:
    return getattr(origin, "_name", None) or getattr(origin, "__name__", None) if origin is not None else None


def managed_of(annotation: Any) -> type[ManagedValue] | None:
    """The manager of a `RemainingSteps`-like annotation, or None for a plain key."""
    annotation = unqualified(annotation)
    if get_origin(annotation) is not Annotated:
        return None
    for extra in get_args(annotation)[1:]:
        if isinstance(extra, type) and issubclass(extra, ManagedValue):
            return extra
    return None
