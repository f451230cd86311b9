# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.testing import print_ir


def if_else_one_output():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (3,), "float32")
    print_ir("ifelse_one_output", hg.Graph([c, x], hg.ifelse(c, lambda: hg.exp(x), x)))


# CHECK-LABEL: TEST: ifelse_one_output bool[]
# CHECK: "stablehlo.if"(%arg0) ({
# CHECK: %[[E:.+]] = stablehlo.exponential %arg1 : tensor<3xf32>
# CHECK: stablehlo.return %[[E]] : tensor<3xf32>
# CHECK: }, {
# CHECK: stablehlo.return %arg1 : tensor<3xf32>
# CHECK: }) : (tensor<i1>) -> tensor<3xf32>
if_else_one_output()


def if_else_two_outputs():
    c, x = hg.scalar("c", "bool"), hg.tensor("x", (2,), "int32")
    y = hg.tensor("y", (2,), "float64")
    print_ir("ifelse_two_outputs", hg.Graph([c, x, y], hg.ifelse(c, [x, y], [-x, hg.sin(y)])))


# CHECK-LABEL: TEST: ifelse_two_outputs bool[]
# CHECK: "stablehlo.if"(%arg0) ({
# CHECK: stablehlo.return %arg1, %arg2 : tensor<2xi32>, tensor<2xf64>
# CHECK: }, {
# CHECK: %[[N:.+]] = stablehlo.negate %arg1
# CHECK: %[[S:.+]] = stablehlo.sine %arg2
# CHECK: stablehlo.return %[[N]], %[[S]] : tensor<2xi32>, tensor<2xf64>
# CHECK: }) : (tensor<i1>) -> (tensor<2xi32>, tensor<2xf64>)
if_else_two_outputs()


def if_else_numeric_condition_shared_value():
    k, x = hg.scalar("k", "int32"), hg.tensor("x", (3,), "float32")
    e = hg.exp(x)
    print_ir("ifelse_numeric_condition_shared_value", hg.Graph([k, x], hg.ifelse(k, e + 1, e)))


# CHECK-LABEL: TEST: ifelse_numeric_condition_shared_value int32[]
# CHECK: %[[P:.+]] = stablehlo.compare NE, %arg0, {{.*}} -> tensor<i1>
# CHECK: %[[E:.+]] = stablehlo.exponential %arg1
# CHECK: "stablehlo.if"(%[[P]]) ({
# CHECK: stablehlo.add %[[E]],
# CHECK: }, {
# CHECK: stablehlo.return %[[E]] : tensor<3xf32>
if_else_numeric_condition_shared_value()


def if_else_nested():
    a, b = hg.scalar("a", "bool"), hg.scalar("b", "bool")
    x = hg.tensor("x", (3,), "float32")
    out = hg.ifelse(a, lambda: hg.ifelse(b, lambda: hg.exp(x), x), lambda: -x)
    print_ir("ifelse_nested", hg.Graph([a, b, x], out))


# CHECK-LABEL: TEST: ifelse_nested bool[]
# CHECK: %[[R:.+]] = "stablehlo.if"(%arg0) ({
# CHECK: %[[IN:.+]] = "stablehlo.if"(%arg1) ({
# CHECK: stablehlo.exponential %arg2
# CHECK: }) : (tensor<i1>) -> tensor<3xf32>
# CHECK: stablehlo.return %[[IN]] : tensor<3xf32>
# CHECK: }, {
# CHECK: stablehlo.negate %arg2
# CHECK: }) : (tensor<i1>) -> tensor<3xf32>
# CHECK: return %[[R]]
if_else_nested()


def switch_three():
    i, x = hg.scalar("i", "int64"), hg.tensor("x", (2, 2), "float32")
    out = hg.switch(i, [x, lambda: hg.exp(x), lambda: x * x])
    print_ir("switch_three", hg.Graph([i, x], out))


