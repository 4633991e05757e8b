"""The one envelope check (format name and version) and the exact message each reader gives."""

from __future__ import annotations

import json

import pytest

from fabricstudio.formats import parse_design
from fabricstudio.formats.costbook import parse_cost_book
from fabricstudio.formats.envelope import EnvelopeError, FileKind, body_of, check_envelope
from fabricstudio.formats.story import parse_story
from fabricstudio.sim.scenario import parse_scenario

READERS = {
    "design": (parse_design, "fabricstudio-design"),
    "scenario": (parse_scenario, "fabricstudio-scenario"),
    "story": (parse_story, "fabricstudio-story"),
    "cost book": (parse_cost_book, "fabricstudio-costbook"),
}

#: Each reader's message for each broken envelope, as the readers worded them before the
#: check was shared (``FMT``: the reader's own format name).
MESSAGES = {
    "design": {
        "array": "expected a JSON object at the top, found an array",
        "no format": 'not a FabricStudio design: has no "format" field (expected '
                     '"fabricstudio-design")',
        "other format": "not a FabricStudio design: has format 'x' (expected "
                        '"fabricstudio-design")',
        "text version": '"version" must be an integer, found a string',
        "boolean version": '"version" must be an integer, found a boolean',
        "newer": "written by a newer FabricStudio (format version 99; this version reads up to "
                 "2). Please upgrade FabricStudio.",
        "version 0": "unknown format version 0",
    },
    "scenario": {
        "array": "expected a JSON object at the top",
        "no format": 'not a FabricStudio scenario: has no "format" field (expected '
                     '"fabricstudio-scenario")',
        "other format": "not a FabricStudio scenario: has format 'x' (expected "
                        '"fabricstudio-scenario")',
        "text version": '"version" must be an integer',
        "boolean version": '"version" must be an integer',
        "newer": "written by a newer FabricStudio (scenario version 99; this version reads up "
                 "to 1). Please upgrade.",
        "version 0": "unknown scenario version 0",
    },
    "story": {
        "array": "expected a JSON object at the top",
        "no format": 'not a FabricStudio story: has no "format" field (expected '
                     '"fabricstudio-story")',
        "other format": "not a FabricStudio story: has format 'x' (expected "
                        '"fabricstudio-story")',
        "text version": '"version" must be an integer',
        "boolean version": '"version" must be an integer',
        "newer": "written by a newer FabricStudio (story version 99; this version reads 1)",
        "version 0": "unknown story version 0",
    },
    "cost book": {
        "array": "expected a JSON object at the top",
        "no format": 'not a FabricStudio cost book: no "format" field (expected '
                     '"fabricstudio-costbook")',
        "other format": "not a FabricStudio cost book: format 'x' (expected "
                        '"fabricstudio-costbook")',
        "text version": '"version" must be an integer',
        "boolean version": '"version" must be an integer',
        "newer": "cost book format version 99 is newer than this FabricStudio reads (1); "
                 "please upgrade",
        "version 0": "unknown cost book format version 0",
    },
}

FMT = object()
DOCUMENTS = {
    "array": [],
    "no format": {"version": 1},
    "other format": {"format": "x", "version": 1},
    "text version": {"format": FMT, "version": "1"},
    "boolean version": {"format": FMT, "version": True},
    "newer": {"format": FMT, "version": 99},
    "version 0": {"format": FMT, "version": 0},
}


@pytest.mark.parametrize("case", DOCUMENTS)
@pytest.mark.parametrize("reader", READERS)
def test_each_reader_keeps_its_message(reader: str, case: str) -> None:
    parse, format_name = READERS[reader]
    doc = DOCUMENTS[case]
    if isinstance(doc, dict):
        doc = {k: format_name if v is FMT else v for k, v in doc.items()}
    with pytest.raises(ValueError) as info:
        parse(json.dumps(doc), "f.json")
    assert str(info.value) == f"f.json: {MESSAGES[reader][case]}"


KIND = FileKind(noun="thing", format_name="fabricstudio-thing", current_version=3,
                version_label="thing version")


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_readable_envelope_gives_its_version(version: int) -> None:
    doc = {"format": "fabricstudio-thing", "version": version, "name": "n"}
    assert check_envelope(doc, KIND) == (doc, version)
    assert body_of(doc) == {"name": "n"}


def test_an_envelope_error_carries_the_problem_alone() -> None:
    with pytest.raises(EnvelopeError) as info:
        check_envelope({"format": "fabricstudio-thing", "version": 4}, KIND)
    assert info.value.problem == ("written by a newer FabricStudio (thing version 4; this "
                                  "version reads up to 3). Please upgrade.")
