	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.amdhsa_code_object_version 5
	.text
	.globl	softmax                         ; -- Begin function softmax
	.p2align	8
	.type	softmax,@function
softmax:                                ; @softmax
.Lfunc_begin0:
	.cfi_sections .debug_frame
	.cfi_startproc
; %bb.16:
	.file	1 "/work/main/tests/corpus/src" "triton_kernels.py"
	.loc	1 49 0 prologue_end             ; triton_kernels.py:49:0
	s_load_dwordx2 s[6:7], s[4:5], 0x0
	s_load_dwordx8 s[8:15], s[4:5], 0x8
	s_waitcnt lgkmcnt(0)
	s_branch .LBB0_0
	.loc	1 0 0 is_stmt 0                 ; :0:0
.Ltmp0:
	.p2align	8
; %bb.17:
.LBB0_0:
.Ltmp1:
	.loc	1 54 40 is_stmt 1               ; triton_kernels.py:54:40
	s_cmp_ge_i32 s16, s12
	s_cbranch_scc1 .LBB0_15
; %bb.1:                                ; %.lr.ph
	.loc	1 53 31                         ; triton_kernels.py:53:31
	s_load_dword s17, s[4:5], 0x30
	.loc	1 56 28                         ; triton_kernels.py:56:28
	v_lshlrev_b32_e32 v1, 1, v0
	v_or_b32_e32 v2, 1, v1
	v_lshlrev_b32_e32 v4, 3, v0
	v_bfrev_b32_e32 v5, 1
	.loc	1 57 22                         ; triton_kernels.py:57:22
	v_cmp_gt_i32_e64 s[0:1], s13, v1
	.loc	1 56 28                         ; triton_kernels.py:56:28
	v_and_b32_e32 v3, 63, v0
	v_cndmask_b32_e64 v1, v5, v4, s[0:1]
	v_lshlrev_b32_e32 v4, 2, v2
	.loc	1 57 22                         ; triton_kernels.py:57:22
	v_cmp_gt_i32_e64 s[2:3], s13, v2
	v_cndmask_b32_e64 v2, v5, v4, s[2:3]
	v_cmp_eq_u32_e64 s[4:5], 0, v3
	v_lshrrev_b32_e32 v3, 4, v0
	v_cmp_gt_u32_e64 s[14:15], 8, v0
	v_lshl_add_u32 v4, v0, 2, 0
	v_and_b32_e32 v0, 7, v0
	v_and_b32_e32 v3, 28, v3
	v_cmp_eq_u32_e32 vcc, 0, v0
	v_add_u32_e32 v3, 0, v3
	s_and_b64 s[18:19], s[14:15], vcc
	.loc	1 54 40                         ; triton_kernels.py:54:40
	s_mul_i32 s24, s16, s11
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s13, s17, s11
	s_mul_i32 s26, s16, s10
	s_mul_i32 s28, s17, s10
	s_mov_b32 s23, 0x27000
	s_mov_b32 s22, 0x7ffffffe
	v_mov_b32_e32 v0, 0xff800000
	v_mov_b32_e32 v5, 0
	s_mov_b32 s29, 0xc2fc0000
	v_mov_b32_e32 v6, 0x42800000
	v_not_b32_e32 v7, 63
	s_branch .LBB0_3
.LBB0_2:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	1 0 40 is_stmt 0                ; triton_kernels.py:0:40
	s_or_b64 exec, exec, s[10:11]
.Ltmp2:
	.file	2 "/work/main/.tools/venv/lib/python3.11/site-packages/triton/language" "standard.py"
	.loc	2 293 36 is_stmt 1              ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v10, v5
