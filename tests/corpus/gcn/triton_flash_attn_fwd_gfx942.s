	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
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
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dwordx8 s[4:11], s[0:1], 0x8
	s_load_dwordx4 s[12:15], s[0:1], 0x28
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.25:
.LBB0_0:
.Ltmp1:
	.loc	1 111 32 is_stmt 1              ; triton_kernels.py:111:32
	s_mul_i32 s18, s12, s17
	.loc	1 111 24 is_stmt 0              ; triton_kernels.py:111:24
	s_ashr_i32 s19, s18, 31
	.loc	1 108 23 is_stmt 1              ; triton_kernels.py:108:23
	s_lshl_b32 s16, s16, 7
	.loc	1 108 41 is_stmt 0              ; triton_kernels.py:108:41
	v_lshrrev_b32_e32 v66, 3, v0
	.loc	1 111 24 is_stmt 1              ; triton_kernels.py:111:24
	s_lshl_b64 s[18:19], s[18:19], 1
	.loc	1 111 81 is_stmt 0              ; triton_kernels.py:111:81
	v_lshlrev_b32_e32 v2, 3, v0
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or_b32_e32 v1, s16, v66
	.loc	1 111 24                        ; triton_kernels.py:111:24
	s_add_u32 s2, s2, s18
	.loc	1 111 81 is_stmt 0              ; triton_kernels.py:111:81
	v_and_b32_e32 v3, 56, v2
	.loc	1 112 39 is_stmt 1              ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s11, v1
	.loc	1 111 24                        ; triton_kernels.py:111:24
	s_addc_u32 s3, s3, s19
	.loc	1 111 74 is_stmt 0              ; triton_kernels.py:111:74
	v_mov_b32_e32 v2, 0
	v_lshlrev_b32_e32 v34, 1, v3
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[18:19], vcc
	s_cbranch_execz .LBB0_2
; %bb.1:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	v_mul_lo_u32 v4, s13, v1
	v_ashrrev_i32_e32 v5, 31, v4
	v_lshl_add_u64 v[4:5], v[4:5], 1, s[2:3]
	v_mov_b32_e32 v35, v2
	v_lshl_add_u64 v[4:5], v[4:5], 0, v[34:35]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[6:9], v[4:5], off
.LBB0_2:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[18:19]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or3_b32 v10, v66, s16, 32
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s11, v10
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[18:19], vcc
	s_cbranch_execz .LBB0_4
; %bb.3:
	.loc	1 111 62 is_stmt 0              ; triton_kernels.py:111:62
	v_mul_lo_u32 v2, s13, v10
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[2:3], v[2:3], 1, s[2:3]
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_mov_b32_e32 v35, 0
	v_lshl_add_u64 v[2:3], v[2:3], 0, v[34:35]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[2:5], v[2:3], off
.LBB0_4:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[18:19]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or_b32_e32 v10, 64, v1
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s11, v10
	.loc	1 111 62                        ; triton_kernels.py:111:62
	v_mul_lo_u32 v18, s13, v10
	v_mov_b32_e32 v14, 0
	v_mov_b32_e32 v10, 0
	v_mov_b32_e32 v11, 0
	v_mov_b32_e32 v12, 0
	v_mov_b32_e32 v13, 0
	.loc	1 111 16 is_stmt 0              ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[18:19], vcc
	s_cbranch_execz .LBB0_6
; %bb.5:
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v19, 31, v18
	v_lshl_add_u64 v[10:11], v[18:19], 1, s[2:3]
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_mov_b32_e32 v35, 0
	v_lshl_add_u64 v[10:11], v[10:11], 0, v[34:35]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[10:13], v[10:11], off
.LBB0_6:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[18:19]
	.loc	1 108 28 is_stmt 1              ; triton_kernels.py:108:28
	v_or_b32_e32 v1, 0x60, v1
	.loc	1 112 39                        ; triton_kernels.py:112:39
	v_cmp_gt_i32_e32 vcc, s11, v1
	v_mov_b32_e32 v15, 0
	v_mov_b32_e32 v16, 0
	v_mov_b32_e32 v17, 0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_and_saveexec_b64 s[18:19], vcc
	s_cbranch_execz .LBB0_8
; %bb.7:
	.loc	1 111 62 is_stmt 0              ; triton_kernels.py:111:62
	v_lshl_add_u32 v14, s13, 5, v18
	.loc	1 111 44                        ; triton_kernels.py:111:44
	v_ashrrev_i32_e32 v15, 31, v14
	v_lshl_add_u64 v[14:15], v[14:15], 1, s[2:3]
	.loc	1 111 74                        ; triton_kernels.py:111:74
	v_mov_b32_e32 v35, 0
	v_lshl_add_u64 v[14:15], v[14:15], 0, v[34:35]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	global_load_dwordx4 v[14:17], v[14:15], off
