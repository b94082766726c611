"""`stream_mode="tools"`: each tool call's start, output deltas (ToolRuntime.emit_output_delta),
end or error, keyed by the call's id, under the namespace of the graph the tool runs in."""
from typing import Annotated

from typing_extensions import TypedDict


def _prebuilt(api):
    if api.impl == "langgraph":
        from langgraph.prebuilt import ToolNode, ToolRuntime
    else:
        from engine.prebuilt import ToolNode, ToolRuntime
    return ToolNode, ToolRuntime


def _graph(api, calls, tools, nested=False):
    from langchain_core.messages import AIMessage

    ToolNode, _ = _prebuilt(api)

    class S(TypedDict):
        messages: Annotated[list, api.add_messages]

    g = api.StateGraph(S)
    g.add_node("caller", lambda s: {"messages": [AIMessage("", tool_calls=calls)]})
    g.add_node("tools", ToolNode(tools))
    g.add_edge(api.START, "caller")
    g.add_edge("caller", "tools")
    app = g.compile()
    if not nested:
        return app
    outer = api.StateGraph(S)
    outer.add_node("sub", app)
    outer.add_edge(api.START, "sub")
    return outer.compile()


def _events(chunks):
    out = []
    for ns, mode, p in chunks:
        if mode != "tools":
            continue
        row = {k: v for k, v in p.items() if k != "output"}
        if "output" in p:
            row["output"] = [type(p["output"]).__name__, getattr(p["output"], "content", None)]
        out.append([[n.split(":")[0] for n in ns], row])
    return out


def _tools(api):
    from langchain_core.tools import tool

    _, ToolRuntime = _prebuilt(api)

    @tool
    def streamer(marker: str, runtime: ToolRuntime) -> str:
        """Streams its marker twice."""
        runtime.emit_output_delta(f"{marker}-1")
        runtime.emit_output_delta(f"{marker}-2")
        return marker

    @tool
    def boom() -> str:
        """Fails."""
        raise ValueError("nope")

    return streamer, boom


def case_tool_calls_stream_start_deltas_and_end(api, tmp):
    streamer, _ = _tools(api)
    calls = [{"name": "streamer", "args": {"marker": "A"}, "id": "a"}]
    app = _graph(api, calls, [streamer])
    out = {"flat": _events(app.stream({"messages": []}, stream_mode=["tools"], subgraphs=True))}
    nested = _graph(api, calls, [streamer], nested=True)
    out["nested"] = _events(nested.stream({"messages": []}, stream_mode=["tools"], subgraphs=True))
    out["nested_no_subgraphs"] = [c for c in nested.stream({"messages": []}, stream_mode=["tools"])]
    out["without_mode"] = [m for _, m, _ in app.stream({"messages": []}, stream_mode=["values"], subgraphs=True)]
    return out


def case_a_failing_tool_streams_its_error(api, tmp):
    _, boom = _tools(api)
    app = _graph(api, [{"name": "boom", "args": {}, "id": "b"}], [boom])
    seen = []
    try:
        for chunk in app.stream({"messages": []}, stream_mode=["tools"], subgraphs=True):
            seen.append(chunk)
    except ValueError as exc:
        return {"events": _events(seen), "raised": str(exc)}
    return {"events": _events(seen)}
