"""The standing a bug needs: after the options it does not need are dropped, the bug is tried
with no option at all, then with regular options only; a stored bug tells its standing.

The bugs here are z3 with an injected assertion failure that depends on its options (a
stand-in that is z3 otherwise, `-p` and `-pm:` included, so the standings are z3 5.4.1's):
`sat.smt` is expert (standing.json), `smt.arith.solver` regular."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from sphinxfuzz.bugs import Origin, Store
from sphinxfuzz.bugs.option_drop import bug_standing, drop_options, lower_standing
from sphinxfuzz.bugs.record import load_record, load_reduction
from sphinxfuzz.oracle import VerdictKind
from sphinxfuzz.oracle.judge import judge
from sphinxfuzz.oracle.run import run_in_dialect
from sphinxfuzz.oracle.same_bug import CheckSpec, check
from sphinxfuzz.solvers import SolverResult, SolverSpec, parse_specs
from sphinxfuzz.solvers.options.standing import Standing

FORMULA = "(declare-const x Int)\n(assert (> x 2))\n(check-sat)\n"
EXPERT, REGULAR = "sat.smt=true", "smt.arith.solver=6"

# `crashes` is a Python condition on `words`, the option words the stand-in got
STAND_IN = """#!{python}
import os, sys
words = set(sys.argv[1:-1])
if sys.argv[1].startswith("-p"):  # the parameter listings: z3's own
    os.execv({z3!r}, [{z3!r}, *sys.argv[1:]])
if {crashes}:
    sys.stderr.write("ASSERTION VIOLATION\\nFile: ../src/sat/smt/euf_solver.cpp\\nLine: 42\\n"
                     "m_egraph.inconsistent()\\n")
    sys.stderr.flush()
    os.abort()
os.execv({z3!r}, [{z3!r}, sys.argv[-1]])
"""


def _stand_in(folder: Path, crashes: str) -> str:
    """The stand-in's path; its name marks it as z3."""
    path = folder / "z3_injected.py"
    z3 = shutil.which("z3")
    path.write_text(STAND_IN.format(python=sys.executable, z3=z3, crashes=crashes))
    path.chmod(0o755)
    return str(path)


def _run(spec: SolverSpec, text: str) -> SolverResult:
    return run_in_dialect(spec, text, timeout=10.0)


def _crash_check(solver: str) -> tuple[CheckSpec, list[SolverResult]]:
    results = [_run(s, FORMULA) for s in parse_specs(solver)]
    [verdict] = judge(FORMULA, results, _run).verdicts
    assert verdict.kind == VerdictKind.CRASH
    spec = CheckSpec.for_verdict(verdict, [solver], timeout=10.0)
    found, runs = check(spec, FORMULA)
    assert found is not None
    return spec, runs


def test_a_regular_option_is_kept_in_place_of_an_expert_one_that_would_also_do(
    tmp_path: Path,
) -> None:
    program = _stand_in(tmp_path, f"{EXPERT!r} in words or {REGULAR!r} in words")
    spec, runs = _crash_check(f"{program} {EXPERT} {REGULAR}")
    dropped = drop_options(spec, FORMULA, check(spec, FORMULA)[0], runs)  # type: ignore[arg-type]
    # one word at a time, from the last: the regular one goes, the expert one stays
    assert dropped.spec.solvers == (f"{program} {EXPERT}",)
    lowered = lower_standing(spec, FORMULA, dropped)
    assert lowered.standing == Standing.REGULAR
    assert lowered.dropped.spec.solvers == (f"{program} {REGULAR}",)
    assert lowered.dropped.words == (f"z3_injected.py: {EXPERT}",)
    assert lowered.dropped.verdict.kind == VerdictKind.CRASH


def test_a_bug_that_shows_with_no_option_at_all_stands_at_default(tmp_path: Path) -> None:
    # each option alone hides it: dropping them one at a time keeps both
    program = _stand_in(tmp_path, f"({EXPERT!r} in words) == ({REGULAR!r} in words)")
    spec, runs = _crash_check(f"{program} {EXPERT} {REGULAR}")
    dropped = drop_options(spec, FORMULA, check(spec, FORMULA)[0], runs)  # type: ignore[arg-type]
    assert dropped.spec.solvers == spec.solvers
    lowered = lower_standing(spec, FORMULA, dropped)
    assert lowered.standing == Standing.DEFAULT
    assert lowered.dropped.spec.solvers == (program,)


def test_an_expert_option_the_bug_needs_keeps_it_expert(tmp_path: Path) -> None:
    program = _stand_in(tmp_path, f"{EXPERT!r} in words")
    spec, runs = _crash_check(f"{program} {REGULAR} {EXPERT}")
    dropped = drop_options(spec, FORMULA, check(spec, FORMULA)[0], runs)  # type: ignore[arg-type]
    lowered = lower_standing(spec, FORMULA, dropped)
    assert lowered.standing == Standing.EXPERT
    assert lowered.dropped.spec.solvers == (f"{program} {EXPERT}",)


