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
