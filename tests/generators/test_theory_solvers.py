"""The solvers that check a theory's terms take the options its document asks for, on the
families whose records take them."""

from __future__ import annotations

from sphinxfuzz.generators.theory_docs import default_docs_dir, load_theory_doc
from sphinxfuzz.generators.theory_solvers import solvers_for_theory, spec_text_for
from sphinxfuzz.solvers import Outcome, run_solver

# set.complement is an extended set operator: cvc5 answers it only under sets-exp
SETS = """(set-logic HO_ALL)
(declare-const s (Set Int))
(assert (set.member 1 (set.complement s)))
(check-sat)
"""


def test_a_theory_documents_options_go_to_the_families_whose_records_take_them() -> None:
    doc = load_theory_doc(default_docs_dir() / "CVC5_Sets.md")
    assert doc.options == ("sets-exp=true",)
    # cvc5's record takes them, in its dashed syntax; z3's and yices's do not
    assert spec_text_for(("z3", "cvc5", "yices"), doc) == "z3;cvc5 --sets-exp=true;yices"
    assert spec_text_for(("z3", "cvc5"), None) == "z3;cvc5"
    (cvc5,) = solvers_for_theory(("cvc5", "no-such-family"), doc)
    result = run_solver(cvc5, SETS, timeout=10.0)
    assert result.outcome is Outcome.SAT, result.stdout
