#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @avgpool_block(%arg0: tensor<1x3x8x8xf32>) -> tensor<1x16x4x4xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %cst_1 = arith.constant -2.14748365E+9 : f32
    %cst_2 = arith.constant 2.14748365E+9 : f32
    %c8_i64 = arith.constant 8 : i64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %c9_i64 = arith.constant 9 : i64
    %cst_4 = arith.constant 2.73600803E-4 : f32
    %cst_5 = arith.constant 0.0307041071 : f32
    %cst_6 = arith.constant 2.7360079878552615E-4 : f64
    %c0_i32 = arith.constant 0 : i32
    %c0_i8 = arith.constant 0 : i8
    %cst_7 = arith.constant 0.0496661477 : f32
    %cst_8 = arith.constant 9.000000e+00 : f32
    %c2_i64 = arith.constant 2 : i64
    %cst_9 = arith.constant 4.000000e+00 : f32
    %c1_i64 = arith.constant 1 : i64
    %cst_10 = arith.constant dense<[1047, 597, -169, 1185, -1645, 1489, -70, -595, 821, 1162, 844, 2192, 1185, 1407, -592, 117]> : tensor<16xi32>
    %cst_11 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<16x3x3x3xi8>
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_10 : tensor<16xi32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: i32, %out: f32):
      %34 = arith.sitofp %in : i32 to f32
      %35 = arith.mulf %34, %cst_4 : f32
      linalg.yield %35 : f32
    } -> tensor<16xf32>
    %2 = tensor.empty() : tensor<1x3x8x8xi8>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x8x8xf32>) outs(%2 : tensor<1x3x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_5 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x3x8x8xi8>
    %4 = tensor.empty() : tensor<16xi32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%4 : tensor<16xi32>) {
    ^bb0(%in: f32, %out: i32):
      %34 = arith.truncf %cst_6 : f64 to f32
      %35 = arith.divf %in, %34 : f32
      %36 = math.roundeven %35 : f32
      %37 = arith.addf %36, %cst_3 : f32
      %38 = arith.maximumf %37, %cst_1 : f32
      %39 = arith.minimumf %38, %cst_2 : f32
      %40 = arith.fptosi %39 : f32 to i32
      linalg.yield %40 : i32
    } -> tensor<16xi32>
    %padded = tensor.pad %3 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x3x8x8xi8> to tensor<1x3x10x10xi8>
    %6 = tensor.empty() : tensor<1x16x8x8xi32>
    %broadcasted = linalg.broadcast ins(%5 : tensor<16xi32>) outs(%6 : tensor<1x16x8x8xi32>) dimensions = [0, 2, 3] 
    %7 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %cst_11, %c0_i32, %c0_i32 : tensor<1x3x10x10xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%broadcasted : tensor<1x16x8x8xi32>) -> tensor<1x16x8x8xi32>
    %8 = tensor.empty() : tensor<1x16x8x8xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<1x16x8x8xi32>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %34 = arith.truncf %cst_6 : f64 to f32
      %35 = arith.sitofp %in : i32 to f32
      %36 = arith.mulf %35, %34 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x8x8xf32>
    %10 = tensor.empty() : tensor<1x16x8x8xi8>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x16x8x8xf32>) outs(%10 : tensor<1x16x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_7 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x16x8x8xi8>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x16x8x8xi8>) outs(%10 : tensor<1x16x8x8xi8>) {
    ^bb0(%in: i8, %out: i8):
      %34 = arith.maxsi %in, %c0_i8 : i8
      linalg.yield %34 : i8
    } -> tensor<1x16x8x8xi8>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x16x8x8xi8>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %34 = arith.sitofp %in : i8 to f32
      %35 = arith.mulf %34, %cst_7 : f32
      linalg.yield %35 : f32
    } -> tensor<1x16x8x8xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x16x8x8xf32>) outs(%10 : tensor<1x16x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_7 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x16x8x8xi8>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x16x8x8xi8>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %34 = arith.sitofp %in : i8 to f32
      %35 = arith.mulf %34, %cst_7 : f32
      linalg.yield %35 : f32
    } -> tensor<1x16x8x8xf32>
    %padded_12 = tensor.pad %15 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_3 : f32
    } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
    %16 = linalg.fill ins(%cst_3 : f32) outs(%8 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    %17 = tensor.empty() : tensor<3x3xf32>
    %18 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_12, %17 : tensor<1x16x10x10xf32>, tensor<3x3xf32>) outs(%16 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    %19 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x16x8x8xf32>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_8 : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x8x8xf32>
    %20 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19 : tensor<1x16x8x8xf32>) outs(%10 : tensor<1x16x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_7 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x16x8x8xi8>
    %21 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20 : tensor<1x16x8x8xi8>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %34 = arith.sitofp %in : i8 to f32
      %35 = arith.mulf %34, %cst_7 : f32
      linalg.yield %35 : f32
    } -> tensor<1x16x8x8xf32>
    %padded_13 = tensor.pad %21 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_3 : f32
    } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
    %22 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_13, %17 : tensor<1x16x10x10xf32>, tensor<3x3xf32>) outs(%16 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
    %23 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22 : tensor<1x16x8x8xf32>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = linalg.index 2 : index
      %35 = arith.index_cast %34 : index to i64
      %36 = arith.subi %35, %c1_i64 : i64
      %37 = arith.addi %35, %c2_i64 : i64
      %38 = arith.minsi %37, %c9_i64 : i64
      %39 = arith.minsi %38, %c8_i64 : i64
      %40 = arith.subi %c1_i64, %35 : i64
      %41 = arith.maxsi %40, %c0_i64 : i64
      %42 = arith.subi %39, %36 : i64
      %43 = arith.subi %42, %41 : i64
      %44 = arith.maxsi %43, %c0_i64 : i64
      %45 = linalg.index 3 : index
      %46 = arith.index_cast %45 : index to i64
      %47 = arith.subi %46, %c1_i64 : i64
      %48 = arith.addi %46, %c2_i64 : i64
      %49 = arith.minsi %48, %c9_i64 : i64
      %50 = arith.minsi %49, %c8_i64 : i64
      %51 = arith.subi %c1_i64, %46 : i64
      %52 = arith.maxsi %51, %c0_i64 : i64
      %53 = arith.subi %50, %47 : i64
      %54 = arith.subi %53, %52 : i64
      %55 = arith.maxsi %54, %c0_i64 : i64
      %56 = arith.muli %44, %55 : i64
      %57 = arith.sitofp %56 : i64 to f32
      %58 = arith.divf %in, %57 : f32
      linalg.yield %58 : f32
    } -> tensor<1x16x8x8xf32>
    %24 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23 : tensor<1x16x8x8xf32>) outs(%10 : tensor<1x16x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_7 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x16x8x8xi8>
    %25 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24 : tensor<1x16x8x8xi8>) outs(%8 : tensor<1x16x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %34 = arith.sitofp %in : i8 to f32
      %35 = arith.mulf %34, %cst_7 : f32
      linalg.yield %35 : f32
    } -> tensor<1x16x8x8xf32>
    %26 = tensor.empty() : tensor<1x16x4x4xf32>
    %27 = linalg.fill ins(%cst_3 : f32) outs(%26 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
    %28 = tensor.empty() : tensor<2x2xf32>
    %29 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%25, %28 : tensor<1x16x8x8xf32>, tensor<2x2xf32>) outs(%27 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
    %30 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29 : tensor<1x16x4x4xf32>) outs(%26 : tensor<1x16x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %34 = arith.divf %in, %cst_9 : f32
      linalg.yield %34 : f32
    } -> tensor<1x16x4x4xf32>
    %31 = tensor.empty() : tensor<1x16x4x4xi8>
    %32 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30 : tensor<1x16x4x4xf32>) outs(%31 : tensor<1x16x4x4xi8>) {
    ^bb0(%in: f32, %out: i8):
      %34 = arith.divf %in, %cst_7 : f32
      %35 = math.roundeven %34 : f32
      %36 = arith.addf %35, %cst_3 : f32
      %37 = arith.maximumf %36, %cst : f32
      %38 = arith.minimumf %37, %cst_0 : f32
      %39 = arith.fptosi %38 : f32 to i8
      linalg.yield %39 : i8
    } -> tensor<1x16x4x4xi8>
    %33 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32 : tensor<1x16x4x4xi8>) outs(%26 : tensor<1x16x4x4xf32>) {
    ^bb0(%in: i8, %out: f32):
      %34 = arith.sitofp %in : i8 to f32
      %35 = arith.mulf %34, %cst_7 : f32
      linalg.yield %35 : f32
    } -> tensor<1x16x4x4xf32>
    return %33 : tensor<1x16x4x4xf32>
  }
}

