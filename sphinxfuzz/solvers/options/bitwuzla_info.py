"""Prints the options a bitwuzla wheel declares, as JSON rows like `cvc5_info.py`'s: run by
file under that release's Python (whose venv has no sphinxfuzz), so it imports nothing but
bitwuzla.

    python bitwuzla_info.py   ->   [{"name": ..., "type": ..., "default": ..., ...}, ...]

Standing is where bitwuzla says it: its debugging options are the `Option` members named
`DBG_*` (expert); the others are regular.
"""

from __future__ import annotations

import json

_TYPES = {"BOOL": "bool", "NUMERIC": "int", "MODE": "mode", "STRING": "string"}


def main() -> None:
    import bitwuzla

    options = bitwuzla.Options()
    found = []
    for option in bitwuzla.Option:
        info = bitwuzla.OptionInfo(options, option)
        kind = _TYPES.get(info.kind().name, info.kind().name.lower())
        numeric = kind == "int"
        found.append({
            "name": info.lng(),
            "type": kind,
            "default": info.dflt(),
            "modes": list(info.modes()) if kind == "mode" else [],
            "minimum": info.min() if numeric else None,
            "maximum": info.max() if numeric else None,
            "category": "EXPERT" if option.name.startswith("DBG_") else "REGULAR",
        })  # fmt: skip
    print(json.dumps(found))


if __name__ == "__main__":
    main()
