"""`python -m tests.crash [--kills N] [--seed S] [--postgres]`: the kill harness at full
size, on SQLite files or (--postgres) on the engine's PostgresSaver with a throwaway server."""
from __future__ import annotations

import argparse
import sys

from .harness import HarnessFailure, run_harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.crash", description=__doc__)
    parser.add_argument("--kills", type=int, default=200, help="kill points to reach (default 200)")
    parser.add_argument("--seed", type=int, default=None, help="RNG seed (default: random, printed)")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument("--postgres", action="store_true",
                        help="kill runs on the engine's PostgresSaver (a throwaway server, tests/pg_server.py)")
    args = parser.parse_args(argv)
    progress = None if args.quiet else (lambda line: print(line, flush=True))
    server = None
    if args.postgres:
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from pg_server import PgUnavailable, start

        try:
            server = start()
        except PgUnavailable as e:
            print(f"no PostgreSQL server: {e}", file=sys.stderr)
            return 2
    try:
        report = run_harness(args.kills, args.seed, progress=progress,
                             new_db=(lambda _name: server.url()) if server is not None else None)
    except HarnessFailure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            server.stop()
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
