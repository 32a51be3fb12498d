// torch.scatter_add(x, 1, i, v): torch 2.15.0+cu132, torch-mlir linalg-on-tensors, generic form (torch-scatter/make.py)
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x6xf32>, tensor<3x5xi64>, tensor<3x5xf32>) -> tensor<4x6xf32>, sym_name = "scatter_add_dim1"}> ({
  ^bb0(%arg0: tensor<4x6xf32>, %arg1: tensor<3x5xi64>, %arg2: tensor<3x5xf32>):
    %0 = "arith.constant"() <{value = 3 : index}> : () -> index
    %1 = "arith.constant"() <{value = 5 : index}> : () -> index
    %2 = "arith.constant"() <{value = 0 : i64}> : () -> i64
    %3 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %4 = "tensor.empty"() : () -> tensor<15x1xi64>
    %5 = "linalg.fill"(%2, %4) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg12: i64, %arg13: i64):
      "linalg.yield"(%arg12) : (i64) -> ()
    }) : (i64, tensor<15x1xi64>) -> tensor<15x1xi64>
    %6 = "tensor.empty"() : () -> tensor<15xf32>
    %7 = "linalg.fill"(%3, %6) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg10: f32, %arg11: f32):
      "linalg.yield"(%arg10) : (f32) -> ()
    }) : (f32, tensor<15xf32>) -> tensor<15xf32>
    %8:3 = "linalg.generic"(%5, %5, %7) <{indexing_maps = [#map, #map, #map1], iterator_types = [#linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 0, 3>}> ({
    ^bb0(%arg7: i64, %arg8: i64, %arg9: f32):
      %15 = "linalg.index"() <{dim = 0 : i64}> : () -> index
      %16 = "arith.remsi"(%15, %1) : (index, index) -> index
      %17 = "arith.divsi"(%15, %1) : (index, index) -> index
      %18 = "arith.remsi"(%17, %0) : (index, index) -> index
      %19 = "tensor.extract"(%arg1, %18, %16) : (tensor<3x5xi64>, index, index) -> i64
      %20 = "tensor.extract"(%arg2, %18, %16) : (tensor<3x5xf32>, index, index) -> f32
      %21 = "arith.index_cast"(%18) : (index) -> i64
      "linalg.yield"(%21, %19, %20) : (i64, i64, f32) -> ()
    }) : (tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>) -> (tensor<15x1xi64>, tensor<15x1xi64>, tensor<15xf32>)
    %9 = "tensor.empty"() : () -> tensor<15x2xi64>
    %10 = "linalg.fill"(%2, %9) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg5: i64, %arg6: i64):
      "linalg.yield"(%arg5) : (i64) -> ()
    }) : (i64, tensor<15x2xi64>) -> tensor<15x2xi64>
    %11 = "tensor.insert_slice"(%8#0, %10) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 15, 1>, static_strides = array<i64: 1, 1>}> : (tensor<15x1xi64>, tensor<15x2xi64>) -> tensor<15x2xi64>
    %12 = "tensor.insert_slice"(%8#1, %11) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 1>, static_sizes = array<i64: 15, 1>, static_strides = array<i64: 1, 1>}> : (tensor<15x1xi64>, tensor<15x2xi64>) -> tensor<15x2xi64>
    %13 = "tm_tensor.scatter"(%8#2, %12, %arg0) <{dimension_map = array<i64: 0, 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %14 = "arith.addf"(%arg4, %arg3) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "tm_tensor.yield"(%14) : (f32) -> ()
    }) : (tensor<15xf32>, tensor<15x2xi64>, tensor<4x6xf32>) -> tensor<4x6xf32>
    "func.return"(%13) : (tensor<4x6xf32>) -> ()
  }) : () -> ()
}) : () -> ()
