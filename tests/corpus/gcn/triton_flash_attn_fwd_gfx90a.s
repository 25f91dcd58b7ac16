	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.text
	.globl	flash_attn_fwd                  ; -- Begin function flash_attn_fwd
	.p2align	8
	.type	flash_attn_fwd,@function
flash_attn_fwd:                         ; @flash_attn_fwd
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.24:
	.file	1 "/work/main/tests/corpus/src" "triton_kernels.py"
	.loc	1 100 0 prologue_end            ; triton_kernels.py:100:0
	s_load_dwordx2 s[6:7], s[4:5], 0x0
	s_load_dwordx8 s[8:15], s[4:5], 0x8
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.25:
.LBB0_0:
	s_load_dwordx2 s[0:1], s[4:5], 0x28
.Ltmp1:
	.loc	1 108 23 is_stmt 1              ; triton_kernels.py:108:23
	s_lshl_b32 s16, s16, 7
	.loc	1 108 41 is_stmt 0              ; triton_kernels.py:108:41
	v_lshrrev_b32_e32 v62, 3, v0
	.loc	1 111 81 is_stmt 1              ; triton_kernels.py:111:81
	v_lshlrev_b32_e32 v18, 3, v0
	.loc	1 108 28                        ; triton_kernels.py:108:28
	v_or_b32_e32 v11, s16, v62
	.loc	1 111 32                        ; triton_kernels.py:111:32
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s2, s0, s17
	.loc	1 111 24 is_stmt 0              ; triton_kernels.py:111:24
	s_ashr_i32 s3, s2, 31
	s_lshl_b64 s[2:3], s[2:3], 1
	s_add_u32 s0, s6, s2
	.loc	1 111 81                        ; triton_kernels.py:111:81
	v_and_b32_e32 v1, 56, v18
	.loc	1 112 39 is_stmt 1              ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s15, v11
	.loc	1 111 24                        ; triton_kernels.py:111:24
	s_addc_u32 s6, s7, s3
	v_mov_b32_e32 v2, 0
	v_lshlrev_b32_e32 v1, 1, v1
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	.loc	1 111 16 is_stmt 0              ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_2
; %bb.1:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	v_mul_lo_u32 v4, s1, v11
	v_ashrrev_i32_e32 v5, 31, v4
	v_lshlrev_b64 v[4:5], 1, v[4:5]
	v_mov_b32_e32 v3, s6
	v_add_co_u32_e32 v4, vcc, s0, v4
	v_addc_co_u32_e32 v3, vcc, v3, v5, vcc
	v_add_co_u32_e32 v4, vcc, v4, v1
	v_addc_co_u32_e32 v5, vcc, 0, v3, vcc
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[6:9], v[4:5], off
.LBB0_2:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[2:3]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or3_b32 v10, v62, s16, 32
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s15, v10
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_4
; %bb.3:
	.loc	1 111 62 is_stmt 0              ; triton_kernels.py:111:62
	v_mul_lo_u32 v2, s1, v10
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshlrev_b64 v[2:3], 1, v[2:3]
	v_mov_b32_e32 v4, s6
	v_add_co_u32_e32 v2, vcc, s0, v2
	v_addc_co_u32_e32 v3, vcc, v4, v3, vcc
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_add_co_u32_e32 v2, vcc, v2, v1
	v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[2:5], v[2:3], off
.LBB0_4:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[2:3]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or_b32_e32 v12, 64, v11
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s15, v12
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_6
; %bb.5:
	.loc	1 111 62 is_stmt 0              ; triton_kernels.py:111:62
	v_mul_lo_u32 v12, s1, v12
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v13, 31, v12
	v_lshlrev_b64 v[12:13], 1, v[12:13]
	v_mov_b32_e32 v14, s6
	v_add_co_u32_e32 v12, vcc, s0, v12
	v_addc_co_u32_e32 v13, vcc, v14, v13, vcc
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_add_co_u32_e32 v12, vcc, v12, v1
	v_addc_co_u32_e32 v13, vcc, 0, v13, vcc
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[14:17], v[12:13], off
.LBB0_6:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[2:3]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or_b32_e32 v19, 0x60, v11
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s15, v19
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_8
; %bb.7:
	.loc	1 111 62 is_stmt 0              ; triton_kernels.py:111:62
	v_mul_lo_u32 v10, s1, v19
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v11, 31, v10
	v_lshlrev_b64 v[10:11], 1, v[10:11]
	v_mov_b32_e32 v12, s6
	v_add_co_u32_e32 v10, vcc, s0, v10
	v_addc_co_u32_e32 v11, vcc, v12, v11, vcc
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_add_co_u32_e32 v10, vcc, v10, v1
	v_addc_co_u32_e32 v11, vcc, 0, v11, vcc
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[10:13], v[10:11], off
.LBB0_8:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[2:3]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_lshlrev_b32_e32 v63, 4, v0
	v_and_b32_e32 v19, 0x78, v0
	v_xor_b32_e32 v19, v63, v19
	v_add_u32_e32 v64, 0, v19
	.loc	1 109 26 is_stmt 1              ; triton_kernels.py:109:26
	v_and_b32_e32 v32, 32, v0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_waitcnt vmcnt(0)
	ds_write2st64_b64 v64, v[6:7], v[2:3] offset1:8
	ds_write2st64_b64 v64, v[14:15], v[10:11] offset0:16 offset1:24
	v_xor_b32_e32 v2, 8, v19
	.loc	1 108 41                        ; triton_kernels.py:108:41
	v_and_b32_e32 v60, 31, v0
	v_and_b32_e32 v61, 0xc0, v0
	.loc	1 109 26                        ; triton_kernels.py:109:26
	v_lshrrev_b32_e32 v57, 3, v32
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v65, 0, v2
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cmp_lt_i32 s15, 1
	.loc	1 111 16                        ; triton_kernels.py:111:16
	ds_write2st64_b64 v65, v[8:9], v[4:5] offset1:8
	ds_write2st64_b64 v65, v[16:17], v[12:13] offset0:16 offset1:24
	s_waitcnt lgkmcnt(0)
	s_barrier
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cbranch_scc1 .LBB0_20
; %bb.9:                                ; %.lr.ph
	.loc	1 0 37 is_stmt 0                ; triton_kernels.py:0:37
	s_load_dwordx4 s[0:3], s[4:5], 0x30
	.loc	1 111 16 is_stmt 1              ; triton_kernels.py:111:16
	v_and_b32_e32 v4, 0x78, v18
	v_lshrrev_b32_e32 v5, 2, v32
	v_lshlrev_b32_e32 v2, 7, v60
	v_lshlrev_b32_e32 v3, 6, v61
	v_xor_b32_e32 v6, v4, v5
	v_or3_b32 v3, v6, v3, v2
	.loc	1 119 36                        ; triton_kernels.py:119:36
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s6, s0, s17
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v6, 0, v3
	v_xad_u32 v7, v3, 16, 0
	v_xad_u32 v8, v3, 32, 0
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_ashr_i32 s7, s6, 31
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_xad_u32 v9, v3, 48, 0
	ds_read_b64 v[16:17], v6
	ds_read_b64 v[18:19], v7
	ds_read_b64 v[20:21], v8
	ds_read_b64 v[22:23], v9
	v_xad_u32 v6, v3, 64, 0
	v_xor_b32_e32 v7, 0x50, v3
	v_xor_b32_e32 v8, 0x60, v3
	v_xor_b32_e32 v3, 0x70, v3
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_lshl_b64 s[6:7], s[6:7], 1
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v3, 0, v3
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_add_u32 s0, s8, s6
	.loc	1 128 36                        ; triton_kernels.py:128:36
	s_mul_i32 s6, s2, s17
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v7, 0, v7
	v_add_u32_e32 v8, 0, v8
	ds_read_b64 v[24:25], v6
	ds_read_b64 v[26:27], v7
	ds_read_b64 v[28:29], v8
	ds_read_b64 v[30:31], v3
	.loc	1 116 26                        ; triton_kernels.py:116:26
	v_mov_b32_e32 v3, 0x3fb8aa3b
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_addc_u32 s8, s9, s7
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_ashr_i32 s7, s6, 31
	.loc	1 116 26                        ; triton_kernels.py:116:26
	v_mul_f32_e32 v66, s14, v3
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_lshl_b64 s[6:7], s[6:7], 1
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_mov_b32_e32 v3, s8
	v_add_co_u32_e32 v67, vcc, s0, v1
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_add_u32 s2, s10, s6
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_addc_co_u32_e32 v68, vcc, 0, v3, vcc
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_addc_u32 s6, s11, s7
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_add_co_u32_e32 v69, vcc, s2, v1
	v_or_b32_e32 v1, v2, v4
	v_lshlrev_b32_e32 v0, 2, v0
	v_mov_b32_e32 v3, s6
	v_xor_b32_e32 v71, v1, v5
	v_xor_b32_e32 v72, 0x80, v0
	v_lshlrev_b32_e32 v0, 1, v60
	v_lshlrev_b32_e32 v8, 4, v32
	v_addc_co_u32_e32 v70, vcc, 0, v3, vcc
	v_xor_b32_e32 v1, 16, v71
	v_xor_b32_e32 v2, 32, v71
	v_xor_b32_e32 v3, 48, v71
	v_xor_b32_e32 v4, 64, v71
	v_xor_b32_e32 v5, 0x50, v71
	v_xor_b32_e32 v6, 0x60, v71
	v_xor_b32_e32 v7, 0x70, v71
	v_add3_u32 v73, 0, v8, v0
	v_or_b32_e32 v0, 32, v62
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_mov_b32 s33, 0
	.loc	1 118 25                        ; triton_kernels.py:118:25
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
	v_accvgpr_write_b32 a31, 0
	v_accvgpr_write_b32 a30, 0
	v_accvgpr_write_b32 a29, 0
	v_accvgpr_write_b32 a28, 0
	v_accvgpr_write_b32 a27, 0
	v_accvgpr_write_b32 a26, 0
	v_accvgpr_write_b32 a25, 0
	v_accvgpr_write_b32 a24, 0
	v_accvgpr_write_b32 a23, 0
	v_accvgpr_write_b32 a22, 0
	v_accvgpr_write_b32 a21, 0
	v_accvgpr_write_b32 a20, 0
	v_accvgpr_write_b32 a19, 0
	v_accvgpr_write_b32 a18, 0
	v_accvgpr_write_b32 a17, 0
	v_accvgpr_write_b32 a16, 0
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_mul_lo_u32 v74, s3, v0
	s_lshl_b32 s14, s3, 6
	v_mul_lo_u32 v75, s1, v0
	s_lshl_b32 s76, s1, 6
	v_mul_lo_u32 v76, s3, v62
	v_mul_lo_u32 v77, s1, v62
	v_mov_b32_e32 v56, 0xff800000
	v_mov_b32_e32 v86, 1.0
	v_add_u32_e32 v78, 0, v1
	v_add_u32_e32 v79, 0, v2
	v_add_u32_e32 v80, 0, v3
	v_add_u32_e32 v81, 0, v4
	v_add_u32_e32 v82, 0, v5
	v_add_u32_e32 v83, 0, v6
	v_add_u32_e32 v84, 0, v7
	s_mov_b32 s77, 0x5040100
	v_mov_b32_e32 v85, 0xc9742400
	s_mov_b32 s78, 0
	s_mov_b32 s79, 0