.LBB0_8:
	.loc	1 0 16                          ; triton_kernels.py:0:16
	s_or_b64 exec, exec, s[18:19]
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_lshlrev_b32_e32 v18, 4, v0
	v_and_b32_e32 v19, 0x78, v0
	v_xor_b32_e32 v18, v18, v19
	v_add_u32_e32 v67, 0, v18
	.loc	1 109 26 is_stmt 1              ; triton_kernels.py:109:26
	v_and_b32_e32 v1, 32, v0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	s_waitcnt vmcnt(0)
	ds_write2st64_b64 v67, v[6:7], v[2:3] offset1:8
	ds_write2st64_b64 v67, v[10:11], v[14:15] offset0:16 offset1:24
	v_xor_b32_e32 v2, 8, v18
	.loc	1 108 41                        ; triton_kernels.py:108:41
	v_and_b32_e32 v64, 31, v0
	v_and_b32_e32 v65, 0xc0, v0
	.loc	1 109 26                        ; triton_kernels.py:109:26
	v_lshrrev_b32_e32 v63, 3, v1
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v68, 0, v2
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cmp_lt_i32 s11, 1
	.loc	1 111 16                        ; triton_kernels.py:111:16
	ds_write2st64_b64 v68, v[8:9], v[4:5] offset1:8
	ds_write2st64_b64 v68, v[12:13], v[16:17] offset0:16 offset1:24
	s_waitcnt lgkmcnt(0)
	s_barrier
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cbranch_scc1 .LBB0_20
; %bb.9:                                ; %.lr.ph
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_and_b32_e32 v5, 15, v0
	v_lshlrev_b32_e32 v6, 3, v5
	v_lshrrev_b32_e32 v1, 2, v1
	s_load_dwordx2 s[2:3], s[0:1], 0x38
	v_lshlrev_b32_e32 v3, 7, v64
	v_lshlrev_b32_e32 v4, 6, v65
	v_xor_b32_e32 v7, v6, v1
	v_or3_b32 v4, v7, v4, v3
	v_add_u32_e32 v7, 0, v4
	v_xad_u32 v8, v4, 16, 0
	v_xad_u32 v9, v4, 32, 0
	.loc	1 119 36                        ; triton_kernels.py:119:36
	s_mul_i32 s12, s14, s17
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_xad_u32 v10, v4, 48, 0
	ds_read_b64 v[16:17], v7
	ds_read_b64 v[18:19], v8
	ds_read_b64 v[20:21], v9
	ds_read_b64 v[22:23], v10
	v_xad_u32 v7, v4, 64, 0
	v_xor_b32_e32 v8, 0x50, v4
	v_xor_b32_e32 v9, 0x60, v4
	v_xor_b32_e32 v4, 0x70, v4
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_ashr_i32 s13, s12, 31
	v_lshlrev_b32_e32 v11, 2, v0
	v_and_b32_e32 v2, 0xf8, v0
	.loc	1 111 16                        ; triton_kernels.py:111:16
	v_add_u32_e32 v8, 0, v8
	v_add_u32_e32 v9, 0, v9
	v_add_u32_e32 v4, 0, v4
	ds_read_b64 v[24:25], v7
	ds_read_b64 v[26:27], v8
	ds_read_b64 v[28:29], v9
	ds_read_b64 v[30:31], v4
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_lshl_b64 s[12:13], s[12:13], 1
	v_xor_b32_e32 v72, 0x80, v11
	v_and_b32_e32 v11, 6, v0
	s_add_u32 s4, s4, s12
	.loc	1 128 36                        ; triton_kernels.py:128:36
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s12, s2, s17
	.loc	1 109 26                        ; triton_kernels.py:109:26
	v_lshrrev_b32_e32 v70, 2, v2
	v_lshlrev_b32_e32 v12, 2, v11
	v_lshrrev_b32_e32 v2, 1, v2
	v_bfe_i32 v13, v0, 0, 1
	v_bfe_i32 v0, v0, 4, 1
	.loc	1 119 28                        ; triton_kernels.py:119:28
	s_addc_u32 s5, s5, s13
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_ashr_i32 s13, s12, 31
	v_and_b32_e32 v13, 0x440, v13
	v_xor_b32_e32 v2, v12, v2
	v_and_b32_e32 v0, 0x808, v0
	v_mul_u32_u24_e32 v5, 0x88, v5
	s_lshl_b64 s[12:13], s[12:13], 1
	v_or_b32_e32 v3, v3, v6
	v_xor_b32_e32 v2, v2, v13
	v_xor_b32_e32 v0, v5, v0
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_mul_lo_u32 v41, s3, v66
	.loc	1 116 26                        ; triton_kernels.py:116:26
	v_mov_b32_e32 v4, 0x3fb8aa3b
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_add_u32 s6, s6, s12
	v_xor_b32_e32 v71, v3, v1
	v_lshl_or_b32 v73, v11, 10, v2
	v_xor_b32_e32 v74, v0, v1
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_lshlrev_b32_e32 v75, 1, v41
	v_mul_lo_u32 v41, s3, v70
	.loc	1 116 26                        ; triton_kernels.py:116:26
	v_mul_f32_e32 v69, s10, v4
	.loc	1 128 28                        ; triton_kernels.py:128:28
	s_addc_u32 s7, s7, s13
	.loc	1 117 37                        ; triton_kernels.py:117:37
	v_mov_b32_e32 v35, 0
	v_xor_b32_e32 v3, 16, v71
	v_xor_b32_e32 v4, 32, v71
	v_xor_b32_e32 v6, 48, v71
	v_xor_b32_e32 v7, 64, v71
	v_xor_b32_e32 v8, 0x50, v71
	v_xor_b32_e32 v9, 0x60, v71
	v_xor_b32_e32 v10, 0x70, v71
	v_xor_b32_e32 v2, 8, v73
	v_xor_b32_e32 v11, 16, v73
	v_xor_b32_e32 v12, 24, v73
	v_xor_b32_e32 v13, 32, v73
	v_xor_b32_e32 v14, 40, v73
	v_xor_b32_e32 v15, 48, v73
	v_xor_b32_e32 v36, 56, v73
	v_xor_b32_e32 v0, 16, v74
	v_xor_b32_e32 v1, 32, v74
	v_xor_b32_e32 v5, 48, v74
	v_xor_b32_e32 v37, 64, v74
	v_xor_b32_e32 v38, 0x50, v74
	v_xor_b32_e32 v39, 0x60, v74
	v_xor_b32_e32 v40, 0x70, v74
	v_add_u32_e32 v76, s3, v41
	v_or_b32_e32 v41, 32, v66
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
	v_lshl_add_u64 v[32:33], s[4:5], 0, v[34:35]
	v_lshl_add_u64 v[34:35], s[6:7], 0, v[34:35]
	s_lshl_b32 s10, s3, 6
	v_mul_lo_u32 v77, s15, v41
	s_lshl_b32 s72, s15, 6
	v_mul_lo_u32 v78, s15, v66
	v_mov_b32_e32 v62, 0xff800000
	v_mov_b32_e32 v89, 1.0
	v_add_u32_e32 v79, 0, v3
	v_add_u32_e32 v80, 0, v4
	v_add_u32_e32 v81, 0, v6
	v_add_u32_e32 v82, 0, v7
	v_add_u32_e32 v83, 0, v8
	v_add_u32_e32 v84, 0, v9
	v_add_u32_e32 v85, 0, v10
	s_mov_b32 s73, 0x5040100
	s_mov_b32 s74, 0x7060302
	v_add_u32_e32 v86, 0, v2
	v_add_u32_e32 v87, 0, v11
	v_add_u32_e32 v88, 0, v12
	v_add_u32_e32 v90, 0, v13
	v_add_u32_e32 v91, 0, v14
	v_add_u32_e32 v92, 0, v15
	v_add_u32_e32 v93, 0, v36
	v_add_u32_e32 v94, 0, v0
	v_add_u32_e32 v95, 0, v1
	v_add_u32_e32 v96, 0, v5
	v_add_u32_e32 v97, 0, v37
	v_add_u32_e32 v98, 0, v38
	v_add_u32_e32 v99, 0, v39
	v_add_u32_e32 v100, 0, v40
	v_mov_b32_e32 v101, 0xc9742400
	s_mov_b32 s75, 0
	s_mov_b32 s76, 0
