// A scatter whose combiner is an op remat does not know (scatter.test).
func.func @impure(%upd: tensor<2x3xf32>, %idx: tensor<2x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%upd, %idx, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%u: f32, %o: f32):
    %s = "test.combine"(%o, %u) : (f32, f32) -> f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
