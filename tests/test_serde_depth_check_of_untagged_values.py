"""Loading untagged data checks its nesting without counting every byte: data with more
than MAX_DEPTH brackets is walked, a deep one is refused, a long text or list is loaded."""
from __future__ import annotations

import orjson
import pytest

from engine.checkpoint.serde import MAX_DEPTH, Serializer
from engine.errors import CheckpointDecodeError


def test_too_deep_untagged_data_is_refused() -> None:
    deep = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    with pytest.raises(CheckpointDecodeError, match="nested more than"):
        Serializer().loads(deep, plain=True)
    deep_dicts = b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1)
    with pytest.raises(CheckpointDecodeError, match="nested more than"):
        Serializer().loads(deep_dicts)


def test_mixed_brackets_count_together() -> None:
    half = MAX_DEPTH // 2 + 1  # neither kind alone is over the limit, both together are
    value: object = 1
    for _ in range(half):
        value = {"k": [value]}
    with pytest.raises(CheckpointDecodeError, match="nested more than"):
        Serializer().loads(orjson.dumps(value), plain=True)


def test_many_shallow_brackets_and_long_text_load() -> None:
    wide = [[i, {"x": [i]}] for i in range(5000)]  # 15,000 brackets, 4 deep
    assert Serializer().loads(orjson.dumps(wide), plain=True) == wide
    text = ["a line [with] {brackets} " * 8 for _ in range(10_000)]  # a megabyte, brackets in strings
    assert Serializer().loads(orjson.dumps(text), plain=True) == text
    exactly = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert Serializer().loads(exactly, plain=True) is not None
