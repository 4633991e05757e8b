"""FLOPs, parameters, memory and communication volumes of transformer training: one place.

Every number the LLM workload uses comes from a function here (unit-tested against the
published formulas in tests/sim/test_llm_formulas.py).  Notation: b micro-batch sequences,
s sequence length, h hidden size, L layers, V vocabulary, t/p/d/e/c tensor, pipeline, data,
expert and context parallel sizes.  Bytes: BF16 activations and weights (2 B).

FLOPs count multiply-adds as 2 and follow Narayanan et al. 2021 (Megatron-LM, eq. 3): per
token and layer the matrix multiplies (2 x their weights) plus attention scores and values
(4 s x query width; the causal mask is not discounted, as in that paper and PaLM's MFU), plus
the logits (2 h V).  A training step is 3 forward passes (forward, 2 for backward); full
activation recomputation adds one (hardware FLOPs).  MFU counts model FLOPs only.
"""

from __future__ import annotations

from fabricstudio.sim.llm.models import ModelSpec

BF16 = 2
#: Gradients reduced in FP32 (Megatron's default main-grad precision).
GRAD_BYTES = 4
#: Adam in mixed precision: FP32 master weights, momentum and variance.
OPTIMIZER_BYTES = 12


# ------------------------------------------------------------------------ parameters
def attention_params(m: ModelSpec) -> int:
    """Q, K, V and output projections of one layer (or the model's stated count)."""
    if m.attention_weights is not None:
        return m.attention_weights
    return m.hidden * (m.q_width + 2 * m.kv_width) + m.q_width * m.hidden


def mlp_params(m: ModelSpec, width: int) -> int:
    """One MLP (or expert) of ``width``: 3 matrices gated (SwiGLU), else 2."""
    return (3 if m.glu else 2) * m.hidden * width


def layer_params(m: ModelSpec, moe: bool) -> int:
    """Weights of one layer (all experts of an MoE layer; norms and router neglected)."""
    if not moe:
        return attention_params(m) + mlp_params(m, m.ffn)
    experts = m.experts + m.shared_experts
    return attention_params(m) + experts * mlp_params(m, m.expert_width)


def active_layer_params(m: ModelSpec, moe: bool) -> int:
    """Weights one token goes through in a layer (top-k + shared experts of an MoE layer)."""
    if not moe:
        return layer_params(m, False)
    return attention_params(m) + (m.top_k + m.shared_experts) * mlp_params(m, m.expert_width)


def is_moe(m: ModelSpec, layer: int) -> bool:
    """True for the MoE layers (the last ``moe_layer_count``)."""
    return layer >= m.layers - m.moe_layer_count


def embedding_params(m: ModelSpec) -> int:
    """Input embedding and (untied) output projection."""
    return 2 * m.vocab * m.hidden


def total_params(m: ModelSpec) -> int:
    """All weights."""
    return embedding_params(m) + sum(layer_params(m, is_moe(m, i)) for i in range(m.layers))


def active_params(m: ModelSpec) -> int:
    """Weights used per token (MoE: routed + shared experts only)."""
    return embedding_params(m) + sum(active_layer_params(m, is_moe(m, i))
                                     for i in range(m.layers))


# ------------------------------------------------------------------------ FLOPs
def layer_forward_flops(m: ModelSpec, seq: int, moe: bool) -> float:
    """Forward FLOPs of one layer per token: 2 x active weights + 4 s x query width."""
    return 2 * active_layer_params(m, moe) + 4 * seq * m.q_width


def attention_core_flops(m: ModelSpec, seq: int) -> float:
    """The score and value products of one layer per token (4 s x query width)."""
    return 4 * seq * m.q_width


def logits_flops(m: ModelSpec) -> float:
    """Output projection per token."""
    return 2 * m.hidden * m.vocab


def forward_flops_per_token(m: ModelSpec, seq: int) -> float:
    """Forward FLOPs of the whole model per token."""
    return sum(layer_forward_flops(m, seq, is_moe(m, i)) for i in range(m.layers)) + \
        logits_flops(m)


def model_flops_per_token(m: ModelSpec, seq: int) -> float:
    """Training FLOPs per token without recomputation (forward + 2 x backward): MFU."""
    return 3 * forward_flops_per_token(m, seq)


def hardware_flops_per_token(m: ModelSpec, seq: int, recompute: bool) -> float:
    """Training FLOPs per token actually executed: full recomputation runs the layers'
    forward a second time (not the logits: Narayanan et al.'s V / 16 l h term)."""
    extra = forward_flops_per_token(m, seq) - logits_flops(m) if recompute else 0.0
    return 3 * forward_flops_per_token(m, seq) + extra


