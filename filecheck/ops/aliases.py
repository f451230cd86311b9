# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def case(name, fn, dtype="float32", shape=(4, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# CHECK-LABEL: TEST: acos float32[4,3]
# CHECK: chlo.acos %arg0 : tensor<4x3xf32> -> tensor<4x3xf32>
case("acos", hg.acos)

# CHECK-LABEL: TEST: bitwise_left_shift int32[4,3]
# CHECK: stablehlo.shift_left
case("bitwise_left_shift", lambda x: hg.bitwise_left_shift(x, 2), "int32")

# Horner's rule: multiply then add per coefficient
# CHECK-LABEL: TEST: polyval float64[4,3]
# CHECK: stablehlo.multiply
# CHECK: stablehlo.add
# CHECK: stablehlo.multiply
# CHECK: stablehlo.add
case("polyval", lambda x: hg.polyval([2.0, -1.0, 0.5], x), "float64")

# one stable sort per key
# CHECK-LABEL: TEST: lexsort int32[4,3]
# CHECK: stablehlo.sort
# CHECK-SAME: is_stable = true
# CHECK: stablehlo.sort
# CHECK-SAME: is_stable = true
case("lexsort", lambda x: hg.lexsort([x, x * 2]), "int32")
