"""Two app-shaped loops, engine against LangGraph in the same rounds (issue 24, target 3:
at most 0.1× LangGraph each).

- A 10-wide fan-out/fan-in round: a planner node sends ten `Send`s to a worker, a join
  node reads the summed results and loops back to the planner; the figure is
  microseconds per round (three supersteps), no checkpointer. The floor is the same
  planner, workers and join called in a plain loop.
- `create_react_agent` with a fake chat model (langchain-core's BaseChatModel, replies
  picked from the conversation: a tool call until N tool results are in, then an answer)
  and one tool; the figure is milliseconds of one `invoke()` of N tool rounds. The floor
  calls the same model and tool in a plain loop (so model and tool cost are shown), run in
  turn with the two sides in the same rounds.
"""
from __future__ import annotations

import operator
import time
import warnings
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from .graphs import END, ENGINE, Backend
from .harness import Context, Row, Target, alternate, median_of, timed

__all__ = ["NAME", "run"]

NAME = "agents"

_WIDTH = 10


class RoundState(TypedDict):
    round: int
    total: Annotated[int, operator.add]


def _round_parts(rounds: int) -> tuple[Callable[..., Any], ...]:
    def plan(state: RoundState) -> dict:
        return {"round": state["round"] + 1}

    def work(arg: dict) -> dict:
        return {"total": arg["i"]}

    def join(state: RoundState) -> dict:
        return {}

    def again(state: RoundState) -> str:
        return "plan" if state["round"] < rounds else END

    return plan, work, join, again


def _round_graph(backend: Backend, rounds: int) -> Any:
    plan, work, join, again = _round_parts(rounds)
    send = backend.Send
    g = backend.StateGraph(RoundState)
    g.add_node("plan", plan)
    g.add_node("work", work)
    g.add_node("join", join)
    g.add_edge(backend.START, "plan")
    g.add_conditional_edges("plan", lambda s: [send("work", {"i": i}) for i in range(_WIDTH)], ["work"])
    g.add_edge("work", "join")
    g.add_conditional_edges("join", again, ["plan", END])
    return g.compile()


def _round_side(backend: Backend, rounds: int) -> Callable[[], float]:
    expected = rounds * sum(range(_WIDTH))

    def once() -> float:
        graph = _round_graph(backend, rounds)
        seconds, out = timed(lambda: graph.invoke({"round": 0, "total": 0}, {"recursion_limit": 3 * rounds + 10}))
        if out.get("total") != expected:
            raise AssertionError(f"{backend.name}: the rounds summed {out.get('total')}, not {expected}")
        return seconds

    return once


def _round_floor(rounds: int) -> float:
    plan, work, join, again = _round_parts(rounds)
    start = time.perf_counter()
    state: dict[str, Any] = {"round": 0, "total": 0}
    while True:
        state.update(plan(state))  # type: ignore[arg-type]
        for i in range(_WIDTH):
            state["total"] += work({"i": i})["total"]
        state.update(join(state))  # type: ignore[arg-type]
        if again(state) == END:  # type: ignore[arg-type]
            break
    return time.perf_counter() - start


