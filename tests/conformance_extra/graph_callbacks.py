"""Graph lifecycle callbacks (on_interrupt / on_resume of a GraphCallbackHandler) and a
node's TracePolicy, as a real LangChain tracer records them."""
from typing import TypedDict

from langchain_core.tracers.base import BaseTracer


def _names(api):
    if api.impl == "langgraph":
        from langgraph.callbacks import GraphCallbackHandler
        from langgraph.types import TracePolicy, omit_payload
    else:
        from engine.callbacks import GraphCallbackHandler
        from engine.types import TracePolicy, omit_payload
    return GraphCallbackHandler, TracePolicy, omit_payload


class _Tracer(BaseTracer):
    def __init__(self):
        super().__init__()
        self.runs = []

    def _persist_run(self, run):
        self.runs.append(run)

    def flat(self):
        stack, out = list(self.runs), []
        while stack:
            run = stack.pop()
            out.append(run)
            stack.extend(run.child_runs)
        return out


class A(TypedDict):
    answer: str


def case_graph_handler_hears_interrupt_and_resume(api, tmp):
    handler_base, _, _ = _names(api)

    class Recorder(handler_base):
        def __init__(self):
            self.seen = []

        def on_interrupt(self, event):
            self.seen.append(["interrupt", list(event.checkpoint_ns), [i.value for i in event.interrupts]])

        def on_resume(self, event):
            self.seen.append(["resume", list(event.checkpoint_ns)])

    g = api.StateGraph(A)
    g.add_node("ask", lambda state: {"answer": api.interrupt("value?")})
    g.add_edge(api.START, "ask")
    graph = g.compile(checkpointer=api.InMemorySaver())
    recorder = Recorder()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [recorder]}
    graph.invoke({"answer": ""}, config)
    final = graph.invoke(api.Command(resume="done"), config)
    return {"seen": recorder.seen, "final": final}


class V(TypedDict):
    value: int


def case_trace_policy_records_processed_payloads(api, tmp):
    _, policy, omit = _names(api)
    g = api.StateGraph(V)
    g.add_node("scrubbed", lambda s: {"value": s["value"] + 1},
               trace_policy=policy(process_inputs=lambda v: {"seen": sorted(v)}, process_outputs=omit))
    g.add_node("plain", lambda s: {"value": s["value"] * 10})
    g.add_edge(api.START, "scrubbed")
    g.add_edge("scrubbed", "plain")
    tracer = _Tracer()
    out = g.compile().invoke({"value": 1}, {"callbacks": [tracer]})
    runs = {r.name: [r.inputs, r.outputs] for r in tracer.flat() if r.name in ("scrubbed", "plain")}
    return {"out": out, "runs": runs}