.LBB0_10:                               ; =>This Inner Loop Header: Depth=1
	.loc	1 118 25                        ; triton_kernels.py:118:25
	v_add_u32_e32 v4, s79, v62
	v_accvgpr_read_b32 v15, a15
	v_accvgpr_read_b32 v14, a14
	v_accvgpr_read_b32 v13, a13
	v_accvgpr_read_b32 v12, a12
	v_accvgpr_read_b32 v11, a11
	v_accvgpr_read_b32 v10, a10
	v_accvgpr_read_b32 v9, a9
	v_accvgpr_read_b32 v8, a8
	v_accvgpr_read_b32 v55, a7
	v_accvgpr_read_b32 v54, a6
	v_accvgpr_read_b32 v53, a5
	v_accvgpr_read_b32 v52, a4
	v_accvgpr_read_b32 v51, a3
	v_accvgpr_read_b32 v50, a2
	v_accvgpr_read_b32 v49, a1
	v_accvgpr_read_b32 v48, a0
	v_accvgpr_read_b32 v47, a31
	v_accvgpr_read_b32 v46, a30
	v_accvgpr_read_b32 v45, a29
	v_accvgpr_read_b32 v44, a28
	v_accvgpr_read_b32 v43, a27
	v_accvgpr_read_b32 v42, a26
	v_accvgpr_read_b32 v41, a25
	v_accvgpr_read_b32 v40, a24
	v_accvgpr_read_b32 v39, a23
	v_accvgpr_read_b32 v38, a22
	v_accvgpr_read_b32 v37, a21
	v_accvgpr_read_b32 v36, a20
	v_accvgpr_read_b32 v35, a19
	v_accvgpr_read_b32 v34, a18
	v_accvgpr_read_b32 v33, a17
	v_accvgpr_read_b32 v32, a16
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e32 vcc, s15, v4
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_12
; %bb.11:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20 is_stmt 0                ; triton_kernels.py:0:20
	v_add_u32_e32 v0, s33, v77
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[0:1], 1, v[0:1]
	v_add_co_u32_e64 v0, s[0:1], v67, v0
	v_addc_co_u32_e64 v1, s[0:1], v68, v1, s[0:1]
	.loc	1 119 20                        ; triton_kernels.py:119:20
	global_load_dwordx4 v[0:3], v[0:1], off
.LBB0_12:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 118 25 is_stmt 1              ; triton_kernels.py:118:25
	v_add_u32_e32 v4, 32, v4
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e64 s[0:1], s15, v4
	v_mov_b32_e32 v112, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_and_saveexec_b64 s[6:7], s[0:1]
	s_cbranch_execz .LBB0_14
; %bb.13:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 119 48 is_stmt 0              ; triton_kernels.py:119:48
	v_add_u32_e32 v4, s33, v75
	v_ashrrev_i32_e32 v5, 31, v4
	.loc	1 119 76                        ; triton_kernels.py:119:76
	v_lshlrev_b64 v[4:5], 1, v[4:5]
	v_add_co_u32_e64 v4, s[2:3], v67, v4
	v_addc_co_u32_e64 v5, s[2:3], v68, v5, s[2:3]
	.loc	1 119 20                        ; triton_kernels.py:119:20
	global_load_dwordx4 v[4:7], v[4:5], off
