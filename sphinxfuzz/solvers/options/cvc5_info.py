"""Prints the options a cvc5 wheel declares, as JSON: run by file under that release's
Python (whose venv has no sphinxfuzz), so it imports nothing but cvc5.

    python cvc5_info.py   ->   [{"name": ..., "type": ..., "default": ..., ...}, ...]
"""

from __future__ import annotations

import json


def main() -> None:
    import cvc5

    solver = cvc5.Solver(cvc5.TermManager()) if hasattr(cvc5, "TermManager") else cvc5.Solver()
    found = []
    for name in solver.getOptionNames():
        info = solver.getOptionInfo(name)
        if info.get("name") != name:  # an alias: its option is listed under its own name
            continue
        kind = info.get("type")
        kind = kind.__name__ if isinstance(kind, type) else str(kind)
        category = info.get("category")  # 1.2 on: regular, common, expert, undocumented
        found.append({
            "name": name,
            "type": kind,
            "default": info.get("default"),
            "modes": list(info.get("modes", ())),
            "minimum": info.get("minimum"),
            "maximum": info.get("maximum"),
            "category": getattr(category, "name", None),
        })  # fmt: skip
    print(json.dumps(found))


if __name__ == "__main__":
    main()
