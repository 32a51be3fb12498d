// The training step of a small CNN with BatchNorm2d in training mode, as
// torch-mlir exports it (torch 2.x, torch-mlir linalg-on-tensors through
// bench/models/remat_models.py's joint_graph, debug info off): BatchNorm's
// mean and variance are computed in f64, so the f64 copies of the conv's
// output set the lower bound. Model:
//   conv = nn.Conv2d(3, 8, 3, padding=1); bn = nn.BatchNorm2d(8); fc = nn.Linear(8, 4)
//   forward(x, y) = (F.mse_loss(fc(relu(bn(conv(x))).mean(dim=(2, 3))), y),)
//   x: 2x3x8x8, y: 2x4
#map = affine_map<() -> ()>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map6 = affine_map<(d0, d1) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> (d1)>
#map8 = affine_map<(d0, d1) -> ()>
#map9 = affine_map<(d0, d1) -> (0, d1)>
#map10 = affine_map<(d0, d1, d2, d3) -> ()>
#map11 = affine_map<(d0, d1, d2, d3) -> (d1)>
module {
  func.func @bn_step(%arg0: tensor<8x3x3x3xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<4x8xf32>, %arg5: tensor<4xf32>, %arg6: tensor<8xf32>, %arg7: tensor<8xf32>, %arg8: tensor<i64>, %arg9: tensor<2x3x8x8xf32>, %arg10: tensor<2x4xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<f32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>) {
    %c2_i64 = arith.constant 2 : i64
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0.000000e+00 : f64
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_3 = arith.constant 1.0078740157480315 : f64
    %cst_4 = arith.constant 9.000000e-01 : f64
    %cst_5 = arith.constant 1.000000e-01 : f64
    %cst_6 = arith.constant 1.000000e-05 : f64
    %cst_7 = arith.constant 1.280000e+02 : f64
    %cst_8 = arith.constant 1.280000e+02 : f32
    %cst_9 = arith.constant 6.400000e+01 : f32
    %cst_10 = arith.constant 8.000000e+00 : f32
    %cst_11 = arith.constant 2.500000e-01 : f32
    %cst_12 = arith.constant 7.812500e-03 : f32
    %padded = tensor.pad %arg9 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg11: index, %arg12: index, %arg13: index, %arg14: index):
      tensor.yield %cst : f32
    } : tensor<2x3x8x8xf32> to tensor<2x3x10x10xf32>
    %0 = tensor.empty() : tensor<2x8x8x8xf32>
    %broadcasted = linalg.broadcast ins(%arg1 : tensor<8xf32>) outs(%0 : tensor<2x8x8x8xf32>) dimensions = [0, 2, 3] 
    %1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %arg0 : tensor<2x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%broadcasted : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
    %2 = tensor.empty() : tensor<i64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%arg8 : tensor<i64>) outs(%2 : tensor<i64>) {
    ^bb0(%in: i64, %out: i64):
      %136 = arith.addi %in, %c1_i64 : i64
      linalg.yield %136 : i64
    } -> tensor<i64>
    %4 = tensor.empty() : tensor<2x8x8x8xf64>
    %5 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1 : tensor<2x8x8x8xf32>) outs(%4 : tensor<2x8x8x8xf64>) {
    ^bb0(%in: f32, %out: f64):
      %136 = arith.extf %in : f32 to f64
      linalg.yield %136 : f64
    } -> tensor<2x8x8x8xf64>
    %6 = tensor.empty() : tensor<1x8x1x1xf64>
    %7 = linalg.fill ins(%cst_0 : f64) outs(%6 : tensor<1x8x1x1xf64>) -> tensor<1x8x1x1xf64>
    %8 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%5 : tensor<2x8x8x8xf64>) outs(%7 : tensor<1x8x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %136 = arith.addf %in, %out : f64
      linalg.yield %136 : f64
    } -> tensor<1x8x1x1xf64>
    %9 = tensor.empty() : tensor<1x8x1x1xf64>
    %10 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x8x1x1xf64>) outs(%9 : tensor<1x8x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %136 = arith.divf %in, %cst_7 : f64
      linalg.yield %136 : f64
    } -> tensor<1x8x1x1xf64>
    %11 = tensor.empty() : tensor<2x8x8x8xf64>
    %12 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %10 : tensor<2x8x8x8xf64>, tensor<1x8x1x1xf64>) outs(%11 : tensor<2x8x8x8xf64>) {
    ^bb0(%in: f64, %in_25: f64, %out: f64):
      %136 = arith.subf %in, %in_25 : f64
      linalg.yield %136 : f64
    } -> tensor<2x8x8x8xf64>
    %13 = tensor.empty() : tensor<2x8x8x8xf64>
    %14 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %12 : tensor<2x8x8x8xf64>, tensor<2x8x8x8xf64>) outs(%13 : tensor<2x8x8x8xf64>) {
    ^bb0(%in: f64, %in_25: f64, %out: f64):
      %136 = arith.mulf %in, %in_25 : f64
      linalg.yield %136 : f64
    } -> tensor<2x8x8x8xf64>
    %15 = tensor.empty() : tensor<1x8x1x1xf64>
    %16 = linalg.fill ins(%cst_0 : f64) outs(%15 : tensor<1x8x1x1xf64>) -> tensor<1x8x1x1xf64>
    %17 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%14 : tensor<2x8x8x8xf64>) outs(%16 : tensor<1x8x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %136 = arith.addf %in, %out : f64
      linalg.yield %136 : f64
    } -> tensor<1x8x1x1xf64>
    %18 = tensor.empty() : tensor<1x8x1x1xf64>
    %19 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17 : tensor<1x8x1x1xf64>) outs(%18 : tensor<1x8x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %136 = arith.divf %in, %cst_7 : f64
      linalg.yield %136 : f64
    } -> tensor<1x8x1x1xf64>
    %20 = tensor.empty() : tensor<1x8x1x1xf32>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19 : tensor<1x8x1x1xf64>) outs(%20 : tensor<1x8x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %136 = arith.truncf %in : f64 to f32
      linalg.yield %136 : f32
    } -> tensor<1x8x1x1xf32>
    %22 = tensor.empty() : tensor<1x8x1x1xf32>
    %23 = linalg.fill ins(%cst : f32) outs(%22 : tensor<1x8x1x1xf32>) -> tensor<1x8x1x1xf32>
    %24 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%1 : tensor<2x8x8x8xf32>) outs(%23 : tensor<1x8x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<1x8x1x1xf32>
    %25 = tensor.empty() : tensor<1x8x1x1xf32>
    %26 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24 : tensor<1x8x1x1xf32>) outs(%25 : tensor<1x8x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.divf %in, %cst_8 : f32
      linalg.yield %136 : f32
    } -> tensor<1x8x1x1xf32>
    %27 = tensor.empty() : tensor<1x8x1x1xf32>
    %28 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<1x8x1x1xf32>) outs(%27 : tensor<1x8x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_6 : f64 to f32
      %137 = arith.addf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<1x8x1x1xf32>
    %29 = tensor.empty() : tensor<1x8x1x1xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28 : tensor<1x8x1x1xf32>) outs(%29 : tensor<1x8x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = math.rsqrt %in : f32
      linalg.yield %136 : f32
    } -> tensor<1x8x1x1xf32>
    %31 = tensor.empty() : tensor<2x8x8x8xf32>
    %32 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %26 : tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%31 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.subf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %33 = tensor.empty() : tensor<2x8x8x8xf32>
    %34 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %30 : tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%33 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %collapsed = tensor.collapse_shape %26 [[0, 1, 2, 3]] : tensor<1x8x1x1xf32> into tensor<8xf32>
    %collapsed_13 = tensor.collapse_shape %30 [[0, 1, 2, 3]] : tensor<1x8x1x1xf32> into tensor<8xf32>
    %35 = tensor.empty() : tensor<8xf32>
    %36 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<8xf32>) outs(%35 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_5 : f64 to f32
      %137 = arith.mulf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<8xf32>
    %37 = tensor.empty() : tensor<8xf32>
    %38 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg6 : tensor<8xf32>) outs(%37 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_4 : f64 to f32
      %137 = arith.mulf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<8xf32>
    %39 = tensor.empty() : tensor<8xf32>
    %40 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%36, %38 : tensor<8xf32>, tensor<8xf32>) outs(%39 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.addf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %collapsed_14 = tensor.collapse_shape %21 [[0, 1, 2, 3]] : tensor<1x8x1x1xf32> into tensor<8xf32>
    %41 = tensor.empty() : tensor<8xf32>
    %42 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed_14 : tensor<8xf32>) outs(%41 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_3 : f64 to f32
      %137 = arith.mulf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<8xf32>
    %43 = tensor.empty() : tensor<8xf32>
    %44 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%42 : tensor<8xf32>) outs(%43 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_5 : f64 to f32
      %137 = arith.mulf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<8xf32>
    %45 = tensor.empty() : tensor<8xf32>
    %46 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg7 : tensor<8xf32>) outs(%45 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.truncf %cst_4 : f64 to f32
      %137 = arith.mulf %in, %136 : f32
      linalg.yield %137 : f32
    } -> tensor<8xf32>
    %47 = tensor.empty() : tensor<8xf32>
    %48 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%44, %46 : tensor<8xf32>, tensor<8xf32>) outs(%47 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.addf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %expanded = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %49 = tensor.empty() : tensor<2x8x8x8xf32>
    %50 = linalg.generic {indexing_maps = [#map1, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%34, %expanded : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%49 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %expanded_15 = tensor.expand_shape %arg3 [[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
    %51 = tensor.empty() : tensor<2x8x8x8xf32>
    %52 = linalg.generic {indexing_maps = [#map1, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%50, %expanded_15 : tensor<2x8x8x8xf32>, tensor<8x1x1xf32>) outs(%51 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.addf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %53 = tensor.empty() : tensor<2x8x8x8xf32>
    %54 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%52 : tensor<2x8x8x8xf32>) outs(%53 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.cmpf ugt, %in, %cst : f32
      %137 = arith.select %136, %in, %cst : f32
      linalg.yield %137 : f32
    } -> tensor<2x8x8x8xf32>
    %55 = tensor.empty() : tensor<2x8xf32>
    %56 = linalg.fill ins(%cst : f32) outs(%55 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %57 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%54 : tensor<2x8x8x8xf32>) outs(%56 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<2x8xf32>
    %58 = tensor.empty() : tensor<2x8xf32>
    %59 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%57 : tensor<2x8xf32>) outs(%58 : tensor<2x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.divf %in, %cst_9 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8xf32>
    %60 = tensor.empty() : tensor<8x4xf32>
    %transposed = linalg.transpose ins(%arg4 : tensor<4x8xf32>) outs(%60 : tensor<8x4xf32>) permutation = [1, 0] 
    %61 = tensor.empty() : tensor<2x4xf32>
    %62 = linalg.fill ins(%cst : f32) outs(%61 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %63 = linalg.matmul ins(%59, %transposed : tensor<2x8xf32>, tensor<8x4xf32>) outs(%62 : tensor<2x4xf32>) -> tensor<2x4xf32>
    %64 = tensor.empty() : tensor<2x4xf32>
    %65 = linalg.generic {indexing_maps = [#map7, #map6], iterator_types = ["parallel", "parallel"]} ins(%arg5 : tensor<4xf32>) outs(%64 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4xf32>
    %66 = tensor.empty() : tensor<2x4xf32>
    %67 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%63, %65 : tensor<2x4xf32>, tensor<2x4xf32>) outs(%66 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.addf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x4xf32>
    %68 = tensor.empty() : tensor<2x4xf32>
    %69 = linalg.generic {indexing_maps = [#map6, #map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%67, %arg10 : tensor<2x4xf32>, tensor<2x4xf32>) outs(%68 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.subf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x4xf32>
    %70 = tensor.empty() : tensor<2x4xf32>
    %71 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%69 : tensor<2x4xf32>) outs(%70 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = math.fpowi %in, %c2_i64 : f32, i64
      linalg.yield %136 : f32
    } -> tensor<2x4xf32>
    %72 = tensor.empty() : tensor<f32>
    %73 = linalg.fill ins(%cst : f32) outs(%72 : tensor<f32>) -> tensor<f32>
    %74 = linalg.generic {indexing_maps = [#map6, #map8], iterator_types = ["reduction", "reduction"]} ins(%71 : tensor<2x4xf32>) outs(%73 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<f32>
    %75 = tensor.empty() : tensor<f32>
    %76 = linalg.generic {indexing_maps = [#map, #map], iterator_types = []} ins(%74 : tensor<f32>) outs(%75 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.divf %in, %cst_10 : f32
      linalg.yield %136 : f32
    } -> tensor<f32>
    %77 = tensor.empty() : tensor<2x4xf32>
    %78 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel", "parallel"]} ins(%69 : tensor<2x4xf32>) outs(%77 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.mulf %in, %cst_11 : f32
      linalg.yield %136 : f32
    } -> tensor<2x4xf32>
    %79 = tensor.empty() : tensor<2x4xf32>
    %80 = linalg.generic {indexing_maps = [#map6, #map8, #map6], iterator_types = ["parallel", "parallel"]} ins(%78, %cst_2 : tensor<2x4xf32>, tensor<f32>) outs(%79 : tensor<2x4xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x4xf32>
    %81 = tensor.empty() : tensor<2x8xf32>
    %82 = linalg.fill ins(%cst : f32) outs(%81 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %83 = linalg.matmul ins(%80, %arg4 : tensor<2x4xf32>, tensor<4x8xf32>) outs(%82 : tensor<2x8xf32>) -> tensor<2x8xf32>
    %84 = tensor.empty() : tensor<4x2xf32>
    %transposed_16 = linalg.transpose ins(%80 : tensor<2x4xf32>) outs(%84 : tensor<4x2xf32>) permutation = [1, 0] 
    %85 = tensor.empty() : tensor<4x8xf32>
    %86 = linalg.fill ins(%cst : f32) outs(%85 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %87 = linalg.matmul ins(%transposed_16, %59 : tensor<4x2xf32>, tensor<2x8xf32>) outs(%86 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %88 = tensor.empty() : tensor<1x4xf32>
    %89 = linalg.fill ins(%cst : f32) outs(%88 : tensor<1x4xf32>) -> tensor<1x4xf32>
    %90 = linalg.generic {indexing_maps = [#map6, #map9], iterator_types = ["reduction", "parallel"]} ins(%80 : tensor<2x4xf32>) outs(%89 : tensor<1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<1x4xf32>
    %collapsed_17 = tensor.collapse_shape %90 [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
    %91 = tensor.empty() : tensor<2x8x8x8xf32>
    %92 = linalg.generic {indexing_maps = [#map5, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%83 : tensor<2x8xf32>) outs(%91 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x8x8x8xf32>
    %93 = tensor.empty() : tensor<2x8x8x8xf32>
    %94 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%92 : tensor<2x8x8x8xf32>) outs(%93 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.divf %in, %cst_9 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %95 = tensor.empty() : tensor<2x8x8x8xi1>
    %96 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54 : tensor<2x8x8x8xf32>) outs(%95 : tensor<2x8x8x8xi1>) {
    ^bb0(%in: f32, %out: i1):
      %136 = arith.cmpf ole, %in, %cst : f32
      linalg.yield %136 : i1
    } -> tensor<2x8x8x8xi1>
    %97 = tensor.empty() : tensor<2x8x8x8xf32>
    %98 = linalg.generic {indexing_maps = [#map1, #map10, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%96, %cst_1, %94 : tensor<2x8x8x8xi1>, tensor<f32>, tensor<2x8x8x8xf32>) outs(%97 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: i1, %in_25: f32, %in_26: f32, %out: f32):
      %136 = arith.select %in, %in_25, %in_26 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %99 = tensor.empty() : tensor<8xf32>
    %100 = linalg.fill ins(%cst : f32) outs(%99 : tensor<8xf32>) -> tensor<8xf32>
    %101 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%98 : tensor<2x8x8x8xf32>) outs(%100 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %102 = tensor.empty() : tensor<2x8x8x8xf32>
    %103 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%98, %32 : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) outs(%102 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %104 = tensor.empty() : tensor<8xf32>
    %105 = linalg.fill ins(%cst : f32) outs(%104 : tensor<8xf32>) -> tensor<8xf32>
    %106 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%103 : tensor<2x8x8x8xf32>) outs(%105 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %107 = tensor.empty() : tensor<8xf32>
    %108 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%101 : tensor<8xf32>) outs(%107 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.mulf %in, %cst_12 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %expanded_18 = tensor.expand_shape %108 [[0, 1, 2, 3]] output_shape [1, 8, 1, 1] : tensor<8xf32> into tensor<1x8x1x1xf32>
    %109 = tensor.empty() : tensor<8xf32>
    %110 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%106 : tensor<8xf32>) outs(%109 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.mulf %in, %cst_12 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %111 = tensor.empty() : tensor<8xf32>
    %112 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%collapsed_13, %collapsed_13 : tensor<8xf32>, tensor<8xf32>) outs(%111 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %113 = tensor.empty() : tensor<8xf32>
    %114 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%110, %112 : tensor<8xf32>, tensor<8xf32>) outs(%113 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %expanded_19 = tensor.expand_shape %114 [[0, 1, 2, 3]] output_shape [1, 8, 1, 1] : tensor<8xf32> into tensor<1x8x1x1xf32>
    %115 = tensor.empty() : tensor<8xf32>
    %116 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%collapsed_13, %arg2 : tensor<8xf32>, tensor<8xf32>) outs(%115 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %expanded_20 = tensor.expand_shape %116 [[0, 1, 2, 3]] output_shape [1, 8, 1, 1] : tensor<8xf32> into tensor<1x8x1x1xf32>
    %117 = tensor.empty() : tensor<2x8x8x8xf32>
    %118 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %expanded_19 : tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%117 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %119 = tensor.empty() : tensor<2x8x8x8xf32>
    %120 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%98, %118 : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>) outs(%119 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.subf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %121 = tensor.empty() : tensor<2x8x8x8xf32>
    %122 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%120, %expanded_18 : tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%121 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.subf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %123 = tensor.empty() : tensor<2x8x8x8xf32>
    %124 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%122, %expanded_20 : tensor<2x8x8x8xf32>, tensor<1x8x1x1xf32>) outs(%123 : tensor<2x8x8x8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<2x8x8x8xf32>
    %125 = tensor.empty() : tensor<8xf32>
    %126 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%106, %collapsed_13 : tensor<8xf32>, tensor<8xf32>) outs(%125 : tensor<8xf32>) {
    ^bb0(%in: f32, %in_25: f32, %out: f32):
      %136 = arith.mulf %in, %in_25 : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    %127 = tensor.empty() : tensor<3x2x8x8xf32>
    %transposed_21 = linalg.transpose ins(%arg9 : tensor<2x3x8x8xf32>) outs(%127 : tensor<3x2x8x8xf32>) permutation = [1, 0, 2, 3] 
    %128 = tensor.empty() : tensor<8x2x8x8xf32>
    %transposed_22 = linalg.transpose ins(%124 : tensor<2x8x8x8xf32>) outs(%128 : tensor<8x2x8x8xf32>) permutation = [1, 0, 2, 3] 
    %padded_23 = tensor.pad %transposed_21 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg11: index, %arg12: index, %arg13: index, %arg14: index):
      tensor.yield %cst : f32
    } : tensor<3x2x8x8xf32> to tensor<3x2x10x10xf32>
    %129 = tensor.empty() : tensor<3x8x3x3xf32>
    %130 = linalg.fill ins(%cst : f32) outs(%129 : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
    %131 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_23, %transposed_22 : tensor<3x2x10x10xf32>, tensor<8x2x8x8xf32>) outs(%130 : tensor<3x8x3x3xf32>) -> tensor<3x8x3x3xf32>
    %132 = tensor.empty() : tensor<8x3x3x3xf32>
    %transposed_24 = linalg.transpose ins(%131 : tensor<3x8x3x3xf32>) outs(%132 : tensor<8x3x3x3xf32>) permutation = [1, 0, 2, 3] 
    %133 = tensor.empty() : tensor<8xf32>
    %134 = linalg.fill ins(%cst : f32) outs(%133 : tensor<8xf32>) -> tensor<8xf32>
    %135 = linalg.generic {indexing_maps = [#map1, #map11], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%124 : tensor<2x8x8x8xf32>) outs(%134 : tensor<8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %136 = arith.addf %in, %out : f32
      linalg.yield %136 : f32
    } -> tensor<8xf32>
    return %40, %48, %3, %76, %transposed_24, %135, %126, %101, %87, %collapsed_17 : tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<f32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4x8xf32>, tensor<4xf32>
  }
}