.LBB0_14:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[6:7]
	.loc	1 118 25 is_stmt 1              ; triton_kernels.py:118:25
	v_add_u32_e32 v58, s79, v57
	v_add_u32_e32 v88, 3, v58
	v_add_u32_e32 v89, 8, v58
	v_add_u32_e32 v90, 9, v58
	v_add_u32_e32 v91, 10, v58
	v_add_u32_e32 v92, 11, v58
	v_add_u32_e32 v93, 16, v58
	v_add_u32_e32 v94, 17, v58
	v_add_u32_e32 v95, 18, v58
	v_add_u32_e32 v96, 19, v58
	v_add_u32_e32 v97, 24, v58
	v_add_u32_e32 v98, 25, v58
	v_add_u32_e32 v99, 26, v58
	v_add_u32_e32 v100, 27, v58
	v_add_u32_e32 v101, 32, v58
	v_add_u32_e32 v102, 33, v58
	v_add_u32_e32 v103, 34, v58
	v_add_u32_e32 v104, 35, v58
	v_add_u32_e32 v105, 40, v58
	v_add_u32_e32 v106, 41, v58
	v_add_u32_e32 v107, 42, v58
	v_add_u32_e32 v108, 43, v58
	v_add_u32_e32 v109, 48, v58
	v_add_u32_e32 v110, 49, v58
	v_add_u32_e32 v111, 50, v58
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_waitcnt vmcnt(0)
	ds_write2st64_b64 v64, v[0:1], v[4:5] offset1:8
	ds_write2st64_b64 v65, v[2:3], v[6:7] offset1:8
	v_add_u32_e32 v0, 0, v71
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e64 s[64:65], s15, v88
	v_cmp_gt_i32_e64 s[62:63], s15, v89
	v_cmp_gt_i32_e64 s[60:61], s15, v90
	v_cmp_gt_i32_e64 s[58:59], s15, v91
	v_cmp_gt_i32_e64 s[56:57], s15, v92
	v_cmp_gt_i32_e64 s[54:55], s15, v93
	v_cmp_gt_i32_e64 s[52:53], s15, v94
	v_cmp_gt_i32_e64 s[50:51], s15, v95
	v_cmp_gt_i32_e64 s[48:49], s15, v96
	v_cmp_gt_i32_e64 s[46:47], s15, v97
	v_cmp_gt_i32_e64 s[44:45], s15, v98
	v_cmp_gt_i32_e64 s[42:43], s15, v99
	v_cmp_gt_i32_e64 s[40:41], s15, v100
	v_cmp_gt_i32_e64 s[38:39], s15, v101
	v_cmp_gt_i32_e64 s[36:37], s15, v102
	v_cmp_gt_i32_e64 s[34:35], s15, v103
	v_cmp_gt_i32_e64 s[30:31], s15, v104
	v_cmp_gt_i32_e64 s[28:29], s15, v105
	v_cmp_gt_i32_e64 s[26:27], s15, v106
	v_cmp_gt_i32_e64 s[24:25], s15, v107
	v_cmp_gt_i32_e64 s[22:23], s15, v108
	v_cmp_gt_i32_e64 s[20:21], s15, v109
	v_cmp_gt_i32_e64 s[18:19], s15, v110
	v_cmp_gt_i32_e64 s[72:73], s15, v111
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read2st64_b64 v[0:3], v0 offset1:8
	ds_read2st64_b64 v[4:7], v78 offset1:8
	ds_read2st64_b64 v[88:91], v79 offset1:8
	ds_read2st64_b64 v[92:95], v80 offset1:8
	ds_read2st64_b64 v[96:99], v81 offset1:8
	ds_read2st64_b64 v[100:103], v82 offset1:8
	ds_read2st64_b64 v[104:107], v83 offset1:8
	ds_read2st64_b64 v[108:111], v84 offset1:8
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_waitcnt lgkmcnt(7)
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[16:17], 0
	.loc	1 118 25                        ; triton_kernels.py:118:25
	v_add_u32_e32 v59, 1, v58
	v_add_u32_e32 v87, 2, v58
	v_add_u32_e32 v113, 51, v58
	v_add_u32_e32 v114, 56, v58
	v_add_u32_e32 v115, 57, v58
	v_add_u32_e32 v116, 58, v58
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_add_u32_e32 v117, 59, v58
	v_cmp_gt_i32_e64 s[70:71], s15, v58
	v_cmp_gt_i32_e64 s[68:69], s15, v59
	v_cmp_gt_i32_e64 s[66:67], s15, v87
	v_cmp_gt_i32_e64 s[74:75], s15, v113
	v_cmp_gt_i32_e64 s[10:11], s15, v114
	v_cmp_gt_i32_e64 s[8:9], s15, v115
	v_cmp_gt_i32_e64 s[6:7], s15, v116
	v_cmp_gt_i32_e64 s[2:3], s15, v117
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_waitcnt lgkmcnt(6)
	v_mfma_f32_32x32x8f16 a[0:15], v[4:5], v[18:19], a[0:15]
	s_waitcnt lgkmcnt(5)
	v_mfma_f32_32x32x8f16 a[0:15], v[88:89], v[20:21], a[0:15]
	s_waitcnt lgkmcnt(4)
	v_mfma_f32_32x32x8f16 a[0:15], v[92:93], v[22:23], a[0:15]
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x8f16 a[0:15], v[96:97], v[24:25], a[0:15]
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x8f16 a[0:15], v[100:101], v[26:27], a[0:15]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8f16 a[0:15], v[104:105], v[28:29], a[0:15]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8f16 a[0:15], v[108:109], v[30:31], a[0:15]
	s_nop 15
	s_nop 2
	v_accvgpr_read_b32 v0, a0
	v_accvgpr_read_b32 v1, a1
	v_accvgpr_read_b32 v4, a2
	v_accvgpr_read_b32 v5, a3
	v_accvgpr_read_b32 v58, a4
	v_accvgpr_read_b32 v59, a5
	v_accvgpr_read_b32 v87, a6
	v_accvgpr_read_b32 v88, a7
	v_accvgpr_read_b32 v89, a8
	v_accvgpr_read_b32 v92, a9
	v_accvgpr_read_b32 v93, a10
	v_accvgpr_read_b32 v96, a11
	v_accvgpr_read_b32 v97, a12
	v_accvgpr_read_b32 v100, a13
	v_accvgpr_read_b32 v101, a14
	v_accvgpr_read_b32 v104, a15
	v_mfma_f32_32x32x8f16 a[0:15], v[2:3], v[16:17], 0
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v0, v66, v0
	v_mul_f32_e32 v1, v66, v1
	v_mul_f32_e32 v4, v66, v4
	v_mul_f32_e32 v5, v66, v5
	v_mul_f32_e32 v87, v66, v87
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v0, v85, v0, s[70:71]
	v_cndmask_b32_e64 v1, v85, v1, s[68:69]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v58, v66, v58
	v_mul_f32_e32 v59, v66, v59
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v4, v85, v4, s[66:67]
	v_cndmask_b32_e64 v5, v85, v5, s[64:65]
	v_cndmask_b32_e64 v109, v85, v87, s[58:59]
.Ltmp2:
	.file	2 "/work/main/.tools/venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max_f32_e32 v87, v0, v1
.Ltmp3:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v88, v66, v88
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v58, v85, v58, s[62:63]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8f16 a[0:15], v[6:7], v[18:19], a[0:15]
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v59, v85, v59, s[60:61]
.Ltmp4:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v4, v5
.Ltmp5:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v89, v66, v89
	v_mul_f32_e32 v92, v66, v92
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v88, v85, v88, s[56:57]
.Ltmp6:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v58, v59
.Ltmp7:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v93, v66, v93
	v_mul_f32_e32 v96, v66, v96
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v89, v85, v89, s[54:55]
	v_cndmask_b32_e64 v92, v85, v92, s[52:53]
.Ltmp8:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v109, v88
.Ltmp9:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v97, v66, v97
	v_mul_f32_e32 v100, v66, v100
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v93, v85, v93, s[50:51]
	v_cndmask_b32_e64 v96, v85, v96, s[48:49]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8f16 a[0:15], v[90:91], v[20:21], a[0:15]
.Ltmp10:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v89, v92
.Ltmp11:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v101, v66, v101
	v_mul_f32_e32 v104, v66, v104
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v97, v85, v97, s[46:47]
	v_cndmask_b32_e64 v100, v85, v100, s[44:45]
.Ltmp12:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v93, v96
.Ltmp13:
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v101, v85, v101, s[42:43]
	v_cndmask_b32_e64 v104, v85, v104, s[40:41]
.Ltmp14:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v97, v100
	v_max3_f32 v87, v87, v101, v104
.Ltmp15:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8f16 a[0:15], v[94:95], v[22:23], a[0:15]
	v_mfma_f32_32x32x8f16 a[0:15], v[98:99], v[24:25], a[0:15]
	v_mfma_f32_32x32x8f16 a[0:15], v[102:103], v[26:27], a[0:15]
	v_mfma_f32_32x32x8f16 a[0:15], v[106:107], v[28:29], a[0:15]
	v_mfma_f32_32x32x8f16 a[0:15], v[110:111], v[30:31], a[0:15]
	s_nop 15
	s_nop 2
	v_accvgpr_read_b32 v2, a0
	v_accvgpr_read_b32 v3, a1
	v_accvgpr_read_b32 v6, a2
	v_accvgpr_read_b32 v7, a3
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v2, v66, v2
	v_mul_f32_e32 v3, v66, v3
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v90, a4
	v_accvgpr_read_b32 v91, a5
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v6, v66, v6
	v_mul_f32_e32 v7, v66, v7
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v2, v85, v2, s[38:39]
	v_cndmask_b32_e64 v3, v85, v3, s[36:37]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v94, a6
	v_accvgpr_read_b32 v95, a7
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v90, v66, v90
	v_mul_f32_e32 v91, v66, v91
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v6, v85, v6, s[34:35]
	v_cndmask_b32_e64 v7, v85, v7, s[30:31]
.Ltmp16:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v2, v3
.Ltmp17:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v98, a8
	v_accvgpr_read_b32 v99, a9
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v94, v66, v94
	v_mul_f32_e32 v95, v66, v95
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v90, v85, v90, s[28:29]
	v_cndmask_b32_e64 v91, v85, v91, s[26:27]
.Ltmp18:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v6, v7
.Ltmp19:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v102, a10
	v_accvgpr_read_b32 v103, a11
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v98, v66, v98
	v_mul_f32_e32 v99, v66, v99
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v94, v85, v94, s[24:25]
	v_cndmask_b32_e64 v95, v85, v95, s[22:23]
.Ltmp20:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v90, v91
.Ltmp21:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v105, a12
	v_accvgpr_read_b32 v106, a13
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v102, v66, v102
	v_mul_f32_e32 v103, v66, v103
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v98, v85, v98, s[20:21]
	v_cndmask_b32_e64 v99, v85, v99, s[18:19]
.Ltmp22:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v94, v95
.Ltmp23:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v107, a14
	v_accvgpr_read_b32 v108, a15
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v105, v66, v105
	v_mul_f32_e32 v106, v66, v106
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v102, v85, v102, s[72:73]
	v_cndmask_b32_e64 v103, v85, v103, s[74:75]
.Ltmp24:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v98, v99
.Ltmp25:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v107, v66, v107
	v_mul_f32_e32 v108, v66, v108
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v105, v85, v105, s[10:11]
	v_cndmask_b32_e64 v106, v85, v106, s[8:9]
.Ltmp26:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v102, v103
.Ltmp27:
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v107, v85, v107, s[6:7]
	v_cndmask_b32_e64 v108, v85, v108, s[2:3]
.Ltmp28:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v87, v87, v105, v106
	v_max3_f32 v87, v87, v107, v108
.Ltmp29:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:123:42 ]
	ds_bpermute_b32 v110, v72, v87
.Ltmp30:
	.loc	1 123 31                        ; triton_kernels.py:123:31
	s_waitcnt lgkmcnt(0)
	v_max3_f32 v87, v56, v87, v110
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v0, v0, v87
	v_sub_f32_e32 v1, v1, v87
	v_sub_f32_e32 v4, v4, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v0, v0
	v_exp_f32_e32 v1, v1
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v5, v5, v87
	v_sub_f32_e32 v113, v2, v87
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v2, v4
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v58, v58, v87
	v_sub_f32_e32 v114, v3, v87
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v3, v5
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v59, v59, v87
	v_sub_f32_e32 v88, v88, v87
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v4, v58
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v109, v109, v87
	v_sub_f32_e32 v116, v7, v87
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v5, v59
	v_exp_f32_e32 v7, v88