.Ltmp3:
	.loc	1 62 27                         ; triton_kernels.py:62:27
	s_ashr_i32 s25, s24, 31
	.loc	1 61 18                         ; triton_kernels.py:61:18
	s_waitcnt lgkmcnt(0)
	v_div_scale_f32 v11, s[10:11], v10, v10, v9
	v_rcp_f32_e32 v12, v11
	v_div_scale_f32 v13, vcc, v9, v10, v9
	v_fma_f32 v14, -v11, v12, 1.0
	v_fmac_f32_e32 v12, v14, v12
	v_mul_f32_e32 v14, v13, v12
	v_fma_f32 v15, -v11, v14, v13
	v_fmac_f32_e32 v14, v15, v12
	v_fma_f32 v11, -v11, v14, v13
	v_div_scale_f32 v13, s[10:11], v10, v10, v8
	v_rcp_f32_e32 v15, v13
	v_div_fmas_f32 v11, v11, v12, v14
	v_div_fixup_f32 v9, v11, v10, v9
	.loc	1 62 27                         ; triton_kernels.py:62:27
	s_lshl_b64 s[10:11], s[24:25], 2
	.loc	1 61 18                         ; triton_kernels.py:61:18
	v_fma_f32 v11, -v13, v15, 1.0
	v_fmac_f32_e32 v15, v11, v15
	v_div_scale_f32 v11, vcc, v8, v10, v8
	v_mul_f32_e32 v12, v11, v15
	v_fma_f32 v14, -v13, v12, v11
	v_fmac_f32_e32 v12, v14, v15
	.loc	1 62 27                         ; triton_kernels.py:62:27
	s_add_u32 s20, s6, s10
	.loc	1 61 18                         ; triton_kernels.py:61:18
	v_fma_f32 v11, -v13, v12, v11
	.loc	1 62 27                         ; triton_kernels.py:62:27
	s_addc_u32 s10, s7, s11
	.loc	1 61 18                         ; triton_kernels.py:61:18
	v_div_fmas_f32 v11, v11, v15, v12
	.loc	1 62 56                         ; triton_kernels.py:62:56
	s_and_b32 s21, s10, 0xffff
	.loc	1 54 40                         ; triton_kernels.py:54:40
	s_add_i32 s16, s16, s17
	s_add_i32 s24, s24, s13
	s_add_i32 s26, s26, s28
	.loc	1 61 18                         ; triton_kernels.py:61:18
	v_div_fixup_f32 v8, v11, v10, v8
	.loc	1 54 40                         ; triton_kernels.py:54:40
	s_cmp_lt_i32 s16, s12
	.loc	1 62 56                         ; triton_kernels.py:62:56
	buffer_store_dword v9, v1, s[20:23], 0 offen
	buffer_store_dword v8, v2, s[20:23], 0 offen
	.loc	1 54 40                         ; triton_kernels.py:54:40
	s_cbranch_scc0 .LBB0_15
.LBB0_3:                                ; =>This Inner Loop Header: Depth=1
	.loc	1 55 27                         ; triton_kernels.py:55:27
	s_ashr_i32 s27, s26, 31
	s_lshl_b64 s[10:11], s[26:27], 2
	s_add_u32 s20, s8, s10
	s_addc_u32 s10, s9, s11
	.loc	1 58 20                         ; triton_kernels.py:58:20
	s_and_b32 s21, s10, 0xffff
	buffer_load_dword v8, v1, s[20:23], 0 offen
	buffer_load_dword v9, v2, s[20:23], 0 offen
.Ltmp4:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
.Ltmp5:
	.loc	1 58 20                         ; triton_kernels.py:58:20
	s_waitcnt vmcnt(1)
	v_cndmask_b32_e64 v8, v0, v8, s[0:1]
	s_waitcnt vmcnt(0)
	v_cndmask_b32_e64 v9, v0, v9, s[2:3]
.Ltmp6:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v10, v9, v9
	v_max_f32_e32 v11, v8, v8
	v_max_f32_e32 v10, v11, v10
.Ltmp7:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp8:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp9:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shr:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp10:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp11:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp12:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp13:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp14:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp15:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 row_bcast:15 row_mask:0xa bank_mask:0xf bound_ctrl:1
.Ltmp16:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp17:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_nop 1
	v_mov_b32_dpp v11, v10 row_bcast:31 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp18:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp19:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	v_readlane_b32 s20, v10, 63
	s_and_saveexec_b64 s[10:11], s[4:5]
