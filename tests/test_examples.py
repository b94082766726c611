"""The runnable examples in resources/examples: each runs offline to a known final state."""
from __future__ import annotations

import math
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import END, START, Command, CompiledStateGraph, InMemorySaver, SqliteSaver

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"
NAMES = ["single_llm", "react_agent", "router", "parallel_search", "loop_until_done", "bluetooth",
         "map_reduce", "approval", "subgraph", "user_memory"]


def load(name: str) -> dict[str, Any]:
    return runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"example_{name}")


def texts(messages: list[Any]) -> list[tuple[str, str]]:
    return [(m.type, m.text) for m in messages]


LANGGRAPH_APPS = ["langchain_react", "langchain_approval"]
"""Examples written for LangGraph (`langgraph` imports, langchain-core): test_compat_examples.py."""
AGENT_APPS = ["agents_approval_summary", "agents_deep", "agents_supervisor", "agents_swarm"]
"""Examples built with the agent libraries of the [agents] extra: test_agent_libraries_parity.py
and test_agent_examples_in_the_studio.py."""


def test_every_example_is_listed() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted(NAMES + LANGGRAPH_APPS + AGENT_APPS)


@pytest.mark.parametrize("name", NAMES)
def test_example_shape(name: str) -> None:
    """A compiled `graph`, an `example_input` dict, a docstring, engine imports only."""
    module = load(name)
    assert isinstance(module["graph"], CompiledStateGraph)
    assert isinstance(module["example_input"], dict) and module["example_input"]
    assert len((module["__doc__"] or "").strip()) > 80
    source = (EXAMPLES / f"{name}.py").read_text()
    assert "langgraph" not in source and "langchain" not in source
    drawing = module["graph"].get_graph(xray=True)
    assert START in drawing.nx and drawing.to_dot().startswith("digraph")


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("approval", "user_memory")])
def test_example_main_prints_the_updates_stream(name: str) -> None:
    result = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], check=False, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    entry = set(load(name)["graph"].get_graph().nx.successors(START))
    first_line = result.stdout.splitlines()[0]
    assert any(first_line.startswith(f"{{'{node}': ") for node in entry), first_line


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A final state with messages reduced to (type, text): their ids are random."""
    return {k: texts(v) if k == "messages" else v for k, v in state.items()}


@pytest.mark.parametrize("name", NAMES)
def test_example_recompiles_with_a_sqlite_checkpointer(name: str, tmp_path: Path) -> None:
    """What the studio does: load the file by path, then compile its builder with its own
    saver (so the schema must not depend on the module staying importable)."""
    module = load(name)
    graph = module["builder"].compile(checkpointer=SqliteSaver(str(tmp_path / "runs.sqlite")))
    config = {"configurable": {"thread_id": "t"}}
    out = graph.invoke(module["example_input"], config, context=module.get("example_context"))
    if name == "user_memory":
        out = graph.invoke(Command(resume="likes tea"), config, context=module["example_context"])
        assert out["answer"].startswith("Hi ada! About you I know: likes tea.")
    elif name == "approval":
        out = graph.invoke(Command(resume="yes"), config)
        assert out["status"] == "refunded $120.00 to Ada"
    else:
        assert comparable(out) == comparable(module["graph"].invoke(module["example_input"]))
    assert len(list(graph.get_state_history(config))) >= 3


def test_single_llm() -> None:
    m = load("single_llm")
    out = m["graph"].invoke(m["example_input"])
    assert texts(out["messages"]) == [("human", "What is the capital of France?"),
                                      ("ai", "The capital of France is Paris.")]


def test_react_agent_loops_through_both_tools_then_answers() -> None:
    m = load("react_agent")
    out = m["graph"].invoke(m["example_input"])
    msgs = out["messages"]
    assert [x.type for x in msgs] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert msgs[1].tool_calls[0]["name"] == "calculator" and msgs[1].tool_calls[0]["args"] == {"expression": "6 * 7"}
    assert (msgs[2].text, msgs[2].tool_call_id) == ("42", msgs[1].tool_calls[0]["id"])
    assert msgs[3].tool_calls[0]["name"] == "weather" and msgs[4].text == "18°C and sunny"
    assert msgs[5].text == "The result is 42 and the weather is 18°C and sunny."
    assert msgs[5].tool_calls == []


def test_react_agent_answers_directly_when_no_tool_helps() -> None:
    m = load("react_agent")
    out = m["graph"].invoke({"messages": [("user", "Tell me a joke")]})
    assert [x.type for x in out["messages"]] == ["human", "ai"]


def test_react_agent_is_drawn_with_its_loop() -> None:
    edges = {(e.source, e.target): e.kind for e in load("react_agent")["graph"].get_graph().edges}
    assert edges == {(START, "agent"): "edge", ("agent", "tools"): "conditional",
                     ("agent", END): "conditional", ("tools", "agent"): "edge"}


def test_router_takes_the_search_branch_for_fresh_questions() -> None:
    m = load("router")
    out = m["graph"].invoke(m["example_input"])
    assert out["route"] == "search"
    assert out["sources"] == ["index:graph engines"]
    assert out["answer"] == "Retrograph 0.1 ships a stepper engine and a time-travel debugger."


def test_router_takes_the_llm_branch_otherwise() -> None:
    m = load("router")
    updates = list(m["graph"].stream({"question": "Why is the sky blue?"}, stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["classify", "llm"]
    assert updates[-1]["llm"]["answer"].startswith("From what I know: Why is the sky blue")


def test_parallel_search_merges_once_after_both_branches() -> None:
    m = load("parallel_search")
    updates = list(m["graph"].stream(m["example_input"], stream_mode="updates"))
    assert [next(iter(u)) for u in updates].count("merge") == 1
    out = m["graph"].invoke(m["example_input"])
    assert sorted(out["results"]) == ["db: internal wiki: Python style guide", "web: docs.python.org",
                                      "web: python.org"]
    assert out["summary"] == ("3 results for 'python': db: internal wiki: Python style guide; "
                              "web: docs.python.org; web: python.org")


def test_parallel_search_is_drawn_with_a_join() -> None:
    edges = {(e.source, e.target): e.kind for e in load("parallel_search")["graph"].get_graph().edges}
    assert edges[("rank_web", "merge")] == edges[("search_db", "merge")] == "join"


def test_loop_until_done_converges() -> None:
    m = load("loop_until_done")
    out = m["graph"].invoke(m["example_input"])
    assert abs(out["guess"] ** 2 - 2) <= 1e-9 and math.isclose(out["guess"], math.sqrt(2), rel_tol=1e-11)
    assert out["iterations"] == 4 and len(out["history"]) == 5
    assert out["history"][:3] == [2.0, 1.5, 1.4166666666666665]


def test_bluetooth_fails_the_first_pairing_then_connects() -> None:
    m = load("bluetooth")
    updates = list(m["graph"].stream(m["example_input"], stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["off", "scanning", "pairing", "scanning", "pairing", "connected"]
    out = m["graph"].invoke(m["example_input"])
    assert out["status"] == "connected" and out["attempts"] == 2
    scan = "scanning: found Headphones, Kitchen Speaker, Phone"
    assert out["log"] == ["radio off: powering on", scan, "pairing with Headphones: attempt 1 failed", scan,
                          "pairing with Headphones: attempt 2 succeeded", "connected to Headphones"]


def test_bluetooth_with_no_failures_pairs_first_time() -> None:
    m = load("bluetooth")
    out = m["graph"].invoke({"device": "Watch", "failures": 0})
    assert out["attempts"] == 1 and out["log"][-1] == "connected to Watch"


def test_map_reduce_sends_one_task_per_document() -> None:
    m = load("map_reduce")
    updates = list(m["graph"].stream(m["example_input"], stream_mode="updates"))
    assert [next(iter(u)) for u in updates].count("summarize") == 3
    out = m["graph"].invoke(m["example_input"])
    assert sorted(s["index"] for s in out["summaries"]) == [0, 1, 2]
    assert out["report"] == (
        "3 documents, 31 words\n"
        "1. Graphs make agent... (10 words)\n"
        "2. Checkpoints let a... (11 words)\n"
        "3. Send starts one... (10 words)"
    )


def test_approval_pauses_then_resumes_with_an_approval() -> None:
    graph = load("approval")["graph"]
    config = {"configurable": {"thread_id": "t-approve"}}
    paused = graph.invoke(load("approval")["example_input"], config)
    (pending,) = paused["__interrupt__"]
    assert pending.value == {"question": "Refund $120.00 to Ada?", "reason": "parcel arrived damaged"}
    assert paused["status"] == "awaiting approval"
    assert graph.get_state(config).next == ("review",)
    out = graph.invoke(Command(resume={"approved": True, "note": "photos checked"}), config)
    assert "__interrupt__" not in out
    assert out["status"] == "refunded $120.00 to Ada"
    assert (out["approved"], out["reviewer_note"]) == (True, "photos checked")


def test_approval_rejected_ends_without_refund() -> None:
    m = load("approval")
    config = {"configurable": {"thread_id": "t-reject"}}
    m["graph"].invoke(m["example_input"], config)
    out = m["graph"].invoke(Command(resume="no"), config)
    assert (out["status"], out["approved"]) == ("rejected", False)


def test_approval_small_refunds_need_no_human() -> None:
    m = load("approval")
    out = m["graph"].invoke({"customer": "Bo", "amount": 20.0}, {"configurable": {"thread_id": "t-small"}})
    assert "__interrupt__" not in out and out["status"] == "refunded $20.00 to Bo"


def test_approval_main_resumes_in_the_same_process() -> None:
    result = subprocess.run([sys.executable, str(EXAMPLES / "approval.py")], check=False, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert "__interrupt__" in result.stdout and "refunded $120.00 to Ada" in result.stdout


def test_approval_graph_accepts_another_checkpointer() -> None:
    builder = load("approval")["builder"]
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t-other"}}
    graph.invoke({"customer": "Cy", "amount": 75.0}, config)
    assert graph.invoke(Command(resume="yes"), config)["status"] == "refunded $75.00 to Cy"


def test_subgraph_runs_the_research_graph_as_a_node() -> None:
    m = load("subgraph")
    updates = list(m["graph"].stream(m["example_input"], stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["plan", "research", "write"]
    out = m["graph"].invoke(m["example_input"])
    assert out["facts"][0] == "1. An octopus has three hearts."
    assert out["article"] == ("Octopus: An octopus has three hearts. Octopuses can change colour in milliseconds. "
                              "Each arm of an octopus has its own cluster of neurons.")
    assert out["log"] == ["planned an article about octopus", "wrote 3 facts"]
    assert "pages" not in out, "the subgraph's private key stays inside it"


def test_subgraph_is_drawn_as_a_cluster_with_xray() -> None:
    drawing = load("subgraph")["graph"].get_graph(xray=True)
    assert drawing.nx.nodes["research"]["subgraph_nodes"] == (
        "research:__start__", "research:fetch", "research:extract", "research:__end__")


def test_user_memory_remembers_a_user_across_threads_in_its_store() -> None:
    m = load("user_memory")
    graph, ctx = m["graph"], {"user_id": "lin", "tone": "formal"}
    first = {"configurable": {"thread_id": "one"}}
    paused = graph.invoke(m["example_input"], first, context=ctx)
    assert paused["__interrupt__"][0].value == {"question": "What should I remember about lin?"}
    graph.invoke(Command(resume="plays chess"), first, context=ctx)
    second = {"configurable": {"thread_id": "two"}}
    graph.invoke(m["example_input"], second, context=ctx)
    done = graph.invoke(Command(resume=""), second, context=ctx)
    assert done["answer"] == "Good day, lin. About you I know: plays chess. You asked: what do you know about me?"
    assert [i.value for i in m["store"].search(("memories", "lin"))] == [{"fact": "plays chess"}]


def test_user_memory_main_resumes_in_the_same_process() -> None:
    result = subprocess.run([sys.executable, str(EXAMPLES / "user_memory.py")], check=False, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "Hi ada! About you I know: likes tea." in result.stdout
