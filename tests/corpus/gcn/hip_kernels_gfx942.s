	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.protected	histogram               ; -- Begin function histogram
	.globl	histogram
	.p2align	8
	.type	histogram,@function
histogram:                              ; @histogram
.Lfunc_begin0:
	.file	0 "/work/main/tests/corpus/src" "gcn_kernels.hip" md5 0xad86bad60ca9fd60813ded91a51f120f
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.0:
	.loc	0 16 9 prologue_end             ; gcn_kernels.hip:16:9
	s_load_dwordx4 s[8:11], s[2:3], 0x0
	s_load_dword s5, s[2:3], 0x10
	.loc	0 18 22                         ; gcn_kernels.hip:18:22
	s_load_dword s6, s[2:3], 0x24
	.loc	0 16 3                          ; gcn_kernels.hip:16:3
	v_lshlrev_b32_e32 v2, 2, v0
	v_mov_b32_e32 v1, 0
	.loc	0 16 14 is_stmt 0               ; gcn_kernels.hip:16:14
	ds_write_b32 v2, v1
	.loc	0 17 3 is_stmt 1                ; gcn_kernels.hip:17:3
	s_barrier
	.loc	0 18 22                         ; gcn_kernels.hip:18:22
	s_waitcnt lgkmcnt(0)
	s_and_b32 s2, s6, 0xffff
	.loc	0 18 20 is_stmt 0               ; gcn_kernels.hip:18:20
	s_mul_i32 s4, s4, s2
	.loc	0 18 27                         ; gcn_kernels.hip:18:27
	v_add_u32_e32 v0, s4, v0
	.loc	0 18 36                         ; gcn_kernels.hip:18:36
	v_cmp_gt_i32_e32 vcc, s5, v0
	.loc	0 18 3                          ; gcn_kernels.hip:18:3
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_3
; %bb.1:
	.loc	0 0 3                           ; gcn_kernels.hip:0:3
	s_load_dword s4, s[0:1], 0xc
	s_mov_b64 s[0:1], 0
	v_mov_b32_e32 v3, 1
.LBB0_2:                                ; =>This Inner Loop Header: Depth=1
	.loc	0 19 31 is_stmt 1               ; gcn_kernels.hip:19:31
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[4:5], s[8:9], 0, v[0:1]
	global_load_ubyte v1, v[4:5], off
	.loc	0 18 36                         ; gcn_kernels.hip:18:36
	s_waitcnt lgkmcnt(0)
	v_add_u32_e32 v0, s4, v0
	v_cmp_le_i32_e32 vcc, s5, v0
	.loc	0 18 3 is_stmt 0                ; gcn_kernels.hip:18:3
	s_or_b64 s[0:1], vcc, s[0:1]
	.loc	0 19 25 is_stmt 1               ; gcn_kernels.hip:19:25
	s_waitcnt vmcnt(0)
	v_lshlrev_b32_e32 v1, 2, v1
	.loc	0 19 5 is_stmt 0                ; gcn_kernels.hip:19:5
	ds_add_u32 v1, v3
	.loc	0 18 3 is_stmt 1                ; gcn_kernels.hip:18:3
	s_andn2_b64 exec, exec, s[0:1]
	s_cbranch_execnz .LBB0_2
.LBB0_3:
	.loc	0 0 3 is_stmt 0                 ; gcn_kernels.hip:0:3
	s_or_b64 exec, exec, s[2:3]
	.loc	0 20 3 is_stmt 1                ; gcn_kernels.hip:20:3
	s_barrier
	.loc	0 21 34                         ; gcn_kernels.hip:21:34
	ds_read_b32 v0, v2
	.loc	0 21 3 is_stmt 0                ; gcn_kernels.hip:21:3
	s_waitcnt lgkmcnt(0)
	global_atomic_add v2, v0, s[10:11] sc1
	.loc	0 22 1 is_stmt 1                ; gcn_kernels.hip:22:1
	s_endpgm
.Ltmp0:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel histogram
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 280
		.amdhsa_user_sgpr_count 4
		.amdhsa_user_sgpr_dispatch_ptr 1
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 12
		.amdhsa_accum_offset 8
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
	.size	histogram, .Lfunc_end0-histogram
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 184
; NumSgprs: 18
; NumVgprs: 6
; NumAgprs: 0
; TotalNumVgprs: 6
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 1024 bytes/workgroup (compile time only)
; SGPRBlocks: 2
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 18
; NumVGPRsForWavesPerEU: 6
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 4
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	block_sum               ; -- Begin function block_sum
	.globl	block_sum
	.p2align	8
	.type	block_sum,@function
block_sum:                              ; @block_sum
.Lfunc_begin1:
	.cfi_startproc
