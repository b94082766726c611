"""The command line: argument parsing and the headless commands (`commands`), the --do
script language (`script`), and starting the window (`launch`).

Only `commands` is imported eagerly, and it never imports Qt, so `retrograph run` and
`retrograph draw` work without a display.
"""
from __future__ import annotations

from .commands import cmd_draw, cmd_run, parse_args, parse_json_input

__all__ = ["parse_args", "parse_json_input", "cmd_run", "cmd_draw"]
