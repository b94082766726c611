"""The explanation layer (engine.explain) and `retrograph run --explain`: why each task
runs, joins waiting, Sends, Command goto, pending writes with their reducers, conflicts."""
from __future__ import annotations

import io
import operator
from typing import Annotated, Literal, TypedDict

import pytest

from engine import END, START, Command, InvalidUpdateError, Send, StateGraph, add_messages
from engine.explain import Explainer, explain_plan, format_step, reducer_line, why_not
from studio.cli import cmd_run, parse_args
from test_studio_support import ROOT


def explain_run(graph, value):
    explainer = Explainer(graph)
    run_error = None
    try:
        for event in graph.stream(value, stream_mode="events"):
            explainer(event)
    except Exception as exc:  # noqa: BLE001 - a test of a run that fails on purpose
        run_error = exc
    return explainer, run_error


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cmd_run(parse_args(["run", *argv]), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_explain_parallel_search_names_the_join_its_sources_and_each_reducer() -> None:
    code, out, err = run_cli(str(ROOT / "resources/examples/parallel_search.py"), "--explain")
    assert code == 0, err
    steps = ("\n" + out).split("\nsuperstep ")[1:]
    assert len(steps) == 4
    assert "2 tasks run together, all reading the same snapshot" in steps[1]
    assert "runs search_db   because edge START → search_db" in steps[1]
    # the waiting edge: which join, which node it still waits for, and the count
    assert "merge waits for rank_web: 1 of 2 sources finished (search_db)" in steps[2]
    assert "runs merge  because join: all of rank_web, search_db finished" in steps[3]
    # each key written in a superstep: its reducer and the nodes that wrote it
    assert "results ← search_db, by operator.add" in steps[1]
    assert "web_hits ← search_web, by last value" in steps[1]
    assert "results ← rank_web, by operator.add" in steps[2]
    assert "{" not in out.splitlines()[0]  # text, not the JSON stream


class Fan(TypedDict, total=False):
    items: list[str]
    done: Annotated[list[str], operator.add]
    choice: str


def _send_graph():
    def plan(s):
        return {}

    def fan_out(s) -> list[Send]:
        return [Send("work", {"items": [x]}) for x in s["items"]]

    def work(s):
        return {"done": s["items"]}

    def pick(s) -> Command[Literal["left", "right"]]:
        return Command(goto="left")

    b = StateGraph(Fan)
    b.add_node("plan", plan)
    b.add_node("work", work)
    b.add_node("pick", pick)
    b.add_node("left", lambda s: {"choice": "left"})
    b.add_node("right", lambda s: {"choice": "right"})
    b.add_node("route", lambda s: {})
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", fan_out, ["work"])
    b.add_edge("work", "route")
    b.add_conditional_edges("route", lambda s: "go" if s["done"] else "stop", {"go": "pick", "stop": END})
    b.add_edge("left", END)
    b.add_edge("right", END)
    return b.compile()


def test_send_batches_router_labels_and_command_goto_are_explained() -> None:
    explainer, error = explain_run(_send_graph(), {"items": ["a", "b", "c"]})
    assert error is None
    by_nodes = {s.nodes(): s for s in explainer.steps}
    sends = by_nodes[("work",)]
    assert [(b.node, b.count, b.senders) for b in sends.sends] == [("work", 3, ("plan",))]
    assert [(t.send_index, t.send_count) for t in sends.tasks] == [(1, 3), (2, 3), (3, 3)]
    assert sends.tasks[1].arg == {"items": ["b"]}
    assert "Send 2 of 3 from `plan`" in sends.tasks[1].sentence
    assert "Send ×3 to work (from plan)" in format_step(sends)
    picked = by_nodes[("pick",)].tasks[0]
    assert picked.reasons[0].kind == "branch" and picked.reasons[0].label == "go"
    assert "route's router chose pick (answered 'go')" in picked.sentence
    left = by_nodes[("left",)].tasks[0]
    assert left.reasons[0].kind == "command"
    assert "pick returned Command(goto='left')" in left.sentence
    # the three Send writes were merged by operator.add, in task order
    merge = next(m for m in sends.merges if m.key == "done")
    assert merge.writers == ("work", "work", "work") and merge.after == ["a", "b", "c"]


class Clash(TypedDict, total=False):
    topic: str
    votes: Annotated[list[str], operator.add]


def test_two_writes_to_a_last_value_key_are_a_conflict_explained_before_the_commit() -> None:
    b = StateGraph(Clash)
    b.add_node("alice", lambda s: {"topic": "cats", "votes": ["alice"]})
    b.add_node("bob", lambda s: {"topic": "dogs", "votes": ["bob"]})
    b.add_edge(START, "alice")
    b.add_edge(START, "bob")
    explainer, error = explain_run(b.compile(), {"topic": "pets"})
    assert isinstance(error, InvalidUpdateError)
    stuck = explainer.current
    assert stuck is not None and set(stuck.nodes()) == {"alice", "bob"}
    assert {(w.node, w.key, w.reducer) for w in stuck.pending} == {
        ("alice", "topic", "last value"), ("bob", "topic", "last value"),
        ("alice", "votes", "operator.add"), ("bob", "votes", "operator.add")}
    [conflict] = stuck.conflicts
    assert conflict.key == "topic" and conflict.nodes == ("alice", "bob")
    assert "`topic` keeps the last value, and `alice` and `bob` each wrote it" in conflict.text
    text = format_step(stuck, status="failed")
    assert "conflict: `topic`" in text and "not committed: the run failed" in text


def keep_max(old: int, new: int) -> int:
    """Keeps the larger of the two numbers."""
    return max(old, new)


def test_reducer_lines_last_value_add_add_messages_and_a_custom_docstring() -> None:
    assert reducer_line("last value").startswith("last value: the write replaces")
    assert "old + each write" in reducer_line("operator.add", operator.add)
    assert "(by id)" in reducer_line("add_messages", add_messages)
    assert "(by id)" in reducer_line("add_messages", add_messages(format="langchain-openai"))
    assert "(by id)" in reducer_line("add_messages")  # read without the graph's code: by its name

    def own_add_messages(left: list, right: list) -> list:
        """Mine: keeps the first list."""
        return left

    own_add_messages.__name__ = own_add_messages.__qualname__ = "add_messages"
    assert reducer_line("add_messages", own_add_messages) == "add_messages: Mine: keeps the first list."
    assert "(by id)" not in reducer_line("mymod.add_messages")
    assert reducer_line("keep_max", keep_max) == "keep_max: Keeps the larger of the two numbers."
    undocumented = lambda a, b: a  # noqa: E731
    assert "a custom reducer, called as <lambda>(value so far, write)" in reducer_line("<lambda>", undocumented)


def test_why_not_says_why_a_node_waits_or_is_not_triggered() -> None:
    from explain_support import diamond

    graph = diamond()
    explainer = Explainer(graph)
    run = graph.new_run({"n": 1}, None)
    run.subscribe(explainer)

    import asyncio

    async def two_steps():
        await run.start()
        for _ in range(2):
            await run.run_pending()
            run.commit()

    asyncio.run(two_steps())
    step = explainer.current
    assert step is not None and step.nodes() == ("slow2",)
    assert why_not("join", step, graph) == (
        "`join` waits for slow2: 1 of 2 sources finished (fast); it runs in the superstep after the last one finishes.")
    assert why_not("slow2", step, graph).startswith("`slow2` runs next because edge slow → slow2")
    assert "nothing that finished in the last superstep triggered it" in why_not("fast", step, graph)
    assert "It runs after the edge from START" in why_not("fast", step, graph)


def test_a_plan_read_back_without_the_graphs_code_still_names_the_join() -> None:
    step = explain_plan(step=3, snapshot_id="c", tasks=(), barriers={"join:a+b:c": ("a",)})
    [wait] = step.waiting
    assert (wait.target, wait.sources, wait.arrived, wait.missing) == ("c", ("a", "b"), ("a",), ("b",))


@pytest.mark.parametrize("value", [10 ** 5000, "x" * 1_000_000, list(range(100_000))], ids=["int", "str", "list"])
def test_huge_values_are_cut_to_one_short_line(value) -> None:
    from engine.explain.text import short

    assert len(short(value)) <= 90


@pytest.mark.parametrize("name", ["supersteps_joins", "reducers_conflicts", "interrupts_time_travel"])
def test_each_lesson_runs_and_explains_itself(name: str) -> None:
    code, out, err = run_cli(str(ROOT / f"resources/examples/lessons/{name}.py"), "--explain")
    assert code == 0, err
    assert out.startswith("superstep 0: 1 task") and (ROOT / f"resources/examples/lessons/{name}.md").exists()
    if name == "supersteps_joins":
        assert "itinerary waits for cheapest_flight: 2 of 3 sources finished" in out
    elif name == "reducers_conflicts":
        assert "score ← alice, bob, by keep_highest: Keeps the highest score written so far" in out
    else:
        assert "not committed: the run was interrupted in this superstep" in out


def test_the_conflict_lesson_explains_its_conflict_before_the_commit_refuses_it() -> None:
    lesson = str(ROOT / "resources/examples/lessons/reducers_conflicts.py")
    code, out, err = run_cli(lesson, "--explain", "--input", '{"draft": "x", "clash": true, "score": 0}')
    assert code == 1 and "InvalidUpdateError" in err
    assert "conflict: `verdict` keeps the last value, and `alice` and `bob` each wrote it" in out
