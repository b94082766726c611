"""Human approval with `interrupt()`: the run pauses until someone decides.

Teaches: a node calling `interrupt(value)` stops the run and reports `value` (under
`__interrupt__`); the run is resumed later with `graph.invoke(Command(resume=...), config)`
on the same thread, and `interrupt()` then returns the resume value. That needs a
checkpointer to keep the paused run: this file compiles with `InMemorySaver()` (the
studio swaps in its own). Large refunds need approval, small ones go straight through.
"""

from typing import Literal, TypedDict

from engine import END, START, Command, InMemorySaver, StateGraph, interrupt

AUTO_APPROVE_LIMIT = 50.0


class RefundState(TypedDict, total=False):
    customer: str
    amount: float
    reason: str
    approved: bool
    reviewer_note: str
    status: str


def prepare(state: RefundState) -> dict:
    """Check the request; refunds up to the limit need no human."""
    if state["amount"] <= 0:
        raise ValueError(f"refund amount must be positive, got {state['amount']}")
    if state["amount"] <= AUTO_APPROVE_LIMIT:
        return {"approved": True, "reviewer_note": "auto-approved", "status": "approved"}
    return {"status": "awaiting approval"}


def needs_review(state: RefundState) -> Literal["review", "refund"]:
    return "refund" if state.get("approved") else "review"


def review(state: RefundState) -> dict:
    """Ask a human. The resume value is "yes"/"no" or {"approved": bool, "note": str}."""
    decision = interrupt({
        "question": f"Refund ${state['amount']:.2f} to {state['customer']}?",
        "reason": state.get("reason", ""),
    })
    if isinstance(decision, dict):
        approved, note = bool(decision.get("approved")), str(decision.get("note", ""))
    else:
        approved, note = str(decision).strip().lower() in ("yes", "y", "approve", "true"), ""
    return {"approved": approved, "reviewer_note": note, "status": "approved" if approved else "rejected"}


def after_review(state: RefundState) -> Literal["refund", "__end__"]:
    return "refund" if state["approved"] else END


def refund(state: RefundState) -> dict:
    return {"status": f"refunded ${state['amount']:.2f} to {state['customer']}"}


builder = StateGraph(RefundState)
builder.add_node("prepare", prepare)
builder.add_node("review", review)
builder.add_node("refund", refund)
builder.add_edge(START, "prepare")
builder.add_conditional_edges("prepare", needs_review)
builder.add_conditional_edges("review", after_review)
builder.add_edge("refund", END)
graph = builder.compile(checkpointer=InMemorySaver())

example_input = {"customer": "Ada", "amount": 120.0, "reason": "parcel arrived damaged"}

if __name__ == "__main__":
    config = {"configurable": {"thread_id": "approval-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
    print("-- resuming with an approval --")
    for update in graph.stream(Command(resume={"approved": True, "note": "photos checked"}), config,
                               stream_mode="updates"):
        print(update)