; %bb.4:                                ;   in Loop: Header=BB0_3 Depth=1
	v_mov_b32_e32 v10, s20
	ds_write_b32 v3, v10
; %bb.5:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 40 is_stmt 0                ; standard.py:0:40
	s_or_b64 exec, exec, s[10:11]
	v_mov_b32_e32 v10, 0
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_and_saveexec_b64 s[10:11], s[14:15]
; %bb.6:                                ;   in Loop: Header=BB0_3 Depth=1
	ds_read_b32 v10, v4
; %bb.7:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 40                          ; standard.py:0:40
	s_or_b64 exec, exec, s[10:11]
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 row_shr:4 row_mask:0xf bank_mask:0xa
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shl:4 row_mask:0xf bank_mask:0x5
.Ltmp20:
	.loc	2 170 27 is_stmt 1              ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v10
	v_max_f32_e32 v10, v10, v11
.Ltmp21:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf
.Ltmp22:
	.loc	2 170 27                        ; standard.py:170:27 @[ standard.py:191:40 @[ triton_kernels.py:59:23 ] ]
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v11
.Ltmp23:
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	s_and_saveexec_b64 s[10:11], s[18:19]
; %bb.8:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 40 is_stmt 0                ; standard.py:0:40
	v_max_f32_e32 v11, v11, v11
	v_max_f32_e32 v10, v10, v10
	v_max_f32_e32 v10, v10, v11
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	ds_write_b32 v4, v10
; %bb.9:                                ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 40                          ; standard.py:0:40
	s_or_b64 exec, exec, s[10:11]
	.loc	2 191 40                        ; standard.py:191:40 @[ triton_kernels.py:59:23 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
	ds_read_b32 v10, v5
.Ltmp24:
	.loc	2 293 36 is_stmt 1              ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
.Ltmp25:
	.loc	1 59 16                         ; triton_kernels.py:59:16
	v_sub_f32_e32 v8, v8, v10
	v_sub_f32_e32 v9, v9, v10
	.loc	1 60 21                         ; triton_kernels.py:60:21
	v_mul_f32_e32 v10, 0x3fb8aa3b, v8
	v_cmp_gt_f32_e32 vcc, s29, v10
	v_cndmask_b32_e32 v10, 0, v6, vcc
	v_fmac_f32_e32 v10, 0x3fb8aa3b, v8
	v_exp_f32_e32 v8, v10
	v_mul_f32_e32 v10, 0x3fb8aa3b, v9
	v_cmp_gt_f32_e64 s[10:11], s29, v10
	v_cndmask_b32_e64 v10, 0, v6, s[10:11]
	v_fmac_f32_e32 v10, 0x3fb8aa3b, v9
	v_exp_f32_e32 v10, v10
	v_cndmask_b32_e32 v9, 0, v7, vcc
	v_ldexp_f32 v9, v8, v9
	v_cndmask_b32_e64 v8, 0, v7, s[10:11]
	v_ldexp_f32 v8, v10, v8
.Ltmp26:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:61:25 ] ]
	v_add_f32_e32 v10, v9, v8
	s_nop 1
	v_add_f32_dpp v10, v10, v10 row_shr:8 row_mask:0xf bank_mask:0xf bound_ctrl:1
	s_nop 1
	v_add_f32_dpp v10, v10, v10 row_shr:4 row_mask:0xf bank_mask:0xf bound_ctrl:1
	s_nop 1
	v_add_f32_dpp v10, v10, v10 row_shr:2 row_mask:0xf bank_mask:0xf bound_ctrl:1
	s_nop 1
	v_add_f32_dpp v10, v10, v10 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp27:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 row_bcast:15 row_mask:0xa bank_mask:0xf bound_ctrl:1
