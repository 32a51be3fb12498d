// JAX step (remat-export jax; lax.while_loop: 5 times h = tanh(1.01 h), returns sum(h), h): test/remat-run/jax-loops.test. Manifest not kept.
module @jit_wstep {
  func.func @step(%arg0: tensor<4x16xf32>) -> (tensor<f32>, tensor<4x16xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.010000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %c5_i32 = arith.constant 5 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = scf.for %arg1 = %c0_i32 to %c5_i32 step %c1_i32 iter_args(%arg2 = %arg0) -> (tensor<4x16xf32>)  : i32 {
      %4 = tensor.empty() : tensor<4x16xf32>
      %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<4x16xf32>) outs(%4 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %8 = arith.mulf %in, %cst_0 : f32
        linalg.yield %8 : f32
      } -> tensor<4x16xf32>
      %6 = tensor.empty() : tensor<4x16xf32>
      %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<4x16xf32>) outs(%6 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %8 = math.tanh %in : f32
        linalg.yield %8 : f32
      } -> tensor<4x16xf32>
      scf.yield %7 : tensor<4x16xf32>
    }
    %1 = tensor.empty() : tensor<f32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<f32>) -> tensor<f32>
    %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%0 : tensor<4x16xf32>) outs(%2 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.addf %out, %in : f32
      linalg.yield %4 : f32
    } -> tensor<f32>
    func.return %3, %0 : tensor<f32>, tensor<4x16xf32>
  }
}