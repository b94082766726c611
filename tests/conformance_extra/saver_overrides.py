"""A saver subclass overriding LangGraph-form methods is called through them: which saves a
`put` override sees (step, source, whether it names a parent, the checkpoint's layout and
the versions that moved), what the run returns and
stores, and the error of an override that fails (put, get_tuple, get_next_version)."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import history, thread


class S(TypedDict):
    log: Annotated[list, operator.add]


def _builder(api):
    g = api.StateGraph(S)
    g.add_node("first", lambda s: {"log": ["first"]})
    g.add_node("second", lambda s: {"log": ["second"]})
    g.add_edge(api.START, "first")
    g.add_edge("first", "second")
    return g


def case_put_override_sees_every_save(api, tmp):
    seen = []

    class Logging(api.InMemorySaver):
        def put(self, config, checkpoint, metadata, new_versions):
            seen.append([metadata["step"], metadata["source"], config["configurable"].get("checkpoint_id") is not None,
                         norm(checkpoint["channel_values"]), sorted(checkpoint["versions_seen"]),
                         checkpoint["updated_channels"], sorted(new_versions)])
            return super().put(config, checkpoint, metadata, new_versions)

    graph = _builder(api).compile(checkpointer=Logging())
    out = graph.invoke({"log": []}, thread())
    again = graph.invoke({"log": ["more"]}, thread())
    return {"out": norm(out), "again": norm(again), "seen": seen, "history": history(graph, thread())}


def case_failing_overrides_fail_the_run(api, tmp):
    out = {}
    for method in ("put", "get_tuple", "get_next_version"):
        def boom(self, *args, _m=method, **kwargs):
            raise ValueError(f"broken {_m}")

        saver = type("Broken", (api.InMemorySaver,), {method: boom})()
        try:
            _builder(api).compile(checkpointer=saver).invoke({"log": []}, thread())
            out[method] = None
        except ValueError as exc:
            out[method] = str(exc)
    return out
