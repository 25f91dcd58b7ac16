	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.text
	.globl	matmul                          ; -- Begin function matmul
	.p2align	8
	.type	matmul,@function
matmul:                                 ; @matmul
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.6:
	.file	1 "/work/main/tests/corpus/src" "triton_kernels.py"
	.loc	1 27 0 prologue_end             ; triton_kernels.py:27:0
	s_load_dwordx2 s[6:7], s[4:5], 0x0
	s_load_dwordx8 s[8:15], s[4:5], 0x8
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.7:
.LBB0_0:
.Ltmp1:
	.loc	1 32 17 is_stmt 1               ; triton_kernels.py:32:17
	s_lshl_b32 s26, s16, 6
	.loc	1 33 17                         ; triton_kernels.py:33:17
	s_lshl_b32 s27, s17, 6
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v36, 31, v0
	v_and_b32_e32 v37, 0x80, v0
	v_and_b32_e32 v38, 32, v0
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cmp_lt_i32 s14, 1
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v39, 64, v0
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cbranch_scc1 .LBB0_4
; %bb.1:                                ; %.lr.ph
	.loc	1 0 25 is_stmt 0                ; triton_kernels.py:0:25
	s_load_dwordx2 s[0:1], s[4:5], 0x28
	s_load_dword s16, s[4:5], 0x30
	.loc	1 32 35 is_stmt 1               ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v6, 5, v0
	.loc	1 33 22                         ; triton_kernels.py:33:22
	v_or_b32_e32 v1, s27, v6
	v_or_b32_e32 v4, 56, v1
	v_or_b32_e32 v1, 24, v1
	.loc	1 36 61                         ; triton_kernels.py:36:61
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v10, s16, v1
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v20, 63, v0
	.loc	1 35 50                         ; triton_kernels.py:35:50
	v_and_b32_e32 v1, 0xc0, v0
	v_lshrrev_b32_e32 v32, 6, v0
	v_lshlrev_b32_e32 v40, 1, v0
	v_lshlrev_b32_e32 v7, 4, v38
	v_lshrrev_b32_e32 v8, 1, v37
	v_lshlrev_b32_e32 v0, 2, v0
	.loc	1 36 35                         ; triton_kernels.py:36:35
	v_mul_lo_u32 v2, s1, v36
	.loc	1 36 61 is_stmt 0               ; triton_kernels.py:36:61
	v_mul_lo_u32 v4, s16, v4
	v_add3_u32 v31, 0, v7, v8
	v_lshrrev_b32_e32 v1, 3, v1
	v_and_b32_e32 v0, 56, v0
	v_lshrrev_b32_e32 v7, 2, v38
	.loc	1 36 21                         ; triton_kernels.py:36:21
	v_ashrrev_i32_e32 v3, 31, v2
	.loc	1 36 47                         ; triton_kernels.py:36:47
	v_ashrrev_i32_e32 v5, 31, v4
	v_xor_b32_e32 v41, v40, v1
	v_lshlrev_b32_e32 v1, 6, v36
	v_lshlrev_b32_e32 v8, 5, v39
	v_xor_b32_e32 v0, v0, v7
	.loc	1 38 25 is_stmt 1               ; triton_kernels.py:38:25
	v_add_u32_e32 v16, s27, v6
	v_or3_b32 v42, v1, v8, v0
	v_lshlrev_b64 v[0:1], 1, v[2:3]
	v_lshlrev_b64 v[2:3], 1, v[4:5]
	v_add_u32_e32 v4, 48, v16
	v_mul_lo_u32 v4, s16, v4
	v_mov_b32_e32 v18, s9
	v_add_co_u32_e32 v2, vcc, s8, v2
	v_ashrrev_i32_e32 v5, 31, v4
	v_add_u32_e32 v6, 40, v16
	v_addc_co_u32_e32 v3, vcc, v18, v3, vcc
	v_lshlrev_b64 v[4:5], 1, v[4:5]
	v_mul_lo_u32 v6, s16, v6
	v_add_co_u32_e32 v4, vcc, s8, v4
	v_ashrrev_i32_e32 v7, 31, v6
	v_add_u32_e32 v8, 32, v16
	v_addc_co_u32_e32 v5, vcc, v18, v5, vcc
	v_lshlrev_b64 v[6:7], 1, v[6:7]
	v_mul_lo_u32 v8, s16, v8
	v_add_co_u32_e32 v6, vcc, s8, v6
	v_ashrrev_i32_e32 v9, 31, v8
	v_addc_co_u32_e32 v7, vcc, v18, v7, vcc
	v_lshlrev_b64 v[8:9], 1, v[8:9]
	.loc	1 36 47                         ; triton_kernels.py:36:47
	v_ashrrev_i32_e32 v11, 31, v10
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_add_co_u32_e32 v8, vcc, s8, v8
	v_add_u32_e32 v12, 16, v16
	v_addc_co_u32_e32 v9, vcc, v18, v9, vcc
	v_lshlrev_b64 v[10:11], 1, v[10:11]
	v_mul_lo_u32 v12, s16, v12
	v_add_co_u32_e32 v10, vcc, s8, v10
	v_ashrrev_i32_e32 v13, 31, v12
	v_add_u32_e32 v14, 8, v16
	v_addc_co_u32_e32 v11, vcc, v18, v11, vcc
	v_lshlrev_b64 v[12:13], 1, v[12:13]
	v_mul_lo_u32 v14, s16, v14
	v_add_co_u32_e32 v12, vcc, s8, v12
	v_ashrrev_i32_e32 v15, 31, v14
	v_addc_co_u32_e32 v13, vcc, v18, v13, vcc
	v_lshlrev_b64 v[14:15], 1, v[14:15]
	v_mul_lo_u32 v16, s16, v16
	v_add_co_u32_e32 v14, vcc, s8, v14
	v_ashrrev_i32_e32 v17, 31, v16
	v_add_u32_e32 v20, s26, v20
	v_addc_co_u32_e32 v15, vcc, v18, v15, vcc
	v_lshlrev_b64 v[16:17], 1, v[16:17]
	v_mul_lo_u32 v20, s15, v20
	v_add_co_u32_e32 v16, vcc, s8, v16
	v_ashrrev_i32_e32 v21, 31, v20
	v_addc_co_u32_e32 v17, vcc, v18, v17, vcc
	v_lshlrev_b64 v[20:21], 1, v[20:21]
	v_lshlrev_b32_e32 v30, 1, v36
	v_mov_b32_e32 v22, s7
	v_add_co_u32_e32 v20, vcc, s6, v20
	.loc	1 35 61                         ; triton_kernels.py:35:61
	v_mul_lo_u32 v34, s0, v32
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_or_b32_e32 v18, 28, v32
	v_addc_co_u32_e32 v21, vcc, v22, v21, vcc
	v_or_b32_e32 v22, 24, v32
	v_or_b32_e32 v24, 20, v32
	v_or_b32_e32 v26, 16, v32
	v_or_b32_e32 v28, 12, v32
	v_add_u32_e32 v43, v31, v30
	v_or_b32_e32 v30, 8, v32
	v_or_b32_e32 v32, 4, v32
	.loc	1 43 23                         ; triton_kernels.py:43:23
	s_lshl_b32 s12, s1, 5
	.loc	1 42 23                         ; triton_kernels.py:42:23
	s_lshl_b32 s2, s0, 5
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_mul_lo_u32 v18, s0, v18
	v_mul_lo_u32 v22, s0, v22
	v_mul_lo_u32 v24, s0, v24
	v_mul_lo_u32 v26, s0, v26
	v_mul_lo_u32 v28, s0, v28
	v_mul_lo_u32 v30, s0, v30
	v_mul_lo_u32 v32, s0, v32
	.loc	1 35 47                         ; triton_kernels.py:35:47
	v_ashrrev_i32_e32 v35, 31, v34
	s_ashr_i32 s3, s2, 31
	s_ashr_i32 s13, s12, 31
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_ashrrev_i32_e32 v19, 31, v18
	v_ashrrev_i32_e32 v23, 31, v22
	v_ashrrev_i32_e32 v25, 31, v24
	v_ashrrev_i32_e32 v27, 31, v26
	v_ashrrev_i32_e32 v29, 31, v28
	v_ashrrev_i32_e32 v31, 31, v30
	v_ashrrev_i32_e32 v33, 31, v32
	v_xor_b32_e32 v44, 32, v41
	v_xor_b32_e32 v45, 16, v42
	v_xor_b32_e32 v46, 32, v42
	v_xor_b32_e32 v47, 48, v42
	s_mov_b32 s28, 0
	s_lshl_b64 s[22:23], s[12:13], 1
	v_lshlrev_b64 v[18:19], 1, v[18:19]
	s_lshl_b64 s[24:25], s[2:3], 1
	v_lshlrev_b64 v[22:23], 1, v[22:23]
	v_lshlrev_b64 v[24:25], 1, v[24:25]
	v_lshlrev_b64 v[26:27], 1, v[26:27]
	v_lshlrev_b64 v[28:29], 1, v[28:29]
	v_lshlrev_b64 v[30:31], 1, v[30:31]
	v_lshlrev_b64 v[32:33], 1, v[32:33]
	v_lshlrev_b64 v[34:35], 1, v[34:35]
	v_accvgpr_write_b32 a15, 0
	v_accvgpr_write_b32 a14, 0
	v_accvgpr_write_b32 a13, 0
	v_accvgpr_write_b32 a12, 0
	v_accvgpr_write_b32 a11, 0
	v_accvgpr_write_b32 a10, 0
	v_accvgpr_write_b32 a9, 0
	v_accvgpr_write_b32 a8, 0
	v_accvgpr_write_b32 a7, 0
	v_accvgpr_write_b32 a6, 0
	v_accvgpr_write_b32 a5, 0
	v_accvgpr_write_b32 a4, 0
	v_accvgpr_write_b32 a3, 0
	v_accvgpr_write_b32 a2, 0
	v_accvgpr_write_b32 a1, 0
	v_accvgpr_write_b32 a0, 0
	v_add_u32_e32 v44, 0, v44
	v_add_u32_e32 v45, 0, v45
	v_add_u32_e32 v46, 0, v46
	v_add_u32_e32 v47, 0, v47
	s_mov_b32 s15, 0x5040100
