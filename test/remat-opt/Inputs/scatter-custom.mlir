// tm_tensor.scatter as torch-mlir prints it by default: its custom form,
// which needs torch-mlir's TMTensor dialect (scatter-bad-input.test).
func.func @custom(%u: tensor<6x1x4xf32>, %i: tensor<6x1xi64>, %o: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = tm_tensor.scatter {dimension_map = array<i64: 0>} unique_indices(false) ins(%u, %i : tensor<6x1x4xf32>, tensor<6x1xi64>) outs(%o : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %b, %a : f32
    tm_tensor.yield %s : f32
  } -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
