"""A deep agent that plans, writes a file and asks a subagent to review it (deepagents).

Teaches: `create_deep_agent` builds a langchain agent with deepagents' middleware: a todo
list (`write_todos`), a virtual file system kept in the thread's state (`write_file`,
`read_file`, `ls`...) and a `task` tool that runs a subagent in a graph of its own. Here
the agent writes its plan, then a file `/notes.md`; the write waits for a human
(`interrupt_on`: answer `{"decisions": [{"type": "approve"}]}`, or `edit` / `reject`);
then the `critic` subagent reads the same file and reports, and the agent answers.
Watch the `files` and `todos` keys in the state panel; the subagent's run is a task of
the `tools` node.

The chat models are scripted (no network): each picks its reply from the conversation.
Needs `pip install 'retrograph[agents]'`.
"""

from collections.abc import Callable
from typing import Any

from deepagents import create_deep_agent
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver


class ScriptedModel(BaseChatModel):
    """A chat model whose reply is `script(messages)`; tools bind to it as given."""

    script: Callable[[list[BaseMessage]], AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script(list(messages)))])


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


PLAN = [{"content": "Write the release notes", "status": "in_progress"},
        {"content": "Have them reviewed", "status": "pending"}]
NOTES = "# Release 2.0\n\n- Faster start-up\n- A dark theme\n"


def lead_script(messages: list[BaseMessage]) -> AIMessage:
    done = {m.name: m for m in messages if isinstance(m, ToolMessage)}
    if "write_todos" not in done:
        return call("write_todos", {"todos": PLAN}, "call_plan")
    if "write_file" not in done:
        return call("write_file", {"file_path": "/notes.md", "content": NOTES}, "call_write")
    if "task" not in done:
        return call("task", {"description": "Review the release notes in /notes.md", "subagent_type": "critic"},
                    "call_review")
    return AIMessage(f"The notes are in /notes.md. The critic says: {done['task'].content}")


def critic_script(messages: list[BaseMessage]) -> AIMessage:
    read = [m for m in messages if isinstance(m, ToolMessage) and m.name == "read_file"]
    if not read:
        return call("read_file", {"file_path": "/notes.md"}, "call_read")
    items = str(read[-1].content).count("- ")
    return AIMessage(f"Looks good: {items} items, each one line.")


graph = create_deep_agent(
    model=ScriptedModel(script=lead_script),
    system_prompt="You write release notes.",
    subagents=[{"name": "critic", "description": "Reviews a text file and says what to improve.",
                "system_prompt": "You review texts.", "model": ScriptedModel(script=critic_script)}],
    middleware=[TodoListMiddleware()],  # the todo list (`write_todos`)
    interrupt_on={"write_file": True},
    checkpointer=InMemorySaver(),
)

example_input = {"messages": [{"role": "user", "content": "Write the release notes for 2.0 and have them reviewed."}]}
example_resume = {"decisions": [{"type": "approve"}]}

if __name__ == "__main__":
    from langgraph.types import Command

    config = {"configurable": {"thread_id": "deep-agent-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
    print("-- approving the write --")
    for update in graph.stream(Command(resume=example_resume), config, stream_mode="updates"):
        print(update)
