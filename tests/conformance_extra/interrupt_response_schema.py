"""`interrupt(value, response_schema=...)`: the schema shown with the interrupt (a dict as it
is, a type as its JSON schema), the answer validated and converted by a type, and an answer
that does not fit raising pydantic's ValidationError (the interrupt can be answered again)."""
from typing import TypedDict

from pydantic import BaseModel


class Answer(BaseModel):
    ok: bool
    note: str = ""


def _interrupt(api):
    if api.impl == "langgraph":
        from langgraph.types import interrupt
    else:
        from engine import interrupt
    return interrupt


class S(TypedDict, total=False):
    got: str


def case_interrupt_response_schema_is_shown_and_checks_the_answer(api, tmp):
    interrupt = _interrupt(api)

    def ask(state):
        answer = interrupt({"q": "ok?"}, response_schema=Answer)
        plain = interrupt("free", response_schema={"type": "string"})
        return {"got": f"{type(answer).__name__}:{answer.ok}:{plain}"}

    app = (api.StateGraph(S).add_node("ask", ask).add_edge(api.START, "ask")
           .compile(checkpointer=api.InMemorySaver()))
    cfg = {"configurable": {"thread_id": "t"}}
    out = {}
    first = app.invoke({}, cfg)["__interrupt__"][0]
    out["first"] = [first.value, first.response_schema]
    try:
        app.invoke(api.Command(resume={"ok": "not a bool"}), cfg)
    except Exception as exc:  # noqa: BLE001
        out["bad"] = [type(exc).__name__, [e["loc"] for e in exc.errors()]]
    out["still_waiting"] = [i.value for i in app.get_state(cfg).interrupts]
    second = app.invoke(api.Command(resume={"ok": True}), cfg)["__interrupt__"][0]
    out["second"] = [second.value, second.response_schema]
    out["done"] = app.invoke(api.Command(resume="fine"), cfg)
    return out