.Ltmp31:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v0, v1
.Ltmp32:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v115, v6, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v6, v109
.Ltmp33:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v2, v88
.Ltmp34:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v89, v89, v87
.Ltmp35:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v3, v88
.Ltmp36:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v92, v92, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v58, v89
.Ltmp37:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v4, v88
.Ltmp38:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v93, v93, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v59, v92
.Ltmp39:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v5, v88
.Ltmp40:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v96, v96, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v109, v93
.Ltmp41:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v6, v88
.Ltmp42:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v97, v97, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v110, v96
.Ltmp43:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v7, v88
.Ltmp44:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v100, v100, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v111, v97
.Ltmp45:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v58, v88
.Ltmp46:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v101, v101, v87
	v_sub_f32_e32 v123, v108, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v108, v100
.Ltmp47:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v59, v88
.Ltmp48:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v104, v104, v87
	v_sub_f32_e32 v121, v106, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v106, v101
.Ltmp49:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v109, v88
.Ltmp50:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v122, v107, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v107, v104
.Ltmp51:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v110, v88
.Ltmp52:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v120, v105, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v105, v113
.Ltmp53:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v111, v88
.Ltmp54:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v119, v103, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v103, v114
.Ltmp55:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v108, v88
.Ltmp56:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v104, v115
.Ltmp57:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v106, v88
.Ltmp58:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v90, v90, v87
	v_sub_f32_e32 v118, v102, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v102, v116
.Ltmp59:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v107, v88
.Ltmp60:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v91, v91, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v100, v90
.Ltmp61:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v105, v88
.Ltmp62:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v94, v94, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v101, v91
.Ltmp63:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v103, v88
.Ltmp64:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v95, v95, v87
	v_sub_f32_e32 v117, v99, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v99, v94
.Ltmp65:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v104, v88
.Ltmp66:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v98, v98, v87
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v97, v95
.Ltmp67:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v102, v88
.Ltmp68:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v98, v98
.Ltmp69:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v100, v88
.Ltmp70:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v96, v117
.Ltmp71:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v101, v88
.Ltmp72:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v94, v118
.Ltmp73:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v99, v88
.Ltmp74:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v95, v119
.Ltmp75:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v97, v88
.Ltmp76:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v93, v120
.Ltmp77:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v98, v88
.Ltmp78:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v91, v121
.Ltmp79:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v96, v88
.Ltmp80:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v92, v122
.Ltmp81:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v94, v88
.Ltmp82:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v90, v123
.Ltmp83:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v88, v95, v88
	v_add_f32_e32 v88, v93, v88
	v_add_f32_e32 v88, v91, v88
	v_add_f32_e32 v88, v92, v88
	v_add_f32_e32 v88, v90, v88
.Ltmp84:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:126:38 ]
	ds_bpermute_b32 v89, v72, v88
	v_mov_b32_e32 v113, 0
	v_mov_b32_e32 v114, 0
	v_mov_b32_e32 v115, 0
.Ltmp85:
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_16
; %bb.15:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20 is_stmt 0                ; triton_kernels.py:0:20
	v_add_u32_e32 v112, s78, v76
	v_ashrrev_i32_e32 v113, 31, v112
	v_lshlrev_b64 v[112:113], 1, v[112:113]
	v_add_co_u32_e32 v112, vcc, v69, v112
	v_addc_co_u32_e32 v113, vcc, v70, v113, vcc
	.loc	1 128 20                        ; triton_kernels.py:128:20
	global_load_dwordx4 v[112:115], v[112:113], off
.LBB0_16:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	v_mov_b32_e32 v116, 0
	v_mov_b32_e32 v117, 0
	v_mov_b32_e32 v118, 0
	v_mov_b32_e32 v119, 0
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB0_18
; %bb.17:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 128 48                        ; triton_kernels.py:128:48
	v_add_u32_e32 v116, s78, v74
	v_ashrrev_i32_e32 v117, 31, v116
	.loc	1 128 76                        ; triton_kernels.py:128:76
	v_lshlrev_b64 v[116:117], 1, v[116:117]
	v_add_co_u32_e32 v116, vcc, v69, v116
	v_addc_co_u32_e32 v117, vcc, v70, v117, vcc
	.loc	1 128 20                        ; triton_kernels.py:128:20
	global_load_dwordx4 v[116:119], v[116:117], off
