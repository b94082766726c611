"""`ToolNode`: runs the tool calls of the last AI message, in parallel, as a graph node.

Behaves as LangGraph's: each call gives a ToolMessage (in the order of the calls); a
tool that returns a `Command` updates the state (and may route) itself; errors become
ToolMessages with `status="error"` as `handle_tool_errors` says; arguments annotated
InjectedState / InjectedStore / InjectedToolCallId are filled in and hidden from the
model. Written on the engine's public API; needs langchain-core (tools are its tools).
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import json
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langchain_core.messages.tool import ToolOutputMixin
from langchain_core.runnables.config import get_executor_for_config
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.tools import tool as make_tool
from pydantic import BaseModel, ValidationError

from ..constants import END
from ..errors import GraphInterrupt
from ..types import Command
from .injection import Injections, injections_of

__all__ = ["ToolNode", "tools_condition", "ToolInvocationError", "TOOL_CALL_ERROR_TEMPLATE",
           "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_WITH_CONTEXT"]

TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_CALL_WITH_CONTEXT = "tool_call_with_context"
"""The `__type` of a Send payload holding one tool call and the state to run it with."""

_BUBBLE = (GraphInterrupt,)
"""Raised by a tool to pause or leave the run: never turned into a ToolMessage."""


class ToolInvocationError(Exception):
    """The model called a tool with arguments its schema refuses."""

    def __init__(self, name: str, args: dict[str, Any], error: ValidationError) -> None:
        self.tool_name, self.tool_kwargs, self.source = name, args, error
        problems = "\n".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors())
        super().__init__(f"Error invoking tool '{name}' with kwargs {args} with error:\n {problems}\n"
                         " Please fix the error and try again.")


class _Carried(ToolOutputMixin):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """An engine Command a tool returned, carried through langchain-core's tool call."""

    def __init__(self, command: Command[Any]) -> None:
        self.command = command