.Ltmp28:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:61:25 ] ]
	v_add_f32_e32 v10, v11, v10
	s_nop 1
	v_add_f32_dpp v10, v10, v10 row_bcast:31 row_mask:0xf bank_mask:0xf bound_ctrl:1
.Ltmp29:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	v_readlane_b32 s20, v10, 63
	s_and_saveexec_b64 s[10:11], s[4:5]
; %bb.10:                               ;   in Loop: Header=BB0_3 Depth=1
	v_mov_b32_e32 v10, s20
	ds_write_b32 v3, v10
; %bb.11:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 36 is_stmt 0                ; standard.py:0:36
	s_or_b64 exec, exec, s[10:11]
	v_mov_b32_e32 v10, 0
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	s_waitcnt lgkmcnt(0)
	s_barrier
	s_and_saveexec_b64 s[10:11], s[14:15]
; %bb.12:                               ;   in Loop: Header=BB0_3 Depth=1
	ds_read_b32 v10, v4
; %bb.13:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 36                          ; standard.py:0:36
	s_or_b64 exec, exec, s[10:11]
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 row_shr:4 row_mask:0xf bank_mask:0xa
	s_nop 1
	v_mov_b32_dpp v11, v10 row_shl:4 row_mask:0xf bank_mask:0x5
.Ltmp30:
	.loc	2 263 15 is_stmt 1              ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:61:25 ] ]
	v_add_f32_e32 v10, v10, v11
.Ltmp31:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 quad_perm:[2,3,0,1] row_mask:0xf bank_mask:0xf
.Ltmp32:
	.loc	2 263 15                        ; standard.py:263:15 @[ standard.py:293:36 @[ triton_kernels.py:61:25 ] ]
	v_add_f32_e32 v10, v10, v11
.Ltmp33:
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	v_mov_b32_e32 v11, v10
	s_nop 1
	v_mov_b32_dpp v11, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
	s_and_saveexec_b64 s[10:11], s[18:19]
	s_cbranch_execz .LBB0_2
; %bb.14:                               ;   in Loop: Header=BB0_3 Depth=1
	.loc	2 0 36 is_stmt 0                ; standard.py:0:36
	v_add_f32_e32 v10, v10, v11
	.loc	2 293 36                        ; standard.py:293:36 @[ triton_kernels.py:61:25 ]
	ds_write_b32 v4, v10
	s_branch .LBB0_2
.Ltmp34:
.LBB0_15:                               ; %._crit_edge
	.loc	1 54 4 is_stmt 1                ; triton_kernels.py:54:4
	s_endpgm
.Ltmp35:
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel softmax
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 304
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
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 16
		.amdhsa_next_free_sgpr 30
		.amdhsa_accum_offset 16
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
	.size	softmax, .Lfunc_end0-softmax
	.cfi_endproc
                                        ; -- End function
	.set softmax.num_vgpr, 16
	.set softmax.num_agpr, 0
	.set softmax.numbered_sgpr, 30
	.set softmax.num_named_barrier, 0
	.set softmax.private_seg_size, 0
	.set softmax.uses_vcc, 1
	.set softmax.uses_flat_scratch, 0
	.set softmax.has_dyn_sized_stack, 0
	.set softmax.has_recursion, 0
	.set softmax.has_indirect_call, 0
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 1416
; TotalNumSgprs: 34
; NumVgprs: 16
; NumAgprs: 0
; TotalNumVgprs: 16
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 4
; VGPRBlocks: 1
; NumSGPRsForWavesPerEU: 34
; NumVGPRsForWavesPerEU: 16
; AccumOffset: 16
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 16
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 3
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
	.byte	5                               ; DW_FORM_data2
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
	.byte	11                              ; DW_FORM_data1
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
	.byte	4                               ; Abbrev [4] 0x41:0x1a DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges0                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	61                              ; DW_AT_call_line
	.byte	25                              ; DW_AT_call_column
	.byte	5                               ; Abbrev [5] 0x4d:0xd DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges1                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.short	293                             ; DW_AT_call_line
	.byte	36                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	4                               ; Abbrev [4] 0x5b:0x19 DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges2                 ; DW_AT_ranges
	.byte	1                               ; DW_AT_call_file
	.byte	59                              ; DW_AT_call_line
	.byte	23                              ; DW_AT_call_column
	.byte	6                               ; Abbrev [6] 0x67:0xc DW_TAG_inlined_subroutine
	.long	42                              ; DW_AT_abstract_origin
	.long	.Ldebug_ranges3                 ; DW_AT_ranges
	.byte	2                               ; DW_AT_call_file
	.byte	191                             ; DW_AT_call_line
	.byte	40                              ; DW_AT_call_column
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
	.byte	0                               ; End Of Children Mark