.LBB0_18:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 125 35 is_stmt 1              ; triton_kernels.py:125:35
	v_sub_f32_e32 v56, v56, v87
	.loc	1 125 29 is_stmt 0              ; triton_kernels.py:125:29
	v_exp_f32_e32 v56, v56
	.loc	1 130 26 is_stmt 1              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v0
	v_cvt_f16_f32_e32 v1, v1
	v_cvt_f16_f32_e32 v120, v4
	.loc	1 128 20                        ; triton_kernels.py:128:20
	v_add_u32_e32 v4, 0, v63
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v2
	v_cvt_f16_f32_e32 v3, v3
	v_cvt_f16_f32_e32 v121, v5
	v_cvt_f16_f32_e32 v122, v6
	v_cvt_f16_f32_e32 v123, v7
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_waitcnt vmcnt(0)
	ds_write_b128 v4, v[112:115]
	ds_write_b128 v4, v[116:119] offset:4096
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_u16 v4, v73
	ds_read_u16 v5, v73 offset:128
	ds_read_u16 v6, v73 offset:256
	ds_read_u16 v7, v73 offset:384
	ds_read_u16 v112, v73 offset:448
	ds_read_u16 v113, v73 offset:320
	ds_read_u16 v114, v73 offset:192
	ds_read_u16 v115, v73 offset:64
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v126, v110
	v_cvt_f16_f32_e32 v127, v111
	.loc	1 130 42 is_stmt 0              ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v111, v7, v6, s77
	v_perm_b32 v110, v5, v4, s77
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v124, v58
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v58, v0, v1
	v_pk_mul_f32 v[0:1], v[48:49], v[56:57] op_sel_hi:[1,0]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v125, v59
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v59, v2, v3
	v_pk_mul_f32 v[14:15], v[14:15], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[12:13], v[12:13], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[10:11], v[10:11], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[8:9], v[8:9], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[6:7], v[54:55], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[4:5], v[52:53], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[2:3], v[50:51], v[56:57] op_sel_hi:[1,0]
	v_accvgpr_write_b32 a0, v0
	v_accvgpr_write_b32 a1, v1
	v_accvgpr_write_b32 a2, v2
	v_accvgpr_write_b32 a3, v3
	v_accvgpr_write_b32 a4, v4
	v_accvgpr_write_b32 a5, v5
	v_accvgpr_write_b32 a6, v6
	v_accvgpr_write_b32 a7, v7
	v_accvgpr_write_b32 a8, v8
	v_accvgpr_write_b32 a9, v9
	v_accvgpr_write_b32 a10, v10
	v_accvgpr_write_b32 a11, v11
	v_accvgpr_write_b32 a12, v12
	v_accvgpr_write_b32 a13, v13
	v_accvgpr_write_b32 a14, v14
	v_accvgpr_write_b32 a15, v15
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v108
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v49, v122, v123
	v_mfma_f32_32x32x8f16 a[0:15], v[110:111], v[58:59], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:1024
	ds_read_u16 v3, v73 offset:1152
	ds_read_u16 v1, v73 offset:1280
	ds_read_u16 v4, v73 offset:1408
	ds_read_u16 v108, v73 offset:1472
	ds_read_u16 v110, v73 offset:1344
	ds_read_u16 v111, v73 offset:1216
	ds_read_u16 v116, v73 offset:1088
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v4, v1, s77
	v_perm_b32 v0, v3, v0, s77
	v_pack_b32_f16 v48, v120, v121
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v3, v106
	v_cvt_f16_f32_e32 v4, v107
	v_cvt_f16_f32_e32 v5, v105
	v_cvt_f16_f32_e32 v109, v109
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v50, v124, v125
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v8, v102
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v53, v3, v4
	v_pack_b32_f16 v51, v109, v126
	v_pack_b32_f16 v52, v127, v2
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v99
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pk_mul_f32 v[14:15], v[46:47], v[56:57] op_sel_hi:[1,0]
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[48:49], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:2048
	ds_read_u16 v6, v73 offset:2176
	ds_read_u16 v1, v73 offset:2304
	ds_read_u16 v7, v73 offset:2432
	ds_read_u16 v105, v73 offset:2496
	ds_read_u16 v106, v73 offset:2368
	ds_read_u16 v107, v73 offset:2240
	ds_read_u16 v117, v73 offset:2112
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v7, v1, s77
	v_perm_b32 v0, v6, v0, s77
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v6, v103
	v_cvt_f16_f32_e32 v7, v104
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pk_mul_f32 v[12:13], v[44:45], v[56:57] op_sel_hi:[1,0]
	.loc	1 117 37 is_stmt 1              ; triton_kernels.py:117:37
	s_add_i32 s79, s79, 64
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v54, v5, v6
	v_pack_b32_f16 v55, v7, v8
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v5, v96
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_perm_b32 v96, v114, v115, s77
	.loc	1 117 37 is_stmt 1              ; triton_kernels.py:117:37
	s_add_i32 s78, s78, s14
	s_add_i32 s33, s33, s76
	s_cmp_lt_i32 s79, s15
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[50:51], a[0:15]
	.loc	1 128 20                        ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:3072
	ds_read_u16 v9, v73 offset:3200
	ds_read_u16 v1, v73 offset:3328
	ds_read_u16 v10, v73 offset:3456
	ds_read_u16 v102, v73 offset:3520
	ds_read_u16 v103, v73 offset:3392
	ds_read_u16 v104, v73 offset:3264
	ds_read_u16 v109, v73 offset:3136
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v10, v1, s77
	v_perm_b32 v0, v9, v0, s77
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v9, v100
	v_cvt_f16_f32_e32 v10, v101
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[52:53], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:4096
	ds_read_u16 v3, v73 offset:4224
	ds_read_u16 v1, v73 offset:4352
	ds_read_u16 v4, v73 offset:4480
	ds_read_u16 v99, v73 offset:4544
	ds_read_u16 v100, v73 offset:4416
	ds_read_u16 v101, v73 offset:4288
	ds_read_u16 v118, v73 offset:4160
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v4, v1, s77
	v_perm_b32 v0, v3, v0, s77
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v4, v98
	v_cvt_f16_f32_e32 v3, v97
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_perm_b32 v97, v112, v113, s77
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[54:55], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:5120
	ds_read_u16 v6, v73 offset:5248
	ds_read_u16 v1, v73 offset:5376
	ds_read_u16 v7, v73 offset:5504
	ds_read_u16 v98, v73 offset:5568
	ds_read_u16 v119, v73 offset:5440
	ds_read_u16 v120, v73 offset:5312
	ds_read_u16 v121, v73 offset:5184
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v7, v1, s77
	v_perm_b32 v0, v6, v0, s77
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v6, v94
	v_cvt_f16_f32_e32 v7, v95
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v95, v2, v3
	v_pack_b32_f16 v94, v9, v10
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v93
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v93, v6, v7
	v_pk_mul_f32 v[10:11], v[42:43], v[56:57] op_sel_hi:[1,0]
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[94:95], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:6144
	ds_read_u16 v3, v73 offset:6272
	ds_read_u16 v1, v73 offset:6400
	ds_read_u16 v8, v73 offset:6528
	ds_read_u16 v122, v73 offset:6592
	ds_read_u16 v123, v73 offset:6464
	ds_read_u16 v124, v73 offset:6336
	ds_read_u16 v125, v73 offset:6208
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v8, v1, s77
	v_perm_b32 v0, v3, v0, s77
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v8, v92
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v92, v4, v5
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v3, v91
	v_cvt_f16_f32_e32 v4, v90
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v90, v2, v3
	v_pack_b32_f16 v91, v8, v4
	v_pk_mul_f32 v[8:9], v[40:41], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[2:3], v[34:35], v[56:57] op_sel_hi:[1,0]
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[92:93], a[0:15]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read_u16 v0, v73 offset:7168
	ds_read_u16 v5, v73 offset:7296
	ds_read_u16 v1, v73 offset:7424
	ds_read_u16 v6, v73 offset:7552
	ds_read_u16 v126, v73 offset:7616
	ds_read_u16 v127, v73 offset:7488
	ds_read_u16 v128, v73 offset:7360
	ds_read_u16 v129, v73 offset:7232
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(4)
	v_perm_b32 v1, v6, v1, s77
	v_perm_b32 v0, v5, v0, s77
	v_pk_mul_f32 v[6:7], v[38:39], v[56:57] op_sel_hi:[1,0]
	v_pk_mul_f32 v[4:5], v[36:37], v[56:57] op_sel_hi:[1,0]
	v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[90:91], a[0:15]
	v_pk_mul_f32 v[0:1], v[32:33], v[56:57] op_sel_hi:[1,0]
	v_accvgpr_write_b32 a31, v15
	v_accvgpr_write_b32 a30, v14
	v_accvgpr_write_b32 a29, v13
	v_accvgpr_write_b32 a28, v12
	v_accvgpr_write_b32 a27, v11
	v_accvgpr_write_b32 a26, v10
	v_accvgpr_write_b32 a25, v9
	v_accvgpr_write_b32 a24, v8
	v_accvgpr_write_b32 a23, v7
	v_accvgpr_write_b32 a22, v6
	v_accvgpr_write_b32 a21, v5
	v_accvgpr_write_b32 a20, v4
	v_accvgpr_write_b32 a19, v3
	v_accvgpr_write_b32 a18, v2
	v_accvgpr_write_b32 a17, v1
	v_accvgpr_write_b32 a16, v0
	v_perm_b32 v1, v108, v110, s77
	v_perm_b32 v0, v111, v116, s77
	v_mfma_f32_32x32x8f16 a[16:31], v[96:97], v[58:59], a[16:31]
	s_waitcnt lgkmcnt(2)
	v_perm_b32 v3, v126, v127, s77
	s_waitcnt lgkmcnt(0)
	v_perm_b32 v2, v128, v129, s77
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[48:49], a[16:31]
	v_perm_b32 v1, v105, v106, s77
	v_perm_b32 v0, v107, v117, s77
	s_nop 1
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[50:51], a[16:31]
	v_perm_b32 v1, v102, v103, s77
	v_perm_b32 v0, v104, v109, s77
	s_nop 1
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[52:53], a[16:31]
	v_perm_b32 v1, v99, v100, s77
	v_perm_b32 v0, v101, v118, s77
	s_nop 1
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[54:55], a[16:31]
	v_perm_b32 v1, v98, v119, s77
	v_perm_b32 v0, v120, v121, s77
	s_nop 1
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[94:95], a[16:31]
	v_perm_b32 v1, v122, v123, s77
	v_perm_b32 v0, v124, v125, s77
	s_nop 1
	v_mfma_f32_32x32x8f16 a[16:31], v[0:1], v[92:93], a[16:31]
.Ltmp86:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v0, v88, v89
.Ltmp87:
	.loc	1 126 28                        ; triton_kernels.py:126:28
	v_fmac_f32_e32 v0, v86, v56
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_mfma_f32_32x32x8f16 a[16:31], v[2:3], v[90:91], a[16:31]
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cbranch_scc0 .LBB0_21
; %bb.19:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 37 is_stmt 0                ; triton_kernels.py:0:37
	v_mov_b32_e32 v86, v0
	v_mov_b32_e32 v56, v87
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_branch .LBB0_10
.LBB0_20:
	.loc	1 0 37                          ; triton_kernels.py:0:37
	v_mov_b32_e32 v0, 1.0
	v_accvgpr_write_b32 a0, 0
	v_accvgpr_write_b32 a1, 0
	v_accvgpr_write_b32 a2, 0
	v_accvgpr_write_b32 a3, 0
	v_accvgpr_write_b32 a4, 0
	v_accvgpr_write_b32 a5, 0
	v_accvgpr_write_b32 a6, 0
	v_accvgpr_write_b32 a7, 0
	v_accvgpr_write_b32 a8, 0
	v_accvgpr_write_b32 a9, 0
	v_accvgpr_write_b32 a10, 0
	v_accvgpr_write_b32 a11, 0
	v_accvgpr_write_b32 a12, 0
	v_accvgpr_write_b32 a13, 0
	v_accvgpr_write_b32 a14, 0
	v_accvgpr_write_b32 a15, 0
	v_accvgpr_write_b32 a16, 0
	v_accvgpr_write_b32 a17, 0
	v_accvgpr_write_b32 a18, 0
	v_accvgpr_write_b32 a19, 0
	v_accvgpr_write_b32 a20, 0
	v_accvgpr_write_b32 a21, 0
	v_accvgpr_write_b32 a22, 0
	v_accvgpr_write_b32 a23, 0
	v_accvgpr_write_b32 a24, 0
	v_accvgpr_write_b32 a25, 0
	v_accvgpr_write_b32 a26, 0
	v_accvgpr_write_b32 a27, 0
	v_accvgpr_write_b32 a28, 0
	v_accvgpr_write_b32 a29, 0
	v_accvgpr_write_b32 a30, 0
	v_accvgpr_write_b32 a31, 0
