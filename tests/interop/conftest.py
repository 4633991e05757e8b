"""Shared fixtures of the interop tests: the bundled example designs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricstudio.formats import load_design

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_FILES = sorted((ROOT / "examples").glob("*.json")) + \
    sorted((ROOT / "examples" / "scenarios").glob("*.design.json"))


@pytest.fixture(scope="session")
def example_designs():
    """Every bundled example design, loaded once, by file name."""
    return {path.name: load_design(path) for path in EXAMPLE_FILES}
