"""Node input schemas (input_schema= and the first parameter's hint) and private keys."""
from dataclasses import dataclass
from typing import TypedDict

from support import updates


class S(TypedDict):
    a: str
    b: str


class Priv(TypedDict):
    secret: str


class OnlyA(TypedDict):
    a: str


@dataclass
class AView:
    a: str


def _graph(api, seen):
    def n1(state: S):
        return {"secret": state["a"] + "!", "b": "x"}

    def n2(state: Priv):
        seen.append(dict(state))
        return {"b": state["secret"]}

    def n3(state):
        seen.append(dict(state))
        return {}

    def n4(state: AView):
        seen.append(["dataclass", state.a])
        return None

    g = api.StateGraph(S)
    g.add_node("n1", n1)
    g.add_node("n2", n2)
    g.add_node("n3", n3, input_schema=OnlyA)
    g.add_node("n4", n4)
    g.add_edge(api.START, "n1")
    g.add_edge("n1", "n2")
    g.add_edge("n2", "n3")
    g.add_edge("n3", "n4")
    return g.compile()


def case_node_sees_only_its_schema_keys(api, tmp):
    seen = []
    out = _graph(api, seen).invoke({"a": "hi"})
    return [out, seen]


def case_private_keys_in_updates_stream(api, tmp):
    return updates(_graph(api, []), {"a": "yo"})


def case_private_key_not_accepted_as_input(api, tmp):
    seen = []
    return [_graph(api, seen).invoke({"a": "in", "secret": "leak"}), seen]


def case_update_without_state_keys_shows_none(api, tmp):
    g = api.StateGraph(S)
    g.add_node("n", lambda s: {})
    g.add_node("m", lambda s: {"not_a_key": 1})
    g.add_edge(api.START, "n")
    g.add_edge("n", "m")
    return updates(g.compile(), {"a": "x"})
