#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @gap_fc_asym(%arg0: tensor<2x32x4x4xf32>) -> tensor<2x10xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %c11_i64 = arith.constant 11 : i64
    %cst_1 = arith.constant 0.000000e+00 : f32
    %c-1_i64 = arith.constant -1 : i64
    %c0_i32 = arith.constant 0 : i32
    %c8_i64 = arith.constant 8 : i64
    %cst_2 = arith.constant 5.03509073E-5 : f32
    %cst_3 = arith.constant 0.0280651785 : f32
    %cst_4 = arith.constant 1.100000e+01 : f32
    %cst_5 = arith.constant 1.600000e+01 : f32
    %cst_6 = arith.constant 0.00565049378 : f32
    %cst_7 = arith.constant -1.000000e+00 : f32
    %c-1_i32 = arith.constant -1 : i32
    %cst_8 = arith.constant 5.0350906003138619E-5 : f64
    %cst_9 = arith.constant 0.00916896295 : f32
    %cst_10 = arith.constant 8.000000e+00 : f32
    %cst_11 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E117"> : tensor<10x32xi8>
    %cst_12 = arith.constant dense<[2073, -3317, -6567, 1798, 5704, -678, 2493, -2240, 403, -1736]> : tensor<10xi32>
    %0 = tensor.empty() : tensor<10xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_12 : tensor<10xi32>) outs(%0 : tensor<10xf32>) {
    ^bb0(%in: i32, %out: f32):
      %26 = arith.sitofp %in : i32 to f32
      %27 = arith.mulf %26, %cst_2 : f32
      linalg.yield %27 : f32
    } -> tensor<10xf32>
    %2 = tensor.empty() : tensor<2x32x4x4xi8>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x32x4x4xf32>) outs(%2 : tensor<2x32x4x4xi8>) {
    ^bb0(%in: f32, %out: i8):
      %26 = arith.divf %in, %cst_3 : f32
      %27 = math.roundeven %26 : f32
      %28 = arith.addf %27, %cst_4 : f32
      %29 = arith.maximumf %28, %cst : f32
      %30 = arith.minimumf %29, %cst_0 : f32
      %31 = arith.fptosi %30 : f32 to i8
      linalg.yield %31 : i8
    } -> tensor<2x32x4x4xi8>
    %4 = tensor.empty() : tensor<2x32x4x4xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<2x32x4x4xi8>) outs(%4 : tensor<2x32x4x4xf32>) {
    ^bb0(%in: i8, %out: f32):
      %26 = arith.extsi %in : i8 to i64
      %27 = arith.subi %26, %c11_i64 : i64
      %28 = arith.sitofp %27 : i64 to f32
      %29 = arith.mulf %28, %cst_3 : f32
      linalg.yield %29 : f32
    } -> tensor<2x32x4x4xf32>
    %6 = tensor.empty() : tensor<2x32x1x1xf32>
    %7 = linalg.fill ins(%cst_1 : f32) outs(%6 : tensor<2x32x1x1xf32>) -> tensor<2x32x1x1xf32>
    %8 = tensor.empty() : tensor<4x4xf32>
    %9 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%5, %8 : tensor<2x32x4x4xf32>, tensor<4x4xf32>) outs(%7 : tensor<2x32x1x1xf32>) -> tensor<2x32x1x1xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x32x1x1xf32>) outs(%6 : tensor<2x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %26 = arith.divf %in, %cst_5 : f32
      linalg.yield %26 : f32
    } -> tensor<2x32x1x1xf32>
    %11 = tensor.empty() : tensor<2x32x1x1xi8>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<2x32x1x1xf32>) outs(%11 : tensor<2x32x1x1xi8>) {
    ^bb0(%in: f32, %out: i8):
      %26 = arith.divf %in, %cst_6 : f32
      %27 = math.roundeven %26 : f32
      %28 = arith.addf %27, %cst_7 : f32
      %29 = arith.maximumf %28, %cst : f32
      %30 = arith.minimumf %29, %cst_0 : f32
      %31 = arith.fptosi %30 : f32 to i8
      linalg.yield %31 : i8
    } -> tensor<2x32x1x1xi8>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<2x32x1x1xi8>) outs(%6 : tensor<2x32x1x1xf32>) {
    ^bb0(%in: i8, %out: f32):
      %26 = arith.extsi %in : i8 to i64
      %27 = arith.subi %26, %c-1_i64 : i64
      %28 = arith.sitofp %27 : i64 to f32
      %29 = arith.mulf %28, %cst_6 : f32
      linalg.yield %29 : f32
    } -> tensor<2x32x1x1xf32>
    %collapsed = tensor.collapse_shape %13 [[0], [1, 2, 3]] : tensor<2x32x1x1xf32> into tensor<2x32xf32>
    %14 = tensor.empty() : tensor<2x32xi8>
    %15 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<2x32xf32>) outs(%14 : tensor<2x32xi8>) {
    ^bb0(%in: f32, %out: i8):
      %26 = arith.divf %in, %cst_6 : f32
      %27 = math.roundeven %26 : f32
      %28 = arith.addf %27, %cst_7 : f32
      %29 = arith.maximumf %28, %cst : f32
      %30 = arith.minimumf %29, %cst_0 : f32
      %31 = arith.fptosi %30 : f32 to i8
      linalg.yield %31 : i8
    } -> tensor<2x32xi8>
    %16 = tensor.empty() : tensor<32x10xi8>
    %transposed = linalg.transpose ins(%cst_11 : tensor<10x32xi8>) outs(%16 : tensor<32x10xi8>) permutation = [1, 0] 
    %17 = tensor.empty() : tensor<2x10xi32>
    %18 = linalg.fill ins(%c0_i32 : i32) outs(%17 : tensor<2x10xi32>) -> tensor<2x10xi32>
    %19 = linalg.quantized_matmul ins(%15, %transposed, %c-1_i32, %c0_i32 : tensor<2x32xi8>, tensor<32x10xi8>, i32, i32) outs(%18 : tensor<2x10xi32>) -> tensor<2x10xi32>
    %20 = tensor.empty() : tensor<2x10xf32>
    %21 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%19 : tensor<2x10xi32>) outs(%20 : tensor<2x10xf32>) {
    ^bb0(%in: i32, %out: f32):
      %26 = arith.truncf %cst_8 : f64 to f32
      %27 = arith.sitofp %in : i32 to f32
      %28 = arith.mulf %27, %26 : f32
      linalg.yield %28 : f32
    } -> tensor<2x10xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%21, %1 : tensor<2x10xf32>, tensor<10xf32>) outs(%20 : tensor<2x10xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %26 = arith.addf %in, %in_13 : f32
      linalg.yield %26 : f32
    } -> tensor<2x10xf32>
    %23 = tensor.empty() : tensor<2x10xi8>
    %24 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%22 : tensor<2x10xf32>) outs(%23 : tensor<2x10xi8>) {
    ^bb0(%in: f32, %out: i8):
      %26 = arith.divf %in, %cst_9 : f32
      %27 = math.roundeven %26 : f32
      %28 = arith.addf %27, %cst_10 : f32
      %29 = arith.maximumf %28, %cst : f32
      %30 = arith.minimumf %29, %cst_0 : f32
      %31 = arith.fptosi %30 : f32 to i8
      linalg.yield %31 : i8
    } -> tensor<2x10xi8>
    %25 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%24 : tensor<2x10xi8>) outs(%20 : tensor<2x10xf32>) {
    ^bb0(%in: i8, %out: f32):
      %26 = arith.extsi %in : i8 to i64
      %27 = arith.subi %26, %c8_i64 : i64
      %28 = arith.sitofp %27 : i64 to f32
      %29 = arith.mulf %28, %cst_9 : f32
      linalg.yield %29 : f32
    } -> tensor<2x10xf32>
    return %25 : tensor<2x10xf32>
  }
}