; %bb.0:
	.loc	0 27 17 prologue_end            ; gcn_kernels.hip:27:17
	s_load_dword s3, s[0:1], 0x24
	.loc	0 27 11 is_stmt 0               ; gcn_kernels.hip:27:11
	s_load_dword s8, s[0:1], 0x10
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	.loc	0 28 15 is_stmt 1               ; gcn_kernels.hip:28:15
	v_mov_b32_e32 v3, 0
	.loc	0 27 17                         ; gcn_kernels.hip:27:17
	s_waitcnt lgkmcnt(0)
	s_and_b32 s3, s3, 0xffff
	.loc	0 27 15 is_stmt 0               ; gcn_kernels.hip:27:15
	s_mul_i32 s0, s2, s3
	.loc	0 27 22                         ; gcn_kernels.hip:27:22
	v_add_u32_e32 v2, s0, v0
	.loc	0 28 17 is_stmt 1               ; gcn_kernels.hip:28:17
	v_cmp_gt_i32_e32 vcc, s8, v2
	.loc	0 28 15 is_stmt 0               ; gcn_kernels.hip:28:15
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB1_2
; %bb.1:
	.loc	0 27 11 is_stmt 1               ; gcn_kernels.hip:27:11
	v_mov_b32_e32 v4, s4
	v_mov_b32_e32 v5, s5
	v_ashrrev_i32_e32 v3, 31, v2
	v_lshl_add_u64 v[2:3], v[2:3], 2, v[4:5]
	.loc	0 28 23                         ; gcn_kernels.hip:28:23
	global_load_dword v3, v[2:3], off
.LBB1_2:
	.loc	0 0 23 is_stmt 0                ; gcn_kernels.hip:0:23
	s_or_b64 exec, exec, s[0:1]
	.loc	0 28 3                          ; gcn_kernels.hip:28:3
	v_lshlrev_b32_e32 v1, 2, v0
	.loc	0 30 33 is_stmt 1               ; gcn_kernels.hip:30:33
	s_cmp_lt_u32 s3, 2
	.loc	0 28 13                         ; gcn_kernels.hip:28:13
	s_waitcnt vmcnt(0)
	ds_write_b32 v1, v3
	.loc	0 29 3                          ; gcn_kernels.hip:29:3
	s_barrier
	.loc	0 30 3                          ; gcn_kernels.hip:30:3
	s_cbranch_scc0 .LBB1_7
.LBB1_3:
	.loc	0 0 3 is_stmt 0                 ; gcn_kernels.hip:0:3
	s_mov_b32 s3, 0
	.loc	0 34 11 is_stmt 1               ; gcn_kernels.hip:34:11
	v_cmp_eq_u32_e32 vcc, 0, v0
	.loc	0 34 7 is_stmt 0                ; gcn_kernels.hip:34:7
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB1_5
; %bb.4:
	.loc	0 0 7                           ; gcn_kernels.hip:0:7
	v_mov_b32_e32 v0, 0
	.loc	0 34 28                         ; gcn_kernels.hip:34:28
	ds_read_b32 v1, v0
	s_lshl_b64 s[0:1], s[2:3], 2
	s_add_u32 s0, s6, s0
	s_addc_u32 s1, s7, s1
	.loc	0 34 26                         ; gcn_kernels.hip:34:26
	s_waitcnt lgkmcnt(0)
	global_store_dword v0, v1, s[0:1]
.LBB1_5:
	.loc	0 35 1 is_stmt 1                ; gcn_kernels.hip:35:1
	s_endpgm
.LBB1_6:                                ;   in Loop: Header=BB1_7 Depth=1
	.loc	0 0 1 is_stmt 0                 ; gcn_kernels.hip:0:1
	s_or_b64 exec, exec, s[0:1]
	.loc	0 30 33 is_stmt 1               ; gcn_kernels.hip:30:33
	s_cmp_lt_u32 s3, 4
	s_mov_b32 s3, s4
	.loc	0 32 5                          ; gcn_kernels.hip:32:5
	s_barrier
	.loc	0 30 3                          ; gcn_kernels.hip:30:3
	s_cbranch_scc1 .LBB1_3
.LBB1_7:                                ; =>This Inner Loop Header: Depth=1
	.loc	0 30 0 is_stmt 0                ; gcn_kernels.hip:30:0
	s_lshr_b32 s4, s3, 1
	.loc	0 31 13 is_stmt 1               ; gcn_kernels.hip:31:13
	v_cmp_gt_u32_e32 vcc, s4, v0
	.loc	0 31 9 is_stmt 0                ; gcn_kernels.hip:31:9
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB1_6
; %bb.8:                                ;   in Loop: Header=BB1_7 Depth=1
	.loc	0 0 9                           ; gcn_kernels.hip:0:9
	v_lshl_add_u32 v2, s4, 2, v1
	.loc	0 31 31                         ; gcn_kernels.hip:31:31
	ds_read_b32 v2, v2
	.loc	0 31 28                         ; gcn_kernels.hip:31:28
	ds_read_b32 v3, v1
	s_waitcnt lgkmcnt(0)
	v_add_f32_e32 v2, v2, v3
	ds_write_b32 v1, v2
	s_branch .LBB1_6
.Ltmp1:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel block_sum
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 280
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 9
		.amdhsa_accum_offset 8
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
.Lfunc_end1:
	.size	block_sum, .Lfunc_end1-block_sum
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 256
; NumSgprs: 15
; NumVgprs: 6
; NumAgprs: 0
; TotalNumVgprs: 6
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 1024 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 15
; NumVGPRsForWavesPerEU: 6
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	many_exits              ; -- Begin function many_exits
	.globl	many_exits
	.p2align	8
	.type	many_exits,@function
