"""Hugging Face Llama from a config (random weights), grouped-query attention on the eager
attention path, so HF's repeat_kv expands K and V (a stride-0 view) and reshape copies it.
2 layers, hidden 1024, 16 query / 4 KV heads, 512 tokens; bf16 on CUDA, fp32 on the CPU."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM

SEQ = 512


def get_model(device="cpu"):
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=4096, hidden_size=1024, intermediate_size=2816, num_hidden_layers=2,
                      num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=2048,
                      attn_implementation="eager")
    m = LlamaForCausalLM(cfg)
    return m.to(torch.bfloat16 if device == "cuda" else torch.float32)


def get_inputs(device="cpu"):
    torch.manual_seed(1)
    return {"input_ids": torch.randint(0, 4096, (1, SEQ)), "use_cache": False}
