"""Every example design loads and validates."""

from pathlib import Path

import pytest

from fabricstudio.formats import load_design

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.json"))


def test_there_are_examples():
    names = {p.name for p in EXAMPLES}
    assert {"tiny.json", "two-servers-one-leaf.json"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_loads(path):
    design = load_design(path)
    assert design.devices and design.links
