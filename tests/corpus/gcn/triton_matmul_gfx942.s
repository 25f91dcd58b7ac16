	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
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
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	s_load_dwordx4 s[12:15], s[0:1], 0x28
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.7:
.LBB0_0:
.Ltmp1:
	.loc	1 32 17 is_stmt 1               ; triton_kernels.py:32:17
	s_lshl_b32 s16, s16, 6
	.loc	1 33 17                         ; triton_kernels.py:33:17
	s_lshl_b32 s17, s17, 6
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v36, 31, v0
	v_and_b32_e32 v37, 0x80, v0
	v_and_b32_e32 v38, 32, v0
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cmp_lt_i32 s10, 1
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v39, 64, v0
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cbranch_scc1 .LBB0_4
; %bb.1:                                ; %.lr.ph
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v22, 5, v0
	.loc	1 33 22                         ; triton_kernels.py:33:22
	v_or_b32_e32 v1, s17, v22
	v_or_b32_e32 v2, 56, v1
	v_or_b32_e32 v1, 24, v1
	v_lshlrev_b32_e32 v3, 2, v0
	v_lshrrev_b32_e32 v4, 1, v0
	.loc	1 36 61                         ; triton_kernels.py:36:61
	v_mul_lo_u32 v28, s14, v1
	.loc	1 35 50                         ; triton_kernels.py:35:50
	v_and_b32_e32 v1, 0xc0, v0
	v_and_b32_e32 v3, 56, v3
	v_and_b32_e32 v4, 24, v4
	v_mov_b32_e32 v7, 0x810
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_cmp_eq_u32_e32 vcc, 0, v37
	.loc	1 35 50                         ; triton_kernels.py:35:50
	v_lshrrev_b32_e32 v12, 4, v1
	v_lshrrev_b32_e32 v1, 3, v1
	v_xor_b32_e32 v4, v3, v4
	v_bfe_i32 v5, v0, 4, 1
	v_lshrrev_b32_e32 v6, 2, v38
	v_cndmask_b32_e64 v7, v7, 0, vcc
	.loc	1 36 61                         ; triton_kernels.py:36:61
	v_mul_lo_u32 v20, s14, v2
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_and_b32_e32 v2, 63, v0
	v_xor_b32_e32 v4, v4, v1
	v_and_b32_e32 v5, 0x408, v5
	v_or_b32_e32 v7, v7, v6
	v_lshl_or_b32 v40, v2, 6, v4
	v_lshlrev_b32_e32 v4, 6, v0
	v_xor_b32_e32 v5, v5, v7
	v_lshlrev_b32_e32 v0, 1, v0
	v_xor_b32_e32 v5, v5, v3
	s_movk_i32 s9, 0x3c0
	v_xor_b32_e32 v42, v0, v1
	v_lshlrev_b32_e32 v0, 6, v36
	v_lshlrev_b32_e32 v1, 5, v39
	v_xor_b32_e32 v3, v3, v6
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_add_u32_e32 v34, s17, v22
	.loc	1 35 61                         ; triton_kernels.py:35:61
	v_mul_lo_u32 v16, s12, v12
	v_and_or_b32 v41, v4, s9, v5
	v_or3_b32 v43, v0, v1, v3
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_or_b32_e32 v0, 19, v12
	v_add_u32_e32 v2, s16, v2
	v_or_b32_e32 v4, 18, v12
	v_or_b32_e32 v6, 17, v12
	v_or_b32_e32 v8, 16, v12
	v_or_b32_e32 v10, 3, v12
	v_or_b32_e32 v12, 2, v12
	v_add_u32_e32 v22, 48, v34
	v_add_u32_e32 v24, 40, v34
	v_add_u32_e32 v26, 32, v34
	v_add_u32_e32 v30, 16, v34
	v_add_u32_e32 v32, 8, v34
	.loc	1 43 23                         ; triton_kernels.py:43:23
	s_lshl_b32 s8, s13, 5
	.loc	1 42 23                         ; triton_kernels.py:42:23
	s_lshl_b32 s18, s12, 5
	.loc	1 36 35                         ; triton_kernels.py:36:35
	v_mul_lo_u32 v18, s13, v36
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_mul_lo_u32 v0, s12, v0
	v_mul_lo_u32 v2, s11, v2
	v_mul_lo_u32 v4, s12, v4
	v_mul_lo_u32 v6, s12, v6
	v_mul_lo_u32 v8, s12, v8
	v_mul_lo_u32 v10, s12, v10
	v_mul_lo_u32 v12, s12, v12
	v_add_u32_e32 v14, s12, v16
	v_mul_lo_u32 v22, s14, v22
	v_mul_lo_u32 v24, s14, v24
	v_mul_lo_u32 v26, s14, v26
	v_mul_lo_u32 v30, s14, v30
	v_mul_lo_u32 v32, s14, v32
	v_mul_lo_u32 v34, s14, v34
	.loc	1 36 21                         ; triton_kernels.py:36:21
	v_ashrrev_i32_e32 v19, 31, v18
	.loc	1 36 47 is_stmt 0               ; triton_kernels.py:36:47
	v_ashrrev_i32_e32 v21, 31, v20
	v_ashrrev_i32_e32 v29, 31, v28
	.loc	1 35 47 is_stmt 1               ; triton_kernels.py:35:47
	v_ashrrev_i32_e32 v17, 31, v16
	v_xor_b32_e32 v44, 32, v40
	v_xor_b32_e32 v45, 16, v41
	v_xor_b32_e32 v46, 32, v41
	v_xor_b32_e32 v47, 48, v41
	v_xor_b32_e32 v48, 32, v42
	v_xor_b32_e32 v49, 16, v43
	v_xor_b32_e32 v50, 32, v43
	v_xor_b32_e32 v51, 48, v43
	s_ashr_i32 s19, s18, 31
	s_ashr_i32 s9, s8, 31
	.loc	1 38 25                         ; triton_kernels.py:38:25
	v_ashrrev_i32_e32 v1, 31, v0
	v_ashrrev_i32_e32 v3, 31, v2
	v_ashrrev_i32_e32 v5, 31, v4
	v_ashrrev_i32_e32 v7, 31, v6
	v_ashrrev_i32_e32 v9, 31, v8
	v_ashrrev_i32_e32 v11, 31, v10
	v_ashrrev_i32_e32 v13, 31, v12
	v_ashrrev_i32_e32 v15, 31, v14
	v_ashrrev_i32_e32 v23, 31, v22
	v_ashrrev_i32_e32 v25, 31, v24
	v_ashrrev_i32_e32 v27, 31, v26
	v_ashrrev_i32_e32 v31, 31, v30
	v_ashrrev_i32_e32 v33, 31, v32
	v_ashrrev_i32_e32 v35, 31, v34
	s_mov_b32 s13, 0
	v_lshlrev_b64 v[0:1], 1, v[0:1]
	v_lshl_add_u64 v[2:3], v[2:3], 1, s[2:3]
	s_lshl_b64 s[2:3], s[18:19], 1
	v_lshlrev_b64 v[4:5], 1, v[4:5]
	v_lshlrev_b64 v[6:7], 1, v[6:7]
	v_lshlrev_b64 v[8:9], 1, v[8:9]
	v_lshlrev_b64 v[10:11], 1, v[10:11]
	v_lshlrev_b64 v[12:13], 1, v[12:13]
	v_lshlrev_b64 v[14:15], 1, v[14:15]
	v_lshlrev_b64 v[16:17], 1, v[16:17]
	v_lshlrev_b64 v[18:19], 1, v[18:19]
	v_lshl_add_u64 v[20:21], v[20:21], 1, s[4:5]
	s_lshl_b64 s[8:9], s[8:9], 1
	v_lshl_add_u64 v[22:23], v[22:23], 1, s[4:5]
	v_lshl_add_u64 v[24:25], v[24:25], 1, s[4:5]
	v_lshl_add_u64 v[26:27], v[26:27], 1, s[4:5]
	v_lshl_add_u64 v[28:29], v[28:29], 1, s[4:5]
	v_lshl_add_u64 v[30:31], v[30:31], 1, s[4:5]
	v_lshl_add_u64 v[32:33], v[32:33], 1, s[4:5]
	v_lshl_add_u64 v[34:35], v[34:35], 1, s[4:5]
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
	s_mov_b32 s4, 0x5040100
	v_add_u32_e32 v44, 0, v44
	v_add_u32_e32 v45, 0, v45
	v_add_u32_e32 v46, 0, v46
	v_add_u32_e32 v47, 0, v47
	v_add_u32_e32 v48, 0, v48
	v_add_u32_e32 v49, 0, v49
	v_add_u32_e32 v50, 0, v50
	v_add_u32_e32 v51, 0, v51
