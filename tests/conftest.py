"""Shared fixtures: where ../shared lives, and the rule that CI never skips tests that need it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SKATLOG_SHARED", REPO.parent / "shared"))


def require_shared(*parts: str) -> Path:
    """The path under ../shared; skips when it is missing, fails when CI requires it."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if os.environ.get("SKATLOG_REQUIRE_SHARED") == "1":
            pytest.fail(f"{path} is missing and SKATLOG_REQUIRE_SHARED=1")
        pytest.skip(f"{path} not found (the project's ../shared is not beside this checkout)")
    return path


@pytest.fixture
def shared_dir() -> Path:
    return require_shared()


@pytest.fixture
def iss_dir() -> Path:
    return require_shared("data", "iss")
