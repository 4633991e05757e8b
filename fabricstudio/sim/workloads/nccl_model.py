"""What NCCL would pick: its tuning model's predicted time per algorithm (Simple protocol).

``algorithm: "auto"`` follows NCCL's own cost model, not a size threshold: for each algorithm
NCCL predicts ``time = latency + bytes / algbw`` and runs the fastest.  Source:
NVIDIA/nccl ``src/graph/tuning.cc`` (``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime``,
repository commit b6475625, NCCL 2.19 era).  Only the Simple protocol is modelled (the engines
move bulk data; LL and LL128 are latency protocols for small messages) and only the
algorithms the simulation has: ring, tree (all-reduce only) and NVLS tree (all-reduce on
NVLink-SHARP servers, several servers); CollNet needs in-network reduction switches.

Mapping of our fabric to NCCL's inputs: one channel per rail (``channels``) carrying the
rail NIC's goodput between servers (``bwInter``) and an equal share of the GPU's NVLink
bandwidth inside a server (``bwIntra``); Hopper-class tables when the GPU's NVLink is at
least 3,600 Gb/s (H100: 18 x 25 GB/s), Ampere-class below.

Constants (microseconds, GB/s), Simple protocol:

- base latency: ring 8.4, tree 0, NVLS tree 0;
- per-hop latency: NVLink ring 3.4, tree 28, NVLS 23; network ring 14.0, tree 28, NVLS tree
  14; an inter-node ring step costs at least 3 x the 1 us network post overhead (Intel CPUs);
- ring bandwidth = channels x bw x nranks / nsteps; tree = min(0.92 x channels x bw, channels x
  per-channel tree cap) x 0.5 (cap 36.0 GB/s Hopper, 17.8 Ampere, beyond two nodes), times
  the tree correction factor for sizes below 256 MiB; NVLS tree = channels x min(bwIntra,
  bwInter / 2) x 5/6;
- ring latency = 8.4 + (nsteps - 2 nnodes) x 3.4 + 2 nnodes x 14 (all-reduce), x 1.4 "ring
  plateau" when bytes / (channels x nranks) >= 64; tree = 2 ((ppn - 1) x 28 + log2(nnodes)
  x 28); NVLS tree = 23 + 2 log2(nnodes) x 14.
"""

from __future__ import annotations

from dataclasses import dataclass

# tuning.cc, Simple protocol column
_BASE_LAT = {"ring": 8.4, "tree": 0.0, "nvls_tree": 0.0}
_NVLINK_LAT = {"ring": 3.4, "tree": 28.0, "nvls_tree": 23.0}
_NET_LAT = {"ring": 14.0, "tree": 28.0, "nvls_tree": 14.0}
_NET_OVERHEAD_US = 1.0  # getNetOverhead, Intel x86; x3 for Simple
#: perChMaxTreeBws (GB/s per channel) [Ampere, Hopper][1 node, 2 nodes, more]
_TREE_CAP = {"ampere": (24.0, 23.6, 17.8), "hopper": (38.7, 41.4, 36.0)}
#: treeCorrectionFactor, Simple protocol, for log2(bytes / 64) = 0..22
_TREE_CORRECTION = (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8,
                    .7, .7, .8, .9, .9)
#: Hopper-class NVLink (H100: 18 links x 25 GB/s) from this per-GPU rate on.
HOPPER_NVLINK_GBPS = 3600.0


@dataclass(frozen=True)
class Topology:
    """What NCCL's model needs to know about a communicator."""

    ranks: int
    nodes: int
    channels: int
    inter_gbytes: float  #: per channel between servers (GB/s)
    intra_gbytes: float  #: per channel inside a server (GB/s)
    hopper: bool = True
    nvls: bool = False  #: NVLink SHARP (NVSwitch reduction) available


def _log2i(n: int) -> int:
    return max(0, int(n).bit_length() - 1)


def predicted_times(name: str, size_bytes: float, topo: Topology) -> dict[str, float]:
    """Seconds NCCL's model predicts for each algorithm it would consider for collective
    ``name`` (``all_reduce``, ``reduce_scatter``, ``all_gather``)."""
    n, nodes, ch = topo.ranks, topo.nodes, topo.channels
    if n < 2:
        return {"ring": 0.0}
    ppn = n / nodes
    nsteps = 2 * (n - 1) if name == "all_reduce" else n - 1
    if name == "all_reduce":
        inter_steps = 2 * nodes if nodes > 1 else 0
    else:
        inter_steps = nodes - 1
    bw = topo.intra_gbytes if nodes <= 2 else topo.inter_gbytes
    times = {}
    # ring
    intra_lat = _NVLINK_LAT["ring"]
    if nodes > 1:
        intra_lat = max(intra_lat, 3 * _NET_OVERHEAD_US)
    lat = _BASE_LAT["ring"] + (nsteps - inter_steps) * intra_lat + inter_steps * _NET_LAT["ring"]
    if name == "all_reduce" and nodes > 1 and size_bytes / (ch * n) >= 64:
        lat *= 1.4  # compute capability >= 8.0 (Ampere and Hopper)
    algbw = ch * bw * n / nsteps
    times["ring"] = lat * 1e-6 + size_bytes / (algbw * 1e9)
    if name != "all_reduce":
        return times
    # tree
    index2 = min(nodes, 3) - 1
    cap = _TREE_CAP["hopper" if topo.hopper else "ampere"][index2]
    algbw = min(ch * bw * 0.92, ch * cap) * 0.5
    log_size = _log2i(int(size_bytes) >> 6)
    if log_size < len(_TREE_CORRECTION):
        algbw *= _TREE_CORRECTION[log_size]
    lat = _BASE_LAT["tree"] + 2 * ((ppn - 1) * _NVLINK_LAT["tree"]
                                   + _log2i(nodes) * _NET_LAT["tree"])
    times["tree"] = lat * 1e-6 + size_bytes / (algbw * 1e9)
    # NVLS tree (several servers with NVLink SHARP)
    if topo.nvls and nodes > 1:
        inter = topo.inter_gbytes if nodes <= 2 else topo.inter_gbytes / 2
        algbw = ch * min(topo.intra_gbytes, inter) * 5 / 6
        lat = _BASE_LAT["nvls_tree"] + _NVLINK_LAT["nvls_tree"] + 2 * _log2i(nodes) * _NET_LAT[
            "nvls_tree"]
        times["nvls_tree"] = lat * 1e-6 + size_bytes / (algbw * 1e9)
    return times


def choose(name: str, size_bytes: float, topo: Topology,
           available: tuple[str, ...]) -> tuple[str, str]:
    """(algorithm, reason): the fastest of ``available`` by NCCL's model, and why."""
    times = {a: t for a, t in predicted_times(name, size_bytes, topo).items() if a in available}
    if not times:
        return available[0], f"auto: {available[0]} (the only algorithm that applies)"
    best = min(times, key=lambda a: (times[a], a))
    listed = ", ".join(f"{a} {times[a] * 1e3:.3g} ms"
                       for a in sorted(times, key=lambda name: times[name]))
    return best, (f"auto: NCCL's tuning model (tuning.cc, Simple protocol) predicts {listed} "
                  f"for {size_bytes / 2**20:.4g} MiB over {topo.ranks} ranks on {topo.nodes} "
                  f"server(s), {topo.channels} channel(s)")
