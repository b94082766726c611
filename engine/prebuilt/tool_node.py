"""`ToolNode`: runs the tool calls of the last AI message, in parallel, as a graph node.

Behaves as LangGraph's: each call gives a ToolMessage (in the order of the calls); a
tool that returns a `Command` updates the state (and may route) itself; errors become
ToolMessages with `status="error"` as `handle_tool_errors` says; injected arguments
(InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime, any InjectedToolArg) are
filled in by the graph, never by the model; `wrap_tool_call` / `awrap_tool_call`
intercept each call (retry, cache, change the request). Written on the engine's public
API; needs langchain-core (tools are its tools).
"""
from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from copy import copy, deepcopy
from dataclasses import replace
from typing import Any, cast

from langchain_core.messages import AIMessage, AnyMessage, RemoveMessage, ToolMessage, convert_to_messages
from langchain_core.messages.tool import ToolOutputMixin
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_config_list, get_executor_for_config
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as make_tool
from pydantic import ValidationError

from ..constants import END, READ_KEY
from ..errors import GraphBubbleUp, is_invalid_resume
from ..messages import REMOVE_ALL_MESSAGES
from ..runtime.injected import DEFAULT_RUNTIME
from ..types import Command, Send
from .injection import Injections, ToolRuntime, inject, injections_of
from .runnable import RunnableCallable
from .tool_call import (
    INVALID_TOOL_NAME_ERROR_TEMPLATE,
    TOOL_CALL_ERROR_TEMPLATE,
    TOOL_CALL_WITH_CONTEXT,
    AsyncToolCallWrapper,
    ToolCallRequest,
    ToolCallWrapper,
    ToolInvocationError,
    default_handle_tool_errors,
    error_content,
    handled_types,
    msg_content_output,
    visible_errors,
)

__all__ = ["ToolNode", "tools_condition", "ToolInvocationError", "TOOL_CALL_ERROR_TEMPLATE",
           "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_CALL_WITH_CONTEXT"]


class _Carried(ToolOutputMixin):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """An engine Command a tool returned, carried through langchain-core's tool call."""

    def __init__(self, command: Command[Any]) -> None:
        self.command = command


def _lift(out: Any) -> Any:
    if isinstance(out, Command):
        return _Carried(out)
    if isinstance(out, list) and out and all(isinstance(o, (Command, ToolMessage)) for o in out):
        return [_Carried(o) if isinstance(o, Command) else o for o in out]
    return out


_CARRYING: dict[type, type] = {}


def _carrying_class(cls: type[BaseTool]) -> type[BaseTool]:
    """`cls` with `_run`/`_arun` lifting a returned Command (langchain-core would make it text)."""
    if cls not in _CARRYING:
        run, arun = cls._run, cls._arun

        @functools.wraps(run)  # langchain-core reads _run's parameters and hints
        def _run(self: Any, *a: Any, **k: Any) -> Any:
            return _lift(run(self, *a, **k))

        methods: dict[str, Any] = {"_run": _run, "__module__": cls.__module__}
        if arun is not BaseTool._arun:  # the default _arun calls _run: lifted already
            @functools.wraps(arun)
            async def _arun(self: Any, *a: Any, **k: Any) -> Any:
                return _lift(await arun(self, *a, **k))
            methods["_arun"] = _arun
        _CARRYING[cls] = type(cls.__name__, (cls,), methods)
    return _CARRYING[cls]


def _runnable_tool(tool: BaseTool, cache: dict[int, BaseTool]) -> BaseTool:
    """The tool as ToolNode invokes it: a copy whose returned Commands survive
    langchain-core's wrapping of a tool's output into a ToolMessage."""
    key = id(tool)
    if key not in cache:
        carried = copy(tool)
        object.__setattr__(carried, "__class__", _carrying_class(type(tool)))
        cache[key] = carried
    return cache[key]


def _uncarry(out: Any) -> Any:
    if isinstance(out, _Carried):
        return out.command
    if isinstance(out, ToolMessage) and isinstance(out.content, _Carried):
        return out.content.command
    if isinstance(out, list) and any(isinstance(o, _Carried) for o in out):
        return [o.command if isinstance(o, _Carried) else o for o in out]
    return out


