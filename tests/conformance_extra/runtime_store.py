"""Runtime context, the injected store, get_runtime()/get_store() and InMemoryStore."""
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402


@dataclass
class Ctx:
    user: str
    level: int = 1


class S(TypedDict, total=False):
    out: str
    sub: str


def case_context_coerced_and_injected(api, tmp):
    x = extra(api)

    def n(state, runtime: x.Runtime[Ctx]):
        return {"out": f"{runtime.context.user}/{runtime.context.level}"}

    g = api.StateGraph(S, context_schema=Ctx)
    g.add_node("n", n)
    g.add_edge(api.START, "n")
    graph = g.compile()
    out = [graph.invoke({}, context={"user": "ann"}), graph.invoke({}, context=Ctx("bob", 2)), graph.invoke({})
           if False else None]
    try:
        graph.invoke({}, context={"nobody": 1})
    except TypeError:
        out.append("TypeError")
    return out


def case_store_and_get_runtime(api, tmp):
    x = extra(api)
    store = x.InMemoryStore()
    store.put(("users", "ann"), "profile", {"name": "Ann"})

    def a(state, store):
        who = x.get_runtime().context.user
        store.put(("seen",), who, {"n": 1})
        return {"out": store.get(("users", who), "profile").value["name"]}

    def b(state):
        return {"out": state["out"] + str(x.get_store().get(("seen",), "ann").value)}

    def inner(state, runtime: x.Runtime[Ctx]):
        return {"sub": runtime.context.user + "!"}

    sub = api.StateGraph(S, context_schema=Ctx)
    sub.add_node("inner", inner)
    sub.add_edge(api.START, "inner")
    g = api.StateGraph(S, context_schema=Ctx)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("sub", sub.compile())
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "sub")
    return g.compile(store=store).invoke({}, context=Ctx("ann"))


def case_in_memory_store_api(api, tmp):
    x = extra(api)
    s = x.InMemoryStore()
    s.put(("a", "b"), "k1", {"x": 1, "tag": {"color": "red"}})
    s.put(("a", "c"), "k2", {"x": 5})
    s.put(("d",), "k3", {"x": 9})
    out = [s.get(("a", "b"), "k1").value, s.get(("a", "b"), "nope")]
    out.append([(i.namespace, i.key, i.value, i.score) for i in s.search(("a",))])
    out.append([i.key for i in s.search(("a",), filter={"x": {"$gt": 2}})])
    out.append([i.key for i in s.search(("a",), filter={"tag": {"color": "red"}})])
    out.append([i.key for i in s.search((), limit=1, offset=1)])
    out.append([s.list_namespaces(), s.list_namespaces(prefix=("a",)), s.list_namespaces(max_depth=1),
                s.list_namespaces(suffix=("c",))])
    s.delete(("a", "b"), "k1")
    out.append(s.get(("a", "b"), "k1"))
    for bad in [(), ("a.b",), ("langgraph",)]:
        try:
            s.put(bad, "k", {})
            out.append("accepted")
        except ValueError:
            out.append("ValueError")
    return out


class _Seed:
    """A runtime-like object a caller puts in the config (not a Runtime)."""

    def __init__(self, context, store):
        self.context, self.store = context, store


def _seeded_run(api, x, schema, kw, seed):
    seen = {}

    def n(state, runtime: x.Runtime):
        seen["context"] = repr(runtime.context)
        seen["store"] = runtime.store is not None and runtime.store.get(("ns",), "k").value
        return {"out": "ok"}

    g = api.StateGraph(S, context_schema=schema).add_node("n", n).add_edge(api.START, "n").compile()
    g.invoke({}, {"configurable": {"__pregel_runtime": seed}}, **kw)
    return seen


def case_runtime_object_seeded_in_the_config(api, tmp):
    x = extra(api)
    store = x.InMemoryStore()
    store.put(("ns",), "k", {"from": "seed"})
    seeds = [_Seed({"user": "seeded"}, store), _Seed(None, None), _Seed({"user": "seeded"}, None)]
    return [_seeded_run(api, x, schema, kw, seed)
            for schema in (None, Ctx) for kw in ({}, {"context": {"user": "given"}}) for seed in seeds]
