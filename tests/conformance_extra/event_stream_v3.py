"""The v3 event stream (`stream_events(version="v3")`): the main event log's methods and
namespaces, the lifecycle of nested subgraphs, subgraph handles, the output and the
interrupts of a paused run, and what a failure does to each projection."""
import operator
from typing import Annotated, TypedDict


class S(TypedDict):
    value: str
    items: Annotated[list, operator.add]


def _names(ns):
    return [segment.split(":")[0] for segment in ns]


def _step(name):
    def node(state):
        return {"value": state["value"] + "_" + name, "items": [name]}
    return node


def _chain(api, steps, **compile_kw):
    g = api.StateGraph(S)
    for name, fn in steps:
        g.add_node(name, fn)
    g.add_edge(api.START, steps[0][0])
    for (a, _), (b, _) in zip(steps, steps[1:]):
        g.add_edge(a, b)
    return g.compile(**compile_kw)


def _nested(api):
    """outer: router -> mid (m -> low (x))."""
    low = _chain(api, [("x", _step("x"))])
    mid = _chain(api, [("m", _step("m")), ("low", low)])
    return _chain(api, [("router", _step("router")), ("mid", mid)])


def _event(e):
    data = e["params"]["data"]
    out = {"method": e["method"], "ns": _names(e["params"]["namespace"])}
    if e["method"] == "lifecycle":
        out["lifecycle"] = [data["event"], _names(data["namespace"]), data.get("graph_name")]
    elif e["method"] == "values":
        out["data"] = data
    return out


def case_v3_main_log_of_a_nested_run(api, tmp):
    run = _nested(api).stream_events({"value": "v", "items": []}, version="v3")
    events = list(run)
    seqs = [e["seq"] for e in events]
    return {"events": [_event(e) for e in events], "seq_increasing": seqs == sorted(set(seqs)),
            "types": sorted({e["type"] for e in events}), "output": run.output}


def case_v3_subgraph_handles_and_their_children(api, tmp):
    run = _nested(api).stream_events({"value": "v", "items": []}, version="v3")
    seen = []
    for handle in run.subgraphs:
        children = []
        for child in handle.subgraphs:
            children.append({"name": child.graph_name, "path": _names(child.path),
                             "values": list(child.values), "status": child.status})
        seen.append({"name": handle.graph_name, "path": _names(handle.path), "children": children,
                     "status": handle.status})
    return {"handles": seen, "output": run.output}


def case_v3_lifecycle_projection_and_values_interleaved(api, tmp):
    run = _nested(api).stream_events({"value": "v", "items": []}, version="v3")
    out = []
    for name, item in run.interleave("values", "lifecycle"):
        if name == "lifecycle":
            out.append(["lifecycle", item["event"], _names(item["namespace"])])
        else:
            out.append(["values", item])
    return out


def case_v3_interrupted_run_output_and_interrupts(api, tmp):
    def ask(state):
        answer = api.interrupt("approve?")
        return {"value": answer, "items": ["asked"]}

    graph = _chain(api, [("first", _step("first")), ("ask", ask)], checkpointer=api.InMemorySaver())
    run = graph.stream_events({"value": "v", "items": []}, {"configurable": {"thread_id": "t"}}, version="v3")
    output = run.output
    return {"output": output, "interrupted": run.interrupted,
            "interrupts": [i.value for i in run.interrupts]}


def case_v3_failure_reaches_every_projection(api, tmp):
    def boom(state):
        raise ValueError("boom")

    graph = _chain(api, [("first", _step("first")), ("boom", boom)])
    out = {}
    for what in ("output", "values", "events"):
        run = graph.stream_events({"value": "v", "items": []}, version="v3")
        try:
            if what == "output":
                _ = run.output
            elif what == "values":
                list(run.values)
            else:
                list(run)
            out[what] = "no error"
        except ValueError as exc:
            out[what] = str(exc)
    return out


def case_v3_failed_subgraph_handle(api, tmp):
    def boom(state):
        raise ValueError("child boom")

    inner = _chain(api, [("fail", boom)])
    graph = _chain(api, [("inner", inner)])
    run = graph.stream_events({"value": "v", "items": []}, version="v3")
    handle = next(iter(run.subgraphs))
    try:
        _ = handle.output
        raised = None
    except RuntimeError as exc:
        raised = str(exc)
    return {"raised": raised, "status": handle.status, "error": handle.error}
