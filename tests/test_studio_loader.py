"""The graph-file loader: every failure comes back as a message naming the file and line."""
from __future__ import annotations

import textwrap
from pathlib import Path

from studio.core.loader import LoadedGraph, LoadError, load_graph, parse_spec
from test_studio_support import write_graph

BUILDER = textwrap.dedent("""
    class S(TypedDict):
        n: int
    def inc(s):
        return {"n": s["n"] + 1}
    def make():
        b = StateGraph(S)
        b.add_node("inc", inc)
        b.add_edge(START, "inc")
        return b
""")


def test_parse_spec_splits_the_name_but_not_a_path() -> None:
    assert parse_spec("a/b/graph.py:app") == (Path("a/b/graph.py"), "app")
    assert parse_spec("a/b/graph.py") == (Path("a/b/graph.py"), None)


def test_a_compiled_graph_is_found_and_its_example_input_kept(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "one", BUILDER + "graph = make().compile()\nexample_input = {'n': 1}\n")
    result = load_graph(path)
    assert isinstance(result, LoadedGraph)
    assert result.name == "graph" and result.example_input == {"n": 1}
    assert result.graph.invoke({"n": 1}) == {"n": 2}


def test_a_builder_is_compiled(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "builder_only", BUILDER + "workflow = make()\n")
    result = load_graph(path)
    assert isinstance(result, LoadedGraph) and result.compiled_from_builder and result.name == "workflow"


def test_several_graphs_prefer_graph_then_app_else_list_the_names(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "two", BUILDER + "app = make().compile()\nother = make().compile()\n")
    result = load_graph(path)
    assert isinstance(result, LoadedGraph) and result.name == "app" and result.others == ("other",)
    path = write_graph(tmp_path, "ambiguous", BUILDER + "first = make().compile()\nsecond = make().compile()\n")
    error = load_graph(path)
    assert isinstance(error, LoadError) and error.kind == "ambiguous"
    assert "`first`, `second`" in error.message and "ambiguous.py:NAME" in error.message
    named = load_graph(f"{path}:second")
    assert isinstance(named, LoadedGraph) and named.name == "second"


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text("x = 1\ndef f(:\n    pass\n")
    error = load_graph(path)
    assert isinstance(error, LoadError) and error.kind == "syntax" and error.line == 2
    assert error.message.startswith(f"{path}:2: ")


def test_import_error_names_the_line_that_raised(tmp_path: Path) -> None:
    path = tmp_path / "raises.py"
    path.write_text("import math\n\nvalue = 1 / 0\n")
    error = load_graph(path)
    assert isinstance(error, LoadError) and error.kind == "import" and error.line == 3
    assert "ZeroDivisionError" in error.message and "Traceback" in error.detail


def test_no_graph_and_missing_name_and_not_a_graph(tmp_path: Path) -> None:
    path = tmp_path / "plain.py"
    path.write_text("answer = 42\n")
    error = load_graph(path)
    assert isinstance(error, LoadError) and error.kind == "no_graph"
    assert "defines no graph" in error.message and "answer" in error.detail
    assert load_graph(f"{path}:graph").kind == "no_graph"  # type: ignore[union-attr]
    wrong = load_graph(f"{path}:answer")
    assert isinstance(wrong, LoadError) and wrong.kind == "not_a_graph" and "is a int" in wrong.message
    missing = load_graph(tmp_path / "nope.py")
    assert isinstance(missing, LoadError) and missing.kind == "not_found"


def test_system_exit_in_the_file_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "exits.py"
    path.write_text("raise SystemExit(3)\n")
    error = load_graph(path)
    assert isinstance(error, LoadError) and error.kind == "import" and "SystemExit" in error.message
