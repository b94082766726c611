"""Print the README's command for one quick-start step, so CI runs what the README says.

A step is the fenced block right after a `<!-- ci: NAME -->` line in README.md.
`python3 .ci/readme_commands.py NAME` prints that block's text; an unknown NAME exits 2,
naming the steps there are (a README edit that drops a marker fails CI, loudly).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
_STEP = re.compile(r"^<!-- ci: (?P<name>[\w-]+) -->\n+```[^\n]*\n(?P<body>.*?)^```", re.M | re.S)


def steps(text: str) -> dict[str, str]:
    return {m["name"]: m["body"].strip() for m in _STEP.finditer(text)}


def main(argv: list[str]) -> int:
    found = steps(README.read_text(encoding="utf-8"))
    if len(argv) != 1 or argv[0] not in found:
        print(f"readme_commands: no README step {argv[:1]}; the README has: {', '.join(found) or 'none'}",
              file=sys.stderr)
        return 2
    print(found[argv[0]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