def _rounds_row(ctx: Context) -> Row:
    p = ctx.profile
    rounds = max(10, p.loop_steps // 20)
    ctx.progress(f"agents: {rounds} rounds of a {_WIDTH}-wide fan-out")
    backends = [ENGINE] + ([ctx.langgraph] if ctx.langgraph else [])
    sides = {b.name: _round_side(b, rounds) for b in backends}
    medians = alternate(sides, runs=max(p.runs, 5), warmup=1)
    floor = median_of(lambda: _round_floor(rounds), runs=max(p.runs, 5))
    return Row(
        key="agents.fanout_round", workload=f"{_WIDTH}-wide fan-out/fan-in, per round ({rounds:,} rounds)",
        unit="µs/round", engine=medians["engine"] / rounds * 1e6,
        langgraph=medians["langgraph"] / rounds * 1e6 if "langgraph" in medians else None,
        floor=floor / rounds * 1e6, target=Target(kind="ratio", limit=0.1),
        note="planner → 10 Sends → join → planner, no checkpointer; sync workers on both sides' thread pools",
    )


# -- create_react_agent --------------------------------------------------------------------------
def _model_and_tool(tool_rounds: int) -> tuple[Any, Any]:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    class FakeChat(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "bench-fake"

        def bind_tools(self, tools: Any, **kwargs: Any) -> FakeChat:
            return self

        def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            done = sum(1 for m in messages if isinstance(m, ToolMessage))
            if done < tool_rounds:
                reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": done, "b": 1}, "id": f"call{done}"}])
            else:
                reply = AIMessage(f"done after {done} tool calls")
            return ChatResult(generations=[ChatGeneration(message=reply)])

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return FakeChat(), add


def _react_factory(backend: Backend) -> Callable[..., Any]:
    if backend is ENGINE:
        from engine.prebuilt import create_react_agent
        return create_react_agent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent as lg_create
    return lg_create


def _react_side(backend: Backend, tool_rounds: int) -> Callable[[], float]:
    make = _react_factory(backend)

    def once() -> float:
        model, add = _model_and_tool(tool_rounds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            agent = make(model, [add])
        seconds, out = timed(lambda: agent.invoke({"messages": [("user", "add up")]}))
        last = out["messages"][-1].content
        if last != f"done after {tool_rounds} tool calls":
            raise AssertionError(f"{backend.name}: the agent ended with {last!r}")
        return seconds

    return once


def _react_floor(tool_rounds: int) -> float:
    from langchain_core.messages import HumanMessage, ToolMessage

    model, add = _model_and_tool(tool_rounds)
    start = time.perf_counter()
    messages: list[Any] = [HumanMessage("add up")]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            messages.append(ToolMessage(str(add.invoke(call["args"])), tool_call_id=call["id"]))
    return time.perf_counter() - start


def _react_share(medians: dict[str, float], floor: float) -> str:
    """What each side adds to the floor (its graph runtime, node wrappers and callbacks), per run."""
    own = medians["engine"] - floor
    text = f"; the engine's own share (engine - floor) {own * 1e3:.1f} ms"
    if "langgraph" in medians:
        theirs = medians["langgraph"] - floor
        text += f", LangGraph's {theirs * 1e3:.1f} ms" + (f" ({own / theirs:.2f}x)" if theirs > 0 else "")
        text += (f"; the floor alone is {floor / medians['langgraph']:.2f}x LangGraph, so a ratio under that "
                 "cannot be reached by any runtime calling this model and tool")
    return text


def _react_row(ctx: Context) -> Row:
    p = ctx.profile
    tool_rounds = 3 if p.is_smoke else 10
    ctx.progress(f"agents: create_react_agent, {tool_rounds} tool rounds")
    backends = [ENGINE] + ([ctx.langgraph] if ctx.langgraph else [])
    sides = {b.name: _react_side(b, tool_rounds) for b in backends}
    sides["floor"] = lambda: _react_floor(tool_rounds)  # in the same rounds: the same load as the sides
    medians = alternate(sides, runs=max(p.runs, 5), warmup=1)
    floor = medians["floor"]
    return Row(
        key="agents.react", workload=f"create_react_agent, fake chat model, {tool_rounds} tool rounds",
        unit="ms", engine=medians["engine"] * 1e3,
        langgraph=medians["langgraph"] * 1e3 if "langgraph" in medians else None,
        floor=floor * 1e3, target=Target(kind="ratio", limit=0.1),
        note="one invoke(), no checkpointer; the model is a langchain-core BaseChatModel on both sides "
             "(its own cost is in the floor: the model and tool called in a plain loop)" + _react_share(medians, floor),
    )


def run(ctx: Context) -> list[Row]:
    rows = []
    if ctx.wants("agents.fanout_round"):
        rows.append(_rounds_row(ctx))
    if ctx.wants("agents.react"):
        rows.append(_react_row(ctx))
    return rows
