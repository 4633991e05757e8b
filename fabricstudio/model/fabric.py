"""Fabric-wide settings: technology and the flow-control / congestion-control parameters.

Defaults follow ../shared/design/SIMULATION.md and the sources collected in
``shared/reference/sim-anchors.md``; each field's description names its source.  Units are
in the field names (``_bytes``, ``_us``, ``_ns``, ``_mbps``, ``_gbps``).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import ConfigDict, Field, model_validator

from fabricstudio.model.enums import Technology
from fabricstudio.model.strict import StrictNumbers

#: Transports of the lossy Ethernet baseline (the design's ``tcp.transport``, a scenario's or
#: a run's override, the CLI's ``--transport`` choices).
Transport = Literal["newreno", "sack", "dctcp"]
TRANSPORTS: tuple[Transport, ...] = get_args(Transport)

class _Settings(StrictNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PfcSettings(_Settings):
    """Priority flow control (IEEE 802.1Qbb) as modelled by the HPCC simulator's SwitchMmu."""

    enabled: bool = Field(default=True, description="PFC on the lossless priority (RoCE)")
    alpha: float = Field(
        default=0.125, gt=0, le=64,
        description="Dynamic threshold factor at NIC speed: XOFF when shared use >= alpha x free "
        "shared buffer (HPCC switch-mmu.cc, shift 3 = 1/8)",
    )
    reserve_bytes: int = Field(
        default=4096, ge=0, le=10**8,
        description="Guaranteed buffer per ingress port and priority (HPCC: 4 KB)",
    )
    resume_offset_bytes: int = Field(
        default=3072, ge=0, le=10**8,
        description="XON = XOFF threshold - resume offset (HPCC: 3 KB)",
    )
    headroom_bytes: int | None = Field(
        default=None, ge=0, le=10**9,
        description="Headroom per ingress port; None = C x (2 t_prop + t_resp) + 2 MTU",
    )
    response_time_ns: float = Field(
        default=1000.0, ge=0, le=1e7,
        description="Time for the upstream port to react to a PAUSE (t_resp in the headroom "
        "formula); 802.1Qbb allows a few microseconds at high speed",
    )
    # -- PFC frames and the switch watchdog (fidelity, issue 9)
    pause_quanta: int = Field(
        default=65535, ge=1, le=65535,
        description="Pause time a PAUSE frame carries, in quanta of 512 bit times (802.1Qbb; "
        "switches send XOFF with the maximum, 65535 = 335 us at 100G, 84 us at 400G)",
    )
    refresh_quanta: int = Field(
        default=32768, ge=1, le=65535,
        description="While the ingress stays above XON the PAUSE is re-sent every this many "
        "quanta (half the pause time, so it never lapses; MAC IPs call it the XOFF hold/refresh "
        "timer, e.g. Intel Ethernet IP 'XOFF Request Hold Quanta')",
    )
    watchdog: bool = Field(
        default=False,
        description="Switch PFC watchdog (SONiC pfcwd, Junos pfc-watchdog): an egress queue "
        "paused with packets waiting for watchdog_detect_ms is dropped or forwarded",
    )
    watchdog_detect_ms: float = Field(
        default=200.0, gt=0, le=1e5,
        description="Detection time (SONiC default 200 ms; Junos: 2 polls of 100 ms)",
    )
    watchdog_restore_ms: float = Field(
        default=200.0, gt=0, le=1e5,
        description="The queue returns to normal after this long without PFC frames "
        "(SONiC and Junos default 200 ms)",
    )
    watchdog_action: Literal["drop", "forward"] = Field(
        default="drop",
        description="drop: discard the queue and what arrives for it (SONiC default); "
        "forward: ignore PFC on it",
    )


class EcnSettings(_Settings):
    """RED/ECN marking ramp on the egress queue, scaled linearly with port speed."""

    enabled: bool = True
    kmin_bytes_at_100g: int = Field(
        default=400_000, ge=0, le=10**9,
        description="Kmin at 100 Gb/s, scaled with speed (Alibaba production via HPCC #21)",
    )
    kmax_bytes_at_100g: int = Field(
        default=1_600_000, ge=1, le=10**9,
        description="Kmax at 100 Gb/s, scaled with speed (HPCC run.py)",
    )
    pmax: float = Field(default=0.2, ge=0, le=1, description="Marking probability at Kmax")

    @model_validator(mode="after")
    def _ordered(self) -> EcnSettings:
        if self.kmax_bytes_at_100g < self.kmin_bytes_at_100g:
            raise ValueError("ECN Kmax must not be below Kmin")
        return self

    def thresholds(self, speed_gbps: float) -> tuple[float, float]:
        """(Kmin, Kmax) in bytes for a port of ``speed_gbps``."""
        scale = speed_gbps / 100.0
        return self.kmin_bytes_at_100g * scale, self.kmax_bytes_at_100g * scale


