// RUN: hlograph-opt %s --load-pass-plugin hlograph.tests.tools.pass_plugin -p hlograph-test-drop-double-negation --split-input-file | filecheck %s
// RUN: hlograph-opt --load-pass-plugin hlograph.tests.tools.pass_plugin --list-passes | filecheck %s --check-prefix=LIST
// RUN: not hlograph-opt %s -p hlograph-test-drop-double-negation 2>&1 | filecheck %s --check-prefix=NOPLUGIN
// RUN: not hlograph-opt %s --load-pass-plugin hlograph_no_such_plugin 2>&1 | filecheck %s --check-prefix=MISSING

// A pass registered by a module that --load-pass-plugin imports.
// LIST: hlograph-test-drop-double-negation  -  Rewrites -(-x) as x
// NOPLUGIN: hlograph-test-drop-double-negation
// MISSING: hlograph-opt: error: cannot load pass plugin hlograph_no_such_plugin: ModuleNotFoundError

// CHECK-LABEL: func.func @double(
func.func @double(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: stablehlo.negate
  // CHECK: return %arg0
  %0 = stablehlo.negate %x : tensor<3xf32>
  %1 = stablehlo.negate %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @single(
func.func @single(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[N:.+]] = stablehlo.negate %arg0
  // CHECK: return %[[N]]
  %0 = stablehlo.negate %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}