.LBB0_10:                               ; =>This Inner Loop Header: Depth=1
	.loc	1 118 25                        ; triton_kernels.py:118:25
	v_add_u32_e32 v0, s76, v66
	s_nop 4
	v_accvgpr_read_b32 v15, a15
	v_accvgpr_read_b32 v14, a14
	v_accvgpr_read_b32 v13, a13
	v_accvgpr_read_b32 v12, a12
	v_accvgpr_read_b32 v11, a11
	v_accvgpr_read_b32 v10, a10
	v_accvgpr_read_b32 v61, a9
	v_accvgpr_read_b32 v60, a8
	v_accvgpr_read_b32 v59, a7
	v_accvgpr_read_b32 v58, a6
	v_accvgpr_read_b32 v57, a5
	v_accvgpr_read_b32 v56, a4
	v_accvgpr_read_b32 v55, a3
	v_accvgpr_read_b32 v54, a2
	v_accvgpr_read_b32 v53, a1
	v_accvgpr_read_b32 v52, a0
	v_accvgpr_read_b32 v51, a31
	v_accvgpr_read_b32 v50, a30
	v_accvgpr_read_b32 v49, a29
	v_accvgpr_read_b32 v48, a28
	v_accvgpr_read_b32 v47, a27
	v_accvgpr_read_b32 v46, a26
	v_accvgpr_read_b32 v45, a25
	v_accvgpr_read_b32 v44, a24
	v_accvgpr_read_b32 v43, a23
	v_accvgpr_read_b32 v42, a22
	v_accvgpr_read_b32 v41, a21
	v_accvgpr_read_b32 v40, a20
	v_accvgpr_read_b32 v39, a19
	v_accvgpr_read_b32 v38, a18
	v_accvgpr_read_b32 v37, a17
	v_accvgpr_read_b32 v36, a16
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e32 vcc, s11, v0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_12
; %bb.11:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20 is_stmt 0                ; triton_kernels.py:0:20
	v_add_u32_e32 v2, s33, v78
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[2:3], v[2:3], 1, v[32:33]
	.loc	1 119 20                        ; triton_kernels.py:119:20
	global_load_dwordx4 v[2:5], v[2:3], off
.LBB0_12:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 118 25 is_stmt 1              ; triton_kernels.py:118:25
	v_add_u32_e32 v0, 32, v0
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e32 vcc, s11, v0
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	v_mov_b32_e32 v8, 0
	v_mov_b32_e32 v9, 0
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_14
; %bb.13:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 119 48 is_stmt 0              ; triton_kernels.py:119:48
	v_add_u32_e32 v6, s33, v77
	v_ashrrev_i32_e32 v7, 31, v6
	.loc	1 119 76                        ; triton_kernels.py:119:76
	v_lshl_add_u64 v[6:7], v[6:7], 1, v[32:33]
	.loc	1 119 20                        ; triton_kernels.py:119:20
	global_load_dwordx4 v[6:9], v[6:7], off
