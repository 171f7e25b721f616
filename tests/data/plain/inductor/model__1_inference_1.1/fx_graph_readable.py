class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "i64[1, 1]", arg1_1: "bf16[32000, 512]", arg2_1: "bf16[1024, 64]", arg3_1: "bf16[1024, 64]", arg4_1: "bf16[512]", arg5_1: "bf16[512, 512]", arg6_1: "bf16[128, 512]", arg7_1: "bf16[128, 512]", arg8_1: "bf16[1, 2, 1024, 64]", arg9_1: "bf16[1, 2, 1024, 64]", arg10_1: "bf16[512, 512]", arg11_1: "bf16[512]", arg12_1: "bf16[1408, 512]", arg13_1: "bf16[1408, 512]", arg14_1: "bf16[512, 1408]", arg15_1: "bf16[512]", arg16_1: "bf16[512, 512]", arg17_1: "bf16[128, 512]", arg18_1: "bf16[128, 512]", arg19_1: "bf16[1, 2, 1024, 64]", arg20_1: "bf16[1, 2, 1024, 64]", arg21_1: "bf16[512, 512]", arg22_1: "bf16[512]", arg23_1: "bf16[1408, 512]", arg24_1: "bf16[1408, 512]", arg25_1: "bf16[512, 1408]", arg26_1: "bf16[512]", arg27_1: "bf16[512, 512]", arg28_1: "bf16[128, 512]", arg29_1: "bf16[128, 512]", arg30_1: "bf16[1, 2, 1024, 64]", arg31_1: "bf16[1, 2, 1024, 64]", arg32_1: "bf16[512, 512]", arg33_1: "bf16[512]", arg34_1: "bf16[1408, 512]", arg35_1: "bf16[1408, 512]", arg36_1: "bf16[512, 1408]", arg37_1: "bf16[512]", arg38_1: "bf16[512, 512]", arg39_1: "bf16[128, 512]", arg40_1: "bf16[128, 512]", arg41_1: "bf16[1, 2, 1024, 64]", arg42_1: "bf16[1, 2, 1024, 64]", arg43_1: "bf16[512, 512]", arg44_1: "bf16[512]", arg45_1: "bf16[1408, 512]", arg46_1: "bf16[1408, 512]", arg47_1: "bf16[512, 1408]", arg48_1: "bf16[512]", arg49_1: "bf16[32000, 512]"):
        # File: /work/main/examples/llama.py:141 in forward, code: x = self.tok_embeddings(tokens)
        embedding: "bf16[1, 1, 512]" = torch.ops.aten.embedding.default(arg1_1, arg0_1);  arg1_1 = arg0_1 = None

        # File: /work/main/examples/llama.py:142 in forward, code: cos = self.rope_cos[start_pos:start_pos + s]
        slice_1: "bf16[1, 64]" = torch.ops.aten.slice.Tensor(arg2_1, 0, 512, 513);  arg2_1 = None

        # File: /work/main/examples/llama.py:143 in forward, code: sin = self.rope_sin[start_pos:start_pos + s]
        slice_2: "bf16[1, 64]" = torch.ops.aten.slice.Tensor(arg3_1, 0, 512, 513);  arg3_1 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_1: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(embedding, 2)
        mean: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean, 1e-05);  mean = None
        rsqrt: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add);  add = None
        mul: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(embedding, rsqrt);  rsqrt = None
        mul_1: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul, arg4_1);  mul = arg4_1 = None

        # File: /work/main/examples/llama.py:79 in forward, code: q = self.wq(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        permute: "bf16[512, 512]" = torch.ops.aten.permute.default(arg5_1, [1, 0]);  arg5_1 = None
        view: "bf16[1, 512]" = torch.ops.aten.view.default(mul_1, [1, 512])
        mm: "bf16[1, 512]" = torch.ops.aten.mm.default(view, permute);  view = permute = None
        view_1: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm, [1, 1, 512]);  mm = None
        view_2: "bf16[1, 1, 8, 64]" = torch.ops.aten.view.default(view_1, [1, 1, 8, 64]);  view_1 = None
        permute_1: "bf16[1, 8, 1, 64]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None

        # File: /work/main/examples/llama.py:80 in forward, code: k = self.wk(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_2: "bf16[512, 128]" = torch.ops.aten.permute.default(arg6_1, [1, 0]);  arg6_1 = None
        view_3: "bf16[1, 512]" = torch.ops.aten.view.default(mul_1, [1, 512])
        mm_1: "bf16[1, 128]" = torch.ops.aten.mm.default(view_3, permute_2);  view_3 = permute_2 = None
        view_4: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_1, [1, 1, 128]);  mm_1 = None
        view_5: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_4, [1, 1, 2, 64]);  view_4 = None
        permute_3: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_5, [0, 2, 1, 3]);  view_5 = None

        # File: /work/main/examples/llama.py:81 in forward, code: v = self.wv(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_4: "bf16[512, 128]" = torch.ops.aten.permute.default(arg7_1, [1, 0]);  arg7_1 = None
        view_6: "bf16[1, 512]" = torch.ops.aten.view.default(mul_1, [1, 512]);  mul_1 = None
        mm_2: "bf16[1, 128]" = torch.ops.aten.mm.default(view_6, permute_4);  view_6 = permute_4 = None
        view_7: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_2, [1, 1, 128]);  mm_2 = None
        view_8: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_7, [1, 1, 2, 64]);  view_7 = None
        permute_5: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_8, [0, 2, 1, 3]);  view_8 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_2: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(permute_1, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split = torch.ops.aten.split.Tensor(permute_1, 32, -1);  permute_1 = None
        getitem: "bf16[1, 8, 1, 32]" = split[0]
        getitem_1: "bf16[1, 8, 1, 32]" = split[1];  split = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg: "bf16[1, 8, 1, 32]" = torch.ops.aten.neg.default(getitem_1);  getitem_1 = None
        cat: "bf16[1, 8, 1, 64]" = torch.ops.aten.cat.default([neg, getitem], -1);  neg = getitem = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_3: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(cat, slice_2);  cat = None
        add_1: "bf16[1, 8, 1, 64]" = torch.ops.aten.add.Tensor(mul_2, mul_3);  mul_2 = mul_3 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_4: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(permute_3, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_1 = torch.ops.aten.split.Tensor(permute_3, 32, -1);  permute_3 = None
        getitem_2: "bf16[1, 2, 1, 32]" = split_1[0]
        getitem_3: "bf16[1, 2, 1, 32]" = split_1[1];  split_1 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_1: "bf16[1, 2, 1, 32]" = torch.ops.aten.neg.default(getitem_3);  getitem_3 = None
        cat_1: "bf16[1, 2, 1, 64]" = torch.ops.aten.cat.default([neg_1, getitem_2], -1);  neg_1 = getitem_2 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_5: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(cat_1, slice_2);  cat_1 = None
        add_2: "bf16[1, 2, 1, 64]" = torch.ops.aten.add.Tensor(mul_4, mul_5);  mul_4 = mul_5 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        slice_3: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg8_1, 2, 512, 513)
        copy: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_3, add_2);  slice_3 = add_2 = None
        slice_scatter: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg8_1, copy, 2, 512, 513);  copy = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        slice_5: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg9_1, 2, 512, 513)
        copy_1: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_5, permute_5);  slice_5 = permute_5 = None
        slice_scatter_1: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg9_1, copy_1, 2, 512, 513);  copy_1 = None

        # File: /work/main/examples/llama.py:87 in forward, code: keys, values = self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]
        slice_9: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter, 2, 0, 513)
        slice_10: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_1, 2, 0, 513)

        # File: /work/main/examples/llama.py:89 in forward, code: y = F.scaled_dot_product_attention(q, keys, values, is_causal=bool(s > 1),
        _scaled_dot_product_cudnn_attention = torch.ops.aten._scaled_dot_product_cudnn_attention.default(add_1, slice_9, slice_10, None, False);  add_1 = slice_9 = slice_10 = None
        getitem_4: "bf16[1, 8, 1, 64]" = _scaled_dot_product_cudnn_attention[0];  _scaled_dot_product_cudnn_attention = None

        # File: /work/main/examples/llama.py:91 in forward, code: return self.wo(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
        permute_6: "bf16[1, 1, 8, 64]" = torch.ops.aten.permute.default(getitem_4, [0, 2, 1, 3]);  getitem_4 = None
        view_9: "bf16[1, 1, 512]" = torch.ops.aten.view.default(permute_6, [1, 1, 512]);  permute_6 = None
        permute_7: "bf16[512, 512]" = torch.ops.aten.permute.default(arg10_1, [1, 0]);  arg10_1 = None
        view_10: "bf16[1, 512]" = torch.ops.aten.view.default(view_9, [1, 512]);  view_9 = None
        mm_3: "bf16[1, 512]" = torch.ops.aten.mm.default(view_10, permute_7);  view_10 = permute_7 = None
        view_11: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_3, [1, 1, 512]);  mm_3 = None

        # File: /work/main/examples/llama.py:114 in forward, code: x = x + self.attention(self.attention_norm(x), cos, sin, start)
        add_3: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(embedding, view_11);  embedding = view_11 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_2: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_3, 2)
        mean_1: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_2, [-1], True);  pow_2 = None
        add_4: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_1, 1e-05);  mean_1 = None
        rsqrt_1: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_4);  add_4 = None
        mul_6: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_3, rsqrt_1);  rsqrt_1 = None
        mul_7: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_6, arg11_1);  mul_6 = arg11_1 = None

        # File: /work/main/examples/llama.py:102 in forward, code: return self.w2(F.silu(self.w1(x)) * self.w3(x))
        permute_8: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg12_1, [1, 0]);  arg12_1 = None
        view_12: "bf16[1, 512]" = torch.ops.aten.view.default(mul_7, [1, 512])
        mm_4: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_12, permute_8);  view_12 = permute_8 = None
        view_13: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_4, [1, 1, 1408]);  mm_4 = None
        convert_element_type_10: "f32[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(view_13, torch.float32);  view_13 = None
        neg_2: "f32[1, 1, 1408]" = torch.ops.aten.neg.default(convert_element_type_10)
        exp: "f32[1, 1, 1408]" = torch.ops.aten.exp.default(neg_2);  neg_2 = None
        add_5: "f32[1, 1, 1408]" = torch.ops.aten.add.Tensor(exp, 1);  exp = None
        div: "f32[1, 1, 1408]" = torch.ops.aten.div.Tensor(convert_element_type_10, add_5);  convert_element_type_10 = add_5 = None
        convert_element_type_11: "bf16[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(div, torch.bfloat16);  div = None
        permute_9: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg13_1, [1, 0]);  arg13_1 = None
        view_14: "bf16[1, 512]" = torch.ops.aten.view.default(mul_7, [1, 512]);  mul_7 = None
        mm_5: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_14, permute_9);  view_14 = permute_9 = None
        view_15: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_5, [1, 1, 1408]);  mm_5 = None
        mul_8: "bf16[1, 1, 1408]" = torch.ops.aten.mul.Tensor(convert_element_type_11, view_15);  convert_element_type_11 = view_15 = None
        permute_10: "bf16[1408, 512]" = torch.ops.aten.permute.default(arg14_1, [1, 0]);  arg14_1 = None
        view_16: "bf16[1, 1408]" = torch.ops.aten.view.default(mul_8, [1, 1408]);  mul_8 = None
        mm_6: "bf16[1, 512]" = torch.ops.aten.mm.default(view_16, permute_10);  view_16 = permute_10 = None
        view_17: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_6, [1, 1, 512]);  mm_6 = None

        # File: /work/main/examples/llama.py:115 in forward, code: return x + self.feed_forward(self.ffn_norm(x))
        add_6: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_3, view_17);  add_3 = view_17 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_3: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_6, 2)
        mean_2: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_3, [-1], True);  pow_3 = None
        add_7: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_2, 1e-05);  mean_2 = None
        rsqrt_2: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_7);  add_7 = None
        mul_9: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_6, rsqrt_2);  rsqrt_2 = None
        mul_10: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_9, arg15_1);  mul_9 = arg15_1 = None

        # File: /work/main/examples/llama.py:79 in forward, code: q = self.wq(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        permute_11: "bf16[512, 512]" = torch.ops.aten.permute.default(arg16_1, [1, 0]);  arg16_1 = None
        view_18: "bf16[1, 512]" = torch.ops.aten.view.default(mul_10, [1, 512])
        mm_7: "bf16[1, 512]" = torch.ops.aten.mm.default(view_18, permute_11);  view_18 = permute_11 = None
        view_19: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_7, [1, 1, 512]);  mm_7 = None
        view_20: "bf16[1, 1, 8, 64]" = torch.ops.aten.view.default(view_19, [1, 1, 8, 64]);  view_19 = None
        permute_12: "bf16[1, 8, 1, 64]" = torch.ops.aten.permute.default(view_20, [0, 2, 1, 3]);  view_20 = None

        # File: /work/main/examples/llama.py:80 in forward, code: k = self.wk(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_13: "bf16[512, 128]" = torch.ops.aten.permute.default(arg17_1, [1, 0]);  arg17_1 = None
        view_21: "bf16[1, 512]" = torch.ops.aten.view.default(mul_10, [1, 512])
        mm_8: "bf16[1, 128]" = torch.ops.aten.mm.default(view_21, permute_13);  view_21 = permute_13 = None
        view_22: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_8, [1, 1, 128]);  mm_8 = None
        view_23: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_22, [1, 1, 2, 64]);  view_22 = None
        permute_14: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_23, [0, 2, 1, 3]);  view_23 = None

        # File: /work/main/examples/llama.py:81 in forward, code: v = self.wv(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_15: "bf16[512, 128]" = torch.ops.aten.permute.default(arg18_1, [1, 0]);  arg18_1 = None
        view_24: "bf16[1, 512]" = torch.ops.aten.view.default(mul_10, [1, 512]);  mul_10 = None
        mm_9: "bf16[1, 128]" = torch.ops.aten.mm.default(view_24, permute_15);  view_24 = permute_15 = None
        view_25: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_9, [1, 1, 128]);  mm_9 = None
        view_26: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_25, [1, 1, 2, 64]);  view_25 = None
        permute_16: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_26, [0, 2, 1, 3]);  view_26 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_11: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(permute_12, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_2 = torch.ops.aten.split.Tensor(permute_12, 32, -1);  permute_12 = None
        getitem_13: "bf16[1, 8, 1, 32]" = split_2[0]
        getitem_14: "bf16[1, 8, 1, 32]" = split_2[1];  split_2 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_3: "bf16[1, 8, 1, 32]" = torch.ops.aten.neg.default(getitem_14);  getitem_14 = None
        cat_2: "bf16[1, 8, 1, 64]" = torch.ops.aten.cat.default([neg_3, getitem_13], -1);  neg_3 = getitem_13 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_12: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(cat_2, slice_2);  cat_2 = None
        add_8: "bf16[1, 8, 1, 64]" = torch.ops.aten.add.Tensor(mul_11, mul_12);  mul_11 = mul_12 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_13: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(permute_14, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_3 = torch.ops.aten.split.Tensor(permute_14, 32, -1);  permute_14 = None
        getitem_15: "bf16[1, 2, 1, 32]" = split_3[0]
        getitem_16: "bf16[1, 2, 1, 32]" = split_3[1];  split_3 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_4: "bf16[1, 2, 1, 32]" = torch.ops.aten.neg.default(getitem_16);  getitem_16 = None
        cat_3: "bf16[1, 2, 1, 64]" = torch.ops.aten.cat.default([neg_4, getitem_15], -1);  neg_4 = getitem_15 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_14: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(cat_3, slice_2);  cat_3 = None
        add_9: "bf16[1, 2, 1, 64]" = torch.ops.aten.add.Tensor(mul_13, mul_14);  mul_13 = mul_14 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        slice_11: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg19_1, 2, 512, 513)
        copy_2: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_11, add_9);  slice_11 = add_9 = None
        slice_scatter_2: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg19_1, copy_2, 2, 512, 513);  copy_2 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        slice_13: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg20_1, 2, 512, 513)
        copy_3: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_13, permute_16);  slice_13 = permute_16 = None
        slice_scatter_3: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg20_1, copy_3, 2, 512, 513);  copy_3 = None

        # File: /work/main/examples/llama.py:87 in forward, code: keys, values = self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]
        slice_17: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_2, 2, 0, 513)
        slice_18: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_3, 2, 0, 513)

        # File: /work/main/examples/llama.py:89 in forward, code: y = F.scaled_dot_product_attention(q, keys, values, is_causal=bool(s > 1),
        _scaled_dot_product_cudnn_attention_1 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(add_8, slice_17, slice_18, None, False);  add_8 = slice_17 = slice_18 = None
        getitem_17: "bf16[1, 8, 1, 64]" = _scaled_dot_product_cudnn_attention_1[0];  _scaled_dot_product_cudnn_attention_1 = None

        # File: /work/main/examples/llama.py:91 in forward, code: return self.wo(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
        permute_17: "bf16[1, 1, 8, 64]" = torch.ops.aten.permute.default(getitem_17, [0, 2, 1, 3]);  getitem_17 = None
        view_27: "bf16[1, 1, 512]" = torch.ops.aten.view.default(permute_17, [1, 1, 512]);  permute_17 = None
        permute_18: "bf16[512, 512]" = torch.ops.aten.permute.default(arg21_1, [1, 0]);  arg21_1 = None
        view_28: "bf16[1, 512]" = torch.ops.aten.view.default(view_27, [1, 512]);  view_27 = None
        mm_10: "bf16[1, 512]" = torch.ops.aten.mm.default(view_28, permute_18);  view_28 = permute_18 = None
        view_29: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_10, [1, 1, 512]);  mm_10 = None

        # File: /work/main/examples/llama.py:114 in forward, code: x = x + self.attention(self.attention_norm(x), cos, sin, start)
        add_10: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_6, view_29);  add_6 = view_29 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_4: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_10, 2)
        mean_3: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_4, [-1], True);  pow_4 = None
        add_11: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_3, 1e-05);  mean_3 = None
        rsqrt_3: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_11);  add_11 = None
        mul_15: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_10, rsqrt_3);  rsqrt_3 = None
        mul_16: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_15, arg22_1);  mul_15 = arg22_1 = None

        # File: /work/main/examples/llama.py:102 in forward, code: return self.w2(F.silu(self.w1(x)) * self.w3(x))
        permute_19: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg23_1, [1, 0]);  arg23_1 = None
        view_30: "bf16[1, 512]" = torch.ops.aten.view.default(mul_16, [1, 512])
        mm_11: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_30, permute_19);  view_30 = permute_19 = None
        view_31: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_11, [1, 1, 1408]);  mm_11 = None
        convert_element_type_26: "f32[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(view_31, torch.float32);  view_31 = None
        neg_5: "f32[1, 1, 1408]" = torch.ops.aten.neg.default(convert_element_type_26)
        exp_1: "f32[1, 1, 1408]" = torch.ops.aten.exp.default(neg_5);  neg_5 = None
        add_12: "f32[1, 1, 1408]" = torch.ops.aten.add.Tensor(exp_1, 1);  exp_1 = None
        div_1: "f32[1, 1, 1408]" = torch.ops.aten.div.Tensor(convert_element_type_26, add_12);  convert_element_type_26 = add_12 = None
        convert_element_type_27: "bf16[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(div_1, torch.bfloat16);  div_1 = None
        permute_20: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg24_1, [1, 0]);  arg24_1 = None
        view_32: "bf16[1, 512]" = torch.ops.aten.view.default(mul_16, [1, 512]);  mul_16 = None
        mm_12: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_32, permute_20);  view_32 = permute_20 = None
        view_33: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_12, [1, 1, 1408]);  mm_12 = None
        mul_17: "bf16[1, 1, 1408]" = torch.ops.aten.mul.Tensor(convert_element_type_27, view_33);  convert_element_type_27 = view_33 = None
        permute_21: "bf16[1408, 512]" = torch.ops.aten.permute.default(arg25_1, [1, 0]);  arg25_1 = None
        view_34: "bf16[1, 1408]" = torch.ops.aten.view.default(mul_17, [1, 1408]);  mul_17 = None
        mm_13: "bf16[1, 512]" = torch.ops.aten.mm.default(view_34, permute_21);  view_34 = permute_21 = None
        view_35: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_13, [1, 1, 512]);  mm_13 = None

        # File: /work/main/examples/llama.py:115 in forward, code: return x + self.feed_forward(self.ffn_norm(x))
        add_13: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_10, view_35);  add_10 = view_35 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_5: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_13, 2)
        mean_4: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_5, [-1], True);  pow_5 = None
        add_14: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_4, 1e-05);  mean_4 = None
        rsqrt_4: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_14);  add_14 = None
        mul_18: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_13, rsqrt_4);  rsqrt_4 = None
        mul_19: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_18, arg26_1);  mul_18 = arg26_1 = None

        # File: /work/main/examples/llama.py:79 in forward, code: q = self.wq(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        permute_22: "bf16[512, 512]" = torch.ops.aten.permute.default(arg27_1, [1, 0]);  arg27_1 = None
        view_36: "bf16[1, 512]" = torch.ops.aten.view.default(mul_19, [1, 512])
        mm_14: "bf16[1, 512]" = torch.ops.aten.mm.default(view_36, permute_22);  view_36 = permute_22 = None
        view_37: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_14, [1, 1, 512]);  mm_14 = None
        view_38: "bf16[1, 1, 8, 64]" = torch.ops.aten.view.default(view_37, [1, 1, 8, 64]);  view_37 = None
        permute_23: "bf16[1, 8, 1, 64]" = torch.ops.aten.permute.default(view_38, [0, 2, 1, 3]);  view_38 = None

        # File: /work/main/examples/llama.py:80 in forward, code: k = self.wk(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_24: "bf16[512, 128]" = torch.ops.aten.permute.default(arg28_1, [1, 0]);  arg28_1 = None
        view_39: "bf16[1, 512]" = torch.ops.aten.view.default(mul_19, [1, 512])
        mm_15: "bf16[1, 128]" = torch.ops.aten.mm.default(view_39, permute_24);  view_39 = permute_24 = None
        view_40: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_15, [1, 1, 128]);  mm_15 = None
        view_41: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_40, [1, 1, 2, 64]);  view_40 = None
        permute_25: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_41, [0, 2, 1, 3]);  view_41 = None

        # File: /work/main/examples/llama.py:81 in forward, code: v = self.wv(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_26: "bf16[512, 128]" = torch.ops.aten.permute.default(arg29_1, [1, 0]);  arg29_1 = None
        view_42: "bf16[1, 512]" = torch.ops.aten.view.default(mul_19, [1, 512]);  mul_19 = None
        mm_16: "bf16[1, 128]" = torch.ops.aten.mm.default(view_42, permute_26);  view_42 = permute_26 = None
        view_43: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_16, [1, 1, 128]);  mm_16 = None
        view_44: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_43, [1, 1, 2, 64]);  view_43 = None
        permute_27: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_44, [0, 2, 1, 3]);  view_44 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_20: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(permute_23, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_4 = torch.ops.aten.split.Tensor(permute_23, 32, -1);  permute_23 = None
        getitem_26: "bf16[1, 8, 1, 32]" = split_4[0]
        getitem_27: "bf16[1, 8, 1, 32]" = split_4[1];  split_4 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_6: "bf16[1, 8, 1, 32]" = torch.ops.aten.neg.default(getitem_27);  getitem_27 = None
        cat_4: "bf16[1, 8, 1, 64]" = torch.ops.aten.cat.default([neg_6, getitem_26], -1);  neg_6 = getitem_26 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_21: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(cat_4, slice_2);  cat_4 = None
        add_15: "bf16[1, 8, 1, 64]" = torch.ops.aten.add.Tensor(mul_20, mul_21);  mul_20 = mul_21 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_22: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(permute_25, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_5 = torch.ops.aten.split.Tensor(permute_25, 32, -1);  permute_25 = None
        getitem_28: "bf16[1, 2, 1, 32]" = split_5[0]
        getitem_29: "bf16[1, 2, 1, 32]" = split_5[1];  split_5 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_7: "bf16[1, 2, 1, 32]" = torch.ops.aten.neg.default(getitem_29);  getitem_29 = None
        cat_5: "bf16[1, 2, 1, 64]" = torch.ops.aten.cat.default([neg_7, getitem_28], -1);  neg_7 = getitem_28 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_23: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(cat_5, slice_2);  cat_5 = None
        add_16: "bf16[1, 2, 1, 64]" = torch.ops.aten.add.Tensor(mul_22, mul_23);  mul_22 = mul_23 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        slice_19: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg30_1, 2, 512, 513)
        copy_4: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_19, add_16);  slice_19 = add_16 = None
        slice_scatter_4: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg30_1, copy_4, 2, 512, 513);  copy_4 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        slice_21: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg31_1, 2, 512, 513)
        copy_5: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_21, permute_27);  slice_21 = permute_27 = None
        slice_scatter_5: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg31_1, copy_5, 2, 512, 513);  copy_5 = None

        # File: /work/main/examples/llama.py:87 in forward, code: keys, values = self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]
        slice_25: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_4, 2, 0, 513)
        slice_26: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_5, 2, 0, 513)

        # File: /work/main/examples/llama.py:89 in forward, code: y = F.scaled_dot_product_attention(q, keys, values, is_causal=bool(s > 1),
        _scaled_dot_product_cudnn_attention_2 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(add_15, slice_25, slice_26, None, False);  add_15 = slice_25 = slice_26 = None
        getitem_30: "bf16[1, 8, 1, 64]" = _scaled_dot_product_cudnn_attention_2[0];  _scaled_dot_product_cudnn_attention_2 = None

        # File: /work/main/examples/llama.py:91 in forward, code: return self.wo(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
        permute_28: "bf16[1, 1, 8, 64]" = torch.ops.aten.permute.default(getitem_30, [0, 2, 1, 3]);  getitem_30 = None
        view_45: "bf16[1, 1, 512]" = torch.ops.aten.view.default(permute_28, [1, 1, 512]);  permute_28 = None
        permute_29: "bf16[512, 512]" = torch.ops.aten.permute.default(arg32_1, [1, 0]);  arg32_1 = None
        view_46: "bf16[1, 512]" = torch.ops.aten.view.default(view_45, [1, 512]);  view_45 = None
        mm_17: "bf16[1, 512]" = torch.ops.aten.mm.default(view_46, permute_29);  view_46 = permute_29 = None
        view_47: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_17, [1, 1, 512]);  mm_17 = None

        # File: /work/main/examples/llama.py:114 in forward, code: x = x + self.attention(self.attention_norm(x), cos, sin, start)
        add_17: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_13, view_47);  add_13 = view_47 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_6: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_17, 2)
        mean_5: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_6, [-1], True);  pow_6 = None
        add_18: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_5, 1e-05);  mean_5 = None
        rsqrt_5: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_18);  add_18 = None
        mul_24: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_17, rsqrt_5);  rsqrt_5 = None
        mul_25: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_24, arg33_1);  mul_24 = arg33_1 = None

        # File: /work/main/examples/llama.py:102 in forward, code: return self.w2(F.silu(self.w1(x)) * self.w3(x))
        permute_30: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg34_1, [1, 0]);  arg34_1 = None
        view_48: "bf16[1, 512]" = torch.ops.aten.view.default(mul_25, [1, 512])
        mm_18: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_48, permute_30);  view_48 = permute_30 = None
        view_49: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_18, [1, 1, 1408]);  mm_18 = None
        convert_element_type_42: "f32[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(view_49, torch.float32);  view_49 = None
        neg_8: "f32[1, 1, 1408]" = torch.ops.aten.neg.default(convert_element_type_42)
        exp_2: "f32[1, 1, 1408]" = torch.ops.aten.exp.default(neg_8);  neg_8 = None
        add_19: "f32[1, 1, 1408]" = torch.ops.aten.add.Tensor(exp_2, 1);  exp_2 = None
        div_2: "f32[1, 1, 1408]" = torch.ops.aten.div.Tensor(convert_element_type_42, add_19);  convert_element_type_42 = add_19 = None
        convert_element_type_43: "bf16[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(div_2, torch.bfloat16);  div_2 = None
        permute_31: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg35_1, [1, 0]);  arg35_1 = None
        view_50: "bf16[1, 512]" = torch.ops.aten.view.default(mul_25, [1, 512]);  mul_25 = None
        mm_19: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_50, permute_31);  view_50 = permute_31 = None
        view_51: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_19, [1, 1, 1408]);  mm_19 = None
        mul_26: "bf16[1, 1, 1408]" = torch.ops.aten.mul.Tensor(convert_element_type_43, view_51);  convert_element_type_43 = view_51 = None
        permute_32: "bf16[1408, 512]" = torch.ops.aten.permute.default(arg36_1, [1, 0]);  arg36_1 = None
        view_52: "bf16[1, 1408]" = torch.ops.aten.view.default(mul_26, [1, 1408]);  mul_26 = None
        mm_20: "bf16[1, 512]" = torch.ops.aten.mm.default(view_52, permute_32);  view_52 = permute_32 = None
        view_53: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_20, [1, 1, 512]);  mm_20 = None

        # File: /work/main/examples/llama.py:115 in forward, code: return x + self.feed_forward(self.ffn_norm(x))
        add_20: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_17, view_53);  add_17 = view_53 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_7: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_20, 2)
        mean_6: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_7, [-1], True);  pow_7 = None
        add_21: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_6, 1e-05);  mean_6 = None
        rsqrt_6: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_21);  add_21 = None
        mul_27: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_20, rsqrt_6);  rsqrt_6 = None
        mul_28: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_27, arg37_1);  mul_27 = arg37_1 = None

        # File: /work/main/examples/llama.py:79 in forward, code: q = self.wq(x).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        permute_33: "bf16[512, 512]" = torch.ops.aten.permute.default(arg38_1, [1, 0]);  arg38_1 = None
        view_54: "bf16[1, 512]" = torch.ops.aten.view.default(mul_28, [1, 512])
        mm_21: "bf16[1, 512]" = torch.ops.aten.mm.default(view_54, permute_33);  view_54 = permute_33 = None
        view_55: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_21, [1, 1, 512]);  mm_21 = None
        view_56: "bf16[1, 1, 8, 64]" = torch.ops.aten.view.default(view_55, [1, 1, 8, 64]);  view_55 = None
        permute_34: "bf16[1, 8, 1, 64]" = torch.ops.aten.permute.default(view_56, [0, 2, 1, 3]);  view_56 = None

        # File: /work/main/examples/llama.py:80 in forward, code: k = self.wk(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_35: "bf16[512, 128]" = torch.ops.aten.permute.default(arg39_1, [1, 0]);  arg39_1 = None
        view_57: "bf16[1, 512]" = torch.ops.aten.view.default(mul_28, [1, 512])
        mm_22: "bf16[1, 128]" = torch.ops.aten.mm.default(view_57, permute_35);  view_57 = permute_35 = None
        view_58: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_22, [1, 1, 128]);  mm_22 = None
        view_59: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_58, [1, 1, 2, 64]);  view_58 = None
        permute_36: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_59, [0, 2, 1, 3]);  view_59 = None

        # File: /work/main/examples/llama.py:81 in forward, code: v = self.wv(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        permute_37: "bf16[512, 128]" = torch.ops.aten.permute.default(arg40_1, [1, 0]);  arg40_1 = None
        view_60: "bf16[1, 512]" = torch.ops.aten.view.default(mul_28, [1, 512]);  mul_28 = None
        mm_23: "bf16[1, 128]" = torch.ops.aten.mm.default(view_60, permute_37);  view_60 = permute_37 = None
        view_61: "bf16[1, 1, 128]" = torch.ops.aten.view.default(mm_23, [1, 1, 128]);  mm_23 = None
        view_62: "bf16[1, 1, 2, 64]" = torch.ops.aten.view.default(view_61, [1, 1, 2, 64]);  view_61 = None
        permute_38: "bf16[1, 2, 1, 64]" = torch.ops.aten.permute.default(view_62, [0, 2, 1, 3]);  view_62 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_29: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(permute_34, slice_1)

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_6 = torch.ops.aten.split.Tensor(permute_34, 32, -1);  permute_34 = None
        getitem_39: "bf16[1, 8, 1, 32]" = split_6[0]
        getitem_40: "bf16[1, 8, 1, 32]" = split_6[1];  split_6 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_9: "bf16[1, 8, 1, 32]" = torch.ops.aten.neg.default(getitem_40);  getitem_40 = None
        cat_6: "bf16[1, 8, 1, 64]" = torch.ops.aten.cat.default([neg_9, getitem_39], -1);  neg_9 = getitem_39 = None

        # File: /work/main/examples/llama.py:82 in forward, code: q = q * cos + rotate_half(q) * sin
        mul_30: "bf16[1, 8, 1, 64]" = torch.ops.aten.mul.Tensor(cat_6, slice_2);  cat_6 = None
        add_22: "bf16[1, 8, 1, 64]" = torch.ops.aten.add.Tensor(mul_29, mul_30);  mul_29 = mul_30 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_31: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(permute_36, slice_1);  slice_1 = None

        # File: /work/main/examples/llama.py:58 in rotate_half, code: x1, x2 = x.chunk(2, dim=-1)
        split_7 = torch.ops.aten.split.Tensor(permute_36, 32, -1);  permute_36 = None
        getitem_41: "bf16[1, 2, 1, 32]" = split_7[0]
        getitem_42: "bf16[1, 2, 1, 32]" = split_7[1];  split_7 = None

        # File: /work/main/examples/llama.py:59 in rotate_half, code: return torch.cat((-x2, x1), dim=-1)
        neg_10: "bf16[1, 2, 1, 32]" = torch.ops.aten.neg.default(getitem_42);  getitem_42 = None
        cat_7: "bf16[1, 2, 1, 64]" = torch.ops.aten.cat.default([neg_10, getitem_41], -1);  neg_10 = getitem_41 = None

        # File: /work/main/examples/llama.py:83 in forward, code: k = k * cos + rotate_half(k) * sin
        mul_32: "bf16[1, 2, 1, 64]" = torch.ops.aten.mul.Tensor(cat_7, slice_2);  cat_7 = slice_2 = None
        add_23: "bf16[1, 2, 1, 64]" = torch.ops.aten.add.Tensor(mul_31, mul_32);  mul_31 = mul_32 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        slice_27: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg41_1, 2, 512, 513)
        copy_6: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_27, add_23);  slice_27 = add_23 = None
        slice_scatter_6: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg41_1, copy_6, 2, 512, 513);  copy_6 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        slice_29: "bf16[1, 2, 1, 64]" = torch.ops.aten.slice.Tensor(arg42_1, 2, 512, 513)
        copy_7: "bf16[1, 2, 1, 64]" = torch.ops.aten.copy.default(slice_29, permute_38);  slice_29 = permute_38 = None
        slice_scatter_7: "bf16[1, 2, 1024, 64]" = torch.ops.aten.slice_scatter.default(arg42_1, copy_7, 2, 512, 513);  copy_7 = None

        # File: /work/main/examples/llama.py:87 in forward, code: keys, values = self.k_cache[:b, :, :end], self.v_cache[:b, :, :end]
        slice_33: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_6, 2, 0, 513)
        slice_34: "bf16[1, 2, 513, 64]" = torch.ops.aten.slice.Tensor(slice_scatter_7, 2, 0, 513)

        # File: /work/main/examples/llama.py:89 in forward, code: y = F.scaled_dot_product_attention(q, keys, values, is_causal=bool(s > 1),
        _scaled_dot_product_cudnn_attention_3 = torch.ops.aten._scaled_dot_product_cudnn_attention.default(add_22, slice_33, slice_34, None, False);  add_22 = slice_33 = slice_34 = None
        getitem_43: "bf16[1, 8, 1, 64]" = _scaled_dot_product_cudnn_attention_3[0];  _scaled_dot_product_cudnn_attention_3 = None

        # File: /work/main/examples/llama.py:91 in forward, code: return self.wo(y.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))
        permute_39: "bf16[1, 1, 8, 64]" = torch.ops.aten.permute.default(getitem_43, [0, 2, 1, 3]);  getitem_43 = None
        view_63: "bf16[1, 1, 512]" = torch.ops.aten.view.default(permute_39, [1, 1, 512]);  permute_39 = None
        permute_40: "bf16[512, 512]" = torch.ops.aten.permute.default(arg43_1, [1, 0]);  arg43_1 = None
        view_64: "bf16[1, 512]" = torch.ops.aten.view.default(view_63, [1, 512]);  view_63 = None
        mm_24: "bf16[1, 512]" = torch.ops.aten.mm.default(view_64, permute_40);  view_64 = permute_40 = None
        view_65: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_24, [1, 1, 512]);  mm_24 = None

        # File: /work/main/examples/llama.py:114 in forward, code: x = x + self.attention(self.attention_norm(x), cos, sin, start)
        add_24: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_20, view_65);  add_20 = view_65 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_8: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_24, 2)
        mean_7: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_8, [-1], True);  pow_8 = None
        add_25: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_7, 1e-05);  mean_7 = None
        rsqrt_7: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_25);  add_25 = None
        mul_33: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_24, rsqrt_7);  rsqrt_7 = None
        mul_34: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_33, arg44_1);  mul_33 = arg44_1 = None

        # File: /work/main/examples/llama.py:102 in forward, code: return self.w2(F.silu(self.w1(x)) * self.w3(x))
        permute_41: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg45_1, [1, 0]);  arg45_1 = None
        view_66: "bf16[1, 512]" = torch.ops.aten.view.default(mul_34, [1, 512])
        mm_25: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_66, permute_41);  view_66 = permute_41 = None
        view_67: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_25, [1, 1, 1408]);  mm_25 = None
        convert_element_type_58: "f32[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(view_67, torch.float32);  view_67 = None
        neg_11: "f32[1, 1, 1408]" = torch.ops.aten.neg.default(convert_element_type_58)
        exp_3: "f32[1, 1, 1408]" = torch.ops.aten.exp.default(neg_11);  neg_11 = None
        add_26: "f32[1, 1, 1408]" = torch.ops.aten.add.Tensor(exp_3, 1);  exp_3 = None
        div_3: "f32[1, 1, 1408]" = torch.ops.aten.div.Tensor(convert_element_type_58, add_26);  convert_element_type_58 = add_26 = None
        convert_element_type_59: "bf16[1, 1, 1408]" = torch.ops.prims.convert_element_type.default(div_3, torch.bfloat16);  div_3 = None
        permute_42: "bf16[512, 1408]" = torch.ops.aten.permute.default(arg46_1, [1, 0]);  arg46_1 = None
        view_68: "bf16[1, 512]" = torch.ops.aten.view.default(mul_34, [1, 512]);  mul_34 = None
        mm_26: "bf16[1, 1408]" = torch.ops.aten.mm.default(view_68, permute_42);  view_68 = permute_42 = None
        view_69: "bf16[1, 1, 1408]" = torch.ops.aten.view.default(mm_26, [1, 1, 1408]);  mm_26 = None
        mul_35: "bf16[1, 1, 1408]" = torch.ops.aten.mul.Tensor(convert_element_type_59, view_69);  convert_element_type_59 = view_69 = None
        permute_43: "bf16[1408, 512]" = torch.ops.aten.permute.default(arg47_1, [1, 0]);  arg47_1 = None
        view_70: "bf16[1, 1408]" = torch.ops.aten.view.default(mul_35, [1, 1408]);  mul_35 = None
        mm_27: "bf16[1, 512]" = torch.ops.aten.mm.default(view_70, permute_43);  view_70 = permute_43 = None
        view_71: "bf16[1, 1, 512]" = torch.ops.aten.view.default(mm_27, [1, 1, 512]);  mm_27 = None

        # File: /work/main/examples/llama.py:115 in forward, code: return x + self.feed_forward(self.ffn_norm(x))
        add_27: "bf16[1, 1, 512]" = torch.ops.aten.add.Tensor(add_24, view_71);  add_24 = view_71 = None

        # File: /work/main/examples/llama.py:54 in forward, code: return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight
        pow_9: "bf16[1, 1, 512]" = torch.ops.aten.pow.Tensor_Scalar(add_27, 2)
        mean_8: "bf16[1, 1, 1]" = torch.ops.aten.mean.dim(pow_9, [-1], True);  pow_9 = None
        add_28: "bf16[1, 1, 1]" = torch.ops.aten.add.Tensor(mean_8, 1e-05);  mean_8 = None
        rsqrt_8: "bf16[1, 1, 1]" = torch.ops.aten.rsqrt.default(add_28);  add_28 = None
        mul_36: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(add_27, rsqrt_8);  add_27 = rsqrt_8 = None
        mul_37: "bf16[1, 1, 512]" = torch.ops.aten.mul.Tensor(mul_36, arg48_1);  mul_36 = arg48_1 = None

        # File: /work/main/examples/llama.py:146 in forward, code: return self.output(self.norm(x))
        permute_44: "bf16[512, 32000]" = torch.ops.aten.permute.default(arg49_1, [1, 0]);  arg49_1 = None
        view_72: "bf16[1, 512]" = torch.ops.aten.view.default(mul_37, [1, 512]);  mul_37 = None
        mm_28: "bf16[1, 32000]" = torch.ops.aten.mm.default(view_72, permute_44);  view_72 = permute_44 = None
        view_73: "bf16[1, 1, 32000]" = torch.ops.aten.view.default(mm_28, [1, 1, 32000]);  mm_28 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        copy_: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg8_1, slice_scatter);  arg8_1 = slice_scatter = copy_ = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        copy__1: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg9_1, slice_scatter_1);  arg9_1 = slice_scatter_1 = copy__1 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        copy__2: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg19_1, slice_scatter_2);  arg19_1 = slice_scatter_2 = copy__2 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        copy__3: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg20_1, slice_scatter_3);  arg20_1 = slice_scatter_3 = copy__3 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        copy__4: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg30_1, slice_scatter_4);  arg30_1 = slice_scatter_4 = copy__4 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        copy__5: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg31_1, slice_scatter_5);  arg31_1 = slice_scatter_5 = copy__5 = None

        # File: /work/main/examples/llama.py:85 in forward, code: self.k_cache[:b, :, start:end] = k
        copy__6: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg41_1, slice_scatter_6);  arg41_1 = slice_scatter_6 = copy__6 = None

        # File: /work/main/examples/llama.py:86 in forward, code: self.v_cache[:b, :, start:end] = v
        copy__7: "bf16[1, 2, 1024, 64]" = torch.ops.aten.copy_.default(arg42_1, slice_scatter_7);  arg42_1 = slice_scatter_7 = copy__7 = None
        return (view_73,)
