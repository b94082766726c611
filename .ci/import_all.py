"""Import every module of `engine` and `studio`, as installed, and fail on any that does not.

The one failure allowed is a module that needs an extra this install does not have, and
says so in its ImportError ("... pip install 'retrograph[langchain]'"): a module that fails
with ModuleNotFoundError of a package nobody declared is the bug this check is for.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys


def main() -> int:
    import engine
    import studio

    checked, needs_extra, broken = 0, [], []
    for package in (engine, studio):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            checked += 1
            try:
                importlib.import_module(module.name)
            except ImportError as exc:
                (needs_extra if "retrograph[" in str(exc) else broken).append(f"{module.name}: {exc}")
            except Exception as exc:  # noqa: BLE001 (every failure is reported, one line each)
                broken.append(f"{module.name}: {type(exc).__name__}: {exc}")
    for line in broken:
        print(f"import_all: {line}", file=sys.stderr)
    print(f"import_all: {checked} modules, {len(broken)} broken, {len(needs_extra)} need an extra"
          + (f" ({'; '.join(needs_extra)})" if needs_extra else ""))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
