"""langchain-core's messages as the state's messages (and the engine's own without it)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

lc = pytest.importorskip("langchain_core.messages")

import engine  # noqa: E402
from engine import END, START, MessagesState, SqliteSaver, StateGraph, add_messages  # noqa: E402
from engine.checkpoint.serde import Serializer, UnknownValue  # noqa: E402
from engine.messages import REMOVE_ALL_MESSAGES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _child(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env)


def test_the_engines_message_names_are_langchain_cores() -> None:
    assert engine.HumanMessage is lc.HumanMessage and engine.AIMessage is lc.AIMessage
    assert engine.ToolMessage is lc.ToolMessage and engine.RemoveMessage is lc.RemoveMessage


def test_every_input_form_becomes_a_langchain_message() -> None:
    merged = add_messages([], [
        "plain",
        ("user", "a pair"),
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}}]},
        {"role": "tool", "content": "2", "tool_call_id": "c1"},
        {"type": "system", "content": "be brief"},
        lc.AIMessageChunk("to", id="k") + lc.AIMessageChunk("ken", id="k"),
    ])
    assert [type(m) for m in merged] == [lc.HumanMessage, lc.HumanMessage, lc.AIMessage, lc.ToolMessage,
                                         lc.SystemMessage, lc.AIMessage]
    assert merged[2].tool_calls == [{"name": "add", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert merged[5].content == "token" and all(m.id for m in merged)


def test_the_engines_own_messages_are_converted() -> None:
    from engine.message_types import AIMessage as OwnAI

    [msg] = add_messages([], OwnAI("hi", id="7", tool_calls=[{"name": "f", "args": {}, "id": "c"}]))
    assert type(msg) is lc.AIMessage and msg.id == "7" and msg.tool_calls[0]["name"] == "f"


def test_replace_remove_and_remove_all() -> None:
    left = [lc.HumanMessage("a", id="1"), lc.AIMessage("b", id="2")]
    assert [m.content for m in add_messages(left, lc.AIMessage("B", id="2"))] == ["a", "B"]
    assert [m.id for m in add_messages(left, lc.RemoveMessage(id="1"))] == ["2"]
    cleared = add_messages(left, [lc.RemoveMessage(id=REMOVE_ALL_MESSAGES), lc.HumanMessage("c", id="3")])
    assert [m.id for m in cleared] == ["3"]
    with pytest.raises(ValueError, match="no message with that id"):
        add_messages(left, lc.RemoveMessage(id="nope"))


def test_nodes_get_langchain_messages_and_they_survive_a_sqlite_round_trip(tmp_path: Path) -> None:
    seen: list[type] = []

    def agent(state: MessagesState) -> dict:
        seen.extend(type(m) for m in state["messages"])
        return {"messages": [lc.AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1}, "id": "c1"}])]}

    b = StateGraph(MessagesState)
    b.add_node("agent", agent)
    b.add_edge(START, "agent")
    b.add_edge("agent", END)
    with SqliteSaver(tmp_path / "m.db") as saver:
        out = b.compile(checkpointer=saver).invoke({"messages": [("user", "hi")]},
                                                   {"configurable": {"thread_id": "t"}})
    assert seen == [lc.HumanMessage]
    with SqliteSaver(tmp_path / "m.db") as saver:
        stored = saver.load("t").values["messages"]
    assert stored == out["messages"]
    assert type(stored[1]) is lc.AIMessage and stored[1].tool_calls[0]["args"] == {"a": 1}


def test_a_database_is_read_without_the_graphs_code(tmp_path: Path) -> None:
    """A fresh process that never imported langchain-core reads the messages back."""
    db = tmp_path / "pm.db"
    with SqliteSaver(db) as saver:
        b = StateGraph(MessagesState)
        b.add_node("echo", lambda s: {"messages": [lc.AIMessage("echo")]})
        b.add_edge(START, "echo")
        b.add_edge("echo", END)
        b.compile(checkpointer=saver).invoke({"messages": [lc.HumanMessage("hi")]},
                                             {"configurable": {"thread_id": "t"}})
    out = _child(f"""
        import sys, warnings
        warnings.simplefilter("error")
        from engine import SqliteSaver
        assert "langchain_core" not in sys.modules
        with SqliteSaver({str(db)!r}) as saver:
            msgs = saver.load("t").values["messages"]
        print([type(m).__module__.split(".")[0] + ":" + type(m).__name__ + ":" + m.content for m in msgs])
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['langchain_core:HumanMessage:hi', 'langchain_core:AIMessage:echo']"


