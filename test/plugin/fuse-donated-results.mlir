// UNSUPPORTED: sanitize
// The plugin's remat-fuse-donated-results (scripts/remat-iree, docs/iree.md): a
// donated elementwise result that one elementwise op besides the return reads
// (an optimizer's new moment, read by the parameter's update) is fused into
// that op and kept as one more of its results, as IREE's dispatch formation
// does; IREE then writes it straight into the donated buffer instead of
// holding it in a temporary to the end of the step. A result read by an op
// fusion cannot take (a matmul), by two ops, or not donated, stays as it is.
// The fused step computes the same values, bit for bit (remat-run, @adam).
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-fuse-donated-results))' %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: remat-run --json %s > %t.before.json
// RUN: remat-run --json %t.mlir > %t.after.json
// RUN: %python -c "import json; a = json.load(open('%t.before.json')); b = json.load(open('%t.after.json')); print('same outputs:', [o['checksum'] for o in a['outputs']] == [o['checksum'] for o in b['outputs']], len(a['outputs']))" | FileCheck %s --check-prefix=SAME
// SAME: same outputs: True 3

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// m2 = 0.9 m + 0.1 g; v2 = 0.99 v + 0.01 g^2; w2 = w - lr * m2 / (sqrt(v2) + eps):
// both moments fold into the update, which yields all three.
func.func @adam(%w: tensor<8x16xf32> {iree.abi.output = 0 : index}, %m: tensor<8x16xf32> {iree.abi.output = 1 : index},
                %v: tensor<8x16xf32> {iree.abi.output = 2 : index}, %g: tensor<8x16xf32>, %lr: tensor<f32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %b1 = arith.constant 0.9 : f32
  %c1 = arith.constant 0.1 : f32
  %b2 = arith.constant 0.99 : f32
  %c2 = arith.constant 0.01 : f32
  %eps = arith.constant 1.0e-8 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b1 : f32
    %1 = arith.mulf %b, %c1 : f32
    %2 = arith.addf %0, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %v2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %g : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b2 : f32
    %1 = arith.mulf %b, %b : f32
    %2 = arith.mulf %1, %c2 : f32
    %3 = arith.addf %0, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %w2 = linalg.generic {indexing_maps = [#id, #id, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %m2, %v2, %lr : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %a: f32, %b: f32, %l: f32, %out: f32):
    %0 = math.sqrt %b : f32
    %1 = arith.addf %0, %eps : f32
    %2 = arith.divf %a, %1 : f32
    %3 = arith.mulf %2, %l : f32
    %4 = arith.subf %x, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<8x16xf32>
  return %w2, %m2, %v2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @adam
// CHECK-NOT: linalg.generic
// CHECK: %[[F:.*]]:3 = linalg.generic
// CHECK-SAME: ins(%arg0, %arg4, %arg1, %arg3, %arg2, %arg3 :
// CHECK-SAME: outs(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: ^bb0(%[[W:[a-z0-9_]+]]: f32, %[[L:[a-z0-9_]+]]: f32, %[[M:[a-z0-9_]+]]: f32, %[[G0:[a-z0-9_]+]]: f32, %[[V:[a-z0-9_]+]]: f32, %[[G1:[a-z0-9_]+]]: f32,
// CHECK: arith.mulf %[[V]],
// CHECK: %[[V2:.*]] = arith.addf
// CHECK: arith.mulf %[[M]],
// CHECK: %[[M2:.*]] = arith.addf
// CHECK: math.sqrt %[[V2]]
// CHECK: arith.divf %[[M2]],
// CHECK: %[[W2:.*]] = arith.subf %[[W]],
// CHECK: linalg.yield %[[W2]], %[[M2]], %[[V2]] : f32, f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2

// A moment read by a matmul: no elementwise fusion takes it.
func.func @read_by_matmul(%m: tensor<8x8xf32> {iree.abi.output = 0 : index}, %g: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %e0 = tensor.empty() : tensor<8x8xf32>
  %m2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %g : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e0 : tensor<8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8x8xf32>
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = linalg.matmul ins(%m2, %g : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m2, %p : tensor<8x8xf32>, tensor<8x8xf32>
}
// CHECK-LABEL: func.func @read_by_matmul
// CHECK: %[[M2:.*]] = linalg.generic
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[M2]],
// CHECK: return %[[M2]], %[[P]]

// Read by two elementwise ops, or not donated: unchanged.
func.func @two_readers(%m: tensor<8xf32> {iree.abi.output = 0 : index}, %g: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %m2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%m, %g : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%m2 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.mulf %a, %a : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%m2 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %a : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %m2, %x, %y : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[M2:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[M2]] :
// CHECK: linalg.generic {{.*}} ins(%[[M2]] :
// CHECK: return %[[M2]],