# CHECK-LABEL: TEST: switch_three int64[]
# CHECK: %[[C:.+]] = stablehlo.clamp %{{.+}}, %arg0, %{{.+}} : tensor<i64>
# CHECK: %[[I:.+]] = stablehlo.convert %[[C]] : (tensor<i64>) -> tensor<i32>
# CHECK: "stablehlo.case"(%[[I]]) ({
# CHECK: stablehlo.return %arg1 : tensor<2x2xf32>
# CHECK: }, {
# CHECK: %[[E:.+]] = stablehlo.exponential %arg1
# CHECK: stablehlo.return %[[E]] : tensor<2x2xf32>
# CHECK: }, {
# CHECK: %[[M:.+]] = stablehlo.multiply %arg1, %arg1
# CHECK: stablehlo.return %[[M]] : tensor<2x2xf32>
# CHECK: }) : (tensor<i32>) -> tensor<2x2xf32>
switch_three()


def switch_int32_index():
    i, x = hg.scalar("i", "int32"), hg.tensor("x", (3,), "int8")
    print_ir("switch_int32_index", hg.Graph([i, x], hg.switch(i, [x, -x])))


# CHECK-LABEL: TEST: switch_int32_index int32[]
# CHECK: %[[C:.+]] = stablehlo.clamp {{.*}} : tensor<i32>
# CHECK-NOT: stablehlo.convert
# CHECK: "stablehlo.case"(%[[C]])
switch_int32_index()


def while_loop_doubling():
    i, c = hg.scalar("i", "int32"), hg.scalar("c", "int32")
    print_ir("while_loop_doubling", hg.Graph([i, c], hg.while_loop(lambda i: i < c, lambda i: i * 2, i)))


# CHECK-LABEL: TEST: while_loop_doubling int32[]
# CHECK: %[[W:.+]]:2 = stablehlo.while(%[[I:.+]] = %arg0, %[[C:.+]] = %arg1) : tensor<i32>, tensor<i32>
# CHECK: cond {
# CHECK: %[[LT:.+]] = stablehlo.compare LT, %[[I]], %[[C]], SIGNED
# CHECK: stablehlo.return %[[LT]] : tensor<i1>
# CHECK: } do {
# CHECK: %[[NEXT:.+]] = stablehlo.multiply %[[I]]
# CHECK: stablehlo.return %[[NEXT]], %[[C]] : tensor<i32>, tensor<i32>
# CHECK: return %[[W]]#0 : tensor<i32>
while_loop_doubling()


def scan_recurrent():
    x, h0 = hg.tensor("x", (5, 3)), hg.tensor("h0", (3,))
    out = hg.scan(lambda xt, h: h * xt, sequences=x, outputs_info=h0)
    print_ir("scan_recurrent", hg.Graph([x, h0], out))


# CHECK-LABEL: TEST: scan_recurrent float32[5,3]
# CHECK: %[[STACK:.+]] = stablehlo.constant dense<0.000000e+00> : tensor<5x3xf32>
# CHECK: %[[W:.+]]:4 = stablehlo.while(%[[I:.+]] = %{{.+}}, %[[H:.+]] = %arg1, %[[OUT:.+]] = %[[STACK]], %[[X:.+]] = %arg0) : tensor<i64>, tensor<3xf32>, tensor<5x3xf32>, tensor<5x3xf32>
# CHECK: stablehlo.compare LT, %[[I]]
# CHECK: } do {
# CHECK: %[[ROW:.+]] = stablehlo.dynamic_slice %[[X]], %[[I]], %{{.+}}, sizes = [1, 3]
# CHECK: %[[XT:.+]] = stablehlo.reshape %[[ROW]] : (tensor<1x3xf32>) -> tensor<3xf32>
# CHECK: %[[NEW:.+]] = stablehlo.multiply %[[H]], %[[XT]] : tensor<3xf32>
# CHECK: %[[UPD:.+]] = stablehlo.reshape %[[NEW]] : (tensor<3xf32>) -> tensor<1x3xf32>
# CHECK: %[[STACKED:.+]] = stablehlo.dynamic_update_slice %[[OUT]], %[[UPD]], %[[I]]
# CHECK: stablehlo.return %{{.+}}, %[[NEW]], %[[STACKED]], %[[X]]
# CHECK: return %[[W]]#2 : tensor<5x3xf32>
scan_recurrent()