.LBB0_14:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 118 25 is_stmt 1              ; triton_kernels.py:118:25
	v_add_u32_e32 v1, s76, v63
	v_add_u32_e32 v103, 1, v1
	v_add_u32_e32 v104, 2, v1
	v_add_u32_e32 v105, 3, v1
	v_add_u32_e32 v106, 8, v1
	v_add_u32_e32 v107, 9, v1
	v_add_u32_e32 v108, 10, v1
	v_add_u32_e32 v109, 11, v1
	v_add_u32_e32 v110, 16, v1
	v_add_u32_e32 v111, 17, v1
	v_add_u32_e32 v112, 18, v1
	v_add_u32_e32 v113, 19, v1
	v_add_u32_e32 v114, 24, v1
	v_add_u32_e32 v115, 25, v1
	v_add_u32_e32 v116, 26, v1
	v_add_u32_e32 v117, 27, v1
	v_add_u32_e32 v118, 32, v1
	v_add_u32_e32 v119, 33, v1
	v_add_u32_e32 v120, 34, v1
	v_add_u32_e32 v121, 35, v1
	v_add_u32_e32 v122, 40, v1
	v_add_u32_e32 v123, 41, v1
	v_add_u32_e32 v124, 42, v1
	v_add_u32_e32 v125, 43, v1
	v_add_u32_e32 v126, 48, v1
	v_add_u32_e32 v127, 49, v1
	v_add_u32_e32 v128, 50, v1
	v_add_u32_e32 v129, 51, v1
	v_add_u32_e32 v130, 56, v1
	v_add_u32_e32 v131, 57, v1
	v_add_u32_e32 v132, 58, v1
	v_add_u32_e32 v133, 59, v1
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e64 s[66:67], s11, v1
	.loc	1 119 20                        ; triton_kernels.py:119:20
	v_add_u32_e32 v1, 0, v71
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e64 s[62:63], s11, v104
	v_cmp_gt_i32_e64 s[60:61], s11, v105
	v_cmp_gt_i32_e64 s[58:59], s11, v106
	v_cmp_gt_i32_e64 s[56:57], s11, v107
	v_cmp_gt_i32_e64 s[54:55], s11, v108
	v_cmp_gt_i32_e64 s[52:53], s11, v109
	v_cmp_gt_i32_e64 s[50:51], s11, v110
	v_cmp_gt_i32_e64 s[48:49], s11, v111
	v_cmp_gt_i32_e64 s[46:47], s11, v112
	v_cmp_gt_i32_e64 s[44:45], s11, v113
	v_cmp_gt_i32_e64 s[42:43], s11, v114
	v_cmp_gt_i32_e64 s[40:41], s11, v115
	v_cmp_gt_i32_e64 s[38:39], s11, v116
	v_cmp_gt_i32_e64 s[36:37], s11, v117
	v_cmp_gt_i32_e64 s[34:35], s11, v118
	v_cmp_gt_i32_e64 s[30:31], s11, v119
	v_cmp_gt_i32_e64 s[28:29], s11, v120
	v_cmp_gt_i32_e64 s[26:27], s11, v121
	v_cmp_gt_i32_e64 s[24:25], s11, v122
	v_cmp_gt_i32_e64 s[22:23], s11, v123
	v_cmp_gt_i32_e64 s[20:21], s11, v124
	v_cmp_gt_i32_e64 s[18:19], s11, v125
	v_cmp_gt_i32_e64 s[68:69], s11, v126
	v_cmp_gt_i32_e64 s[14:15], s11, v127
	.loc	1 119 20                        ; triton_kernels.py:119:20
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_waitcnt vmcnt(0)
	ds_write2st64_b64 v67, v[2:3], v[6:7] offset1:8
	ds_write2st64_b64 v68, v[4:5], v[8:9] offset1:8
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read2st64_b64 v[2:5], v1 offset1:8
	ds_read2st64_b64 v[6:9], v79 offset1:8
	ds_read2st64_b64 v[104:107], v80 offset1:8
	ds_read2st64_b64 v[108:111], v81 offset1:8
	ds_read2st64_b64 v[112:115], v82 offset1:8
	ds_read2st64_b64 v[116:119], v83 offset1:8
	ds_read2st64_b64 v[120:123], v84 offset1:8
	ds_read2st64_b64 v[124:127], v85 offset1:8
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_waitcnt lgkmcnt(7)
	v_mfma_f32_32x32x8_f16 a[0:15], v[2:3], v[16:17], 0
	.loc	1 120 41                        ; triton_kernels.py:120:41
	v_cmp_gt_i32_e64 s[64:65], s11, v103
	v_cmp_gt_i32_e64 s[12:13], s11, v128
	v_cmp_gt_i32_e64 s[70:71], s11, v129
	v_cmp_gt_i32_e64 s[6:7], s11, v130
	v_cmp_gt_i32_e64 s[4:5], s11, v131
	v_cmp_gt_i32_e64 s[2:3], s11, v132
	v_cmp_gt_i32_e32 vcc, s11, v133
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_waitcnt lgkmcnt(6)
	v_mfma_f32_32x32x8_f16 a[0:15], v[6:7], v[18:19], a[0:15]
	.loc	1 118 25                        ; triton_kernels.py:118:25
	v_add_u32_e32 v102, s76, v70
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_waitcnt lgkmcnt(5)
	v_mfma_f32_32x32x8_f16 a[0:15], v[104:105], v[20:21], a[0:15]
	s_waitcnt lgkmcnt(4)
	v_mfma_f32_32x32x8_f16 a[0:15], v[108:109], v[22:23], a[0:15]
	s_waitcnt lgkmcnt(3)
	v_mfma_f32_32x32x8_f16 a[0:15], v[112:113], v[24:25], a[0:15]
	s_waitcnt lgkmcnt(2)
	v_mfma_f32_32x32x8_f16 a[0:15], v[116:117], v[26:27], a[0:15]
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[120:121], v[28:29], a[0:15]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 a[0:15], v[124:125], v[30:31], a[0:15]
	s_nop 10
	v_accvgpr_read_b32 v1, a0
	v_accvgpr_read_b32 v2, a1
	v_accvgpr_read_b32 v3, a2
	v_accvgpr_read_b32 v6, a3
	v_accvgpr_read_b32 v7, a4
	v_accvgpr_read_b32 v103, a5
	v_accvgpr_read_b32 v104, a6
	v_accvgpr_read_b32 v105, a7
	v_accvgpr_read_b32 v108, a8
	v_accvgpr_read_b32 v109, a9
	v_accvgpr_read_b32 v112, a10
	v_accvgpr_read_b32 v113, a11
	v_accvgpr_read_b32 v116, a12
	v_accvgpr_read_b32 v117, a13
	v_accvgpr_read_b32 v120, a14
	v_accvgpr_read_b32 v121, a15
	v_mfma_f32_32x32x8_f16 a[0:15], v[4:5], v[16:17], 0
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v1, v69, v1
	v_mul_f32_e32 v2, v69, v2
	v_mul_f32_e32 v3, v69, v3
	v_mul_f32_e32 v6, v69, v6
	v_mul_f32_e32 v103, v69, v103
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v1, v101, v1, s[66:67]
	v_cndmask_b32_e64 v2, v101, v2, s[64:65]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8_f16 a[0:15], v[8:9], v[18:19], a[0:15]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v7, v69, v7
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v3, v101, v3, s[62:63]
	v_cndmask_b32_e64 v6, v101, v6, s[60:61]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v104, v69, v104
	v_mul_f32_e32 v105, v69, v105
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v7, v101, v7, s[58:59]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v108, v69, v108
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8_f16 a[0:15], v[106:107], v[20:21], a[0:15]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v109, v69, v109
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v104, v101, v104, s[54:55]
	v_cndmask_b32_e64 v105, v101, v105, s[52:53]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v112, v69, v112
	v_mul_f32_e32 v113, v69, v113
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v108, v101, v108, s[50:51]
	v_cndmask_b32_e64 v109, v101, v109, s[48:49]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8_f16 a[0:15], v[110:111], v[22:23], a[0:15]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v116, v69, v116
	v_mul_f32_e32 v117, v69, v117
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v112, v101, v112, s[46:47]
	v_cndmask_b32_e64 v113, v101, v113, s[44:45]
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v120, v69, v120
	v_mul_f32_e32 v121, v69, v121
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v116, v101, v116, s[42:43]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8_f16 a[0:15], v[114:115], v[24:25], a[0:15]
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v117, v101, v117, s[40:41]
	v_cndmask_b32_e64 v120, v101, v120, s[38:39]
	v_cndmask_b32_e64 v121, v101, v121, s[36:37]
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_mfma_f32_32x32x8_f16 a[0:15], v[118:119], v[26:27], a[0:15]
	v_mfma_f32_32x32x8_f16 a[0:15], v[122:123], v[28:29], a[0:15]
	v_mfma_f32_32x32x8_f16 a[0:15], v[126:127], v[30:31], a[0:15]
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v126, v101, v103, s[56:57]
.Ltmp2:
	.file	2 "/work/main/.tools/venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max_f32_e32 v103, v1, v2
	v_max3_f32 v103, v103, v3, v6
	v_max3_f32 v103, v103, v7, v126
	v_max3_f32 v103, v103, v104, v105
	v_max3_f32 v103, v103, v108, v109
	v_max3_f32 v103, v103, v112, v113
	v_max3_f32 v103, v103, v116, v117
	v_max3_f32 v103, v103, v120, v121
