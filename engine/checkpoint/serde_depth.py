"""How deep untagged checkpoint data nests, checked without recursion (serde.py's loads):
data a hostile file holds must not nest past the serializer's limit."""
from __future__ import annotations

from typing import Any

__all__ = ["brackets_over", "depth_within"]


def depth_within(raw: Any, limit: int) -> bool:
    """Whether containers in `raw` nest at most `limit` deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(raw, 0)]
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is list:
            kids: Any = v
        elif t is dict:
            kids = v.values()
        else:
            continue
        if depth >= limit:
            return False
        stack.extend((x, depth + 1) for x in kids if type(x) is list or type(x) is dict)
    return True


def brackets_over(data: bytes, limit: int) -> bool:
    """Whether `data` holds more than `limit` opening brackets (`[` and `{`): only then can
    its containers nest deeper than `limit`. Found with `find` (memchr), stopping at
    `limit + 1`: a megabyte of text with a few brackets is not counted byte by byte."""
    n = 0
    for bracket in (b"[", b"{"):
        at = data.find(bracket)
        while at >= 0:
            n += 1
            if n > limit:
                return True
            at = data.find(bracket, at + 1)
    return False
