// What torch-mlir and JAX exports leave on the host after linalg-to-loops:
// a non-splat dense constant (a memref.get_global), rank-0 generics (a load,
// scalar arithmetic, a store) and a tensor.extract whose scalar a later
// generic captures. The GPU lowering moves the reads into the kernels that use
// them (host-reads.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#none = affine_map<() -> ()>
func.func @step(%x: tensor<64x4xf32>, %s: tensor<f32>) -> (tensor<64x4xf32>, tensor<f32>) {
  %table = arith.constant dense<[0.5, -1.25, 2.0, 3.75]> : tensor<4xf32>
  %e0 = tensor.empty() : tensor<64x4xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %table : tensor<64x4xf32>, tensor<4xf32>) outs(%e0 : tensor<64x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %y = arith.addf %a, %b : f32
    linalg.yield %y : f32
  } -> tensor<64x4xf32>
  // A rank-0 generic: no loop, so its load and arithmetic stay on the host.
  %e1 = tensor.empty() : tensor<f32>
  %half = linalg.generic {indexing_maps = [#none, #none], iterator_types = []}
      ins(%s : tensor<f32>) outs(%e1 : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.5 : f32
    %y = arith.mulf %a, %c : f32
    linalg.yield %y : f32
  } -> tensor<f32>
  // A scalar read once and captured by the next generic's body.
  %k = tensor.extract %half[] : tensor<f32>
  %e2 = tensor.empty() : tensor<64x4xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%shifted : tensor<64x4xf32>) outs(%e2 : tensor<64x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %k : f32
    linalg.yield %y : f32
  } -> tensor<64x4xf32>
  return %scaled, %half : tensor<64x4xf32>, tensor<f32>
}
