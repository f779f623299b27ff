#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @small_cnn(%arg0: tensor<1x3x12x12xf32>) -> tensor<1x10xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %cst_1 = arith.constant -2.14748365E+9 : f32
    %cst_2 = arith.constant 2.14748365E+9 : f32
    %cst_3 = arith.constant 0xFF800000 : f32
    %cst_4 = arith.constant 0.000000e+00 : f32
    %c0_i32 = arith.constant 0 : i32
    %cst_5 = arith.constant 2.36565407E-4 : f32
    %cst_6 = arith.constant 1.95477391E-4 : f32
    %cst_7 = arith.constant 4.27504798E-4 : f32
    %cst_8 = arith.constant 0.0265479106 : f32
    %cst_9 = arith.constant 2.3656540562021038E-4 : f64
    %c0_i8 = arith.constant 0 : i8
    %cst_10 = arith.constant 6.366490e-02 : f32
    %cst_11 = arith.constant 1.954773916741856E-4 : f64
    %cst_12 = arith.constant 0.099724017 : f32
    %cst_13 = arith.constant 3.600000e+01 : f32
    %cst_14 = arith.constant 0.0622527078 : f32
    %cst_15 = arith.constant 4.2750478917424548E-4 : f64
    %cst_16 = arith.constant 0.0384652689 : f32
    %cst_17 = arith.constant dense<"0xF4471B14B1BFFBE3E9F0DB261245D45DE8085530BD2643131DD6FFEBC6DDEDDBDEE23D406ADF1005E8DD282A5ACF3EE9D327FD47B132D6E0A61AEF370CD5D3CFC616D0E500F4031F15D0FFBFF313F1133D3DA0E2FA2EEF4C1BD9DADEB8F43D1235E5DCEED856F42C0EE72C1911FF0C194CF4ECCEFB104FD0A5E8F4E06483CFE81422021AF2B600D09CDAEEFF0005450C0B3F33DC11DD024306F1C611FC24202233FA3CB732D1B3F6F328DECB0615DC05CC06FF9315F8D55214EDE50B250619D6F72D051AF439E3DDC60DFA25EBBB02D9E32E14ECFECCC4183211D2FAFCFDC614F7CFAFCBDE0A22BC1D23DFDE51F51AF1F3BFF6CCD615E85EF42310C09EB6F72FE4070774E8E9FD069BFFE5F9D5232E1826D9DAE51F2928070C24E2F011451BFFEA06891F15DB0F03D33C08D25FFEE321270E81FEFDFB1B0BF5C01EF507332508"> : tensor<10x32xi8>
    %cst_18 = arith.constant dense<[1210, 690, -195, 1370, -1902, 1722, -81, -688, 950, 1344, 976, 2536, 1371, 1628, -685, 135]> : tensor<16xi32>
    %cst_19 = arith.constant dense<[2671, -1910, -1691, 540, -2850, -1215, 2155, 676, -620, 2740, 632, 417, -826, 1997, -2563, 1930, 1471, 65, 3109, 425, 537, -1306, -716, 946, 931, 501, 458, 1969, -354, 582, -2354, 1307]> : tensor<32xi32>
    %cst_20 = arith.constant dense<[-629, -596, -912, -389, 1248, -67, -22, 48, 405, 835]> : tensor<10xi32>
    %cst_21 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<16x3x3x3xi8>
    %cst_22 = arith.constant dense<"0x12FF0A0E1BFDF5E5E326FD1AD6C1DE25230BE6FCF6F5AEE4FA31052EF3F8810F1239F003E9DAE9F52C00E60507EA25C2F916D40C2A0FC9E8280A000E17E9F705EEFC2AE03F3DC8FB0BE7E8F818EF3B09FD2F140CF53B1AF9CD0CDBC8F7092A091AD8FF041C041AF00C0ED706F6C21FF4E4F40531FB0F2D1123F019FE23DFE729FAF403EA2BD7FB0BFDE6E40EDE15CEEE01D715FFDECFCD02DAD4F84A0919071AD4F209FFFAEAF8E7B1D90F333B031D1EE9C901C7F614D201280C111E380528FEEE0AECEDECB503D7FD2FEFEE2C1220F418EAEA13ED194EC9E824FB26DF0BFB050BD8DD2E0A03FF0CDADF2A051CEC2D0B1012E6C3DD352AF5F622FBD62910AEF6051005EBFC0AF7F429E1F5BE121B121E0E0B0FF727F5D01C3CE1FDEAF402D8F7D0EDD9DEC82811C2EDEAE9D119F30F112DC53929134E071BE82505F145F600FAE711180CB321F5D81412DE51D9C8DA2EFAF4FEEDEAEB1721DE081ADDF0DED603E815FF0DF6EBFD00E90E180538EB11F308E5240627D7F0E3EFE9FCFFFFEE061DE300FE0FFEFFE001E211FD01E31A171C49FE27FC0D0C0915F6011139E5C5F00306032720FEF1F5F4F9CDF1F2FAF816EFF212F807160E08FA1606F0FBD8E1C3EA2BEE1A00E92C13C722DDFA16F62419CDF109EDF91A0AE206ECD8DB09FF00DBFADEE2FBD316510FDEF7CDF41113DE0A2639E9E402A1EFF7F1CCF8E719E2F7F812ADF519F4CE0B0BF7DAE8F6E3C1E7FEEFFE031D4818D2A9FD02DA09E70DF50DC7F2FBD23DEE2DEAF9270A0609D4F3E106EEFFFDFFFFEBDEEA230C132DDA11DDF51035E7FD26CF0CF6E30513E20C06D83323E4ED19F0C422003E0C065EFAE10725DAE20F98DC1AEDCB3FD2EFF403F4FD02FD03B30ED2B92DD606E7EA10DE0C0C26F5223834130F5D49E71E140205101F070B2D0A122035280C07D80ADEDF15FD0FEC2705271605F0011B17D921F91BE915E604F6F7EEFBC71D1FF2D3EB1F14F61DDEEC0FFDEDAE160BC71400091FE81716193515EE3BDCF1E1FD232A0FECEEEC1FE21CFF0631F136D2E5CDE813180A09DAD50A2CF4D7CEEA33F9DEECF009EBE3FA0F1712F1C9E609D508EDED24072DE1251E9EFD3219F2F8D607C6DF24FFF4FD5922E736FD18EDE11AE7E71DDAD212C0E8F4D4DC160AE11131D60240141AF9E62515FEF1C705E9FC161B174926E8E54CEAFF3938FE08CBE2F400F505470F0A00FA28E0FCDC03041E271635340A0CC10A00C9F21FD82A0FF9FB1BD142E6E7281A2B220CD6F106FFBD223830DF0EBB37C10D262A0BD2FDF70C20164516F335F60906B50909F9FBD60331FAEFEC42D41C043F2BFDCE2F2FDC18E6E7CC1E09102F161318DDFFD9E3FD2343DD06FE11130CE10D1DEF40F8EB0AF8D3FF3441EE1D0409291C05E2DBFE0B101920B21DDE240B15EE09C324F5AC2337E327E8B6F40B04030A07F9ECF7F5F6DCEE030AFEFA111B16C7F11711160AE428D420FFD0F327EDD9F7E5D70E1AEE11F3FD043111DF11F9F1E5FFFEF3D3C8040647FA2127FE03F23ACFFF2DFCED08111209181FDCF41C1008161FE4D8DA3DDEF8FA22C7FF28240DF839CA20111309071EDAD705020534ED180D4DD2EEF12BE536341C0ECD06D1F407F61FFCCEDDD7F629100BD64DFF4FE4EE55DD0EF5E646DF1D24DFC2C6E6070BFAFD20190CEC1906E8ED283CEFBC13E318F449041DD8A4040917EED6CC1217E3EFE8C2061CF9D2FA2C4509E6BFCEFD0708F7CECD05E52AD037EA0707F5BEF032D6C4F9F3D6E7F0F305170D0B3724A1F4CDEA19F9F22BCFFD1201DAFF1A0C0A0A04D8F60E9B190BDDE8F90DF4260DE6F1071816FD05FF1BE014C40F0800BB331D010FE11133DA58F21BE50DD7EBF9EBF820D6D902EEDF04EE0BFFF9FE212BFBDECFB7DAE4FEC32F2329EF08E132D8EF2E51FDF3AE380AC31C14F4EE18081028271913D6DC1B15111BEE12E0021EEA40252DF9D3E912F71705ED1E2CE8110509FDD72EDEE41506E6EBFBF215DA0C3207E3E801EC28C435BEFFDD1BE7DBF5F3C10FB226F51FECE615EDCEFDD3002D1F00FBF6EB0CFBF409BE4015D304DBEEE324C1F4CAFFF6D22F33EE11FB0832F73AF7FD3E09BE07D6CAE10BDCD2F40DE9D5B9E71B211AFA0429E40CC316F1DA19DCE432DEEBEA1AC429F8F6E3FB3007E2F51103F8140CDDC2103CE5FB2C39022918EEBEE20C0EF0E4CCC9FCCD00E6F24502F5FAD02C1CEF07EA0DD409310FED1F401803E60E3FBE200531FCBA41DA1AFCFF04EE060A1A040A2BE3021022FE03F528F616FD01D802FFD0E8F1CED830DEE4D3281E0A03F0F7EA15171E43171521CE00CF33F03A23EECADB22F6D0F93734F10A14D0EFF30DEFD20BEBD8D8F92FFA23B7E5D7F719EED71FE709EA11F41A1448FDE0DAED0CE93107E0F1EB06DF2AF4F81EE8003A0D0AF0E039FB3EEA29F90E280E1ACDF143F90AFBECCFDB37FDD9E31CE1ECDCD736FBF6EC17020A04F4F0C7F046D8000B2757F3E323074118EAFA0E10DBC1CC14FBC4EEC1F7E4EEFD06022A4E1CFA18E8E5E40A28482B17EA0212FC3DE5E90C41C5E42AEA43E523FD0FDECC19EFE2DCDE2CE2EE40F2000CF6EA2A0AEBD3DADFBA260311D2F0F802F9D724170222272D05F6F01DE9E2121115E40A1EF0F7F6311DD4CE15F9110921CBEE0808E1EFED0117F7FBBCDD3CC82CF6C02F2AF01CF40205F8110DEF0AEF04F00334EBD0340AEBF8E21F171407BDD909AAFDDF15FA220B04E0144DC8DF3611F6190BEBEA1C0B2315EC32E2F1E7D214DEEA1F1CECD5FDCCDFF3FBEEFB2D142D1D08D8D4FFF3E20D28FE03EEEA40D7FBF1FC2220FB25E70C3AED0731E502F6DC0DE53601F90103FA02EDF011BAE6000BF304F5C31F09E13016EC24121BECEEE5EEB523DA13D604D9FFCCED150706E4B8E3EF30130AEDE815F4F53EE0F7F8EBD229D2E208D7FBF8F8FBD2EE2A26ED23E1D4BEDC0FF5361BF4F9F921F300E82AF5EBCE1FEDFEF3FABFE6DD472C0E512AD4D609FE07E53CF52430ED13342F180E03291304F1D4FA3DF0EBF8F9EE150B271406BC06EB2302E7EED9EE0A26111A1DF52FD404EFC036BF163AF9FCC2F82FEFE0B52A0DF622EFF545E309070300D5FCF8EAE5DFE60D013614EDEEFAF5003FFB04D9CFFCF2072CEFEA20F202FD3DC9E51526DE26F1E8EB0C10E407F4D937E003DAF20305DFFC0B301A2315EAF51EEADBFFC5E7DBF32B4C13E1180EEC1DF0ED0216F40CC40AF0EFAED1C714E20915EEDF2709D810EA0F1BE5109E12C0520CEC25E604F700EE0EE80414ED1B10F6EFFEF1EFFCF9032E1E1C11ECDDF92727D1C6372EECFD0224F013090A2205D61DF01D09E008EB09F321E9F4E9E6F7071202F1CD1FEF0DDD3117E30B2CFAC90F3CCC21F8FD06001CDAFDE2EF61E40F0AC1DBC5FBD5E3CE161330FA182544D7E6E0D31718D2DD0AF007FA2325C42CF0DB14E0D7F52CC5DEC9D9FBD50A03183FE0F0ECF10D14F02BF7FCE3161800BAF813F2FD11C51AC20313F00F10EFF21A0A140DEDDEDFD4BFEDE302F90C25E0F8F4E4D90209F7120A21010525F20F201D1B14F720F0F2F912342B2A1705E4ED0538130C13D4EA1121ED12C3102EF9EC57022DEBD9CE20CABFECF3F7D8E602C103142D0F260A31044414EE06C727F728480001FB0C482A0823BD04A425B912E353D7F5370E07F903E8FBFF18031CD02E0F3511FD05DAF90604CB10DFF91CE9FCF212DACDBC471635F425F2D71CF6080E13F9B5D9123FFF2DB331DBDFF60AD920D104E307BEE0D71EB738EF06ADE61B31E0250615F931C8153219F71109F7232CD43D02FA1EE70FF5FF0D01F52713101DBC1E4BDE52C6E916EDE3050E1CF7BE132AF11AD4E8D903DA361101172A0DE503F212F30222E6FBF8EC5326EBEB0B29FD1CC70D2B05EB24E0F714E256FABE240CFF1015FD170D1FF1F41517FF031FE4D91A0DE9F7E7EF2B02DC1111FEFE1019FDEEF92019F25D52DE22E0013319D911B0CC01E533042A0406064035DCF837CF3C15DFB80239081210F80DECEDE2F4F406F5CADCF711F70DCE27F1E6010FF915C6FD1C10F70B39DB090417DB341C4C03ECC5F1D7BEE4F7FB54330617F4F310FC3419DECF0527DEE24E01F551F6DB03D7CC1FEE10DCF8D8E1391816FFF5FFF211FD065700DD34DEDE3B0FDF032EE30750FCCAF4F7EF3907011205C116120D18252DCCE7DFF10CC616CFE0D8F00ABD33E146CE1C13F8D1F12A1C1C3110FE1C172D10142100DDFF032515F008F6F01BDE23F50EF3EAEB1CC904EBEF3BE9E8CEC3F8EA1707E23024011A380DEE040609250ACAE6DD0CF70BF0E8210DF8CAD6D9FEE12318FBE4F00901F926F5FC120923F0E715041A1817E0FDEEF1043144E5FFE6E7F7CB0CDBFAE6161A14FECCDD0EECF61145E80EEDDBF5F8F211F7BD1110D1EAF016F81FE71C00F41B1A13FC2227F604CFEA20E10BFF3605C3F20E140F2908C2EB07EA0B0935E9D9D7F110FBEADCF8142429170AEC0A300418000FE2D6E0C11C4EF9E60C34032A0008CF0BE2DECD144AE9F7F40E20FFF3C51503C5DAE0F1E319E1F0DE17F2001200FB180C04F305E931090FEBF916C1F7EBDB16E7DE21C32223BDF90921EFFB18E31324DE0A03DE05F8E6F4E00D0D190307EE15EC12F1E70D351CF1D3CF0905C1FB23FFFFDA16E9ED25DFF9000D32FF11FDC9241827DE053E48020AE1F9E722F3FD1AFC22FB18DFFFD0E4E83FDE3F160FE81B3D200D021605F91CF51D451FF0FA23E53DFA050E6AFDEDF31537DFF5F9F3311D2EF0DCFEE80723B91846D80ADAE4043B340421A6F5F813E6E3E2130CF41FFBECE9BC05171057F5D63A33E6FEF012F5192041F3192208350E0545E727E8131B1F2FEAD7070BFD5104D6E90FFD271D1E1C1BFC3325E90F222F101CC1F800DF00F8DA12EBF320EB2E0FE5D103E8DAD7EFF105D7EFECE72A09461A0C2926CBE6F90909CE0C0FE3DA13F21C210CD1E3C4EFE33315F8D83BE3BEE8D11BDF1131E2FC3EF7F8F6E8E62228E34136F6CADFF9F838D6FCFA1BF8F7FFF11212E41C0BFC202AE7F403360D0841F820EA031EE9EBFC31CAED20B83E0541E11BEB09E8EBC8A4FE4DF6F010EAEFD7E223E407F4E40A1BD80B1AF6FD0007DBEF0DE7FDFEE7042BE6ECFBD9ECD0C30B1B39FB1FF6E815F8150AE0DCDEEB1EFC2E12FAE4C0232AF839FEFF2500F1F4C8FDFF2815E81A0A331DFD22F4E1081222FF0218FE34D0D7F724FDD419DB2A1D31292417F6FD0006EEE82EDA2342DF2DFC30EE2AEAD53AE5D701F627E4F21AE922234144E8E9E2FFFCF9DB2AD0EE1A14F91FF54122E81CF90D28E52EF7240EEED4D80ADDF0F8EBF114240F1511F206C903F228C3DD4A182DE6D1100512321CCEEFB812F1D70CDC211749E71FF1D93DDD36F418F2E7E3F2082EE601F7FDDFD3F1FF4E31F3D6C81F2744F70DF52E1EE706DF04D2062729D802D5240DDBE212C9020CEBF70313D7EE1AAB202C3EB3F1EB2F162118CE0EB90E07FA0817E70C2F0D0800D62FF301F6F4EDE91E2C08DAFE480AFAE511F82A231102120AF82BFDEFC9F9CE19E6E2B609F617E2211835F125E503F82D0E400D06FE09E9DDEFF4EF47FAF7291EE81C21E5FC171EE82712E2F83C0DC3D831FE06DA32FCECFC62010CD1ECC31FEAF1040C430122E9E0E9FE08221EEE0A23D5EAD714FFE411F420FA0BD30FF4C9C5E01ABB26FA0819E6FFFBED1C04191C0D19DBD52FF415240C1AD8D5DAECABF3C4200E10C1F32FE91CE3FB56162BFECED11B0A2FF00CE916BC01E3FC210D14E6A9DB09DA0CC4FB2B10E416FCEC250CC0EB32FC40191FCAF0312D06EAE3F7FDE0E012290E042CD9FBF3EFE12113F832CFFAE237FA0AF4241210051C1114D2282417F701DDF041FCEE0AFCDE10F20227092C12EBE703DF0F31F9FC3E1D132006331FB4190DCF25FFEEBD00001408FFE7F612C9F000FF163BF6F8F3BB270B17011CF917EC28DB17091BF8E9EFF7FCE1F6C4F4FA40342819FFC9F5F3E81DF8E7CB2D20FF0EFD180BF2ECD7F526C60F0FECCDECEC1210F713E50124F6FED4FA10F13015031F2829E0E901E840C307D0DD2AFC040FF1131400F4071FFBFDD51DEC1E11290EE34D2901EADE33F90B1C0A12FC1822FD0CF5092C0DF5FEDEF82A33C81807C90E0D15D7F00ECC310CF12C27F4E21A5908F5DC1AD7151108F844033C142DF11102FAD904493BFC4006E6FE111907011505DFFC00F20F05EB2AF408FCE81208183E02FAA312EBE8EE0FF7F8F6FFF6E9DD1F10FFEA38F316D92317E303DFF6D60621EBF30AC604F101A7DDF519D5D4F5EF08E702DE011DECEF2DE4DDCBE4FBF046E4E0FB25F00405F1FED9ADF11CFDDDF629DF01021CEA25F017223739E02FCEEF09D502101CFA29021B213CFD12FDFAE521E1D8FBEE4A0848D2E92CEBEA11E9E919F70525291C41F4E23B0CF7BB231CE80D1ED51907E3F3F3E9F5C2FA3B0BE910151023E021DA05CC08C8065DC60307FF14D3341017FE1BD41EEC0C17171D0ED5230B09D3FF100E0625DED6C208110605BE10F6"> : tensor<32x16x3x3xi8>
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_18 : tensor<16xi32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_5 : f32
      linalg.yield %59 : f32
    } -> tensor<16xf32>
    %2 = tensor.empty() : tensor<32xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_19 : tensor<32xi32>) outs(%2 : tensor<32xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_6 : f32
      linalg.yield %59 : f32
    } -> tensor<32xf32>
    %4 = tensor.empty() : tensor<10xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_20 : tensor<10xi32>) outs(%4 : tensor<10xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.sitofp %in : i32 to f32
      %59 = arith.mulf %58, %cst_7 : f32
      linalg.yield %59 : f32
    } -> tensor<10xf32>
    %6 = tensor.empty() : tensor<1x3x12x12xi8>
    %7 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x12x12xf32>) outs(%6 : tensor<1x3x12x12xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_8 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x3x12x12xi8>
    %8 = tensor.empty() : tensor<16xi32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%8 : tensor<16xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_9 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_4 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<16xi32>
    %padded = tensor.pad %7 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x3x12x12xi8> to tensor<1x3x14x14xi8>
    %10 = tensor.empty() : tensor<1x16x12x12xi32>
    %broadcasted = linalg.broadcast ins(%9 : tensor<16xi32>) outs(%10 : tensor<1x16x12x12xi32>) dimensions = [0, 2, 3] 
    %11 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %cst_21, %c0_i32, %c0_i32 : tensor<1x3x14x14xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%broadcasted : tensor<1x16x12x12xi32>) -> tensor<1x16x12x12xi32>
    %12 = tensor.empty() : tensor<1x16x12x12xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x16x12x12xi32>) outs(%12 : tensor<1x16x12x12xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_9 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x16x12x12xf32>
    %14 = tensor.empty() : tensor<1x16x12x12xi8>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x16x12x12xf32>) outs(%14 : tensor<1x16x12x12xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_10 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x16x12x12xi8>
    %16 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x16x12x12xi8>) outs(%14 : tensor<1x16x12x12xi8>) {
    ^bb0(%in: i8, %out: i8):
      %58 = arith.maxsi %in, %c0_i8 : i8
      linalg.yield %58 : i8
    } -> tensor<1x16x12x12xi8>
    %17 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x16x12x12xi8>) outs(%12 : tensor<1x16x12x12xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_10 : f32
      linalg.yield %59 : f32
    } -> tensor<1x16x12x12xf32>
    %18 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17 : tensor<1x16x12x12xf32>) outs(%14 : tensor<1x16x12x12xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_10 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x16x12x12xi8>
    %19 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18 : tensor<1x16x12x12xi8>) outs(%12 : tensor<1x16x12x12xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_10 : f32
      linalg.yield %59 : f32
    } -> tensor<1x16x12x12xf32>
    %padded_23 = tensor.pad %19 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst_3 : f32
    } : tensor<1x16x12x12xf32> to tensor<1x16x14x14xf32>
    %20 = tensor.empty() : tensor<1x16x6x6xf32>
    %21 = linalg.fill ins(%cst_3 : f32) outs(%20 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
    %22 = tensor.empty() : tensor<3x3xf32>
    %23 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded_23, %22 : tensor<1x16x14x14xf32>, tensor<3x3xf32>) outs(%21 : tensor<1x16x6x6xf32>) -> tensor<1x16x6x6xf32>
    %24 = tensor.empty() : tensor<1x16x6x6xi8>
    %25 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23 : tensor<1x16x6x6xf32>) outs(%24 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_10 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x16x6x6xi8>
    %26 = tensor.empty() : tensor<32xi32>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%3 : tensor<32xf32>) outs(%26 : tensor<32xi32>) {
    ^bb0(%in: f32, %out: i32):
      %58 = arith.truncf %cst_11 : f64 to f32
      %59 = arith.divf %in, %58 : f32
      %60 = math.roundeven %59 : f32
      %61 = arith.addf %60, %cst_4 : f32
      %62 = arith.maximumf %61, %cst_1 : f32
      %63 = arith.minimumf %62, %cst_2 : f32
      %64 = arith.fptosi %63 : f32 to i32
      linalg.yield %64 : i32
    } -> tensor<32xi32>
    %padded_24 = tensor.pad %25 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x16x6x6xi8> to tensor<1x16x8x8xi8>
    %28 = tensor.empty() : tensor<1x32x6x6xi32>
    %broadcasted_25 = linalg.broadcast ins(%27 : tensor<32xi32>) outs(%28 : tensor<1x32x6x6xi32>) dimensions = [0, 2, 3] 
    %29 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded_24, %cst_22, %c0_i32, %c0_i32 : tensor<1x16x8x8xi8>, tensor<32x16x3x3xi8>, i32, i32) outs(%broadcasted_25 : tensor<1x32x6x6xi32>) -> tensor<1x32x6x6xi32>
    %30 = tensor.empty() : tensor<1x32x6x6xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29 : tensor<1x32x6x6xi32>) outs(%30 : tensor<1x32x6x6xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_11 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x32x6x6xf32>
    %32 = tensor.empty() : tensor<1x32x6x6xi8>
    %33 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31 : tensor<1x32x6x6xf32>) outs(%32 : tensor<1x32x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_12 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x32x6x6xi8>
    %34 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33 : tensor<1x32x6x6xi8>) outs(%32 : tensor<1x32x6x6xi8>) {
    ^bb0(%in: i8, %out: i8):
      %58 = arith.maxsi %in, %c0_i8 : i8
      linalg.yield %58 : i8
    } -> tensor<1x32x6x6xi8>
    %35 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%34 : tensor<1x32x6x6xi8>) outs(%30 : tensor<1x32x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_12 : f32
      linalg.yield %59 : f32
    } -> tensor<1x32x6x6xf32>
    %36 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%35 : tensor<1x32x6x6xf32>) outs(%32 : tensor<1x32x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_12 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x32x6x6xi8>
    %37 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%36 : tensor<1x32x6x6xi8>) outs(%30 : tensor<1x32x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_12 : f32
      linalg.yield %59 : f32
    } -> tensor<1x32x6x6xf32>
    %38 = tensor.empty() : tensor<1x32x1x1xf32>
    %39 = linalg.fill ins(%cst_4 : f32) outs(%38 : tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
    %40 = tensor.empty() : tensor<6x6xf32>
    %41 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%37, %40 : tensor<1x32x6x6xf32>, tensor<6x6xf32>) outs(%39 : tensor<1x32x1x1xf32>) -> tensor<1x32x1x1xf32>
    %42 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41 : tensor<1x32x1x1xf32>) outs(%38 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %58 = arith.divf %in, %cst_13 : f32
      linalg.yield %58 : f32
    } -> tensor<1x32x1x1xf32>
    %43 = tensor.empty() : tensor<1x32x1x1xi8>
    %44 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%42 : tensor<1x32x1x1xf32>) outs(%43 : tensor<1x32x1x1xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_14 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x32x1x1xi8>
    %45 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%44 : tensor<1x32x1x1xi8>) outs(%38 : tensor<1x32x1x1xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_14 : f32
      linalg.yield %59 : f32
    } -> tensor<1x32x1x1xf32>
    %collapsed = tensor.collapse_shape %45 [[0], [1, 2, 3]] : tensor<1x32x1x1xf32> into tensor<1x32xf32>
    %46 = tensor.empty() : tensor<1x32xi8>
    %47 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<1x32xf32>) outs(%46 : tensor<1x32xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_14 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x32xi8>
    %48 = tensor.empty() : tensor<32x10xi8>
    %transposed = linalg.transpose ins(%cst_17 : tensor<10x32xi8>) outs(%48 : tensor<32x10xi8>) permutation = [1, 0] 
    %49 = tensor.empty() : tensor<1x10xi32>
    %50 = linalg.fill ins(%c0_i32 : i32) outs(%49 : tensor<1x10xi32>) -> tensor<1x10xi32>
    %51 = linalg.quantized_matmul ins(%47, %transposed, %c0_i32, %c0_i32 : tensor<1x32xi8>, tensor<32x10xi8>, i32, i32) outs(%50 : tensor<1x10xi32>) -> tensor<1x10xi32>
    %52 = tensor.empty() : tensor<1x10xf32>
    %53 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%51 : tensor<1x10xi32>) outs(%52 : tensor<1x10xf32>) {
    ^bb0(%in: i32, %out: f32):
      %58 = arith.truncf %cst_15 : f64 to f32
      %59 = arith.sitofp %in : i32 to f32
      %60 = arith.mulf %59, %58 : f32
      linalg.yield %60 : f32
    } -> tensor<1x10xf32>
    %54 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%53, %5 : tensor<1x10xf32>, tensor<10xf32>) outs(%52 : tensor<1x10xf32>) {
    ^bb0(%in: f32, %in_26: f32, %out: f32):
      %58 = arith.addf %in, %in_26 : f32
      linalg.yield %58 : f32
    } -> tensor<1x10xf32>
    %55 = tensor.empty() : tensor<1x10xi8>
    %56 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%54 : tensor<1x10xf32>) outs(%55 : tensor<1x10xi8>) {
    ^bb0(%in: f32, %out: i8):
      %58 = arith.divf %in, %cst_16 : f32
      %59 = math.roundeven %58 : f32
      %60 = arith.addf %59, %cst_4 : f32
      %61 = arith.maximumf %60, %cst : f32
      %62 = arith.minimumf %61, %cst_0 : f32
      %63 = arith.fptosi %62 : f32 to i8
      linalg.yield %63 : i8
    } -> tensor<1x10xi8>
    %57 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%56 : tensor<1x10xi8>) outs(%52 : tensor<1x10xf32>) {
    ^bb0(%in: i8, %out: f32):
      %58 = arith.sitofp %in : i8 to f32
      %59 = arith.mulf %58, %cst_16 : f32
      linalg.yield %59 : f32
    } -> tensor<1x10xf32>
    return %57 : tensor<1x10xf32>
  }
}

