"""Reading a state schema (TypedDict, dataclass or Pydantic model) into channels.

`Annotated[T, fn]` gives a reducer channel whose empty value is `T()` when that can be
built; every other field is a plain last-value channel.
"""
from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import operator
import typing
from dataclasses import replace
from collections.abc import Callable, Mapping, Sequence
from typing import Any, get_args, get_origin, get_type_hints

from .channels import MISSING, BatchReducerChannel, Channel, ChannelSpec, LastValue, ReducerChannel
from .managed import ManagedValue, managed_of, unqualified
from .types import Command

__all__ = ["StateSchema", "schema_fields", "is_root_schema", "empty_factory", "ROOT"]

ROOT = "__root__"
"""The one channel of a root state schema (`StateGraph(Annotated[list, operator.add])`)."""


def is_root_schema(schema: Any) -> bool:
    """Whether the state is one value rather than keys: a type without fields, like
    `Annotated[list, operator.add]`, `list[str]` or `int` (LangGraph's "root" state)."""
    if schema is None or isinstance(schema, Mapping):
        return False
    if get_origin(schema) is not None:  # Annotated[...], list[str], X | None...
        return True
    return isinstance(schema, type) and not hasattr(schema, "__annotations__")


def _is_pydantic_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_fields") and hasattr(tp, "model_validate")


def schema_fields(schema: Any) -> dict[str, Any]:
    """Field name -> annotation (with Annotated extras kept) of a schema class."""
    if schema is None:
        return {}
    if isinstance(schema, Mapping):
        return dict(schema)
    if is_root_schema(schema):
        return {ROOT: schema}
    if _is_pydantic_model(schema):
        hints = get_type_hints(schema, include_extras=True)
        return {name: hints.get(name, Any) for name in schema.model_fields}
    try:
        hints = get_type_hints(schema, include_extras=True)
    except Exception as exc:
        raise TypeError(
            f"cannot read the state schema {getattr(schema, '__qualname__', schema)!r}: its annotations "
            f"do not resolve ({type(exc).__name__}: {exc}). With `from __future__ import annotations`, "
            "every name used in them must be importable from the schema's module; import it at module level."
        ) from exc
    if dataclasses.is_dataclass(schema):
        return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(schema)}
    return {k: v for k, v in hints.items() if not k.startswith("_") or k == ROOT}  # `__root__`: a root state


_CONCRETE: dict[Any, type] = {
    collections.abc.Sequence: list, collections.abc.MutableSequence: list,
    collections.abc.Set: set, collections.abc.MutableSet: set,
    collections.abc.Mapping: dict, collections.abc.MutableMapping: dict,
}


def empty_factory(tp: Any) -> Callable[[], Any] | None:
    """`list -> []`, `int -> 0`: the reducer's starting value, when T() can be built."""
    origin = get_origin(tp) or tp
    if origin is typing.Union or origin is Any:
        return None
    origin = _CONCRETE.get(origin, origin)  # as LangGraph: Sequence[...] starts as []
    if isinstance(origin, type):
        try:
            origin()
        except Exception:
            return None
        return origin
    return None


def _channel_for(key: str, annotation: Any) -> Channel:
    annotation = unqualified(annotation)  # NotRequired[Annotated[list, add]] is a reducer key too
    if get_origin(annotation) is typing.Annotated:
        args = get_args(annotation)
        base, extras = args[0], args[1:]
        specs = [x for x in extras if _is_spec(x)]
        if specs:  # a channel named in the annotation (LangGraph's channel classes, through compat)
            spec = specs[-1]
            made: ChannelSpec = spec(base) if isinstance(spec, type) else spec
            typed = getattr(made, "for_annotation", None)  # a spec that takes the field's type
            if typed is not None:
                made = typed(unqualified(base))
            return made.engine_channel(key)
        reducers = [x for x in extras if callable(x) and not isinstance(x, type)]
        if reducers:
            _check_reducer(key, reducers[-1])
            return ReducerChannel(key, reducers[-1], empty_factory(base))
    return LastValue(key)


def _is_spec(extra: Any) -> bool:
    if isinstance(extra, type):
        return callable(getattr(extra, "engine_channel", None))
    return isinstance(extra, ChannelSpec)


