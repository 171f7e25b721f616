class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "bf16[64, 1, 28, 28]", arg1_1: "bf16[512, 784]", arg2_1: "bf16[512]", arg3_1: "bf16[512, 512]", arg4_1: "bf16[512]", arg5_1: "bf16[10, 512]", arg6_1: "bf16[10]"):
        # No stacktrace found for following nodes
        view: "bf16[64, 784]" = torch.ops.aten.view.default(arg0_1, [64, 784]);  arg0_1 = None
        permute: "bf16[784, 512]" = torch.ops.aten.permute.default(arg1_1, [1, 0]);  arg1_1 = None
        addmm: "bf16[64, 512]" = torch.ops.aten.addmm.default(arg2_1, view, permute);  arg2_1 = view = permute = None
        relu: "bf16[64, 512]" = torch.ops.aten.relu.default(addmm);  addmm = None
        permute_1: "bf16[512, 512]" = torch.ops.aten.permute.default(arg3_1, [1, 0]);  arg3_1 = None
        addmm_1: "bf16[64, 512]" = torch.ops.aten.addmm.default(arg4_1, relu, permute_1);  arg4_1 = relu = permute_1 = None
        relu_1: "bf16[64, 512]" = torch.ops.aten.relu.default(addmm_1);  addmm_1 = None
        permute_2: "bf16[512, 10]" = torch.ops.aten.permute.default(arg5_1, [1, 0]);  arg5_1 = None
        addmm_2: "bf16[64, 10]" = torch.ops.aten.addmm.default(arg6_1, relu_1, permute_2);  arg6_1 = relu_1 = permute_2 = None
        return (addmm_2,)
