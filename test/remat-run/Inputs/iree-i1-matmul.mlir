// A one-hot embedding lookup as IREE's input phase writes it
// (iree-compile --iree-input-type=stablehlo --compile-to=input of JAX's
// `(ids[..., None] == arange(3)).astype(f32) @ table`, as in jax-gpt2): the
// bool -> f32 conversion is folded into the matmul, which reads the i1 one-hot
// directly. Rows 0, 2, 1, 2 of the table are [1 2 3], [7 8 9], [4 5 6], [7 8 9];
// plus 0.5 (an elementwise user, through which MLIR's elementwise fusion
// rewrites the matmul into a linalg.generic, as in jax-gpt2.ci).
util.func public @embed() -> tensor<2x2x3xf32> {
  %ids = arith.constant dense<[[0, 2], [1, 2]]> : tensor<2x2xi32>
  %table = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x2x3xi1>
  %onehot = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x2xi32>) outs(%e0 : tensor<2x2x3xi1>) {
  ^bb0(%in: i32, %out: i1):
    %j = linalg.index 2 : index
    %ji = arith.index_cast %j : index to i32
    %eq = arith.cmpi eq, %in, %ji : i32
    linalg.yield %eq : i1
  } -> tensor<2x2x3xi1>
  %flat = tensor.collapse_shape %onehot [[0, 1], [2]] : tensor<2x2x3xi1> into tensor<4x3xi1>
  %e1 = tensor.empty() : tensor<4x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %rows = linalg.matmul ins(%flat, %table : tensor<4x3xi1>, tensor<3x3xf32>) outs(%acc : tensor<4x3xf32>) -> tensor<4x3xf32>
  %rows3 = tensor.expand_shape %rows [[0, 1], [2]] output_shape [2, 2, 3] : tensor<4x3xf32> into tensor<2x2x3xf32>
  %half = arith.constant 0.5 : f32
  %e2 = tensor.empty() : tensor<2x2x3xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rows3 : tensor<2x2x3xf32>) outs(%e2 : tensor<2x2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %half : f32
    linalg.yield %s : f32
  } -> tensor<2x2x3xf32>
  util.return %out : tensor<2x2x3xf32>
}
