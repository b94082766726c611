"""The Qt-free helpers behind the panels: previews, folding, messages, value diffs."""
from __future__ import annotations

import dataclasses

from engine.messages import AIMessage, HumanMessage, ToolMessage
from studio.core.valuediff import diff_mappings, diff_values
from studio.core.valuefmt import (
    as_message,
    children_of,
    fold,
    is_message_list,
    pretty,
    preview,
    type_label,
)
from studio.core.records import UNSET


def test_long_strings_fold_to_their_first_line():
    assert fold("first line\nsecond") == "first line…"
    assert fold("x" * 300, 20) == "x" * 19 + "…"
    assert preview("hello\nworld") == '"hello…"'
    assert type_label("a\nb") == "str[3]"


def test_previews_are_bounded_for_big_and_deep_values():
    text = preview(list(range(100_000)))
    assert len(text) < 130 and ", … +" in text
    deep: list = []
    node = deep
    for _ in range(2_000):
        node.append([])
        node = node[0]
    assert len(preview(deep)) < 130  # no recursion error, no giant string


def test_messages_read_as_role_content_and_tool_calls():
    msgs = [HumanMessage("weather in Paris?"),
            AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]),
            ToolMessage("18°C", tool_call_id="c1"),
            {"role": "assistant", "content": "It is 18°C."}]
    assert is_message_list(msgs)
    assert preview(msgs[1]) == '⚒ get_weather(city="Paris")'
    assert preview(msgs).startswith("4 messages · last assistant: It is 18°C.")
    m = as_message(msgs[2])
    assert (m.role, m.content, m.tool_call_id) == ("tool", "18°C", "c1")
    assert [label for label, _ in children_of(msgs[1])] == ["role", "content", "tool_calls"]
    assert '"type": "ai"' in pretty(msgs)


def test_objects_show_their_fields():
    @dataclasses.dataclass
    class Doc:
        title: str
        score: float

    assert preview(Doc("a", 0.5)) == 'Doc(title="a", score=0.5)'
    assert list(children_of(Doc("a", 0.5))) == [("title", "a"), ("score", 0.5)]
    assert "more items" in pretty(list(range(1_000)))


def test_list_diff_reports_appended_items_cheaply():
    before = [HumanMessage(str(i), id=str(i)) for i in range(10_000)]
    after = before + [AIMessage("new", id="n")]
    change = diff_values(before, after)
    assert change.summary == "+1 item"
    assert change.added == ((10_000, after[-1]),)


def test_list_diff_aligns_inserts_removes_and_replacements():
    assert diff_values([1, 2, 3, 4], [1, 3, 4, 5]).summary == "+1 item, −1 item"
    change = diff_values([1, 2, 3], [1, 9, 3])
    assert change.changed == ((1, 2, 9),)
    by_id = diff_values([{"id": "a", "v": 1}, {"id": "b", "v": 1}], [{"id": "a", "v": 1}, {"id": "b", "v": 2}])
    assert by_id.summary == "1 changed"


def test_dict_and_scalar_diffs():
    change = diff_values({"a": 1, "b": 2}, {"b": 3, "c": 4})
    assert change.summary == "+1 key, −1 key, 1 changed"
    assert diff_values(1, 2).summary == "1 → 2"
    assert diff_values(UNSET, [1]).kind == "new"
    assert diff_values("a", "a").summary == "unchanged"


def test_comparing_two_states_lists_every_key_with_its_status():
    rows = diff_mappings({"a": 1, "b": [1], "same": "x"}, {"b": [1, 2], "c": True, "same": "x"})
    assert [(r.key, r.status) for r in rows] == [("a", "removed"), ("b", "changed"), ("same", "same"),
                                                 ("c", "added")]
