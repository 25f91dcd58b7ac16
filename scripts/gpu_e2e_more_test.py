"""Tests of scripts/gpu_e2e_more.py's pure helpers (no GPU): python3 scripts/gpu_e2e_more_test.py

The ncu samples follow Nsight Compute's documented `--csv` layout (details page: a header,
then one row per profiled kernel and metric; the columns between "Kernel Name" and
"Section Name" vary by version; values may carry thousands separators) and are made here,
not captured from a GPU.
"""
import json
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "workloads"))
import coalescing as co  # noqa: E402  (its model needs neither CuPy nor NumPy)
import gpu_e2e_more as m  # noqa: E402

NCU_NEW = '''==PROF== Connected to process 4242 (/work/.gpu/nvcc_app)
==PROF== Profiling "block_sum" - 0: 0%....50%....100% - 1 pass
==PROF== Profiling "scale_add" - 1: 0%....50%....100% - 1 pass
nvcc_app: n=1048576 blocks=4096 checksum=524124.283356 y[7]=1.096704
==PROF== Disconnected from process 4242
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","4242","nvcc_app","127.0.0.1","block_sum","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum","byte","4,194,304"
"0","4242","nvcc_app","127.0.0.1","block_sum","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","launch__grid_size","","4,096"
"0","4242","nvcc_app","127.0.0.1","block_sum","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","sm__ctas_launched.sum","block","4,096"
"1","4242","nvcc_app","127.0.0.1","scale_add","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum","byte","8,388,608"
"1","4242","nvcc_app","127.0.0.1","scale_add","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","launch__grid_size","","4,096"
"1","4242","nvcc_app","127.0.0.1","scale_add","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","Command line profiler metrics","sm__ctas_launched.sum","block","4,096"
'''

# An older layout (Kernel Time, no Block/Grid Size), auto-scaled units, out-of-order IDs,
# a repeated header and the traced program's JSON line in between.
NCU_OLD = '''{"launches": [{"kernel": "vector_add", "n": 1000003}]}
"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"
"3","77","python3","host","vector_add","2026-Nov-21 10:00:00","1","13","Command line profiler metrics","l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum","Mbyte","8.39"
"3","77","python3","host","vector_add","2026-Nov-21 10:00:00","1","13","Command line profiler metrics","launch__grid_size","","1,024"
"ID","Process ID","Process Name","Host Name","Kernel Name","Kernel Time","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"
"2","77","python3","host","vector_add","2026-Nov-21 10:00:00","1","13","Command line profiler metrics","l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum","byte","32,000,192"
"2","77","python3","host","vector_add","2026-Nov-21 10:00:00","1","13","Command line profiler metrics","sm__ctas_launched.sum","block","n/a"
'''

NCU_PERM = '''==PROF== Connected to process 4242 (/work/.gpu/nvcc_app)
==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM
nvcc_app: n=1048576 blocks=4096 checksum=524124.283356 y[7]=1.096704
==PROF== Disconnected from process 4242
==WARNING== No kernels were profiled.
'''

NUMBA = ("numba_kernels::saxpy[abi:v1][abi:cw51cXTLSUwv1sDUaKthqaNgoKmjgMVuW1AiA8rAEg2UjxRKtuAIAMYDWpKAqkSk"
         "PiQB1BQFk0DyoW21Oizc1a0UoPGnDpQE8oxrNQE_3d](Array<float, 1, C, mutable, aligned>, Array<float, 1, C, "
         "mutable, aligned>, Array<float, 1, C, mutable, aligned>, float, int)")

STDERR_V = f'''warptrace: instrumented module JIT-compiled (3 kernels)
warptrace: 4 kernels instrumented, 2 skipped (no PTX: 2), 60 launches probed, 5 unprobed (skipped kernels: 2, graph capture: 3)
warptrace:   pid 10: 2 kernels instrumented, 1 skipped (no PTX: 1), 20 launches probed, 2 unprobed (skipped kernels: 1, graph capture: 1)
warptrace:   pid 11: 2 kernels instrumented, 1 skipped (no PTX: 1), 40 launches probed, 3 unprobed (skipped kernels: 1, graph capture: 2)
warptrace: module cache: 0 hits, 2 misses, 2 written, 0 write failures; JIT 80.0 ms
warptrace:   triton_poi_fused_add_0: instrumented, 2 sites; 20 launches probed, 1 unprobed
warptrace:   {NUMBA}: instrumented, 5 sites; 1 launches probed, 0 unprobed
warptrace:   nvjet_hsh_128x64_64x4_1x2_h_bz_coopA_NTN: skipped: no PTX: ELF without .nv_debug_ptx_txt; 0 launches probed, 40 unprobed
warptrace:   pid 10:
warptrace:     triton_poi_fused_add_0: instrumented, 2 sites; 10 launches probed, 0 unprobed
'''

