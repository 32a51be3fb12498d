// RUN: remat-opt --estimate --report=json %s | FileCheck %s

// COM: @views: collapse_shape and extract_slice are views of %m (one 4 KiB
// COM: buffer, 32x32xf32); the relu writes a fresh 16x64 buffer = 4096 bytes.
// COM: Peak 8192 bytes while the relu runs.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @views(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<16x64xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = tensor.collapse_shape %m [[0, 1]] : tensor<32x32xf32> into tensor<1024xf32>
  %x = tensor.expand_shape %c [[0, 1]] output_shape [16, 64] : tensor<1024xf32> into tensor<16x64xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x64xf32>) outs(%e2 : tensor<16x64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.maximumf %in, %c0 : f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
// CHECK: "name": "views", "peak_bytes_before": 8192,

// COM: @inplace_arg: the elementwise op reads and writes its init %x, an
// COM: argument: bufferization writes into the caller's buffer, so no
// COM: allocation at all; the returned value aliases an argument and the
// COM: deallocation pipeline returns a copy (one 256-byte buffer).
func.func @inplace_arg(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : tensor<64xf32>) {
  ^bb0(%o: f32):
    %y = arith.mulf %o, %o : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
// CHECK: "name": "inplace_arg", "peak_bytes_before": 256,

// COM: @odd_sizes: 3x5xf32 = 60 bytes, asked for as 64.
func.func @odd_sizes(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x5xf32>
  %r = linalg.copy ins(%x : tensor<3x5xf32>) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
// CHECK: "name": "odd_sizes", "peak_bytes_before": 64,

// COM: The estimate is what a CPU run measures, function by function.
// RUN: %python %remat_src/scripts/check-estimate.py --tolerance 0 %s | FileCheck %s --check-prefix=MEASURED
// MEASURED: OK   inplace-and-views.mlir @views: estimated 8192 bytes, measured 8192 bytes
// MEASURED: OK   inplace-and-views.mlir @inplace_arg: estimated 256 bytes, measured 256 bytes
// MEASURED: OK   inplace-and-views.mlir @odd_sizes: estimated 64 bytes, measured 64 bytes
