"""docs/simulation.md section 6 (written by benchmarks/story.py) writes bytes as the product
does (format_bytes: binary units), never decimal MB."""

from __future__ import annotations

import importlib.util
import re

from fabricstudio.model.units import format_bytes
from tests.conftest import ROOT


def _story():
    spec = importlib.util.spec_from_file_location("story_benchmark",
                                                  ROOT / "benchmarks" / "story.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ROW = {"fabric": "lossy Ethernet (TCP, SACK/RACK-TLP)", "cell": 16384, "burst": True,
       "step_ms": 3.54, "utilisation": 0.565, "exposed_ms": 1.54, "drops": 2602,
       "timeouts": 0, "fast_retransmits": 8, "pauses": 0, "cnps": 0}


def test_the_story_table_writes_resent_bytes_with_format_bytes():
    story = _story()
    new = story.table([{**ROW, "retransmitted_bytes": 10_657_792}])
    old = story.table([{**ROW, "retransmitted_mb": 10.657792}])  # rows saved before
    assert new == old
    assert f"| 2,602 | {format_bytes(10_657_792)} |" in new
    assert "10.16 MiB" in new and " MB |" not in new


def test_the_documented_story_table_has_no_decimal_megabytes():
    doc = (ROOT / "docs" / "simulation.md").read_text(encoding="utf-8")
    section = doc.split("<!-- story:begin", 1)[1].split("<!-- story:end -->", 1)[0]
    assert "MiB |" in section
    assert not re.search(r"\d MB \|", section)
