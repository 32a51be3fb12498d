// Malformed tm_tensor.scatter ops (scatter-bad-input.test), one per chunk.
func.func @dim_map_out_of_range(%u: tensor<2x3xf32>, %i: tensor<2x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 2>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @indices_rank_one(%u: tensor<2x3xf32>, %i: tensor<2xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @dim_without_index(%u: tensor<2x3xf32>, %i: tensor<2x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @yield_type(%u: tensor<2x3xf32>, %i: tensor<2x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.fptosi %a : f32 to i32
    "tm_tensor.yield"(%c) : (i32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @dynamic(%u: tensor<?x3xf32>, %i: tensor<?x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (tensor<?x3xf32>, tensor<?x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
// -----
func.func @on_memrefs(%u: memref<2x3xf32>, %i: memref<2x1xi64>, %t: memref<4x3xf32>) {
  "tm_tensor.scatter"(%u, %i, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%a: f32, %b: f32):
    "tm_tensor.yield"(%a) : (f32) -> ()
  }) : (memref<2x3xf32>, memref<2x1xi64>, memref<4x3xf32>) -> ()
  return
}
