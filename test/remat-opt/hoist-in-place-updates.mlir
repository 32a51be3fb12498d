// The default planner's second plan moves an in-place update up (lib/HoistReaders.h,
// docs/planner.md, "The second plan"): an optimizer's update written into donated
// arguments, printed after the rest of the step, goes right after the gradient it
// reads (the matmul), so the gradient is freed before the exp chain; the scalar it
// reads, computed from the donated step count (itself updated in place), moves up
// with it. The planned step computes the same outputs at the peak it planned.
// RUN: remat-opt --budget=33000 --report=json --report-file=%t.json %s -o %t.mlir 2> %t.err
// RUN: FileCheck %s --check-prefix=NOTE < %t.err
// NOTE: remat-opt: note: function #0: 4 ops written in place into donated arguments (an optimizer's, with the scalars and temporaries they read) moved up before planning
// RUN: FileCheck %s < %t.mlir
// CHECK: linalg.matmul
// CHECK-NEXT: linalg.generic {{.*}} ins(%arg3 : tensor<f32>) outs(%arg3 : tensor<f32>)
// CHECK: linalg.generic {{.*}} iterator_types = []}
// CHECK: :2 = linalg.generic
// CHECK: math.exp
// RUN: remat-run --json %s > %t.before.json
// RUN: remat-run --json %t.mlir > %t.after.json
// RUN: %python -c "import json,sys; a,b,p=[json.load(open(x)) for x in sys.argv[1:]]; f=p['functions'][0]; print('met', f['budget_met'], 'outputs', 'identical' if a['outputs']==b['outputs'] else 'DIFFER', 'measured == planned', b['peak_bytes'] == f['peak_bytes_after'])" %t.before.json %t.after.json %t.json | FileCheck %s --check-prefix=SAME
// SAME: met True outputs identical measured == planned True

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>
func.func @step(%w: tensor<64x64xf32> {iree.abi.output = 0 : index}, %m: tensor<64x64xf32> {iree.abi.output = 1 : index},
                %x: tensor<64x64xf32>, %count: tensor<f32> {iree.abi.output = 3 : index})
    -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<64x64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %g = linalg.matmul ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %t1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x64xf32>) outs(%e1 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  } -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %t2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t1 : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.mulf %a, %a : f32
    linalg.yield %0 : f32
  } -> tensor<64x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %t3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t1, %t2 : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e3 : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64x64xf32>
  %ec = tensor.empty() : tensor<f32>
  %c2 = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%count : tensor<f32>) outs(%ec : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.addf %a, %one : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %el = tensor.empty() : tensor<f32>
  %lr = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%c2 : tensor<f32>) outs(%el : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = arith.divf %one, %a : f32
    linalg.yield %0 : f32
  } -> tensor<f32>
  %eu0 = tensor.empty() : tensor<64x64xf32>
  %eu1 = tensor.empty() : tensor<64x64xf32>
  %u:2 = linalg.generic {indexing_maps = [#id, #id, #id, #sc, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %m, %g, %lr : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>)
      outs(%eu0, %eu1 : tensor<64x64xf32>, tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %l: f32, %o0: f32, %o1: f32):
    %0 = arith.addf %b, %c : f32
    %1 = arith.mulf %0, %l : f32
    %2 = arith.subf %a, %1 : f32
    linalg.yield %2, %0 : f32, f32
  } -> (tensor<64x64xf32>, tensor<64x64xf32>)
  return %u#0, %u#1, %t3, %c2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<f32>
}
