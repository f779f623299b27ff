#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module {
  func.func @mobilenet_block_asym(%arg0: tensor<1x8x8x8xf32>) -> tensor<1x16x4x4xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %c-3_i64 = arith.constant -3 : i64
    %cst_1 = arith.constant -2.14748365E+9 : f32
    %cst_2 = arith.constant 2.14748365E+9 : f32
    %c15_i64 = arith.constant 15 : i64
    %c-8_i64 = arith.constant -8 : i64
    %cst_3 = arith.constant 3.29461327E-4 : f32
    %cst_4 = arith.constant 2.35924657E-4 : f32
    %cst_5 = arith.constant 2.05674907E-4 : f32
    %cst_6 = arith.constant 2.79248372E-4 : f32
    %cst_7 = arith.constant 4.59771923E-4 : f32
    %cst_8 = arith.constant 1.60182099E-4 : f32
    %cst_9 = arith.constant 0.0249870904 : f32
    %cst_10 = arith.constant -3.000000e+00 : f32
    %cst_11 = arith.constant 2.359246562117015E-4 : f64
    %cst_12 = arith.constant 0.000000e+00 : f32
    %c-3_i32 = arith.constant -3 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst_13 = arith.constant 0.0235294122 : f32
    %cst_14 = arith.constant 3.2946132767823315E-4 : f64
    %c-128_i32 = arith.constant -128 : i32
    %c-128_i8 = arith.constant -128 : i8
    %cst_15 = arith.constant 0.0232046712 : f32
    %cst_16 = arith.constant 2.0567491331607325E-4 : f64
    %cst_17 = arith.constant 0.0360683762 : f32
    %cst_18 = arith.constant 1.500000e+01 : f32
    %cst_19 = arith.constant 4.640950e-02 : f32
    %cst_20 = arith.constant 7.000000e+00 : f32
    %cst_21 = arith.constant 4.5977193600612101E-4 : f64
    %c7_i32 = arith.constant 7 : i32
    %cst_22 = arith.constant 2.7924835789793455E-4 : f64
    %cst_23 = arith.constant 1.6018209525247087E-4 : f64
    %cst_24 = arith.constant 3.923890e-02 : f32
    %cst_25 = arith.constant -8.000000e+00 : f32
    %cst_26 = arith.constant dense<[461, -21, -120, 697, -544, -248, -200, 249, -281, -260, -680, 309, 342, -202, 69, -548, -200, 584, 58, 979, -334, 246, -83, 240]> : tensor<24xi32>
    %cst_27 = arith.constant dense<[290, 165, -47, 328, -455, 412, -19, -165, 227, 322, 234, 607, 328, 390, -164, 32, 171, -5, 92, 129, 256, -31, -106, -251]> : tensor<24xi32>
    %cst_28 = arith.constant dense<[-52, 705, -253, -264, 663, 266, 475, -173]> : tensor<8xi32>
    %cst_29 = arith.constant dense<[484, -11, 262, -27, 86, 79, 58, 143, -66, 9, 116, 380, -183, -393, -105, 20, 38, 20, 257, 212, -11, -102, -75, -77]> : tensor<24xi32>
    %cst_30 = arith.constant dense<[-120, 375, 616, 568, 210, 161, 1020, 799, -275, 331, 216, 26, 55, 175, 336, 78, 122, 499, 114, 195, 355, 585, 439, 135]> : tensor<24xi32>
    %cst_31 = arith.constant dense<[615, -10, -919, -247, 751, -367, -756, -180, -511, -781, 273, 498, -344, 327, -242, -62]> : tensor<16xi32>
    %cst_32 = arith.constant dense<"0x07F92206E4134532DBBDDF0285F4BED9E3EF1637F948DD133005D9CFE80CCBF5F81D0B13DDF92A4FBD5047290EEF4D685F4613C00023BC151725C1DDE9C25CE611F25446228B032435DF60BADD32036A0ADEECC6BC211F45D859F153E9D90D3709E1B9B61B34F7C72EBCDA218914E106FC0B25D84B262D3E2A2D04B4F9D7B50EE2C9C90E1346FF374A3D83411216141411ED9BFAD539F104D3E5FFB110FAC1811BF0E4F360FD05B157313903311420F8B2369AF3F5C920F5E91CE74A13E799BB"> : tensor<24x8x1x1xi8>
    %cst_33 = arith.constant dense<"0x00EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<24x3x3xi8>
    %cst_34 = arith.constant dense<"0xE326FD1AD6C1DE25230BE6FCF6F5AEE4FA31052EF3F8810F1239F003E9DAE9F52C00E60507EA25C2F916D40C2A0FC9E8280A000E17E9F705EEFC2AE03F3DC8FB0BE7E8F818EF3B09FD2F140CF53B1AF9CD0CDBC8F7092A091AD8FF041C041AF00C0ED706F6C21FF4E4F40531FB0F2D1123F019FE23DFE729FAF403EA2BD7FB0BFDE6E40EDE15CEEE01D715FFDECFCD02DAD4F84A0919071AD4F209FFFAEAF8E7B1D90F333B031D1EE9C901C7F614D201280C111E380528FEEE0AECEDECB503D7"> : tensor<8x24x1x1xi8>
    %cst_35 = arith.constant dense<"0x26DDDE1EE22779ABDA39F93BCD11F80711C2CA470F05FE12C6CE42082BE14511181CD8A2CA5242EEF134F8BE401881F0071808E0FA0FF2ED3FD0EE991B2A1C2E161118F33CEEB62B5DD0FBDDED02C1F2B6E3C4CBA93E1A9FE2DEDDB726EC181B45A458401D780A29DB3908E96BF100F6DA1B25128933EEC31E1CCB7DC3A9C648F7EDFDE2DDE02434CB0C28C9E7CCBF05DB20FF15F1E0FB00DC16260856E01AEB0CD638093CC0E7D3E5DDFAFFFEE4092CD200FC18FDFFCE01D11AFB02D329232B"> : tensor<24x8x1x1xi8>
    %cst_36 = arith.constant dense<"0xF7C2EEEFF8F61BEBEF16F7091B110AF81B07ECFAD0DAB5E535EA1F00E43517BA29D5F91BF42C1EC1ED0BE9F7200DDB07E8D0D30BFF00D2F9D7DBF9C91B6312D7F5C2F11417D70C2E46E4DE028CEBF5EEC1F6E11EDCF5F7179BF21EF2C30D0DF5D2E3F4DDB4E1FEECFD0324581DC896FC03D20BE210F310BBEFFAC74BEB37E6F72F0C080BCAF1DA08EAFEFDFFFFE6D6E62B0F1737D114D5F31340E1FC2EC50EF4DD0618DC0F07CF3E2BDEE91FECB72A004C0E0872F9DA092DD2DC1281D520E9BF4CC8EBF103F1FD02FD04A212C8AA37CD07E1E513D60F0F2E"> : tensor<24x3x3xi8>
    %cst_37 = arith.constant dense<"0x09CC0CD4D51CFC14E53306321D07EC01231ECD2BF723E21BDE05F3F4E8F9B62529EDC5E5281BF326D4E614FCE7951C0EB619FF0C28E11E1D20451CE84CD1ECD7FC2E3714E6E9E628DA25FF0740EC46C4DDBDE0191F0D0BCEC80D39F1CABFE343F7D4E6EB0BE4DAF8141E17EDB8DE0CC70BE7E72F093AD8302781FC4121EDF6C909B4D52FFFF1FC742CDF47FC1FE7D822DFDF26CFC417ADE0F0C7D11C0CD81640CA03541A22F8DE301CFEECB607E3FA1C231E6031E0DD63E4FE4A49FE0ABBD9F100F2065D140D00F934D6FBD2040527331C45430D10AE0E00B8EE29CB3714F6FA23C357DEE03422382C10CAEC08FFA92C493ED512A648AE1131370FC4FCF5102A1C5A1CF045F30C089F0C0CF7FACA0340F8EAE656C724055138FCBF3D3ED120DEDFBC280B153E1C1920D3FFCDDAFC2D57D207FD16190FD71126EA54F6E50DF5C6FF4455E826060C362407D9D0FD0E15212A9A26D42F0E1BE90CB12EF2922D47DB33E0A0F10E06040D09F7E6F5F1F3D1E9030DFDF817231DB6ED1E161D0DDC34C6"> : tensor<16x24x1x1xi8>
    %0 = tensor.empty() : tensor<24xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_27 : tensor<24xi32>) outs(%0 : tensor<24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_3 : f32
      linalg.yield %59 : f32
    } -> tensor<24xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_26 : tensor<24xi32>) outs(%0 : tensor<24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_4 : f32
      linalg.yield %59 : f32
    } -> tensor<24xf32>
    %3 = tensor.empty() : tensor<8xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_28 : tensor<8xi32>) outs(%3 : tensor<8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_5 : f32
      linalg.yield %59 : f32
    } -> tensor<8xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_30 : tensor<24xi32>) outs(%0 : tensor<24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_6 : f32
      linalg.yield %59 : f32
    } -> tensor<24xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_29 : tensor<24xi32>) outs(%0 : tensor<24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_7 : f32
      linalg.yield %59 : f32
    } -> tensor<24xf32>
    %7 = tensor.empty() : tensor<16xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_31 : tensor<16xi32>) outs(%7 : tensor<16xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_8 : f32
      linalg.yield %59 : f32
    } -> tensor<16xf32>
    %9 = tensor.empty() : tensor<1x8x8x8xi8>
    %10 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x8x8x8xf32>) outs(%9 : tensor<1x8x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_9 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_10 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x8x8x8xi8>
    %11 = tensor.empty() : tensor<1x8x8x8xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x8x8x8xi8>) outs(%11 : tensor<1x8x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.extsi %in : i8 to i64
      %59 = arith.subi %58, %c-3_i64 : i64
      %60 = arith.sitofp %59 : i64 to f32
      %61 = arith.mulf %60, %cst_9 : f32
      linalg.yield %61 : f32
    } -> tensor<1x8x8x8xf32>
    %13 = tensor.empty() : tensor<24xi32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<24xf32>) outs(%13 : tensor<24xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_11 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<24xi32>
    %15 = tensor.empty() : tensor<1x24x8x8xi32>
    %broadcasted = linalg.broadcast ins(%14 : tensor<24xi32>) outs(%15 : tensor<1x24x8x8xi32>) dimensions = [0, 2, 3] 
    %16 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%10, %cst_32, %c-3_i32, %c0_i32 : tensor<1x8x8x8xi8>, tensor<24x8x1x1xi8>, i32, i32) outs(%broadcasted : tensor<1x24x8x8xi32>) -> tensor<1x24x8x8xi32>
    %17 = tensor.empty() : tensor<1x24x8x8xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x24x8x8xi32>) outs(%17 : tensor<1x24x8x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_11 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x24x8x8xf32>
    %19 = tensor.empty() : tensor<1x24x8x8xi8>
    %20 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x24x8x8xf32>) outs(%19 : tensor<1x24x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_13 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x24x8x8xi8>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<24xf32>) outs(%13 : tensor<24xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_14 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<24xi32>
    %padded = tensor.pad %20 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c-128_i8 : i8
    } : tensor<1x24x8x8xi8> to tensor<1x24x10x10xi8>
    %22 = tensor.empty() : tensor<1x10x10x24xi8>
    %transposed = linalg.transpose ins(%padded : tensor<1x24x10x10xi8>) outs(%22 : tensor<1x10x10x24xi8>) permutation = [0, 2, 3, 1] 
    %23 = tensor.empty() : tensor<3x3x24xi8>
    %transposed_38 = linalg.transpose ins(%cst_33 : tensor<24x3x3xi8>) outs(%23 : tensor<3x3x24xi8>) permutation = [1, 2, 0] 
    %24 = tensor.empty() : tensor<1x8x8x24xi32>
    %broadcasted_39 = linalg.broadcast ins(%21 : tensor<24xi32>) outs(%24 : tensor<1x8x8x24xi32>) dimensions = [0, 1, 2] 
    %25 = linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%transposed, %transposed_38, %c-128_i32, %c0_i32 : tensor<1x10x10x24xi8>, tensor<3x3x24xi8>, i32, i32) outs(%broadcasted_39 : tensor<1x8x8x24xi32>) -> tensor<1x8x8x24xi32>
    %transposed_40 = linalg.transpose ins(%25 : tensor<1x8x8x24xi32>) outs(%15 : tensor<1x24x8x8xi32>) permutation = [0, 3, 1, 2] 
    %26 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_40 : tensor<1x24x8x8xi32>) outs(%17 : tensor<1x24x8x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_14 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x24x8x8xf32>
    %27 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26 : tensor<1x24x8x8xf32>) outs(%19 : tensor<1x24x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_15 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x24x8x8xi8>
    %28 = tensor.empty() : tensor<8xi32>
    %29 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%4 : tensor<8xf32>) outs(%28 : tensor<8xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_16 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<8xi32>
    %30 = tensor.empty() : tensor<1x8x8x8xi32>
    %broadcasted_41 = linalg.broadcast ins(%29 : tensor<8xi32>) outs(%30 : tensor<1x8x8x8xi32>) dimensions = [0, 2, 3] 
    %31 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%27, %cst_34, %c-128_i32, %c0_i32 : tensor<1x24x8x8xi8>, tensor<8x24x1x1xi8>, i32, i32) outs(%broadcasted_41 : tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32>
    %32 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31 : tensor<1x8x8x8xi32>) outs(%11 : tensor<1x8x8x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_16 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x8x8x8xf32>
    %33 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32 : tensor<1x8x8x8xf32>) outs(%9 : tensor<1x8x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_17 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_18 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x8x8x8xi8>
    %34 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33 : tensor<1x8x8x8xi8>) outs(%11 : tensor<1x8x8x8xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.extsi %in : i8 to i64
      %59 = arith.subi %58, %c15_i64 : i64
      %60 = arith.sitofp %59 : i64 to f32
      %61 = arith.mulf %60, %cst_17 : f32
      linalg.yield %61 : f32
    } -> tensor<1x8x8x8xf32>
    %35 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%34, %12 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) outs(%11 : tensor<1x8x8x8xf32>) {
    ^bb0(%in: f32, %in_49: f32, %out: f32):
      %58 = arith.addf %in, %in_49 : f32
      linalg.yield %58 : f32
    } -> tensor<1x8x8x8xf32>
    %36 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%35 : tensor<1x8x8x8xf32>) outs(%9 : tensor<1x8x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_19 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_20 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x8x8x8xi8>
    %37 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%6 : tensor<24xf32>) outs(%13 : tensor<24xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_21 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<24xi32>
    %broadcasted_42 = linalg.broadcast ins(%37 : tensor<24xi32>) outs(%15 : tensor<1x24x8x8xi32>) dimensions = [0, 2, 3] 
    %38 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%36, %cst_35, %c7_i32, %c0_i32 : tensor<1x8x8x8xi8>, tensor<24x8x1x1xi8>, i32, i32) outs(%broadcasted_42 : tensor<1x24x8x8xi32>) -> tensor<1x24x8x8xi32>
    %39 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%38 : tensor<1x24x8x8xi32>) outs(%17 : tensor<1x24x8x8xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_21 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x24x8x8xf32>
    %40 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39 : tensor<1x24x8x8xf32>) outs(%19 : tensor<1x24x8x8xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_13 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x24x8x8xi8>
    %41 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%5 : tensor<24xf32>) outs(%13 : tensor<24xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_22 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<24xi32>
    %padded_43 = tensor.pad %40 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c-128_i8 : i8
    } : tensor<1x24x8x8xi8> to tensor<1x24x10x10xi8>
    %transposed_44 = linalg.transpose ins(%padded_43 : tensor<1x24x10x10xi8>) outs(%22 : tensor<1x10x10x24xi8>) permutation = [0, 2, 3, 1] 
    %transposed_45 = linalg.transpose ins(%cst_36 : tensor<24x3x3xi8>) outs(%23 : tensor<3x3x24xi8>) permutation = [1, 2, 0] 
    %42 = tensor.empty() : tensor<1x4x4x24xi32>
    %broadcasted_46 = linalg.broadcast ins(%41 : tensor<24xi32>) outs(%42 : tensor<1x4x4x24xi32>) dimensions = [0, 1, 2] 
    %43 = linalg.depthwise_conv_2d_nhwc_hwc_q {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%transposed_44, %transposed_45, %c-128_i32, %c0_i32 : tensor<1x10x10x24xi8>, tensor<3x3x24xi8>, i32, i32) outs(%broadcasted_46 : tensor<1x4x4x24xi32>) -> tensor<1x4x4x24xi32>
    %44 = tensor.empty() : tensor<1x24x4x4xi32>
    %transposed_47 = linalg.transpose ins(%43 : tensor<1x4x4x24xi32>) outs(%44 : tensor<1x24x4x4xi32>) permutation = [0, 3, 1, 2] 
    %45 = tensor.empty() : tensor<1x24x4x4xf32>
    %46 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_47 : tensor<1x24x4x4xi32>) outs(%45 : tensor<1x24x4x4xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_22 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x24x4x4xf32>
    %47 = tensor.empty() : tensor<1x24x4x4xi8>
    %48 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%46 : tensor<1x24x4x4xf32>) outs(%47 : tensor<1x24x4x4xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_13 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x24x4x4xi8>
    %49 = tensor.empty() : tensor<16xi32>
    %50 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%8 : tensor<16xf32>) outs(%49 : tensor<16xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_23 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_12 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<16xi32>
    %51 = tensor.empty() : tensor<1x16x4x4xi32>
    %broadcasted_48 = linalg.broadcast ins(%50 : tensor<16xi32>) outs(%51 : tensor<1x16x4x4xi32>) dimensions = [0, 2, 3] 
    %52 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%48, %cst_37, %c-128_i32, %c0_i32 : tensor<1x24x4x4xi8>, tensor<16x24x1x1xi8>, i32, i32) outs(%broadcasted_48 : tensor<1x16x4x4xi32>) -> tensor<1x16x4x4xi32>
    %53 = tensor.empty() : tensor<1x16x4x4xf32>
    %54 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%52 : tensor<1x16x4x4xi32>) outs(%53 : tensor<1x16x4x4xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_23 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x16x4x4xf32>
    %55 = tensor.empty() : tensor<1x16x4x4xi8>
    %56 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%54 : tensor<1x16x4x4xf32>) outs(%55 : tensor<1x16x4x4xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_24 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_25 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x16x4x4xi8>
    %57 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%56 : tensor<1x16x4x4xi8>) outs(%53 : tensor<1x16x4x4xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.extsi %in : i8 to i64
      %59 = arith.subi %58, %c-8_i64 : i64
      %60 = arith.sitofp %59 : i64 to f32
      %61 = arith.mulf %60, %cst_24 : f32
      linalg.yield %61 : f32
    } -> tensor<1x16x4x4xf32>
    return %57 : tensor<1x16x4x4xf32>
  }
}