.LBB0_2:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 39 20                         ; triton_kernels.py:39:20
	v_lshl_add_u64 v[60:61], v[2:3], 0, v[10:11]
	v_lshl_add_u64 v[66:67], v[2:3], 0, v[16:17]
	v_lshl_add_u64 v[52:53], v[2:3], 0, v[0:1]
	v_lshl_add_u64 v[54:55], v[2:3], 0, v[4:5]
	v_lshl_add_u64 v[56:57], v[2:3], 0, v[6:7]
	v_lshl_add_u64 v[58:59], v[2:3], 0, v[8:9]
	v_lshl_add_u64 v[62:63], v[2:3], 0, v[12:13]
	v_lshl_add_u64 v[64:65], v[2:3], 0, v[14:15]
	v_lshl_add_u64 v[68:69], v[20:21], 0, v[18:19]
	v_lshl_add_u64 v[70:71], v[22:23], 0, v[18:19]
	v_lshl_add_u64 v[72:73], v[24:25], 0, v[18:19]
	v_lshl_add_u64 v[74:75], v[26:27], 0, v[18:19]
	v_lshl_add_u64 v[76:77], v[30:31], 0, v[18:19]
	v_lshl_add_u64 v[78:79], v[34:35], 0, v[18:19]
	v_lshl_add_u64 v[80:81], v[28:29], 0, v[18:19]
	v_lshl_add_u64 v[82:83], v[32:33], 0, v[18:19]
	global_load_ushort v84, v[66:67], off
	global_load_ushort v85, v[64:65], off
	global_load_ushort v86, v[62:63], off
	global_load_ushort v87, v[60:61], off
	global_load_ushort v88, v[54:55], off
	global_load_ushort v89, v[56:57], off
	global_load_ushort v90, v[52:53], off
	global_load_ushort v91, v[58:59], off
	.loc	1 40 20                         ; triton_kernels.py:40:20
	global_load_ushort v92, v[78:79], off
	global_load_ushort v93, v[76:77], off
	global_load_ushort v94, v[74:75], off
	global_load_ushort v95, v[70:71], off
	global_load_ushort v96, v[82:83], off
	global_load_ushort v97, v[80:81], off
	global_load_ushort v98, v[72:73], off
                                        ; kill: killed $vgpr76_vgpr77
                                        ; kill: killed $vgpr64_vgpr65
                                        ; kill: killed $vgpr74_vgpr75
                                        ; kill: killed $vgpr60_vgpr61
                                        ; kill: killed $vgpr70_vgpr71
                                        ; kill: killed $vgpr56_vgpr57
                                        ; kill: killed $vgpr82_vgpr83
                                        ; kill: killed $vgpr66_vgpr67
                                        ; kill: killed $vgpr52_vgpr53
                                        ; kill: killed $vgpr80_vgpr81
                                        ; kill: killed $vgpr62_vgpr63
                                        ; kill: killed $vgpr72_vgpr73
                                        ; kill: killed $vgpr58_vgpr59
                                        ; kill: killed $vgpr78_vgpr79
                                        ; kill: killed $vgpr54_vgpr55
	s_nop 0
	global_load_ushort v60, v[68:69], off
	.loc	1 39 20                         ; triton_kernels.py:39:20
	v_add_u32_e32 v56, 0, v40
	v_add_u32_e32 v57, 0, v41
	.loc	1 40 20                         ; triton_kernels.py:40:20
	v_add_u32_e32 v61, 0, v42
	v_add_u32_e32 v62, 0, v43
	.loc	1 39 20                         ; triton_kernels.py:39:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_add_i32 s13, s13, 32
	v_lshl_add_u64 v[2:3], v[2:3], 0, s[2:3]
	v_lshl_add_u64 v[20:21], v[20:21], 0, s[8:9]
	v_lshl_add_u64 v[22:23], v[22:23], 0, s[8:9]
	v_lshl_add_u64 v[24:25], v[24:25], 0, s[8:9]
	v_lshl_add_u64 v[26:27], v[26:27], 0, s[8:9]
	v_lshl_add_u64 v[28:29], v[28:29], 0, s[8:9]
	v_lshl_add_u64 v[30:31], v[30:31], 0, s[8:9]
	v_lshl_add_u64 v[32:33], v[32:33], 0, s[8:9]
	v_lshl_add_u64 v[34:35], v[34:35], 0, s[8:9]
	s_cmp_lt_i32 s13, s10
	.loc	1 39 20                         ; triton_kernels.py:39:20
	s_waitcnt vmcnt(14)
	v_perm_b32 v52, v85, v84, s4
	s_waitcnt vmcnt(12)
	v_perm_b32 v53, v87, v86, s4
	s_waitcnt vmcnt(9)
	v_perm_b32 v55, v90, v88, s4
	s_waitcnt vmcnt(8)
	v_perm_b32 v54, v89, v91, s4
	ds_write_b64 v56, v[52:53]
	ds_write_b64 v44, v[54:55]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b64 v[52:53], v57
	ds_read_b64 v[54:55], v45
	ds_read_b64 v[56:57], v46
	ds_read_b64 v[58:59], v47
	.loc	1 40 20                         ; triton_kernels.py:40:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_waitcnt vmcnt(7)
	ds_write_b16 v61, v92
	s_waitcnt vmcnt(6)
	ds_write_b16 v61, v93 offset:1024
	s_waitcnt vmcnt(5)
	ds_write_b16 v61, v94 offset:2048
	s_waitcnt vmcnt(4)
	ds_write_b16 v61, v95 offset:3072
	s_waitcnt vmcnt(3)
	ds_write_b16 v48, v96 offset:512
	s_waitcnt vmcnt(2)
	ds_write_b16 v48, v97 offset:1536
	s_waitcnt vmcnt(1)
	ds_write_b16 v48, v98 offset:2560
	s_waitcnt vmcnt(0)
	ds_write_b16 v48, v60 offset:3584
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b64 v[60:61], v62
	ds_read_b64 v[62:63], v49
	ds_read_b64 v[64:65], v50
	ds_read_b64 v[66:67], v51
	.loc	1 41 25                         ; triton_kernels.py:41:25
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x8_f16 a[0:15], v[60:61], v[52:53], a[0:15]
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x8_f16 a[0:15], v[62:63], v[54:55], a[0:15]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[64:65], v[56:57], a[0:15]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 a[0:15], v[66:67], v[58:59], a[0:15]
	.loc	1 38 25                         ; triton_kernels.py:38:25
	s_cbranch_scc1 .LBB0_2
