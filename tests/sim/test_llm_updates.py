"""The rate updates of a pipeline's sends, counted from a stage boundary's routes."""

from types import SimpleNamespace

import numpy as np

from fabricstudio.sim.llm.updates import boundary_instants, pipeline_send_updates


def plan(dp: int, tp: int, pp: int = 2, micro_batches: int = 3) -> SimpleNamespace:
    """Stage p, replica d, rank t on server p*dp + d, GPU t (one server per replica)."""
    return SimpleNamespace(dp=dp, cp=1, tp=tp, pp=pp, micro_batches=micro_batches,
                           address=lambda p, d, c, t: f"s{p * dp + d}/gpu{t}")


def routes(shared: dict[tuple[int, int], int]):
    """Each flow (replica d, rank t) on a link of its own, or on ``shared[(d, t)]``."""
    def route(src: str, dst: str):
        d = int(src.split("/")[0][1:]) % 2
        t = int(src.split("gpu")[1])
        return np.array([shared.get((d, t), 10 + 4 * d + t)]), np.array([1.0])
    return route


CAPACITY = np.full(32, 50e9)


def test_a_boundary_whose_flows_all_get_one_rate_is_one_start_and_one_end():
    assert boundary_instants(plan(2, 2), 0, 1, routes({}), CAPACITY) == 2
    assert pipeline_send_updates(plan(2, 2, pp=3), routes({}), CAPACITY) == 2 * 2 * 3 * 2


def test_contention_splits_the_replicas_and_each_ends_once_per_distinct_rate():
    """Rank 0 of both replicas on one link: half rate.  Each replica: a start of its own and
    two ends (rank 0 at half rate, rank 1 at full) = 3; two replicas = 6."""
    shared = {(0, 0): 0, (1, 0): 0}
    assert boundary_instants(plan(2, 2), 0, 1, routes(shared), CAPACITY) == 6
    assert pipeline_send_updates(plan(2, 2), routes(shared), CAPACITY) == 2 * 3 * 6


def test_pairs_on_one_server_take_no_rate_update():
    one_server = SimpleNamespace(dp=1, cp=1, tp=2, pp=2, micro_batches=3,
                                 address=lambda p, d, c, t: f"s0/gpu{2 * p + t}")
    assert pipeline_send_updates(one_server, routes({}), CAPACITY) == 0
