"""LangGraph's channel classes used on their own (from_checkpoint of the absence sentinel,
update, get, checkpoint), and the older forms of an Interrupt (ns=, resumable=, when=)."""
import operator
import warnings


def _names(api):
    if api.impl == "langgraph":
        import langgraph.channels as ch
        from langgraph._internal._typing import MISSING
        from langgraph.errors import EmptyChannelError
        from langgraph.types import Interrupt
    else:
        import engine.compat.channels as ch
        from engine.compat.internal_typing import MISSING
        from engine.errors import EmptyChannelError
        from engine.types import Interrupt
    return ch, MISSING, EmptyChannelError, Interrupt


def _get(channel, empty):
    try:
        return channel.get()
    except empty:
        return "<empty>"


def case_channels_restored_from_nothing(api, tmp):
    ch, missing, empty, _ = _names(api)
    out = {}
    last = ch.LastValue(int).from_checkpoint(missing)
    out["last_empty"] = _get(last, empty)
    last.update([3])
    out["last_restored"] = _get(ch.LastValue(int).from_checkpoint(last.checkpoint()), empty)
    topic = ch.Topic(str).from_checkpoint(missing)
    out["topic"] = [topic.update(["a", ["b", "c"]]), _get(topic, empty), topic.update([]), _get(topic, empty),
                    topic.update([])]
    acc = ch.Topic(str, accumulate=True).from_checkpoint(missing)
    out["topic_acc"] = [acc.update(["a"]), acc.update([]), _get(acc, empty)]
    agg = ch.BinaryOperatorAggregate(int, operator.add).from_checkpoint(missing)
    out["binop"] = [_get(agg, empty), agg.update([1, 2]), _get(agg, empty)]
    unt = ch.UntrackedValue(dict).from_checkpoint(missing)
    unt.update([{"a": 1}])
    out["untracked"] = [_get(unt, empty), unt.checkpoint() is missing,
                        _get(ch.UntrackedValue(dict).from_checkpoint(unt.checkpoint()), empty)]
    eph = ch.EphemeralValue(str).from_checkpoint(missing)
    out["ephemeral"] = [eph.update(["x"]), _get(eph, empty), eph.update([]), _get(eph, empty)]
    return out


def case_interrupt_older_forms(api, tmp):
    *_, interrupt = _names(api)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = interrupt(value="abc", resumable=True, when="during", ns=["a:b", "c:d"])
        plain = interrupt("v", id="x1")
    new = interrupt.from_ns(value="abc", ns="a:b|c:d")
    return {"old": [old.value, old.id], "new": [new.value, new.id], "same": old == new,
            "plain": [plain.value, plain.id, plain.response_schema], "repr": repr(plain)}


def _files_reducer(state, writes):
    out = dict(state)
    for w in writes:
        for k, v in w.items():
            if v is None:
                out.pop(k, None)
            else:
                out[k] = v
    return out


def _concat(state, writes):
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


def case_delta_channel_on_its_own_and_in_a_graph(api, tmp):
    from typing import Annotated, TypedDict
    ch, missing, empty, _ = _names(api)
    if api.impl == "langgraph":
        from langgraph.types import Overwrite as overwrite
    else:
        from engine.types import Overwrite as overwrite
    alone = ch.DeltaChannel(_concat, list).from_checkpoint(missing)
    steps = [alone.update(["a"]), alone.update([["b", "c"], "d"]), alone.checkpoint() is missing, _get(alone, empty)]
    alone.update([overwrite(["x"])])
    steps.append(_get(alone, empty))
    replayed = ch.DeltaChannel(_concat, list).from_checkpoint(["seed"])
    replayed.replay_writes([("t0", "k", "a"), ("t1", "k", overwrite(["o"])), ("t2", "k", "z")])

    class S(TypedDict):
        files: Annotated[dict[str, str], ch.DeltaChannel(_files_reducer)]
        items: Annotated[list, ch.DeltaChannel(_concat, snapshot_frequency=2)]

    def write(s):
        return {"files": {f"/f{len(s['files'])}": "x", "/gone": None}, "items": ["w"]}

    def reset(s):
        return {"items": overwrite(["reset"])}

    g = api.StateGraph(S)
    g.add_node("write", write)
    g.add_node("reset", reset)
    g.add_edge(api.START, "write")
    g.add_edge("write", "reset")
    app = g.compile(checkpointer=api.InMemorySaver())
    cfg = {"configurable": {"thread_id": "d"}}
    runs = [app.invoke({"files": {"/gone": "y"}, "items": ["in"]}, cfg) for _ in range(2)]
    return {"alone": steps, "replayed": _get(replayed, empty), "runs": runs,
            "state": app.get_state(cfg).values,
            "fresh_dict": _get(ch.DeltaChannel(_files_reducer, dict).from_checkpoint(missing), empty)}