.LBB0_2:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 39 20                         ; triton_kernels.py:39:20
	v_add_co_u32_e32 v48, vcc, v20, v34
	v_addc_co_u32_e32 v49, vcc, v21, v35, vcc
	v_add_co_u32_e32 v50, vcc, v20, v32
	v_addc_co_u32_e32 v51, vcc, v21, v33, vcc
	v_add_co_u32_e32 v52, vcc, v20, v30
	v_addc_co_u32_e32 v53, vcc, v21, v31, vcc
	v_add_co_u32_e32 v54, vcc, v20, v28
	v_addc_co_u32_e32 v55, vcc, v21, v29, vcc
	v_add_co_u32_e32 v56, vcc, v20, v26
	v_addc_co_u32_e32 v57, vcc, v21, v27, vcc
	v_add_co_u32_e32 v58, vcc, v20, v24
	v_addc_co_u32_e32 v59, vcc, v21, v25, vcc
	v_add_co_u32_e32 v60, vcc, v20, v22
	v_addc_co_u32_e32 v61, vcc, v21, v23, vcc
	v_add_co_u32_e32 v62, vcc, v20, v18
	v_addc_co_u32_e32 v63, vcc, v21, v19, vcc
	v_add_co_u32_e32 v64, vcc, v16, v0
	v_addc_co_u32_e32 v65, vcc, v17, v1, vcc
	v_add_co_u32_e32 v66, vcc, v12, v0
	v_addc_co_u32_e32 v67, vcc, v13, v1, vcc
	v_add_co_u32_e32 v68, vcc, v14, v0
	v_addc_co_u32_e32 v69, vcc, v15, v1, vcc
	v_add_co_u32_e32 v70, vcc, v10, v0
	v_addc_co_u32_e32 v71, vcc, v11, v1, vcc
	v_add_co_u32_e32 v72, vcc, v8, v0
	v_addc_co_u32_e32 v73, vcc, v9, v1, vcc
	v_add_co_u32_e32 v74, vcc, v4, v0
	v_addc_co_u32_e32 v75, vcc, v5, v1, vcc
	v_add_co_u32_e32 v76, vcc, v6, v0
	v_addc_co_u32_e32 v77, vcc, v7, v1, vcc
	v_add_co_u32_e32 v78, vcc, v2, v0
	v_addc_co_u32_e32 v79, vcc, v3, v1, vcc
	global_load_ushort v80, v[48:49], off
	global_load_ushort v81, v[50:51], off
	global_load_ushort v82, v[52:53], off
	global_load_ushort v83, v[54:55], off
	global_load_ushort v84, v[56:57], off
	global_load_ushort v85, v[58:59], off
	global_load_ushort v86, v[60:61], off
	global_load_ushort v87, v[62:63], off
	.loc	1 40 20                         ; triton_kernels.py:40:20
	global_load_ushort v88, v[64:65], off
	global_load_ushort v89, v[66:67], off
	global_load_ushort v90, v[72:73], off
	global_load_ushort v91, v[74:75], off
	global_load_ushort v92, v[68:69], off
	global_load_ushort v93, v[70:71], off
	global_load_ushort v94, v[76:77], off
                                        ; kill: killed $vgpr76 killed $vgpr77
                                        ; kill: killed $vgpr50 killed $vgpr51
                                        ; kill: killed $vgpr64 killed $vgpr65
                                        ; kill: killed $vgpr54 killed $vgpr55
                                        ; kill: killed $vgpr66 killed $vgpr67
                                        ; kill: killed $vgpr58 killed $vgpr59
                                        ; kill: killed $vgpr72 killed $vgpr73
                                        ; kill: killed $vgpr48 killed $vgpr49
                                        ; kill: killed $vgpr62 killed $vgpr63
                                        ; kill: killed $vgpr74 killed $vgpr75
                                        ; kill: killed $vgpr52 killed $vgpr53
                                        ; kill: killed $vgpr68 killed $vgpr69
                                        ; kill: killed $vgpr56 killed $vgpr57
                                        ; kill: killed $vgpr70 killed $vgpr71
                                        ; kill: killed $vgpr60 killed $vgpr61
	s_nop 0
	global_load_ushort v48, v[78:79], off
	.loc	1 39 20                         ; triton_kernels.py:39:20
	v_add_u32_e32 v49, 0, v40
	.loc	1 40 20                         ; triton_kernels.py:40:20
	v_add_u32_e32 v50, 0, v41
	v_add_u32_e32 v51, 0, v42
	.loc	1 39 20                         ; triton_kernels.py:39:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_add_co_u32_e32 v4, vcc, s22, v4
	v_add_co_u32_e64 v6, s[0:1], s22, v6
	v_add_co_u32_e64 v8, s[2:3], s22, v8
	v_add_co_u32_e64 v10, s[6:7], s22, v10
	v_add_co_u32_e64 v12, s[8:9], s22, v12
	v_add_co_u32_e64 v14, s[12:13], s22, v14
	v_add_co_u32_e64 v16, s[16:17], s22, v16
	v_add_co_u32_e64 v20, s[18:19], s24, v20
	s_add_i32 s28, s28, 32
	v_add_co_u32_e64 v2, s[20:21], s22, v2
	.loc	1 39 20                         ; triton_kernels.py:39:20
	s_waitcnt vmcnt(15)
	ds_write_b16 v49, v80
	s_waitcnt vmcnt(14)
	ds_write_b16 v49, v81 offset:512
	s_waitcnt vmcnt(13)
	ds_write_b16 v49, v82 offset:1024
	s_waitcnt vmcnt(12)
	ds_write_b16 v49, v83 offset:1536
	s_waitcnt vmcnt(11)
	ds_write_b16 v49, v84 offset:2048
	s_waitcnt vmcnt(10)
	ds_write_b16 v49, v85 offset:2560
	s_waitcnt vmcnt(9)
	ds_write_b16 v49, v86 offset:3072
	s_waitcnt vmcnt(8)
	ds_write_b16 v49, v87 offset:3584
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_u16 v56, v43
	ds_read_u16 v58, v43 offset:128
	ds_read_u16 v57, v43 offset:256
	ds_read_u16 v59, v43 offset:384
	ds_read_u16 v60, v43 offset:1024
	ds_read_u16 v61, v43 offset:1152
	ds_read_u16 v62, v43 offset:1280
	ds_read_u16 v63, v43 offset:1408
	ds_read_u16 v64, v43 offset:2048
	ds_read_u16 v65, v43 offset:2176
	ds_read_u16 v66, v43 offset:2304
	ds_read_u16 v67, v43 offset:2432
	ds_read_u16 v68, v43 offset:3072
	ds_read_u16 v69, v43 offset:3200
	ds_read_u16 v70, v43 offset:3328
	ds_read_u16 v71, v43 offset:3456
	.loc	1 40 20                         ; triton_kernels.py:40:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_waitcnt vmcnt(7)
	ds_write_b16 v50, v88
	s_waitcnt vmcnt(6)
	ds_write_b16 v50, v89 offset:1024
	s_waitcnt vmcnt(5)
	ds_write_b16 v50, v90 offset:2048
	s_waitcnt vmcnt(4)
	ds_write_b16 v50, v91 offset:3072
	s_waitcnt vmcnt(3)
	ds_write_b16 v44, v92 offset:512
	s_waitcnt vmcnt(2)
	ds_write_b16 v44, v93 offset:1536
	s_waitcnt vmcnt(1)
	ds_write_b16 v44, v94 offset:2560
	s_waitcnt vmcnt(0)
	ds_write_b16 v44, v48 offset:3584
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b64 v[48:49], v51
	ds_read_b64 v[50:51], v45
	ds_read_b64 v[52:53], v46
	ds_read_b64 v[54:55], v47
	.loc	1 41 25                         ; triton_kernels.py:41:25
	v_perm_b32 v57, v59, v57, s15
	v_perm_b32 v56, v58, v56, s15
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cmp_lt_i32 s28, s14
	.loc	1 41 25                         ; triton_kernels.py:41:25
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x8f16 a[0:15], v[48:49], v[56:57], a[0:15]
	v_perm_b32 v49, v63, v62, s15
	v_perm_b32 v48, v61, v60, s15
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_mov_b32_e32 v56, s23
	v_addc_co_u32_e64 v3, s[20:21], v3, v56, s[20:21]
	v_addc_co_u32_e32 v5, vcc, v5, v56, vcc
	v_addc_co_u32_e64 v7, vcc, v7, v56, s[0:1]
	v_addc_co_u32_e64 v9, vcc, v9, v56, s[2:3]
	v_addc_co_u32_e64 v11, vcc, v11, v56, s[6:7]
	v_addc_co_u32_e64 v13, vcc, v13, v56, s[8:9]
	.loc	1 41 25                         ; triton_kernels.py:41:25
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x8f16 a[0:15], v[50:51], v[48:49], a[0:15]
	v_perm_b32 v49, v67, v66, s15
	v_perm_b32 v48, v65, v64, s15
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_mov_b32_e32 v50, s25
	v_addc_co_u32_e64 v15, vcc, v15, v56, s[12:13]
	v_addc_co_u32_e64 v17, vcc, v17, v56, s[16:17]
	v_addc_co_u32_e64 v21, vcc, v21, v50, s[18:19]
	.loc	1 41 25                         ; triton_kernels.py:41:25
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8f16 a[0:15], v[52:53], v[48:49], a[0:15]
	v_perm_b32 v49, v71, v70, s15
	v_perm_b32 v48, v69, v68, s15
	s_waitcnt lgkmcnt(0)
	s_nop 0
	v_mfma_f32_32x32x8f16 a[0:15], v[54:55], v[48:49], a[0:15]
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cbranch_scc1 .LBB0_2
; %bb.3:                                ; %._crit_edge.loopexit
	.loc	1 0 0 is_stmt 0                 ; triton_kernels.py:0
	s_nop 15
	s_nop 1
	v_accvgpr_read_b32 v48, a0
	v_accvgpr_read_b32 v49, a1
	v_accvgpr_read_b32 v50, a2
	v_accvgpr_read_b32 v51, a3
	v_accvgpr_read_b32 v52, a4
	v_accvgpr_read_b32 v53, a5
	v_accvgpr_read_b32 v54, a6
	v_accvgpr_read_b32 v55, a7
	v_accvgpr_read_b32 v56, a8
	v_accvgpr_read_b32 v57, a9
	v_accvgpr_read_b32 v58, a10
	v_accvgpr_read_b32 v59, a11
	v_accvgpr_read_b32 v60, a12
	v_accvgpr_read_b32 v61, a13
	v_accvgpr_read_b32 v62, a14
	v_accvgpr_read_b32 v63, a15
	.loc	1 45 28 is_stmt 1               ; triton_kernels.py:45:28
	v_cvt_f16_f32_e32 v15, v48
	v_cvt_f16_f32_e32 v14, v49
	v_cvt_f16_f32_e32 v13, v50
	v_cvt_f16_f32_e32 v12, v51
	v_cvt_f16_f32_e32 v11, v52
	v_cvt_f16_f32_e32 v10, v53
	v_cvt_f16_f32_e32 v9, v54
	v_cvt_f16_f32_e32 v8, v55
	v_cvt_f16_f32_e32 v7, v56
	v_cvt_f16_f32_e32 v6, v57
	v_cvt_f16_f32_e32 v5, v58
	v_cvt_f16_f32_e32 v4, v59
	v_cvt_f16_f32_e32 v3, v60
	v_cvt_f16_f32_e32 v2, v61
	v_cvt_f16_f32_e32 v1, v62
	v_cvt_f16_f32_e32 v0, v63
	.loc	1 32 35                         ; triton_kernels.py:32:35
	s_branch .LBB0_5
