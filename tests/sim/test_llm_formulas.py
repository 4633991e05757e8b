"""The FLOP, parameter, memory and communication formulas of the LLM workload against their
published forms."""

import pytest

from fabricstudio.sim.llm import formulas as f
from fabricstudio.sim.llm.models import MODELS, ModelSpec

GPT3 = MODELS["gpt3-175b"]


def test_training_flops_follow_narayanan_et_al_2021_equation_3():
    """F = 72 B s l h^2 (1 + s / 6h + V / 12 l h) per iteration without recomputation,
    96 B s l h^2 (...) with full recomputation (Megatron-LM, SC '21, section 5.1)."""
    b, s, n, h, v = 1536, 2048, GPT3.layers, GPT3.hidden, GPT3.vocab
    paper = 72 * b * s * n * h * h * (1 + s / (6 * h) + v / (12 * n * h))
    assert f.model_flops_per_token(GPT3, s) * b * s == pytest.approx(paper, rel=1e-12)
    recomputed = 96 * b * s * n * h * h * (1 + s / (6 * h) + v / (16 * n * h))
    assert f.hardware_flops_per_token(GPT3, s, True) * b * s == pytest.approx(recomputed,
                                                                              rel=1e-12)


@pytest.mark.parametrize("name, total, active", [
    ("gpt3-175b", 175e9, 175e9),          # Brown et al. 2020
    ("llama3-8b", 8.03e9, 8.03e9),        # Llama 3 model card
    ("llama3-70b", 70.6e9, 70.6e9),
    ("llama3-405b", 405.9e9, 405.9e9),
    ("mixtral-8x7b", 46.7e9, 12.9e9),     # Jiang et al. 2024
    ("deepseek-v3-like", 671e9, 37e9),    # DeepSeek-V3 technical report
])
def test_parameter_counts_match_the_published_sizes(name, total, active):
    m = MODELS[name]
    assert f.total_params(m) == pytest.approx(total, rel=0.015)
    assert f.active_params(m) == pytest.approx(active, rel=0.015)


def test_a_gated_mlp_has_three_matrices_and_gqa_shrinks_k_and_v():
    m = ModelSpec(layers=1, hidden=1024, heads=16, kv_heads=4, ffn=4096, vocab=100)
    assert f.mlp_params(m, 4096) == 3 * 1024 * 4096
    assert f.attention_params(m) == 1024 * (1024 + 2 * 256) + 1024 * 1024
    assert f.layer_forward_flops(m, 2048, False) == 2 * f.layer_params(m, False) + 4 * 2048 * 1024


def test_communication_volumes():
    m = MODELS["llama3-70b"]
    # one TP all-reduce of a layer: the b s/c x h activations in BF16
    assert f.tp_bytes_per_layer(m, 1, 8192) == 8192 * 8192 * 2
    # pipeline: the same activations, split over the TP ranks
    assert f.pp_bytes(m, 2, 8192, tp=8, cp=2) == 2 * 4096 * 8192 * 2 / 8
    # expert dispatch: tokens x top-k x h, the share leaving the GPU
    mix = MODELS["mixtral-8x7b"]
    assert f.ep_bytes_per_layer(mix, 1, 4096, tp=1, cp=1, ep=8) == 4096 * 2 * 4096 * 2 * 7 / 8
    assert f.ep_bytes_per_layer(mix, 1, 4096, tp=1, cp=1, ep=1) == 0
    # ring attention passes each rank's K and V round the c ranks
    assert f.cp_bytes_per_layer(m, 1, 8192, tp=8, cp=4) == 2048 * 2 * 1024 * 2 / 8 * 3
    assert f.dp_gradient_bytes(1e9) == 4e9 and f.dp_param_bytes(1e9) == 2e9


def test_memory_follows_korthikanti_et_al_2022_and_zero():
    m = GPT3
    s, b, t = 2048, 1, 8
    assert f.activation_bytes_per_layer(m, b, s, t, 1, False) == pytest.approx(
        s * b * m.hidden * (34 + 5 * m.heads * s / m.hidden) / t)
    assert f.activation_bytes_per_layer(m, b, s, t, 1, True) == 2 * s * b * m.hidden / t
    assert f.state_bytes_per_gpu(1e9, 8, 0) == 18e9  # 2 + 4 + 12 bytes per weight
    assert f.state_bytes_per_gpu(1e9, 8, 1) == pytest.approx(6e9 + 12e9 / 8)
    assert f.state_bytes_per_gpu(1e9, 8, 3) == pytest.approx(18e9 / 8)


def test_pipeline_bubble_and_ring_all_reduce():
    assert f.one_f_one_b_bubble(4, 8) == pytest.approx(3 / 11)
    assert f.one_f_one_b_bubble(1, 8) == 0
    assert f.ring_all_reduce_time(8e9, 8, 400e9) == pytest.approx(2 * 7 / 8 * 8e9 / 400e9)
    assert f.ring_all_reduce_time(8e9, 1, 400e9) == 0