.LBB0_21:                               ; %Flow
	s_load_dwordx2 s[0:1], s[4:5], 0x40
	.loc	1 108 41 is_stmt 1              ; triton_kernels.py:108:41
	v_lshrrev_b32_e32 v18, 1, v61
	.loc	1 108 28 is_stmt 0              ; triton_kernels.py:108:28
	v_or3_b32 v18, v60, v18, s16
	v_accvgpr_read_b32 v13, a0
	v_accvgpr_read_b32 v7, a1
	v_accvgpr_read_b32 v11, a2
	v_accvgpr_read_b32 v9, a3
	v_accvgpr_read_b32 v1, a4
	v_accvgpr_read_b32 v2, a5
	v_accvgpr_read_b32 v4, a6
	v_accvgpr_read_b32 v6, a7
	v_accvgpr_read_b32 v16, a8
	v_accvgpr_read_b32 v17, a9
	v_accvgpr_read_b32 v19, a10
	v_accvgpr_read_b32 v20, a11
	v_accvgpr_read_b32 v21, a12
	v_accvgpr_read_b32 v22, a13
	v_accvgpr_read_b32 v23, a14
	v_accvgpr_read_b32 v24, a15
	v_accvgpr_read_b32 v25, a16
	v_accvgpr_read_b32 v26, a17
	v_accvgpr_read_b32 v27, a18
	v_accvgpr_read_b32 v28, a19
	v_accvgpr_read_b32 v29, a20
	v_accvgpr_read_b32 v30, a21
	v_accvgpr_read_b32 v31, a22
	v_accvgpr_read_b32 v32, a23
	v_accvgpr_read_b32 v33, a24
	v_accvgpr_read_b32 v15, a25
	v_accvgpr_read_b32 v14, a26
	v_accvgpr_read_b32 v12, a27
	v_accvgpr_read_b32 v10, a28
	v_accvgpr_read_b32 v8, a29
	v_accvgpr_read_b32 v5, a30
	v_accvgpr_read_b32 v3, a31
	.loc	1 112 39 is_stmt 1              ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s15, v18
	.loc	1 134 13                        ; triton_kernels.py:134:13
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_23
; %bb.22:                               ; %.critedge
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_div_scale_f32 v34, s[2:3], v0, v0, v3
	v_rcp_f32_e32 v35, v34
	v_div_scale_f32 v36, vcc, v3, v0, v3
	v_fma_f32 v37, -v34, v35, 1.0
	v_fmac_f32_e32 v35, v37, v35
	v_mul_f32_e32 v37, v36, v35
	v_fma_f32 v38, -v34, v37, v36
	v_fmac_f32_e32 v37, v38, v35
	v_fma_f32 v34, -v34, v37, v36
	v_div_scale_f32 v36, s[2:3], v0, v0, v5
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v35, v37
	v_div_fixup_f32 v3, v34, v0, v3
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v3, v3
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v5, v0, v5
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v8
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v5, v34, v0, v5
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v5, v5
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v8, v0, v8
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v10
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v8, v34, v0, v8
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v8, v8
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v10, v0, v10
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v12
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v10, v34, v0, v10
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v10, v10
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v12, v0, v12
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v14
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v12, v34, v0, v12
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v12, v12
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v14, v0, v14
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v15
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v14, v34, v0, v14
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v14, v14
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v15, v0, v15
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v33
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v15, v34, v0, v15
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v15, v15
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v33, v0, v33
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v32
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v33, v34, v0, v33
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v33, v33
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v32, v0, v32
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v31
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v32, v34, v0, v32
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v32, v32
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v31, v0, v31
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v30
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v31, v34, v0, v31
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v31, v31
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v30, v0, v30
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v29
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v30, v34, v0, v30
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v30, v30
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v29, v0, v29
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v28
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v29, v34, v0, v29
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v29, v29
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v28, v0, v28
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v27
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v28, v34, v0, v28
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v28, v28
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v27, v0, v27
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v26
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v27, v34, v0, v27
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v27, v27
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v26, v0, v26
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v25
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v26, v34, v0, v26
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v26, v26
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v25, v0, v25
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v24
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v25, v34, v0, v25
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v25, v25
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v24, v0, v24
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v23
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v24, v34, v0, v24
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v24, v24
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v23, v0, v23
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v22
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v23, v34, v0, v23
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v23, v23
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v22, v0, v22
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v21
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v22, v34, v0, v22
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v22, v22
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v21, v0, v21
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v20
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v21, v34, v0, v21
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v21, v21
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v20, v0, v20
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v19
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v20, v34, v0, v20
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v20, v20
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v34, v38
	v_div_scale_f32 v34, vcc, v19, v0, v19
	v_mul_f32_e32 v35, v34, v38
	v_fma_f32 v37, -v36, v35, v34
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v17
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v34, v34, v38, v35
	v_div_fixup_f32 v19, v34, v0, v19
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v19, v19
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v34, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v34, v37
	v_div_scale_f32 v34, vcc, v17, v0, v17
	v_mul_f32_e32 v35, v34, v37
	v_fma_f32 v38, -v36, v35, v34
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v34, -v36, v35, v34
	v_div_scale_f32 v36, s[2:3], v0, v0, v16
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v34, v34, v37, v35
	v_div_fixup_f32 v17, v34, v0, v17
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v34, v17
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v17, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v17, v38
	v_div_scale_f32 v17, vcc, v16, v0, v16
	v_mul_f32_e32 v35, v17, v38
	v_fma_f32 v37, -v36, v35, v17
	v_fmac_f32_e32 v35, v37, v38
	v_fma_f32 v17, -v36, v35, v17
	v_div_fmas_f32 v17, v17, v38, v35
	v_div_fixup_f32 v16, v17, v0, v16
	.loc	1 133 29                        ; triton_kernels.py:133:29
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s2, s0, s17
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v35, v16
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_ashr_i32 s3, s2, 31
	.loc	1 133 59 is_stmt 0              ; triton_kernels.py:133:59
	v_mul_lo_u32 v16, s1, v18
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_lshl_b64 s[2:3], s[2:3], 1
	.loc	1 133 41                        ; triton_kernels.py:133:41
	v_ashrrev_i32_e32 v17, 31, v16
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_add_u32 s0, s12, s2
	.loc	1 133 41                        ; triton_kernels.py:133:41
	v_lshlrev_b64 v[16:17], 1, v[16:17]
	v_add_co_u32_e32 v16, vcc, s0, v16
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_div_scale_f32 v36, s[0:1], v0, v0, v13
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_addc_u32 s2, s13, s3
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_rcp_f32_e32 v37, v36
	.loc	1 133 41                        ; triton_kernels.py:133:41
	v_mov_b32_e32 v18, s2
	v_addc_co_u32_e32 v17, vcc, v18, v17, vcc
	.loc	1 133 71 is_stmt 0              ; triton_kernels.py:133:71
	v_lshlrev_b32_e32 v18, 1, v57
	v_add_co_u32_e32 v16, vcc, v16, v18
	v_addc_co_u32_e32 v17, vcc, 0, v17, vcc
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_fma_f32 v18, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v18, v37
	v_div_scale_f32 v18, vcc, v13, v0, v13
	v_mul_f32_e32 v38, v18, v37
	v_fma_f32 v39, -v36, v38, v18
	v_fmac_f32_e32 v38, v39, v37
	v_fma_f32 v18, -v36, v38, v18
	v_div_scale_f32 v36, s[0:1], v0, v0, v7
	v_rcp_f32_e32 v39, v36
	v_div_fmas_f32 v18, v18, v37, v38
	v_div_fixup_f32 v13, v18, v0, v13
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v13, v13
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v18, -v36, v39, 1.0
	v_fmac_f32_e32 v39, v18, v39
	v_div_scale_f32 v18, vcc, v7, v0, v7
	v_mul_f32_e32 v37, v18, v39
	v_fma_f32 v38, -v36, v37, v18
	v_fmac_f32_e32 v37, v38, v39
	v_div_scale_f32 v38, s[0:1], v0, v0, v11
	v_rcp_f32_e32 v40, v38
	v_fma_f32 v18, -v36, v37, v18
	v_div_fmas_f32 v18, v18, v39, v37
	v_div_fixup_f32 v7, v18, v0, v7
	v_fma_f32 v36, -v38, v40, 1.0
	v_fmac_f32_e32 v40, v36, v40
	v_div_scale_f32 v36, vcc, v11, v0, v11
	v_mul_f32_e32 v37, v36, v40
	v_fma_f32 v39, -v38, v37, v36
	v_fmac_f32_e32 v37, v39, v40
	v_fma_f32 v36, -v38, v37, v36
	v_div_scale_f32 v38, s[0:1], v0, v0, v9
	v_rcp_f32_e32 v39, v38
	v_div_fmas_f32 v36, v36, v40, v37
	v_div_fixup_f32 v11, v36, v0, v11
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v11, v11
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v36, -v38, v39, 1.0
	v_fmac_f32_e32 v39, v36, v39
	v_div_scale_f32 v36, vcc, v9, v0, v9
	v_mul_f32_e32 v37, v36, v39
	v_fma_f32 v40, -v38, v37, v36
	v_fmac_f32_e32 v37, v40, v39
	v_fma_f32 v36, -v38, v37, v36
	v_div_fmas_f32 v36, v36, v39, v37
	v_div_fixup_f32 v9, v36, v0, v9
	v_div_scale_f32 v36, s[0:1], v0, v0, v6
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v9, v9
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_rcp_f32_e32 v37, v36
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v18, v7
	.loc	1 134 13 is_stmt 0              ; triton_kernels.py:134:13
	v_pack_b32_f16 v7, v11, v9
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_fma_f32 v9, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v9, v37
	v_div_scale_f32 v9, vcc, v6, v0, v6
	v_mul_f32_e32 v11, v9, v37
	v_fma_f32 v38, -v36, v11, v9
	v_fmac_f32_e32 v11, v38, v37
	v_fma_f32 v9, -v36, v11, v9
	v_div_scale_f32 v36, s[0:1], v0, v0, v4
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v9, v9, v37, v11
	v_div_fixup_f32 v6, v9, v0, v6
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v9, v6
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v6, v38
	v_div_scale_f32 v6, vcc, v4, v0, v4
	v_mul_f32_e32 v11, v6, v38
	v_fma_f32 v37, -v36, v11, v6
	v_fmac_f32_e32 v11, v37, v38
	v_fma_f32 v6, -v36, v11, v6
	v_div_scale_f32 v36, s[0:1], v0, v0, v2
	v_rcp_f32_e32 v37, v36
	v_div_fmas_f32 v6, v6, v38, v11
	v_div_fixup_f32 v4, v6, v0, v4
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v4, v4
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v6, v37
	v_div_scale_f32 v6, vcc, v2, v0, v2
	v_mul_f32_e32 v11, v6, v37
	v_fma_f32 v38, -v36, v11, v6
	v_fmac_f32_e32 v11, v38, v37
	v_fma_f32 v6, -v36, v11, v6
	v_div_scale_f32 v36, s[0:1], v0, v0, v1
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v6, v6, v37, v11
	v_div_fixup_f32 v2, v6, v0, v2
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v2, v2
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v6, v38
	v_div_scale_f32 v6, vcc, v1, v0, v1
	v_mul_f32_e32 v11, v6, v38
	v_fma_f32 v37, -v36, v11, v6
	v_fmac_f32_e32 v11, v37, v38
	v_fma_f32 v6, -v36, v11, v6
	v_div_fmas_f32 v6, v6, v38, v11
	v_div_fixup_f32 v0, v6, v0, v1
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v0, v0
	.loc	1 134 13 is_stmt 0              ; triton_kernels.py:134:13
	v_pack_b32_f16 v1, v4, v9
	v_pack_b32_f16 v6, v13, v18
	global_store_dwordx2 v[16:17], v[6:7], off
	v_pack_b32_f16 v0, v0, v2
	global_store_dwordx2 v[16:17], v[0:1], off offset:16
	v_pack_b32_f16 v1, v19, v20
	v_pack_b32_f16 v0, v35, v34
	global_store_dwordx2 v[16:17], v[0:1], off offset:32
	v_pack_b32_f16 v1, v23, v24
	v_pack_b32_f16 v0, v21, v22
	global_store_dwordx2 v[16:17], v[0:1], off offset:48
	v_pack_b32_f16 v1, v27, v28
	v_pack_b32_f16 v0, v25, v26
	global_store_dwordx2 v[16:17], v[0:1], off offset:64
	v_pack_b32_f16 v1, v31, v32
	v_pack_b32_f16 v0, v29, v30
	global_store_dwordx2 v[16:17], v[0:1], off offset:80
	v_pack_b32_f16 v1, v14, v12
	v_pack_b32_f16 v0, v33, v15
	global_store_dwordx2 v[16:17], v[0:1], off offset:96
	v_pack_b32_f16 v1, v5, v3
	v_pack_b32_f16 v0, v10, v8
	global_store_dwordx2 v[16:17], v[0:1], off offset:112
