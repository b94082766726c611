"""A scripted chat model for tests: its reply is picked from the conversation (not from a
call counter), so a resumed run answers as an uninterrupted one would."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

__all__ = ["ScriptedChat"]


class ScriptedChat(BaseChatModel):
    """`reply(messages) -> AIMessage`; records each conversation it was given."""

    reply: Callable[[list[BaseMessage]], AIMessage]
    seen: list[list[BaseMessage]] = []
    bound: list[Any] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChat:
        self.bound = list(tools)
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.seen = [*self.seen, list(messages)]
        return ChatResult(generations=[ChatGeneration(message=self.reply(list(messages)))])
