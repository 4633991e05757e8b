"""Transformer models and GPUs for the LLM training workload: presets and custom specs.

Model shapes are the published configurations (sources per preset below).  GPU figures are
dense (no sparsity) BF16 tensor-core peaks, HBM capacity and NVLink bandwidth per direction
from NVIDIA's datasheets.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class ModelSpec(BaseModel):
    """A decoder-only transformer.  ``kv_heads`` < ``heads`` is grouped-query attention;
    ``glu`` a gated MLP (SwiGLU: three matrices) instead of two; ``experts`` > 0 makes the
    MLP of ``moe_layers`` layers (the last ones) a mixture of experts of ``expert_ffn`` each,
    ``top_k`` routed per token, plus ``shared_experts`` always used."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(default="custom", max_length=100)
    layers: int = Field(ge=1, le=1000)
    hidden: int = Field(ge=64, le=131072)
    heads: int = Field(ge=1, le=1024)
    kv_heads: int | None = Field(default=None, ge=1, le=1024)
    head_dim: int | None = Field(default=None, ge=8, le=1024)
    ffn: int = Field(ge=64, le=1_000_000, description="dense MLP width")
    vocab: int = Field(ge=2, le=2_000_000)
    glu: bool = True
    experts: int = Field(default=0, ge=0, le=4096)
    top_k: int = Field(default=0, ge=0, le=64)
    expert_ffn: int | None = Field(default=None, ge=16, le=1_000_000)
    shared_experts: int = Field(default=0, ge=0, le=64)
    moe_layers: int | None = Field(default=None, ge=0, le=1000)
    attention_weights: int | None = Field(
        default=None, ge=1, le=10**12,
        description="weights of one layer's attention when its projections are not plain "
                    "Q/K/V/O (e.g. DeepSeek's low-rank MLA); None = from the head shape")

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if self.heads % (self.kv_heads or self.heads):
            raise ValueError(f"heads ({self.heads}) must be a multiple of kv_heads "
                             f"({self.kv_heads})")
        if self.experts and not 1 <= self.top_k <= self.experts:
            raise ValueError(f"top_k must be between 1 and experts ({self.experts})")
        if self.experts and self.moe_layer_count > self.layers:
            raise ValueError(f"moe_layers ({self.moe_layers}) exceeds layers ({self.layers})")
        return self

    @property
    def dim_head(self) -> int:
        """Width of one attention head."""
        return self.head_dim or self.hidden // self.heads

    @property
    def q_width(self) -> int:
        """Width of all query heads together."""
        return self.heads * self.dim_head

    @property
    def kv_width(self) -> int:
        """Width of all key (or value) heads together."""
        return (self.kv_heads or self.heads) * self.dim_head

    @property
    def moe_layer_count(self) -> int:
        """Layers whose MLP is a mixture of experts."""
        if not self.experts:
            return 0
        return self.layers if self.moe_layers is None else self.moe_layers

    @property
    def expert_width(self) -> int:
        """MLP width of one expert."""
        return self.expert_ffn or self.ffn


#: Published model shapes.
MODELS: dict[str, ModelSpec] = {
    # Brown et al. 2020, Table 2.1; Narayanan et al. 2021 (Megatron-LM) Table 1; GELU MLP 4h
    "gpt3-175b": ModelSpec(name="GPT-3 175B", layers=96, hidden=12288, heads=96, ffn=49152,
                           vocab=51200, glu=False),
    # Llama 3 paper (Grattafiori et al. 2024), Table 3; SwiGLU, GQA with 8 KV heads
    "llama3-8b": ModelSpec(name="Llama-3 8B", layers=32, hidden=4096, heads=32, kv_heads=8,
                           ffn=14336, vocab=128256),
    "llama3-70b": ModelSpec(name="Llama-3 70B", layers=80, hidden=8192, heads=64, kv_heads=8,
                            ffn=28672, vocab=128256),
    "llama3-405b": ModelSpec(name="Llama-3 405B", layers=126, hidden=16384, heads=128,
                             kv_heads=8, ffn=53248, vocab=128256),
    # Jiang et al. 2024 (Mixtral of Experts): 8 experts, top-2, every layer MoE
    "mixtral-8x7b": ModelSpec(name="Mixtral 8x7B", layers=32, hidden=4096, heads=32,
                              kv_heads=8, ffn=14336, vocab=32000, experts=8, top_k=2),
    # DeepSeek-V3 technical report (2024): 61 layers, the first 3 dense (MLP 18432), 58 MoE
    # layers of 256 routed experts (width 2048, top-8) + 1 shared; MLA attention: 128 heads
    # (scores on 128-wide heads here), its low-rank projections ~187 M weights per layer
    # (671 B total, 37 B active: "-like" because MLA's ranks are folded into that count)
    "deepseek-v3-like": ModelSpec(name="DeepSeek-V3-like MoE", layers=61, hidden=7168,
                                  heads=128, head_dim=128, ffn=18432, vocab=129280, experts=256,
                                  top_k=8, expert_ffn=2048, shared_experts=1, moe_layers=58,
                                  attention_weights=187_000_000),
}


class GpuSpec(BaseModel):
    """An accelerator: dense BF16 peak, HBM, NVLink per direction, GPUs per NVLink domain
    (one server here) and whether its NVSwitch reduces in the network (NVLink SHARP)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    bf16_tflops: float = Field(gt=0, le=100_000)
    hbm_gb: float = Field(gt=0, le=10_000)
    nvlink_gbps: float = Field(gt=0, le=100_000, description="per GPU, per direction (Gb/s)")
    nvlink_domain: int = Field(ge=1, le=1024)
    nvls: bool = False


#: Datasheet figures (dense BF16, no sparsity; NVLink per direction = half the bidirectional
#: figure NVIDIA quotes).
GPUS: dict[str, GpuSpec] = {
    # A100 SXM4 80GB: 312 TFLOPS BF16, 600 GB/s NVLink (3rd gen, 12 links)
    "a100": GpuSpec(name="A100 80GB", bf16_tflops=312, hbm_gb=80, nvlink_gbps=2400,
                    nvlink_domain=8),
    # H100 SXM5: 989 TFLOPS BF16, 80 GB HBM3, 900 GB/s NVLink (4th gen, 18 links), NVLS
    "h100": GpuSpec(name="H100 SXM", bf16_tflops=989, hbm_gb=80, nvlink_gbps=3600,
                    nvlink_domain=8, nvls=True),
    # H200 SXM: H100 compute, 141 GB HBM3e
    "h200": GpuSpec(name="H200 SXM", bf16_tflops=989, hbm_gb=141, nvlink_gbps=3600,
                    nvlink_domain=8, nvls=True),
    # HGX B200 (1,000 W): 2,250 TFLOPS BF16, 180 GB HBM3e, 1.8 TB/s NVLink (5th gen)
    "b200": GpuSpec(name="B200 (HGX)", bf16_tflops=2250, hbm_gb=180, nvlink_gbps=7200,
                    nvlink_domain=8, nvls=True),
}
