# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import assertion as asn
import hlograph.lowering.rules.assertion  # noqa: F401
from hlograph.testing import print_ir

# CHECK-LABEL: TEST: check_and_raise float32[3]
# CHECK: segment 0: device
# CHECK: segment 1: host {{.*}} reads All:0[bool[]]; produces Check:0[bool[]]
# CHECK-NEXT: Check: raises a Python exception (Numba)
# CHECK: segment 2: device
# CHECK-NEXT: AfterCheck: StableHLO lowering
# CHECK: stablehlo.compare GT, {{.*}} -> tensor<3xi1>
# CHECK: stablehlo.reduce
# CHECK: ----- segment 2
# CHECK: stablehlo.exponential {{.*}} tensor<3xf32>
x = hg.tensor("x", (3,), "float32")
print_ir("check_and_raise", hg.Graph([x], hg.exp(asn.check_and_raise(x, hg.all(x > 0), "x > 0"))))
