//! The text of a snippet: instructions and labels, and the operations every lowering
//! builds on — 64-bit vector arithmetic (IR values are VGPR pairs), lane-mask operations
//! of the wave's width, and the mnemonics that differ between gfx9 (wave64) and
//! gfx10+ (wave32).
//!
//! | operation | gfx9 (wave64) | gfx10+ (wave32) |
//! |---|---|---|
//! | lane masks | `s_*_b64`, `exec`, `vcc`, SGPR pairs | `s_*_b32`, `exec_lo`, `vcc_lo`, one SGPR |
//! | 32-bit add / sub | `v_add_u32`, `v_sub_u32`, `v_subrev_u32` | `v_add_nc_u32`, `v_sub_nc_u32`, `v_subrev_nc_u32` |
//! | 64-bit add / sub | `v_add_co_u32` + `v_addc_co_u32`, `v_sub_co_u32` + `v_subb_co_u32` | `v_add_co_u32` + `v_add_co_ci_u32`, `v_sub_co_u32` + `v_sub_co_ci_u32` |
//! | returning atomics | `glc` (gfx90a), `sc0` (gfx940+) | `glc` |
//! | loads of atomics' words | `glc` (gfx90a), `sc1` (gfx940+) | `glc dlc` |
//! | stores done | `s_waitcnt vmcnt(0)` | and `s_waitcnt_vscnt null, 0x0` |

use crate::reg::Reg;
use std::fmt::Write;

/// What the mnemonics depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target {
    /// Lanes per wave, 64 or 32.
    pub wave: u32,
    /// gfx9 (gfx90a, gfx942); otherwise gfx10+.
    pub gfx9: bool,
    /// gfx940+ (`sc0`/`sc1` cache bits).
    pub gfx940: bool,
    /// gfx11 (no `s_memtime`/`s_memrealtime`; `HW_REG_HW_ID1`).
    pub gfx11: bool,
}

impl Target {
    /// The mnemonics of processor `gfx…` with `isa`'s wave size.
    pub fn of(processor: &str, isa: &crate::insn::Isa) -> Target {
        Target {
            wave: isa.wave,
            gfx9: isa.gfx9,
            gfx940: isa.gfx940,
            gfx11: processor.starts_with("gfx11"),
        }
    }
    /// Work-item ids y and z are packed into `v0` (gfx90a, gfx940+, gfx11+) on
    /// `processor`, this target's.
    pub fn packed_tid(self, processor: &str) -> bool {
        processor == "gfx90a" || self.gfx940 || self.gfx11
    }
    /// SGPRs of a lane mask: 2 (wave64) or 1 (wave32).
    pub fn mask_sgprs(self) -> u32 {
        self.wave / 32
    }
    /// `exec` or `exec_lo`.
    pub fn exec(self) -> &'static str {
        if self.wave == 64 {
            "exec"
        } else {
            "exec_lo"
        }
    }
    /// `vcc` or `vcc_lo`.
    pub fn vcc(self) -> &'static str {
        if self.wave == 64 {
            "vcc"
        } else {
            "vcc_lo"
        }
    }
    /// A scalar lane-mask operation: `s_or` → `s_or_b64` or `s_or_b32`.
    pub fn s(self, op: &str) -> String {
        format!("{op}_b{}", self.wave)
    }
    /// The bit that makes an atomic return the old value.
    pub fn returning(self) -> &'static str {
        if self.gfx940 {
            "sc0"
        } else {
            "glc"
        }
    }
    /// The cache bits of a load that reads what the device's atomics wrote (the memory
    /// model's agent-scope load): `glc` on gfx90a (past the vector L1), `sc1` on gfx940+
    /// (device scope), `glc dlc` on gfx10+ (past L0 and L1).
    pub fn coherent_load(self) -> &'static str {
        match (self.gfx9, self.gfx940) {
            (true, true) => "sc1",
            (true, false) => "glc",
            (false, _) => "glc dlc",
        }
    }
    /// A 32-bit VALU add/sub mnemonic (`add`, `sub`, `subrev`), VOP2 encoding.
    pub fn v32(self, op: &str) -> String {
        if self.gfx9 {
            format!("v_{op}_u32_e32")
        } else {
            format!("v_{op}_nc_u32_e32")
        }
    }
}

