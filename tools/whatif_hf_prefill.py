"""A Hugging Face transformers causal LM built from a config (random weights, no download): one
prefill pass of FLOORCALC_HF_BATCH sequences of FLOORCALC_HF_SEQ tokens, the logits of the last
position only (as ``generate`` asks for them: ``logits_to_keep=1``), no KV cache kept.

FLOORCALC_HF names the shapes (the public configs' sizes, fewer layers; FLOORCALC_HF_LAYERS
overrides the layer count):

* ``llama``: TinyLlama-1.1B (hidden 2048, 32 heads, 4 KV heads, ffn 5632, vocab 32000), 3 layers
* ``gpt2m``: GPT-2 medium (n_embd 1024, 16 heads, vocab 50257, 2048 positions), 4 layers
* ``mistral``: Mistral-7B (hidden 4096, 32 heads, 8 KV heads, ffn 14336, vocab 32000), 2 layers
* ``qwen2``: Qwen2-1.5B (hidden 1536, 12 heads, 2 KV heads, ffn 8960, qkv biases, vocab 151936,
  tied embeddings), 3 layers
* ``phi3``: Phi-3-mini (hidden 3072, 32 heads, no GQA, ffn 8192, vocab 32064), 2 layers
* ``gemma``: Gemma-2B (hidden 2048, 8 heads, 1 KV head, head_dim 256, GeGLU ffn 16384, vocab
  256000), 2 layers
* ``tiny``: a Llama of hidden 64 (CPU dry runs)

bfloat16 and SDPA attention on CUDA, float32 on the CPU.

    FLOORCALC_HF=llama FLOORCALC_HF_BATCH=4 floorcalc report tools/whatif_hf_prefill.py --device cuda
"""

import os

import torch

SHAPES = {
    "llama": ("llama", dict(hidden_size=2048, intermediate_size=5632, num_attention_heads=32,
                            num_key_value_heads=4, num_hidden_layers=3, vocab_size=32000,
                            max_position_embeddings=4096, rms_norm_eps=1e-5, tie_word_embeddings=False)),
    "gpt2m": ("gpt2", dict(n_embd=1024, n_layer=4, n_head=16, n_positions=2048, vocab_size=50257)),
    "mistral": ("mistral", dict(hidden_size=4096, intermediate_size=14336, num_attention_heads=32,
                                num_key_value_heads=8, num_hidden_layers=2, vocab_size=32000,
                                max_position_embeddings=4096, sliding_window=None, tie_word_embeddings=False)),
    "qwen2": ("qwen2", dict(hidden_size=1536, intermediate_size=8960, num_attention_heads=12,
                            num_key_value_heads=2, num_hidden_layers=3, vocab_size=151936,
                            max_position_embeddings=4096, use_sliding_window=False, tie_word_embeddings=True)),
    "phi3": ("phi3", dict(hidden_size=3072, intermediate_size=8192, num_attention_heads=32, num_key_value_heads=32,
                          num_hidden_layers=2, vocab_size=32064, max_position_embeddings=4096, pad_token_id=0)),
    "gemma": ("gemma", dict(hidden_size=2048, intermediate_size=16384, num_attention_heads=8, num_key_value_heads=1,
                            head_dim=256, num_hidden_layers=2, vocab_size=256000, max_position_embeddings=8192)),
    "tiny": ("llama", dict(hidden_size=64, intermediate_size=176, num_attention_heads=4, num_key_value_heads=2,
                           num_hidden_layers=2, vocab_size=512, max_position_embeddings=4096)),
}


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, str(default))
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"{name}={value!r}: a positive whole number")
    return int(value)


def shapes() -> str:
    name = os.environ.get("FLOORCALC_HF", "llama")
    if name not in SHAPES:
        raise ValueError(f"FLOORCALC_HF={name!r}: choose one of {', '.join(SHAPES)}")
    return name


def config():
    from transformers import AutoConfig

    kind, sizes = SHAPES[shapes()]
    sizes = dict(sizes)
    if "FLOORCALC_HF_LAYERS" in os.environ:
        sizes["n_layer" if kind == "gpt2" else "num_hidden_layers"] = _int("FLOORCALC_HF_LAYERS", 1)
    return AutoConfig.for_model(kind, **sizes)


def get_model(device: str = "cpu"):
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    cuda = device.startswith("cuda")
    cfg = config()
    cfg._attn_implementation = "sdpa"
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16 if cuda else torch.float32)
    return model


def get_inputs(device: str = "cpu"):
    g = torch.Generator().manual_seed(1)
    tokens = torch.randint(0, SHAPES[shapes()][1].get("vocab_size", 50257),
                           (_int("FLOORCALC_HF_BATCH", 1), _int("FLOORCALC_HF_SEQ", 512)), generator=g)
    return {"input_ids": tokens, "use_cache": False, "logits_to_keep": 1}
