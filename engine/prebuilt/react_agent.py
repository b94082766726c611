"""`create_react_agent`: a chat model that calls tools in a loop until it answers.

The graph is LangGraph's: `agent` (the model) and `tools` (a ToolNode), with optional
`pre_model_hook` (before each model call; it may give `llm_input_messages`),
`post_model_hook` (after it) and `generate_structured_response` (at the end, when a
`response_format` is given). After `agent`, each tool call goes to `tools` as its own
task (version "v2", a Send per call) or all at once ("v1"); `tools` goes back to the
entry unless every tool called returns directly. The model may be a callable
`(state, runtime) -> model` chosen at each call (sync or async). The model is told when
the run is about to run out of steps instead of calling tools it cannot finish.
"""
from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal, cast, get_type_hints

from langchain_core.messages import AIMessage, AnyMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableConfig
from pydantic import BaseModel, create_model

from ..constants import END
from ..graph import StateGraph
from .agent_parts import (
    NEED_MORE_STEPS,
    AgentState,
    AgentStatePydantic,
    AgentStateWithStructuredResponse,
    AgentStateWithStructuredResponsePydantic,
    builtin_prompt,
    prompt_runnable,
    should_bind_tools,
    state_value,
    underlying_model,
    validate_chat_history,
)
from .quiet import silent
from .runnable import RunnableCallable
from .tool_call import TOOL_CALL_WITH_CONTEXT
from .tool_node import ToolNode

__all__ = ["AgentState", "AgentStatePydantic", "AgentStateWithStructuredResponse",
           "AgentStateWithStructuredResponsePydantic", "create_react_agent", "create_tool_calling_executor",
           "NEED_MORE_STEPS"]

try:  # LangGraph's warning class, once the engine has it
    from ..warnings import LangGraphDeprecatedSinceV10 as _Deprecated  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on what the engine serves
    _Deprecated = DeprecationWarning  # type: ignore[misc,assignment,unused-ignore]

_ASYNC_ONLY = ("Async model callable provided but agent invoked synchronously. Use agent.ainvoke() or "
               "agent.astream(), or provide a sync model callable.")


class _Agent:
    """The model side of one agent: resolves the model, calls it, shapes its answer."""

    def __init__(self, model: Any, tools: list[Any], builtin: list[dict[str, Any]], prompt: Any,
                 state_schema: Any, pre_model_hook: Any, name: str | None) -> None:
        self.dynamic = not isinstance(model, (str, Runnable)) and callable(model)
        self.async_dynamic = self.dynamic and inspect.iscoroutinefunction(model)
        self.model, self.prompt, self.name = model, prompt, name
        self.state_schema, self.pre_model_hook = state_schema, pre_model_hook
        self.return_direct = {t.name for t in tools if t.return_direct}
        self.static: Runnable[Any, Any] | None = None
        if not self.dynamic:
            if isinstance(model, str):
                try:
                    from langchain.chat_models import init_chat_model  # type: ignore[import-not-found,unused-ignore]
                except ImportError:
                    raise ImportError("Please install langchain (`pip install langchain`) to use "
                                      "'<provider>:<model>' string syntax for `model` parameter.") from None
                model = init_chat_model(model)
            if (tools or builtin) and should_bind_tools(model, tools, builtin=len(builtin)):
                model = model.bind_tools([*tools, *builtin])
            self.static = prompt_runnable(prompt) | model
        self.bound = model
        self.messages_for = builtin_prompt(prompt)

    def resolve(self, state: Any, runtime: Any) -> Any:
        if self.async_dynamic:
            raise RuntimeError(_ASYNC_ONLY)
        return prompt_runnable(self.prompt) | self.model(state, runtime) if self.dynamic else self.static

    async def aresolve(self, state: Any, runtime: Any) -> Any:
        if self.async_dynamic:
            return prompt_runnable(self.prompt) | await self.model(state, runtime)
        return self.resolve(state, runtime)

    def model_input(self, state: Any) -> Any:
        messages = state_value(state, "messages")
        wanted = "'messages' key"
        if self.pre_model_hook is not None:
            messages, wanted = state_value(state, "llm_input_messages") or messages, "'llm_input_messages' or 'messages' key"
        if messages is None:
            raise ValueError(f"Expected input to call_model to have {wanted}, but got {state}")
        validate_chat_history(messages)
        if isinstance(state, dict):
            state["messages"] = messages
        else:
            state.messages = messages
        return state

    def answer(self, state: Any, response: Any) -> dict[str, Any]:
        response.name = self.name
        calls = response.tool_calls if isinstance(response, AIMessage) else []
        remaining = state_value(state, "remaining_steps")
        if remaining is not None:
            all_direct = isinstance(response, AIMessage) and all(c["name"] in self.return_direct for c in calls)
            if (remaining < 1 and all_direct) or (remaining < 2 and calls):
                return {"messages": [AIMessage(id=response.id, content=NEED_MORE_STEPS)]}
        return {"messages": [response]}

    def _direct(self, config: RunnableConfig) -> Callable[[Any], Any] | None:
        """state -> the model's messages, when the model may be called on them without the
        `prompt | model` sequence around it (the prompt is the agent's own and the sequence's
        runs reach no handler); else None."""
        return self.messages_for if self.messages_for is not None and silent(config) else None

    def call_model(self, state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any]:
        if self.async_dynamic:
            raise RuntimeError(_ASYNC_ONLY)
        given = self.model_input(state)
        messages_for = self._direct(config)
        if messages_for is not None:
            model = self.model(state, runtime) if self.dynamic else self.bound
            return self.answer(state, model.invoke(messages_for(given), _step_config(config)))
        return self.answer(state, self.resolve(state, runtime).invoke(given, config))

    async def acall_model(self, state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any]:
        given = self.model_input(state)
        messages_for = self._direct(config)
        if messages_for is not None:
            if self.async_dynamic:
                model = await self.model(state, runtime)
            else:
                model = self.model(state, runtime) if self.dynamic else self.bound
            return self.answer(state, await model.ainvoke(messages_for(given), _step_config(config)))
        return self.answer(state, await (await self.aresolve(state, runtime)).ainvoke(given, config))


