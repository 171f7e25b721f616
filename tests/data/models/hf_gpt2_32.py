"""Hugging Face GPT-2 small (124M) built from its config, random weights: a 32-token prefill,
bf16 on CUDA (float32 on CPU), SDPA attention, no KV cache kept. Held-out model for issue 22."""
import os

import torch

SEQ = int(os.environ.get("FLOORCALC_HF_SEQ", "32"))
BATCH = int(os.environ.get("FLOORCALC_HF_BATCH", "1"))


def get_model(device):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(attn_implementation="sdpa", use_cache=False)
    with torch.device(device):
        m = GPT2LMHeadModel(cfg)
    return m.to(torch.bfloat16) if torch.cuda.is_available() else m


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return {"input_ids": torch.randint(0, 50257, (BATCH, SEQ), generator=g), "use_cache": False}
