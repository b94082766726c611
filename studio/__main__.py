"""`retrograph` and `python -m studio`: dispatch to the headless commands or the window."""
from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from .cli.commands import cmd_draw, cmd_run, parse_args

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line and run it; returns the process exit code."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:  # Ctrl+C: one line, like every other way a command stops
        print(f"retrograph: stopped by Ctrl+C{_KEPT.get(args.command, '')}", file=sys.stderr)
        return 130
    except Exception as exc:  # the last net: a command that let an error through still says one line
        if os.environ.get("RETROGRAPH_TRACEBACK"):
            raise
        from .cli.commands import one_line

        print(f"retrograph: {args.command} failed: {one_line(exc)} "
              "(RETROGRAPH_TRACEBACK=1 shows where)", file=sys.stderr)
        return 1


# What survives a Ctrl+C, said where it matters.
_KEPT = {"run": " (the supersteps committed before it are saved when --db was given)",
         "export": " (the output file may be incomplete: delete it and export again)"}


def _dispatch(args: Any) -> int:
    if args.command == "run":
        return cmd_run(args)
    if args.command == "draw":
        return cmd_draw(args)
    if args.command in ("pytest", "export", "search"):
        from .cli.debugtools import COMMANDS

        return COMMANDS[args.command](args)
    if args.command == "history":
        from .cli.history import cmd_history

        return cmd_history(args)
    from .cli.launch import run_window  # Qt only from here on

    return run_window(args)

if __name__ == "__main__":
    sys.exit(main())