.Ltmp3:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	s_nop 1
	v_accvgpr_read_b32 v4, a0
	v_accvgpr_read_b32 v5, a1
	v_accvgpr_read_b32 v8, a2
	v_accvgpr_read_b32 v9, a3
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v4, v69, v4
	v_mul_f32_e32 v5, v69, v5
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v106, a4
	v_accvgpr_read_b32 v107, a5
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v8, v69, v8
	v_mul_f32_e32 v9, v69, v9
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v4, v101, v4, s[34:35]
	v_cndmask_b32_e64 v5, v101, v5, s[30:31]
	.loc	1 121 23 is_stmt 1              ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v110, a6
	v_accvgpr_read_b32 v111, a7
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v106, v69, v106
	v_mul_f32_e32 v107, v69, v107
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v8, v101, v8, s[28:29]
	v_cndmask_b32_e64 v9, v101, v9, s[26:27]
.Ltmp4:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v4, v5
.Ltmp5:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v114, a8
	v_accvgpr_read_b32 v115, a9
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v110, v69, v110
	v_mul_f32_e32 v111, v69, v111
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v106, v101, v106, s[24:25]
	v_cndmask_b32_e64 v107, v101, v107, s[22:23]
.Ltmp6:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v8, v9
.Ltmp7:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v118, a10
	v_accvgpr_read_b32 v119, a11
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v114, v69, v114
	v_mul_f32_e32 v115, v69, v115
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v110, v101, v110, s[20:21]
	v_cndmask_b32_e64 v111, v101, v111, s[18:19]
.Ltmp8:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v106, v107
.Ltmp9:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v122, a12
	v_accvgpr_read_b32 v123, a13
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v118, v69, v118
	v_mul_f32_e32 v119, v69, v119
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v114, v101, v114, s[68:69]
	v_cndmask_b32_e64 v115, v101, v115, s[14:15]
.Ltmp10:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v110, v111
.Ltmp11:
	.loc	1 121 23                        ; triton_kernels.py:121:23
	v_accvgpr_read_b32 v124, a14
	v_accvgpr_read_b32 v125, a15
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v122, v69, v122
	v_mul_f32_e32 v123, v69, v123
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v118, v101, v118, s[12:13]
	v_cndmask_b32_e64 v119, v101, v119, s[70:71]
.Ltmp12:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v114, v115
.Ltmp13:
	.loc	1 122 52                        ; triton_kernels.py:122:52
	v_mul_f32_e32 v124, v69, v124
	v_mul_f32_e32 v125, v69, v125
	.loc	1 122 62 is_stmt 0              ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v122, v101, v122, s[6:7]
	v_cndmask_b32_e64 v123, v101, v123, s[4:5]
.Ltmp14:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v118, v119
.Ltmp15:
	.loc	1 122 62                        ; triton_kernels.py:122:62
	v_cndmask_b32_e64 v124, v101, v124, s[2:3]
	v_cndmask_b32_e32 v125, v101, v125, vcc
.Ltmp16:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:123:42 ] ]
	v_max3_f32 v103, v103, v122, v123
	v_max3_f32 v103, v103, v124, v125
.Ltmp17:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:123:42 ]
	ds_bpermute_b32 v127, v72, v103
.Ltmp18:
	.loc	1 129 41                        ; triton_kernels.py:129:41
	v_cmp_gt_i32_e32 vcc, s11, v102
	.loc	1 123 31                        ; triton_kernels.py:123:31
	s_waitcnt lgkmcnt(0)
	v_max3_f32 v103, v62, v103, v127
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v1, v1, v103
	v_sub_f32_e32 v2, v2, v103
	v_sub_f32_e32 v3, v3, v103
	v_sub_f32_e32 v137, v8, v103
	v_sub_f32_e32 v138, v9, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v8, v1
	v_exp_f32_e32 v9, v2
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v6, v6, v103
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v133, v3
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v7, v7, v103
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v134, v6
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v126, v126, v103
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v135, v7
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v104, v104, v103
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v129, v126
.Ltmp19:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v8, v9
.Ltmp20:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v105, v105, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v131, v104
.Ltmp21:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v133, v1
.Ltmp22:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v108, v108, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v132, v105
.Ltmp23:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v134, v1
.Ltmp24:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v109, v109, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v130, v108
.Ltmp25:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v135, v1
.Ltmp26:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v112, v112, v103
	v_sub_f32_e32 v145, v125, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v125, v109
.Ltmp27:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v129, v1
.Ltmp28:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v113, v113, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v127, v112
.Ltmp29:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v131, v1
.Ltmp30:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v116, v116, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v128, v113
.Ltmp31:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v132, v1
.Ltmp32:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v117, v117, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v126, v116
.Ltmp33:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v130, v1
.Ltmp34:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v120, v120, v103
	v_sub_f32_e32 v136, v121, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v121, v117
.Ltmp35:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v125, v1
.Ltmp36:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v143, v123, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v123, v120
.Ltmp37:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v127, v1
.Ltmp38:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v4, v4, v103
	v_sub_f32_e32 v144, v124, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v124, v136
.Ltmp39:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v128, v1
.Ltmp40:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v5, v5, v103
	v_sub_f32_e32 v142, v122, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v122, v4
.Ltmp41:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v126, v1
.Ltmp42:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v117, v5
.Ltmp43:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v121, v1
.Ltmp44:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v141, v119, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v119, v137
.Ltmp45:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v123, v1
.Ltmp46:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v106, v106, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v120, v138
.Ltmp47:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v124, v1
.Ltmp48:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v107, v107, v103
	v_sub_f32_e32 v140, v118, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v118, v106
.Ltmp49:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v122, v1
.Ltmp50:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v110, v110, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v113, v107
.Ltmp51:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v117, v1
.Ltmp52:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v111, v111, v103
	v_sub_f32_e32 v139, v115, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v115, v110
.Ltmp53:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v119, v1
.Ltmp54:
	.loc	1 124 30                        ; triton_kernels.py:124:30
	v_sub_f32_e32 v114, v114, v103
	.loc	1 124 25 is_stmt 0              ; triton_kernels.py:124:25
	v_exp_f32_e32 v116, v111
.Ltmp55:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v120, v1
.Ltmp56:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v114, v114
.Ltmp57:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v118, v1
.Ltmp58:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v109, v139
.Ltmp59:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v113, v1
.Ltmp60:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v111, v140
.Ltmp61:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v115, v1
.Ltmp62:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v112, v141
.Ltmp63:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v116, v1
.Ltmp64:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v110, v142
.Ltmp65:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v114, v1
.Ltmp66:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v106, v143
.Ltmp67:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v109, v1
.Ltmp68:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v107, v144
.Ltmp69:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v111, v1
.Ltmp70:
	.loc	1 124 25                        ; triton_kernels.py:124:25
	v_exp_f32_e32 v108, v145
