// COM: Bufferization copies (docs/memory-model.md, "Copies"). One zero fill is the
// COM: destination of two matmuls that accumulate into it (torch-mlir shares such
// COM: fills between forward and backward ops). The first matmul cannot write it in
// COM: place (the second still reads it), so One-Shot Bufferize allocates a buffer
// COM: and copies the 16 KiB of zeros into it. remat-opt counts those copies
// COM: (copy_bytes_before) and scripts/check-copies.py checks the count against
// COM: the copies in the IR that MLIR bufferizes.
// RUN: %python %remat_src/scripts/check-copies.py %s | FileCheck %s --check-prefix=INPUT
// INPUT: OK   shared-fill-copies.mlir @step: remat counts 16384 bytes of copies, bufferized IR has 16384

// COM: At 40,000 bytes the plan drops the fill after the first matmul and fills
// COM: again before the second: the first now writes the original in place and
// COM: the copy is gone. The clone is charged its 16 KiB written (3.41e-09 s on
// COM: h200); the copy it replaces read and wrote 16 KiB (6.83e-09 s): the step
// COM: gets cheaper, which step_time_change_s says. The default planner's second
// COM: plan (docs/planner.md) meets the budget too, writing the adds into dying
// COM: inputs with no recomputation, but keeps the copy (step time change 0):
// COM: the plan that adds less time, copies included, is kept, this one.
// RUN: remat-opt --budget=40000 --report=json --report-file=%t.json %s -o %t.mlir
// RUN: FileCheck %s --check-prefix=PLAN < %t.json
// PLAN: "peak_bytes_before": 49152, "peak_bytes_after": 32768, "budget_bytes": 40000, "budget_met": true
// PLAN-SAME: "recompute_time_s": 3.41333e-09, "copy_bytes_before": 16384, "copy_bytes_after": 0, "step_time_change_s": -3.41333e-09
// PLAN-SAME: "decisions": [{"value": "%1", "bytes": 16384, {{.*}}"cost_s": 3.41333e-09, "flops": 0, "cloned_ops": 2
// RUN: %python %remat_src/scripts/check-copies.py %t.mlir | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: OK   {{.*}} @step: remat counts 0 bytes of copies, bufferized IR has 0
// RUN: remat-opt --budget=40000 --report-file=%t.txt %s -o %t.text.mlir
// RUN: FileCheck %s --check-prefix=TEXT < %t.txt
// TEXT: copies: 16.38 KB (16384 bytes) before, 0 bytes after (bufferization); step time change with them: -3.413e-09 s

// COM: Same outputs, measured peaks as estimated.
// RUN: remat-run --json %s | FileCheck %s --check-prefix=MEASURED
// RUN: remat-run --json %t.mlir | FileCheck %s --check-prefix=MEASURED-PLAN
// RUN: remat-run --json %s > %t.a && remat-run --json %t.mlir > %t.b
// RUN: %python -c "import json, sys; a, b = (json.load(open(p)) for p in sys.argv[1:]); sys.exit(a['outputs'] != b['outputs'])" %t.a %t.b
// MEASURED: "peak_bytes": 49152
// MEASURED-PLAN: "peak_bytes": 32768

#id = affine_map<(i, j) -> (i, j)>
func.func @step(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %t1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1 : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t1 : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%t2, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
