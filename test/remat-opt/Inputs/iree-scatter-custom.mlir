// iree_linalg_ext.scatter in IREE's custom form (iree-scatter-bad-input.test).
func.func @custom(%u: tensor<2x3xf32>, %i: tensor<2x1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true)
         ins(%u, %i : tensor<2x3xf32>, tensor<2x1xi32>) outs(%t : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    iree_linalg_ext.yield %a : f32
  } -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
