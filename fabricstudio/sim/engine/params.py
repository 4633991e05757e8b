"""Transport parameters converted once to engine units (seconds, bytes per second)."""

from __future__ import annotations

from dataclasses import dataclass

from fabricstudio.model import FabricSettings


@dataclass(frozen=True, slots=True)
class DcqcnParams:
    """DCQCN reaction/notification point parameters (rates in wire bytes per second)."""

    g: float
    one_minus_g: float
    alpha_period: float
    timer: float
    byte_counter: int
    fast_recovery: int
    rai: float
    rhai: float
    scale_with_rate: bool
    clamp_target: bool
    decrease_period: float
    min_rate: float
    cnp_interval: float

    @classmethod
    def from_fabric(cls, fabric: FabricSettings) -> DcqcnParams:
        d = fabric.dcqcn
        return cls(d.g, 1.0 - d.g, d.alpha_update_us * 1e-6, d.rate_increase_timer_us * 1e-6,
                   d.byte_counter_bytes, d.fast_recovery_steps, d.rai_mbps * 1e6 / 8,
                   d.rhai_mbps * 1e6 / 8, d.scale_increase_with_rate, d.clamp_target_rate,
                   d.rate_decrease_period_us * 1e-6, d.min_rate_mbps * 1e6 / 8,
                   d.cnp_interval_us * 1e-6)

    def increase_steps(self, line_rate: float) -> tuple[float, float]:
        """(R_AI, R_HAI) in bytes/s for a sender of ``line_rate`` bytes/s."""
        if not self.scale_with_rate:
            return self.rai, self.rhai
        scale = line_rate / (100e9 / 8)
        return self.rai * scale, self.rhai * scale


@dataclass(frozen=True, slots=True)
class TcpParams:
    """Transport of the lossy baseline (see :mod:`.tcp`); windows in packets."""

    min_rto: float
    dupack_threshold: int
    initial_window_packets: int
    transport: str
    receive_window_packets: int
    tail_loss_probe: bool
    dctcp_g: float

    @classmethod
    def from_fabric(cls, fabric: FabricSettings) -> TcpParams:
        t = fabric.tcp
        mtu = fabric.mtu_bytes
        initial = (t.initial_window_bytes // mtu if t.initial_window_bytes is not None
                   else t.initial_window_packets)
        return cls(t.min_rto_us * 1e-6, t.dupack_threshold, max(1, initial), t.transport,
                   max(1, t.receive_window_bytes // mtu), t.tail_loss_probe, t.dctcp_g)


@dataclass(frozen=True, slots=True)
class IbCcParams:
    """InfiniBand congestion control (CCT).  Values follow the shape of the IBTA CC annex;
    the exact vendor tables are not public, so these are documented assumptions: a switch
    port is congested when its queue exceeds ``threshold_fraction`` of a VL buffer while it
    still has credits; each BECN raises the CCT index by ``ccti_increase``; every
    ``ccti_timer`` it drops by one; each index adds ``ipd_step`` serialisation times of
    inter-cell delay."""

    ccti_increase: int = 1
    ccti_limit: int = 128
    ccti_timer: float = 20e-6
    ipd_step: float = 0.125
    threshold_fraction: float = 0.5  # port congested above this share of one VL buffer