def _check_reducer(key: str, fn: Any) -> None:
    """A reducer folds two values, `fn(old, new)`; one that cannot take two is refused
    when the graph is built rather than at its first write."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(positional) < 2 or len(required) > 2:
        got = ", ".join(p.name for p in params)
        raise ValueError(
            f"Invalid reducer signature for key `{key}`: {getattr(fn, '__qualname__', fn)}({got}). "
            "Expected (a, b) -> c: a reducer takes the current value and a written value and returns the new one."
        )


class StateSchema:
    """The channels of a graph and how to hand the state to a node."""

    def __init__(
        self,
        state_schema: Any,
        input_schema: Any = None,
        output_schema: Any = None,
        node_schemas: Sequence[Any] = (),
    ) -> None:
        self.state_schema = state_schema
        fields = schema_fields(state_schema)
        in_fields = schema_fields(input_schema) if input_schema is not None else fields
        out_fields = schema_fields(output_schema) if output_schema is not None else fields
        all_fields = dict(fields)
        for extra in (in_fields, out_fields, *(schema_fields(s) for s in node_schemas)):
            for k, v in extra.items():
                all_fields.setdefault(k, v)
        self.managed: dict[str, type[ManagedValue]] = {
            k: m for k, v in all_fields.items() if (m := managed_of(v)) is not None}
        """Keys computed for each task (RemainingSteps...), never stored: see managed.py."""
        self.channels: dict[str, Channel] = {
            k: _channel_for(k, v) for k, v in all_fields.items() if k not in self.managed}
        self.transient_keys: tuple[str, ...] = tuple(k for k, ch in self.channels.items() if ch.transient)
        """Keys a superstep that does not write them clears (see channels/scoped.py)."""
        self.unsaved_keys: frozenset[str] = frozenset(k for k, ch in self.channels.items() if not ch.saved)
        """Keys kept for the run only, never in a checkpoint or a saved write."""
        self.delta_keys: dict[str, int] = {
            k: ch.snapshot_every for k, ch in self.channels.items() if type(ch) is BatchReducerChannel}
        """Delta keys (LangGraph's DeltaChannel) and how often LangGraph's raw checkpoint
        form shows their whole value (see checkpoint/delta_record.py)."""
        self.plain_keys: dict[str, bool] = {
            k: type(ch) is not LastValue for k, ch in self.channels.items()
            if type(ch) is LastValue or (type(ch) is ReducerChannel and ch.fn is operator.add)}
        """Keys whose one write a snapshot can read back from the checkpoint it made: a plain
        key's value (False), a list's appended items (True). See graph/task_results.py."""
        self.input_keys: tuple[str, ...] = tuple(in_fields)
        self.output_keys: tuple[str, ...] = tuple(out_fields)
        self.state_keys: tuple[str, ...] = tuple(fields)
        self._builder = self._make_builder(state_schema)
        self._only_state_keys = set(self.channels) == set(self.state_keys)
        self.root = self.state_keys == (ROOT,)
        """The state is one value: nodes get it and return its update, not dicts."""
        self.input_is_copy = not self.root and self._builder is None and self._only_state_keys
        """Whether `node_input(values)` is `dict(values)` (the per-superstep path copies it so)."""
        if self.root:
            self.unwrap_update = _unwrap_root  # how the updates stream shows a node's update

    # -- values -----------------------------------------------------------------
    def initial_values(self) -> dict[str, Any]:
        """Reducer channels start from their empty value; plain keys start unset."""
        out: dict[str, Any] = {}
        for key, ch in self.channels.items():
            v = ch.initial()
            if v is not MISSING:
                out[key] = v
        return out

    def output(self, values: Mapping[str, Any]) -> Any:
        if self.root:
            return values.get(ROOT)
        keys = self.output_keys
        if len(values) == len(keys) and tuple(values) == keys:  # every output key, in order: a copy
            return dict(values)  # (the same dict as below, made in C: a values stream's every chunk)
        return {k: values[k] for k in keys if k in values}

    def input_plan(self, value: Any) -> tuple[list[tuple[str, Any]], tuple[str, ...]] | None:
        """None: the input goes to the start task (the default). A layer whose input is
        written straight into channels (the Pregel API's) returns (writes, nodes to run)."""
        return None

    def wrap_input(self, value: Any) -> Any:
        """The graph's input as the start task writes it (a layer that takes another input
        shape, such as the Pregel API's, replaces this on its graph's schema)."""
        return value

    def wrap_update(self, update: Any) -> Any:
        """A root state's update (what a node returned) as a dict update of its channel."""
        if not self.root or update is None:
            return update
        if isinstance(update, Command):
            return update if update.update is None else replace(update, update={ROOT: update.update})
        if isinstance(update, (list, tuple)) and update and any(isinstance(u, Command) for u in update):
            return [self.wrap_update(u) if isinstance(u, Command) else {ROOT: u} for u in update]
        return {ROOT: update}

    def with_managed(self, values: Mapping[str, Any], step: int, stop: int) -> Mapping[str, Any]:
        """`values` plus the managed keys as a task of superstep `step` sees them."""
        if not self.managed:
            return values
        return {**values, **{k: m.get(step, stop) for k, m in self.managed.items()}}

    def node_input(self, values: Mapping[str, Any]) -> Any:
        """The state as a node receives it: a fresh dict, or an instance of the schema class."""
        if self.root:
            return values.get(ROOT)
        if self._builder is None:
            if self._only_state_keys:
                return dict(values)
            return {k: values[k] for k in self.state_keys if k in values}
        return self._builder(values)

    def registrable_types(self) -> list[type]:
        """Classes named in the schema that checkpoints may need to store."""
        found: list[type] = []

        def walk(tp: Any) -> None:
            if isinstance(tp, type) and (issubclass(tp, enum.Enum) or _is_namedtuple(tp)):
                if tp not in found:
                    found.append(tp)
                return
            if isinstance(tp, type) and (dataclasses.is_dataclass(tp) or _is_pydantic_model(tp)):
                if tp not in found:
                    found.append(tp)
                    for sub in schema_fields(tp).values():
                        walk(sub)
                return
            for arg in get_args(tp):
                walk(arg)

        for schema in (self.state_schema,):
            if isinstance(schema, type) and (dataclasses.is_dataclass(schema) or _is_pydantic_model(schema)):
                found.append(schema)
        for ann in schema_fields(self.state_schema).values():
            walk(ann)
        return found

    def _make_builder(self, schema: Any) -> Callable[[Mapping[str, Any]], Any] | None:
        keys = self.state_keys
        if _is_pydantic_model(schema):
            return lambda values: schema(**{k: values[k] for k in keys if k in values})
        if isinstance(schema, type) and dataclasses.is_dataclass(schema):
            return lambda values: schema(**{k: values[k] for k in keys if k in values})
        return None


def _is_namedtuple(tp: type) -> bool:
    return issubclass(tp, tuple) and hasattr(tp, "_fields")


def _unwrap_root(update: Any) -> Any:
    if isinstance(update, list):
        return [_unwrap_root(u) for u in update]
    return update.get(ROOT) if isinstance(update, Mapping) else update
