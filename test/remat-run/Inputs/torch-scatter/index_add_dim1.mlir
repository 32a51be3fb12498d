// torch.index_add(x, 1, i, v): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scatter/make.py)
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d1)>
#map4 = affine_map<(d0, d1, d2) -> (d2)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<3x6x2xf32>, tensor<4xi64>, tensor<3x4x2xf32>) -> tensor<3x6x2xf32>, sym_name = "index_add_dim1"}> ({
  ^bb0(%arg0: tensor<3x6x2xf32>, %arg1: tensor<4xi64>, %arg2: tensor<3x4x2xf32>):
    %0 = "tensor.empty"() : () -> tensor<2xi64>
    %1 = "linalg.generic"(%0) <{indexing_maps = [#map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>}> ({
    ^bb0(%arg12: i64):
      %21 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %22 = "arith.index_cast"(%21) : (index) -> i64
      "linalg.yield"(%22) : (i64) -> ()
    }) : (tensor<2xi64>) -> tensor<2xi64>
    %2 = "tensor.empty"() : () -> tensor<3xi64>
    %3 = "linalg.generic"(%2) <{indexing_maps = [#map], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 1>}> ({
    ^bb0(%arg11: i64):
      %19 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %20 = "arith.index_cast"(%19) : (index) -> i64
      "linalg.yield"(%20) : (i64) -> ()
    }) : (tensor<3xi64>) -> tensor<3xi64>
    %4 = "tensor.empty"() : () -> tensor<3x4x2xi64>
    %5 = "linalg.generic"(%3, %4) <{indexing_maps = [#map1, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg9: i64, %arg10: i64):
      "linalg.yield"(%arg9) : (i64) -> ()
    }) : (tensor<3xi64>, tensor<3x4x2xi64>) -> tensor<3x4x2xi64>
    %6 = "tensor.collapse_shape"(%5) <{reassociation = [[0, 1, 2]]}> : (tensor<3x4x2xi64>) -> tensor<24xi64>
    %7 = "linalg.generic"(%arg1, %4) <{indexing_maps = [#map3, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg7: i64, %arg8: i64):
      "linalg.yield"(%arg7) : (i64) -> ()
    }) : (tensor<4xi64>, tensor<3x4x2xi64>) -> tensor<3x4x2xi64>
    %8 = "tensor.collapse_shape"(%7) <{reassociation = [[0, 1, 2]]}> : (tensor<3x4x2xi64>) -> tensor<24xi64>
    %9 = "linalg.generic"(%1, %4) <{indexing_maps = [#map4, #map2], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg5: i64, %arg6: i64):
      "linalg.yield"(%arg5) : (i64) -> ()
    }) : (tensor<2xi64>, tensor<3x4x2xi64>) -> tensor<3x4x2xi64>
    %10 = "tensor.collapse_shape"(%9) <{reassociation = [[0, 1, 2]]}> : (tensor<3x4x2xi64>) -> tensor<24xi64>
    %11 = "tensor.expand_shape"(%6) <{reassociation = [[0, 1]], static_output_shape = array<i64: 24, 1>}> : (tensor<24xi64>) -> tensor<24x1xi64>
    %12 = "tensor.expand_shape"(%8) <{reassociation = [[0, 1]], static_output_shape = array<i64: 24, 1>}> : (tensor<24xi64>) -> tensor<24x1xi64>
    %13 = "tensor.expand_shape"(%10) <{reassociation = [[0, 1]], static_output_shape = array<i64: 24, 1>}> : (tensor<24xi64>) -> tensor<24x1xi64>
    %14 = "tensor.concat"(%11, %12, %13) <{dim = 1 : i64}> : (tensor<24x1xi64>, tensor<24x1xi64>, tensor<24x1xi64>) -> tensor<24x3xi64>
    %15 = "tensor.collapse_shape"(%arg2) <{reassociation = [[0, 1, 2]]}> : (tensor<3x4x2xf32>) -> tensor<24xf32>
    %16 = "tensor.expand_shape"(%15) <{reassociation = [[0, 1, 2, 3]], static_output_shape = array<i64: 24, 1, 1, 1>}> : (tensor<24xf32>) -> tensor<24x1x1x1xf32>
    %17 = "tm_tensor.scatter"(%16, %14, %arg0) <{dimension_map = array<i64: 0, 1, 2>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %18 = "arith.addf"(%arg4, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "tm_tensor.yield"(%18) : (f32) -> ()
    }) : (tensor<24x1x1x1xf32>, tensor<24x3xi64>, tensor<3x6x2xf32>) -> tensor<3x6x2xf32>
    "func.return"(%17) : (tensor<3x6x2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