many_exits:                             ; @many_exits
.Lfunc_begin2:
	.cfi_startproc
; %bb.0:
	.loc	0 40 12 prologue_end is_stmt 1  ; gcn_kernels.hip:40:12
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	s_waitcnt lgkmcnt(0)
	s_cmp_eq_u32 s9, 0
	.loc	0 40 7 is_stmt 0                ; gcn_kernels.hip:40:7
	s_cbranch_scc1 .LBB2_5
; %bb.1:
	.loc	0 41 17 is_stmt 1               ; gcn_kernels.hip:41:17
	s_load_dword s3, s[0:1], 0x24
	.loc	0 40 12                         ; gcn_kernels.hip:40:12
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_mov_b64 s[12:13], -1
	s_mov_b64 s[10:11], 0
	.loc	0 41 17                         ; gcn_kernels.hip:41:17
	s_waitcnt lgkmcnt(0)
	s_and_b32 s0, s3, 0xffff
	.loc	0 41 15 is_stmt 0               ; gcn_kernels.hip:41:15
	s_mul_i32 s2, s2, s0
	.loc	0 41 22                         ; gcn_kernels.hip:41:22
	v_add_u32_e32 v0, s2, v0
	s_cmp_lt_i32 s9, 2
	.loc	0 0 0                           ; gcn_kernels.hip:0:0
	v_cmp_gt_i32_e64 s[0:1], s8, v0
	s_mov_b64 s[2:3], 0
	s_cbranch_scc0 .LBB2_6
; %bb.2:
	s_and_b64 vcc, exec, s[12:13]
	s_cbranch_vccnz .LBB2_12
.LBB2_3:
	s_andn2_b64 vcc, exec, s[2:3]
	s_cbranch_vccz .LBB2_13
.LBB2_4:
	s_andn2_b64 vcc, exec, s[10:11]
	s_cbranch_vccz .LBB2_16
.LBB2_5:
	.loc	0 52 1 is_stmt 1                ; gcn_kernels.hip:52:1
	s_endpgm
.LBB2_6:
	.loc	0 0 1 is_stmt 0                 ; gcn_kernels.hip:0:1
	s_cmp_eq_u32 s9, 2
	s_mov_b64 s[2:3], -1
	s_cbranch_scc0 .LBB2_11
; %bb.7:
	.loc	0 47 15 is_stmt 1               ; gcn_kernels.hip:47:15
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB2_10
; %bb.8:
	.loc	0 47 18 is_stmt 0               ; gcn_kernels.hip:47:18
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[2:3], v[0:1], 2, s[4:5]
	global_load_dword v2, v[2:3], off
	.loc	0 47 27                         ; gcn_kernels.hip:47:27
	s_waitcnt vmcnt(0)
	v_cmp_lt_i32_e32 vcc, 0, v2
	.loc	0 47 9                          ; gcn_kernels.hip:47:9
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .LBB2_10
; %bb.9:
	.loc	0 0 9                           ; gcn_kernels.hip:0:9
	v_lshl_add_u64 v[2:3], v[0:1], 2, s[6:7]
	v_mov_b32_e32 v1, 1
	.loc	0 47 39                         ; gcn_kernels.hip:47:39
	global_store_dword v[2:3], v1, off
.LBB2_10:
	.loc	0 0 39                          ; gcn_kernels.hip:0:39
	s_or_b64 exec, exec, s[2:3]
	s_mov_b64 s[2:3], 0
.LBB2_11:
	s_branch .LBB2_3
.LBB2_12:
	s_cmp_lg_u32 s9, 1
	s_mov_b64 s[10:11], -1
	s_cselect_b64 s[2:3], -1, 0
	s_andn2_b64 vcc, exec, s[2:3]
	s_cbranch_vccnz .LBB2_4
.LBB2_13:
	.loc	0 50 7 is_stmt 1                ; gcn_kernels.hip:50:7
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB2_15
; %bb.14:
	.loc	0 0 7 is_stmt 0                 ; gcn_kernels.hip:0:7
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[2:3], 2, v[0:1]
	v_lshl_add_u64 v[4:5], s[4:5], 0, v[2:3]
	.loc	0 51 12 is_stmt 1               ; gcn_kernels.hip:51:12
	global_load_dword v1, v[4:5], off
	v_lshl_add_u64 v[2:3], s[6:7], 0, v[2:3]
	.loc	0 51 21 is_stmt 0               ; gcn_kernels.hip:51:21
	s_waitcnt vmcnt(0)
	v_add_u32_e32 v1, s9, v1
	.loc	0 51 10                         ; gcn_kernels.hip:51:10
	global_store_dword v[2:3], v1, off
.LBB2_15:
	.loc	0 0 10                          ; gcn_kernels.hip:0:10
	s_or_b64 exec, exec, s[2:3]
	s_cbranch_execnz .LBB2_5
.LBB2_16:
	.loc	0 43 9 is_stmt 1                ; gcn_kernels.hip:43:9
	s_and_saveexec_b64 s[2:3], s[0:1]
	s_cbranch_execz .LBB2_5
