"""The one driver (`drive()`, `Run.drive(hooks)`) and the one constructor (`new_run`)."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, DriveHooks, InMemorySaver, StateGraph
from engine.runtime.drive import drive


class S(TypedDict):
    log: Annotated[list, operator.add]


def fan_graph(checkpointer=None):
    """plan -> (web, db) -> merge: supersteps of 1, 1, 2 and 1 tasks."""
    g = StateGraph(S)
    for name in ("plan", "web", "db", "merge"):
        g.add_node(name, lambda s, name=name: {"log": [name]})
    g.add_edge(START, "plan")
    g.add_edge("plan", "web")
    g.add_edge("plan", "db")
    g.add_edge(["web", "db"], "merge")
    g.add_edge("merge", END)
    return g.compile(checkpointer=checkpointer)


class Recorder(DriveHooks):
    """Notes every hook call; stops after the commit that ran `stop_after`."""

    def __init__(self, stop_after=None, stepwise=False):
        self.calls = []
        self.stop_after = stop_after
        self.stepwise = stepwise

    async def before_move(self, run):
        self.calls.append(("move", tuple(t.name for t in run.pending)))

    async def before_superstep(self, run):
        self.calls.append(("superstep", tuple(sorted(t.name for t in run.pending))))
        return False

    async def after_tasks(self, run):
        self.calls.append(("tasks", len(run.pending)))
        return False

    async def after_commit(self, run, committed):
        self.calls.append(("commit", committed.nodes_ran))
        return self.stop_after in committed.nodes_ran


def test_a_hook_stops_the_drive_and_a_second_drive_goes_on_from_there():
    graph = fan_graph(InMemorySaver())
    hooks = Recorder(stop_after="plan")

    async def scenario():
        run = graph.new_run({"log": []}, {"configurable": {"thread_id": "t"}})
        assert await run.drive(hooks) == "ready"  # stopped by the hook, not ended
        assert run.values["log"] == ["plan"]
        assert sorted(t.name for t in run.pending) == ["db", "web"]
        assert await run.drive() == "done"
        return run

    run = asyncio.run(scenario())
    assert run.values["log"] == ["plan", "db", "web", "merge"]
    assert hooks.calls == [
        ("superstep", ("__start__",)), ("tasks", 0), ("commit", ("__start__",)),
        ("superstep", ("plan",)), ("tasks", 0), ("commit", ("plan",)),
    ]


class EditInstead(DriveHooks):
    """Makes `plan`'s superstep itself, as an edit (as a recorded replay re-makes an edit)."""

    def __init__(self):
        self.asked = []

    async def before_superstep(self, run):
        names = tuple(sorted(t.name for t in run.pending))
        self.asked.append(names)
        if names == ("plan",):
            run.apply_updates(run.checkpoint, [({"log": ["edited"]}, "plan")])
            run.after_commit(())
        return False


def test_a_hook_that_makes_the_superstep_itself_is_asked_again_about_the_next():
    graph = fan_graph(InMemorySaver())
    hooks = EditInstead()

    async def scenario():
        run = graph.new_run({"log": []}, {"configurable": {"thread_id": "t"}})
        assert await run.drive(hooks) == "done"
        return run

    run = asyncio.run(scenario())
    assert run.values["log"] == ["edited", "db", "web", "merge"]  # plan itself never ran
    assert hooks.asked == [("__start__",), ("plan",), ("db", "web"), ("merge",)]


def test_stepwise_hooks_see_each_task_and_each_commit_as_a_move():
    hooks = Recorder(stepwise=True)

    async def scenario():
        run = fan_graph().new_run({"log": []})
        await run.drive(hooks)
        return run

    run = asyncio.run(scenario())
    assert run.status == "done"
    moves = [c[1] for c in hooks.calls if c[0] == "move"]
    # the two-task superstep: its tasks one at a time (db then web), then its commit
    assert moves[4:7] == [("db", "web"), ("web",), ()]
    assert sum(1 for c in hooks.calls if c[0] == "commit") == 4
    assert sum(1 for c in hooks.calls if c[0] == "superstep") == 4


def test_drive_leaves_a_failure_on_the_run_and_run_to_end_raises_it():
    g = StateGraph(S)

    def boom(s):
        raise ValueError("boom in node")

    g.add_node("boom", boom)
    g.add_edge(START, "boom")
    graph = g.compile()

    async def scenario():
        run = graph.new_run({"log": []})
        assert await run.drive() == "failed"
        assert isinstance(run.error, ValueError)
        with pytest.raises(ValueError, match="boom in node"):
            await graph.new_run({"log": []}).run_to_end()

    asyncio.run(scenario())


def test_closing_the_drive_early_cancels_the_run():
    graph = fan_graph()

    async def scenario():
        run = graph.new_run({"log": []})
        stream = drive(run, Recorder(stop_after=None))
        await stream.aclose()  # never started: nothing ran
        assert run.status == "new"
        run = graph.new_run({"log": []})
        task = asyncio.ensure_future(run.drive(Slow()))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return run

    run = asyncio.run(scenario())
    assert run.status == "cancelled"


class Slow(DriveHooks):
    async def before_superstep(self, run):
        await asyncio.sleep(10)  # cancelled long before
        return False


def test_new_run_inside_a_node_is_that_tasks_child_and_takes_the_bound_config():
    inner = fan_graph().with_config(tags=["inner-tag"])
    seen = {}

    def outer_node(state):
        run = inner.new_run({"log": []})
        seen["namespace"] = run.namespace
        seen["tags"] = run.config.get("tags")
        run.cancel()
        return {"log": ["outer"]}

    g = StateGraph(S)
    g.add_node("outer", outer_node)
    g.add_edge(START, "outer")
    g.compile().invoke({"log": []})
    assert seen["namespace"] == ("outer",)
    assert "inner-tag" in seen["tags"]
    top = inner.new_run({"log": []})  # outside a node: a run of its own
    assert top.namespace == () and top.config["tags"] == ["inner-tag"]
