// Malformed iree_linalg_ext.scatter ops (iree-scatter-bad-input.test), one per chunk.
func.func @dim_map_not_permutation(%u: tensor<2x3xf32>, %i: tensor<2x1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "iree_linalg_ext.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @depth_mismatch(%u: tensor<2x3xf32>, %i: tensor<2x2xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "iree_linalg_ext.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @slice_mismatch(%u: tensor<2x2xf32>, %i: tensor<2x1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "iree_linalg_ext.yield"(%a) : (f32) -> ()
  }) : (tensor<2x2xf32>, tensor<2x1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @batch_mismatch(%u: tensor<2x3xf32>, %i: tensor<3x1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "iree_linalg_ext.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<3x1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @wrong_yield(%u: tensor<2x3xf32>, %i: tensor<2x1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @no_batch_dim(%u: tensor<3xf32>, %i: tensor<1xi32>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "iree_linalg_ext.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "iree_linalg_ext.yield"(%a) : (f32) -> ()
  }) : (tensor<3xf32>, tensor<1xi32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