; %bb.17:
	.loc	0 0 9 is_stmt 0                 ; gcn_kernels.hip:0:9
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[0:1], 2, v[0:1]
	v_lshl_add_u64 v[2:3], s[4:5], 0, v[0:1]
	.loc	0 43 25                         ; gcn_kernels.hip:43:25
	global_load_dword v2, v[2:3], off
	v_lshl_add_u64 v[0:1], s[6:7], 0, v[0:1]
	.loc	0 43 34                         ; gcn_kernels.hip:43:34
	s_waitcnt vmcnt(0)
	v_lshlrev_b32_e32 v2, 1, v2
	.loc	0 43 23                         ; gcn_kernels.hip:43:23
	global_store_dword v[0:1], v2, off
	.loc	0 52 1 is_stmt 1                ; gcn_kernels.hip:52:1
	s_endpgm
.Ltmp2:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel many_exits
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 280
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 14
		.amdhsa_accum_offset 8
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
.Lfunc_end2:
	.size	many_exits, .Lfunc_end2-many_exits
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 352
; NumSgprs: 20
; NumVgprs: 6
; NumAgprs: 0
; TotalNumVgprs: 6
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 2
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 20
; NumVGPRsForWavesPerEU: 6
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2align	2                               ; -- Begin function _Z11clamp_scalefff
	.type	_Z11clamp_scalefff,@function
_Z11clamp_scalefff:                     ; @_Z11clamp_scalefff
.Lfunc_begin3:
	.loc	0 56 0                          ; gcn_kernels.hip:56:0
	.cfi_startproc
; %bb.0:
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
.Ltmp3:
	.loc	0 57 15 prologue_end            ; gcn_kernels.hip:57:15
	v_mul_f32_e32 v0, 0x40400000, v0
	.loc	0 58 10                         ; gcn_kernels.hip:58:10
	v_cmp_nlt_f32_e32 vcc, 1.0, v0
	s_nop 1
	v_cndmask_b32_e32 v1, 1.0, v0, vcc
	v_cmp_ngt_f32_e32 vcc, -1.0, v0
	s_nop 1
	v_cndmask_b32_e32 v0, -1.0, v1, vcc
	.loc	0 58 3 is_stmt 0                ; gcn_kernels.hip:58:3
	s_setpc_b64 s[30:31]
.Ltmp4:
.Lfunc_end3:
	.size	_Z11clamp_scalefff, .Lfunc_end3-_Z11clamp_scalefff
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Function info:
; codeLenInByte = 40
; NumSgprs: 38
; NumVgprs: 2
; NumAgprs: 0
; TotalNumVgprs: 2
; ScratchSize: 0
; MemoryBound: 0
	.text
	.protected	calls                   ; -- Begin function calls
	.globl	calls
	.p2align	8
	.type	calls,@function
calls:                                  ; @calls
.Lfunc_begin4:
	.cfi_startproc
; %bb.0:
	.loc	0 62 17 prologue_end is_stmt 1  ; gcn_kernels.hip:62:17
	s_load_dword s3, s[0:1], 0x24
	.loc	0 62 11 is_stmt 0               ; gcn_kernels.hip:62:11
	s_load_dword s4, s[0:1], 0x10
	s_mov_b32 s32, 0
	.loc	0 62 17                         ; gcn_kernels.hip:62:17
	s_waitcnt lgkmcnt(0)
	s_and_b32 s3, s3, 0xffff
	.loc	0 62 15                         ; gcn_kernels.hip:62:15
	s_mul_i32 s2, s2, s3
	.loc	0 62 22                         ; gcn_kernels.hip:62:22
	v_add_u32_e32 v0, s2, v0
	.loc	0 63 9 is_stmt 1                ; gcn_kernels.hip:63:9
	v_cmp_gt_i32_e32 vcc, s4, v0
	.loc	0 63 7 is_stmt 0                ; gcn_kernels.hip:63:7
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB4_2
; %bb.1:
	.loc	0 62 11 is_stmt 1               ; gcn_kernels.hip:62:11
	s_load_dwordx4 s[0:3], s[0:1], 0x0
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[2:3], 2, v[0:1]
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[0:1], s[0:1], 0, v[2:3]
	.loc	0 63 35                         ; gcn_kernels.hip:63:35
	global_load_dword v0, v[0:1], off
	v_lshl_add_u64 v[2:3], s[2:3], 0, v[2:3]
	.loc	0 63 23 is_stmt 0               ; gcn_kernels.hip:63:23
	s_getpc_b64 s[0:1]
	s_add_u32 s0, s0, _Z11clamp_scalefff@rel32@lo+4
	s_addc_u32 s1, s1, _Z11clamp_scalefff@rel32@hi+12
	s_swappc_b64 s[30:31], s[0:1]
.Ltmp5:
	.loc	0 63 21                         ; gcn_kernels.hip:63:21
	global_store_dword v[2:3], v0, off
.LBB4_2:
	.loc	0 64 1 is_stmt 1                ; gcn_kernels.hip:64:1
	s_endpgm
.Ltmp6:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel calls
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 280
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 33
		.amdhsa_accum_offset 4
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
.Lfunc_end4:
	.size	calls, .Lfunc_end4-calls
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 136
; NumSgprs: 39
; NumVgprs: 4
; NumAgprs: 0
; TotalNumVgprs: 4
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 4
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 39
; NumVGPRsForWavesPerEU: 4
; AccumOffset: 4
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 0
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	atomic_ticket           ; -- Begin function atomic_ticket
	.globl	atomic_ticket
	.p2align	8
	.type	atomic_ticket,@function
atomic_ticket:                          ; @atomic_ticket
.Lfunc_begin5:
	.cfi_startproc
; %bb.0:
	.loc	0 70 17 prologue_end            ; gcn_kernels.hip:70:17
	s_load_dword s3, s[0:1], 0x34
	.loc	0 70 11 is_stmt 0               ; gcn_kernels.hip:70:11
	s_load_dword s4, s[0:1], 0x20
	.loc	0 70 17                         ; gcn_kernels.hip:70:17
	s_waitcnt lgkmcnt(0)
	s_and_b32 s3, s3, 0xffff
	.loc	0 70 15                         ; gcn_kernels.hip:70:15
	s_mul_i32 s2, s2, s3
	.loc	0 70 22                         ; gcn_kernels.hip:70:22
	v_add_u32_e32 v0, s2, v0
	.loc	0 71 9 is_stmt 1                ; gcn_kernels.hip:71:9
	v_cmp_gt_i32_e32 vcc, s4, v0
	.loc	0 71 7 is_stmt 0                ; gcn_kernels.hip:71:7
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB5_8
; %bb.1:
	.loc	0 70 11 is_stmt 1               ; gcn_kernels.hip:70:11
	s_load_dwordx8 s[4:11], s[0:1], 0x0
	.loc	0 72 26                         ; gcn_kernels.hip:72:26
	s_mov_b64 s[2:3], exec
	v_mbcnt_lo_u32_b32 v1, s2, 0
	v_mbcnt_hi_u32_b32 v4, s3, v1
	v_cmp_eq_u32_e32 vcc, 0, v4
                                        ; implicit-def: $vgpr2_vgpr3
	s_and_saveexec_b64 s[0:1], vcc
	s_cbranch_execz .LBB5_3
; %bb.2:
	s_bcnt1_i32_b64 s2, s[2:3]
	v_mov_b32_e32 v2, s2
	v_mov_b32_e32 v3, 0
	s_waitcnt lgkmcnt(0)
	global_atomic_add_x2 v[2:3], v3, v[2:3], s[4:5] sc0 sc1
.LBB5_3:
	.loc	0 0 26 is_stmt 0                ; gcn_kernels.hip:0:26
	s_or_b64 exec, exec, s[0:1]
	.loc	0 73 3 is_stmt 1                ; gcn_kernels.hip:73:3
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[6:7], 2, v[0:1]
	.loc	0 74 13                         ; gcn_kernels.hip:74:13
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[0:1], s[10:11], 0, v[6:7]
	global_load_dword v0, v[0:1], off
	.loc	0 72 26                         ; gcn_kernels.hip:72:26
	s_waitcnt vmcnt(1)
	v_readfirstlane_b32 s0, v2
	.loc	0 73 3                          ; gcn_kernels.hip:73:3
	v_lshl_add_u64 v[2:3], s[6:7], 0, v[6:7]
	.loc	0 75 9                          ; gcn_kernels.hip:75:9
	s_waitcnt vmcnt(0)
	v_cmp_lt_f32_e32 vcc, 0, v0
	.loc	0 72 26                         ; gcn_kernels.hip:72:26
	v_add_u32_e32 v1, s0, v4
	.loc	0 73 12                         ; gcn_kernels.hip:73:12
	global_store_dword v[2:3], v1, off
	.loc	0 75 7                          ; gcn_kernels.hip:75:7
	s_and_b64 exec, exec, vcc
	s_cbranch_execz .LBB5_8
; %bb.4:
	.loc	0 70 11                         ; gcn_kernels.hip:70:11
	v_mov_b32_e32 v2, 0
	.loc	0 77 15                         ; gcn_kernels.hip:77:15
	global_load_dword v1, v2, s[8:9] sc0 sc1
	s_mov_b64 s[0:1], 0
                                        ; implicit-def: $sgpr2_sgpr3
	s_branch .LBB5_6
.LBB5_5:                                ;   in Loop: Header=BB5_6 Depth=1
	.loc	0 0 15 is_stmt 0                ; gcn_kernels.hip:0:15
	s_or_b64 exec, exec, s[4:5]
	.loc	0 78 47 is_stmt 1               ; gcn_kernels.hip:78:47
	s_and_b64 s[4:5], exec, s[2:3]
	s_or_b64 s[0:1], s[4:5], s[0:1]
	s_andn2_b64 exec, exec, s[0:1]
	s_cbranch_execz .LBB5_8
.LBB5_6:                                ; =>This Inner Loop Header: Depth=1
	.loc	0 78 43 is_stmt 0               ; gcn_kernels.hip:78:43
	s_waitcnt vmcnt(0)
	v_cmp_gt_f32_e32 vcc, v0, v1
	s_or_b64 s[2:3], s[2:3], exec
	.loc	0 78 47                         ; gcn_kernels.hip:78:47
	s_and_saveexec_b64 s[4:5], vcc
	s_cbranch_execz .LBB5_5
