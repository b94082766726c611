"""The layout's rules, checked on the code itself: no import cycles inside `engine` or
`studio` (imports at module level and inside functions alike), and a Qt-free studio core.
The import contracts between layers are import-linter's, in pyproject.toml
(test_static_checks.py runs it)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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


def _type_checking_only(tree: ast.AST) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:`: they never run, they only name
    a type for an annotation."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, (ast.Import, ast.ImportFrom)):
                        lines.add(sub.lineno)
    return lines


def _imports(name: str, path: Path, is_package: bool, known: dict[str, tuple[Path, bool]]) -> set[str]:
    """The modules of `known` that `name` imports anywhere in its body (module level, in
    functions, in classes), resolved to the deepest module that exists."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
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


def import_cycles(package: str) -> list[list[str]]:
    """The strongly connected groups (more than one module) of `package`'s import graph."""
    known = _modules(package)
    graph = {m: _imports(m, p, is_pkg, known) for m, (p, is_pkg) in known.items()}
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


@pytest.mark.parametrize("package", ["engine", "studio"])
def test_no_import_cycle(package: str) -> None:
    assert import_cycles(package) == []


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from .a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert import_cycles("demo") == [["demo.a", "demo.b"]]


def test_studio_core_imports_no_qt() -> None:
    modules = sorted(_modules("studio.core"))
    assert "studio.core.driver" in modules and "studio.core.state" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", f"studio.core imported Qt: {out.stdout}"


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
