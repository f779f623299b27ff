#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @conv_relu(%arg0: tensor<1x3x10x10xf32>) -> tensor<1x16x5x5xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %cst_1 = arith.constant -2.14748365E+9 : f32
    %cst_2 = arith.constant 2.14748365E+9 : f32
    %cst_3 = arith.constant 2.73600803E-4 : f32
    %cst_4 = arith.constant 0.0307041071 : f32
    %cst_5 = arith.constant 0.000000e+00 : f32
    %cst_6 = arith.constant 2.7360079878552615E-4 : f64
    %c0_i32 = arith.constant 0 : i32
    %c0_i8 = arith.constant 0 : i8
    %cst_7 = arith.constant 0.0573863462 : f32
    %cst_8 = arith.constant dense<[1744, 995, -282, 1975, -2741, 2481, -116, -991, 1369, 1937, 1407, 3654, 1975, 2346, -987, 195]> : tensor<16xi32>
    %cst_9 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<16x3x3x3xi8>
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_8 : tensor<16xi32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: i32, %out: f32):
      %16 = arith.sitofp %in : i32 to f32
      %17 = arith.mulf %16, %cst_3 : f32
      linalg.yield %17 : f32
    } -> tensor<16xf32>
    %2 = tensor.empty() : tensor<1x3x10x10xi8>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x10x10xf32>) outs(%2 : tensor<1x3x10x10xi8>) {
    ^bb0(%in: f32, %out: i8):
      %16 = arith.divf %in, %cst_4 : f32
      %17 = math.roundeven %16 : f32
      %18 = arith.addf %17, %cst_5 : f32
      %19 = arith.maximumf %18, %cst : f32
      %20 = arith.minimumf %19, %cst_0 : f32
      %21 = arith.fptosi %20 : f32 to i8
      linalg.yield %21 : i8
    } -> tensor<1x3x10x10xi8>
    %4 = tensor.empty() : tensor<16xi32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%4 : tensor<16xi32>) {
    ^bb0(%in: f32, %out: i32):
      %16 = arith.truncf %cst_6 : f64 to f32
      %17 = arith.divf %in, %16 : f32
      %18 = math.roundeven %17 : f32
      %19 = arith.addf %18, %cst_5 : f32
      %20 = arith.maximumf %19, %cst_1 : f32
      %21 = arith.minimumf %20, %cst_2 : f32
      %22 = arith.fptosi %21 : f32 to i32
      linalg.yield %22 : i32
    } -> tensor<16xi32>
    %padded = tensor.pad %3 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x3x10x10xi8> to tensor<1x3x12x12xi8>
    %6 = tensor.empty() : tensor<1x16x5x5xi32>
    %broadcasted = linalg.broadcast ins(%5 : tensor<16xi32>) outs(%6 : tensor<1x16x5x5xi32>) dimensions = [0, 2, 3] 
    %7 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %cst_9, %c0_i32, %c0_i32 : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%broadcasted : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
    %8 = tensor.empty() : tensor<1x16x5x5xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<1x16x5x5xi32>) outs(%8 : tensor<1x16x5x5xf32>) {
    ^bb0(%in: i32, %out: f32):
      %16 = arith.truncf %cst_6 : f64 to f32
      %17 = arith.sitofp %in : i32 to f32
      %18 = arith.mulf %17, %16 : f32
      linalg.yield %18 : f32
    } -> tensor<1x16x5x5xf32>
    %10 = tensor.empty() : tensor<1x16x5x5xi8>
    %11 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x16x5x5xf32>) outs(%10 : tensor<1x16x5x5xi8>) {
    ^bb0(%in: f32, %out: i8):
      %16 = arith.divf %in, %cst_7 : f32
      %17 = math.roundeven %16 : f32
      %18 = arith.addf %17, %cst_5 : f32
      %19 = arith.maximumf %18, %cst : f32
      %20 = arith.minimumf %19, %cst_0 : f32
      %21 = arith.fptosi %20 : f32 to i8
      linalg.yield %21 : i8
    } -> tensor<1x16x5x5xi8>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x16x5x5xi8>) outs(%10 : tensor<1x16x5x5xi8>) {
    ^bb0(%in: i8, %out: i8):
      %16 = arith.maxsi %in, %c0_i8 : i8
      linalg.yield %16 : i8
    } -> tensor<1x16x5x5xi8>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x16x5x5xi8>) outs(%8 : tensor<1x16x5x5xf32>) {
    ^bb0(%in: i8, %out: f32):
      %16 = arith.sitofp %in : i8 to f32
      %17 = arith.mulf %16, %cst_7 : f32
      linalg.yield %17 : f32
    } -> tensor<1x16x5x5xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x16x5x5xf32>) outs(%10 : tensor<1x16x5x5xi8>) {
    ^bb0(%in: f32, %out: i8):
      %16 = arith.divf %in, %cst_7 : f32
      %17 = math.roundeven %16 : f32
      %18 = arith.addf %17, %cst_5 : f32
      %19 = arith.maximumf %18, %cst : f32
      %20 = arith.minimumf %19, %cst_0 : f32
      %21 = arith.fptosi %20 : f32 to i8
      linalg.yield %21 : i8
    } -> tensor<1x16x5x5xi8>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<1x16x5x5xi8>) outs(%8 : tensor<1x16x5x5xf32>) {
    ^bb0(%in: i8, %out: f32):
      %16 = arith.sitofp %in : i8 to f32
      %17 = arith.mulf %16, %cst_7 : f32
      linalg.yield %17 : f32
    } -> tensor<1x16x5x5xf32>
    return %15 : tensor<1x16x5x5xf32>
  }
}