# ------------------------------------------------------------------------ communication
def tp_bytes_per_layer(m: ModelSpec, micro_batch: int, seq: int, cp: int = 1) -> float:
    """Bytes of ONE tensor-parallel all-reduce of a layer's activations (b s/c h, BF16);
    Megatron does 2 per layer forward (attention and MLP outputs) and 2 backward; with
    sequence parallelism each becomes a reduce-scatter + all-gather of the same total."""
    return micro_batch * seq / cp * m.hidden * BF16


def pp_bytes(m: ModelSpec, micro_batch: int, seq: int, tp: int, cp: int = 1) -> float:
    """Bytes one GPU sends to the next pipeline stage per micro-batch (activations forward,
    their gradients backward): b s/c h BF16 split over the t tensor-parallel ranks
    (Megatron's scatter-gather optimisation)."""
    return micro_batch * seq / cp * m.hidden * BF16 / tp


def ep_bytes_per_layer(m: ModelSpec, micro_batch: int, seq: int, tp: int, cp: int,
                       ep: int) -> float:
    """Bytes one GPU sends to OTHER expert-parallel ranks in one MoE layer's token dispatch
    (the combine sends the same back): its b s/(c t) tokens x top-k copies x h BF16, the
    share (e-1)/e leaving the GPU (uniform routing)."""
    if ep <= 1:
        return 0.0
    tokens = micro_batch * seq / (cp * tp)
    return tokens * m.top_k * m.hidden * BF16 * (ep - 1) / ep


def cp_bytes_per_layer(m: ModelSpec, micro_batch: int, seq: int, tp: int, cp: int) -> float:
    """Bytes one GPU sends in one layer's context-parallel attention forward: its K and V
    (b s/c x kv width BF16, split over t) passed around the c ranks (c-1 steps, ring
    attention)."""
    if cp <= 1:
        return 0.0
    return micro_batch * seq / cp * 2 * m.kv_width * BF16 / tp * (cp - 1)


def dp_gradient_bytes(params_per_gpu: float) -> float:
    """Gradient bytes a GPU reduces over its data-parallel group (FP32)."""
    return params_per_gpu * GRAD_BYTES


def dp_param_bytes(params_per_gpu: float) -> float:
    """Weight bytes a GPU all-gathers after the sharded optimizer step (ZeRO >= 1, BF16)."""
    return params_per_gpu * BF16


# ------------------------------------------------------------------------ memory
def activation_bytes_per_layer(m: ModelSpec, micro_batch: int, seq: int, tp: int, cp: int,
                               recompute: bool) -> float:
    """Activations kept per layer and micro-batch (Korthikanti et al. 2022, sequence
    parallel: s b h (34 + 5 a s / h) / t; full recomputation keeps only the input, 2 s b h)."""
    s = seq / cp
    if recompute:
        return 2 * s * micro_batch * m.hidden / tp
    return s * micro_batch * m.hidden * (34 + 5 * m.heads * s / m.hidden) / tp


def state_bytes_per_gpu(params_per_gpu: float, dp: int, zero: int) -> float:
    """Weights (BF16), gradients (FP32) and Adam states (12 B) per GPU under ZeRO stage
    ``zero`` over ``dp`` data-parallel ranks (1: optimizer states sharded, 2: + gradients,
    3: + weights)."""
    weights = params_per_gpu * BF16
    grads = params_per_gpu * GRAD_BYTES
    optimizer = params_per_gpu * OPTIMIZER_BYTES
    if zero >= 1:
        optimizer /= dp
    if zero >= 2:
        grads /= dp
    if zero >= 3:
        weights /= dp
    return weights + grads + optimizer


# ------------------------------------------------------------------------ pipeline
def one_f_one_b_bubble(pp: int, micro_batches: int) -> float:
    """Idle fraction of a 1F1B pipeline with equal stages: (p - 1) / (m + p - 1)."""
    return (pp - 1) / (micro_batches + pp - 1)


def ring_all_reduce_time(nbytes: float, ranks: int, bandwidth_bps: float,
                         latency_s: float = 0.0) -> float:
    """Ring all-reduce of ``nbytes`` over ``ranks`` at ``bandwidth_bps`` bytes/s per rank:
    2 (n-1)/n x bytes / bandwidth + 2 (n-1) latencies (tensor parallelism on NVLink)."""
    if ranks <= 1:
        return 0.0
    return 2 * (ranks - 1) / ranks * nbytes / bandwidth_bps + 2 * (ranks - 1) * latency_s