.LBB0_4:
	.loc	1 0 35 is_stmt 0                ; triton_kernels.py:0:35
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
.LBB0_5:                                ; %Flow
	s_load_dwordx2 s[0:1], s[4:5], 0x34
	.loc	1 32 35 is_stmt 1               ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v16, 3, v38
	v_lshrrev_b32_e32 v17, 1, v39
	.loc	1 33 22                         ; triton_kernels.py:33:22
	v_or3_b32 v18, v16, v17, s27
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v16, 2, v37
	.loc	1 32 22 is_stmt 0               ; triton_kernels.py:32:22
	v_or3_b32 v16, v36, v16, s26
	.loc	1 44 35 is_stmt 1               ; triton_kernels.py:44:35
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v16, s0, v16
	.loc	1 44 21 is_stmt 0               ; triton_kernels.py:44:21
	v_ashrrev_i32_e32 v17, 31, v16
	v_lshlrev_b64 v[16:17], 1, v[16:17]
	v_mov_b32_e32 v19, s11
	v_add_co_u32_e32 v48, vcc, s10, v16
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_mul_lo_u32 v16, s1, v18
	.loc	1 44 21                         ; triton_kernels.py:44:21
	v_addc_co_u32_e32 v49, vcc, v19, v17, vcc
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_ashrrev_i32_e32 v17, 31, v16
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v18, s1, v16
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_lshlrev_b64 v[16:17], 1, v[16:17]
	v_add_co_u32_e32 v16, vcc, v48, v16
	v_ashrrev_i32_e32 v19, 31, v18
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v20, s1, v18
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v17, vcc, v49, v17, vcc
	v_lshlrev_b64 v[18:19], 1, v[18:19]
	v_add_co_u32_e32 v18, vcc, v48, v18
	v_ashrrev_i32_e32 v21, 31, v20
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v22, s1, v20
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v19, vcc, v49, v19, vcc
	v_lshlrev_b64 v[20:21], 1, v[20:21]
	.loc	1 44 61                         ; triton_kernels.py:44:61
	s_mul_i32 s0, s1, 5
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_add_co_u32_e32 v20, vcc, v48, v20
	v_ashrrev_i32_e32 v23, 31, v22
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v24, s0, v22
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v21, vcc, v49, v21, vcc
	v_lshlrev_b64 v[22:23], 1, v[22:23]
	v_add_co_u32_e32 v22, vcc, v48, v22
	v_ashrrev_i32_e32 v25, 31, v24
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v26, s1, v24
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v23, vcc, v49, v23, vcc
	v_lshlrev_b64 v[24:25], 1, v[24:25]
	v_add_co_u32_e32 v24, vcc, v48, v24
	v_ashrrev_i32_e32 v27, 31, v26
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v28, s1, v26
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v25, vcc, v49, v25, vcc
	v_lshlrev_b64 v[26:27], 1, v[26:27]
	v_add_co_u32_e32 v26, vcc, v48, v26
	v_ashrrev_i32_e32 v29, 31, v28
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v30, s1, v28
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v27, vcc, v49, v27, vcc
	v_lshlrev_b64 v[28:29], 1, v[28:29]
	v_add_co_u32_e32 v28, vcc, v48, v28
	v_ashrrev_i32_e32 v31, 31, v30
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v32, s0, v30
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v29, vcc, v49, v29, vcc
	v_lshlrev_b64 v[30:31], 1, v[30:31]
	v_add_co_u32_e32 v30, vcc, v48, v30
	v_ashrrev_i32_e32 v33, 31, v32
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v34, s1, v32
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v31, vcc, v49, v31, vcc
	v_lshlrev_b64 v[32:33], 1, v[32:33]
	v_add_co_u32_e32 v32, vcc, v48, v32
	v_ashrrev_i32_e32 v35, 31, v34
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v36, s1, v34
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v33, vcc, v49, v33, vcc
	v_lshlrev_b64 v[34:35], 1, v[34:35]
	v_add_co_u32_e32 v34, vcc, v48, v34
	v_ashrrev_i32_e32 v37, 31, v36
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v38, s1, v36
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v35, vcc, v49, v35, vcc
	v_lshlrev_b64 v[36:37], 1, v[36:37]
	v_add_co_u32_e32 v36, vcc, v48, v36
	v_ashrrev_i32_e32 v39, 31, v38
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v40, s0, v38
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v37, vcc, v49, v37, vcc
	v_lshlrev_b64 v[38:39], 1, v[38:39]
	v_add_co_u32_e32 v38, vcc, v48, v38
	v_ashrrev_i32_e32 v41, 31, v40
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v42, s1, v40
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v39, vcc, v49, v39, vcc
	v_lshlrev_b64 v[40:41], 1, v[40:41]
	v_add_co_u32_e32 v40, vcc, v48, v40
	v_ashrrev_i32_e32 v43, 31, v42
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v44, s1, v42
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v41, vcc, v49, v41, vcc
	v_lshlrev_b64 v[42:43], 1, v[42:43]
	v_add_co_u32_e32 v42, vcc, v48, v42
	v_ashrrev_i32_e32 v45, 31, v44
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v46, s1, v44
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_addc_co_u32_e32 v43, vcc, v49, v43, vcc
	v_lshlrev_b64 v[44:45], 1, v[44:45]
	v_add_co_u32_e32 v44, vcc, v48, v44
	v_ashrrev_i32_e32 v47, 31, v46
	v_addc_co_u32_e32 v45, vcc, v49, v45, vcc
	v_lshlrev_b64 v[46:47], 1, v[46:47]
	v_add_co_u32_e32 v46, vcc, v48, v46
	v_addc_co_u32_e32 v47, vcc, v49, v47, vcc
	.loc	1 45 21 is_stmt 1               ; triton_kernels.py:45:21
	global_store_short v[16:17], v15, off
	global_store_short v[18:19], v14, off
	global_store_short v[20:21], v13, off
	global_store_short v[22:23], v12, off
	global_store_short v[24:25], v11, off
	global_store_short v[26:27], v10, off
	global_store_short v[28:29], v9, off
	global_store_short v[30:31], v8, off
	global_store_short v[32:33], v7, off
	global_store_short v[34:35], v6, off
	global_store_short v[36:37], v5, off
	global_store_short v[38:39], v4, off
	global_store_short v[40:41], v3, off
	global_store_short v[42:43], v2, off
	global_store_short v[44:45], v1, off
	global_store_short v[46:47], v0, off
	.loc	1 45 4 is_stmt 0                ; triton_kernels.py:45:4
	s_endpgm
