"""Test configuration: Qt runs offscreen (set before any Qt import)."""

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples_dir() -> Path:
    """The repository's examples/ folder."""
    return EXAMPLES