class DcqcnSettings(_Settings):
    """DCQCN reaction point / notification point (Zhu et al., SIGCOMM 2015).

    The algorithm is the paper's; the defaults are those of deployed NICs and of the
    simulators that model them at 100-800 Gb/s, because the paper's 40 Gb/s-era constants
    applied unchanged at 400 Gb/s collapse rates to the floor after an incast (see
    docs/engine.md, "DCQCN defaults").  Paper values: ``fast_recovery_steps`` 5, ``rai_mbps``
    40, ``rhai_mbps`` 200 with ``scale_increase_with_rate`` off, ``rate_increase_timer_us``
    55, ``clamp_target_rate`` on, ``rate_decrease_period_us`` 0.
    """

    enabled: bool = True
    g: float = Field(default=1 / 256, gt=0, le=1, description="alpha gain (paper: 1/256)")
    alpha_update_us: float = Field(default=55.0, ge=1, le=1e6, description="paper: 55 us")
    rate_increase_timer_us: float = Field(
        default=300.0, ge=1, le=1e6,
        description="Increase timer T (NVIDIA ConnectX rpg_time_reset 300 us, as the HPCC "
        "simulator; paper 55 us)",
    )
    byte_counter_bytes: int = Field(
        default=10 * 1024 * 1024, ge=0, le=10**12,
        description="Byte counter B: an increase event per B bytes sent below line rate "
        "(paper 10 MB; 0 disables). ConnectX's rpg_byte_reset 32767 read as bytes fires every "
        "0.7 us at 400G and undoes each cut within microseconds (DCQCN becomes a no-op)",
    )
    fast_recovery_steps: int = Field(
        default=1, ge=0, le=1000,
        description="F: fast-recovery events before additive increase (ConnectX "
        "rpg_threshold 1; paper 5)",
    )
    rai_mbps: float = Field(
        default=20.0, gt=0, le=1e6,
        description="Additive increase R_AI (at 100 Gb/s when scaled with the line rate: HPCC "
        "simulator run.py, 5 Mb/s x bw/25G; paper 40 Mb/s at 40G)",
    )
    rhai_mbps: float = Field(
        default=200.0, gt=0, le=1e6,
        description="Hyper increase R_HAI (at 100 Gb/s when scaled with the line rate: HPCC "
        "simulator run.py, 50 Mb/s x bw/25G; paper 200 Mb/s)",
    )
    scale_increase_with_rate: bool = Field(
        default=True,
        description="R_AI and R_HAI are given at 100 Gb/s and scale linearly with the sender's "
        "line rate (HPCC simulator run.py); off = absolute values (paper)",
    )
    clamp_target_rate: bool = Field(
        default=False,
        description="Rt = Rc on every cut (paper); off = only when a timer increase happened "
        "since the previous cut, so repeated cuts keep the pre-congestion target (ConnectX "
        "clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1; HPCC rdma-hw.cc)",
    )
    rate_decrease_period_us: float = Field(
        default=4.0, ge=0, le=1e6,
        description="At most one rate cut per period; CNPs in between are folded into the next "
        "check (ConnectX rate_reduce_monitor_period 4 us; 0 = cut on every CNP, paper)",
    )
    min_rate_mbps: float = Field(default=100.0, ge=1, le=1e6, description="Rate floor")
    cnp_interval_us: float = Field(
        default=50.0, ge=0, le=1e6, description="NP sends at most one CNP per flow per interval"
    )


class InfinibandSettings(_Settings):
    """InfiniBand link-level credit flow control and optional FECN/BECN congestion control."""

    vl_buffer_bytes: int = Field(
        default=256 * 1024, gt=0, le=10**9,
        description="Receive buffer per port per virtual lane advertised as credits",
    )
    credit_processing_ns: float = Field(
        default=500.0, ge=0, le=1e7,
        description="Delay before freed buffer is returned as a credit (plus one link delay)",
    )
    congestion_control: bool = Field(default=False, description="FECN/BECN CC")


