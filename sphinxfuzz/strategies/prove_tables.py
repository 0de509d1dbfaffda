"""Prove the rule tables with z3 and cvc5 and record each proved rule's digest.

Run `python -m sphinxfuzz.strategies.prove_tables` after editing a table: a rule whose claims
are not all answered `unsat` by both solvers loses its proof, and the loader refuses it.
"""

from __future__ import annotations

import json

from sphinxfuzz.strategies.rules import HERE, TABLES, prove, read_table


def main() -> int:
    from sphinxfuzz.solvers import Answer, SolverSpec, parse_specs, run_solver

    specs = parse_specs("z3;cvc5")
    status = 0
    for filename in TABLES:
        path = HERE / filename
        if not path.exists():
            continue
        rules = [rule for rule in read_table(filename) if "excluded" not in rule.row]
        failed: dict[str, str] = {}
        for spec in specs:

            def answers(text: str, spec: SolverSpec = spec) -> list[Answer]:
                return run_solver(spec, text, timeout=60).answers

            for unproved, answer in prove(rules, answers):
                failed.setdefault(unproved.name, f"{spec.name}: {answer}")
        data = json.loads(path.read_text(encoding="utf-8"))
        by_name = {rule.name: rule for rule in rules}
        for row in data["rules"]:
            rule = by_name.get(row["name"])
            if rule is None:
                continue
            if rule.name in failed:
                row.pop("proof", None)
                print(f"{filename}: {rule.name}: NOT proved ({failed[rule.name]})")
                status = 1
            else:
                row["proof"] = rule.digest()
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