def test_the_allow_list_is_fixed() -> None:
    data = Serializer().dumps(lc.HumanMessage("x", id="1"))
    forged = data.replace(b"lc.HumanMessage", b"lc.Os_System!!")
    with pytest.warns(UserWarning):
        assert isinstance(Serializer().loads(forged), UnknownValue)


def test_without_langchain_core_the_engines_own_classes_stay() -> None:
    out = _child("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "langchain_core" or name.startswith("langchain_core."):
                    raise ModuleNotFoundError(name)
        sys.meta_path.insert(0, Block())
        import engine
        from engine import add_messages, HumanMessage
        from engine.message_types import HumanMessage as Own, AIMessage as OwnAI
        assert HumanMessage is Own, HumanMessage
        merged = add_messages([], [("user", "hi"), {"role": "assistant", "content": "yo"}])
        assert [type(m) for m in merged] == [Own, OwnAI], merged
        print("OK")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "OK"


def test_langchain_messages_named_in_the_schema_keep_their_stable_names(tmp_path: Path) -> None:
    """A state annotated with langchain-core's classes still stores them under the fixed
    allow-list's names, so a process without the graph's code reads them back."""
    class State(TypedDict):
        messages: Annotated[list[lc.AnyMessage], add_messages]
        last: lc.HumanMessage

    b = StateGraph(State)
    b.add_node("n", lambda s: {"last": lc.HumanMessage("x", id="9")})
    b.add_edge(START, "n")
    b.add_edge("n", END)
    with SqliteSaver(tmp_path / "s.db") as saver:
        b.compile(checkpointer=saver).invoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}})
    out = _child(f"""
        import warnings
        warnings.simplefilter("error")
        from engine import SqliteSaver
        with SqliteSaver({str(tmp_path / "s.db")!r}) as saver:
            values = saver.load("t").values
        print(type(values["last"]).__name__, type(values["messages"][0]).__name__)
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["HumanMessage", "HumanMessage"]


def test_a_reader_can_refuse_to_import_langchain_core(tmp_path: Path) -> None:
    data = Serializer().dumps([lc.HumanMessage("x", id="1")])
    out = _child(f"""
        import sys, warnings
        warnings.simplefilter("ignore")
        from engine.checkpoint.serde import Serializer, UnknownValue
        [value] = Serializer(langchain=False).loads({data!r})
        assert isinstance(value, UnknownValue) and value.type_name == "lc.HumanMessage", value
        assert "langchain_core" not in sys.modules
        print("OK")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "OK"


def test_push_message_streams_now_and_writes_the_state() -> None:
    from langchain_core.messages import AIMessage

    from engine.messages import push_message

    def chat(state):
        with pytest.raises(ValueError, match="Message ID is required"):
            push_message(AIMessage(content="no id"))
        push_message(AIMessage(content="one", id="1"))
        push_message(AIMessage(content="two", id="2"))

    g = StateGraph(MessagesState)
    g.add_node("chat", chat)
    g.add_edge(START, "chat")
    chunks = list(g.compile().stream({"messages": []}, stream_mode=["messages", "updates", "values"]))
    streamed = [c[0].content for mode, c in chunks if mode == "messages"]
    updates = [c for mode, c in chunks if mode == "updates"]
    final = [c for mode, c in chunks if mode == "values"][-1]
    assert streamed == ["one", "two"] and [m.content for m in final["messages"]] == ["one", "two"]
    assert [[m["messages"].content for m in u["chat"]] for u in updates] == [["one", "two"]]  # one entry per write
    with pytest.raises(RuntimeError, match="inside a node"):
        push_message(AIMessage(content="x", id="3"))