class TcpSettings(_Settings):
    """Transport of the lossy Ethernet baseline (docs/engine.md, "Lossy Ethernet")."""

    min_rto_us: float = Field(
        default=10_000.0, ge=1, le=1e7,
        description="Minimum retransmission timeout. 10 ms: a tuned datacenter TCP (RTOmin of "
        "the DCTCP testbed, Alizadeh et al., SIGCOMM 2010); stock Linux is 200 ms "
        "(TCP_RTO_MIN); 1 ms is an aggressive best case for the lossy baseline",
    )
    dupack_threshold: int = Field(
        default=3, ge=1, le=100,
        description="Duplicate ACKs (NewReno) or SACKed packets (RACK's reordering window "
        "closes) that signal a loss (RFC 5681; Linux tcp_reordering 3)",
    )
    initial_window_bytes: int | None = Field(
        default=None, gt=0, le=10**9,
        description="Initial window in bytes (whole packets); None = initial_window_packets",
    )
    # -- transport choice and its parameters (fidelity, issue 9)
    transport: Transport = Field(
        default="sack",
        description="newreno: RFC 6582 (dup ACKs, one hole per RTT); sack: what a tuned "
        "Linux datacenter host runs - SACK, RACK-TLP loss detection (RFC 8985; Linux "
        "tcp_recovery=1, tcp_early_retrans=3) and CUBIC (Linux default); dctcp: RFC 8257 with "
        "ECN marking above K on the switches",
    )
    initial_window_packets: int = Field(
        default=10, ge=1, le=10**6,
        description="Initial congestion window in packets (RFC 6928 IW10; Linux TCP_INIT_CWND)",
    )
    receive_window_bytes: int = Field(
        default=6 * 1024 * 1024, gt=0, le=10**10,
        description="Receive window: data beyond the cumulative ACK the receiver buffers "
        "(Linux tcp_rmem maximum, 6 MiB; above the bandwidth-delay product of these fabrics)",
    )
    tail_loss_probe: bool = Field(
        default=True,
        description="sack/dctcp: probe after 2 SRTT + 2 ms instead of waiting for the RTO "
        "when the tail of a window is lost (RFC 8985 TLP; Linux tcp_schedule_loss_probe)",
    )
    dctcp_g: float = Field(
        default=1 / 16, gt=0, le=1,
        description="DCTCP alpha gain (Alizadeh et al. 2010, RFC 8257: 1/16; Linux "
        "dctcp_shift_g 4)",
    )
    dctcp_k_bytes_at_100g: int = Field(
        default=300_000, ge=0, le=10**9,
        description="DCTCP marking threshold K on the egress queue at 100 Gb/s, scaled with "
        "port speed (HPCC simulator run.py: 30 KB x bw/10G)",
    )


class FabricSettings(_Settings):
    """Technology and all link/flow-control parameters of a design."""

    technology: Technology = Technology.ROCE
    mtu_bytes: int = Field(default=4096, ge=256, le=65536, description="4096 (IB/RoCE) or 9000")
    propagation_ns_per_m: float = Field(default=5.0, ge=3.34, le=100,
                                        description="fibre ~5 ns/m (light in vacuum 3.34)")
    nic_latency_ns: float = Field(default=500.0, ge=0, le=1e6, description="SimAI: 500 ns")
    pfc: PfcSettings = PfcSettings()
    ecn: EcnSettings = EcnSettings()
    dcqcn: DcqcnSettings = DcqcnSettings()
    infiniband: InfinibandSettings = InfinibandSettings()
    tcp: TcpSettings = TcpSettings()

    def switch_latency_ns(self) -> float:
        """Typical port-to-port latency: IB ~200 ns, Ethernet cut-through ~300 ns."""
        return 200.0 if self.technology is Technology.INFINIBAND else 300.0

    def wire_overhead_bytes(self) -> int:
        """Per-packet bytes on the wire beyond the payload.

        RoCEv2: Eth 14 + IP 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20 = 82.
        InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 (+ start/end) ~ 30.
        TCP/IP over Ethernet: Eth 14 + IP 20 + TCP 20 + FCS 4 + preamble/IFG 20 = 78.
        """
        return {Technology.ROCE: 82, Technology.INFINIBAND: 30, Technology.ETHERNET: 78}[
            self.technology
        ]