def test_a_stored_bug_tells_its_standing(tmp_path: Path) -> None:
    program = _stand_in(tmp_path, f"{EXPERT!r} in words or {REGULAR!r} in words")
    folders = {}
    for words in (EXPERT, REGULAR):  # one campaign each: one crash place, one bug
        root = tmp_path / words
        with Store(root, create=True) as store:
            # the campaign's spec has a word of its own: only the words beyond it count
            store.save_config({"timeout": 10.0, "memory_mb": 4096, "solvers": f"{program} -st"})
            specs = parse_specs(f"{program} -st {words}")
            results = [_run(s, FORMULA) for s in specs]
            [verdict] = judge(FORMULA, results, _run).verdicts
            ident = store.record_bug(verdict, Origin(1, "seed.smt2", 0, 0, "opfuzz"), FORMULA,
                                     results)  # fmt: skip
            folders[words] = root / "bugs" / str(ident)
    expert, regular = (load_record(folders[w]) for w in (EXPERT, REGULAR))
    assert bug_standing(expert) == Standing.EXPERT
    assert bug_standing(regular) == Standing.REGULAR
    # `-st` is no option z3 declares: beside a regular option nothing can be told, beside
    # an expert one the bug is expert whatever `-st` is
    assert bug_standing(regular, [program]) is None
    assert bug_standing(expert, [program]) == Standing.EXPERT
    assert bug_standing(expert, ["z3"]) is None  # a spec the campaign does not name
    assert bug_standing(expert, ["/a"]) is None  # (sorting before it is not naming it)
    # a bug folder away from its campaign's index: nothing tells the campaign's specs
    away = tmp_path / "away" / "bugs" / expert.id
    shutil.copytree(folders[EXPERT], away)
    assert bug_standing(load_record(away)) is None
    # a campaign whose spec carried the options itself drew none
    assert bug_standing(expert, [f"{program} -st {EXPERT}"]) == Standing.DEFAULT
    # reduced: the reduction's standing
    meta = folders[EXPERT] / "reduce.json"
    reduction = {
        "bug": expert.id, "before": {"bytes": 1, "nodes": 1}, "after": {"bytes": 1, "nodes": 1},
        "verdict": expert.verdict.to_json(), "standing": "default",
    }  # fmt: skip
    meta.write_text(json.dumps(reduction))
    (folders[EXPERT] / "reduced.smt2").write_text(FORMULA)
    assert bug_standing(expert) == Standing.DEFAULT
    # a reduce.json from before standings still loads, and the options tell
    del reduction["standing"]
    meta.write_text(json.dumps(reduction))
    loaded = load_reduction(folders[EXPERT])
    assert loaded is not None and loaded.standing is None
    assert bug_standing(expert) == Standing.EXPERT


def test_a_reduction_stored_under_older_standing_rules_stands_as_today_s_say(
    tmp_path: Path,
) -> None:
    """A z3 5.4.1+assert failed assertion needed only `sat.euf=true` ("preliminary and not
    ready for general consumption") and was stored as regular before the rules read that."""
    euf = "sat.euf=true"
    program = _stand_in(tmp_path, f"{euf!r} in words")
    root = tmp_path / "campaign"
    with Store(root, create=True) as store:
        store.save_config({"timeout": 10.0, "memory_mb": 4096, "solvers": program})
        results = [_run(s, FORMULA) for s in parse_specs(f"{program} {euf}")]
        [verdict] = judge(FORMULA, results, _run).verdicts
        ident = store.record_bug(verdict, Origin(1, "seed.smt2", 0, 0, "opfuzz"), FORMULA,
                                 results)  # fmt: skip
    record = load_record(root / "bugs" / str(ident))
    assert bug_standing(record) == Standing.EXPERT  # unreduced: today's standings
    reduction = {
        "bug": record.id, "before": {"bytes": 1, "nodes": 1}, "after": {"bytes": 1, "nodes": 1},
        "verdict": record.verdict.to_json(), "standing": "regular",
        "results": [s.to_json() for s in record.solvers],
    }  # fmt: skip
    (record.folder / "reduce.json").write_text(json.dumps(reduction))
    (record.folder / "reduced.smt2").write_text(FORMULA)
    assert bug_standing(record) == Standing.EXPERT  # raised, not the stored "regular"
    # a stored standing is never lowered (a warning of the reducing run may have raised it)
    reduction["standing"] = "expert"
    results_regular = [{**s.to_json(), "argv": [program, REGULAR]} for s in record.solvers]
    reduction["results"] = results_regular
    (record.folder / "reduce.json").write_text(json.dumps(reduction))
    assert bug_standing(record) == Standing.EXPERT
