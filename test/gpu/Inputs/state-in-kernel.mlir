// A mutable global read by a computation as a tensor (not through
// tensor.extract): after bufferization a kernel would read the global's host
// address. The GPU lowering keeps state in host memory and refuses this.
#id = affine_map<(i) -> (i)>
module {
  ml_program.global private mutable @bias(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
  func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
    %b = ml_program.global_load @bias : tensor<4xf32>
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%x, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%a: f32, %c: f32, %o: f32):
      %r = arith.addf %a, %c : f32
      linalg.yield %r : f32
    } -> tensor<4xf32>
    ml_program.global_store @bias = %y : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
