"""Prebuilt agent parts, as LangGraph's `langgraph.prebuilt`, written on the engine's API:
`ToolNode` (with tool call interceptors), `tools_condition`, `create_react_agent`,
`ValidationNode`, the tool-argument injections and `RunnableCallable`.
Needs langchain-core (`pip install 'retrograph[langchain]'`): tools and chat models are its.
"""
from __future__ import annotations

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a child process by the tests
    raise ImportError(
        "engine.prebuilt needs langchain-core (its tools and chat models): pip install 'retrograph[langchain]'"
    ) from exc

from .injection import InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime
from .agent_parts import AgentStatePydantic, StructuredResponse
from .react_agent import AgentState, create_react_agent
from .runnable import RunnableCallable, RunnableLike
from .tool_call import (
    AsyncToolCallWrapper,
    ToolCallRequest,
    ToolCallWithContext,
    ToolCallWrapper,
    msg_content_output,
)
from .tool_call_stream import ToolCallStream, ToolCallTransformer
from .tool_node import ToolInvocationError, ToolNode, tools_condition
from .validation import ValidationNode

__all__ = ["ToolNode", "tools_condition", "create_react_agent", "AgentState", "InjectedState",
           "InjectedStore", "InjectedToolCallId", "ToolInvocationError", "ToolRuntime", "ToolCallRequest",
           "ToolCallWrapper", "AsyncToolCallWrapper", "ToolCallWithContext", "msg_content_output",
           "RunnableCallable", "RunnableLike", "ValidationNode", "AgentStatePydantic", "StructuredResponse",
           "ToolCallStream", "ToolCallTransformer"]
