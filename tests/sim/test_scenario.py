"""The scenario file: the issue's minimal scenario, sizes with units, clear errors."""

import json

import pytest

from fabricstudio.model import FabricSettings, Technology
from fabricstudio.sim.scenario import (
    CollectiveSpec,
    Scenario,
    ScenarioError,
    TrainingSpec,
    dump_scenario,
    fabric_with_overrides,
    load_scenario,
    parse_scenario,
    parse_size,
)

MINIMAL = ('{"format":"fabricstudio-scenario","version":1,"seed":1,"until_s":0.03,'
           '"measure_from_s":0.01,"technology":"roce","dcqcn":false,'
           '"flows":[{"src":"h1","dst":"r","bytes":1e12,"start_s":0}]}')


def test_the_issues_minimal_scenario_loads_verbatim():
    scenario = parse_scenario(MINIMAL)
    assert scenario.technology is Technology.ROCE and scenario.dcqcn is False
    assert scenario.until_s == 0.03 and scenario.measure_from_s == 0.01
    assert scenario.flows[0].bytes == 10**12 and isinstance(scenario.flows[0].bytes, int)
    assert scenario.cell_bytes == 16384 and scenario.routing == "default"


def test_round_trip_through_text(tmp_path):
    scenario = parse_scenario(MINIMAL)
    path = tmp_path / "s.json"
    path.write_text(dump_scenario(scenario))
    assert load_scenario(path) == scenario


@pytest.mark.parametrize("text, expected", [
    ("4096", 4096), (4096, 4096), ("256MiB", 256 * 2**20), ("1GB", 10**9), ("64k", 65536),
    ("1.5 GiB", 3 * 2**29), (1e12, 10**12), ("2KB", 2000), ("16KiB", 16384),
])
def test_sizes_with_units(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["0", "-5", "abc", "12 parsecs", True, None, "0.1"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_workloads_parse_by_type():
    scenario = Scenario.model_validate({"until_s": 1, "workloads": [
        {"type": "all_reduce", "size_bytes": "256MiB"},
        {"type": "training", "ranks": ["a/gpu0", "b/gpu0"], "gradient_bytes": "1GiB",
         "compute_s": 0.1, "overlap": 0.5},
    ]})
    assert isinstance(scenario.workloads[0], CollectiveSpec)
    assert scenario.workloads[0].ranks == "all"
    assert isinstance(scenario.workloads[1], TrainingSpec)


@pytest.mark.parametrize("doc, fragment", [
    ({"format": "fabricstudio-design", "version": 1}, "not a FabricStudio scenario"),
    ({"format": "fabricstudio-scenario", "version": 9}, "newer FabricStudio"),
    ({"format": "fabricstudio-scenario", "version": 1}, "no flows and no workloads"),
    ({"format": "fabricstudio-scenario", "version": 1, "until_s": 0.01, "measure_from_s": 0.02,
      "flows": [{"src": "a", "dst": "b", "bytes": 1}]}, "must be before until_s"),
    ({"format": "fabricstudio-scenario", "version": 1,
      "flows": [{"src": "a", "dst": "b", "bytes": 0}]}, "flows.0.bytes"),
    ({"format": "fabricstudio-scenario", "version": 1,
      "flows": [{"src": "a", "dst": "a", "bytes": 10}]}, "to itself"),
    ({"format": "fabricstudio-scenario", "version": 1, "workloads": [{"type": "bogus"}]},
     "workloads.0"),
    ({"format": "fabricstudio-scenario", "version": 1, "fabric": {"pfc": {"alpha": -1}},
      "flows": [{"src": "a", "dst": "b", "bytes": 10}]}, "fabric"),
    ({"format": "fabricstudio-scenario", "version": 1, "speed": 3,
      "flows": [{"src": "a", "dst": "b", "bytes": 10}]}, "speed"),
])
def test_bad_scenarios_get_one_clear_message(doc, fragment):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(json.dumps(doc), source="x.json")
    assert fragment in str(info.value) and str(info.value).startswith("x.json: ")


def test_unreadable_files(tmp_path):
    with pytest.raises(ScenarioError, match="no such file"):
        load_scenario(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ScenarioError, match="not valid JSON"):
        load_scenario(tmp_path / "bad.json")


def test_fabric_overrides_merge_nested_values():
    merged = fabric_with_overrides(FabricSettings(), {"pfc": {"headroom_bytes": 1000}})
    assert merged.pfc.headroom_bytes == 1000
    assert merged.pfc.alpha == FabricSettings().pfc.alpha
