"""``fabricstudio simulate``: scenario files, command-line workloads, JSON, CSV, errors."""

import csv
import json

import pytest

from fabricstudio.cli import main

SCEN = "examples/scenarios"


@pytest.fixture
def examples(examples_dir):
    return examples_dir / "scenarios"


def test_scenario_file_prints_a_summary(examples, capsys):
    code = main(["simulate", str(examples / "one-hop.design.json"),
                 "--scenario", str(examples / "v1-one-flow.scenario.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert "RoCE" in out and "busiest links" in out and "h1 > r" in out and "engine:" in out


def test_a_flow_level_summary_prints_no_counts_it_does_not_model(examples, capsys):
    """Drops, pauses, ECN and queues are not modelled at flow level: the summary says so
    once and prints none of them as 0."""
    code = main(["simulate", str(examples / "ring8.design.json"), "--engine", "flow",
                 "--workload", "all_reduce", "--size", "1MiB"])
    out = capsys.readouterr().out
    assert code == 0 and "not modelled at flow level: " in out
    assert "dropped" not in out and "PFC pauses (" not in out and "max queue" not in out


def test_summary_names_a_deadlock_cycle(examples, capsys):
    code = main(["simulate", str(examples / "pfc-ring.design.json"),
                 "--scenario", str(examples / "deadlock-ring.scenario.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert "DEADLOCK at 1.25 ms" in out
    assert "cycle s0 > s1 > s2 > s3 > s4 > s0, links r0, r1, r2, r3, r4" in out


def test_json_dash_prints_only_the_json(examples, capsys):
    code = main(["simulate", str(examples / "ring8.design.json"), "--workload", "all-reduce",
                 "--size", "1MiB", "--json", "-", "--no-timing"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out)
    assert doc["collective"]["name"] == "all_reduce" and doc["collective"]["ranks"] == 8
    assert doc["collective"]["size_bytes"] == 2**20
    assert doc["engine"]["wall_time_s"] is None
    for key in ("completion_time_s", "flows", "links", "totals", "collective", "training",
                "engine"):
        assert key in doc


def test_overrides_json_file_and_metrics_csv(examples, tmp_path, capsys):
    out_json, out_csv = tmp_path / "r.json", tmp_path / "m.csv"
    code = main(["simulate", str(examples / "incast.design.json"),
                 "--scenario", str(examples / "v2-incast-roce-pfc.scenario.json"),
                 "--technology", "infiniband", "--routing", "static", "--cell-size", "64KiB",
                 "--seed", "5", "--until", "0.0005", "--measure-from", "0.0001",
                 "--json", str(out_json), "--metrics", str(out_csv)])
    assert code == 0
    run = json.loads(out_json.read_text())["run"]
    assert (run["technology"], run["routing"], run["cell_bytes"], run["seed"],
            run["until_s"]) == ("infiniband", "static", 65536, 5, 0.0005)
    assert "InfiniBand" in capsys.readouterr().out
    rows = list(csv.DictReader(out_csv.open()))
    links = [r for r in rows if r["kind"] == "link"]
    flows = [r for r in rows if r["kind"] == "flow"]
    assert links and flows
    assert {"t_s", "utilisation", "queue_bytes", "credit_stall", "rate_gbps"} <= set(rows[0])
    assert any(r["from"] == "s1" and r["to"] == "r" and float(r["utilisation"]) > 0.9
               for r in links)
    assert {r["from"] for r in flows} == {"h1", "h2", "h3", "h4"}


def test_training_from_the_command_line(examples, capsys):
    code = main(["simulate", str(examples / "ring8.design.json"), "--workload", "training",
                 "--size", "4MiB", "--compute", "0.001", "--overlap", "0.5", "--json", "-"])
    training = json.loads(capsys.readouterr().out)["training"]
    assert code == 0 and 0 < training["gpu_utilisation"] <= 1


def test_incast_defaults_to_every_other_server(examples, capsys):
    code = main(["simulate", str(examples / "incast.design.json"), "--workload", "incast",
                 "--receiver", "r", "--size", "256KiB", "--dcqcn", "--json", "-"])
    flows = json.loads(capsys.readouterr().out)["flows"]
    assert code == 0 and sorted(f["src"] for f in flows) == ["h1", "h2", "h3", "h4"]


@pytest.mark.parametrize("args, fragment, status", [
    ([], "give a scenario", 2),
    (["--workload", "all-reduce"], "needs --size", 2),
    (["--workload", "incast", "--size", "1MB"], "needs --receiver", 2),
    (["--workload", "training", "--size", "1MB"], "needs --compute", 2),
    (["--workload", "incast", "--size", "1MB", "--receiver", "nobody"], "no device 'nobody'", 1),
    (["--scenario", "missing.json"], "no such file", 1),
    (["--workload", "incast", "--receiver", "r", "--size", "1e15", "--engine", "cell"],
     "too long for the cell engine", 1),
    (["--workload", "all-reduce", "--size", "1e15", "--engine", "cell"], "use the flow engine",
     1),
    (["--workload", "all-reduce", "--size", "1MiB", "--measure-from", "1", "--until", "0.5"],
     "must be before", 1),
])
def test_bad_input_is_one_line_on_stderr(examples, capsys, args, fragment, status):
    code = main(["simulate", str(examples / "incast.design.json"), *args])
    err = capsys.readouterr().err
    assert code == status and fragment in err and err.count("\n") == 1


@pytest.mark.parametrize("args", [["--size", "12 parsecs"], ["--workload", "gossip"],
                                  ["--cell-size", "-1"]])
def test_bad_arguments_are_usage_errors(examples, capsys, args):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(examples / "incast.design.json"), *args])
    assert exc.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_training_summary_shows_gpu_idle_money_at_the_cost_books_price(examples, tmp_path,
                                                                        capsys):
    book = tmp_path / "book.json"
    book.write_text(json.dumps({"format": "fabricstudio-costbook", "version": 1,
                                "currency": "USD",
                                "items": [{"class": "gpu-hour", "price": 10.0}]}))
    args = ["simulate", str(examples / "ring8.design.json"), "--workload", "training",
            "--size", "4MiB", "--compute", "0.0002", "--cost-book", str(book)]
    assert main(args + ["--json", "-"]) == 0
    utilisation = json.loads(capsys.readouterr().out)["training"]["gpu_utilisation"]
    assert utilisation < 0.9
    assert main(args) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines()
                if ln.startswith("GPU idle money"))
    from fabricstudio.topology.cost import format_money

    per_day = (1 - utilisation) * 8 * 10.0 * 24
    assert f"of 8 GPUs' time waiting = {format_money(per_day)} per day" in line
    assert "$10.00 per GPU-hour (sourced" in line


def test_a_stalled_receiver_from_the_command_line(examples, capsys):
    code = main(["simulate", str(examples / "incast.design.json"), "--workload", "stall",
                 "--receiver", "r", "--size", "256KiB", "--duration", "0.0002", "--json", "-",
                 "--no-timing"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [w["type"] for w in doc["workloads"]] == ["incast", "stall"]
    assert doc["workloads"][1]["receiver"] == "r" and doc["totals"]["pfc_pauses"] > 0
