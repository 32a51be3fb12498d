// UNSUPPORTED: sanitize
// The plugin's remat-split-broadcasts: a pure broadcast (a linalg.generic that
// only yields an input's element) used by several elementwise generics gets a
// copy per use, each with its own tensor.empty, so that MLIR's
// linalg-fuse-elementwise-ops (which folds a producer into its one use only)
// folds them all and the broadcast tensor is never allocated. A broadcast with
// a use fusion would not fold (here a matmul) is left as it is: a copy left
// over would be a buffer of its own. remat-opt --fuse-elementwise runs the
// same function first (test/models/adam-broadcasts.test).
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-split-broadcasts))' %s | FileCheck %s --check-prefix=SPLIT
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-split-broadcasts,linalg-fuse-elementwise-ops))' %s | FileCheck %s --check-prefix=FUSED
// RUN: mlir-opt --pass-pipeline='builtin.module(func.func(linalg-fuse-elementwise-ops))' %s | FileCheck %s --check-prefix=UNSPLIT

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

func.func @two_updates(%s: tensor<f32>, %a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %bc = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %bc : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %d = arith.divf %x, %y : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %u, %v : tensor<4x8xf32>, tensor<4x8xf32>
}

// SPLIT-LABEL: func.func @two_updates
// SPLIT: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// SPLIT: %[[BC:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<f32>) outs(%[[E]] : tensor<4x8xf32>)
// SPLIT: linalg.generic {{.*}} ins(%arg1, %[[BC]] :
// SPLIT: tensor.empty() : tensor<4x8xf32>
// SPLIT-NEXT: %[[E2:.*]] = tensor.empty() : tensor<4x8xf32>
// SPLIT-NEXT: %[[BC2:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<f32>) outs(%[[E2]] : tensor<4x8xf32>)
// SPLIT: linalg.generic {{.*}} ins(%arg2, %[[BC2]] :

// Fused: both updates read the scalar itself; no 4x8 broadcast is left.
// FUSED-LABEL: func.func @two_updates
// FUSED-COUNT-2: linalg.generic {{.*}} ins(%arg{{[12]}}, %arg0 : tensor<4x8xf32>, tensor<f32>)
// FUSED-NOT: linalg.generic
// FUSED: return

// Without the split, MLIR's fusion leaves the shared broadcast alone.
// UNSPLIT-LABEL: func.func @two_updates
// UNSPLIT: linalg.generic {{.*}} ins(%arg0 : tensor<f32>) outs(%{{.*}} : tensor<4x8xf32>)

func.func @feeds_a_matmul(%s: tensor<f32>, %a: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %bc = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%bc, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %u, %mm : tensor<4x8xf32>, tensor<4x8xf32>
}

// SPLIT-LABEL: func.func @feeds_a_matmul
// SPLIT-COUNT-1: ins(%arg0 : tensor<f32>)
// SPLIT-NOT: ins(%arg0 : tensor<f32>)
// SPLIT: linalg.matmul

// A dynamic shape: each copy gets its own tensor.empty of the same size.
#row = affine_map<(d0, d1) -> (d1)>
func.func @dynamic(%b: tensor<8xf32>, %a: tensor<?x8xf32>, %c: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %bc = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bc : tensor<?x8xf32>, tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %u, %v : tensor<?x8xf32>, tensor<?x8xf32>
}

// SPLIT-LABEL: func.func @dynamic
// SPLIT: %[[N:.*]] = tensor.dim
// SPLIT: tensor.empty(%[[N]]) : tensor<?x8xf32>
// SPLIT: ins(%arg0 : tensor<8xf32>)
// SPLIT: %[[E3:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// SPLIT-NEXT: ins(%arg0 : tensor<8xf32>) outs(%[[E3]] : tensor<?x8xf32>)
// FUSED-LABEL: func.func @dynamic
// FUSED-NOT: ins(%arg0 : tensor<8xf32>) outs
// FUSED: return

// Returned, or read inside a loop: the broadcast stays one tensor.
func.func @returned_or_nested(%s: tensor<f32>, %a: tensor<4x8xf32>, %lb: index, %ub: index, %st: index) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %bc = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %bc2 = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<f32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %a) -> (tensor<4x8xf32>) {
    %w = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %bc2 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<4x8xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %m = arith.mulf %x, %y : f32
      linalg.yield %m : f32
    } -> tensor<4x8xf32>
    scf.yield %w : tensor<4x8xf32>
  }
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %bc2 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %m = arith.addf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %bc, %r, %z : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// SPLIT-LABEL: func.func @returned_or_nested
// SPLIT-COUNT-2: ins(%arg0 : tensor<f32>)
// SPLIT-NOT: ins(%arg0 : tensor<f32>)
// SPLIT: return
