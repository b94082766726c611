"""How a DeltaChannel key shows in the saver's raw checkpoints: left out between snapshots,
its whole value as a snapshot every `snapshot_frequency` updates (or after an Overwrite, or a
thread's first update_state), `counters_since_delta_snapshot` in the metadata, exit
durability counting the supersteps it does not store, and a saver opened afresh on a file."""
from typing import Annotated

from typing_extensions import TypedDict


def _delta(api):
    if api.impl == "langgraph":
        from langgraph.channels.delta import DeltaChannel
        from langgraph.types import Overwrite
    else:
        from engine.compat.channels import DeltaChannel
        from engine.types import Overwrite
    return DeltaChannel, Overwrite


def _concat(state, writes):
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


def _shown(value):
    if type(value).__name__.endswith("DeltaSnapshot"):
        return ["snapshot", value.value]
    return ["value", value]


def _raw(saver, cfg, keys=("items", "other")):
    """Oldest first: each checkpoint's step, source, how the keys show, and the counters."""
    out = []
    for t in reversed(list(saver.list(cfg))):
        values = t.checkpoint["channel_values"]
        out.append([t.metadata.get("step"), t.metadata.get("source"),
                    {k: _shown(values[k]) for k in keys if k in values},
                    t.metadata.get("counters_since_delta_snapshot")])
    return out


def _graph(api, saver, freq, node_writes=True, overwrite_in=None):
    Delta, Overwrite = _delta(api)

    State = TypedDict("State", {"items": Annotated[list, Delta(_concat, list, snapshot_frequency=freq)],  # noqa: UP013
                                "other": str})

    def first(state):
        return {"items": ["n1"]} if node_writes else {"other": "x"}

    def second(state):
        if overwrite_in == "second":
            return {"items": Overwrite(["reset"])}
        return {"items": ["n2"]} if node_writes else {"other": "y"}

    return (api.StateGraph(State).add_node("first", first).add_node("second", second)
            .add_edge(api.START, "first").add_edge("first", "second").add_edge("second", api.END)
            .compile(checkpointer=saver))


def case_delta_key_snapshots_every_n_updates(api, tmp):
    saver = api.InMemorySaver()
    app = _graph(api, saver, freq=3)
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": ["a"], "other": ""}, cfg)
    app.invoke({"items": ["b"]}, cfg)
    return {"raw": _raw(saver, cfg), "state": app.get_state(cfg).values}


def case_delta_key_left_out_for_a_saver_opened_afresh_on_a_file(api, tmp):
    path = tmp / "delta.sqlite"
    cfg = {"configurable": {"thread_id": "t"}}
    app = _graph(api, api.sqlite_saver(path), freq=4)
    app.invoke({"items": ["a"], "other": ""}, cfg)
    again = api.sqlite_saver(path)
    head = again.get_tuple(cfg)
    return {"raw": _raw(again, cfg), "head_keys": sorted(k for k in head.checkpoint["channel_values"]
                                                          if not k.startswith(("branch:", "__"))),
            "state": _graph(api, again, freq=4).get_state(cfg).values}


def case_delta_key_snapshots_on_an_overwrite(api, tmp):
    saver = api.InMemorySaver()
    app = _graph(api, saver, freq=1000, overwrite_in="second")
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": ["a"], "other": ""}, cfg)
    app.invoke({"items": ["b"]}, cfg)
    return {"raw": _raw(saver, cfg), "state": app.get_state(cfg).values}


def case_delta_key_counters_of_update_state(api, tmp):
    out = {}
    for fresh in (True, False):
        saver = api.InMemorySaver()
        app = _graph(api, saver, freq=1000, node_writes=False)
        cfg = {"configurable": {"thread_id": "t"}}
        if not fresh:
            app.invoke({"items": ["a"], "other": ""}, cfg)
        app.update_state(cfg, {"items": ["u1"]}, as_node="second")
        app.update_state(cfg, {"items": ["u2"]}, as_node="second")
        out["fresh" if fresh else "after_invoke"] = {"raw": _raw(saver, cfg), "state": app.get_state(cfg).values}
    return out


def case_delta_key_under_exit_durability(api, tmp):
    saver = api.InMemorySaver()
    app = _graph(api, saver, freq=5)
    cfg = {"configurable": {"thread_id": "t"}}
    heads = []
    for word in ("a", "b", "c"):
        app.invoke({"items": [word], "other": ""}, cfg, durability="exit")
        head = saver.get_tuple(cfg)
        heads.append([_shown(head.checkpoint["channel_values"]["items"]) if "items" in head.checkpoint["channel_values"]
                      else None, head.metadata.get("counters_since_delta_snapshot")])
    return {"heads": heads, "state": app.get_state(cfg).values}


def case_delta_key_not_written_by_a_threads_first_update_is_left_out(api, tmp):
    Delta, _ = _delta(api)
    State = TypedDict("State", {"items": Annotated[list, Delta(_concat, list, snapshot_frequency=1)],  # noqa: UP013
                                "other": Annotated[list, Delta(_concat, list, snapshot_frequency=1000)]})
    saver = api.InMemorySaver()
    app = (api.StateGraph(State).add_node("n", lambda s: {}).add_edge(api.START, "n").add_edge("n", api.END)
           .compile(checkpointer=saver))
    cfg = {"configurable": {"thread_id": "t"}}
    app.update_state(cfg, {"other": ["o"]}, as_node="n")
    app.update_state(cfg, {"items": ["i"]}, as_node="n")
    return {"raw": _raw(saver, cfg), "state": app.get_state(cfg).values}
