"""The interrupts panel's human-in-the-loop decisions (studio/core/hitl.py): which values
are langchain's review requests, and the resume values that approve, edit or reject them."""
from __future__ import annotations

import json

import pytest

from studio.core.hitl import REJECT_MESSAGE, HitlAction, allowed_for_all, decision_text, hitl_actions

REQUEST = {"action_requests": [{"name": "send", "args": {"to": "ada"}, "description": "Tool execution requires approval"},
                               {"name": "pay", "args": {"amount": 3}, "description": ""}],
           "review_configs": [{"action_name": "send", "allowed_decisions": ["approve", "edit", "reject"]},
                              {"action_name": "pay", "allowed_decisions": ["approve", "reject"]}]}


def test_a_review_request_lists_its_calls_and_what_each_allows() -> None:
    assert hitl_actions(REQUEST) == (HitlAction("send", {"to": "ada"}, ("approve", "edit", "reject")),
                                     HitlAction("pay", {"amount": 3}, ("approve", "reject")))


@pytest.mark.parametrize("value", ["yes", {"question": "ok?"}, {"action_requests": []}, [1, 2], None,
                                   {"action_requests": [{"args": {}}]}])
def test_other_interrupt_values_are_not_review_requests(value) -> None:
    assert hitl_actions(value) == ()


def test_a_decision_is_allowed_only_when_every_call_allows_it() -> None:
    actions = hitl_actions(REQUEST)
    assert [k for k in ("approve", "edit", "reject") if allowed_for_all(actions, k)] == ["approve", "reject"]


def test_each_decision_answers_every_call_in_order() -> None:
    actions = hitl_actions(REQUEST)
    assert json.loads(decision_text(actions, "approve")) == {"decisions": [{"type": "approve"}] * 2}
    assert json.loads(decision_text(actions, "edit"))["decisions"][1] == {
        "type": "edit", "edited_action": {"name": "pay", "args": {"amount": 3}}}
    assert json.loads(decision_text(actions, "reject"))["decisions"][0] == {"type": "reject", "message": REJECT_MESSAGE}
    with pytest.raises(ValueError, match="unknown decision 'maybe'"):
        decision_text(actions, "maybe")
