// UNSUPPORTED: sanitize
// RUN: mlir-opt --mlir-disable-threading --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-estimate))' %s | FileCheck %s
// RUN: not mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-estimate))' %s 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: remat-opt --estimate --report=json %s | FileCheck %s --check-prefix=CROSS

// COM: @outer calls @inner, so its estimate clones the whole module: only safe
// COM: when no other thread rewrites @inner meanwhile (--mlir-disable-threading).

// COM: 64x64xf32 = 16384 bytes. @inner: arith.addf becomes a linalg.generic
// COM: writing %x in place (arguments are writable); returning it copies it
// COM: into a new 16384-byte buffer: peak 16384 bytes. @outer: the call's
// COM: result is a new 16384-byte buffer that the add overwrites in place and
// COM: returns: peak 16384 bytes. Flops: 4096 additions each.
// CHECK: func.func @inner({{.*}}remat.argument_bytes = 16384 : i64, remat.flops = 4.096000e+03 : f64, remat.lower_bound_bytes = 16384 : i64, remat.peak_bytes = 16384 : i64}
// CHECK: func.func @outer({{.*}}remat.argument_bytes = 16384 : i64, remat.flops = 4.096000e+03 : f64, remat.lower_bound_bytes = 16384 : i64, remat.peak_bytes = 16384 : i64}
// CROSS: "name": "inner", "peak_bytes_before": 16384,
// CROSS: "name": "outer", "peak_bytes_before": 16384,
func.func @inner(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = arith.addf %x, %x : tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// THREADS: calls.mlir:[[@LINE+1]]:1: error: remat-estimate: @outer references other symbols, so its estimate reads the whole module; run mlir-opt with --mlir-disable-threading
func.func @outer(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = func.call @inner(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = arith.addf %0, %x : tensor<64x64xf32>
  return %1 : tensor<64x64xf32>
}
