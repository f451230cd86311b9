# REQUIRES: pytensor
# RUN: %PYTHON -P %s | filecheck %s
# (-P: this file's folder is not put on sys.path, where this file would shadow pytensor)
# PyTensor graphs converted to hlograph (hlograph.interop.pytensor.from_pytensor),
# lowered for static input types: PyTensor's dtypes and its shape arithmetic folded.
import pytensor.tensor as pt

import hlograph as hg
import hlograph.interop.pytensor as hgpt
from hlograph.testing import print_ir


def case(name, inputs, outputs, shapes):
    types = [hg.TensorType(v.type.dtype, s) for v, s in zip(inputs, shapes)]
    print_ir(name, hgpt.from_pytensor(inputs, outputs, input_types=types))


# PyTensor computes exp of int8 in float32 (NumPy would pick float16)
# CHECK-LABEL: TEST: exp_of_int8_computes_in_float32 int8[3]
# CHECK: %[[C:.+]] = stablehlo.convert %arg0 : (tensor<3xi8>) -> tensor<3xf32>
# CHECK-NEXT: %[[E:.+]] = stablehlo.exponential %[[C]] : tensor<3xf32>
# CHECK-NEXT: return %[[E]] : tensor<3xf32>
x = pt.vector("x", dtype="int8")
case("exp_of_int8_computes_in_float32", [x], pt.exp(x), [(3,)])

# x // 3 floors (the quotient is corrected where the remainder's sign differs from the divisor's)
# CHECK-LABEL: TEST: floor_division int32[4]
# CHECK: func.func public @main(%arg0: tensor<4xi32>) -> tensor<4xi32>
# CHECK: %[[Q:.+]] = stablehlo.divide %arg0, %{{.+}} : tensor<4xi32>
# CHECK: %[[R:.+]] = stablehlo.remainder %arg0, %{{.+}} : tensor<4xi32>
# CHECK: stablehlo.xor
# CHECK: %[[Q1:.+]] = stablehlo.subtract %[[Q]], %{{.+}} : tensor<4xi32>
# CHECK: stablehlo.select %{{.+}}, %[[Q1]], %[[Q]]
i = pt.vector("i", dtype="int32")
case("floor_division", [i], i // 3, [(4,)])

# m.mean(axis=0) divides by m.shape[0] (a constant once the shape is known), summing in
# PyTensor's float64 accumulator; m.reshape((m.shape[0] * m.shape[1],)) is a static reshape
# CHECK-LABEL: TEST: shapes_fold_to_constants float32[4,3]
# CHECK: %[[W:.+]] = stablehlo.convert %arg0 : (tensor<4x3xf32>) -> tensor<4x3xf64>
# CHECK: stablehlo.reduce(%[[W]] init: %{{.+}}) applies stablehlo.add across dimensions = [0] : (tensor<4x3xf64>, tensor<f64>) -> tensor<3xf64>
# CHECK: stablehlo.constant dense<4.000000e+00> : tensor<1xf32>
# CHECK: stablehlo.divide %{{.+}}, %{{.+}} : tensor<3xf32>
# CHECK: stablehlo.reshape %arg0 : (tensor<4x3xf32>) -> tensor<12xf32>
m = pt.matrix("m", dtype="float32")
case("shapes_fold_to_constants", [m], [m.mean(axis=0), m.reshape((m.shape[0] * m.shape[1],))], [(4, 3)])

# DimShuffle is a transpose and a new axis; Softmax is hlograph's softmax
# CHECK-LABEL: TEST: dimshuffle_and_softmax float32[4,3]
# CHECK: %[[T:.+]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
# CHECK: %[[R:.+]] = stablehlo.reshape %[[T]] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
# CHECK: stablehlo.reduce(%[[R]] init: %{{.+}}) applies stablehlo.maximum across dimensions = [2]
# CHECK: stablehlo.exponential
# CHECK: stablehlo.reduce(%{{.+}} init: %{{.+}}) applies stablehlo.add across dimensions = [2]
# CHECK: stablehlo.divide %{{.+}}, %{{.+}} : tensor<1x3x4xf32>
case("dimshuffle_and_softmax", [m], pt.special.softmax(m.T[None], axis=-1), [(4, 3)])
