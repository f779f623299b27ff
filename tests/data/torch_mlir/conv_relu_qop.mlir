#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @conv_relu_qop(%arg0: tensor<1x3x10x10xf32>) -> tensor<1x16x5x5xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %c-128_i64 = arith.constant -128 : i64
    %cst_1 = arith.constant 0.0269490033 : f32
    %cst_2 = arith.constant 1.700000e+01 : f32
    %c17_i32 = arith.constant 17 : i32
    %c0_i32 = arith.constant 0 : i32
    %c17_i8 = arith.constant 17 : i8
    %cst_3 = arith.constant 2.4013949688965475E-4 : f64
    %cst_4 = arith.constant 0.0285806507 : f32
    %cst_5 = arith.constant dense<[1987, 1134, -321, 2250, -3123, 2827, -133, -1129, 1560, 2207, 1603, 4163, 2250, 2672, -1124, 222]> : tensor<16xi32>
    %cst_6 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<16x3x3x3xi8>
    %0 = tensor.empty() : tensor<1x3x10x10xi8>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x10x10xf32>) outs(%0 : tensor<1x3x10x10xi8>) {
    ^bb0(%in: f32, %out: i8):
      %9 = arith.divf %in, %cst_1 : f32
      %10 = math.roundeven %9 : f32
      %11 = arith.addf %10, %cst_2 : f32
      %12 = arith.maximumf %11, %cst : f32
      %13 = arith.minimumf %12, %cst_0 : f32
      %14 = arith.fptosi %13 : f32 to i8
      linalg.yield %14 : i8
    } -> tensor<1x3x10x10xi8>
    %padded = tensor.pad %1 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c17_i8 : i8
    } : tensor<1x3x10x10xi8> to tensor<1x3x12x12xi8>
    %2 = tensor.empty() : tensor<1x16x5x5xi32>
    %broadcasted = linalg.broadcast ins(%cst_5 : tensor<16xi32>) outs(%2 : tensor<1x16x5x5xi32>) dimensions = [0, 2, 3] 
    %3 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %cst_6, %c17_i32, %c0_i32 : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%broadcasted : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>
    %4 = tensor.empty() : tensor<1x16x5x5xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x16x5x5xi32>) outs(%4 : tensor<1x16x5x5xf32>) {
    ^bb0(%in: i32, %out: f32):
      %9 = arith.truncf %cst_3 : f64 to f32
      %10 = arith.sitofp %in : i32 to f32
      %11 = arith.mulf %10, %9 : f32
      linalg.yield %11 : f32
    } -> tensor<1x16x5x5xf32>
    %6 = tensor.empty() : tensor<1x16x5x5xi8>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<1x16x5x5xf32>) outs(%6 : tensor<1x16x5x5xi8>) {
    ^bb0(%in: f32, %out: i8):
      %9 = arith.divf %in, %cst_4 : f32
      %10 = math.roundeven %9 : f32
      %11 = arith.addf %10, %cst : f32
      %12 = arith.maximumf %11, %cst : f32
      %13 = arith.minimumf %12, %cst_0 : f32
      %14 = arith.fptosi %13 : f32 to i8
      linalg.yield %14 : i8
    } -> tensor<1x16x5x5xi8>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<1x16x5x5xi8>) outs(%4 : tensor<1x16x5x5xf32>) {
    ^bb0(%in: i8, %out: f32):
      %9 = arith.extsi %in : i8 to i64
      %10 = arith.subi %9, %c-128_i64 : i64
      %11 = arith.sitofp %10 : i64 to f32
      %12 = arith.mulf %11, %cst_4 : f32
      linalg.yield %12 : f32
    } -> tensor<1x16x5x5xf32>
    return %8 : tensor<1x16x5x5xf32>
  }
}