.LBB0_23:                               ; %.critedge12
	.loc	1 133 4 is_stmt 1               ; triton_kernels.py:133:4
	s_endpgm
.Ltmp88:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel flash_attn_fwd
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 88
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
		.amdhsa_next_free_vgpr 164
		.amdhsa_next_free_sgpr 80
		.amdhsa_accum_offset 132
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
	.size	flash_attn_fwd, .Lfunc_end0-flash_attn_fwd
	.cfi_endproc
                                        ; -- End function
	.set flash_attn_fwd.num_vgpr, 130
	.set flash_attn_fwd.num_agpr, 32
	.set flash_attn_fwd.numbered_sgpr, 80
	.set flash_attn_fwd.num_named_barrier, 0
	.set flash_attn_fwd.private_seg_size, 0
	.set flash_attn_fwd.uses_vcc, 1
	.set flash_attn_fwd.uses_flat_scratch, 0
	.set flash_attn_fwd.has_dyn_sized_stack, 0
	.set flash_attn_fwd.has_recursion, 0
	.set flash_attn_fwd.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 8748
; TotalNumSgprs: 84
; NumVgprs: 130
; NumAgprs: 32
; TotalNumVgprs: 164
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 10
; VGPRBlocks: 20
; NumSGPRsForWavesPerEU: 84
; NumVGPRsForWavesPerEU: 164
; AccumOffset: 132
; Occupancy: 3
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 32
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
	.byte	1                               ; DW_CHILDREN_yes
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
	.byte	2                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	0                               ; DW_CHILDREN_no
	.byte	3                               ; DW_AT_name
	.byte	14                              ; DW_FORM_strp
	.byte	32                              ; DW_AT_inline
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	3                               ; Abbreviation Code
	.byte	46                              ; DW_TAG_subprogram
	.byte	1                               ; DW_CHILDREN_yes
	.byte	17                              ; DW_AT_low_pc
	.byte	1                               ; DW_FORM_addr
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	4                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	1                               ; DW_CHILDREN_yes
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	5                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	11                              ; DW_FORM_data1
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	6                               ; Abbreviation Code
	.byte	29                              ; DW_TAG_inlined_subroutine
	.byte	0                               ; DW_CHILDREN_no
	.byte	49                              ; DW_AT_abstract_origin
	.byte	19                              ; DW_FORM_ref4
	.byte	85                              ; DW_AT_ranges
	.byte	23                              ; DW_FORM_sec_offset
	.byte	88                              ; DW_AT_call_file
	.byte	11                              ; DW_FORM_data1
	.byte	89                              ; DW_AT_call_line
	.byte	5                               ; DW_FORM_data2
	.byte	87                              ; DW_AT_call_column
	.byte	11                              ; DW_FORM_data1
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
	.byte	1                               ; Abbrev [1] 0xb:0x6b DW_TAG_compile_unit
	.long	.Linfo_string0                  ; DW_AT_producer
	.short	2                               ; DW_AT_language
	.long	.Linfo_string1                  ; DW_AT_name
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.long	.Linfo_string2                  ; DW_AT_comp_dir
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.byte	2                               ; Abbrev [2] 0x2a:0x6 DW_TAG_subprogram
	.long	.Linfo_string3                  ; DW_AT_name
	.byte	1                               ; DW_AT_inline
	.byte	3                               ; Abbrev [3] 0x30:0x45 DW_TAG_subprogram
	.quad	.Lfunc_begin0                   ; DW_AT_low_pc
	.long	.Lfunc_end0-.Lfunc_begin0       ; DW_AT_high_pc
	.long	42                              ; DW_AT_abstract_origin
	.byte	4                               ; Abbrev [4] 0x41:0x19 DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges0                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	123                             ; DW_AT_call_line
	.byte	42                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x4d:0xc DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges1                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.byte	191                             ; DW_AT_call_line
	.byte	40                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	4                               ; Abbrev [4] 0x5a:0x1a DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges2                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	126                             ; DW_AT_call_line
	.byte	38                              ; DW_AT_call_column
	.byte	6                               ; Abbrev [6] 0x66:0xd DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges3                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.short	293                             ; DW_AT_call_line
	.byte	36                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
.Ldebug_info_end0:
	.section	.debug_ranges,"",@progbits
