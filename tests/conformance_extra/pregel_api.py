"""The low-level graph API: Pregel(nodes=, channels=) with NodeBuilder nodes, its values
and updates streams, its checkpoint history, and a pause before a node resumed."""
import operator


def _names(api):
    if api.impl == "langgraph":
        from langgraph.channels import BinaryOperatorAggregate, LastValue, Topic
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from engine.compat.channels import BinaryOperatorAggregate, LastValue, Topic
        from engine.pregel_api import NodeBuilder, Pregel
    return Pregel, NodeBuilder, LastValue, Topic, BinaryOperatorAggregate


def _app(api, **kw):
    pregel, node, last, topic, binop = _names(api)
    return pregel(
        nodes={
            "split": node().subscribe_only("text").do(str.split).write_to("words", log=lambda w: f"split {len(w)}"),
            "size": node().subscribe_only("words").do(len).write_to("total", log=lambda n: f"size {n}"),
            "first": node().subscribe_to("words").read_from("total").do(lambda d: d["words"][0])
            .write_to("head"),
        },
        channels={"text": last(str), "words": last(list), "total": binop(int, operator.add), "head": last(str),
                  "log": topic(str, accumulate=True)},
        input_channels="text", output_channels=["total", "head", "log"], **kw)


def case_pregel_nodes_follow_their_channels(api, tmp):
    app = _app(api)
    return {"out": app.invoke("a b c"), "values": list(app.stream("a b")),
            "updates": sorted(map(repr, app.stream("x y", stream_mode="updates")))}


def case_pregel_history_and_a_pause_before_a_node(api, tmp):
    app = _app(api, checkpointer=api.InMemorySaver(), interrupt_before_nodes=["size"])
    cfg = {"configurable": {"thread_id": "t"}}
    first = app.invoke("a b c", cfg)
    paused = app.get_state(cfg)
    last = app.invoke(None, cfg)
    history = [(s.metadata["step"], s.metadata["source"], sorted(s.next), sorted(s.values))
               for s in app.get_state_history(cfg)]
    return {"first": first, "paused": [sorted(paused.next), paused.values], "last": last, "history": history}
