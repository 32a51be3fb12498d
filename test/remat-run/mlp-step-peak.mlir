// A small MLP-like training step: matmul, bias add, relu, a squared-sum loss
// and a weight gradient. remat-run's measured peak must match the allocations
// the CPU pipeline leaves (memref.alloc / memref.dealloc in program order).
//
// RUN: remat-run --json %s | FileCheck %s
// RUN: remat-run --steps=3 %s | FileCheck %s --check-prefix=TEXT
//
// COM: Allocations after bufferization + buffer-deallocation-pipeline +
// COM: optimize-allocation-liveness (check with mlir-opt and the pipeline of
// COM: remat/Lower.h). Buffers carry alignment = 64, so each size is rounded up
// COM: to a multiple of 64 by the lowering (4 bytes -> 64).
// COM:   %mm   8x32xf32   = 1024  live 1024
// COM:   %pre  8x32xf32   = 1024  live 2048   (bias add, new buffer)
// COM:   free %mm                 live 1024   (last use: bias add)
// COM:   relu writes %pre in place; dh = h + h writes it in place too
// COM:   %loss f32 4 -> 64        live 1088
// COM:   %xT   16x8xf32   =  512  live 1600
// COM:   %g    16x32xf32  = 2048  live 3648   <- peak
// COM:   free %xT, %pre           live 2112   (= the results: 64 + 2048)
// COM: peak = 1024 + 64 + 512 + 2048 = 3648; arguments 512 + 2048 + 128 = 2688.
//
// CHECK: {"peak_bytes": 3648, "argument_bytes": 2688, "step_time_s": {{[0-9.e+-]+}}, "outputs": [{"index": 0, "checksum": "[[L:[0-9a-f]{16}]]"}, {"index": 1, "checksum": "[[G:[0-9a-f]{16}]]"}], "variant": "mlp_step"}
//
// TEXT: variant: mlp_step
// TEXT-NEXT: peak_bytes: 3648 (3.56 KiB)
// TEXT-NEXT: argument_bytes: 2688 (2.62 KiB)
// TEXT-NEXT: step_time_s: {{.*}} (min over 3 steps, mean {{.*}})
// TEXT-NEXT: output 0: tensor<f32>, 4 bytes, checksum {{[0-9a-f]{16}$}}
// TEXT-NEXT: output 1: tensor<16x32xf32>, 2048 bytes, checksum {{[0-9a-f]{16}$}}

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#all = affine_map<(d0, d1) -> ()>
func.func @mlp_step(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<32xf32>)
    -> (tensor<f32>, tensor<16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x32xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>)
                      outs(%z0 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %pre = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %h = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%pre : tensor<8x32xf32>) {
  ^bb0(%o: f32):
    %r = arith.maximumf %o, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<f32>
  %l0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%h : tensor<8x32xf32>) outs(%l0 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  // d loss / d h = 2 h (elementwise on tensors: convert-elementwise-to-linalg).
  %dh = arith.addf %h, %h : tensor<8x32xf32>
  %e3 = tensor.empty() : tensor<16x8xf32>
  %xT = linalg.transpose ins(%x : tensor<8x16xf32>) outs(%e3 : tensor<16x8xf32>) permutation = [1, 0]
  %e4 = tensor.empty() : tensor<16x32xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %g = linalg.matmul ins(%xT, %dh : tensor<16x8xf32>, tensor<8x32xf32>)
                     outs(%z4 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %loss, %g : tensor<f32>, tensor<16x32xf32>
}
