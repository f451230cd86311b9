# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.numpy import sorting as m
from hlograph.testing import print_ir


def case(name, fn, dtype="float32", shape=(4, 3)):
    x = hg.tensor("x", shape, dtype)
    print_ir(name, hg.Graph([x], fn(x)))


# one stable sort per key
# CHECK-LABEL: TEST: lexsort int32[4,3]
# CHECK: stablehlo.sort
# CHECK-SAME: is_stable = true
# CHECK: stablehlo.sort
# CHECK-SAME: is_stable = true
case("lexsort", lambda x: m.lexsort([x, x * 2]), "int32")
