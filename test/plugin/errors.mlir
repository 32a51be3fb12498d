// UNSUPPORTED: sanitize
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat{profile=tpu}))' %s 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat{budget=64}))' %s 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat{budget=1KiB planner=magic}))' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-estimate))' %S/Inputs/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline="builtin.module(func.func(remat-estimate{dim-bound=-1}))" %s 2>&1 | FileCheck %s --check-prefix=BOUND
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline="builtin.module(func.func(remat-estimate{dim-bound=16}))" %S/Inputs/dynamic.mlir | FileCheck %s --check-prefix=BOUNDED

// PROFILE: errors.mlir:[[@LINE+8]]:1: error: remat: unknown profile 'tpu' (expected h200, cpu or flops)
// INFEASIBLE: error: remat: budget of 64 bytes is under the lower bound of 128 bytes, forced by op #0 tensor.empty
// UNKNOWN: errors.mlir:[[@LINE+6]]:1: error: remat: unknown planner 'magic' (expected none, sqrt, greedy, default, dtr or blocks)
// DYNAMIC: dynamic.mlir:1:1: error: remat: value %arg0 has a dynamic shape (dimension 0)
// BOUND: errors.mlir:[[@LINE+4]]:1: error: remat-estimate: dim-bound must not be negative, got -1
// COM: With dim-bound=16 the ?x8xf32 argument counts as 16x8xf32 = 512 bytes;
// COM: the add writes it in place and the returned copy takes 512 bytes.
// BOUNDED: func.func @dyn({{.*}}remat.argument_bytes = 512 : i64, remat.flops = 1.280000e+02 : f64, remat.lower_bound_bytes = 512 : i64, remat.peak_bytes = 512 : i64}
func.func @step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.copy ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
