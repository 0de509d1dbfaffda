"""A number too long to read is the seed's parse error, never a traceback (issue 52, defect 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinxfuzz.mutate.seed import SeedError, load_seed

DIGITS = "1" * 5000


@pytest.mark.parametrize(
    "script",
    [
        f"(declare-fun x () (_ BitVec {DIGITS}))\n(assert (= x x))\n(check-sat)\n",
        f"(assert (= #f1m{DIGITS} #f1m{DIGITS}))\n(check-sat)\n",
        f"(declare-fun x () (_ BitVec 8))\n(assert (= ((_ extract {DIGITS} 0) x) x))\n(check-sat)\n",
    ],
    ids=["bitvec-width", "finite-field-modulus", "extract-index"],
)
def test_a_5000_digit_number_is_a_seed_error_naming_its_place(tmp_path: Path, script: str) -> None:
    seed = tmp_path / "long.smt2"
    seed.write_text(script)
    with pytest.raises(SeedError, match=r"long\.smt2:\d+:\d+: a number of 50\d\d characters"):
        load_seed(seed)


def test_a_long_number_within_the_limit_still_reads(tmp_path: Path) -> None:
    seed = tmp_path / "big.smt2"
    seed.write_text(f"(declare-fun x () Int)\n(assert (> x {'9' * 3000}))\n(check-sat)\n")
    assert load_seed(seed).script.commands
