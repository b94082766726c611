"""A langchain-core tool that returns a `Command`, invoked with a tool call, gives back the
Command (as with LangGraph's, a langchain-core `ToolOutputMixin`), whichever of engine and
langchain-core was imported first; `import engine` alone never loads langchain-core."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("langchain_core")

_TOOL_CALL = textwrap.dedent("""
    from langchain_core.tools import tool
    from langchain_core.messages import ToolMessage
    from langchain_core.messages.tool import ToolOutputMixin

    @tool
    def write_todos(todos: list[str]) -> Command:
        \"\"\"Record the todo list.\"\"\"
        return Command(update={"todos": todos})

    out = write_todos.invoke({"name": "write_todos", "args": {"todos": ["a"]}, "id": "call-1",
                              "type": "tool_call"})
    assert not isinstance(out, ToolMessage), out
    assert isinstance(out, Command) and isinstance(out, ToolOutputMixin), type(out).__mro__
    assert out.update == {"todos": ["a"]}
    print("ok")
""")


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_engine_first_then_langchain_core() -> None:
    out = _run("import sys\nfrom engine import Command\n"
               "assert 'langchain_core' not in sys.modules, 'import engine loaded langchain-core'\n"
               + _TOOL_CALL)
    assert out.strip() == "ok"


def test_langchain_core_first_then_engine() -> None:
    out = _run("import langchain_core.messages.tool\nfrom engine import Command\n" + _TOOL_CALL)
    assert out.strip() == "ok"


def test_langgraph_types_command_through_compat_is_the_engine_command() -> None:
    code = ("import engine.compat\nengine.compat.install()\n"
            "from langgraph.types import Command\nimport engine.types\n"
            "assert Command is engine.types.Command\n" + _TOOL_CALL)
    assert _run(code).strip() == "ok"


def test_in_process_command_is_a_tool_output_mixin_and_unchanged() -> None:
    from langchain_core.messages.tool import ToolOutputMixin

    from engine.types import Command, Send

    cmd = Command(goto=Send("n", 1), update={"k": 1})
    assert isinstance(cmd, ToolOutputMixin)
    assert cmd.goto_targets() == [Send("n", 1)]
    assert repr(cmd) == "Command(update={'k': 1}, goto=Send(node='n', arg=1))"
    assert Command(update=1) == Command(update=1)


def test_adopting_needs_the_stand_in_base() -> None:
    from engine.tool_output import adopt_tool_output_mixin

    class NotAToolOutput:
        pass

    with pytest.raises(TypeError, match="NotAToolOutput must list ToolOutputBase"):
        adopt_tool_output_mixin(NotAToolOutput)