def scan_output_taps():
    f0 = hg.tensor("f0", (2,), "int64")
    fib = hg.scan(lambda a, b: a + b, outputs_info=dict(initial=f0, taps=[-2, -1]), n_steps=6)
    print_ir("scan_output_taps", hg.Graph([f0], fib))


# Taps [-2, -1] carry a window of the last two outputs, shifted by one row per step.
# CHECK-LABEL: TEST: scan_output_taps int64[2]
# CHECK: %[[W:.+]]:3 = stablehlo.while(%[[I:.+]] = %{{.+}}, %[[WIN:.+]] = %arg0, %[[OUT:.+]] = %{{.+}}) : tensor<i64>, tensor<2xi64>, tensor<6xi64>
# CHECK: } do {
# CHECK: stablehlo.slice %[[WIN]] [0:1]
# CHECK: stablehlo.slice %[[WIN]] [1:2]
# CHECK: %[[NEW:.+]] = stablehlo.add
# CHECK: %[[KEEP:.+]] = stablehlo.slice %[[WIN]] [1:2]
# CHECK: %[[ROW:.+]] = stablehlo.reshape %[[NEW]] : (tensor<i64>) -> tensor<1xi64>
# CHECK: %[[SHIFTED:.+]] = stablehlo.concatenate %[[KEEP]], %[[ROW]], dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
# CHECK: stablehlo.return %{{.+}}, %[[SHIFTED]], %{{.+}} : tensor<i64>, tensor<2xi64>, tensor<6xi64>
# CHECK: return %[[W]]#2 : tensor<6xi64>
scan_output_taps()


def scan_sequence_taps_and_updates():
    x, c = hg.tensor("x", (5,), "float32"), hg.scalar("c", "float32")
    out, upd = hg.scan(lambda a, b: (a - b + c, {c: c * 2}), sequences=dict(input=x, taps=[-1, 1]))
    print_ir("scan_sequence_taps_and_updates", hg.Graph([x, c], [out, upd[c]]))


# Sequence taps are shifted slices of the sequence; an update is a carried state whose
# final value is a result of the loop.
# CHECK-LABEL: TEST: scan_sequence_taps_and_updates float32[5]
# CHECK: %[[XM1:.+]] = stablehlo.slice %arg0 [0:3] : (tensor<5xf32>) -> tensor<3xf32>
# CHECK: %[[XP1:.+]] = stablehlo.slice %arg0 [2:5] : (tensor<5xf32>) -> tensor<3xf32>
# CHECK: %[[W:.+]]:5 = stablehlo.while(%{{.+}} = %{{.+}}, %[[C:.+]] = %arg1, %{{.+}} = %{{.+}}, %{{.+}} = %[[XM1]], %{{.+}} = %[[XP1]])
# CHECK: } do {
# CHECK: %[[C2:.+]] = stablehlo.multiply %[[C]], %{{.+}} : tensor<f32>
# CHECK: stablehlo.return %{{.+}}, %[[C2]],
# CHECK: return %[[W]]#2, %[[W]]#1 : tensor<3xf32>, tensor<f32>
scan_sequence_taps_and_updates()


def composite_twice():
    a, b = hg.tensor("a", (3,)), hg.tensor("b", (3,))
    fma = hg.composite([a, b], a * b + 1, name="fma")
    x, y = hg.tensor("x", (3,)), hg.tensor("y", (3,))
    print_ir("composite_twice", hg.Graph([x, y], fma(fma(x, y), y)))


# CHECK-LABEL: TEST: composite_twice float32[3]
# CHECK: func.func public @main
# CHECK: %[[FIRST:.+]] = call @fma(%arg0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
# CHECK: %[[SECOND:.+]] = call @fma(%[[FIRST]], %arg1)
# CHECK: return %[[SECOND]]
# CHECK: func.func private @fma(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32>
# CHECK: stablehlo.multiply %arg0, %arg1
# CHECK: stablehlo.add
# CHECK-NOT: func.func private @fma
composite_twice()
