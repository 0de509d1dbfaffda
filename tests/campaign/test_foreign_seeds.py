"""Seeds from other tools' regression suites and bug trackers, run by real z3 and cvc5:
annotations never become bugs; commands only their own tool reads, operator names of cvc4
and older SMT-LIB, declarations the reporter left out, or asserting nothing do not cost the
seed."""

from __future__ import annotations

from pathlib import Path

from campaign_helpers import config_for

from sphinxfuzz.bugs import Store
from sphinxfuzz.campaign import Budget, run_campaign
from sphinxfuzz.campaign.config import SeedCheck
from sphinxfuzz.mutate import load_seed
from sphinxfuzz.mutate.trim import trimmed

# bitwuzla style: its own option and interpolation syntax, which cvc5 rejects
BITWUZLA = """(set-info :status sat)
(set-option :bv-solver prop)
(set-logic QF_BV)
(declare-const a (_ BitVec 8))
(declare-const b (_ BitVec 8))
(assert (! (bvult a b) :named a1))
(assert (! (= (bvadd a #x01) b) :named a2))
(check-sat)
(get-interpolant (a1 a2))
"""
# unsat as annotated; most mutants are sat: the annotation would abort cvc5 on each
ANNOTATED = """(set-info :status unsat)
(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(assert (and (< x y) (< y x)))
(check-sat)
"""


def test_trimmed_seed_keeps_what_is_asserted(tmp_path: Path) -> None:
    path = tmp_path / "bw.smt2"
    path.write_text(BITWUZLA)
    seed = trimmed(load_seed(path))
    assert seed is not None
    assert ":bv-solver" not in seed.text and "get-interpolant" not in seed.text
    assert seed.text.count("(assert") == 2 and "(check-sat)" in seed.text


def test_foreign_and_annotated_seeds_in_a_campaign(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "bw.smt2").write_text(BITWUZLA)
    (seeds / "annotated.smt2").write_text(ANNOTATED)
    root = tmp_path / "campaign"
    config = config_for([seeds], "z3 model_validate=true;cvc5 --check-models", per_seed=4)
    stats = run_campaign(config, root, Budget())
    with Store(root) as store:
        statuses = {Path(f).name: store.seed_status(str(f)) for f in sorted(seeds.iterdir())}
        bugs = store.bugs()
    assert statuses["bw.smt2"][0] == "ok" and SeedCheck.from_detail(statuses["bw.smt2"][1]).trimmed
    assert statuses["annotated.smt2"][0] == "ok"
    assert stats.mutants == 8 and stats.accepted == 8
    assert bugs == [] and stats.bugs.total() == 0


# cvc4 1.8's names, which no target reads: cvc5 reads them upgraded (z3 has no such sets)
CVC4_SETS = """(set-logic ALL)
(declare-const x Int)
(declare-const a (Set Int))
(assert (member x (union a (singleton 3))))
(assert (<= (card a) 2))
(check-sat)
"""
# SMT-LIB 2.5's names: z3 reads them, cvc5 only upgraded
OLD_STRINGS = """(set-logic QF_SLIA)
(declare-const s String)
(assert (str.in.re s (str.to.re "ab")))
(assert (= (str.to.int (str.++ s "1")) 5))
(check-sat)
"""
# `member` and `card` are its own: both targets read it as it is, and it stays so
OWN_MEMBER = """(set-logic ALL)
(declare-fun member (Int Int) Bool)
(declare-fun card (Int) Int)
(declare-const x Int)
(assert (member x (card x)))
(check-sat)
"""
# pasted twice: both targets reject the second copy's declarations, not the rest
PASTED = ("(declare-const a Int)\n(declare-const b Int)\n(assert (< a b))\n(check-sat)\n") * 2
# a bug report without its declarations: both targets reject it, and read it declared
UNDECLARED = """(set-logic ALL)
(declare-const e E)
(assert (and (> x 2) (= (h e) x)))
(check-sat)
"""
# declares and checks, asserts nothing (the bug was elsewhere): one hole is made for it
NO_ASSERT = """(set-logic ALL)
(declare-const n Int)
(declare-const p Bool)
(check-sat)
"""


def test_old_names_and_unasserted_seeds_in_a_campaign(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    texts = {
        "sets": CVC4_SETS, "strings": OLD_STRINGS, "own": OWN_MEMBER, "holed": NO_ASSERT,
        "pasted": PASTED, "undeclared": UNDECLARED,
    }  # fmt: skip
    for stem, text in texts.items():
        (seeds / f"{stem}.smt2").write_text(text)
    (seeds / "bare.smt2").write_text("(check-sat)\n")  # nothing of its own to fill a hole with
    root = tmp_path / "campaign"
    config = config_for([seeds], "z3 model_validate=true;cvc5 --check-models", per_seed=2)
    stats = run_campaign(config, root, Budget())
    with Store(root) as store:
        found = {f.stem: store.seed_status(str(f)) for f in sorted(seeds.iterdir())}
    checks = {stem: SeedCheck.from_detail(found[stem][1]) for stem in texts}
    assert found["sets"][0] == "partial" and checks["sets"].serves == ("cvc5",)
    assert checks["sets"].upgraded and not checks["sets"].trimmed
    assert found["strings"][0] == "ok" and checks["strings"].upgraded
    assert found["own"][0] == "ok" and not checks["own"].upgraded
    assert found["holed"][0] == "ok" and not checks["holed"].upgraded
    assert found["pasted"][0] == "ok" and checks["pasted"].trimmed
    assert not checks["pasted"].upgraded and not checks["pasted"].declared
    assert found["undeclared"][0] == "ok" and checks["undeclared"].declared
    assert not checks["undeclared"].trimmed and not checks["own"].declared
    assert found["bare"][0] == "malformed"
    assert stats.seeds_malformed == 1 and stats.seeds_set_aside == 0 and stats.bugs.total() == 0
    # two mutants a seed, but one after a time-out: a loaded machine leaves a seed early
    assert stats.mutants + stats.seeds_left_early == 12 and stats.accepted == stats.mutants


def test_only_declarations_repeated_word_for_word_without_push_are_trimmed(tmp_path: Path) -> None:
    path = tmp_path / "twice.smt2"
    path.write_text(
        "(set-logic QF_LIA)\n" + PASTED + "(set-logic QF_LIA)\n(declare-const a Real)\n"
    )
    seed = trimmed(load_seed(path))
    assert seed is not None and seed.text.count("(declare-const a Int)") == 1
    assert seed.text.count("(set-logic") == 1 and "(declare-const a Real)" in seed.text
    assert seed.text.count("(assert (< a b))") == 2 and seed.text.count("(check-sat)") == 2
    scoped = tmp_path / "scoped.smt2"
    scoped.write_text("(push 1)\n" + PASTED.replace("(check-sat)\n", "(check-sat)\n(pop 1)\n", 1))
    assert trimmed(load_seed(scoped)) is None  # pop forgot the first copy's symbols
