"""Test configuration: Qt runs offscreen (set before any Qt import)."""

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Windows made without explicit settings must never read or write the user's own QSettings.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="fabricstudio-test-config-")
# ... nor the user's application data (recovery files, caches).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="fabricstudio-test-data-")
# ... nor its cache of recorded runs, which is off unless a test turns it on (a comparison
# replayed from an earlier test's runs would not exercise the runs).
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="fabricstudio-test-cache-")
os.environ["FABRICSTUDIO_RUN_CACHE"] = "0"

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


@pytest.fixture
def examples_dir() -> Path:
    """The repository's examples/ folder."""
    return EXAMPLES