.Ltmp71:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v1, v112, v1
	v_add_f32_e32 v1, v110, v1
	v_add_f32_e32 v1, v106, v1
	v_add_f32_e32 v1, v107, v1
	v_add_f32_e32 v104, v108, v1
.Ltmp72:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:126:38 ]
	ds_bpermute_b32 v105, v72, v104
	v_mov_b32_e32 v1, 0
	v_mov_b32_e32 v2, 0
	v_mov_b32_e32 v3, 0
.Ltmp73:
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_16
; %bb.15:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20 is_stmt 0                ; triton_kernels.py:0:20
	v_add_u32_e32 v0, s75, v75
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[0:1], v[0:1], 1, v[34:35]
	.loc	1 128 20                        ; triton_kernels.py:128:20
	global_load_dwordx4 v[0:3], v[0:1], off
.LBB0_16:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 120 41 is_stmt 1              ; triton_kernels.py:120:41
	v_add_u32_e32 v4, 1, v102
	.loc	1 129 41                        ; triton_kernels.py:129:41
	v_cmp_gt_i32_e32 vcc, s11, v4
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v5, 0
	v_mov_b32_e32 v6, 0
	v_mov_b32_e32 v7, 0
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_18
; %bb.17:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 128 48 is_stmt 0              ; triton_kernels.py:128:48
	v_add_u32_e32 v4, s75, v76
	v_ashrrev_i32_e32 v5, 31, v4
	.loc	1 128 76                        ; triton_kernels.py:128:76
	v_lshl_add_u64 v[4:5], v[4:5], 1, v[34:35]
	.loc	1 128 20                        ; triton_kernels.py:128:20
	global_load_dwordx4 v[4:7], v[4:5], off
.LBB0_18:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 20                          ; triton_kernels.py:0:20
	s_or_b64 exec, exec, s[2:3]
	.loc	1 130 26 is_stmt 1              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v102, v133
	v_cvt_f16_f32_e32 v133, v134
	v_cvt_f16_f32_e32 v144, v135
	.loc	1 128 20                        ; triton_kernels.py:128:20
	s_waitcnt vmcnt(0)
	v_perm_b32 v134, v4, v0, s73
	v_add_u32_e32 v135, 0, v73
	v_perm_b32 v0, v4, v0, s74
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_write_b32 v135, v134
	ds_write_b32 v86, v0 offset:128
	v_perm_b32 v0, v5, v1, s73
	ds_write_b32 v87, v0 offset:256
	v_perm_b32 v0, v5, v1, s74
	ds_write_b32 v88, v0 offset:384
	v_perm_b32 v0, v6, v2, s73
	.loc	1 125 35                        ; triton_kernels.py:125:35
	v_sub_f32_e32 v62, v62, v103
	.loc	1 128 20                        ; triton_kernels.py:128:20
	ds_write_b32 v90, v0 offset:512
	v_perm_b32 v0, v6, v2, s74
	.loc	1 125 29                        ; triton_kernels.py:125:29
	v_exp_f32_e32 v62, v62
	.loc	1 128 20                        ; triton_kernels.py:128:20
	ds_write_b32 v91, v0 offset:640
	v_perm_b32 v0, v7, v3, s73
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v8, v8
	v_cvt_f16_f32_e32 v9, v9
	.loc	1 128 20                        ; triton_kernels.py:128:20
	ds_write_b32 v92, v0 offset:768
	v_perm_b32 v0, v7, v3, s74
	ds_write_b32 v93, v0 offset:896
	v_add_u32_e32 v0, 0, v74
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read2st64_b64 v[134:137], v0 offset1:8
	ds_read2st64_b64 v[138:141], v94 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pk_mul_f32 v[0:1], v[52:53], v[62:63] op_sel_hi:[1,0]
	v_pack_b32_f16 v142, v8, v9
	v_pk_mul_f32 v[14:15], v[14:15], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[12:13], v[12:13], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[10:11], v[10:11], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[8:9], v[60:61], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[6:7], v[58:59], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[4:5], v[56:57], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[2:3], v[54:55], v[62:63] op_sel_hi:[1,0]
	v_pack_b32_f16 v143, v102, v133
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
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v131
	v_cvt_f16_f32_e32 v1, v132
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[134:135], v[142:143], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v129
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read2st64_b64 v[52:55], v95 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v61, v0, v1
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v3, v130
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v60, v144, v2
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v127
	v_cvt_f16_f32_e32 v1, v128
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[138:139], v[60:61], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v125
	v_cvt_f16_f32_e32 v4, v126
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read2st64_b64 v[56:59], v96 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v127, v0, v1
	v_pack_b32_f16 v126, v3, v2
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v123
	v_cvt_f16_f32_e32 v1, v124
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[52:53], v[126:127], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v121
	v_cvt_f16_f32_e32 v3, v122
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read2st64_b64 v[122:125], v97 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v53, v0, v1
	v_pack_b32_f16 v52, v4, v2
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v119
	v_cvt_f16_f32_e32 v1, v120
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[56:57], v[52:53], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v117
	v_cvt_f16_f32_e32 v4, v118
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read2st64_b64 v[118:121], v98 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v57, v0, v1
	v_pack_b32_f16 v56, v3, v2
	.loc	1 130 26 is_stmt 0              ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v115
	v_cvt_f16_f32_e32 v1, v116
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[122:123], v[56:57], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v2, v113
	v_cvt_f16_f32_e32 v3, v114
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v123, v0, v1
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v111
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v122, v4, v2
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v1, v112
	v_cvt_f16_f32_e32 v2, v109
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 a[0:15], v[118:119], v[122:123], a[0:15]
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v4, v110
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pack_b32_f16 v119, v0, v1
	v_pack_b32_f16 v118, v3, v2
	.loc	1 130 26                        ; triton_kernels.py:130:26
	v_cvt_f16_f32_e32 v0, v107
	v_cvt_f16_f32_e32 v1, v108
	v_cvt_f16_f32_e32 v2, v106
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_pk_mul_f32 v[14:15], v[50:51], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[12:13], v[48:49], v[62:63] op_sel_hi:[1,0]
	v_pack_b32_f16 v107, v0, v1
	v_pack_b32_f16 v106, v4, v2
	v_pk_mul_f32 v[10:11], v[46:47], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[8:9], v[44:45], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[6:7], v[42:43], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[4:5], v[40:41], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[2:3], v[38:39], v[62:63] op_sel_hi:[1,0]
	v_pk_mul_f32 v[0:1], v[36:37], v[62:63] op_sel_hi:[1,0]
	.loc	1 128 20 is_stmt 1              ; triton_kernels.py:128:20
	ds_read2st64_b64 v[114:117], v99 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
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
	.loc	1 128 20                        ; triton_kernels.py:128:20
	ds_read2st64_b64 v[110:113], v100 offset1:8
	.loc	1 130 42                        ; triton_kernels.py:130:42
	s_waitcnt lgkmcnt(1)
	v_mfma_f32_32x32x8_f16 a[0:15], v[114:115], v[118:119], a[0:15]