; %bb.7:                                ;   in Loop: Header=BB5_6 Depth=1
	.loc	0 79 13 is_stmt 1               ; gcn_kernels.hip:79:13
	global_atomic_cmpswap v3, v2, v[0:1], s[8:9] sc0 sc1
	s_andn2_b64 s[2:3], s[2:3], exec
	s_waitcnt vmcnt(0)
	v_cmp_eq_u32_e32 vcc, v3, v1
	s_and_b64 s[6:7], vcc, exec
	s_or_b64 s[2:3], s[2:3], s[6:7]
	v_mov_b32_e32 v1, v3
	s_branch .LBB5_5
.LBB5_8:
	.loc	0 83 1                          ; gcn_kernels.hip:83:1
	s_endpgm
.Ltmp7:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel atomic_ticket
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 296
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 12
		.amdhsa_accum_offset 8
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
.Lfunc_end5:
	.size	atomic_ticket, .Lfunc_end5-atomic_ticket
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 292
; NumSgprs: 18
; NumVgprs: 8
; NumAgprs: 0
; TotalNumVgprs: 8
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 2
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 18
; NumVGPRsForWavesPerEU: 8
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	mfma_tile               ; -- Begin function mfma_tile
	.globl	mfma_tile
	.p2align	8
	.type	mfma_tile,@function
mfma_tile:                              ; @mfma_tile
.Lfunc_begin6:
	.cfi_startproc
; %bb.0:
	.loc	0 90 19 prologue_end            ; gcn_kernels.hip:90:19
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	s_load_dwordx2 s[8:9], s[0:1], 0x10
	.loc	0 90 23 is_stmt 0               ; gcn_kernels.hip:90:23
	v_and_b32_e32 v20, 63, v0
	.loc	0 92 46 is_stmt 1               ; gcn_kernels.hip:92:46
	v_lshlrev_b32_e32 v4, 3, v20
	s_waitcnt lgkmcnt(0)
	global_load_dwordx2 v[0:1], v4, s[4:5]
	.loc	0 92 55 is_stmt 0               ; gcn_kernels.hip:92:55
	global_load_dwordx2 v[2:3], v4, s[6:7]
	.loc	0 93 46 is_stmt 1               ; gcn_kernels.hip:93:46
	global_load_dwordx2 v[16:17], v4, s[4:5] offset:512
	.loc	0 93 60 is_stmt 0               ; gcn_kernels.hip:93:60
	global_load_dwordx2 v[18:19], v4, s[6:7] offset:512
	.loc	0 92 9 is_stmt 1                ; gcn_kernels.hip:92:9
	s_waitcnt vmcnt(2)
	v_mfma_f32_32x32x8_f16 v[0:15], v[0:1], v[2:3], 0
	.loc	0 93 9                          ; gcn_kernels.hip:93:9
	s_waitcnt vmcnt(0)
	v_mfma_f32_32x32x8_f16 v[0:15], v[16:17], v[18:19], v[0:15]
	.loc	0 92 9                          ; gcn_kernels.hip:92:9
	v_mov_b32_e32 v17, 0
	.loc	0 94 14                         ; gcn_kernels.hip:94:14
	v_lshl_or_b32 v16, s2, 6, v20
	.loc	0 94 3 is_stmt 0                ; gcn_kernels.hip:94:3
	v_lshlrev_b64 v[16:17], 6, v[16:17]
	v_lshl_add_u64 v[16:17], s[8:9], 0, v[16:17]
	.loc	0 94 22                         ; gcn_kernels.hip:94:22
	s_nop 6
	global_store_dwordx4 v[16:17], v[12:15], off offset:48
	global_store_dwordx4 v[16:17], v[8:11], off offset:32
	global_store_dwordx4 v[16:17], v[4:7], off offset:16
	global_store_dwordx4 v[16:17], v[0:3], off
	.loc	0 95 1 is_stmt 1                ; gcn_kernels.hip:95:1
	s_endpgm
.Ltmp8:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel mfma_tile
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 21
		.amdhsa_next_free_sgpr 10
		.amdhsa_accum_offset 24
		.amdhsa_reserve_vcc 0
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
.Lfunc_end6:
	.size	mfma_tile, .Lfunc_end6-mfma_tile
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 152
; NumSgprs: 16
; NumVgprs: 21
; NumAgprs: 0
; TotalNumVgprs: 21
; ScratchSize: 0
; MemoryBound: 1
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 2
; NumSGPRsForWavesPerEU: 16
; NumVGPRsForWavesPerEU: 21
; AccumOffset: 24
; Occupancy: 8
; WaveLimiterHint : 1
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 5
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	if_else                 ; -- Begin function if_else
	.globl	if_else
	.p2align	8
	.type	if_else,@function
if_else:                                ; @if_else
.Lfunc_begin7:
	.cfi_startproc