.Ldebug_info_end0:
	.section	.debug_ranges,"",@progbits
.Ldebug_ranges0:
	.quad	.Ltmp2-.Lfunc_begin0
	.quad	.Ltmp3-.Lfunc_begin0
	.quad	.Ltmp24-.Lfunc_begin0
	.quad	.Ltmp25-.Lfunc_begin0
	.quad	.Ltmp26-.Lfunc_begin0
	.quad	.Ltmp34-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges1:
	.quad	.Ltmp26-.Lfunc_begin0
	.quad	.Ltmp27-.Lfunc_begin0
	.quad	.Ltmp28-.Lfunc_begin0
	.quad	.Ltmp29-.Lfunc_begin0
	.quad	.Ltmp30-.Lfunc_begin0
	.quad	.Ltmp31-.Lfunc_begin0
	.quad	.Ltmp32-.Lfunc_begin0
	.quad	.Ltmp33-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges2:
	.quad	.Ltmp4-.Lfunc_begin0
	.quad	.Ltmp5-.Lfunc_begin0
	.quad	.Ltmp6-.Lfunc_begin0
	.quad	.Ltmp24-.Lfunc_begin0
	.quad	0
	.quad	0
.Ldebug_ranges3:
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
	.asciz	"softmax"                       ; string offset=53
	.section	".note.GNU-stack","",@progbits
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
      - .offset:         20
        .size:           4
        .value_kind:     by_value
      - .offset:         24
        .size:           4
        .value_kind:     by_value
      - .offset:         28
        .size:           4
        .value_kind:     by_value
      - .address_space:  global
        .offset:         32
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         40
        .size:           8
        .value_kind:     global_buffer
      - .offset:         48
        .size:           4
        .value_kind:     hidden_block_count_x
      - .offset:         52
        .size:           4
        .value_kind:     hidden_block_count_y
      - .offset:         56
        .size:           4
        .value_kind:     hidden_block_count_z
      - .offset:         60
        .size:           2
        .value_kind:     hidden_group_size_x
      - .offset:         62
        .size:           2
        .value_kind:     hidden_group_size_y
      - .offset:         64
        .size:           2
        .value_kind:     hidden_group_size_z
      - .offset:         66
        .size:           2
        .value_kind:     hidden_remainder_x
      - .offset:         68
        .size:           2
        .value_kind:     hidden_remainder_y
      - .offset:         70
        .size:           2
        .value_kind:     hidden_remainder_z
      - .offset:         88
        .size:           8
        .value_kind:     hidden_global_offset_x
      - .offset:         96
        .size:           8
        .value_kind:     hidden_global_offset_y
      - .offset:         104
        .size:           8
        .value_kind:     hidden_global_offset_z
      - .offset:         112
        .size:           2
        .value_kind:     hidden_grid_dims
      - .offset:         168
        .size:           4
        .value_kind:     hidden_dynamic_lds_size
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 304
    .max_flat_workgroup_size: 512
    .name:           softmax
    .private_segment_fixed_size: 0
    .sgpr_count:     34
    .sgpr_spill_count: 0
    .symbol:         softmax.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     16
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