; %bb.3:                                ; %._crit_edge.loopexit
	.loc	1 0 0 is_stmt 0                 ; triton_kernels.py:0
	s_nop 9
	v_accvgpr_read_b32 v52, a0
	v_accvgpr_read_b32 v53, a1
	v_accvgpr_read_b32 v54, a2
	v_accvgpr_read_b32 v55, a3
	v_accvgpr_read_b32 v56, a4
	v_accvgpr_read_b32 v57, a5
	v_accvgpr_read_b32 v58, a6
	v_accvgpr_read_b32 v59, a7
	v_accvgpr_read_b32 v60, a8
	v_accvgpr_read_b32 v61, a9
	v_accvgpr_read_b32 v62, a10
	v_accvgpr_read_b32 v63, a11
	v_accvgpr_read_b32 v64, a12
	v_accvgpr_read_b32 v65, a13
	v_accvgpr_read_b32 v66, a14
	v_accvgpr_read_b32 v67, a15
	.loc	1 45 28 is_stmt 1               ; triton_kernels.py:45:28
	v_cvt_f16_f32_e32 v15, v52
	v_cvt_f16_f32_e32 v14, v53
	v_cvt_f16_f32_e32 v13, v54
	v_cvt_f16_f32_e32 v12, v55
	v_cvt_f16_f32_e32 v11, v56
	v_cvt_f16_f32_e32 v10, v57
	v_cvt_f16_f32_e32 v9, v58
	v_cvt_f16_f32_e32 v8, v59
	v_cvt_f16_f32_e32 v7, v60
	v_cvt_f16_f32_e32 v6, v61
	v_cvt_f16_f32_e32 v5, v62
	v_cvt_f16_f32_e32 v4, v63
	v_cvt_f16_f32_e32 v3, v64
	v_cvt_f16_f32_e32 v2, v65
	v_cvt_f16_f32_e32 v1, v66
	v_cvt_f16_f32_e32 v0, v67
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
	s_load_dword s0, s[0:1], 0x38
	.loc	1 32 35 is_stmt 1               ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v16, 3, v38
	v_lshrrev_b32_e32 v17, 1, v39
	.loc	1 33 22                         ; triton_kernels.py:33:22
	v_or3_b32 v18, v16, v17, s17
	.loc	1 32 35                         ; triton_kernels.py:32:35
	v_lshrrev_b32_e32 v16, 2, v37
	.loc	1 44 61                         ; triton_kernels.py:44:61
	s_waitcnt lgkmcnt(0)
	v_mul_lo_u32 v18, s0, v18
	v_add_u32_e32 v20, s0, v18
	v_add_u32_e32 v22, s0, v20
	v_add_u32_e32 v24, s0, v22
	s_mul_i32 s1, s0, 5
	v_add_u32_e32 v26, s1, v24
	v_add_u32_e32 v28, s0, v26
	v_add_u32_e32 v30, s0, v28
	v_add_u32_e32 v32, s0, v30
	v_add_u32_e32 v34, s1, v32
	.loc	1 32 22                         ; triton_kernels.py:32:22
	v_or3_b32 v16, v36, v16, s16
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v36, s0, v34
	v_add_u32_e32 v38, s0, v36
	v_add_u32_e32 v40, s0, v38
	v_add_u32_e32 v42, s1, v40
	.loc	1 44 35 is_stmt 0               ; triton_kernels.py:44:35
	v_mul_lo_u32 v16, s15, v16
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v44, s0, v42
	.loc	1 44 21                         ; triton_kernels.py:44:21
	v_ashrrev_i32_e32 v17, 31, v16
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v46, s0, v44
	.loc	1 44 21                         ; triton_kernels.py:44:21
	v_lshl_add_u64 v[16:17], v[16:17], 1, s[6:7]
	.loc	1 44 61                         ; triton_kernels.py:44:61
	v_add_u32_e32 v48, s0, v46
	.loc	1 44 47                         ; triton_kernels.py:44:47
	v_ashrrev_i32_e32 v19, 31, v18
	v_lshl_add_u64 v[18:19], v[18:19], 1, v[16:17]
	v_ashrrev_i32_e32 v21, 31, v20
	v_ashrrev_i32_e32 v23, 31, v22
	v_ashrrev_i32_e32 v25, 31, v24
	v_ashrrev_i32_e32 v27, 31, v26
	v_ashrrev_i32_e32 v29, 31, v28
	v_ashrrev_i32_e32 v31, 31, v30
	v_ashrrev_i32_e32 v33, 31, v32
	v_ashrrev_i32_e32 v35, 31, v34
	v_ashrrev_i32_e32 v37, 31, v36
	v_ashrrev_i32_e32 v39, 31, v38
	v_ashrrev_i32_e32 v41, 31, v40
	v_ashrrev_i32_e32 v43, 31, v42
	v_ashrrev_i32_e32 v45, 31, v44
	v_ashrrev_i32_e32 v47, 31, v46
	v_ashrrev_i32_e32 v49, 31, v48
	v_lshl_add_u64 v[20:21], v[20:21], 1, v[16:17]
	v_lshl_add_u64 v[22:23], v[22:23], 1, v[16:17]
	v_lshl_add_u64 v[24:25], v[24:25], 1, v[16:17]
	v_lshl_add_u64 v[26:27], v[26:27], 1, v[16:17]
	v_lshl_add_u64 v[28:29], v[28:29], 1, v[16:17]
	v_lshl_add_u64 v[30:31], v[30:31], 1, v[16:17]
	v_lshl_add_u64 v[32:33], v[32:33], 1, v[16:17]
	v_lshl_add_u64 v[34:35], v[34:35], 1, v[16:17]
	v_lshl_add_u64 v[36:37], v[36:37], 1, v[16:17]
	v_lshl_add_u64 v[38:39], v[38:39], 1, v[16:17]
	v_lshl_add_u64 v[40:41], v[40:41], 1, v[16:17]
	v_lshl_add_u64 v[42:43], v[42:43], 1, v[16:17]
	v_lshl_add_u64 v[44:45], v[44:45], 1, v[16:17]
	v_lshl_add_u64 v[46:47], v[46:47], 1, v[16:17]
	v_lshl_add_u64 v[16:17], v[48:49], 1, v[16:17]
	.loc	1 45 21 is_stmt 1               ; triton_kernels.py:45:21
	global_store_short v[18:19], v15, off
	global_store_short v[20:21], v14, off
	global_store_short v[22:23], v13, off
	global_store_short v[24:25], v12, off
	global_store_short v[26:27], v11, off
	global_store_short v[28:29], v10, off
	global_store_short v[30:31], v9, off
	global_store_short v[32:33], v8, off
	global_store_short v[34:35], v7, off
	global_store_short v[36:37], v6, off
	global_store_short v[38:39], v5, off
	global_store_short v[40:41], v4, off
	global_store_short v[42:43], v3, off
	global_store_short v[44:45], v2, off
	global_store_short v[46:47], v1, off
	global_store_short v[16:17], v0, off
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
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 14
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 1
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 116
		.amdhsa_next_free_sgpr 20
		.amdhsa_accum_offset 100
		.amdhsa_reserve_vcc 1
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
	.set matmul.num_vgpr, 99
	.set matmul.num_agpr, 16
	.set matmul.numbered_sgpr, 20
	.set matmul.num_named_barrier, 0
	.set matmul.private_seg_size, 0
	.set matmul.uses_vcc, 1
	.set matmul.uses_flat_scratch, 0
	.set matmul.has_dyn_sized_stack, 0
	.set matmul.has_recursion, 0
	.set matmul.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2476
; TotalNumSgprs: 26
; NumVgprs: 99
; NumAgprs: 16
; TotalNumVgprs: 116
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 3
; VGPRBlocks: 14
; NumSGPRsForWavesPerEU: 26
; NumVGPRsForWavesPerEU: 116
; AccumOffset: 100
; Occupancy: 4
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 24
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
    .sgpr_count:     26
    .sgpr_spill_count: 0
    .symbol:         matmul.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     116
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
	.section	.debug_line,"",@progbits
.Lline_table_start0:
