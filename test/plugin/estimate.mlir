// UNSUPPORTED: sanitize
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-estimate))' %s | FileCheck %s
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat))' %s | FileCheck %s
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat{budget=50%% planner=none profile=cpu}))' %s | FileCheck %s
// RUN: remat-opt --estimate --report=json %s | FileCheck %s --check-prefix=CROSS

// COM: Arguments: %x 4x8xf32 = 128 bytes, %w 8x8xf32 = 256 bytes: argument_bytes = 384.
// COM: Buffers after bufferization (f32, 64-byte aligned sizes):
// COM:   A = %e/%f/%h  4x8 = 128 bytes (fill and matmul write A in place)
// COM:   B = %e2/%r    4x8 = 128 bytes; the product (arith.mulf, normalised to
// COM:       linalg.generic with %r as init) writes B in place and is returned.
// COM: A and B are both live from the allocation of B (%e2) through the product,
// COM: the last reader of A: peak = 256 bytes. The relu reads A and writes B,
// COM: so no plan can go under 256 bytes either: lower bound = 256 bytes.
// COM: Flops: matmul 4*8*8 iterations * 2 = 512, relu 32, product 32: 576.

// CHECK-LABEL: func.func @step(
// CHECK-SAME: remat.argument_bytes = 384 : i64
// CHECK-SAME: remat.flops = 5.760000e+02 : f64
// CHECK-SAME: remat.lower_bound_bytes = 256 : i64
// CHECK-SAME: remat.peak_bytes = 256 : i64
// CROSS: "name": "step", "peak_bytes_before": 256,
// CROSS-SAME: "lower_bound_bytes": 256,
// CROSS-SAME: "argument_bytes": 384, "baseline_flops": 576,
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @step(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %s = arith.mulf %r, %h : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// COM: Declarations are left alone.
// CHECK: func.func private @decl(tensor<4xf32>) -> tensor<4xf32>{{$}}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
