"""`uuid6`, the ids LangGraph's savers give checkpoints (`langgraph.checkpoint.base.id`):
RFC 9562 version 6, sorting in the order they were made, node and clock_seq as given."""
from __future__ import annotations

import uuid

from engine.checkpoint.base import uuid6


def test_uuid6_is_version_6_of_the_rfc_variant_and_sorts_in_creation_order():
    made = [uuid6() for _ in range(2000)]
    assert all(u.version == 6 and u.variant == uuid.RFC_4122 for u in made)
    assert made == sorted(made, key=str)  # as text too: what a saver orders ids by
    assert len(set(made)) == len(made)


def test_uuid6_keeps_the_node_and_the_low_14_bits_of_clock_seq():
    u = uuid6(node=0x123456789ABC, clock_seq=-2)
    assert u.node == 0x123456789ABC
    assert u.clock_seq == (-2) & 0x3FFF
    later = uuid6(node=0x123456789ABC, clock_seq=-2)
    assert later > u  # the time part moves on even when the rest is the same


def test_uuid6_is_served_where_langgraph_has_it():
    from langgraph.checkpoint.base.id import uuid6 as served  # the compat layer's import finder

    mine, theirs = uuid6(), served(clock_seq=5)
    assert theirs.version == 6 and theirs.clock_seq == 5
    assert mine < theirs