.Ltmp2:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel matmul
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 80
		.amdhsa_user_sgpr_count 16
		.amdhsa_user_sgpr_private_segment_buffer 1
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_flat_scratch_init 0
		.amdhsa_user_sgpr_kernarg_preload_length 10
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_system_sgpr_private_segment_wavefront_offset 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 112
		.amdhsa_next_free_sgpr 29
		.amdhsa_accum_offset 96
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_flat_scratch 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	matmul, .Lfunc_end0-matmul
	.cfi_endproc
                                        ; -- End function
	.set matmul.num_vgpr, 95
	.set matmul.num_agpr, 16
	.set matmul.numbered_sgpr, 29
	.set matmul.num_named_barrier, 0
	.set matmul.private_seg_size, 0
	.set matmul.uses_vcc, 1
	.set matmul.uses_flat_scratch, 0
	.set matmul.has_dyn_sized_stack, 0
	.set matmul.has_recursion, 0
	.set matmul.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2896
; TotalNumSgprs: 33
; NumVgprs: 95
; NumAgprs: 16
; TotalNumVgprs: 112
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 4
; VGPRBlocks: 13
; NumSGPRsForWavesPerEU: 33
; NumVGPRsForWavesPerEU: 112
; AccumOffset: 96
; Occupancy: 4
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 23
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.section	.AMDGPU.gpr_maximums,"",@progbits
	.set amdgpu.max_num_vgpr, 0
	.set amdgpu.max_num_agpr, 0
	.set amdgpu.max_num_sgpr, 0
	.text
	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	0                               ; DW_CHILDREN_no
	.byte	37                              ; DW_AT_producer
	.byte	14                              ; DW_FORM_strp
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	14                              ; DW_FORM_strp
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	4                               ; DWARF version number
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	8                               ; Address Size (in bytes)
	.byte	1                               ; Abbrev [1] 0xb:0x1f DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
.Ldebug_info_end0:
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0
.Linfo_string1:
	.asciz	"triton_kernels.py"             ; string offset=7
.Linfo_string2:
	.asciz	"/work/main/tests/corpus/src"   ; string offset=25
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     16
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         16
        .size:           8
        .value_kind:     global_buffer
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .offset:         28
        .size:           4
        .value_kind:     by_value
      - .offset:         32
        .size:           4
        .value_kind:     by_value
      - .offset:         36
        .size:           4
        .value_kind:     by_value
      - .offset:         40
        .size:           4
        .value_kind:     by_value
      - .offset:         44
        .size:           4
        .value_kind:     by_value
      - .offset:         48
        .size:           4
        .value_kind:     by_value
      - .offset:         52
        .size:           4
        .value_kind:     by_value
      - .offset:         56
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         64
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         72
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 80
    .max_flat_workgroup_size: 256
    .name:           matmul
    .private_segment_fixed_size: 0
    .sgpr_count:     33
    .sgpr_spill_count: 0
    .symbol:         matmul.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     112
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