def _step_config(config: RunnableConfig) -> RunnableConfig:
    """The config a sequence gives its steps: its own run's name and id are not theirs."""
    if "run_name" not in config and "run_id" not in config:
        return config
    return cast(RunnableConfig, {k: v for k, v in config.items() if k not in ("run_name", "run_id")})


def _structured_node(agent: _Agent, response_format: Any) -> RunnableCallable:
    def prepared(state: Any) -> tuple[list[Any], Any]:
        messages = list(state_value(state, "messages"))
        if isinstance(response_format, tuple):
            system, schema = response_format
            return [SystemMessage(content=system), *messages], schema
        return messages, response_format

    def generate_structured_response(state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any]:
        messages, schema = prepared(state)
        model = underlying_model(agent.resolve(state, runtime)).with_structured_output(schema)
        return {"structured_response": model.invoke(messages, config)}

    async def agenerate_structured_response(state: Any, runtime: Any, config: RunnableConfig) -> dict[str, Any]:
        messages, schema = prepared(state)
        model = underlying_model(await agent.aresolve(state, runtime)).with_structured_output(schema)
        return {"structured_response": await model.ainvoke(messages, config)}

    return RunnableCallable(generate_structured_response, agenerate_structured_response)


def _schemas(state_schema: Any, response_format: Any, pre_model_hook: Any) -> tuple[Any, Any]:
    """(the graph's state schema, the `agent` node's input schema)."""
    if state_schema is not None:
        required = {"messages", "remaining_steps"} | ({"structured_response"} if response_format is not None else set())
        missing = required - set(get_type_hints(state_schema))
        if missing:
            raise ValueError(f"Missing required key(s) {missing} in state_schema")
    else:
        state_schema = AgentStateWithStructuredResponse if response_format is not None else AgentState
    if pre_model_hook is None:
        return state_schema, state_schema
    if isinstance(state_schema, type) and issubclass(state_schema, BaseModel):
        return state_schema, create_model("CallModelInputSchema", llm_input_messages=(list[AnyMessage], ...),
                                          __base__=state_schema)

    class CallModelInputSchema(state_schema):  # type: ignore[misc]
        llm_input_messages: list[AnyMessage]

    return state_schema, CallModelInputSchema


def _tool_sends(calls: Sequence[Any], state: Any) -> list[Any]:
    from ..types import Send
    return [Send("tools", {"__type": TOOL_CALL_WITH_CONTEXT, "tool_call": c, "state": state}) for c in calls]