def _carry(fn: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def acarried(*a: Any, **k: Any) -> Any:
            out = await fn(*a, **k)
            return _Carried(out) if isinstance(out, Command) else out
        return acarried

    @functools.wraps(fn)
    def carried(*a: Any, **k: Any) -> Any:
        out = fn(*a, **k)
        return _Carried(out) if isinstance(out, Command) else out
    return carried


def _as_tool(obj: Any) -> BaseTool:
    if isinstance(obj, BaseTool):
        tool = obj
    elif callable(obj):
        tool = make_tool(obj)
    else:
        raise TypeError(f"ToolNode: {obj!r} is not a tool: give langchain-core tools or plain functions")
    if isinstance(tool, StructuredTool):  # so a returned Command survives langchain-core's wrapping
        update = {k: _carry(getattr(tool, k)) for k in ("func", "coroutine") if getattr(tool, k, None)}
        tool = tool.model_copy(update=update)
    return tool


def _default_handler(exc: Exception) -> str:
    if isinstance(exc, ToolInvocationError):
        return str(exc)
    raise exc


def _handler_types(fn: Callable[..., Any]) -> tuple[type[BaseException], ...]:
    """The exception types a handler function declares in its first parameter (all if none)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
        hints = typing.get_type_hints(fn)
    except (TypeError, ValueError, NameError):
        return (Exception,)
    if not params or params[0].name not in hints:
        return (Exception,)
    hint = hints[params[0].name]
    found = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    found = tuple(t for t in found if isinstance(t, type) and issubclass(t, BaseException))
    return found or (Exception,)


def _stringify(content: Any) -> Any:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, (str, dict)) for b in content):
        return content
    try:
        return json.dumps(content, ensure_ascii=False)
    except Exception:  # noqa: BLE001
        return str(content)


class ToolNode:
    """A node that runs the tool calls of the last AIMessage, in parallel.

    Input: a state dict (or object) with `messages_key`, a list of messages, or a Send
    payload with one call. Output: `{messages_key: [ToolMessage...]}` (a list for list
    input), or a Command when a tool returned one."""

    def __init__(
        self,
        tools: Sequence[Any],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...] = _default_handler,
        messages_key: str = "messages",
        **kwargs: Any,
    ) -> None:
        if kwargs:
            raise TypeError(f"ToolNode() got unexpected keyword argument(s): {', '.join(sorted(kwargs))}"
                            " (not supported yet by Retrograph)")
        self.name = self.__name__ = name
        self.tags = list(tags or [])
        self.handle_tool_errors = handle_tool_errors
        self.messages_key = messages_key
        self.tools_by_name: dict[str, BaseTool] = {}
        self._injections: dict[str, Injections] = {}
        for obj in tools:
            tool = _as_tool(obj)
            self.tools_by_name[tool.name] = tool
            self._injections[tool.name] = injections_of(tool)

    def __repr__(self) -> str:
        return f"ToolNode(tools=[{', '.join(self.tools_by_name)}])"

    # -- as a node ----------------------------------------------------------------------
    def __call__(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        return self.invoke(input, config)

    def invoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        config = dict(config or {})
        calls, state, kind = self._parse(input)
        store = _current_store()
        if len(calls) <= 1:
            outputs = [self._run_one(c, state, config, store) for c in calls]
        else:
            with get_executor_for_config(config) as pool:
                outputs = list(pool.map(lambda c: self._run_one(c, state, config, store), calls))
        return self._combine(outputs, kind)

    async def ainvoke(self, input: Any, config: dict[str, Any] | None = None) -> Any:
        config = dict(config or {})
        calls, state, kind = self._parse(input)
        store = _current_store()
        outputs = await asyncio.gather(*(self._arun_one(c, state, config, store) for c in calls))
        return self._combine(list(outputs), kind)

    # -- input ----------------------------------------------------------------------------
    def _parse(self, input: Any) -> tuple[list[dict[str, Any]], Any, str]:
        """(tool calls, the state tools may be given, "dict" or "list" output)."""
        if isinstance(input, dict) and input.get("__type") == TOOL_CALL_WITH_CONTEXT:
            return [input["tool_call"]], input.get("state"), "dict"
        if isinstance(input, list):
            if input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
                return list(input), {}, "list"
            messages, state, kind = input, {self.messages_key: input}, "list"
        elif isinstance(input, dict):
            messages, state, kind = input.get(self.messages_key, []), input, "dict"
        elif hasattr(input, self.messages_key):
            messages, state, kind = getattr(input, self.messages_key), input, "dict"
        else:
            raise ValueError(f"ToolNode: no messages found in the input (expected a dict with "
                             f"{self.messages_key!r}, a list of messages, or tool calls): got {type(input).__name__}")
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None:
            raise ValueError("ToolNode: the input holds no AIMessage with tool calls to run")
        return [dict(c) for c in last_ai.tool_calls], state, kind

    def _args(self, call: dict[str, Any], state: Any, store: Any) -> dict[str, Any]:
        inj = self._injections.get(call["name"])
        args = dict(call.get("args") or {})
        if not inj:
            return args
        for arg, key in inj.state.items():
            if key is None:
                args[arg] = state
            else:
                args[arg] = state[key] if isinstance(state, dict) else getattr(state, key)
        for arg in inj.store:
            args[arg] = store
        return args

    # -- one call -------------------------------------------------------------------------
    def _prepare(self, call: dict[str, Any], state: Any, store: Any) -> tuple[BaseTool | None, dict[str, Any] | ToolMessage]:
        tool = self.tools_by_name.get(call["name"])
        if tool is None:
            content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(
                requested_tool=call["name"], available_tools=", ".join(self.tools_by_name))
            return None, ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")
        schema = tool.tool_call_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            try:
                schema.model_validate(call.get("args") or {})
            except ValidationError as exc:
                return tool, {"__error__": ToolInvocationError(call["name"], call.get("args") or {}, exc)}
        return tool, {**call, "args": self._args(call, state, store), "type": "tool_call"}

    def _run_one(self, call: dict[str, Any], state: Any, config: dict[str, Any], store: Any) -> Any:
        tool, prepared = self._prepare(call, state, store)
        if isinstance(prepared, ToolMessage):
            return prepared
        try:
            if "__error__" in prepared:
                raise prepared["__error__"]
            assert tool is not None  # (no tool: _prepare returned a ToolMessage)
            return self._wrap(tool.invoke(prepared, config), call)
        except _BUBBLE:
            raise
        except Exception as exc:  # noqa: BLE001 - handled as handle_tool_errors says
            return self._on_error(exc, call)

    async def _arun_one(self, call: dict[str, Any], state: Any, config: dict[str, Any], store: Any) -> Any:
        tool, prepared = self._prepare(call, state, store)
        if isinstance(prepared, ToolMessage):
            return prepared
        try:
            if "__error__" in prepared:
                raise prepared["__error__"]
            assert tool is not None  # (no tool: _prepare returned a ToolMessage)
            return self._wrap(await tool.ainvoke(prepared, config), call)
        except _BUBBLE:
            raise
        except Exception as exc:  # noqa: BLE001
            return self._on_error(exc, call)

    def _wrap(self, out: Any, call: dict[str, Any]) -> Any:
        if isinstance(out, _Carried):
            return out.command
        if isinstance(out, (Command, ToolMessage)):
            return out
        return ToolMessage(_stringify(out), name=call["name"], tool_call_id=call["id"])

    def _on_error(self, exc: Exception, call: dict[str, Any]) -> ToolMessage:
        flag = self.handle_tool_errors
        if flag is False:
            raise exc
        if flag is True:
            content = TOOL_CALL_ERROR_TEMPLATE.format(error=repr(exc))
        elif isinstance(flag, str):
            content = flag
        elif isinstance(flag, type) and issubclass(flag, BaseException) or (
                isinstance(flag, tuple) and all(isinstance(t, type) for t in flag)):
            if not isinstance(exc, flag):
                raise exc
            content = TOOL_CALL_ERROR_TEMPLATE.format(error=repr(exc))
        elif callable(flag):
            if flag is not _default_handler and not isinstance(exc, _handler_types(flag)):
                raise exc
            content = cast(Callable[[Exception], str], flag)(exc)
        else:
            raise TypeError(f"ToolNode: handle_tool_errors={flag!r} is not a bool, str, callable or exception type")
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    # -- output ---------------------------------------------------------------------------
    def _combine(self, outputs: list[Any], kind: str) -> Any:
        if not any(isinstance(o, Command) for o in outputs):
            return outputs if kind == "list" else {self.messages_key: outputs}
        if kind == "list":
            return outputs
        return _merge_commands(outputs, self.messages_key)


def _merge_commands(outputs: list[Any], key: str) -> Any:
    """One Command from the calls' results (in call order); a list when they cannot merge."""
    messages: list[Any] = []
    update: dict[str, Any] = {}
    goto: list[Any] = []
    for out in outputs:
        if isinstance(out, ToolMessage):
            messages.append(out)
            continue
        if out.graph is not None or out.resume is not None:
            return [o if isinstance(o, Command) else {key: [o]} for o in outputs]
        items = dict(out.update) if isinstance(out.update, dict) else dict(out.update or ())
        messages.extend(items.pop(key, None) or [])
        if set(items) & set(update):
            return [o if isinstance(o, Command) else {key: [o]} for o in outputs]
        update.update(items)
        goto.extend(out.goto_targets())
    return Command(update={key: messages, **update}, goto=goto)


def _current_store() -> Any:
    """The running graph's store, when the engine has stores and one is set."""
    import engine

    getter = getattr(engine, "get_store", None)
    if getter is None:
        return None
    try:
        return getter()
    except Exception:  # noqa: BLE001 - outside a run, or no store configured
        return None


def tools_condition(state: list[AnyMessage] | dict[str, Any] | Any, messages_key: str = "messages") -> str:
    """"tools" when the last message is an AIMessage with tool calls, else END."""
    if isinstance(state, list):
        messages = state
    elif isinstance(state, dict):
        messages = state.get(messages_key, [])
    else:
        messages = getattr(state, messages_key, [])
    if not messages:
        raise ValueError(f"tools_condition: no messages found in the input state under {messages_key!r}")
    last = messages[-1]
    return "tools" if getattr(last, "tool_calls", None) else END
