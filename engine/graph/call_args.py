"""What invoke/stream/batch accept, checked before a run starts: keyword arguments,
`durability`, a checkpointer, per-input configs; and invoke's result read from a values
stream."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..checkpoint.base import BaseCheckpointSaver
from ..constants import INTERRUPT_KEY
from ..outputs import GraphOutput
from ..warnings import deprecated

__all__ = ["INVOKE_ARGS", "STREAM_ARGS", "from_a_task", "configs_for", "check_kwargs", "checked_durability",
           "last_values", "check_checkpointer"]


INVOKE_ARGS = frozenset({"context", "stream_mode", "print_mode", "output_keys", "interrupt_before",
                          "interrupt_after", "durability", "control", "debug", "version", "checkpoint_during"})
STREAM_ARGS = INVOKE_ARGS | {"subgraphs"}
INVOKE_ARGS = STREAM_ARGS  # LangGraph's invoke passes `subgraphs` on to its stream


def from_a_task(config: Mapping[str, Any] | None) -> bool:
    """Whether `config` is the one a running node received (it names the task's namespace)."""
    if not config:
        return False
    ns = (config.get("configurable") or {}).get("checkpoint_ns")
    if not ns:
        return False
    from ..runtime.context import current_task

    return current_task.get() is not None


def configs_for(inputs: Sequence[Any], config: Any) -> list[Any]:
    if isinstance(config, (list, tuple)):
        if len(config) != len(inputs):
            raise ValueError(f"batch(): {len(inputs)} inputs but {len(config)} configs; give one config or one each")
        return list(config)
    return [config] * len(inputs)


def check_kwargs(where: str, kwargs: Mapping[str, Any], known: frozenset[str]) -> None:
    unknown = sorted(k for k in kwargs if k not in known)
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword argument(s): {', '.join(map(repr, unknown))} "
                        f"(it takes: {', '.join(sorted(known - {'checkpoint_during'}))})")


def checked_durability(durability: str | None, kwargs: dict[str, Any], where: str) -> str | None:
    """`durability=`, or the deprecated `checkpoint_during=`; any other keyword is an error."""
    during = kwargs.pop("checkpoint_during", None)
    check_kwargs(where, kwargs, STREAM_ARGS if where == "stream" else INVOKE_ARGS)
    if during is not None:
        deprecated("`checkpoint_during` is deprecated and will be removed. Please use `durability` instead.",
                   "1.0", stacklevel=3)
        if durability is not None:
            raise ValueError("pass durability= or checkpoint_during=, not both (checkpoint_during is deprecated)")
        durability = "async" if during else "exit"
    if durability is not None and durability not in ("sync", "async", "exit"):
        raise ValueError(f"unknown durability {durability!r}: use 'sync', 'async' or 'exit'")
    return durability


def last_values(chunks: list[Any], version: str, output_keys: Any) -> Any:
    """invoke()'s result from a values stream: the last chunk (GraphOutput in v2)."""
    if version == "v2":
        last = chunks[-1] if chunks else {"data": None, "interrupts": ()}
        return GraphOutput(last["data"], tuple(last.get("interrupts") or ()))
    latest: Any = None
    interrupts: list[Any] = []
    for chunk in chunks:  # as LangGraph: the last state, with every interrupt the stream showed
        if isinstance(chunk, dict) and INTERRUPT_KEY in chunk:
            interrupts.extend(chunk[INTERRUPT_KEY])
            chunk = {k: v for k, v in chunk.items() if k != INTERRUPT_KEY}
        latest = chunk
    if interrupts and isinstance(latest, dict):
        return {**latest, INTERRUPT_KEY: interrupts}
    return latest


SAVER_METHODS = ("get", "put", "put_writes", "pending_writes", "list")


def check_checkpointer(checkpointer: Any) -> None:
    """compile(checkpointer=...) takes a saver, True, False or None; anything else is a
    TypeError now rather than an AttributeError in the middle of a run."""
    if checkpointer is None or checkpointer is True or checkpointer is False:
        return
    if isinstance(checkpointer, BaseCheckpointSaver) or all(
            callable(getattr(checkpointer, m, None)) for m in SAVER_METHODS):
        return
    raise TypeError(
        f"Invalid checkpointer provided. Expected a checkpoint saver (InMemorySaver, SqliteSaver...), "
        f"True, False or None; got {type(checkpointer).__name__}: {checkpointer!r:.80}."
    )