.Ltmp74:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:126:38 ] ]
	v_add_f32_e32 v0, v104, v105
.Ltmp75:
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_add_i32 s76, s76, 64
	s_add_i32 s75, s75, s10
	s_add_i32 s33, s33, s72
	.loc	1 126 28                        ; triton_kernels.py:126:28
	v_fmac_f32_e32 v0, v89, v62
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cmp_lt_i32 s76, s11
	.loc	1 130 42                        ; triton_kernels.py:130:42
	v_mfma_f32_32x32x8_f16 a[16:31], v[140:141], v[142:143], a[16:31]
	v_mfma_f32_32x32x8_f16 a[16:31], v[136:137], v[60:61], a[16:31]
	v_mfma_f32_32x32x8_f16 a[16:31], v[58:59], v[126:127], a[16:31]
	v_mfma_f32_32x32x8_f16 a[16:31], v[54:55], v[52:53], a[16:31]
	v_mfma_f32_32x32x8_f16 a[16:31], v[120:121], v[56:57], a[16:31]
	v_mfma_f32_32x32x8_f16 a[16:31], v[124:125], v[122:123], a[16:31]
	s_waitcnt lgkmcnt(0)
	v_mfma_f32_32x32x8_f16 a[16:31], v[112:113], v[118:119], a[16:31]
	v_mfma_f32_32x32x8_f16 a[0:15], v[110:111], v[106:107], a[0:15]
	v_mfma_f32_32x32x8_f16 a[16:31], v[116:117], v[106:107], a[16:31]
	.loc	1 117 37                        ; triton_kernels.py:117:37
	s_cbranch_scc0 .LBB0_21
