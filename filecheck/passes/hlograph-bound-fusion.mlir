// RUN: hlograph-opt %s -p 'hlograph-bound-fusion{every=2 min-ops=0}' --split-input-file | filecheck %s
// RUN: hlograph-opt %s -p hlograph-bound-fusion --split-input-file | filecheck %s --check-prefix=SMALL

// The values computed before a cut and used after it go through one barrier;
// later ops use its results; no barrier right before the return.
// CHECK-LABEL: func.func @chain_with_a_long_lived_value(
// SMALL-LABEL: func.func @chain_with_a_long_lived_value(
// SMALL-NOT: optimization_barrier
func.func @chain_with_a_long_lived_value(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[C:.+]] = stablehlo.constant
  // CHECK: %[[E:.+]] = stablehlo.exponential %arg0
  // CHECK: %[[A:.+]] = stablehlo.add %[[E]], %arg1
  // CHECK: %[[B1:.+]]:2 = stablehlo.optimization_barrier %[[E]], %[[A]]
  // CHECK: %[[M:.+]] = stablehlo.multiply %[[B1]]#1, %[[C]]
  // CHECK: %[[T:.+]] = stablehlo.tanh %[[M]]
  // CHECK: %[[B2:.+]]:2 = stablehlo.optimization_barrier %[[T]], %[[B1]]#0
  // CHECK: %[[S:.+]] = stablehlo.add %[[B2]]#0, %[[B2]]#1
  // CHECK: %[[R:.+]] = stablehlo.multiply %[[S]], %arg1
  // CHECK-NOT: optimization_barrier
  // CHECK: return %[[R]]
  %c = stablehlo.constant dense<2.0> : tensor<8xf32>
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.add %0, %y : tensor<8xf32>
  %2 = stablehlo.multiply %1, %c : tensor<8xf32>
  %3 = stablehlo.tanh %2 : tensor<8xf32>
  %4 = stablehlo.add %3, %0 : tensor<8xf32>
  %5 = stablehlo.multiply %4, %y : tensor<8xf32>
  return %5 : tensor<8xf32>
}

// -----

// A non-elementwise op breaks the run: the count starts again after it.
// CHECK-LABEL: func.func @run_broken_by_a_reduction(
func.func @run_broken_by_a_reduction(%x: tensor<8xf32>) -> tensor<f32> {
  // CHECK: stablehlo.exponential
  // CHECK-NEXT: stablehlo.reduce
  // CHECK: %[[T:.+]] = stablehlo.tanh
  // CHECK: %[[L:.+]] = stablehlo.log
  // CHECK: %[[B:.+]] = stablehlo.optimization_barrier %[[L]]
  // CHECK: stablehlo.negate %[[B]]
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
  %2 = stablehlo.tanh %1 : tensor<f32>
  %3 = stablehlo.log %2 : tensor<f32>
  %4 = stablehlo.negate %3 : tensor<f32>
  %5 = stablehlo.sine %4 : tensor<f32>
  return %5 : tensor<f32>
}

// -----

// A chain no longer than `every` is left alone.
// CHECK-LABEL: func.func @short_chain_no_match(
func.func @short_chain_no_match(%x: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK-NOT: optimization_barrier
  // CHECK: %[[E:.+]] = stablehlo.exponential %arg0
  // CHECK: %[[T:.+]] = stablehlo.tanh %[[E]]
  // CHECK: return %[[T]]
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.tanh %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}