def create_react_agent(
    model: Any,
    tools: Sequence[Any] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated_kwargs: Any,
) -> Any:
    """A compiled agent graph: `agent` calls the model, `tools` runs its tool calls."""
    if "config_schema" in deprecated_kwargs:
        warnings.warn("`config_schema` is deprecated and will be removed. Please use `context_schema` instead.",
                      category=_Deprecated, stacklevel=2)
        given = deprecated_kwargs.pop("config_schema")
        context_schema = context_schema if context_schema is not None else given
    if deprecated_kwargs:
        raise TypeError(f"create_react_agent() got unexpected keyword arguments: {deprecated_kwargs}")
    if version not in ("v1", "v2"):
        raise ValueError(f"Invalid version {version}. Supported versions are 'v1' and 'v2'.")
    state_schema, input_schema = _schemas(state_schema, response_format, pre_model_hook)
    builtin: list[dict[str, Any]] = []
    if isinstance(tools, ToolNode):
        tool_node = tools
    else:
        builtin = [t for t in tools if isinstance(t, dict)]
        tool_node = ToolNode([t for t in tools if not isinstance(t, dict)])
    tool_list = list(tool_node.tools_by_name.values())
    agent = _Agent(model, tool_list, builtin, prompt, state_schema, pre_model_hook, name)

    graph = StateGraph(state_schema, context_schema=context_schema)
    graph.add_node("agent", RunnableCallable(agent.call_model, agent.acall_model), input_schema=input_schema)
    entry = "agent"
    if pre_model_hook is not None:
        graph.add_node("pre_model_hook", pre_model_hook)
        graph.add_edge("pre_model_hook", "agent")
        entry = "pre_model_hook"
    graph.set_entry_point(entry)
    if post_model_hook is not None:
        graph.add_node("post_model_hook", post_model_hook)
        graph.add_edge("agent", "post_model_hook")
    if response_format is not None:
        graph.add_node("generate_structured_response", _structured_node(agent, response_format))
    last = "generate_structured_response" if response_format is not None else END
    if not tool_list:
        if response_format is not None:
            graph.add_edge("post_model_hook" if post_model_hook is not None else "agent", last)
        return _compile(graph, checkpointer, store, interrupt_before, interrupt_after, debug, name)
    graph.add_node("tools", tool_node)
    _route_model(graph, version, post_model_hook is not None, last, entry)
    _route_tools(graph, agent.return_direct, entry)
    return _compile(graph, checkpointer, store, interrupt_before, interrupt_after, debug, name)


def _route_model(graph: StateGraph, version: str, post_hook: bool, last: str, entry: str) -> None:
    def should_continue(state: Any) -> Any:
        message = state_value(state, "messages")[-1]
        if not isinstance(message, AIMessage) or not message.tool_calls:
            return "post_model_hook" if post_hook else last
        if version == "v1":
            return "tools"
        return "post_model_hook" if post_hook else _tool_sends(message.tool_calls, state)

    graph.add_conditional_edges("agent", should_continue, ["post_model_hook"] if post_hook else ["tools", last])
    if not post_hook:
        return

    def post_model_hook_router(state: Any) -> Any:
        messages = state_value(state, "messages")
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
        pending = [c for c in last_ai.tool_calls if c["id"] not in answered]
        if pending:
            return _tool_sends(pending, state)
        if isinstance(messages[-1], ToolMessage):
            return entry
        return last

    graph.add_conditional_edges("post_model_hook", post_model_hook_router, [entry, "tools", last])


def _route_tools(graph: StateGraph, return_direct: set[str], entry: str) -> None:
    if not return_direct:
        graph.add_edge("tools", entry)
        return

    def route_tool_responses(state: Any) -> str:
        message: Any = None
        for message in reversed(state_value(state, "messages")):
            if not isinstance(message, ToolMessage):
                break
            if message.name in return_direct:
                return END
        if isinstance(message, AIMessage) and any(c["name"] in return_direct for c in message.tool_calls):
            return END
        return entry

    graph.add_conditional_edges("tools", route_tool_responses, [entry, END])


def _compile(graph: StateGraph, checkpointer: Any, store: Any, before: Any, after: Any, debug: bool,
             name: str | None) -> Any:
    options: dict[str, Any] = {"checkpointer": checkpointer, "interrupt_before": before,
                               "interrupt_after": after, "debug": debug, "name": name or "LangGraph"}
    if store is not None:
        options["store"] = store
    return graph.compile(**options)


create_tool_calling_executor = create_react_agent