class ToolNode(RunnableCallable):
    """A node that runs the tool calls of the last AIMessage, in parallel.

    Input: a state dict (or object) with `messages_key`, a list of messages, a list of
    tool calls, or a Send payload with one call. Output: `{messages_key: [ToolMessage...]}`
    (a list for list input), or Commands when tools returned them."""

    def __init__(
        self,
        tools: Sequence[BaseTool | Callable[..., Any]],
        *,
        name: str = "tools",
        tags: list[str] | None = None,
        handle_tool_errors: bool | str | Callable[..., str] | type[Exception] | tuple[type[Exception], ...]
        = default_handle_tool_errors,
        messages_key: str = "messages",
        wrap_tool_call: ToolCallWrapper | None = None,
        awrap_tool_call: AsyncToolCallWrapper | None = None,
    ) -> None:
        super().__init__(self._func, self._afunc, name=name, tags=tags, trace=False)
        self._handle_tool_errors = handle_tool_errors
        self._messages_key = messages_key
        self._wrap_tool_call = wrap_tool_call
        self._awrap_tool_call = awrap_tool_call
        self._tools_by_name: dict[str, BaseTool] = {}
        self._injected_args: dict[str, Injections] = {}
        self._invocable: dict[int, BaseTool] = {}
        for obj in tools:
            if not isinstance(obj, BaseTool) and not callable(obj):
                raise TypeError(f"ToolNode: {obj!r} is not a tool: give langchain-core tools or plain functions")
            tool = obj if isinstance(obj, BaseTool) else make_tool(cast(Any, obj))
            self._tools_by_name[tool.name] = tool
            self._injected_args[tool.name] = injections_of(tool)

    @property
    def tools_by_name(self) -> dict[str, BaseTool]:
        return self._tools_by_name

    @property
    def handle_tool_errors(self) -> Any:
        return self._handle_tool_errors

    @property
    def messages_key(self) -> str:
        return self._messages_key

    def __repr__(self) -> str:
        return f"ToolNode(tools=[{', '.join(self._tools_by_name)}])"

    # -- as a node ----------------------------------------------------------------------
    def _runtimes(self, input: Any, config: RunnableConfig, runtime: Any) -> tuple[list[Any], str, list[ToolRuntime[Any, Any]]]:
        calls, kind = self._parse_input(input)
        runtime = runtime or DEFAULT_RUNTIME
        tools = list(self._tools_by_name.values())
        runtimes = [ToolRuntime(state=self._extract_state(input, cfg), tool_call_id=call["id"], config=cfg,
                                context=getattr(runtime, "context", None), store=getattr(runtime, "store", None),
                                stream_writer=getattr(runtime, "stream_writer", None) or (lambda _c: None),
                                tools=tools, execution_info=getattr(runtime, "execution_info", None),
                                server_info=getattr(runtime, "server_info", None))
                    for call, cfg in zip(calls, get_config_list(config, len(calls)), strict=False)]
        return calls, kind, runtimes

    def _func(self, input: Any, config: RunnableConfig, runtime: Any = None) -> Any:
        calls, kind, runtimes = self._runtimes(input, config, runtime)
        if len(calls) <= 1:
            outputs = [self._run_one(c, kind, r) for c, r in zip(calls, runtimes, strict=False)]
        else:
            with get_executor_for_config(cast(Any, config)) as pool:
                outputs = list(pool.map(self._run_one, calls, [kind] * len(calls), runtimes))
        return self._combine(outputs, kind)

    async def _afunc(self, input: Any, config: RunnableConfig, runtime: Any = None) -> Any:
        calls, kind, runtimes = self._runtimes(input, config, runtime)
        outputs = await asyncio.gather(*(self._arun_one(c, kind, r) for c, r in zip(calls, runtimes, strict=False)))
        return self._combine(list(outputs), kind)

    # -- input ----------------------------------------------------------------------------
    def _parse_input(self, input: Any) -> tuple[list[Any], str]:
        """(tool calls, "list" / "dict" / "tool_calls": the shape of the output)."""
        if isinstance(input, list):
            if input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
                return list(input), "tool_calls"
            messages, kind = input, "list"
        elif isinstance(input, dict) and input.get("__type") == TOOL_CALL_WITH_CONTEXT:
            return [input["tool_call"]], "tool_calls"
        elif isinstance(input, dict) and input.get(self._messages_key):
            messages, kind = input[self._messages_key], "dict"
        elif not isinstance(input, dict) and getattr(input, self._messages_key, None):
            messages, kind = getattr(input, self._messages_key), "dict"
        else:
            raise ValueError("No message found in input")
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None:
            raise ValueError("No AIMessage found in input")
        return list(last_ai.tool_calls), kind

    def _extract_state(self, input: Any, config: RunnableConfig) -> Any:
        """The state tools see: the Send payload's, the graph's (read from the channels when
        the payload holds tool calls only), or the input itself."""
        if isinstance(input, dict) and input.get("__type") == TOOL_CALL_WITH_CONTEXT:
            return input.get("state")
        if isinstance(input, list) and input and isinstance(input[-1], dict) and input[-1].get("type") == "tool_call":
            read = (config.get("configurable") or {}).get(READ_KEY)
            channels = getattr(read, "args", ())[1:2]
            return read(list(channels[0]), True) if read is not None and channels else {}
        return input

    def _unknown(self, call: Any) -> ToolMessage:
        content = INVALID_TOOL_NAME_ERROR_TEMPLATE.format(requested_tool=call["name"],
                                                          available_tools=", ".join(self._tools_by_name))
        return ToolMessage(content, name=call["name"], tool_call_id=call["id"], status="error")

    def _inject_tool_args(self, call: Any, runtime: ToolRuntime[Any, Any], tool: BaseTool | None = None) -> Any:
        inj = self._injected_args.get(call["name"])
        if tool is not None and (inj is None or self._tools_by_name.get(call["name"]) is not tool):
            inj = injections_of(tool)
        return inject(call, inj, runtime, self._messages_key) if inj else call

    # -- one call -------------------------------------------------------------------------
    def _invocation_error(self, call: Any, exc: ValidationError) -> ToolInvocationError:
        filtered = visible_errors(exc, self._injected_args.get(call["name"]))
        return ToolInvocationError(call["name"], exc, call["args"], filtered)

    def _handled(self, exc: Exception, call: Any) -> ToolMessage:
        flag = self._handle_tool_errors
        if not flag or not isinstance(exc, handled_types(flag)) or is_invalid_resume(exc):
            raise exc
        return ToolMessage(content=error_content(exc, flag), name=call["name"], tool_call_id=call["id"], status="error")

    def _execute(self, request: ToolCallRequest, kind: str) -> Any:
        call, tool = request.tool_call, request.tool
        if tool is None:
            return self._unknown(call)
        args = {**self._inject_tool_args(call, request.runtime, tool), "type": "tool_call"}  # its errors raise
        try:
            try:
                out = _runnable_tool(tool, self._invocable).invoke(args, request.runtime.config)
            except ValidationError as exc:
                if is_invalid_resume(exc):  # an interrupt's answer that did not fit: not the model's fault
                    raise
                raise self._invocation_error(call, exc) from exc
            return self._normalize(_uncarry(out), call, kind)
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001 - handled as handle_tool_errors says
            return self._handled(exc, call)

    async def _aexecute(self, request: ToolCallRequest, kind: str) -> Any:
        call, tool = request.tool_call, request.tool
        if tool is None:
            return self._unknown(call)
        args = {**self._inject_tool_args(call, request.runtime, tool), "type": "tool_call"}  # its errors raise
        try:
            try:
                out = await _runnable_tool(tool, self._invocable).ainvoke(args, request.runtime.config)
            except ValidationError as exc:
                if is_invalid_resume(exc):  # an interrupt's answer that did not fit: not the model's fault
                    raise
                raise self._invocation_error(call, exc) from exc
            return self._normalize(_uncarry(out), call, kind)
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001
            return self._handled(exc, call)

    def _wrapper_failed(self, exc: Exception, request: ToolCallRequest) -> ToolMessage:
        if not self._handle_tool_errors:
            raise exc
        call = request.tool_call
        return ToolMessage(content=error_content(exc, self._handle_tool_errors), name=call["name"],
                           tool_call_id=call["id"], status="error")

    def _request(self, call: Any, runtime: ToolRuntime[Any, Any]) -> ToolCallRequest:
        return ToolCallRequest(tool_call=call, tool=self._tools_by_name.get(call["name"]), state=runtime.state,
                               runtime=runtime)

    def _run_one(self, call: Any, kind: str, runtime: ToolRuntime[Any, Any]) -> Any:
        request = self._request(call, runtime)
        if self._wrap_tool_call is None:
            return self._execute(request, kind)
        try:
            return self._wrap_tool_call(request, lambda req: self._execute(req, kind))
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001
            return self._wrapper_failed(exc, request)

    async def _arun_one(self, call: Any, kind: str, runtime: ToolRuntime[Any, Any]) -> Any:
        request = self._request(call, runtime)
        if self._awrap_tool_call is None and self._wrap_tool_call is None:
            return await self._aexecute(request, kind)

        async def execute(req: ToolCallRequest) -> Any:
            return await self._aexecute(req, kind)

        try:
            if self._awrap_tool_call is not None:
                return await self._awrap_tool_call(request, execute)
            assert self._wrap_tool_call is not None
            return self._wrap_tool_call(request, lambda req: self._execute(req, kind))
        except GraphBubbleUp:
            raise
        except Exception as exc:  # noqa: BLE001
            return self._wrapper_failed(exc, request)

    # -- a tool's result ------------------------------------------------------------------
    def _normalize(self, out: Any, call: Any, kind: str) -> Any:
        if isinstance(out, Command):
            return self._checked_command(out, call, kind)
        if isinstance(out, ToolMessage):
            out.content = msg_content_output(out.content)
            return out
        if isinstance(out, list):
            if all(isinstance(o, (Command, ToolMessage)) for o in out):
                return self._checked_list(out, call, kind)
            raise TypeError(f"Tool {call['name']} returned a list with invalid element types: "
                            "expected all Command or ToolMessage")
        raise TypeError(f"Tool {call['name']} returned unexpected type: {type(out)}")

    def _checked_list(self, out: list[Any], call: Any, kind: str) -> list[Any]:
        wanted = call["id"]
        ends = sum(1 for o in out if isinstance(o, ToolMessage) and o.tool_call_id == wanted)
        ends += sum(1 for o in out if isinstance(o, Command) and isinstance(o.update, dict)
                    for m in o.update.get(self._messages_key, [])
                    if isinstance(m, ToolMessage) and m.tool_call_id == wanted)
        if ends != 1:
            raise ValueError(f"Tool {call['name']} returned a list with {ends} messages bound to tool_call_id "
                             f"{wanted!r}; expected exactly one terminating ToolMessage.")
        checked: list[Any] = []
        for o in out:
            if isinstance(o, Command):
                checked.append(self._checked_command(o, call, kind, require_end=False))
            else:
                o.content = msg_content_output(o.content)
                checked.append(o)
        return checked

    def _checked_command(self, command: Command[Any], call: Any, kind: str, *, require_end: bool = True) -> Command[Any]:
        if isinstance(command.update, dict):
            if kind not in ("dict", "tool_calls"):
                raise ValueError(f"Tools can provide a dict in Command.update only when using dict with "
                                 f"'{self._messages_key}' key as ToolNode input, got: {command.update} "
                                 f"for tool '{call['name']}'")
            command = deepcopy(command)
            messages = cast(dict[str, Any], command.update).get(self._messages_key, [])
        elif isinstance(command.update, list):
            if kind != "list":
                raise ValueError("Tools can provide a list of messages in Command.update only when using list "
                                 f"of messages as ToolNode input, got: {command.update} for tool '{call['name']}'")
            command = deepcopy(command)
            messages = command.update
        else:
            return command
        messages = convert_to_messages(messages)
        if len(messages) == 1 and isinstance(messages[0], RemoveMessage) and messages[0].id == REMOVE_ALL_MESSAGES:
            return command
        matched = False
        for m in messages:
            if isinstance(m, ToolMessage) and m.tool_call_id == call["id"]:
                m.name, matched = call["name"], True
        if require_end and command.graph is None and not matched:
            example = ('`Command(update={"messages": [ToolMessage("Success", tool_call_id=tool_call_id), ...]}, ...)`'
                       if kind == "dict" else
                       '`Command(update=[ToolMessage("Success", tool_call_id=tool_call_id), ...], ...)`')
            raise ValueError(f"Expected to have a matching ToolMessage in Command.update for tool '{call['name']}', "
                             f"got: {messages}. Every tool call (LLM requesting to call a tool) in the message "
                             "history MUST have a corresponding ToolMessage. You can fix it by modifying the tool "
                             f"to return {example}.")
        return command

    # -- output ---------------------------------------------------------------------------
    def _combine(self, outputs: list[Any], kind: str) -> Any:
        flat: list[Any] = []
        for o in outputs:
            flat.extend(o if isinstance(o, list) else [o])
        if not any(isinstance(o, Command) for o in flat):
            return flat if kind == "list" else {self._messages_key: flat}
        combined: list[Any] = []
        parent: Command[Any] | None = None
        for o in flat:
            if isinstance(o, Command) and o.graph == Command.PARENT and isinstance(o.goto, list) \
                    and o.goto and all(isinstance(s, Send) for s in o.goto):
                parent = Command(graph=Command.PARENT, goto=list(o.goto)) if parent is None \
                    else replace(parent, goto=[*cast(list[Any], parent.goto), *o.goto])
            elif isinstance(o, Command):
                combined.append(o)
            else:
                combined.append([o] if kind == "list" else {self._messages_key: [o]})
        if parent is not None:
            combined.append(parent)
        return combined


def tools_condition(state: list[AnyMessage] | dict[str, Any] | Any, messages_key: str = "messages") -> str:
    """"tools" when the last message is an AIMessage with tool calls, else END."""
    if isinstance(state, list):
        last = state[-1] if state else None
    elif isinstance(state, dict) and (messages := state.get(messages_key, [])):
        last = messages[-1]
    elif messages := getattr(state, messages_key, []):
        last = messages[-1]
    else:
        raise ValueError(f"No messages found in input state to tool_edge: {state}")
    return "tools" if getattr(last, "tool_calls", None) else END