JSON_OUT = '''{"vector_add": {"blocks": 977, "grids": [293, 684]}, "pids": {"parent": 10, "children": [11, 12]}, "start_method": "spawn"}
{"type": "map", "data": {"@blocks": {"vector_add": 977, "void at::native::elementwise_kernel<128, 4>(int, at::native::X)": 3}}}
{"type": "map", "data": {"@n": 5}}
{"type": "summary", "data": {"pids": [10, 11, 12, 13], "kernels_instrumented": 2, "kernels_skipped": 0, "launches_probed": 2, "launches_unprobed": 0, "launches_lost": 0, "reasons": {}, "processes": [{"pid": 10, "launches_probed": 0}, {"pid": 11, "launches_probed": 1}, {"pid": 12, "launches_probed": 1}, {"pid": 13, "launches_probed": 0}]}}
'''


class Ncu(unittest.TestCase):
    def test_new_layout(self):
        rows = m.parse_ncu_csv(NCU_NEW)
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows[0]["Block Size"], "(256, 1, 1)")  # quoted commas stay in the cell
        res = m.ncu_results(rows)
        self.assertEqual([(r["id"], r["kernel"]) for r in res], [(0, "block_sum"), (1, "scale_add")])
        self.assertEqual(res[0]["metrics"], {"l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum": 4194304,
                                             "launch__grid_size": 4096, "sm__ctas_launched.sum": 4096})
        self.assertEqual(res[1]["metrics"]["l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"], 8388608)
        self.assertIsNone(m.ncu_error(NCU_NEW))

    def test_old_layout_units_and_order(self):
        res = m.ncu_results(m.parse_ncu_csv(NCU_OLD))
        self.assertEqual([r["id"] for r in res], [2, 3])
        self.assertEqual(res[0]["metrics"]["l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"], 32000192)
        self.assertIsNone(res[0]["metrics"]["sm__ctas_launched.sum"])
        self.assertEqual(res[1]["metrics"]["l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum"], 8390000)
        self.assertEqual(res[1]["metrics"]["launch__grid_size"], 1024)

    def test_numbers(self):
        self.assertEqual(m.ncu_number("4,194,304", "byte"), 4194304)
        self.assertEqual(m.ncu_number("4.19", "Mbyte"), 4190000)
        self.assertEqual(m.ncu_number("1,024.5", ""), 1024.5)
        self.assertEqual(m.ncu_number(" 12 ", "sector"), 12)
        self.assertEqual(m.ncu_number("2", "Ksector"), 2000)
        self.assertEqual(m.ncu_number("3", "Mega"), 3)  # not a prefixed base unit: unscaled
        self.assertIsNone(m.ncu_number("n/a", "byte"))
        self.assertIsNone(m.ncu_number("", ""))

    def test_errors(self):
        self.assertEqual(m.parse_ncu_csv(NCU_PERM), [])
        self.assertIn("ERR_NVGPUCTRPERM", m.ncu_error(NCU_PERM))
        self.assertIn("No kernels were profiled", m.ncu_error("==WARNING== No kernels were profiled.\n"))
        self.assertEqual(m.parse_ncu_csv("no csv here\n"), [])

    def test_base_name(self):
        self.assertEqual(m.base_name("block_sum(float const*, float*, int)"), "block_sum")
        self.assertEqual(m.base_name("block_sum"), "block_sum")
        self.assertEqual(m.base_name("void ns::k<int, 4>(int)"), "k")
        self.assertEqual(m.base_name(NUMBA), "saxpy[abi:v1][abi:cw51cXTLSUwv1sDUaKthqaNgoKmjgMVuW1AiA8rAEg2UjxRKtuAIAMYD"
                                             "WpKAqkSkPiQB1BQFk0DyoW21Oizc1a0UoPGnDpQE8oxrNQE_3d]")


    def test_entries_and_ncu_of_match_by_base_name(self):
        maps = {"ld": {"block_sum(float const*, float*, int)": 4, "scale_add(float)": 8}}
        self.assertEqual(m.entries(maps, "ld", "block_sum"), [4])
        self.assertEqual(m.entries(maps, "st", "block_sum"), [])
        results = [{"kernel": "block_sum", "id": 0}, {"kernel": "void ns::block_sum<1>(int)", "id": 1},
                   {"kernel": "scale_add", "id": 2}]
        self.assertEqual([r["id"] for r in m.ncu_of(results, "block_sum")], [0, 1])


