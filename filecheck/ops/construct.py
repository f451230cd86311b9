# RUN: %PYTHON %s | filecheck %s
import numpy as np

import hlograph as hg
import hlograph.lowering.rules.construct  # noqa: F401
from hlograph.frontend.ops import construct as cs
from hlograph.testing import print_ir

# CHECK-LABEL: TEST: pad_constant float32[2,3]
# CHECK: %[[V:.+]] = stablehlo.constant dense<1.500000e+00> : tensor<f32>
# CHECK: stablehlo.pad %arg0, %[[V]], low = [1, 0], high = [0, 2], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
x = hg.tensor("x", (2, 3), "float32")
print_ir("pad_constant", hg.Graph([x], cs.pad(x, ((1, 0), (0, 2)), constant_values=1.5)))

# A graph value as the padding value.
# CHECK-LABEL: TEST: pad_graph_value int8[4]
# CHECK: stablehlo.pad %arg0, %arg1, low = [2], high = [2], interior = [0] : (tensor<4xi8>, tensor<i8>) -> tensor<8xi8>
x = hg.tensor("x", (4,), "int8")
c = hg.scalar("c", "int8")
print_ir("pad_graph_value", hg.Graph([x, c], cs.pad(x, 2, constant_values=c)))

# Per-axis, per-side values: one pad per axis-side, in axis order (the last axis covers the corners).
# CHECK-LABEL: TEST: pad_per_axis_values float32[2,3]
# CHECK: %[[A:.+]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
# CHECK: %[[P0:.+]] = stablehlo.pad %arg0, %[[A]], low = [1, 0], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>
# CHECK: %[[B:.+]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
# CHECK: %[[P1:.+]] = stablehlo.pad %[[P0]], %[[B]], low = [0, 0], high = [2, 0], interior = [0, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<5x3xf32>
# CHECK: %[[C:.+]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
# CHECK: stablehlo.pad %[[P1]], %[[C]], low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<5x5xf32>
x = hg.tensor("x", (2, 3), "float32")
print_ir("pad_per_axis_values", hg.Graph([x], cs.pad(x, ((1, 2), (1, 1)), constant_values=((1, 2), (3, 3)))))

# Statistics modes: the statistic of the edge slice, broadcast and concatenated.
# CHECK-LABEL: TEST: pad_maximum float32[3,4]
# CHECK: %[[S:.+]] = stablehlo.slice %arg0 [0:3, 0:2] : (tensor<3x4xf32>) -> tensor<3x2xf32>
# CHECK: stablehlo.reduce(%[[S]] init:
# CHECK: stablehlo.maximum
# CHECK: stablehlo.slice %arg0 [0:3, 2:4] : (tensor<3x4xf32>) -> tensor<3x2xf32>
# CHECK: %[[B:.+]] = stablehlo.broadcast_in_dim %{{.+}}, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x2xf32>
# CHECK: stablehlo.concatenate %{{.+}}, %arg0, %[[B]], dim = 1 : {{.+}} -> tensor<3x7xf32>
x = hg.tensor("x", (3, 4), "float32")
print_ir("pad_maximum", hg.Graph([x], cs.pad(x, ((0, 0), (1, 2)), "maximum", stat_length=2)))

# Other modes gather the elements NumPy picks.
# CHECK-LABEL: TEST: pad_reflect float32[4]
# CHECK: %[[I:.+]] = stablehlo.constant dense<{{\[\[}}2], [1], [0], [1], [2], [3], [2]]> : tensor<7x1xi64>
# CHECK: "stablehlo.gather"(%arg0, %[[I]])
# CHECK-SAME: -> tensor<7xf32>
x = hg.tensor("x", (4,), "float32")
print_ir("pad_reflect", hg.Graph([x], cs.pad(x, (2, 1), "reflect")))

# Shapes are static once lowered: shape_of is a constant, specify_shape no op at all.
# CHECK-LABEL: TEST: shape_of float32[?,3]
# CHECK: %[[S:.+]] = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
# CHECK: return %[[S]], %arg0 : tensor<2xi64>, tensor<4x3xf32>
x = hg.tensor("x", (None, 3), "float32")
print_ir("shape_of", hg.Graph([x], [cs.shape_of(x), cs.specify_shape(x, (4, 3))]),
         np.zeros((4, 3), np.float32))