.Ldebug_ranges0:
	.quad	.Ltmp2-.Lfunc_begin0
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp7-.Lfunc_begin0
	.quad	.Ltmp8-.Lfunc_begin0
	.quad	.Ltmp9-.Lfunc_begin0
	.quad	.Ltmp10-.Lfunc_begin0
	.quad	.Ltmp11-.Lfunc_begin0
	.quad	.Ltmp12-.Lfunc_begin0
	.quad	.Ltmp13-.Lfunc_begin0
	.quad	.Ltmp14-.Lfunc_begin0
	.quad	.Ltmp15-.Lfunc_begin0
	.quad	.Ltmp16-.Lfunc_begin0
	.quad	.Ltmp17-.Lfunc_begin0
	.quad	.Ltmp18-.Lfunc_begin0
	.quad	.Ltmp19-.Lfunc_begin0
	.quad	.Ltmp20-.Lfunc_begin0
	.quad	.Ltmp21-.Lfunc_begin0
	.quad	.Ltmp22-.Lfunc_begin0
	.quad	.Ltmp23-.Lfunc_begin0
	.quad	.Ltmp24-.Lfunc_begin0
	.quad	.Ltmp25-.Lfunc_begin0
	.quad	.Ltmp26-.Lfunc_begin0
	.quad	.Ltmp27-.Lfunc_begin0
	.quad	.Ltmp28-.Lfunc_begin0
	.quad	.Ltmp30-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges1:
	.quad	.Ltmp2-.Lfunc_begin0
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp7-.Lfunc_begin0
	.quad	.Ltmp8-.Lfunc_begin0
	.quad	.Ltmp9-.Lfunc_begin0
	.quad	.Ltmp10-.Lfunc_begin0
	.quad	.Ltmp11-.Lfunc_begin0
	.quad	.Ltmp12-.Lfunc_begin0
	.quad	.Ltmp13-.Lfunc_begin0
	.quad	.Ltmp14-.Lfunc_begin0
	.quad	.Ltmp15-.Lfunc_begin0
	.quad	.Ltmp16-.Lfunc_begin0
	.quad	.Ltmp17-.Lfunc_begin0
	.quad	.Ltmp18-.Lfunc_begin0
	.quad	.Ltmp19-.Lfunc_begin0
	.quad	.Ltmp20-.Lfunc_begin0
	.quad	.Ltmp21-.Lfunc_begin0
	.quad	.Ltmp22-.Lfunc_begin0
	.quad	.Ltmp23-.Lfunc_begin0
	.quad	.Ltmp24-.Lfunc_begin0
	.quad	.Ltmp25-.Lfunc_begin0
	.quad	.Ltmp26-.Lfunc_begin0
	.quad	.Ltmp27-.Lfunc_begin0
	.quad	.Ltmp28-.Lfunc_begin0
	.quad	.Ltmp29-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges2:
	.quad	.Ltmp31-.Lfunc_begin0
	.quad	.Ltmp32-.Lfunc_begin0
	.quad	.Ltmp33-.Lfunc_begin0
	.quad	.Ltmp34-.Lfunc_begin0
	.quad	.Ltmp35-.Lfunc_begin0
	.quad	.Ltmp36-.Lfunc_begin0
	.quad	.Ltmp37-.Lfunc_begin0
	.quad	.Ltmp38-.Lfunc_begin0
	.quad	.Ltmp39-.Lfunc_begin0
	.quad	.Ltmp40-.Lfunc_begin0
	.quad	.Ltmp41-.Lfunc_begin0
	.quad	.Ltmp42-.Lfunc_begin0
	.quad	.Ltmp43-.Lfunc_begin0
	.quad	.Ltmp44-.Lfunc_begin0
	.quad	.Ltmp45-.Lfunc_begin0
	.quad	.Ltmp46-.Lfunc_begin0
	.quad	.Ltmp47-.Lfunc_begin0
	.quad	.Ltmp48-.Lfunc_begin0
	.quad	.Ltmp49-.Lfunc_begin0
	.quad	.Ltmp50-.Lfunc_begin0
	.quad	.Ltmp51-.Lfunc_begin0
	.quad	.Ltmp52-.Lfunc_begin0
	.quad	.Ltmp53-.Lfunc_begin0
	.quad	.Ltmp54-.Lfunc_begin0
	.quad	.Ltmp55-.Lfunc_begin0
	.quad	.Ltmp56-.Lfunc_begin0
	.quad	.Ltmp57-.Lfunc_begin0
	.quad	.Ltmp58-.Lfunc_begin0
	.quad	.Ltmp59-.Lfunc_begin0
	.quad	.Ltmp60-.Lfunc_begin0
	.quad	.Ltmp61-.Lfunc_begin0
	.quad	.Ltmp62-.Lfunc_begin0
	.quad	.Ltmp63-.Lfunc_begin0
	.quad	.Ltmp64-.Lfunc_begin0
	.quad	.Ltmp65-.Lfunc_begin0
	.quad	.Ltmp66-.Lfunc_begin0
	.quad	.Ltmp67-.Lfunc_begin0
	.quad	.Ltmp68-.Lfunc_begin0
	.quad	.Ltmp69-.Lfunc_begin0
	.quad	.Ltmp70-.Lfunc_begin0
	.quad	.Ltmp71-.Lfunc_begin0
	.quad	.Ltmp72-.Lfunc_begin0
	.quad	.Ltmp73-.Lfunc_begin0
	.quad	.Ltmp74-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
	.quad	.Ltmp76-.Lfunc_begin0
	.quad	.Ltmp77-.Lfunc_begin0
	.quad	.Ltmp78-.Lfunc_begin0
	.quad	.Ltmp79-.Lfunc_begin0
	.quad	.Ltmp80-.Lfunc_begin0
	.quad	.Ltmp81-.Lfunc_begin0
	.quad	.Ltmp82-.Lfunc_begin0
	.quad	.Ltmp83-.Lfunc_begin0
	.quad	.Ltmp85-.Lfunc_begin0
	.quad	.Ltmp86-.Lfunc_begin0
	.quad	.Ltmp87-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges3:
	.quad	.Ltmp31-.Lfunc_begin0
	.quad	.Ltmp32-.Lfunc_begin0
	.quad	.Ltmp33-.Lfunc_begin0
	.quad	.Ltmp34-.Lfunc_begin0
	.quad	.Ltmp35-.Lfunc_begin0
	.quad	.Ltmp36-.Lfunc_begin0
	.quad	.Ltmp37-.Lfunc_begin0
	.quad	.Ltmp38-.Lfunc_begin0
	.quad	.Ltmp39-.Lfunc_begin0
	.quad	.Ltmp40-.Lfunc_begin0
	.quad	.Ltmp41-.Lfunc_begin0
	.quad	.Ltmp42-.Lfunc_begin0
	.quad	.Ltmp43-.Lfunc_begin0
	.quad	.Ltmp44-.Lfunc_begin0
	.quad	.Ltmp45-.Lfunc_begin0
	.quad	.Ltmp46-.Lfunc_begin0
	.quad	.Ltmp47-.Lfunc_begin0
	.quad	.Ltmp48-.Lfunc_begin0
	.quad	.Ltmp49-.Lfunc_begin0
	.quad	.Ltmp50-.Lfunc_begin0
	.quad	.Ltmp51-.Lfunc_begin0
	.quad	.Ltmp52-.Lfunc_begin0
	.quad	.Ltmp53-.Lfunc_begin0
	.quad	.Ltmp54-.Lfunc_begin0
	.quad	.Ltmp55-.Lfunc_begin0
	.quad	.Ltmp56-.Lfunc_begin0
	.quad	.Ltmp57-.Lfunc_begin0
	.quad	.Ltmp58-.Lfunc_begin0
	.quad	.Ltmp59-.Lfunc_begin0
	.quad	.Ltmp60-.Lfunc_begin0
	.quad	.Ltmp61-.Lfunc_begin0
	.quad	.Ltmp62-.Lfunc_begin0
	.quad	.Ltmp63-.Lfunc_begin0
	.quad	.Ltmp64-.Lfunc_begin0
	.quad	.Ltmp65-.Lfunc_begin0
	.quad	.Ltmp66-.Lfunc_begin0
	.quad	.Ltmp67-.Lfunc_begin0
	.quad	.Ltmp68-.Lfunc_begin0
	.quad	.Ltmp69-.Lfunc_begin0
	.quad	.Ltmp70-.Lfunc_begin0
	.quad	.Ltmp71-.Lfunc_begin0
	.quad	.Ltmp72-.Lfunc_begin0
	.quad	.Ltmp73-.Lfunc_begin0
	.quad	.Ltmp74-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
	.quad	.Ltmp76-.Lfunc_begin0
	.quad	.Ltmp77-.Lfunc_begin0
	.quad	.Ltmp78-.Lfunc_begin0
	.quad	.Ltmp79-.Lfunc_begin0
	.quad	.Ltmp80-.Lfunc_begin0
	.quad	.Ltmp81-.Lfunc_begin0
	.quad	.Ltmp82-.Lfunc_begin0
	.quad	.Ltmp83-.Lfunc_begin0
	.quad	.Ltmp84-.Lfunc_begin0
	.quad	.Ltmp86-.Lfunc_begin0
	.quad	.Ltmp87-.Lfunc_begin0
	.quad	0
	.quad	0
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"triton"                        ; string offset=0
.Linfo_string1:
	.asciz	"triton_kernels.py"             ; string offset=7
.Linfo_string2:
	.asciz	"/work/main/tests/corpus/src"   ; string offset=25
.Linfo_string3:
	.asciz	"flash_attn_fwd"                ; string offset=53
	.section	".note.GNU-stack","",@progbits
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     32
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
      - .address_space:  global
        .offset:         24
        .size:           8
        .value_kind:     global_buffer
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
      - .offset:         60
        .size:           4
        .value_kind:     by_value
      - .offset:         64
        .size:           4
        .value_kind:     by_value
      - .offset:         68
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         72
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         80
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 88
    .max_flat_workgroup_size: 256
    .name:           flash_attn_fwd
    .private_segment_fixed_size: 0
    .sgpr_count:     84
    .sgpr_spill_count: 0
    .symbol:         flash_attn_fwd.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     164
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
