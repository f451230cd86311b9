# REQUIRES: pytensor
# RUN: %PYTHON -P %s | filecheck %s
# (-P: this file's folder is not put on sys.path, where this file would shadow pytensor)
# PyTensor's random variables, Scan and ScalarLoop converted to hlograph
# (hlograph.interop.pytensor.from_pytensor), lowered for static input types.
import warnings

import pytensor
import pytensor.scalar as ps
import pytensor.tensor as pt
from pytensor.scalar.loop import ScalarLoop
from pytensor.tensor.elemwise import Elemwise
from pytensor.tensor.random.type import random_generator_type

import hlograph as hg
import hlograph.interop.pytensor as hgpt
from hlograph.testing import print_ir

warnings.simplefilter("ignore", DeprecationWarning)


def case(name, inputs, outputs, types):
    print_ir(name, hgpt.from_pytensor(inputs, outputs, input_types=types))


# a random generator is a uint32[2] key: split in two, the first is the next generator,
# the second seeds the draws (Threefry bits to floats, loc + scale * z)
# CHECK-LABEL: TEST: normal_rv uint32[2]
# CHECK: func.func public @main(%arg0: tensor<2xui32>) -> (tensor<2xui32>, tensor<3xf64>)
# CHECK: stablehlo.rng_bit_generator %{{.+}}, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
# CHECK: %[[NEXT:.+]] = stablehlo.reshape %{{.+}} : (tensor<1x2xui32>) -> tensor<2xui32>
# CHECK: stablehlo.rng_bit_generator %{{.+}}, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui64>)
# CHECK: chlo.erf_inv
# CHECK: %[[X:.+]] = stablehlo.add %{{.+}}, %{{.+}} : tensor<3xf64>
# CHECK: return %[[NEXT]], %[[X]] : tensor<2xui32>, tensor<3xf64>
rng = random_generator_type("rng")
nxt, x = pt.random.normal(1.0, 2.0, size=(3,), rng=rng).owner.outputs
case("normal_rv", [rng], [nxt, x], [hg.TensorType("uint32", (2,))])

# a cumulative sum by Scan: a stablehlo.while carrying the counter, the state, the
# stacked outputs and the sequence; the trace gets the initial value in front, as
# PyTensor's buffer holds it
# CHECK-LABEL: TEST: scan_cumsum float64[4]
# CHECK: stablehlo.while(%iterArg = %{{.+}}, %iterArg_{{[0-9]+}} = %{{.+}}, %iterArg_{{[0-9]+}} = %{{.+}}, %iterArg_{{[0-9]+}} = %arg0) : tensor<i64>, tensor<f64>, tensor<4xf64>, tensor<4xf64>
# CHECK: stablehlo.compare LT, %iterArg, %{{.+}}, SIGNED
# CHECK: stablehlo.dynamic_slice %iterArg_{{[0-9]+}}, %iterArg, sizes = [1]
# CHECK: stablehlo.add
# CHECK: stablehlo.dynamic_update_slice
# CHECK: stablehlo.concatenate %{{.+}}, %{{.+}}#2, dim = 0 : (tensor<1xf64>, tensor<4xf64>) -> tensor<5xf64>
v = pt.dvector("v")
ys = pytensor.scan(lambda xt, acc: acc + xt, sequences=[v], outputs_info=[pt.zeros(())], return_updates=False)
case("scan_cumsum", [v], ys, [hg.TensorType("float64", (4,))])

# an elementwise ScalarLoop: a while loop over a counter per element, running while any
# element has steps left; finished elements keep their values (select)
# CHECK-LABEL: TEST: scalar_loop int64[3]
# CHECK: stablehlo.while
# CHECK: stablehlo.compare LT, %iterArg, %{{.+}}, SIGNED : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
# CHECK: stablehlo.reduce
# CHECK: } do {
# CHECK: stablehlo.multiply %{{.+}}, %{{.+}} : tensor<3xf64>
# CHECK: stablehlo.select %{{.+}}, %{{.+}}, %{{.+}} : tensor<3xi1>, tensor<3xf64>
x0, c = ps.float64("x0"), ps.float64("c")
loop = ScalarLoop(init=[x0], update=[x0 * c + 1.0], constant=[c])
n, xs, cs = pt.lvector("n"), pt.dvector("xs"), pt.dscalar("cs")
case("scalar_loop", [n, xs, cs], Elemwise(loop)(n, xs, cs),
     [hg.TensorType("int64", (3,)), hg.TensorType("float64", (3,)), hg.TensorType("float64", ())])
