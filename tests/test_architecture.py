"""The layout's rules, checked on the code itself: no import cycles inside `engine` or
`studio` (imports at module level and inside functions alike), and a Qt-free studio core.
The import contracts between layers are import-linter's, in pyproject.toml
(test_static_checks.py runs it)."""
from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every module under `package`."""
    out = {}
    for path in sorted((ROOT / Path(*package.split("."))).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


def _imports(name: str, path: Path, is_package: bool, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The modules of `known` that `name` imports anywhere in its body (module level, in
    functions, in classes, under `if TYPE_CHECKING:`), resolved to the deepest module that
    exists. A type-only import counts: the two modules still know each other."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)
    resolved = set()
    for target in found:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def import_graph(package: str) -> dict[str, set[str]]:
    """Module -> the modules of `package` it imports."""
    known = _modules(package)
    return {m: _imports(m, p, is_pkg, known) for m, (p, is_pkg) in known.items()}


def import_cycles(package: str) -> list[list[str]]:
    """The strongly connected groups (more than one module) of `package`'s import graph."""
    graph = import_graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def shortest_cycle(graph: dict[str, set[str]], group: list[str]) -> list[str]:
    """One shortest import loop through the first module of a cyclic `group`, as the path
    of imports that closes it (first module repeated at the end)."""
    members, start = set(group), group[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    following.append(w)
        frontier = following
    return group


def cycle_report(package: str) -> list[str]:
    """One line per import cycle of `package`: its size and one loop through it."""
    graph = import_graph(package)
    return [f"{len(group)} modules import each other, e.g. {' -> '.join(shortest_cycle(graph, group))}"
            for group in import_cycles(package)]


@pytest.mark.parametrize("package", ["engine", "studio"])
def test_no_import_cycle_counting_type_only_and_function_imports(package: str) -> None:
    # every import counts: at module level, inside a function, and under TYPE_CHECKING
    # (two modules that name each other's types know each other just the same)
    assert cycle_report(package) == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert import_cycles("demo") == [["demo.a", "demo.b"]]
    assert cycle_report("demo") == ["2 modules import each other, e.g. demo.a -> demo.b -> demo.a"]


def test_the_cycle_finder_counts_type_checking_imports(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import B\n")
    (pkg / "b.py").write_text("from .c import C\nclass B: ...\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n"
                              "class C: ...\n")
    (pkg / "d.py").write_text("from . import a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert cycle_report("demo") == ["3 modules import each other, e.g. demo.a -> demo.b -> demo.c -> demo.a"]


def test_studio_core_imports_no_qt() -> None:
    modules = sorted(_modules("studio.core"))
    assert "studio.core.driver" in modules and "studio.core.state" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", f"studio.core imported Qt: {out.stdout}"


def _contracts() -> list[dict[str, Any]]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["tool"]["importlinter"]["contracts"])


def test_the_window_and_panels_contract_forbids_the_engine_and_the_command_line() -> None:
    # import-linter runs the contracts (test_static_checks.py); this says which must be there
    forbidden = [c for c in _contracts() if c["type"] == "forbidden"
                 and {"studio.window", "studio.panels"} <= set(c["source_modules"])]
    assert forbidden, "pyproject.toml lost the contract: studio.window and studio.panels never import engine"
    assert {"engine", "studio.cli"} <= set(forbidden[0]["forbidden_modules"])


def test_every_panel_is_in_the_independence_contract() -> None:
    # a new panel that imported another would pass unseen if it were not listed
    panels = sorted(f"studio.panels.{p.stem}" for p in (ROOT / "studio" / "panels").iterdir()
                    if not p.name.startswith("_") and (p.suffix == ".py" or (p / "__init__.py").exists()))
    listed = [c for c in _contracts() if c["type"] == "independence" and "studio.panels.graph" in c["modules"]]
    assert listed, "pyproject.toml lost the contract: panels never import each other"
    assert sorted(set(panels) - set(listed[0]["modules"])) == [], "add these panels to the contract"


def _records_named_view(package: str) -> list[str]:
    """Classes under `package` named "...View" that hold data (a dataclass or a NamedTuple)."""
    found = []
    for name, (path, _) in _modules(package).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef) or not node.name.endswith("View"):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            bases = [ast.unparse(b) for b in node.bases]
            if any("dataclass" in d for d in decorators) or any("NamedTuple" in b for b in bases):
                found.append(f"{name}.{node.name}")
    return found


def test_view_never_names_data() -> None:
    # "View" names widgets; a record is named for what it holds (studio/core/records.py)
    assert _records_named_view("studio") == []
    assert _records_named_view("engine") == []


def test_the_view_check_finds_a_record_named_view(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass StepView:\n"
                              "    step: int\nclass PanelView:\n    pass\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _records_named_view("demo") == ["demo.a.StepView"]


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_slots(node: ast.AST) -> bool:
    """`__slots__ = (...)` (annotated or not)."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets = [node.target]
    else:
        return False
    return any(isinstance(t, ast.Name) and t.id == "__slots__" for t in targets)


def _private_members(tree: ast.AST) -> set[str]:
    """The private names a module gives its own objects: methods and attributes of its
    classes (class body, `__slots__` strings, annotations) and attributes it assigns on
    `self`/`cls` (setting `other._x` is reaching in, and a string such as
    `getattr(other, "_x")` defines nothing)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in ast.walk(node):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
                    names.add(item.id)
                elif _is_slots(item):
                    names.update(c.value for c in ast.walk(item.value)  # type: ignore[attr-defined]
                                 if isinstance(c, ast.Constant) and isinstance(c.value, str))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _own_reference(node.value):
            names.add(node.attr)
    return {n for n in names if _is_private(n)}


def _own_reference(value: ast.expr) -> bool:
    """`self.x`, `cls.x`, `super().x`: an object using its own (or its base's) members."""
    if isinstance(value, ast.Name):
        return value.id in ("self", "cls")
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"


def private_reaches(package: str) -> list[tuple[str, str, str]]:
    """(module, attribute, `line: expression`) for each place a module of `package` reads or
    sets a private attribute (`obj._x`, not `self._x`) that another module of `package`
    defines and it does not: one module reaching into another's object."""
    modules = _modules(package)
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, (path, _) in modules.items()}
    members = {name: _private_members(tree) for name, tree in trees.items()}
    found = []
    for name, tree in trees.items():
        elsewhere = set().union(*(m for other, m in members.items() if other != name))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute) or not _is_private(node.attr) or _own_reference(node.value):
                continue
            if node.attr in elsewhere and node.attr not in members[name]:
                found.append((name, node.attr, f"{node.lineno}: {ast.unparse(node)}"))
    return sorted(found)