class Graphs(unittest.TestCase):
    def test_graph_nodes_from_the_summary_line(self):
        line = ("warptrace: 3 kernels instrumented, 2 skipped (no PTX: 2), 64 launches probed (replays "
                "included, of 3 probed kernel nodes in CUDA graphs), 5 unprobed\n")
        self.assertEqual(m.graph_nodes(line), 3)
        self.assertEqual(m.graph_nodes(line.replace("3 probed kernel nodes", "1 probed kernel node")), 1)
        self.assertEqual(m.graph_nodes("warptrace: 1 kernel instrumented, 0 skipped, 4 launches probed, 0 unprobed"),
                         0)


class Features(unittest.TestCase):
    def test_flops_from_sass_counts(self):
        fadd, fmul, ffma = m.FLOP_METRICS
        self.assertEqual(m.sass_flops({fadd: 10, fmul: 3, ffma: 4}), 21)
        self.assertIsNone(m.sass_flops({fadd: 10, fmul: 3}))

    def test_one_entry_of_a_kernel(self):
        maps = {"m": {"k": 3, "other": 4}, "dup": {"k": 1, "k(int)": 2}}
        self.assertEqual(m.one_entry(maps, "m", "k"), 3)
        self.assertIsNone(m.one_entry(maps, "dup", "k"))
        self.assertIsNone(m.one_entry(maps, "absent", "k"))

    def test_sass_memory_sums_every_memory_op(self):
        metrics = {k: i + 1 for i, k in enumerate(m.SASS_MEM_METRICS)}
        n = len(m.SASS_MEM_METRICS)
        self.assertEqual(m.sass_memory(metrics), n * (n + 1) // 2)
        del metrics[m.SASS_MEM_METRICS[0]]
        self.assertIsNone(m.sass_memory(metrics))

    def test_nvcc_expectations_follow_the_kernels(self):
        blocks = m.N // 256
        self.assertEqual(m.NVCC_FEATURES["block_sum"]["flops_f32"], sum(128 >> k for k in range(8)) * blocks)
        self.assertEqual(m.NVCC_FEATURES["block_sum"]["barriers"], (1 + 8) * 8 * blocks)
        self.assertEqual(m.NVCC_FEATURES["scale_add"]["flops_f32"], 2 * m.N)


class Sectors(unittest.TestCase):
    def test_requests(self):
        coalesced = [(4 * lane, 4) for lane in range(32)]
        self.assertEqual(m.l1_sector_bytes([coalesced]), 128)
        self.assertEqual(m.l1_sector_bytes([[(a + 4, s) for a, s in coalesced]]), 160)  # misaligned: 5 sectors
        self.assertEqual(m.l1_sector_bytes([[(16 * lane, 4) for lane in range(32)]]), 512)  # 16-byte stride
        self.assertEqual(m.l1_sector_bytes([[(16 * lane, 16) for lane in range(32)]]), 512)  # vector: all used
        self.assertEqual(m.l1_sector_bytes([[(0, 4)] * 32]), 32)  # one sector, shared by every lane
        self.assertEqual(m.l1_sector_bytes([[], coalesced]), 128)  # a fully masked request issues nothing
        self.assertEqual(m.l1_sector_bytes([[(30, 4)]]), 64)  # straddles two sectors

    def test_vector_add_layout_reads_each_element_once(self):
        for n, vector in ((1_000_003, False), (1 << 20, True), (5000, False), (4096, True)):
            reqs = list(m.triton_vector_add_requests(n, vector=vector))
            addrs = sorted(a for r in reqs for a, s in r for a in range(a, a + s, 4))
            self.assertEqual(addrs, list(range(0, 4 * n, 4)), n)

    def test_vector_add_ncu_bytes(self):
        # By hand, n = 1_000_003 (976 full blocks + 579 elements), per array: a full block
        # issues 2 passes x 4 warps x 4 scalar loads, each touching 16 sectors (lanes 16
        # bytes apart): 512 sectors; the last block's first pass is full (256 sectors), its
        # second has 67 elements: threads 0-15 all four (8 sectors a load), thread 16 three
        # (9 sectors for j = 0, 1, 2): 35 sectors. (976 * 512 + 256 + 35) * 32 * 2 arrays.
        self.assertEqual(m.vector_add_ncu_bytes(1_000_003), (976 * 512 + 256 + 35) * 32 * 2)
        self.assertEqual(m.vector_add_ncu_bytes(1_000_003), 32_000_192)
        # Vector loads on 2^20 floats: every sector whole, once: ncu = the bytes read.
        self.assertEqual(m.vector_add_ncu_bytes(1 << 20), 2 * 4 * (1 << 20))


class CoalescingModel(unittest.TestCase):
    """tests/workloads/coalescing.py's model of the probes' `sectors` and `wavefronts`."""

    def test_sectors(self):
        self.assertEqual(co.sectors([4 * lane for lane in range(32)]), 4)  # 128 aligned bytes
        self.assertEqual(co.sectors([4 + 4 * lane for lane in range(32)]), 5)  # misaligned
        self.assertEqual(co.sectors([4 * 2 * lane for lane in range(32)]), 8)
        self.assertEqual(co.sectors([4 * 8 * lane for lane in range(32)]), 32)  # a sector a lane
        self.assertEqual(co.sectors([4 * 32 * lane for lane in range(32)]), 32)
        self.assertEqual(co.sectors([4096] * 32), 1)  # broadcast
        self.assertEqual(co.sectors([16 * lane for lane in range(32)]), 16)  # float4: 512 bytes

    def test_wavefronts_4_bytes(self):
        words = lambda stride: [4 * stride * lane for lane in range(32)]  # noqa: E731
        self.assertEqual(co.wavefronts(words(1), 4), 1)
        self.assertEqual(co.wavefronts(words(2), 4), 2)
        self.assertEqual(co.wavefronts(words(4), 4), 4)
        self.assertEqual(co.wavefronts(words(32), 4), 32)
        self.assertEqual(co.wavefronts(words(33), 4), 1)  # odd stride: every bank once
        self.assertEqual(co.wavefronts([0] * 32, 4), 1)  # broadcast
        self.assertEqual(co.wavefronts([4 * (lane % 2) * 32 for lane in range(32)], 4), 2)  # two words, bank 0
        self.assertEqual(co.wavefronts([1, 2, 3], 1), 1)  # bytes of one word: unit 4
        self.assertEqual(co.wavefronts([], 4), 0)

    def test_wavefronts_wide(self):
        self.assertEqual(co.wavefronts([8 * lane for lane in range(32)], 8), 2)
        self.assertEqual(co.wavefronts([8 * (lane ^ 1) for lane in range(32)], 8), 2)
        self.assertEqual(co.wavefronts([16 * lane for lane in range(32)], 16), 4)
        self.assertEqual(co.wavefronts([16 * 8 * lane for lane in range(32)], 16), 32)  # one group of 8
        self.assertEqual(co.wavefronts([16] * 32, 16), 1)

    def test_conflicts(self):
        self.assertEqual(co.conflicts([4 * lane for lane in range(32)], 4), 0)
        self.assertEqual(co.conflicts([4 * 32 * lane for lane in range(32)], 4), 31)
        self.assertEqual(co.conflicts([4 * 2 * lane for lane in range(32)], 4), 1)
        self.assertEqual(co.conflicts([0] * 32, 4), 0)
        self.assertEqual(co.conflicts([8 * lane for lane in range(32)], 8), 0)  # 2 wavefronts, both needed
        self.assertEqual(co.conflicts([16 * lane for lane in range(32)], 16), 0)

    def test_totals_over_warps(self):
        addrs = [4 * i for i in range(64)]  # two warps, coalesced
        self.assertEqual(co.totals([(addrs, 4)], lambda lanes, size: co.sectors(lanes)), (8, 2))
        self.assertEqual(co.totals([(addrs, 4), (addrs, 4)], co.wavefronts), (4, 4))

    def test_expectations(self):
        # 64 warps (2048 threads); arrays 512-byte aligned, as CuPy's pool gives them.
        idx = [(k * 977) % co.A_LEN for k in range(co.N)]
        e = co.expectations(1 << 20, 2 << 20, 3 << 20, idx, 4 << 20)
        self.assertEqual(sorted(e), sorted(co.KERNELS))
        coalesced = {"st_sectors": 64 * 4, "st_requests": 64}
        for s, sec in ((1, 4), (2, 8), (4, 16), (8, 32), (32, 32)):
            self.assertEqual(e[f"co_ld_stride{s}"], {"ld_sectors": 64 * sec, "ld_requests": 64, **coalesced})
        self.assertEqual(e["co_ld_float4"]["ld_sectors"], 64 * 16)
        self.assertEqual(e["co_ld_double"]["ld_sectors"], 64 * 8)
        self.assertEqual(e["co_ld_broadcast"]["ld_sectors"], 64)
        # idx[i] * 4 bytes apart by 977 words: every lane its own sector; plus the idx load.
        self.assertEqual(e["co_ld_gather"], {"ld_sectors": 64 * (4 + 32), "ld_requests": 128, **coalesced})
        self.assertEqual(e["co_st_stride8"], {"ld_sectors": 256, "ld_requests": 64, "st_sectors": 64 * 32,
                                              "st_requests": 64})
        fill = {"sh_st_wavefronts": 4 * 64, "sh_st_requests": 4 * 64, "sh_st_conflicts": 0}
        for s in (1, 2, 4, 32):
            k = e[f"co_sh_stride{s}"]
            self.assertEqual((k["sh_ld_wavefronts"], k["sh_ld_requests"], k["sh_ld_conflicts"]),
                             (64 * s, 64, 64 * (s - 1)), s)
            self.assertEqual({q: k[q] for q in fill}, fill)
            self.assertEqual((k["ld_sectors"], k["st_sectors"]), (256, 256))
        self.assertEqual(e["co_sh_broadcast"]["sh_ld_wavefronts"], 64)
        d = e["co_sh_double"]
        self.assertEqual((d["sh_ld_wavefronts"], d["sh_st_wavefronts"], d["sh_ld_requests"], d["ld_sectors"]),
                         (128, 128, 64, 512))
        f = e["co_sh_float4"]
        self.assertEqual((f["sh_ld_wavefronts"], f["sh_st_wavefronts"], f["sh_ld_conflicts"]), (256, 256, 0))
        t = e["co_sh_st_stride32"]
        self.assertEqual((t["sh_st_wavefronts"], t["sh_st_requests"], t["sh_st_conflicts"], t["sh_ld_wavefronts"]),
                         (4 * 64 * 32, 256, 4 * 64 * 31, 64))
        self.assertNotIn("sh_ld_wavefronts", e["co_ld_stride1"])

    def test_source_defines_every_kernel(self):
        for k in co.KERNELS:
            self.assertTrue(f"void {k}(" in co.SOURCE or f"({k}," in co.SOURCE, k)


class CoalescingRows(unittest.TestCase):
    TEXT = ("co_sh_stride2 done\n\n"
            "@ld_sectors[co_ld_stride2, 0, 5]: 512\n@ld_requests[co_ld_stride2, 0, 5]: 64\n"
            "@st_sectors[co_ld_stride2, 0, 9]: 256\n@st_requests[co_ld_stride2, 0, 9]: 64\n"
            "@ld_sectors[co_sh_stride2, 0, 4]: 256\n@ld_requests[co_sh_stride2, 0, 4]: 64\n"
            "@st_sectors[co_sh_stride2, 0, 20]: 200\n@st_sectors[co_sh_stride2, 3, 21]: 56\n"
            "@st_requests[co_sh_stride2, 0, 20]: 32\n@st_requests[co_sh_stride2, 3, 21]: 32\n"
            "@ld_sectors[k(float const*, int), 12, 7]: 10\n")
    EXPECT = {"co_ld_stride2": {"ld_sectors": 512, "ld_requests": 64, "st_sectors": 256, "st_requests": 64},
              "co_sh_stride2": {"ld_sectors": 256, "ld_requests": 64, "st_sectors": 256, "st_requests": 64,
                                "sh_ld_wavefronts": 128, "sh_ld_requests": 64, "sh_ld_conflicts": 64,
                                "sh_st_wavefronts": 256, "sh_st_requests": 256, "sh_st_conflicts": 0}}

    def test_key_kernel(self):
        self.assertEqual(m.key_kernel("co_ld_gather, 0, 12", 3), "co_ld_gather")
        self.assertEqual(m.key_kernel("block_sum(float const*, float*, int), 41, 7", 3),
                         "block_sum(float const*, float*, int)")
        self.assertEqual(m.key_kernel("block_sum(float const*, float*, int)", 1), "block_sum(float const*, float*, int)")

    def test_kernel_totals(self):
        maps = m.parse_maps(self.TEXT)
        self.assertEqual(m.kernel_totals(maps, "st_sectors"), {"co_ld_stride2": 256, "co_sh_stride2": 256})
        self.assertEqual(m.kernel_totals(maps, "ld_sectors"), {"co_ld_stride2": 512, "co_sh_stride2": 256, "k": 10})
        self.assertEqual(m.kernel_totals(maps, "ld_wavefronts"), {})

    def test_probe_rows(self):
        maps = m.parse_maps(self.TEXT)
        rows = m.coalescing_rows("uncoalesced", self.EXPECT, maps)
        self.assertEqual([(r[1], r[3], r[4], r[5]) for r in rows],
                         [("co_ld_stride2", "512 / 64 / 256 / 64", "512 / 64 / 256 / 64", True),
                          ("co_sh_stride2", "256 / 64 / 256 / 64", "256 / 64 / 256 / 64", True)])
        # bank_conflicts (its own run: @ld_requests / @st_requests are its shared counts
        # there): nothing recorded; co_ld_stride2 has no shared accesses (one row, passing).
        rows = m.coalescing_rows("bank_conflicts", self.EXPECT, {})
        self.assertEqual([(r[1], r[3], r[4], r[5]) for r in rows],
                         [("co_sh_stride2", "128 / 64 / 256 / 256", "0 / 0 / 0 / 0", False),
                          ("1 other kernels", "none", "none", True)])
        maps = m.parse_maps("@ld_wavefronts[co_ld_stride2, 0, 3]: 4\n@ld_wavefronts[co_nope, 0, 3]: 1\n")
        row = m.coalescing_rows("bank_conflicts", self.EXPECT, maps)[-1]
        self.assertEqual((row[4], row[5]), ("co_ld_stride2: 4 / 0 / 0 / 0; co_nope: not in the model", False))

    def test_ncu_rows(self):
        maps = m.parse_maps(self.TEXT)
        metrics = dict.fromkeys(m.COALESCING_METRICS, 0)
        results = [{"id": 0, "kernel": "co_ld_stride2", "metrics": {**metrics, **{
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 512,
                        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 64,
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 256,
                        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 64}}},
                   {"id": 1, "kernel": "co_sh_stride2", "metrics": {**metrics, **{
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 256,
                        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 64,
                        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 256,
                        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 64,
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 128,
                        "smsp__inst_executed_op_shared_ld.sum": 64,
                        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 256,
                        "smsp__inst_executed_op_shared_st.sum": 256,
                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 64}}}]
        rows = m.coalescing_ncu_rows("uncoalesced", self.EXPECT, maps, results)
        self.assertEqual([(r[0], r[1], r[5]) for r in rows], [("ncu:uncoalesced", "co_ld_stride2", True),
                                                              ("ncu:uncoalesced", "co_sh_stride2", True)])
        self.assertEqual(rows[0][3], "@ 512 / 64 / 256 / 64 (model 512 / 64 / 256 / 64)")
        wt = m.parse_maps("@ld_wavefronts[co_sh_stride2, 0, 8]: 128\n@ld_requests[co_sh_stride2, 0, 8]: 64\n"
                          "@st_wavefronts[co_sh_stride2, 0, 3]: 256\n@st_requests[co_sh_stride2, 0, 3]: 256\n")
        rows = m.coalescing_ncu_rows("bank_conflicts", self.EXPECT, wt, results)
        self.assertEqual([(r[1], r[5]) for r in rows], [("co_sh_stride2", True), ("1 other kernels", True)])
        self.assertEqual(rows[0][4], "ncu 128 / 64 / 256 / 256; conflicts ld / st 64 / 0 (model 64 / 0)")
        # ncu counting one more wavefront than warptrace fails the row; a missing result too.
        results[1]["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] = 129
        self.assertFalse(m.coalescing_ncu_rows("bank_conflicts", self.EXPECT, wt, results)[0][5])
        rows = m.coalescing_ncu_rows("uncoalesced", self.EXPECT, maps, results[:1])
        self.assertEqual((rows[1][1], rows[1][2], rows[1][5]), ("co_sh_stride2", "one ncu result", False))
        self.assertEqual(len(m.COALESCING_METRICS), 10)
        self.assertIn(("coalescing", m.check_coalescing), m.CHECKS)


class Outputs(unittest.TestCase):
    def test_json_records(self):
        recs = m.json_records(JSON_OUT)
        self.assertEqual([r["type"] for r in recs], ["map", "map", "summary"])
        maps = m.json_maps(recs)
        self.assertEqual(maps["@blocks"]["vector_add"], 977)
        self.assertEqual(maps["@n"], 5)
        self.assertEqual(m.json_summary(recs)["pids"], [10, 11, 12, 13])
        mine = m.program_json(JSON_OUT)
        self.assertEqual(mine["pids"]["children"], [11, 12])
        self.assertIsNone(m.json_summary([]))
        self.assertIsNone(m.program_json('{"type": "map", "data": {}}\nplain text\n'))
        self.assertEqual(m.program_json('{"a": 1}\n@x: 3\n'), {"a": 1})

    def test_kernel_states(self):
        states = m.kernel_states(STDERR_V)
        self.assertEqual([s[0] for s in states], ["triton_poi_fused_add_0", NUMBA,
                                                  "nvjet_hsh_128x64_64x4_1x2_h_bz_coopA_NTN"])
        self.assertEqual(states[0][1:], ("instrumented, 2 sites", 20, 1))  # the overall line, not pid 10's
        self.assertEqual(states[1][1:], ("instrumented, 5 sites", 1, 0))
        self.assertEqual(states[2][1:], ("skipped: no PTX: ELF without .nv_debug_ptx_txt", 0, 40))

    def test_summary_counts(self):
        c = m.summary_counts(STDERR_V)
        self.assertEqual((c["instrumented"], c["skipped"], c["no_ptx"], c["probed"], c["unprobed"]),
                         (4, 2, 2, 60, 5))
        c = m.summary_counts("warptrace: 1 kernel instrumented, 0 skipped, 1 launch probed, 0 unprobed\n")
        self.assertEqual((c["instrumented"], c["no_ptx"], c["probed"]), (1, 0, 1))
        self.assertIsNone(m.summary_counts("nothing\n"))

    def test_parse_maps_and_substrings(self):
        text = f"saxpy done\n\n@blocks[{NUMBA}]: 3907\n@ldbytes[{NUMBA}]: 8000024\n@blocks[7]: 977\n"
        maps = m.parse_maps(text)
        self.assertEqual(m.by_substring(maps["blocks"], "saxpy"), [(NUMBA, 3907)])
        self.assertEqual(maps["blocks"]["7"], 977)
        self.assertEqual(m.by_substring(maps["ldbytes"], "relu"), [])

    def test_records_and_trace(self):
        table = ('pid,launch,block,warp,slot,field0,field1,field2,field3\n'
                 '10,0,0,0,0,100,20,3,"block_sum(float const*, float*, int)"\n'
                 '10,0,0,1,0,101,21,3,"scale_add(float const*, float*, float, int)"\n')
        recs = m.record_rows(table)
        self.assertEqual([m.base_name(r["field3"]) for r in recs], ["block_sum", "scale_add"])
        self.assertEqual({r["slot"] for r in recs}, {"0"})
        trace = {"traceEvents": [{"ph": "M", "name": "process_name"}, {"ph": "X", "dur": 1.0},
                                 {"ph": "X", "dur": 2.0}], "otherData": {"clock_mhz": 1980}}
        self.assertEqual(len(m.trace_events(json.loads(json.dumps(trace)))), 2)


class LoopTiming(unittest.TestCase):
    def test_loop_timing_totals_by_warp_and_depth(self):
        head = "pid,launch,block,warp,slot,field0,field1,field2,field3,field4,field5,field6\n"
        row = '10,0,{b},{w},{s},0,{e},3,"nested(float const*)",57,41,{d}\n'
        table = head + "".join(row.format(b=0, w=0, s=s, e=e, d=d) for s, (e, d) in
                               enumerate([(100, 1), (120, 1), (1000, 0)]))
        table += row.format(b=1, w=0, s=0, e=7, d=1)
        got = m.loop_timing_totals(m.record_rows(table))
        self.assertEqual(got, {(0, 0): (3, {1: 220, 0: 1000}), (1, 0): (1, {1: 7})})

    def test_loop_cycles_totals_by_depth(self):
        table = ("key0,key1,key2,key3,count,sum,avg\n"
                 '"nested(float const*)",22,44,1,8,4000,500\n'
                 '"nested(float const*)",30,50,1,2,100,50\n'
                 '"nested(float const*)",17,0,0,1,9000,9000\n')
        self.assertEqual(m.loop_cycles_totals(m.record_rows(table)), {1: (10, 4100), 0: (1, 9000)})

    def test_reference_and_rel(self):
        text = "block,warp,outer_cycles,inner_cycles,outer_iters,inner_iters\n0,1,5000,4000,8,128\n"
        self.assertEqual(m.loop_reference(text), {(0, 1): (5000, 4000, 8, 128)})
        self.assertAlmostEqual(m.rel(102, 100), 0.02)
        self.assertAlmostEqual(m.rel(98, 100), -0.02)
        self.assertEqual(m.rel(1, 0), float("inf"))
        # Per warp: the outer loop's 8 headers + exit and every inner header and exit in it.
        self.assertEqual(m.LOOP_FIRINGS, {0: 8 * 18 + 1, 1: 128})
        self.assertIn(("loop timing", m.check_loop_timing), m.CHECKS)

    def test_region_lines_are_the_workloads_loop_statements(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, "tests", "workloads", "loop_timing.cu")) as f:
            src = f.read().splitlines()
        line = lambda n: src[n - 1].strip()
        self.assertTrue(line(42).startswith("for (int o = 0;"), line(42))
        self.assertTrue(line(45).startswith("for (int i = 0;"), line(45))
        self.assertEqual(line(54), "}")
        self.assertTrue(line(55).startswith("inner_total += clock64() - i0;"), line(55))
        self.assertEqual(m.REGION_LINES, {"inner": (45, 54), "outer": (42, 55)})
        prog = m.region_program("inner")
        self.assertIn("warp region:entry:loop_timing.cu:45-54 { %t = clock64; }", prog)
        self.assertIn("{ $now = clock64; @inner[kernel] = stats($now - %t); }", prog)
        self.assertIn(("region timing", m.check_region_timing), m.CHECKS)

    def test_triton_vector_add_lines_are_its_loads_and_store(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, "tests", "corpus", "src", "triton_kernels.py")) as f:
            src = f.read().splitlines()
        for line, kind in m.TRITON_VECTOR_ADD_LINES.items():
            self.assertIn(f"tl.{kind}(", src[line - 1])
        self.assertIn(("triton source lines", m.check_triton_source_lines), m.CHECKS)

    def test_region_triton_lines_are_the_matmul_k_loop_body(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(root, "tests", "corpus", "src", "triton_kernels.py")) as f:
            src = f.read().splitlines()
        a, b = m.REGION_TRITON_LINES
        self.assertEqual(src[a - 2].strip(), "for k in range(0, K, BK):")
        self.assertEqual(src[a - 1].strip(), "a = tl.load(a_ptrs)")
        self.assertEqual(src[b - 1].strip(), "b_ptrs += BK * stride_bk")
        with open(os.path.join(root, "tests", "workloads", "triton_workload.py")) as f:
            wl = f.read()
        self.assertIn("m = nn = k = 512", wl)
        self.assertIn("bm, bn, bk = 64, 64, 32", wl)
        self.assertIn("num_warps=4, num_stages=1", wl)
        self.assertEqual(m.REGION_TRITON_INSTANCES, 4096)


class Running(unittest.TestCase):
    def setUp(self):
        self.dir = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"gpu_e2e_more_test_{os.getpid()}")
        os.makedirs(self.dir, exist_ok=True)

    def test_run_and_timeout(self):
        p, _ = m.run_t(["sh", "-c", "echo out; echo err >&2; exit 3"], self.dir)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (3, "out\n", "err\n"))
        t0 = time.monotonic()
        # The grandchild (sleep) must die with its group, or communicate() would wait for it.
        p, _ = m.run_t(["sh", "-c", "sleep 30 & wait"], self.dir, timeout=1)
        self.assertEqual(p.returncode, 124)
        self.assertLess(time.monotonic() - t0, 10)
        p, _ = m.run_t(["/nonexistent/binary"], self.dir)
        self.assertEqual(p.returncode, 127)
        self.assertTrue(os.path.getsize(os.path.join(self.dir, "runs.log")) > 0)

    def test_budget(self):
        try:
            m.BUDGET.start(2)
            with self.assertRaises(m.Spent):
                m.run_t(["true"], self.dir)
        finally:
            m.BUDGET.deadline = None


if __name__ == "__main__":
    unittest.main()
