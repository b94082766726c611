"""Run unmodified LangGraph apps on the engine: `import langgraph...` served by the engine.

`install()` puts an import finder first on `sys.meta_path` that answers every
`langgraph.*` module with the engine's own LangGraph-compatible names (layout.py says
where each module lives); `uninstall()` removes it. While it is installed, no module of
an installed LangGraph is imported or used: one it had already loaded is set aside and
put back by `uninstall()`.
"""
from __future__ import annotations

import ast
import sys
import threading
from pathlib import Path
from types import ModuleType

from .finder import MARK, CompatFinder, CompatModule, not_supported, served
from .layout import chain

__all__ = ["install", "uninstall", "installed", "imports_langgraph", "chain", "served",
           "not_supported", "CompatFinder", "CompatModule"]

_lock = threading.Lock()
_finder: CompatFinder | None = None
_set_aside: dict[str, ModuleType] = {}


def _langgraph_names() -> list[str]:
    return [n for n in list(sys.modules) if n == "langgraph" or n.startswith("langgraph.")]


def installed() -> bool:
    return _finder is not None and _finder in sys.meta_path


def install() -> None:
    """Serve `import langgraph...` from the engine (idempotent)."""
    global _finder
    with _lock:
        if installed():
            return
        _finder = CompatFinder()
        sys.meta_path.insert(0, _finder)
        # vars(), not getattr(): a module-level __getattr__ of a loaded LangGraph module
        # could import more of it
        for name in _langgraph_names():
            module = sys.modules.pop(name)
            if not vars(module).get(MARK, False):
                _set_aside[name] = module


def uninstall() -> None:
    """Stop serving `langgraph` from the engine; a LangGraph loaded before comes back."""
    global _finder
    with _lock:
        if _finder is not None:
            while _finder in sys.meta_path:
                sys.meta_path.remove(_finder)
            _finder = None
        for name in _langgraph_names():
            if vars(sys.modules[name]).get(MARK, False):
                del sys.modules[name]
        sys.modules.update(_set_aside)
        _set_aside.clear()


def imports_langgraph(path: str | Path) -> bool:
    """Whether the Python file imports `langgraph` (read, never run)."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "langgraph" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "langgraph":
            return True
    return False
