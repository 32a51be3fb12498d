// UNSUPPORTED: sanitize
// The plugin's remat-split-elementwise-functions (lib/Fuse.c): an elementwise
// function of one tensor (a linalg.generic whose inputs are that tensor and
// values that cost the step no memory: arguments, constants, scalars) gets a
// copy for each use that linalg-fuse-elementwise-ops would fold it into and
// where its source tensor is still read at or after that use; the fusion then
// recomputes it inside that reader, which reads the source it keeps anyway,
// and the function's own result dies at its other readers. remat-opt
// --fuse-elementwise runs it in its generalized fused variant (docs/planner.md,
// "Elementwise fusion"). @residual: the backward-like reader of tanh(z) also
// reads z, so it recomputes tanh and the tanh tensor dies at the matmul.
// @source_dies: nothing after the matmul reads z, so a copy would keep z alive
// longer than tanh(z) is now: nothing is copied. The outputs are the same, bit
// for bit (remat-run, the first function's).
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-split-elementwise-functions,linalg-fuse-elementwise-ops))' %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// CHECK-LABEL: func.func @residual
// CHECK: [[Z:%[0-9]+]] = linalg.matmul
// CHECK: [[T:%[0-9]+]] = linalg.generic {{.*}} ins([[Z]] :
// CHECK: math.tanh
// CHECK: linalg.matmul ins([[T]],
// CHECK: linalg.generic {{.*}} ins(%arg2, [[Z]] :
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-LABEL: func.func @source_dies
// CHECK: [[T2:%[0-9]+]] = linalg.generic
// CHECK: linalg.matmul ins([[T2]],
// CHECK: linalg.generic {{.*}} ins(%arg2, [[T2]] :
// CHECK-NOT: math.tanh
// CHECK: return
// RUN: remat-run --json %s > %t.before.json
// RUN: remat-run --json %t.mlir > %t.after.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(x)) for x in sys.argv[1:]]; print('outputs', 'identical' if a['outputs']==b['outputs'] else 'DIFFER')" %t.before.json %t.after.json | FileCheck %s --check-prefix=SAME
// SAME: outputs identical

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @residual(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<8x8xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%ez : tensor<8x8xf32>) -> tensor<8x8xf32>
  %z = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fz : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x8xf32>) outs(%e1 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %ey = tensor.empty() : tensor<8x8xf32>
  %fy = linalg.fill ins(%zero : f32) outs(%ey : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.matmul ins(%t, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fy : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %t, %z : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %0 = arith.mulf %b, %b : f32
    %1 = arith.mulf %a, %0 : f32
    %2 = arith.addf %1, %c : f32
    linalg.yield %2 : f32
  } -> tensor<8x8xf32>
  return %y, %d : tensor<8x8xf32>, tensor<8x8xf32>
}

func.func @source_dies(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>, %g: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<8x8xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%ez : tensor<8x8xf32>) -> tensor<8x8xf32>
  %z = linalg.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fz : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e1 = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<8x8xf32>) outs(%e1 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %ey = tensor.empty() : tensor<8x8xf32>
  %fy = linalg.fill ins(%zero : f32) outs(%ey : tensor<8x8xf32>) -> tensor<8x8xf32>
  %y = linalg.matmul ins(%t, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%fy : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %b, %b : f32
    %1 = arith.mulf %a, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<8x8xf32>
  return %y, %d : tensor<8x8xf32>, tensor<8x8xf32>
}
