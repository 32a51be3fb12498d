// JAX step (remat-export jax; lax.scan of h = tanh(h @ w + x) over 8 steps, loss sum(hs^2), and its gradient): test/remat-run/jax-loops.test. Manifest not kept.
module @jit_step {
  func.func @step(%arg0: tensor<16x16xf32>, %arg1: tensor<8x4x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
    %c7_i32 = arith.constant 7 : i32
    %cst = arith.constant 1.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c7 = arith.constant 7 : index
    %c0 = arith.constant 0 : index
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<4x16xf32>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<8x4x16xf32>
    %c0_i32 = arith.constant 0 : i32
    %c8_i32 = arith.constant 8 : i32
    %c1_i32 = arith.constant 1 : i32
    %0:5 = scf.for %arg2 = %c0_i32 to %c8_i32 step %c1_i32 iter_args(%arg3 = %cst_2, %arg4 = %cst_3, %arg5 = %cst_3, %arg6 = %cst_3, %arg7 = %cst_3) -> (tensor<4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>)  : i32 {
      %9 = arith.index_cast %arg2 : i32 to index
      %10 = arith.maxsi %9, %c0 : index
      %11 = arith.minsi %10, %c7 : index
      %extracted_slice = tensor.extract_slice %arg1[%11, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<8x4x16xf32> to tensor<1x4x16xf32>
      %collapsed = tensor.collapse_shape %extracted_slice [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
      %12 = tensor.empty() : tensor<4x16xf32>
      %13 = linalg.fill ins(%cst_0 : f32) outs(%12 : tensor<4x16xf32>) -> tensor<4x16xf32>
      %14 = linalg.matmul ins(%arg3, %arg0 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%13 : tensor<4x16xf32>) -> tensor<4x16xf32>
      %15 = tensor.empty() : tensor<4x16xf32>
      %16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14, %collapsed : tensor<4x16xf32>, tensor<4x16xf32>) outs(%15 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %in_7: f32, %out: f32):
        %39 = arith.addf %in, %in_7 : f32
        linalg.yield %39 : f32
      } -> tensor<4x16xf32>
      %17 = tensor.empty() : tensor<4x16xf32>
      %18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%16 : tensor<4x16xf32>) outs(%17 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %39 = math.tanh %in : f32
        linalg.yield %39 : f32
      } -> tensor<4x16xf32>
      %19 = tensor.empty() : tensor<4x16xf32>
      %20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<4x16xf32>) outs(%19 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        %39 = arith.subf %cst, %in : f32
        linalg.yield %39 : f32
      } -> tensor<4x16xf32>
      %21 = tensor.empty() : tensor<1x4x16xf32>
      %22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18 : tensor<4x16xf32>) outs(%21 : tensor<1x4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<1x4x16xf32>
      %23 = arith.index_cast %arg2 : i32 to index
      %24 = arith.maxsi %23, %c0 : index
      %25 = arith.minsi %24, %c7 : index
      %inserted_slice = tensor.insert_slice %22 into %arg4[%25, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<1x4x16xf32> into tensor<8x4x16xf32>
      %26 = tensor.empty() : tensor<1x4x16xf32>
      %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<4x16xf32>) outs(%26 : tensor<1x4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<1x4x16xf32>
      %28 = arith.index_cast %arg2 : i32 to index
      %29 = arith.maxsi %28, %c0 : index
      %30 = arith.minsi %29, %c7 : index
      %inserted_slice_4 = tensor.insert_slice %27 into %arg5[%30, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<1x4x16xf32> into tensor<8x4x16xf32>
      %31 = arith.index_cast %arg2 : i32 to index
      %32 = arith.maxsi %31, %c0 : index
      %33 = arith.minsi %32, %c7 : index
      %inserted_slice_5 = tensor.insert_slice %22 into %arg6[%33, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<1x4x16xf32> into tensor<8x4x16xf32>
      %34 = tensor.empty() : tensor<1x4x16xf32>
      %35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20 : tensor<4x16xf32>) outs(%34 : tensor<1x4x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<1x4x16xf32>
      %36 = arith.index_cast %arg2 : i32 to index
      %37 = arith.maxsi %36, %c0 : index
      %38 = arith.minsi %37, %c7 : index
      %inserted_slice_6 = tensor.insert_slice %35 into %arg7[%38, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<1x4x16xf32> into tensor<8x4x16xf32>
      scf.yield %18, %inserted_slice, %inserted_slice_4, %inserted_slice_5, %inserted_slice_6 : tensor<4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>, tensor<8x4x16xf32>
    }
    %1 = tensor.empty() : tensor<8x4x16xf32>
    %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0#1 : tensor<8x4x16xf32>) outs(%1 : tensor<8x4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.mulf %in, %in : f32
      linalg.yield %9 : f32
    } -> tensor<8x4x16xf32>
    %3 = tensor.empty() : tensor<f32>
    %4 = linalg.fill ins(%cst_0 : f32) outs(%3 : tensor<f32>) -> tensor<f32>
    %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%2 : tensor<8x4x16xf32>) outs(%4 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.addf %out, %in : f32
      linalg.yield %9 : f32
    } -> tensor<f32>
    %6 = tensor.empty() : tensor<8x4x16xf32>
    %7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0#1, %0#1 : tensor<8x4x16xf32>, tensor<8x4x16xf32>) outs(%6 : tensor<8x4x16xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %9 = arith.addf %in, %in_4 : f32
      linalg.yield %9 : f32
    } -> tensor<8x4x16xf32>
    %8:2 = scf.for %arg2 = %c0_i32 to %c8_i32 step %c1_i32 iter_args(%arg3 = %cst_1, %arg4 = %cst_2) -> (tensor<16x16xf32>, tensor<4x16xf32>)  : i32 {
      %9 = arith.subi %c7_i32, %arg2 : i32
      %10 = arith.index_cast %9 : i32 to index
      %11 = arith.maxsi %10, %c0 : index
      %12 = arith.minsi %11, %c7 : index
      %extracted_slice = tensor.extract_slice %7[%12, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<8x4x16xf32> to tensor<1x4x16xf32>
      %collapsed = tensor.collapse_shape %extracted_slice [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
      %13 = arith.index_cast %9 : i32 to index
      %14 = arith.maxsi %13, %c0 : index
      %15 = arith.minsi %14, %c7 : index
      %extracted_slice_4 = tensor.extract_slice %0#2[%15, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<8x4x16xf32> to tensor<1x4x16xf32>
      %collapsed_5 = tensor.collapse_shape %extracted_slice_4 [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
      %16 = arith.index_cast %9 : i32 to index
      %17 = arith.maxsi %16, %c0 : index
      %18 = arith.minsi %17, %c7 : index
      %extracted_slice_6 = tensor.extract_slice %0#3[%18, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<8x4x16xf32> to tensor<1x4x16xf32>
      %collapsed_7 = tensor.collapse_shape %extracted_slice_6 [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
      %19 = arith.index_cast %9 : i32 to index
      %20 = arith.maxsi %19, %c0 : index
      %21 = arith.minsi %20, %c7 : index
      %extracted_slice_8 = tensor.extract_slice %0#4[%21, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<8x4x16xf32> to tensor<1x4x16xf32>
      %collapsed_9 = tensor.collapse_shape %extracted_slice_8 [[0, 1], [2]] : tensor<1x4x16xf32> into tensor<4x16xf32>
      %22 = tensor.empty() : tensor<4x16xf32>
      %23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg4, %collapsed : tensor<4x16xf32>, tensor<4x16xf32>) outs(%22 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %in_10: f32, %out: f32):
        %44 = arith.addf %in, %in_10 : f32
        linalg.yield %44 : f32
      } -> tensor<4x16xf32>
      %24 = tensor.empty() : tensor<4x16xf32>
      %25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%23, %collapsed_9 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%24 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %in_10: f32, %out: f32):
        %44 = arith.mulf %in, %in_10 : f32
        linalg.yield %44 : f32
      } -> tensor<4x16xf32>
      %26 = tensor.empty() : tensor<4x16xf32>
      %27 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%25, %collapsed_7 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%26 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %in_10: f32, %out: f32):
        %44 = arith.mulf %in, %in_10 : f32
        linalg.yield %44 : f32
      } -> tensor<4x16xf32>
      %28 = tensor.empty() : tensor<4x16xf32>
      %29 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%25, %27 : tensor<4x16xf32>, tensor<4x16xf32>) outs(%28 : tensor<4x16xf32>) {
      ^bb0(%in: f32, %in_10: f32, %out: f32):
        %44 = arith.addf %in, %in_10 : f32
        linalg.yield %44 : f32
      } -> tensor<4x16xf32>
      %30 = tensor.empty() : tensor<16x4xf32>
      %31 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%29 : tensor<4x16xf32>) outs(%30 : tensor<16x4xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<16x4xf32>
      %32 = tensor.empty() : tensor<16x16xf32>
      %33 = linalg.fill ins(%cst_0 : f32) outs(%32 : tensor<16x16xf32>) -> tensor<16x16xf32>
      %34 = linalg.matmul ins(%31, %collapsed_5 : tensor<16x4xf32>, tensor<4x16xf32>) outs(%33 : tensor<16x16xf32>) -> tensor<16x16xf32>
      %35 = tensor.empty() : tensor<16x16xf32>
      %36 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%34 : tensor<16x16xf32>) outs(%35 : tensor<16x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<16x16xf32>
      %37 = tensor.empty() : tensor<16x16xf32>
      %38 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg3, %36 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%37 : tensor<16x16xf32>) {
      ^bb0(%in: f32, %in_10: f32, %out: f32):
        %44 = arith.addf %in, %in_10 : f32
        linalg.yield %44 : f32
      } -> tensor<16x16xf32>
      %39 = tensor.empty() : tensor<16x16xf32>
      %40 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<16x16xf32>) outs(%39 : tensor<16x16xf32>) {
      ^bb0(%in: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<16x16xf32>
      %41 = tensor.empty() : tensor<4x16xf32>
      %42 = linalg.fill ins(%cst_0 : f32) outs(%41 : tensor<4x16xf32>) -> tensor<4x16xf32>
      %43 = linalg.matmul ins(%29, %40 : tensor<4x16xf32>, tensor<16x16xf32>) outs(%42 : tensor<4x16xf32>) -> tensor<4x16xf32>
      scf.yield %38, %43 : tensor<16x16xf32>, tensor<4x16xf32>
    }
    func.return %5, %8#0 : tensor<f32>, tensor<16x16xf32>
  }
}