"""A Llama-3.2-1B-shaped model (hidden 2048, 32 heads, 8 KV heads, MLP 8192, vocab 128256) built
from a Hugging Face LlamaConfig, random weights, few layers (FLOORCALC_HF_LAYERS, 4): a prefill
of batch 4 x 512 tokens, bf16 on CUDA, SDPA attention. Held-out model for issue 22.
On a CPU the dry run uses 1 x 16 tokens and 1 layer."""
import os

import torch

CUDA = torch.cuda.is_available()
LAYERS = int(os.environ.get("FLOORCALC_HF_LAYERS", "4" if CUDA else "1"))
BATCH, SEQ = (4, 512) if CUDA else (1, 16)


def get_model(device):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=2048, intermediate_size=8192, num_hidden_layers=LAYERS, num_attention_heads=32,
                      num_key_value_heads=8, vocab_size=128256, max_position_embeddings=2048,
                      attn_implementation="sdpa", use_cache=False, tie_word_embeddings=True)
    with torch.device(device):
        m = LlamaForCausalLM(cfg)
    return m.to(torch.bfloat16) if CUDA else m


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return {"input_ids": torch.randint(0, 128256, (BATCH, SEQ), generator=g), "use_cache": False}
