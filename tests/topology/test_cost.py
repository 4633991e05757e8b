"""Capex, power, rack units and GPU-idle money from a BOM and a cost book."""

import pytest

from fabricstudio.formats.costbook import default_cost_book
from fabricstudio.model import Technology
from fabricstudio.model.costbook import CostBook
from fabricstudio.topology.analysis import analyze
from fabricstudio.topology.builders import RailOptimizedSpec, build_fabric
from fabricstudio.topology.cost import (
    HOURS_PER_MONTH,
    compare_idle_money,
    cost_lines,
    cost_of,
    format_money,
    idle_money,
)


@pytest.fixture(scope="module")
def report():
    design = build_fabric(RailOptimizedSpec(gpus=256, technology=Technology.INFINIBAND))
    return analyze(design.to_design(), cost_book=default_cost_book())


def test_cost_adds_up_the_priced_order(report):
    book = default_cost_book()
    cost = report.cost
    lines = cost_lines(report.bom, book)
    expected = sum(book.item(i.part).price * i.count for i in report.bom.items)
    assert cost.total == pytest.approx(expected)
    assert sum(line.total for line in lines) == pytest.approx(cost.total)
    assert sum(c.total for c in cost.by_category.values()) == pytest.approx(cost.total)
    assert cost.per_gpu == pytest.approx(cost.total / 256)
    assert cost.per_tbps_bisection == pytest.approx(cost.total / (report.bisection.gbps / 1000))
    power = sum(book.item(i.part).power_w * i.count for i in report.bom.items)
    assert cost.power_w == pytest.approx(power)
    assert cost.rack_units == 256 + 12  # 8U per 8-GPU server, 1U per NDR switch
    switches = cost.by_category["switches"]
    assert switches.total == 12 * book.item("switch-ib-ndr-64x400g").price
    assert cost.confidence == "placeholder"  # NIC prices are placeholders
    # 256 single-port 400G modules + 384 twin-port modules (128 at the NIC ends, 256 uplinks)
    transceivers = cost.by_category["transceivers"].total
    assert transceivers == pytest.approx(256 * book.item("xcvr-osfp-400g-sr").price
                                         + 384 * book.item("xcvr-osfp-800g-sr").price)


def test_confidence_is_the_lowest_of_what_went_in(report):
    sure = CostBook(items=tuple(i.model_copy(update={"confidence": "sourced",
                                                    "power_confidence": None})
                                for i in default_cost_book().items))
    assert cost_of(report.bom, sure, report.bisection.gbps).confidence == "sourced"
    one_weak = sure.merged([{"class": "fibre-mmf-mpo12", "confidence": "weak"}])
    assert cost_of(report.bom, one_weak, report.bisection.gbps).confidence == "weak"


def test_a_part_missing_from_the_book_counts_zero_and_placeholder(report):
    book = CostBook(items=tuple(i for i in default_cost_book().items
                                if i.part != "nic-ib-400g"))
    cost = cost_of(report.bom, book, report.bisection.gbps)
    assert cost.by_category["nics"].total == 0 and cost.by_category["nics"].confidence == \
        "placeholder"


def test_gpu_idle_money_is_utilisation_difference_times_gpus_times_price():
    book = default_cost_book().merged([{"class": "gpu-hour", "price": 2.0}])
    money = idle_money(0.6, 256, book, reference=0.9)
    assert money.per_hour == pytest.approx(0.3 * 256 * 2.0)
    assert money.per_day == pytest.approx(0.3 * 256 * 2.0 * 24)
    assert money.per_month == pytest.approx(0.3 * 256 * 2.0 * HOURS_PER_MONTH)
    assert idle_money(0.95, 8, book, reference=0.9).per_day == 0  # never negative
    both = compare_idle_money({"IB": 0.9, "RoCE": 0.8, "Eth": None}, 100, book)
    assert both["Eth"] is None
    assert both["IB"][1].per_day == 0 and both["IB"][0].per_day == pytest.approx(0.1 * 100 * 48)
    assert both["RoCE"][1].per_day == pytest.approx(0.1 * 100 * 48)


def test_money_formatting():
    assert format_money(1_234_567) == "$1.23M"
    assert format_money(45_600) == "$45.6k"
    assert format_money(999) == "$999"
    assert format_money(2_500, "EUR") == "€2.50k"
    assert format_money(None) == "-"
