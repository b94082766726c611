"""`python -m tests.crash [--kills N] [--seed S]`: the kill harness at full size."""
from __future__ import annotations

import argparse
import sys

from .harness import HarnessFailure, run_harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.crash", description=__doc__)
    parser.add_argument("--kills", type=int, default=200, help="kill points to reach (default 200)")
    parser.add_argument("--seed", type=int, default=None, help="RNG seed (default: random, printed)")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    args = parser.parse_args(argv)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    try:
        report = run_harness(args.kills, args.seed, progress=progress)
    except HarnessFailure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
