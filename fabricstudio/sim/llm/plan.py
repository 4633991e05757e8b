"""Parallel plan of an LLM training job: group sizes, rank placement and per-stage costs.

Placement follows Megatron-LM's default order (tensor, context, data, pipeline from the
fastest-varying): global rank g = t + T (c + C (d + D p)), and rank g runs on the g-th GPU of
the design (servers in design order, their GPUs in order), so a tensor-parallel group sits
inside one server's NVLink domain, data-parallel peers share a rail, and pipeline stages are
the farthest apart.  Expert-parallel groups are ``ep`` consecutive data-parallel ranks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricstudio.model import Design, GpuServer
from fabricstudio.model.units import gbps_to_bytes_per_s
from fabricstudio.sim.llm import formulas as f
from fabricstudio.sim.llm.models import GpuSpec, ModelSpec
from fabricstudio.sim.scenario import LlmTrainingSpec, ScenarioError
from fabricstudio.sim.workloads.addresses import group_by_server, server_of


@dataclass
class StageCost:
    """Per micro-batch costs of one pipeline stage on one GPU (seconds, bytes)."""

    layers: int
    moe_layers: int
    forward_s: float  #: compute of the forward pass
    backward_s: float  #: compute of the backward pass (recomputation included)
    attention_s: float  #: attention-core compute of the forward (hides context parallelism)
    tp_forward_s: float  #: tensor-parallel all-reduces of the forward (NVLink, exposed)
    tp_backward_s: float
    pp_bytes: float  #: to the next stage, per GPU (activations; the same back as gradients)
    ep_bytes: float  #: all-to-all bytes per GPU per pass (all MoE layers, dispatch + combine)
    cp_bytes: float  #: context-parallel K/V bytes per GPU per pass
    params_per_gpu: float
    model_flops: float  #: per micro-batch per GPU (for MFU)


@dataclass
class LlmPlan:
    """Everything the iteration schedule needs, checked against the design."""

    spec: LlmTrainingSpec
    model: ModelSpec
    gpu: GpuSpec
    tp: int
    pp: int
    dp: int
    ep: int
    cp: int
    micro_batches: int
    grid: list[list[list[list[str]]]]  #: address [pp][dp][cp][tp]
    stages: list[StageCost] = field(default_factory=list)
    nvlink_bps: float = 0.0  #: bytes/s per GPU per direction (the design's servers)
    memory_gb: float = 0.0  #: largest per-GPU memory need of a stage (estimate)
    warnings: list[str] = field(default_factory=list)

    @property
    def gpus(self) -> int:
        """GPUs the job uses."""
        return self.tp * self.pp * self.dp * self.cp

    @property
    def tokens(self) -> int:
        """Tokens per iteration."""
        return self.spec.global_batch * self.spec.seq_len

    def address(self, p: int, d: int, c: int, t: int) -> str:
        """GPU of tensor rank t, context rank c, data rank d, pipeline stage p."""
        return self.grid[p][d][c][t]

    def model_flops_per_iteration(self) -> float:
        """Model FLOPs of one iteration (MFU numerator)."""
        return f.model_flops_per_token(self.model, self.spec.seq_len) * self.tokens


def make_plan(design: Design, spec: LlmTrainingSpec, gpus: list[str], where: str) -> LlmPlan:
    """Check the parallelism against the model and the design and place the ranks."""
    model, gpu = spec.model_spec, spec.gpu_spec
    tp, pp, ep, cp = spec.tp, spec.pp, spec.ep, spec.cp
    per_replica = tp * pp * cp
    if spec.dp is None:
        if len(gpus) < per_replica:
            raise ScenarioError(f"{where}: TP x PP x CP = {per_replica} GPUs, the design has "
                                f"{len(gpus)}")
        dp = len(gpus) // per_replica
    else:
        dp = spec.dp
    need = per_replica * dp
    if need > len(gpus):
        raise ScenarioError(f"{where}: TP {tp} x PP {pp} x DP {dp} x CP {cp} = {need:,} GPUs, "
                            f"the design has {len(gpus):,}")
    _check_shapes(model, spec, dp, where)
    servers = group_by_server(gpus[:need])
    per_server = len(servers[0])
    if tp > per_server or per_server % tp:
        raise ScenarioError(f"{where}: TP {tp} must divide the {per_server} GPUs of a server "
                            "(tensor parallelism stays inside the NVLink domain; TP across "
                            "servers is not modelled)")
    if tp > gpu.nvlink_domain:
        raise ScenarioError(f"{where}: TP {tp} exceeds the {gpu.name}'s NVLink domain of "
                            f"{gpu.nvlink_domain} GPUs")
    micro_batches = spec.global_batch // (dp * spec.micro_batch)
    grid = [[[[gpus[t + tp * (c + cp * (d + dp * p))] for t in range(tp)] for c in range(cp)]
              for d in range(dp)] for p in range(pp)]
    plan = LlmPlan(spec, model, gpu, tp, pp, dp, ep, cp, micro_batches, grid)
    server = design.devices[server_of(gpus[0])]
    nvlink = server.nvlink_gbps if isinstance(server, GpuServer) else gpu.nvlink_gbps
    plan.nvlink_bps = gbps_to_bytes_per_s(nvlink)
    if abs(nvlink - gpu.nvlink_gbps) > 1e-6:
        plan.warnings.append(f"the design's servers have {nvlink:g} Gb/s NVLink per GPU, the "
                             f"{gpu.name} {gpu.nvlink_gbps:g}: the design's figure is used")
    plan.stages = stage_costs(plan)
    _check_memory(plan)
    return plan


def _check_shapes(model: ModelSpec, spec: LlmTrainingSpec, dp: int, where: str) -> None:
    problems = []
    if spec.pp > model.layers:
        problems.append(f"PP {spec.pp} exceeds the {model.layers} layers")
    if model.heads % spec.tp:
        problems.append(f"TP {spec.tp} must divide the {model.heads} attention heads")
    if spec.global_batch % (dp * spec.micro_batch):
        problems.append(f"global batch {spec.global_batch} is not a multiple of DP {dp} x "
                        f"micro-batch {spec.micro_batch}")
    if spec.ep > 1 and not model.experts:
        problems.append(f"EP {spec.ep} needs a mixture-of-experts model ({model.name} is dense)")
    elif spec.ep > 1 and (dp % spec.ep or model.experts % spec.ep):
        problems.append(f"EP {spec.ep} must divide DP {dp} and the {model.experts} experts")
    if spec.seq_len % spec.cp:
        problems.append(f"CP {spec.cp} must divide the sequence length {spec.seq_len}")
    if problems:
        raise ScenarioError(f"{where}: " + "; ".join(problems))


def _layer_split(layers: int, pp: int) -> list[int]:
    base, extra = divmod(layers, pp)
    return [base + (1 if s < extra else 0) for s in range(pp)]


def stage_costs(plan: LlmPlan) -> list[StageCost]:
    """Compute and communication of every pipeline stage for one micro-batch on one GPU."""
    m, spec = plan.model, plan.spec
    seq, b, tp, cp, ep = spec.seq_len, spec.micro_batch, plan.tp, plan.cp, plan.ep
    rate = plan.gpu.bf16_tflops * 1e12 * spec.compute_efficiency
    tokens = b * seq  # per micro-batch (a pipeline); each GPU does 1/(t c) of the work
    share = 1.0 / (tp * cp)
    tp_one = f.ring_all_reduce_time(f.tp_bytes_per_layer(m, b, seq, cp), tp, plan.nvlink_bps,
                                    latency_s=0.0)
    costs = []
    first = 0
    for s, count in enumerate(_layer_split(m.layers, plan.pp)):
        layers = range(first, first + count)
        first += count
        moe = sum(1 for i in layers if f.is_moe(m, i))
        fwd = sum(f.layer_forward_flops(m, seq, f.is_moe(m, i)) for i in layers)
        if s == plan.pp - 1:
            fwd += f.logits_flops(m)
        fwd_flops = fwd * tokens * share
        attention = sum(f.attention_core_flops(m, seq) for _ in layers) * tokens * share
        bwd_flops = 2 * fwd_flops
        if spec.recompute == "full":  # the layers' forward again (not the logits)
            bwd_flops += fwd_flops - (f.logits_flops(m) * tokens * share
                                      if s == plan.pp - 1 else 0.0)
        elif spec.recompute == "selective":
            bwd_flops += attention
        params = float(sum(f.layer_params(m, f.is_moe(m, i)) for i in layers))
        if s == 0:
            params += m.vocab * m.hidden
        if s == plan.pp - 1:
            params += m.vocab * m.hidden
        if moe and ep > 1:  # experts are split over the expert-parallel ranks
            expert = moe * (m.experts + m.shared_experts) * f.mlp_params(m, m.expert_width)
            params -= expert * (1 - 1 / ep)
        tp_calls = 2 * count
        recompute_tp = tp_calls if spec.recompute == "full" else 0
        costs.append(StageCost(
            layers=count, moe_layers=moe, forward_s=fwd_flops / rate, backward_s=bwd_flops / rate,
            attention_s=attention / rate, tp_forward_s=tp_calls * tp_one,
            tp_backward_s=(tp_calls + recompute_tp) * tp_one,
            pp_bytes=f.pp_bytes(m, b, seq, tp, cp),
            ep_bytes=2 * moe * f.ep_bytes_per_layer(m, b, seq, tp, cp, ep),
            cp_bytes=count * f.cp_bytes_per_layer(m, b, seq, tp, cp),
            params_per_gpu=params / tp, model_flops=3 * fwd_flops))
    return costs


def _check_memory(plan: LlmPlan) -> None:
    m, spec = plan.model, plan.spec
    worst = 0.0
    for s, cost in enumerate(plan.stages):
        in_flight = min(plan.pp - s, plan.micro_batches)  # 1F1B keeps at most p - s
        acts = cost.layers * in_flight * f.activation_bytes_per_layer(
            m, spec.micro_batch, spec.seq_len, plan.tp, plan.cp, spec.recompute == "full")
        state = f.state_bytes_per_gpu(cost.params_per_gpu, plan.dp * plan.cp, spec.zero)
        worst = max(worst, acts + state)
    plan.memory_gb = worst / 1e9
    if worst > plan.gpu.hbm_gb * 1e9:
        plan.warnings.append(
            f"about {worst / 1e9:,.0f} GB per GPU (weights, gradients, optimizer states, "
            f"activations) exceeds the {plan.gpu.name}'s {plan.gpu.hbm_gb:g} GB: use more "
            "PP/TP, a higher ZeRO stage or full recomputation")
