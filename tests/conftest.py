"""Fixtures every test folder may use."""

from __future__ import annotations

import pytest

from sphinxfuzz.solvers.installs import install


# Old releases with known bugs, installed from PyPI on first use into the solver cache (a
# lock lets parallel workers share one install): what these tests prove is that sphinxfuzz
# finds those bugs, so a machine without them installs them rather than skipping. Recorded
# as installed by the tests: `sphinxfuzz solvers` marks them as test fixtures (README).
@pytest.fixture(scope="session")
def z3_4_8_8() -> None:
    install("z3", "4.8.8", say=lambda _: None, by="tests")


@pytest.fixture(scope="session")
def z3_4_12_2() -> None:
    install("z3", "4.12.2", say=lambda _: None, by="tests")
