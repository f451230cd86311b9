# RUN: %PYTHON %s | filecheck %s
# Static-shape host ops on the CPU: an XLA FFI custom call inside the device module.
import os

import hlograph as hg
from hlograph.frontend.ops import dynamic as dyn
from hlograph.testing import print_ir


def explain(case, graph):
    print(f"TEST: {case}")
    print(hg.compile(graph).explain())


# CHECK-LABEL: TEST: mask_assign_between_device_ops float32[4,3]
# CHECK: func.func public @main(%[[X:.+]]: tensor<4x3xf32>) -> tensor<4x3xf32>
# CHECK: %[[Y:.+]] = stablehlo.exponential %[[X]]
# CHECK: %[[M:.+]] = stablehlo.compare GT, %[[Y]]
# CHECK: %[[R:.+]] = stablehlo.custom_call @hlograph_host_maskassign_{{[0-9a-f]+}}(%[[Y]], %[[M]], %[[V:[^)]+]])
# CHECK-SAME: api_version = 4 : i32
# CHECK-SAME: backend_config = {}
# CHECK-SAME: operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>]
# CHECK-SAME: result_layouts = [dense<[1, 0]> : tensor<2xindex>]
# CHECK-SAME: (tensor<4x3xf32>, tensor<4x3xi1>, tensor<f32>) -> tensor<4x3xf32>
# CHECK: stablehlo.multiply %[[R]]
x = hg.tensor("x", (4, 3), "float32")
y = hg.exp(x)
print_ir("mask_assign_between_device_ops", hg.Graph([x], dyn.mask_assign(y, y > 2.0, 0.0) * 2))

# CHECK-LABEL: TEST: isin_result_is_bool int64[3,4]
# CHECK: stablehlo.custom_call @hlograph_host_isin_{{[0-9a-f]+}}
# CHECK-SAME: (tensor<3x4xi64>, tensor<5xi64>) -> tensor<3x4xi1>
# CHECK: stablehlo.select
a = hg.tensor("a", (3, 4), "int64")
b = hg.tensor("b", (5,), "int64")
print_ir("isin_result_is_bool", hg.Graph([a, b], hg.where(dyn.isin(a, b), a, 0)))

# CHECK-LABEL: TEST: explain_in_module
# CHECK-NEXT: 1 segment
# CHECK-NEXT: segment 0: device (StableHLO, PJRT; 1 in-module host call (XLA FFI, Numba)); reads x
# CHECK: MaskAssign: no StableHLO lowering (values are consumed in mask order); host (in-module FFI call, Numba)
explain("explain_in_module", hg.Graph([x], dyn.mask_assign(y, y > 2.0, 0.0) * 2))

# CHECK-LABEL: TEST: value_dependent_op_keeps_its_segment
# CHECK-NEXT: 3 segments
# CHECK: segment 1: host (Numba, one compiled function)
# CHECK-NEXT: BooleanMask: output shape depends on values (Numba)
explain("value_dependent_op_keeps_its_segment", hg.Graph([x], hg.sum(dyn.boolean_mask(y, y > 2.0))))

# CHECK-LABEL: TEST: switched_off float32[4,3]
# CHECK: // 3 segments
# CHECK: // segment 1: host (Numba, one compiled function)
# CHECK: // MaskAssign: no StableHLO lowering (values are consumed in mask order) (Numba)
# CHECK-NOT: stablehlo.custom_call
os.environ["HLOGRAPH_HOST_FFI"] = "0"
print_ir("switched_off", hg.Graph([x], dyn.mask_assign(y, y > 2.0, 0.0) * 2))