/// The low and high halves of a pair.
pub(crate) fn lo(r: Reg) -> String {
    Reg::new(r.file, r.first, 1).name()
}
pub(crate) fn hi(r: Reg) -> String {
    Reg::new(r.file, r.first + 1, 1).name()
}

/// The largest immediate `offset:` of a global access used (gfx10's is 12-bit signed).
pub(crate) const MAX_OFFSET: u64 = 2047;

/// A snippet being written.
#[derive(Debug)]
pub(crate) struct Emitter {
    pub text: String,
    /// Whether it issued vector memory operations (it then waits for them at its end).
    pub memory: bool,
    pub t: Target,
}

impl Emitter {
    pub fn new(t: Target) -> Emitter {
        Emitter {
            text: String::new(),
            memory: false,
            t,
        }
    }
    pub fn ins(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.text, "\t{}", s.as_ref());
    }
    pub fn label(&mut self, l: &str) {
        let _ = writeln!(self.text, "{l}:");
    }
    /// `d = imm` (64-bit).
    pub fn imm64(&mut self, d: Reg, v: u64) {
        self.ins(format!("v_mov_b32_e32 {}, 0x{:x}", lo(d), v as u32));
        self.ins(format!("v_mov_b32_e32 {}, 0x{:x}", hi(d), (v >> 32) as u32));
    }
    /// `d = s` (64-bit pair copy).
    pub fn mov64(&mut self, d: Reg, s: Reg) {
        if d != s {
            self.ins(format!("v_mov_b32_e32 {}, {}", lo(d), lo(s)));
            self.ins(format!("v_mov_b32_e32 {}, {}", hi(d), hi(s)));
        }
    }
    /// `d = a + b` (32-bit; `a` may be an inline constant or a literal).
    pub fn add32(&mut self, d: &str, a: &str, b: &str) {
        let op = self.t.v32("add");
        self.ins(format!("{op} {d}, {a}, {b}"));
    }
    /// `d = a - b` (32-bit; `a` may be an inline constant or a literal).
    pub fn sub32(&mut self, d: &str, a: &str, b: &str) {
        let op = self.t.v32("sub");
        self.ins(format!("{op} {d}, {a}, {b}"));
    }
    /// The carry-in add and borrow-in sub of the 64-bit forms.
    fn carry_ops(&self) -> (&'static str, &'static str) {
        if self.t.gfx9 {
            ("v_addc_co_u32_e64", "v_subb_co_u32_e64")
        } else {
            ("v_add_co_ci_u32_e64", "v_sub_co_ci_u32_e64")
        }
    }
    /// `d = a + b` (64-bit, all VGPR pairs; clobbers vcc).
    pub fn add64(&mut self, d: Reg, a: Reg, b: Reg) {
        self.add64_words([&lo(d), &hi(d)], [&lo(a), &hi(a)], [&lo(b), &hi(b)]);
    }
    /// `d = a + b` (64-bit) of values given as their low and high words (`b`'s high word
    /// may be an inline constant; clobbers vcc).
    pub fn add64_words(&mut self, d: [&str; 2], a: [&str; 2], b: [&str; 2]) {
        let vcc = self.t.vcc();
        let (addc, _) = self.carry_ops();
        self.ins(format!(
            "v_add_co_u32_e64 {}, {vcc}, {}, {}",
            d[0], a[0], b[0]
        ));
        self.ins(format!("{addc} {}, {vcc}, {}, {}, {vcc}", d[1], a[1], b[1]));
    }
    /// `d = a - b` (64-bit; clobbers vcc).
    pub fn sub64(&mut self, d: Reg, a: Reg, b: Reg) {
        self.sub64_words([&lo(d), &hi(d)], [&lo(a), &hi(a)], [&lo(b), &hi(b)]);
    }
    /// `d = a - b` (64-bit) of values given as their low and high words (`b`'s may be
    /// one register twice, a sign mask; clobbers vcc).
    pub fn sub64_words(&mut self, d: [&str; 2], a: [&str; 2], b: [&str; 2]) {
        let vcc = self.t.vcc();
        let (_, subb) = self.carry_ops();
        self.ins(format!(
            "v_sub_co_u32_e64 {}, {vcc}, {}, {}",
            d[0], a[0], b[0]
        ));
        self.ins(format!("{subb} {}, {vcc}, {}, {}, {vcc}", d[1], a[1], b[1]));
    }
    /// `d = a * b` (low 64 bits), through `t` (a pair distinct from `a`, `b`).
    pub fn mul64(&mut self, d: Reg, a: Reg, b: Reg, t: Reg) {
        self.ins(format!("v_mul_lo_u32 {}, {}, {}", lo(t), lo(a), hi(b)));
        self.ins(format!("v_mul_lo_u32 {}, {}, {}", hi(t), hi(a), lo(b)));
        self.add32(&lo(t), &lo(t), &hi(t));
        self.ins(format!("v_mul_hi_u32 {}, {}, {}", hi(t), lo(a), lo(b)));
        self.add32(&hi(t), &lo(t), &hi(t));
        self.ins(format!("v_mul_lo_u32 {}, {}, {}", lo(t), lo(a), lo(b)));
        self.mov64(d, t);
    }
    /// `d = op(a, b)` for a bitwise op.
    pub fn bit64(&mut self, op: &str, d: Reg, a: Reg, b: Reg) {
        self.ins(format!("v_{op}_b32_e32 {}, {}, {}", lo(d), lo(a), lo(b)));
        self.ins(format!("v_{op}_b32_e32 {}, {}, {}", hi(d), hi(a), hi(b)));
    }
    /// `d = a >> n` or `a << n` by a constant `n < 64`.
    pub fn shift64(&mut self, op: &str, d: Reg, a: Reg, n: u32) {
        self.ins(format!("{op} {}, {n}, {}", d.name(), a.name()));
    }
    /// A lane-mask operation of the wave's width: `s_or_b64 d, a, b`.
    pub fn smask(&mut self, op: &str, d: &str, a: &str, b: &str) {
        let op = self.t.s(op);
        self.ins(format!("{op} {d}, {a}, {b}"));
    }
    /// `d` = the bit of the lowest lane of `exec` (`s_ff1` into `scratch`, then a shift).
    /// For an empty `exec` (`s_ff1` gives -1) `d` is the top bit, and `exec & d` is empty
    /// still: no lane runs.
    pub fn first_lane(&mut self, d: &str, scratch: &str) {
        let exec = self.t.exec();
        let ff1 = self.t.s("s_ff1_i32");
        self.ins(format!("{ff1} {scratch}, {exec}"));
        let shl = self.t.s("s_lshl");
        self.ins(format!("{shl} {d}, 1, {scratch}"));
    }
    /// `d` (a VGPR) = the number of lanes below this one whose bit is set in the lane mask
    /// whose low and high words are `mask` (`v_mbcnt_lo`, and `_hi` in wave64); with
    /// `["-1", "-1"]` the lane's index.
    pub fn lanes_below(&mut self, d: &str, mask: [&str; 2]) {
        self.ins(format!("v_mbcnt_lo_u32_b32 {d}, {}, 0", mask[0]));
        if self.t.wave == 64 {
            self.ins(format!("v_mbcnt_hi_u32_b32 {d}, {}, {d}", mask[1]));
        }
    }
    /// `d = s` for lane masks.
    pub fn smov(&mut self, d: &str, s: &str) {
        let op = self.t.s("s_mov");
        self.ins(format!("{op} {d}, {s}"));
    }
    /// Waits for every outstanding vector memory operation of the wave (loads,
    /// returning atomics and, on gfx10+, stores, which have a counter of their own).
    pub fn wait_memory(&mut self) {
        self.ins("s_waitcnt vmcnt(0)");
        if !self.t.gfx9 {
            self.ins("s_waitcnt_vscnt null, 0x0");
        }
    }
    /// Makes the wave's earlier global stores visible at agent scope before the next one
    /// (a release, as LLVM's memory model lowers it for the target).
    pub fn release(&mut self) {
        if self.t.gfx940 {
            self.ins("buffer_wbl2 sc1");
        }
        self.wait_memory();
    }
    /// The cache bits of a store that a release precedes (agent scope on gfx940+).
    pub fn release_store_bits(&self) -> &'static str {
        if self.t.gfx940 {
            " sc1"
        } else {
            ""
        }
    }
}
