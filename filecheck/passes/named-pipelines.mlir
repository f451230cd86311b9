// RUN: hlograph-opt %s -O0 | filecheck %s --check-prefix=O0
// RUN: hlograph-opt %s -O1 | filecheck %s --check-prefix=O1
// RUN: hlograph-opt %s -O2 | filecheck %s --check-prefix=O2
// RUN: hlograph-opt %s --pass-pipeline='builtin.module(O2)' | filecheck %s --check-prefix=O2

// O0 only verifies; O1 inlines and applies exact identities; O2 also folds
// constants and drops the private functions nothing calls.
// O0-LABEL: func.func public @main(
// O0: call @scale
// O0: func.func private @scale(
// O1-LABEL: func.func public @main(
// O1-NOT: call
// O1: stablehlo.add
// O1-NOT: func.func private
// O2-LABEL: func.func public @main(
// O2-NEXT: return %arg0
// O2-NOT: func.func private
func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @scale(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = stablehlo.constant dense<0.5> : tensor<4xf32>
  %one = stablehlo.add %a, %a : tensor<4xf32>
  %0 = stablehlo.multiply %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}