; %bb.19:                               ;   in Loop: Header=BB0_10 Depth=1
	.loc	1 0 37 is_stmt 0                ; triton_kernels.py:0:37
	v_mov_b32_e32 v89, v0
	v_mov_b32_e32 v62, v103
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
	s_load_dwordx2 s[0:1], s[0:1], 0x40
	.loc	1 108 41 is_stmt 1              ; triton_kernels.py:108:41
	v_lshrrev_b32_e32 v18, 1, v65
	.loc	1 108 28 is_stmt 0              ; triton_kernels.py:108:28
	v_or3_b32 v18, v64, v18, s16
	s_nop 5
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
	v_cmp_gt_i32_e32 vcc, s11, v18
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
	v_cvt_f16_f32_e32 v34, v19
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v19, -v36, v37, 1.0
	v_fmac_f32_e32 v37, v19, v37
	v_div_scale_f32 v19, vcc, v17, v0, v17
	v_mul_f32_e32 v35, v19, v37
	v_fma_f32 v38, -v36, v35, v19
	v_fmac_f32_e32 v35, v38, v37
	v_fma_f32 v19, -v36, v35, v19
	v_div_scale_f32 v36, s[2:3], v0, v0, v16
	v_rcp_f32_e32 v38, v36
	v_div_fmas_f32 v19, v19, v37, v35
	v_div_fixup_f32 v17, v19, v0, v17
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v35, v17
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v17, -v36, v38, 1.0
	v_fmac_f32_e32 v38, v17, v38
	v_div_scale_f32 v17, vcc, v16, v0, v16
	v_mul_f32_e32 v19, v17, v38
	v_fma_f32 v37, -v36, v19, v17
	v_fmac_f32_e32 v19, v37, v38
	v_fma_f32 v17, -v36, v19, v17
	v_div_fmas_f32 v17, v17, v38, v19
	v_div_fixup_f32 v16, v17, v0, v16
	.loc	1 133 29                        ; triton_kernels.py:133:29
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s2, s0, s17
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v36, v16
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_ashr_i32 s3, s2, 31
	.loc	1 133 59 is_stmt 0              ; triton_kernels.py:133:59
	v_mul_lo_u32 v16, s1, v18
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_div_scale_f32 v37, s[0:1], v0, v0, v13
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_lshl_b64 s[2:3], s[2:3], 1
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_rcp_f32_e32 v38, v37
	.loc	1 133 21                        ; triton_kernels.py:133:21
	s_add_u32 s2, s8, s2
	s_addc_u32 s3, s9, s3
	.loc	1 133 41 is_stmt 0              ; triton_kernels.py:133:41
	v_ashrrev_i32_e32 v17, 31, v16
	v_lshl_add_u64 v[16:17], v[16:17], 1, s[2:3]
	.loc	1 133 71                        ; triton_kernels.py:133:71
	v_lshlrev_b32_e32 v18, 1, v63
	v_mov_b32_e32 v19, 0
	v_lshl_add_u64 v[16:17], v[16:17], 0, v[18:19]
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_fma_f32 v18, -v37, v38, 1.0
	v_fmac_f32_e32 v38, v18, v38
	v_div_scale_f32 v18, vcc, v13, v0, v13
	v_mul_f32_e32 v19, v18, v38
	v_fma_f32 v39, -v37, v19, v18
	v_fmac_f32_e32 v19, v39, v38
	v_fma_f32 v18, -v37, v19, v18
	v_div_scale_f32 v37, s[0:1], v0, v0, v7
	v_rcp_f32_e32 v39, v37
	v_div_fmas_f32 v18, v18, v38, v19
	v_div_fixup_f32 v13, v18, v0, v13
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v13, v13
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v18, -v37, v39, 1.0
	v_fmac_f32_e32 v39, v18, v39
	v_div_scale_f32 v18, vcc, v7, v0, v7
	v_mul_f32_e32 v19, v18, v39
	v_fma_f32 v38, -v37, v19, v18
	v_fmac_f32_e32 v19, v38, v39
	v_div_scale_f32 v38, s[0:1], v0, v0, v11
	v_rcp_f32_e32 v40, v38
	v_fma_f32 v18, -v37, v19, v18
	v_div_fmas_f32 v18, v18, v39, v19
	v_div_fixup_f32 v7, v18, v0, v7
	v_fma_f32 v19, -v38, v40, 1.0
	v_fmac_f32_e32 v40, v19, v40
	v_div_scale_f32 v19, vcc, v11, v0, v11
	v_mul_f32_e32 v37, v19, v40
	v_fma_f32 v39, -v38, v37, v19
	v_fmac_f32_e32 v37, v39, v40
	v_fma_f32 v19, -v38, v37, v19
	v_div_scale_f32 v38, s[0:1], v0, v0, v9
	v_rcp_f32_e32 v39, v38
	v_div_fmas_f32 v19, v19, v40, v37
	v_div_fixup_f32 v11, v19, v0, v11
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v11, v11
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v19, -v38, v39, 1.0
	v_fmac_f32_e32 v39, v19, v39
	v_div_scale_f32 v19, vcc, v9, v0, v9
	v_mul_f32_e32 v37, v19, v39
	v_fma_f32 v40, -v38, v37, v19
	v_fmac_f32_e32 v37, v40, v39
	v_fma_f32 v19, -v38, v37, v19
	v_div_fmas_f32 v19, v19, v39, v37
	v_div_fixup_f32 v9, v19, v0, v9
	v_div_scale_f32 v19, s[0:1], v0, v0, v6
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v9, v9
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_rcp_f32_e32 v37, v19
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v18, v7
	.loc	1 134 13 is_stmt 0              ; triton_kernels.py:134:13
	v_pack_b32_f16 v7, v11, v9
	.loc	1 132 16 is_stmt 1              ; triton_kernels.py:132:16
	v_fma_f32 v9, -v19, v37, 1.0
	v_fmac_f32_e32 v37, v9, v37
	v_div_scale_f32 v9, vcc, v6, v0, v6
	v_mul_f32_e32 v11, v9, v37
	v_fma_f32 v38, -v19, v11, v9
	v_fmac_f32_e32 v11, v38, v37
	v_fma_f32 v9, -v19, v11, v9
	v_div_scale_f32 v19, s[0:1], v0, v0, v4
	v_rcp_f32_e32 v38, v19
	v_div_fmas_f32 v9, v9, v37, v11
	v_div_fixup_f32 v6, v9, v0, v6
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v9, v6
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v19, v38, 1.0
	v_fmac_f32_e32 v38, v6, v38
	v_div_scale_f32 v6, vcc, v4, v0, v4
	v_mul_f32_e32 v11, v6, v38
	v_fma_f32 v37, -v19, v11, v6
	v_fmac_f32_e32 v11, v37, v38
	v_fma_f32 v6, -v19, v11, v6
	v_div_scale_f32 v19, s[0:1], v0, v0, v2
	v_rcp_f32_e32 v37, v19
	v_div_fmas_f32 v6, v6, v38, v11
	v_div_fixup_f32 v4, v6, v0, v4
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v4, v4
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v19, v37, 1.0
	v_fmac_f32_e32 v37, v6, v37
	v_div_scale_f32 v6, vcc, v2, v0, v2
	v_mul_f32_e32 v11, v6, v37
	v_fma_f32 v38, -v19, v11, v6
	v_fmac_f32_e32 v11, v38, v37
	v_fma_f32 v6, -v19, v11, v6
	v_div_scale_f32 v19, s[0:1], v0, v0, v1
	v_rcp_f32_e32 v38, v19
	v_div_fmas_f32 v6, v6, v37, v11
	v_div_fixup_f32 v2, v6, v0, v2
	.loc	1 134 20                        ; triton_kernels.py:134:20
	v_cvt_f16_f32_e32 v2, v2
	.loc	1 132 16                        ; triton_kernels.py:132:16
	v_fma_f32 v6, -v19, v38, 1.0
	v_fmac_f32_e32 v38, v6, v38
	v_div_scale_f32 v6, vcc, v1, v0, v1
	v_mul_f32_e32 v11, v6, v38
	v_fma_f32 v37, -v19, v11, v6
	v_fmac_f32_e32 v11, v37, v38
	v_fma_f32 v6, -v19, v11, v6
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
	v_pack_b32_f16 v1, v34, v20
	v_pack_b32_f16 v0, v36, v35
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
.Ltmp76:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel flash_attn_fwd
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 88
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
		.amdhsa_next_free_vgpr 180
		.amdhsa_next_free_sgpr 77
		.amdhsa_accum_offset 148
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
	.size	flash_attn_fwd, .Lfunc_end0-flash_attn_fwd
	.cfi_endproc
                                        ; -- End function
	.set flash_attn_fwd.num_vgpr, 146
	.set flash_attn_fwd.num_agpr, 32
	.set flash_attn_fwd.numbered_sgpr, 77
	.set flash_attn_fwd.num_named_barrier, 0
	.set flash_attn_fwd.private_seg_size, 0
	.set flash_attn_fwd.uses_vcc, 1
	.set flash_attn_fwd.uses_flat_scratch, 0
	.set flash_attn_fwd.has_dyn_sized_stack, 0
	.set flash_attn_fwd.has_recursion, 0
	.set flash_attn_fwd.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 8244
; TotalNumSgprs: 83
; NumVgprs: 146
; NumAgprs: 32
; TotalNumVgprs: 180
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 10
; VGPRBlocks: 22
; NumSGPRsForWavesPerEU: 83
; NumVGPRsForWavesPerEU: 180
; AccumOffset: 148
; Occupancy: 2
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 36
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
	.quad	.Ltmp18-.Lfunc_begin0
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
	.quad	0
	.quad	0
.Ldebug_ranges2:
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
	.quad	.Ltmp30-.Lfunc_begin0
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
	.quad	.Ltmp73-.Lfunc_begin0
	.quad	.Ltmp74-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges3:
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
	.quad	.Ltmp30-.Lfunc_begin0
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
	.quad	.Ltmp74-.Lfunc_begin0
	.quad	.Ltmp75-.Lfunc_begin0
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
    .sgpr_count:     83
    .sgpr_spill_count: 0
    .symbol:         flash_attn_fwd.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     180
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
