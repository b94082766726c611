"""The command line's JSON outputs print any value a graph makes: ints past Python's
4,300-digit `str()` limit, cycles, NaN, pydantic models, dataclasses. One shared
`studio.core.jsonable` serves `retrograph run` and `retrograph history --json`."""
from __future__ import annotations

import dataclasses
import io
import json
import math
from pathlib import Path

from studio.cli import cmd_run, parse_args
from studio.core.jsonable import jsonable
from test_studio_support import write_graph

HUGE = """
    class S(TypedDict):
        x: int
    def grow(s):
        return {"x": 10**5000 + 7}
    b = StateGraph(S)
    b.add_node("grow", grow)
    b.add_edge(START, "grow")
    b.add_edge("grow", END)
    graph = b.compile()
"""


def test_run_prints_an_int_past_the_digit_limit_exactly(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "huge", HUGE)
    out, err = io.StringIO(), io.StringIO()
    code = cmd_run(parse_args(["run", str(path), "--input", '{"x": 1}']), out=out, err=err)
    assert code == 0, err.getvalue()
    chunk = json.loads(out.getvalue().splitlines()[-1])
    text = chunk["grow"]["x"]
    assert len(text) == 5001 and text.startswith("1000") and text.endswith("0007")


def test_jsonable_is_total_on_hostile_values() -> None:
    @dataclasses.dataclass
    class Point:
        x: int
        y: float

    cyclic: list = []
    cyclic.append(cyclic)
    value = {"nan": math.nan, "p": Point(1, math.inf), "cyc": cyclic, "neg": -(10**20000), "b": b"\x00\xff",
             "deep": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}
    out = jsonable(value)
    json.dumps(out)  # must not raise
    assert out["nan"] == "nan"
    assert out["p"] == {"type": "Point", "x": 1, "y": "inf"}
    assert out["cyc"] == ["<cycle>"]
    assert out["neg"].startswith("-1000") and len(out["neg"]) == 20002
    assert out["b"] == {"bytes": "AP8="}
    assert jsonable(2 ** 200_000).startswith("≈10^")  # past the exact bound: says its size


def test_jsonable_uses_a_pydantic_models_fields() -> None:
    import pydantic

    class Plan(pydantic.BaseModel):
        steps: list[str]
        done: bool = False

    assert jsonable({"plan": Plan(steps=["a", "b"])}) == {"plan": {"steps": ["a", "b"], "done": False}}