; %bb.0:
	.loc	0 100 11 prologue_end           ; gcn_kernels.hip:100:11
	s_load_dwordx4 s[4:7], s[0:1], 0x0
	.loc	0 100 17 is_stmt 0              ; gcn_kernels.hip:100:17
	s_load_dword s3, s[0:1], 0x24
	.loc	0 100 11                        ; gcn_kernels.hip:100:11
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v2, s4
	.loc	0 100 17                        ; gcn_kernels.hip:100:17
	s_and_b32 s0, s3, 0xffff
	.loc	0 100 15                        ; gcn_kernels.hip:100:15
	s_mul_i32 s2, s2, s0
	.loc	0 100 22                        ; gcn_kernels.hip:100:22
	v_add_u32_e32 v0, s2, v0
	.loc	0 100 11                        ; gcn_kernels.hip:100:11
	v_mov_b32_e32 v3, s5
	.loc	0 101 13 is_stmt 1              ; gcn_kernels.hip:101:13
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshl_add_u64 v[2:3], v[0:1], 2, v[2:3]
	global_load_dword v4, v[2:3], off
	v_lshl_add_u64 v[0:1], v[0:1], 2, s[6:7]
	.loc	0 102 9                         ; gcn_kernels.hip:102:9
	s_waitcnt vmcnt(0)
	v_cmp_nlt_f32_e32 vcc, 0, v4
	.loc	0 102 7 is_stmt 0               ; gcn_kernels.hip:102:7
	s_and_saveexec_b64 s[0:1], vcc
	s_xor_b64 s[0:1], exec, s[0:1]
	s_cbranch_execnz .LBB7_3
; %bb.1:
	s_andn2_saveexec_b64 s[0:1], s[0:1]
	s_cbranch_execnz .LBB7_4
.LBB7_2:
	.loc	0 0 7                           ; gcn_kernels.hip:0:7
	s_or_b64 exec, exec, s[0:1]
	v_mov_b32_e32 v2, 1.0
	.loc	0 107 15 is_stmt 1              ; gcn_kernels.hip:107:15
	global_store_dword v[0:1], v2, off offset:256
	.loc	0 108 1                         ; gcn_kernels.hip:108:1
	s_endpgm
.LBB7_3:
	.loc	0 105 22                        ; gcn_kernels.hip:105:22
	global_load_dword v2, v[2:3], off offset:12
	.loc	0 105 20 is_stmt 0              ; gcn_kernels.hip:105:20
	s_waitcnt vmcnt(0)
	v_sub_f32_e32 v2, v4, v2
	.loc	0 105 16                        ; gcn_kernels.hip:105:16
	global_store_dword v[0:1], v2, off offset:28
                                        ; implicit-def: $vgpr2_vgpr3
                                        ; implicit-def: $vgpr4
	.loc	0 102 7 is_stmt 1               ; gcn_kernels.hip:102:7
	s_andn2_saveexec_b64 s[0:1], s[0:1]
	s_cbranch_execz .LBB7_2
.LBB7_4:
	.loc	0 103 25                        ; gcn_kernels.hip:103:25
	global_load_dword v2, v[2:3], off offset:4
	.loc	0 103 23 is_stmt 0              ; gcn_kernels.hip:103:23
	s_waitcnt vmcnt(0)
	v_fmac_f32_e32 v2, 2.0, v4
	.loc	0 103 12                        ; gcn_kernels.hip:103:12
	global_store_dword v[0:1], v2, off
	s_or_b64 exec, exec, s[0:1]
	v_mov_b32_e32 v2, 1.0
	.loc	0 107 15 is_stmt 1              ; gcn_kernels.hip:107:15
	global_store_dword v[0:1], v2, off offset:256
	.loc	0 108 1                         ; gcn_kernels.hip:108:1
	s_endpgm
.Ltmp9:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel if_else
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 280
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 5
		.amdhsa_next_free_sgpr 8
		.amdhsa_accum_offset 8
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
.Lfunc_end7:
	.size	if_else, .Lfunc_end7-if_else
	.cfi_endproc
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 196
; NumSgprs: 14
; NumVgprs: 5
; NumAgprs: 0
; TotalNumVgprs: 5
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 14
; NumVGPRsForWavesPerEU: 5
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.type	__hip_cuid_48fdf0b1e1620689,@object ; @__hip_cuid_48fdf0b1e1620689
	.section	.bss,"aw",@nobits
	.globl	__hip_cuid_48fdf0b1e1620689
__hip_cuid_48fdf0b1e1620689:
	.byte	0                               ; 0x0
	.size	__hip_cuid_48fdf0b1e1620689, 1

	.section	.debug_abbrev,"",@progbits
	.byte	1                               ; Abbreviation Code
	.byte	17                              ; DW_TAG_compile_unit
	.byte	0                               ; DW_CHILDREN_no
	.byte	37                              ; DW_AT_producer
	.byte	37                              ; DW_FORM_strx1
	.byte	19                              ; DW_AT_language
	.byte	5                               ; DW_FORM_data2
	.byte	3                               ; DW_AT_name
	.byte	37                              ; DW_FORM_strx1
	.byte	114                             ; DW_AT_str_offsets_base
	.byte	23                              ; DW_FORM_sec_offset
	.byte	16                              ; DW_AT_stmt_list
	.byte	23                              ; DW_FORM_sec_offset
	.byte	27                              ; DW_AT_comp_dir
	.byte	37                              ; DW_FORM_strx1
	.byte	17                              ; DW_AT_low_pc
	.byte	27                              ; DW_FORM_addrx
	.byte	18                              ; DW_AT_high_pc
	.byte	6                               ; DW_FORM_data4
	.byte	115                             ; DW_AT_addr_base
	.byte	23                              ; DW_FORM_sec_offset
	.byte	0                               ; EOM(1)
	.byte	0                               ; EOM(2)
	.byte	0                               ; EOM(3)
	.section	.debug_info,"",@progbits
