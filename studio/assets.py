"""Where the studio's style sheets and icons are: the source tree's `resources/` folder, or,
in a non-editable install, `<prefix>/share/retrograph` (pyproject.toml's data-files).

A missing asset is not an error here: the window runs unstyled rather than not at all, and
the base-install check in `.ci/run` is what proves that an installed wheel finds them.
"""
from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path

__all__ = ["assets_dir", "asset"]

_SOURCE = Path(__file__).resolve().parents[1] / "resources"


def _candidates() -> list[Path]:
    found = [_SOURCE]
    for prefix in (sysconfig.get_path("data"), sys.prefix, getattr(site, "USER_BASE", None)):
        if prefix:
            found.append(Path(prefix) / "share" / "retrograph")
    return found


def assets_dir() -> Path:
    """The first folder that holds the style sheet (the source tree's when there is one)."""
    for folder in _candidates():
        if (folder / "style.qss").is_file():
            return folder
    return _SOURCE


def asset(*parts: str) -> Path:
    """`asset("icons", "step.svg")`: the path of one style or icon file."""
    return assets_dir().joinpath(*parts)