LANGGRAPH_PRIVATE_NAMES = frozenset({"_bind", "_events", "_transformers", "_wire", "_wire_fn", "_arun"})
"""Private names that are LangGraph's (LangChain's) own and stay so: the v3 stream's
StreamChannel and multiplexer carry them under these names because LangGraph's tests and
transformers call them (`channel._bind(...)`, `mux._events`), and `BaseTool._arun` is
LangChain's."""


@pytest.mark.parametrize("package", ["engine", "studio"])
def test_no_module_reaches_into_another_modules_private_attributes(package: str) -> None:
    # a collaborator uses another module's object through public names (a Run's `emit`,
    # `event_fields`, `resumes`...), so a class can change its insides alone
    found = [f"{module}:{where} (give `{attr}` a public name)" for module, attr, where in private_reaches(package)
             if attr not in LANGGRAPH_PRIVATE_NAMES]
    assert found == []


def test_the_private_reach_check_finds_a_reach(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("class A:\n    def __init__(self):\n        self._x = 1\n    def _move(self):\n"
                              "        return self._x\n")
    (pkg / "b.py").write_text("def f(a):\n    a._move()\n    a._x = 2\n    return a._x + a._unknown\n"
                              "class B:\n    def g(self, a):\n        if getattr(a, '_move', None):\n"
                              "            a._move()\n")
    (pkg / "c.py").write_text("from .a import A\nclass C(A):\n    def g(self):\n        return super()._move()\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert private_reaches("demo") == [("demo.b", "_move", "2: a._move"), ("demo.b", "_move", "8: a._move"),
                                       ("demo.b", "_x", "3: a._x"), ("demo.b", "_x", "4: a._x")]


def _decisions(node: ast.AST) -> int:
    """The decision points in `node`, not counting those of the functions and classes
    defined inside it (radon's cyclomatic complexity: each if/elif/ternary, loop (and its
    else), except handler, try's else, and/or operand, comprehension (and its ifs), match
    case and assert adds one)."""
    count = 0
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(child, (ast.If, ast.IfExp, ast.Assert)):
            count += 1
        elif isinstance(child, (ast.For, ast.AsyncFor, ast.While)):
            count += 1 + bool(child.orelse)
        elif isinstance(child, ast.Try) or type(child).__name__ == "TryStar":
            count += len(child.handlers) + bool(child.orelse)  # type: ignore[attr-defined]
        elif isinstance(child, ast.BoolOp):
            count += len(child.values) - 1
        elif isinstance(child, ast.comprehension):
            count += 1 + len(child.ifs)
        elif isinstance(child, ast.Match):
            wildcard = any(getattr(c.pattern, "pattern", False) is None for c in child.cases)
            count += max(0, len(child.cases) - wildcard)
        count += _decisions(child)
    return count


def complexities(package: str) -> dict[str, int]:
    """`module:Class.function` -> cyclomatic complexity, for every function under `package`."""
    out: dict[str, int] = {}

    def visit(module: str, node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[f"{module}:{prefix}{child.name}"] = 1 + _decisions(child)
                visit(module, child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(module, child, f"{prefix}{child.name}.")
            else:
                visit(module, child, prefix)

    for name, (path, _) in _modules(package).items():
        visit(name, ast.parse(path.read_text(encoding="utf-8")), "")
    return out


MAX_COMPLEXITY = 25
"""Past this a function is a switchboard: split it into named steps or a dispatch table."""

@pytest.mark.parametrize("package", ["engine", "studio"])
def test_no_function_past_complexity_25(package: str) -> None:
    # radon's measure (which counts `and`/`or` and comprehensions too, unlike ruff's C901)
    found = {name: cc for name, cc in complexities(package).items() if cc > MAX_COMPLEXITY}
    assert found == {}, "split these into named steps (or a dispatch table)"


def test_the_complexity_count_is_radons(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "def f(x, ys):\n"
        "    if x and ys or not x:\n"              # if +1, and/or +2
        "        return [y for y in ys if y]\n"     # comprehension +1, its if +1
        "    for y in ys:\n"                        # for +1, its else +1
        "        pass\n"
        "    else:\n"
        "        pass\n"
        "    try:\n"
        "        pass\n"
        "    except ValueError:\n"                  # +1
        "        pass\n"
        "    except KeyError:\n"                    # +1
        "        pass\n"
        "    assert x, 'x'\n"                       # +1
        "    def inner(z):\n"                       # counted on its own
        "        return 1 if z else 2\n"
        "    return inner\n"
        "class C:\n"
        "    def m(self, v):\n"
        "        match v:\n"
        "            case 1: return 1\n"
        "            case 2: return 2\n"
        "            case _: return 0\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert complexities("demo") == {"demo.a:f": 11, "demo.a:f.inner": 2, "demo.a:C.m": 3}


def private_imports(package: str) -> list[tuple[str, str]]:
    """(importing module, `module.name`) for each private name a module of `package`
    imports from another module of it (`from .task import _as_items`)."""
    found = []
    for name, (path, is_package) in _modules(package).items():
        base_package = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                parts = base_package.split(".")
                module = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == package:
                found += [(name, f"{module}.{a.name}") for a in node.names if _is_private(a.name)]
    return sorted(found)


@pytest.mark.parametrize("package", ["engine", "studio"])
def test_no_module_imports_another_modules_private_name(package: str) -> None:
    # what another module needs is public (named in its __all__); a `_name` may change freely
    assert private_imports(package) == []


def test_the_private_import_check_finds_one(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def _helper(): ...\ndef helper(): ...\n")
    (pkg / "sub" / "b.py").write_text("from ..a import _helper, helper\nfrom os import _exit\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert private_imports("demo") == [("demo.sub.b", "demo.a._helper")]