.Lcu_begin0:
	.long	.Ldebug_info_end0-.Ldebug_info_start0 ; Length of Unit
.Ldebug_info_start0:
	.short	5                               ; DWARF version number
	.byte	1                               ; DWARF Unit Type
	.byte	8                               ; Address Size (in bytes)
	.long	.debug_abbrev                   ; Offset Into Abbrev. Section
	.byte	1                               ; Abbrev [1] 0xc:0x17 DW_TAG_compile_unit
	.byte	0                               ; DW_AT_producer
	.short	33                              ; DW_AT_language
	.byte	1                               ; DW_AT_name
	.long	.Lstr_offsets_base0             ; DW_AT_str_offsets_base
	.long	.Lline_table_start0             ; DW_AT_stmt_list
	.byte	2                               ; DW_AT_comp_dir
	.byte	0                               ; DW_AT_low_pc
	.long	.Lfunc_end7-.Lfunc_begin0       ; DW_AT_high_pc
	.long	.Laddr_table_base0              ; DW_AT_addr_base
.Ldebug_info_end0:
	.section	.debug_str_offsets,"",@progbits
	.long	16                              ; Length of String Offsets Set
	.short	5
	.short	0
.Lstr_offsets_base0:
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"Debian clang version 19.1.7 (3~deb12u1)" ; string offset=0
.Linfo_string1:
	.asciz	"gcn_kernels.hip"               ; string offset=40
.Linfo_string2:
	.asciz	"/work/main/tests/corpus/src"   ; string offset=56
	.section	.debug_str_offsets,"",@progbits
	.long	.Linfo_string0
	.long	.Linfo_string1
	.long	.Linfo_string2
	.section	.debug_addr,"",@progbits
	.long	.Ldebug_addr_end0-.Ldebug_addr_start0 ; Length of contribution
.Ldebug_addr_start0:
	.short	5                               ; DWARF version number
	.byte	8                               ; Address size
	.byte	0                               ; Segment selector size
.Laddr_table_base0:
	.quad	.Lfunc_begin0
.Ldebug_addr_end0:
	.ident	"Debian clang version 19.1.7 (3~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym __hip_cuid_48fdf0b1e1620689
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         28
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         32
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         36
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         38
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         40
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         42
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         44
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         46
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         88
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 1024
    .kernarg_segment_align: 8
    .kernarg_segment_size: 280
    .max_flat_workgroup_size: 1024
    .name:           histogram
    .private_segment_fixed_size: 0
    .sgpr_count:     18
    .sgpr_spill_count: 0
    .symbol:         histogram.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         28
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         32
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         36
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         38
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         40
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         42
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         44
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         46
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         88
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 1024
    .kernarg_segment_align: 8
    .kernarg_segment_size: 280
    .max_flat_workgroup_size: 1024
    .name:           block_sum
    .private_segment_fixed_size: 0
    .sgpr_count:     15
    .sgpr_spill_count: 0
    .symbol:         block_sum.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         20
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         28
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         32
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         36
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         38
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         40
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         42
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         44
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         46
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         88
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 280
    .max_flat_workgroup_size: 1024
    .name:           many_exits
    .private_segment_fixed_size: 0
    .sgpr_count:     20
    .sgpr_spill_count: 0
    .symbol:         many_exits.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         28
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         32
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         36
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         38
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         40
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         42
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         44
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         46
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         88
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 280
    .max_flat_workgroup_size: 1024
    .name:           calls
    .private_segment_fixed_size: 0
    .sgpr_count:     39
    .sgpr_spill_count: 0
    .symbol:         calls.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     4
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
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
      - .offset:         40
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         44
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         48
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         52
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         54
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         56
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         58
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         60
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         62
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         88
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         96
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         104
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 296
    .max_flat_workgroup_size: 1024
    .name:           atomic_ticket
    .private_segment_fixed_size: 0
    .sgpr_count:     18
    .sgpr_spill_count: 0
    .symbol:         atomic_ticket.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     8
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
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
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 24
    .max_flat_workgroup_size: 1024
    .name:           mfma_tile
    .private_segment_fixed_size: 0
    .sgpr_count:     16
    .sgpr_spill_count: 0
    .symbol:         mfma_tile.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     21
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         28
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         32
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         36
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         38
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         40
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         42
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         44
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         46
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         64
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         72
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         80
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         88
        .size:           2
        .value_kind:     hidden_grid_dims
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 280
    .max_flat_workgroup_size: 1024
    .name:           if_else
    .private_segment_fixed_size: 0
    .sgpr_count:     14
    .sgpr_spill_count: 0
    .symbol:         if_else.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     5
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
