// RUN: remat-opt --estimate %s | FileCheck %s --check-prefix=TEXT
// RUN: remat-opt --estimate --report=json %s | FileCheck %s --check-prefix=JSON
// RUN: remat-opt --estimate --report=json --profile=cpu %s | FileCheck %s --check-prefix=CPU
// RUN: %python %remat_src/scripts/check-estimate.py --tolerance 0 %s | FileCheck %s --check-prefix=MEASURED
// MEASURED: OK   estimate.mlir @step: estimated 1088 bytes, measured 1088 bytes

// COM: Buffers after bufferization (f32, 64-byte aligned sizes):
// COM:   A = empty/fill/matmul  8x16  = 512 bytes (fill and matmul write A in place)
// COM:   B = empty2/relu        8x16  = 512 bytes; reused in place by @sq below
// COM:   C = empty3/fill3/sum   scalar = 4 -> 64 bytes (a result)
// COM: From the allocation of C (op #6 tensor.empty): A (still read by @sq) + B + C = 1088 bytes.
// COM: Flops: matmul 8*16*16 * 2 = 4096, relu 128, sum 128, sq 128: 4480.

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @step(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> (tensor<f32>, tensor<8x16xf32>) {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32> loc("fc1")
  %e2 = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32> loc("relu")
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%c0 : f32) outs(%e3 : tensor<f32>) -> tensor<f32> loc("loss.init")
  %s = linalg.reduce ins(%r : tensor<8x16xf32>) outs(%f3 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    } loc("loss")
  %g = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32> loc("sq")
  return %s, %g : tensor<f32>, tensor<8x16xf32>
}

// TEXT-LABEL: function @step
// TEXT-NEXT:  peak memory:     1.09 KB (1088 bytes) at op #6 tensor.empty
// TEXT-NEXT:  arguments:       1.54 KB (1536 bytes)
// TEXT-NEXT:  lower bound:     1.02 KB (1024 bytes), forced by op #5 linalg.generic ("relu")
// TEXT-NEXT:  total flops:     4480
// TEXT-NEXT:  live at the peak: 3 buffers, largest first:
// TEXT-NEXT:    %2 512 bytes from linalg.matmul ("fc1")
// TEXT-NEXT:    %4 512 bytes from linalg.generic ("relu") [result]
// TEXT-NEXT:    %5 64 bytes from tensor.empty
// TEXT-NOT:   never recomputed

// JSON: {"functions": [{"name": "step", "peak_bytes_before": 1088, "peak_bytes_after": 1088, "budget_bytes": null, "lower_bound_bytes": 1024, "lower_bound_returned_bytes": 0,
// JSON-SAME: "argument_bytes": 1536, "baseline_flops": 4480, "recompute_flops": 0,
// JSON-SAME: "recompute_time_s": 0, "copy_bytes_before": 0, "copy_bytes_after": 0, "step_time_change_s": 0, "profile": "h200", "planner": "none", "bufferization_analysis": true, "in_place_analysis": "remat", "num_ops": 11
// JSON-SAME: "unsupported_ops": [], "decisions": [], "parse_time_s": {{[0-9.e+-]+}}, "pass_time_s": {{[0-9.e+-]+}}, "total_time_s": {{[0-9.e+-]+}}, "phase_times_s": {"graph_build": {{[0-9.e+-]+}}, {{.*}}, "report": {{[0-9.e+-]+}}}, "max_rss_bytes": {{[0-9]+}}}]}

// COM: The cpu profile is slower: 4480 flops / 100 GFLOP/s vs bytes moved / 20 GB/s.
// CPU: "profile": "cpu"
