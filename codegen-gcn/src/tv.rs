//! z3 translation validation of the GCN ALU lowering (tests): for every IR operation
//! `alu.rs` lowers — each `Bin` operator at both widths with a register and with
//! immediates, each `Ext` — the snippet the real instrumenter splices into a corpus kernel
//! is executed symbolically for one lane, and z3 proves that the persistent register it
//! stores holds what `docs/ir.md` defines (`warptrace_verifier::semantics`), for all
//! inputs, and that `exec`, `vcc` and `scc` are what they were.
//!
//! The semantics below cover exactly the instructions these snippets contain (the
//! saves and restores, moves, the 32- and 64-bit ALU forms, compares into a lane mask,
//! `v_cndmask`, `v_bfe`, the scalar mask operations); any other instruction fails the
//! obligation. One lane is modelled, active in `exec` (its bit 0; a `warp` save's
//! non-leaders at bit 1, above an active lane) with every other bit of `exec`, `vcc` and
//! the registers unconstrained — so a proof holds for every lane whatever the others do
//! (the mask operations are bitwise). The same model proves that a loop edge's snippet runs
//! for exactly the lanes that take the edge (decision 0018: the `exec` narrowing at a
//! masked latch and at a uniform `scc` branch, on the corpus's `histogram` and
//! `block_sum`). Ring appends are proved too (`ring_check`): the lane's global memory
//! operations — the cursor atomic, the drop count, the record's stores — are the IR's, in
//! order, with the same guards, addresses and data; `printf` is such an append. So are
//! hash updates of every aggregation (`hash_check`: the compare-and-swap probes, their
//! forward branches to the end, the keys and the value words; a register key's tag
//! through `mix64` proved step by step). So are the special registers (`special_check`:
//! the entry prologue and the snippet from the kernel's entry state as the ABI gives it — the kernarg segment, the workgroup-id SGPRs, the packed work-item
//! ids in `v0`, the lane index behind `v_mbcnt`, the clock and `HW_ID` registers;
//! `launch_check`: the launch word's load; `site_check`: `pc`, `file`, `line` and the site
//! values `bytes`, `addr`, `opcode`, `value` at a load and an atomic, against the module's
//! own text) and array saves (`array_check`: the record's place from the entry state,
//! staged). The warp-wide site values are proved around their waterfall loop here and
//! over the loop by induction on a whole wave (`tv_waterfall.rs`, `waterfall_check`).

#[path = "tv_division.rs"]
mod division;

use crate::combine::Combining;
use crate::parse::{parse, Instruction, Operand, StmtKind};
use crate::reg::{Reg, RegFile};
use std::collections::{BTreeMap, HashMap};
use warptrace_ir::placement::{probe_count, Probing};
use warptrace_ir::{BinOp, Program, Width};
use warptrace_verifier::semantics::{add, alu, extend, mul};
use warptrace_verifier::{Check, Verdict};
use z3::ast::{Ast, Bool, BV};
use z3::SatResult;

/// One lane's registers as 32-bit terms (read before written: a fresh input), `vcc`,
/// `exec` (64-bit), `scc`.
#[derive(Clone)]
struct Lane {
    // Ordered maps: `join` builds its terms in register order, the same in every run (z3's
    // search depends on the order terms were made in).
    v: BTreeMap<u32, BV>,
    s: BTreeMap<u32, BV>,
    vcc: BV,
    exec: BV,
    scc: Bool,
    /// VGPRs in the order they were first read before being written.
    v_inputs: Vec<u32>,
    /// Global memory operations in order (`ring_append`'s obligations).
    effects: Vec<MemEffect>,
    /// The condition under which execution is on this path (forward branches split it).
    path: Bool,
    /// This lane's bit in lane masks: 0, the first lane of the wave, or above an active
    /// lane (no `warp` probe's leader then).
    pos: u32,
    /// A fact the caller's claims all assume: a vector write whose lane is in `exec`
    /// whenever it holds is made unconditionally (the run's values are then those of
    /// the lane only where the fact holds).
    assumed: Option<Bool>,
    /// Whether a run passes over a waterfall loop by its summary ([`waterfall_summary`];
    /// only [`waterfall_check`], which proves the loop, asks for it).
    waterfalls: bool,
    /// Whether a run passes over a division's loop by its summary (`division::summary`;
    /// only [`division_check`], which proves what it needs, asks for it).
    divisions: bool,
    /// What `v_readfirstlane` read where another lane may be the first in `exec`: the
    /// VGPR read and a fresh constant each (that lane's register), in order.
    firsts: Vec<(u32, BV)>,
    /// Whether a product of two registers (`v_mul_lo_u32`, `v_mul_hi_u32`) is a half of
    /// [`product`], the uninterpreted 64-bit product of the zero-extended factors (only
    /// the buffer-address proof asks for it: its claim is that the snippet multiplies
    /// the factors the ISA's formula does).
    products: bool,
}

/// `zext(a) · zext(b)` of 32-bit `a`, `b` as an uninterpreted function: a proof that
/// holds for it holds for the product (`v_mul_lo_u32` and `v_mul_hi_u32` are its low and
/// high halves), and z3 compares factors instead of multiplier circuits.
fn product(a: &BV, b: &BV) -> BV {
    let (w32, w64) = (z3::Sort::bitvector(32), z3::Sort::bitvector(64));
    z3::FuncDecl::new("umul32", &[&w32, &w32], &w64)
        .apply(&[a, b])
        .as_bv()
        .expect("a bit-vector function")
}

/// A global memory operation of the lane: `op` (`atomic.add` returning `result`,
/// `red.add`, `store`) of the 64-bit `data` at `addr`, made when `guard` (the lane in
/// `exec`) holds.
#[derive(Clone)]
struct MemEffect {
    guard: Bool,
    op: &'static str,
    /// The SGPR pair the address is based on (the map base: the kernel checks prove its
    /// provenance), and the whole address.
    base: BV,
    addr: BV,
    data: BV,
    result: Option<BV>,
}

/// The kernarg segment's dword at `addr` (an uninterpreted function: the launch's
/// arguments are inputs).
fn kernarg32(addr: &BV) -> BV {
    let f = z3::FuncDecl::new(
        "kernarg32",
        &[&z3::Sort::bitvector(64)],
        &z3::Sort::bitvector(32),
    );
    f.apply(&[addr]).as_bv().expect("a bit-vector")
}

/// The number of set bits of `v`, as 32 bits.
fn popcount(v: &BV) -> BV {
    (0..v.get_size()).fold(BV::from_u64(0, 32), |acc, i| {
        acc.bvadd(v.extract(i, i).zero_ext(31))
    })
}

/// What a combined update counts as 64 bits: 1 for a lane's own (`wave` none), else the
/// lanes of `exec` — its low half in wave32.
fn lanes_counted(exec: &BV, wave: Option<u32>) -> BV {
    match wave {
        None => BV::from_u64(1, 64),
        Some(32) => popcount(&exec.extract(31, 0)).zero_ext(32),
        Some(_) => popcount(exec).zero_ext(32),
    }
}

fn k32(v: u64) -> BV {
    BV::from_u64(v & 0xffff_ffff, 32)
}

impl Lane {
    fn new() -> Lane {
        Lane {
            v: BTreeMap::new(),
            s: BTreeMap::new(),
            vcc: BV::new_const("vcc0", 64),
            exec: BV::new_const("exec0", 64),
            scc: Bool::new_const("scc0"),
            v_inputs: Vec::new(),
            effects: Vec::new(),
            path: Bool::from_bool(true),
            pos: 0,
            assumed: None,
            waterfalls: false,
            divisions: false,
            products: false,
            firsts: Vec::new(),
        }
    }

    /// [`Lane::new`] in `exec` (its bit 0 set).
    fn active() -> Lane {
        let mut lane = Lane::new();
        lane.exec = lane.exec.bvor(BV::from_u64(1, 64));
        lane
    }

    /// The state where the path of `taken` (a branch's target) joins this one: each
    /// register, mask and flag from the path that got here.
    fn join(&mut self, taken: Lane) {
        let on = taken.path.clone();
        let pick = |a: &BV, b: &BV| on.ite(a, b);
        for (prefix, file, other) in [("v", &mut self.v, &taken.v), ("s", &mut self.s, &taken.s)] {
            // A register one path never wrote holds its input.
            let input = |i: u32| BV::new_const(format!("{prefix}{i}"), 32);
            let keys: std::collections::BTreeSet<u32> =
                file.keys().chain(other.keys()).copied().collect();
            for k in keys {
                let mine = file.get(&k).cloned().unwrap_or_else(|| input(k));
                let theirs = other.get(&k).cloned().unwrap_or_else(|| input(k));
                file.insert(k, pick(&theirs, &mine));
            }
        }
        self.vcc = pick(&taken.vcc, &self.vcc);
        self.exec = pick(&taken.exec, &self.exec);
        self.scc = on.ite(&taken.scc, &self.scc);
        self.path = Bool::or(&[&on, &self.path]);
    }

    /// Whether this lane is in `exec` (its bit, [`Lane::pos`]).
    fn in_exec(&self) -> Bool {
        self.exec.extract(self.pos, self.pos).eq(BV::from_u64(1, 1))
    }

    /// The address of a `global_*` instruction with an SGPR base: `base + zext(voffset) +
    /// offset:N`.
    fn global_address(
        &mut self,
        x: &Instruction,
        voff: &Operand,
        sbase: &Operand,
    ) -> Result<(BV, BV), String> {
        let base = self.read(sbase, 2)?;
        let off = self.read(voff, 1)?.zero_ext(32);
        let imm = x
            .modifiers
            .iter()
            .find_map(|m| m.strip_prefix("offset:"))
            .map_or(Ok(0), str::parse::<i64>)
            .map_err(|e| format!("offset: {e}"))?;
        Ok((base.clone(), base.bvadd(&off).bvadd(BV::from_i64(imm, 64))))
    }

    /// Records a global memory operation of this lane (when it is in `exec`).
    fn global(&mut self, x: &Instruction) -> Result<(), String> {
        let o = &x.operands;
        let arg = |i: usize| {
            o.get(i)
                .ok_or_else(|| format!("`{}`: operand {i}", x.mnemonic))
        };
        let active = Bool::and(&[self.in_exec(), self.path.clone()]);
        if (x.mnemonic.as_str(), o.len()) == ("global_load_dwordx2", 3) {
            // A load: its value is an input (what memory holds), the effect's result.
            let (base, addr) = self.global_address(x, arg(1)?, arg(2)?)?;
            let result = BV::new_const(format!("load#{}", self.effects.len()), 64);
            self.write(arg(0)?, &result, true)?;
            self.effects.push(MemEffect {
                guard: active,
                op: "load",
                base,
                addr,
                data: BV::from_u64(0, 64),
                result: Some(result),
            });
            return Ok(());
        }
        let (op, dst, at, words) = match (x.mnemonic.as_str(), o.len()) {
            ("global_atomic_add_x2", 4) => ("atomic.add", Some(arg(0)?), 1, 2),
            ("global_atomic_add_x2", 3) => ("red.add", None, 0, 2),
            ("global_atomic_umax_x2", 3) => ("red.umax", None, 0, 2),
            ("global_atomic_swap_x2", 3) => ("red.swap", None, 0, 2),
            // data: the new value, then the compare value.
            ("global_atomic_cmpswap_x2", 4) => ("cas", Some(arg(0)?), 1, 4),
            ("global_store_dwordx2", 3) => ("store", None, 0, 2),
            (m, _) => return Err(format!("no semantics for `{m}` with these operands")),
        };
        let (base, addr) = self.global_address(x, arg(at)?, arg(at + 2)?)?;
        let data = self.read(arg(at + 1)?, words)?;
        let result = dst.map(|_| BV::new_const(format!("{op}#{}", self.effects.len()), 64));
        if let (Some(d), Some(r)) = (dst, &result) {
            self.write(d, r, true)?;
        }
        self.effects.push(MemEffect {
            guard: active,
            op,
            base,
            addr,
            data,
            result,
        });
        Ok(())
    }

    fn vgpr(&mut self, i: u32) -> BV {
        if !self.v.contains_key(&i) {
            self.v_inputs.push(i);
            self.v.insert(i, BV::new_const(format!("v{i}"), 32));
        }
        self.v[&i].clone()
    }

    fn sgpr(&mut self, i: u32) -> BV {
        self.s
            .entry(i)
            .or_insert_with(|| BV::new_const(format!("s{i}"), 32))
            .clone()
    }

    /// 32-bit register `r` (one of its words, `word`).
    fn word(&mut self, r: Reg, word: u32) -> Result<BV, String> {
        let i = r.first + word;
        Ok(match r.file {
            RegFile::Vgpr => self.vgpr(i),
            RegFile::Sgpr => self.sgpr(i),
            RegFile::Vcc => self.vcc.extract(32 * i + 31, 32 * i),
            RegFile::Exec => self.exec.extract(32 * i + 31, 32 * i),
            f => return Err(format!("register file {f:?}")),
        })
    }

    /// An operand of `words` 32-bit words: registers or an integer literal.
    fn read(&mut self, o: &Operand, words: u32) -> Result<BV, String> {
        if let Some(v) = o.imm {
            return Ok(BV::from_i64(v, 64).extract(32 * words - 1, 0));
        }
        let r = o.reg.ok_or_else(|| format!("operand `{}`", o.text))?;
        let mut out = self.word(r, 0)?;
        for w in 1..words {
            out = self.word(r, w)?.concat(&out);
        }
        Ok(out)
    }

    fn write_word(&mut self, r: Reg, word: u32, value: BV, vector: bool) -> Result<(), String> {
        let i = r.first + word;
        match r.file {
            RegFile::Vgpr => {
                // A vector write reaches this lane only if it is in `exec` (the old value
                // is not a read of the snippet's: no input is recorded for it).
                let old = self
                    .v
                    .get(&i)
                    .cloned()
                    .unwrap_or_else(|| BV::new_const(format!("v{i}"), 32));
                let active = self.in_exec().simplify();
                let implied = || {
                    self.assumed.as_ref().is_some_and(|f| {
                        let solver = warptrace_verifier::solver();
                        solver.assert(f);
                        solver.assert(active.not());
                        warptrace_verifier::proof_cache::check(&solver) == SatResult::Unsat
                    })
                };
                let v = match active.as_bool() {
                    Some(true) => value,
                    _ if implied() => value,
                    _ => active.ite(&value, &old),
                };
                self.v.insert(i, v);
            }
            RegFile::Sgpr if !vector => {
                self.s.insert(i, value);
            }
            RegFile::Vcc | RegFile::Exec if !vector => {
                let full = if r.file == RegFile::Vcc {
                    &self.vcc
                } else {
                    &self.exec
                };
                let v = with_half(full, i, value);
                if r.file == RegFile::Vcc {
                    self.vcc = v;
                } else {
                    self.exec = v;
                }
            }
            f => return Err(format!("write to {f:?}")),
        }
        Ok(())
    }

    fn write(&mut self, o: &Operand, value: &BV, vector: bool) -> Result<(), String> {
        let r = o.reg.ok_or_else(|| format!("destination `{}`", o.text))?;
        for w in 0..r.count {
            self.write_word(r, w, value.extract(32 * w + 31, 32 * w), vector)?;
        }
        Ok(())
    }

    /// A compare result or carry into a lane mask (`vcc` or an SGPR pair): this lane's
    /// bit — 0 when the lane is not in `exec`, as the hardware writes inactive lanes —
    /// the other lanes' bits unchanged (unconstrained).
    fn write_bit(&mut self, o: &Operand, bit: &Bool) -> Result<(), String> {
        let r = o.reg.ok_or_else(|| format!("mask `{}`", o.text))?;
        let old = self.read(o, r.count)?;
        let bit = Bool::and(&[self.in_exec(), bit.clone()]);
        let b = bit.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1));
        // The bits above this lane's (none for the top bit), its bit, the bits below
        // (none for bit 0).
        let (width, pos) = (32 * r.count, self.pos);
        let mut new = match pos + 1 < width {
            true => old.extract(width - 1, pos + 1).concat(&b),
            false => b,
        };
        if pos > 0 {
            new = new.concat(old.extract(pos - 1, 0));
        }
        self.write(o, &new, false)
    }

    /// This lane's bit of a lane mask.
    fn bit(&mut self, o: &Operand) -> Result<Bool, String> {
        let words = o.reg.map_or(2, |r| r.count);
        let pos = self.pos;
        Ok(self
            .read(o, words)?
            .extract(pos, pos)
            .eq(BV::from_u64(1, 1)))
    }

    fn step(&mut self, x: &Instruction) -> Result<(), String> {
        let o = &x.operands;
        let m = x.mnemonic.as_str();
        let arg = |i: usize| o.get(i).ok_or_else(|| format!("`{m}`: operand {i}"));
        let cmp = |name: &str, a: &BV, b: &BV| -> Option<Bool> {
            let (op, ty) = name.split_once('_')?;
            let signed = ty.starts_with('i');
            Some(match (op, signed) {
                ("eq", _) => a.eq(b),
                ("ne", _) => a.eq(b).not(),
                ("lt", false) => a.bvult(b),
                ("lt", true) => a.bvslt(b),
                ("le", false) => a.bvule(b),
                ("le", true) => a.bvsle(b),
                ("gt", false) => a.bvugt(b),
                ("gt", true) => a.bvsgt(b),
                ("ge", false) => a.bvuge(b),
                ("ge", true) => a.bvsge(b),
                _ => return None,
            })
        };
        match m {
            // Waits (gfx10+ counts stores apart: `s_waitcnt_vscnt`) and the cache
            // write-back before a release store: ordering is not modelled.
            "s_waitcnt" | "s_waitcnt_vscnt" | "s_waitcnt_depctr" | "s_nop" | "buffer_wbl2" => {}
            "global_atomic_add_x2"
            | "global_atomic_umax_x2"
            | "global_atomic_swap_x2"
            | "global_atomic_cmpswap_x2"
            | "global_load_dwordx2"
            | "global_store_dwordx2" => self.global(x)?,
            "s_ff1_i32_b32" | "s_ff1_i32_b64" => {
                // The index of the lowest set bit; -1 for none.
                let words = if m.ends_with("64") { 2 } else { 1 };
                let v = self.read(arg(1)?, words)?;
                let index = (0..32 * words).rev().fold(k32(0xffff_ffff), |acc, i| {
                    v.extract(i, i)
                        .eq(BV::from_u64(1, 1))
                        .ite(&k32(u64::from(i)), &acc)
                });
                self.write(arg(0)?, &index, false)?;
            }
            "s_lshl_b32" | "s_lshl_b64" => {
                // Shift by the low 5 or 6 bits of the amount; `scc` = a nonzero result.
                let words = if m.ends_with("64") { 2 } else { 1 };
                let a = self.read(arg(1)?, words)?;
                let n = self.read(arg(2)?, 1)?.bvand(k32(32 * u64::from(words) - 1));
                let n = if words == 2 { n.zero_ext(32) } else { n };
                let v = a.bvshl(&n);
                self.scc = v.eq(BV::from_u64(0, 32 * words)).not();
                self.write(arg(0)?, &v, false)?;
            }
            "s_cselect_b32" | "s_cselect_b64" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let (a, b) = (self.read(arg(1)?, words)?, self.read(arg(2)?, words)?);
                let v = self.scc.ite(&a, &b);
                self.write(arg(0)?, &v, false)?;
            }
            "s_mov_b32" | "s_mov_b64" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let v = self.read(arg(1)?, words)?;
                self.write(arg(0)?, &v, false)?;
            }
            "s_bcnt1_i32_b32" | "s_bcnt1_i32_b64" => {
                // The number of set bits; `scc` = a nonzero count.
                let words = if m.ends_with("64") { 2 } else { 1 };
                let v = self.read(arg(1)?, words)?;
                let count = popcount(&v);
                self.scc = count.eq(BV::from_u64(0, 32)).not();
                self.write(arg(0)?, &count, false)?;
            }
            "s_and_b32" | "s_and_b64" | "s_or_b32" | "s_or_b64" | "s_andn2_b32" | "s_andn2_b64" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let (a, b) = (self.read(arg(1)?, words)?, self.read(arg(2)?, words)?);
                let v = match m.split('_').nth(1).unwrap_or("") {
                    "and" => a.bvand(&b),
                    "or" => a.bvor(&b),
                    _ => a.bvand(b.bvnot()),
                };
                self.scc = v.eq(BV::from_u64(0, 32 * words)).not();
                self.write(arg(0)?, &v, false)?;
            }
            "s_mul_i32" => {
                // The low 32 bits of the product; `scc` is kept.
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                self.write(arg(0)?, &a.bvmul(&b), false)?;
            }
            "s_add_u32" | "s_addc_u32" => {
                // `scc` = the carry out (and, for `s_addc`, in).
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                let mut sum = a.zero_ext(32).bvadd(b.zero_ext(32));
                if m == "s_addc_u32" {
                    let carry = self.scc.ite(&BV::from_u64(1, 64), &BV::from_u64(0, 64));
                    sum = sum.bvadd(&carry);
                }
                self.scc = sum.extract(63, 32).eq(BV::from_u64(0, 32)).not();
                self.write(arg(0)?, &sum.extract(31, 0), false)?;
            }
            "s_sub_u32" => {
                // A division's count (`scc`, the borrow, is not read: the count's
                // `s_cmp_lg_u32` follows).
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                self.scc = a.bvult(&b);
                self.write(arg(0)?, &a.bvsub(&b), false)?;
            }
            "s_cmp_lg_u32" | "s_cmp_lg_u64" | "s_cmp_eq_u32" | "s_cmp_eq_u64" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let (a, b) = (self.read(arg(0)?, words)?, self.read(arg(1)?, words)?);
                self.scc = if m.contains("_eq_") {
                    a.eq(&b)
                } else {
                    a.eq(&b).not()
                };
            }
            "v_mov_b32_e32" => {
                let v = self.read(arg(1)?, 1)?;
                self.write(arg(0)?, &v, true)?;
            }
            "s_load_dword" | "s_load_dwordx2" => {
                // A load from the kernarg segment (the prologue's): `kernarg32` of each
                // dword's address, the segment's contents being an input of the launch.
                let words = if m.ends_with("x2") { 2 } else { 1 };
                let base = self.read(arg(1)?, 2)?;
                let off = arg(2)?
                    .imm
                    .ok_or_else(|| format!("`{m}` with a register offset"))?;
                let dword = |w: u64| {
                    kernarg32(
                        &base
                            .bvadd(BV::from_i64(off, 64))
                            .bvadd(BV::from_u64(4 * w, 64)),
                    )
                };
                let v = if words == 2 {
                    dword(1).concat(dword(0))
                } else {
                    dword(0)
                };
                self.write(arg(0)?, &v, false)?;
            }
            "s_memtime" | "s_memrealtime" => {
                let v = BV::new_const(format!("hw.{}", &m[2..]), 64);
                self.write(arg(0)?, &v, false)?;
            }
            // gfx11's `s_memrealtime`: the same 100 MHz count, returned by a message.
            "s_sendmsg_rtn_b64" if arg(1)?.text == "sendmsg(MSG_RTN_GET_REALTIME)" => {
                let v = BV::new_const("hw.memrealtime", 64);
                self.write(arg(0)?, &v, false)?;
            }
            "s_getreg_b32" => {
                // `hwreg(NAME, offset, size)`: those bits of the hardware register `NAME`.
                let o = arg(1)?;
                let inner = o
                    .text
                    .strip_prefix("hwreg(")
                    .and_then(|t| t.strip_suffix(')'))
                    .ok_or_else(|| format!("`{m}` of `{}`", o.text))?;
                let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
                let [name, off, size] = parts[..] else {
                    return Err(format!("`{m}` of `{}`", o.text));
                };
                let (off, size) = (
                    off.parse::<u32>().map_err(|e| e.to_string())?,
                    size.parse::<u32>().map_err(|e| e.to_string())?,
                );
                if size == 0 || off + size > 32 {
                    return Err(format!("`{m}` of `{}`", o.text));
                }
                let reg = BV::new_const(format!("hw.{name}"), 32);
                let v = reg.extract(off + size - 1, off).zero_ext(32 - size);
                self.write(arg(0)?, &v, false)?;
            }
            "v_mbcnt_lo_u32_b32" | "v_mbcnt_hi_u32_b32" => {
                // The lanes below this one in the mask's low or high half, plus the
                // addend. With the all-lanes mask, the lane's index (`hw.lane`, an input:
                // this model's lane is a bit of `exec` whatever its index); with a lane
                // mask (`exec`'s halves: its rank among the lanes in `exec`), the bits of
                // the mask below this lane's bit of `exec` (`pos`).
                let below = match arg(1)?.imm {
                    Some(-1) => {
                        let lane = BV::new_const("hw.lane", 32).zero_ext(32);
                        BV::from_u64(1, 64).bvshl(&lane).bvsub(BV::from_u64(1, 64))
                    }
                    Some(_) => return Err(format!("`{m}` with a constant mask other than -1")),
                    None => BV::from_u64((1u64 << self.pos) - 1, 64),
                };
                let half = if m.contains("_lo_") {
                    below.extract(31, 0)
                } else {
                    below.extract(63, 32)
                };
                let half = match arg(1)?.imm {
                    Some(_) => half,
                    None => half.bvand(self.read(arg(1)?, 1)?),
                };
                let acc = self.read(arg(2)?, 1)?;
                self.write(arg(0)?, &popcount(&half).bvadd(&acc), true)?;
            }
            "v_readfirstlane_b32" => {
                // The register of the first lane in `exec`: this lane's when it is in
                // `exec` with no lane of `exec` below it; another's, unknown, otherwise.
                let own = self.read(arg(1)?, 1)?;
                let vgpr = arg(1)?
                    .reg
                    .filter(|r| r.file == RegFile::Vgpr)
                    .ok_or_else(|| format!("`{m}` of `{}`", arg(1).map_or("", |o| &o.text)))?;
                let other = BV::new_const(format!("first#{}", self.firsts.len()), 32);
                self.firsts.push((vgpr.first, other.clone()));
                let first = match self.pos {
                    0 => self.in_exec(),
                    p => Bool::and(&[
                        &self.in_exec(),
                        &self.exec.extract(p - 1, 0).eq(BV::from_u64(0, p)),
                    ]),
                };
                self.write(arg(0)?, &first.ite(&own, &other), false)?;
            }
            "v_not_b32_e32" => {
                let v = self.read(arg(1)?, 1)?.bvnot();
                self.write(arg(0)?, &v, true)?;
            }
            "v_ffbh_u32_e32" => {
                // The number of leading zeros; all ones for 0.
                let a = self.read(arg(1)?, 1)?;
                let v = (0..32).fold(k32(0xffff_ffff), |acc, i| {
                    a.extract(i, i)
                        .eq(BV::from_u64(1, 1))
                        .ite(&k32(31 - u64::from(i)), &acc)
                });
                self.write(arg(0)?, &v, true)?;
            }
            "v_mul_lo_u32" | "v_mul_hi_u32"
                if self.products && arg(1)?.reg.is_some() && arg(2)?.reg.is_some() =>
            {
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                let p = product(&a, &b);
                let half = if m == "v_mul_lo_u32" {
                    p.extract(31, 0)
                } else {
                    p.extract(63, 32)
                };
                self.write(arg(0)?, &half, true)?;
            }
            "v_add_u32_e32" | "v_add_nc_u32_e32" | "v_sub_u32_e32" | "v_sub_nc_u32_e32"
            | "v_mul_lo_u32" | "v_and_b32_e32" | "v_or_b32_e32" | "v_xor_b32_e32" => {
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                // Products and sums in the canonical operand order the specifications
                // use (`semantics::mul`), so equal computations are equal terms.
                let v = match m.split('_').nth(1).unwrap_or("") {
                    "add" => add(&a, &b),
                    "sub" => a.bvsub(&b),
                    "mul" => mul(&a, &b),
                    "and" => a.bvand(&b),
                    "or" => a.bvor(&b),
                    _ => a.bvxor(&b),
                };
                self.write(arg(0)?, &v, true)?;
            }
            "v_mul_hi_u32" => {
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                let wide = mul(&a.zero_ext(32), &b.zero_ext(32));
                self.write(arg(0)?, &wide.extract(63, 32), true)?;
            }
            "v_add_co_u32_e64" | "v_sub_co_u32_e64" => {
                let (a, b) = (self.read(arg(2)?, 1)?, self.read(arg(3)?, 1)?);
                let wide = if m.starts_with("v_add") {
                    a.zero_ext(1).bvadd(b.zero_ext(1))
                } else {
                    a.zero_ext(1).bvsub(b.zero_ext(1))
                };
                self.write(arg(0)?, &wide.extract(31, 0), true)?;
                let carry = wide.extract(32, 32).eq(BV::from_u64(1, 1));
                self.write_bit(arg(1)?, &carry)?;
            }
            "v_addc_co_u32_e64"
            | "v_add_co_ci_u32_e64"
            | "v_subb_co_u32_e64"
            | "v_sub_co_ci_u32_e64" => {
                let (a, b) = (self.read(arg(2)?, 1)?, self.read(arg(3)?, 1)?);
                let cin = self
                    .bit(arg(4)?)?
                    .ite(&BV::from_u64(1, 33), &BV::from_u64(0, 33));
                let wide = if m.starts_with("v_add") {
                    a.zero_ext(1).bvadd(b.zero_ext(1)).bvadd(&cin)
                } else {
                    a.zero_ext(1).bvsub(b.zero_ext(1)).bvsub(&cin)
                };
                self.write(arg(0)?, &wide.extract(31, 0), true)?;
                let carry = wide.extract(32, 32).eq(BV::from_u64(1, 1));
                self.write_bit(arg(1)?, &carry)?;
            }
            "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64" => {
                let n = self.read(arg(1)?, 1)?.bvand(k32(63)).zero_ext(32);
                let a = self.read(arg(2)?, 2)?;
                let v = match m {
                    "v_lshlrev_b64" => a.bvshl(&n),
                    "v_lshrrev_b64" => a.bvlshr(&n),
                    _ => a.bvashr(&n),
                };
                self.write(arg(0)?, &v, true)?;
            }
            "v_lshlrev_b32_e64" | "v_lshrrev_b32_e64" | "v_ashrrev_i32_e64"
            | "v_lshlrev_b32_e32" | "v_lshrrev_b32_e32" | "v_ashrrev_i32_e32" => {
                let n = self.read(arg(1)?, 1)?.bvand(k32(31));
                let a = self.read(arg(2)?, 1)?;
                let v = if m.starts_with("v_lshl") {
                    a.bvshl(&n)
                } else if m.starts_with("v_lshr") {
                    a.bvlshr(&n)
                } else {
                    a.bvashr(&n)
                };
                self.write(arg(0)?, &v, true)?;
            }
            "v_bfe_u32" if arg(2)?.imm.is_none() || arg(3)?.imm.is_none() => {
                // A field at a register offset or of a register width: bits 4:0 of each.
                let a = self.read(arg(1)?, 1)?;
                let off = self.read(arg(2)?, 1)?.bvand(k32(31));
                let width = self.read(arg(3)?, 1)?.bvand(k32(31));
                let ones = k32(1).bvshl(&width).bvsub(k32(1));
                self.write(arg(0)?, &a.bvlshr(&off).bvand(&ones), true)?;
            }
            "v_min_u32_e32" => {
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                self.write(arg(0)?, &a.bvult(&b).ite(&a, &b), true)?;
            }
            "v_bfe_u32" | "v_bfe_i32" => {
                let a = self.read(arg(1)?, 1)?;
                let (Some(off), Some(width)) = (arg(2)?.imm, arg(3)?.imm) else {
                    return Err(format!("`{m}` with a register offset or width"));
                };
                let (off, width) = (off as u32 & 31, width as u32 & 31);
                let v = if width == 0 {
                    k32(0)
                } else {
                    let field = a.extract((off + width - 1).min(31), off);
                    let got = field.get_size();
                    if m == "v_bfe_i32" {
                        field.sign_ext(32 - got)
                    } else {
                        field.zero_ext(32 - got)
                    }
                };
                self.write(arg(0)?, &v, true)?;
            }
            "v_cndmask_b32_e64" => {
                let (a, b) = (self.read(arg(1)?, 1)?, self.read(arg(2)?, 1)?);
                let sel = self.bit(arg(3)?)?;
                self.write(arg(0)?, &sel.ite(&b, &a), true)?;
            }
            _ => {
                let Some(rest) = m
                    .strip_prefix("v_cmp_")
                    .and_then(|r| r.strip_suffix("_e64"))
                else {
                    return Err(format!("no semantics for `{m}`"));
                };
                let words = if rest.ends_with("64") { 2 } else { 1 };
                let (a, b) = (self.read(arg(1)?, words)?, self.read(arg(2)?, words)?);
                let c = cmp(rest, &a, &b).ok_or_else(|| format!("no semantics for `{m}`"))?;
                self.write_bit(arg(0)?, &c)?;
            }
        }
        Ok(())
    }
}

/// A corpus kernel the snippets are spliced into, with its module (built into the binary
/// so that `warptrace verify --target gcn` runs anywhere).
#[derive(Debug, Clone, Copy)]
struct TvKernel {
    asm: &'static str,
    name: &'static str,
    /// Which hash updates the instrumenter combines within the wave: as the program's
    /// analysis decides (the kernels below), none (the per-lane forms) or all (the
    /// combined forms, proved under the premise of combining).
    combining: Combining,
}

/// The corpus's gfx942 HIP kernels, wave64: `histogram` for straight-line snippets and
/// its masked latch (`block_sum` of the module for a uniform one). Certificates are
/// proved on it.
const GFX942: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_kernels_gfx942.s"),
    name: "histogram",
    combining: Combining::Uniform,
};

/// The corpus's gfx942 kernel whose global accesses go through buffer descriptors
/// (`offen`, an SGPR scalar offset, an immediate offset).
const BUFFERS_GFX942: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_buffers_gfx942.s"),
    name: "buffer_rows",
    combining: Combining::Uniform,
};

/// [`BUFFERS_GFX942`]'s kernel whose buffer load has no VGPR address (`off`), its
/// descriptor adding the lane to the index.
const LANE_TABLE_GFX942: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_buffers_gfx942.s"),
    name: "lane_table",
    combining: Combining::Uniform,
};

/// [`BUFFERS_GFX942`] for gfx1100: wave32, and gfx11's two-bit swizzle field.
const BUFFERS_GFX1100: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_buffers_gfx1100.s"),
    name: "buffer_rows",
    combining: Combining::Uniform,
};

/// [`GFX942`]'s module for gfx90a: no XCDs (`smid` without `HW_REG_XCC_ID`), `glc` for
/// returning atomics.
#[cfg(test)]
const GFX90A: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_kernels_gfx90a.s"),
    name: "histogram",
    combining: Combining::Uniform,
};

/// The corpus's gfx1100 HIP grid kernel, wave32 with the gfx10+ mnemonics: the tests
/// prove the lowering's wave32 forms on it too.
#[cfg(test)]
const GFX1100: TvKernel = TvKernel {
    asm: include_str!("../../tests/corpus/gcn/hip_grid_gfx1100.s"),
    name: "volume_index",
    combining: Combining::Uniform,
};

impl TvKernel {
    /// This kernel, instrumented with `combining`.
    const fn with(self, combining: Combining) -> TvKernel {
        TvKernel { combining, ..self }
    }

    /// Lanes per wave: 32 with `.amdhsa_wavefront_size32 1`, else 64.
    fn lanes(self) -> Result<u32, String> {
        let m = parse(self.asm).map_err(|e| e.to_string())?;
        let wave32 = m
            .kernel(self.name)
            .and_then(|k| k.field(".amdhsa_wavefront_size32"));
        Ok(if wave32 == Some(1) { 32 } else { 64 })
    }
}

/// `asm` instrumented with `program`, `kernel` being instrumented (else why not).
fn instrumented(
    asm: &str,
    program: &Program,
    kernel: &str,
    combining: Combining,
) -> Result<String, String> {
    let verified = warptrace_verifier::verify_program(program).map_err(|e| format!("{e:?}"))?;
    let options = crate::Options {
        combining,
        ..crate::Options::default()
    };
    let out = crate::instrument_with(asm, &verified, &options).map_err(|e| e.to_string())?;
    let k = out
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .ok_or_else(|| format!("no kernel {kernel}"))?;
    if !matches!(k.status, crate::KernelStatus::Instrumented { .. }) {
        return Err(format!("{:?}", k.status));
    }
    Ok(out.asm)
}

/// The instructions of the `kernel:entry` snippet of `program` in kernel `k`.
fn entry_snippet(k: TvKernel, program: &Program) -> Result<Vec<Instruction>, String> {
    entry_code(k, program).map(|(_, snippet, _)| snippet)
}

/// The `kernel:entry` code of `program` in kernel `k`: the prologue (what is inserted
/// before the snippet), the snippet, and what the hardware gives the instrumented kernel
/// at entry.
fn entry_code(
    k: TvKernel,
    program: &Program,
) -> Result<(Vec<Instruction>, Vec<Instruction>, EntryAbi), String> {
    let out = instrumented(k.asm, program, k.name, k.combining)?;
    let before = parse(k.asm).map_err(|e| e.to_string())?;
    let after = parse(&out).map_err(|e| e.to_string())?;
    let k0 = before.kernel(k.name).ok_or("kernel")?;
    let first = k0
        .body
        .clone()
        .find(|&i| before.instr(i).is_some())
        .map(|i| before.stmt_text(i).to_owned())
        .ok_or("no instruction")?;
    let k1 = after.kernel(k.name).ok_or("kernel")?;
    // Everything inserted before the kernel's first instruction: the prologue (loads,
    // moves, a wait), then the snippet, which starts by saving `scc` (`s_cselect`).
    let mut code = Vec::new();
    for i in k1.body.clone() {
        match &after.stmts[i].kind {
            StmtKind::Instr(_) if after.stmt_text(i) == first => break,
            // Wait states for hazards (`hazard.rs`): no effect on a lane's values.
            StmtKind::Instr(x) if x.mnemonic == "s_nop" => {}
            StmtKind::Instr(x) => code.push(x.clone()),
            StmtKind::Label(l) if !code.is_empty() => code.push(label(l)),
            StmtKind::Label(_) | StmtKind::Directive { .. } => {}
        }
    }
    let start = code
        .iter()
        .position(|x| x.mnemonic.starts_with("s_cselect"))
        .ok_or("no snippet found")?;
    let snippet = code.split_off(start);
    let meta = after
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(k.name))
        .ok_or("no metadata")?;
    let processor = after.processor.as_deref().ok_or("no target")?;
    Ok((code, snippet, EntryAbi::of(k1, meta, processor)?))
}

/// What the hardware gives a kernel at entry, per the AMDGPU ABI (LLVM's AMDGPUUsage,
/// "Initial Kernel Execution State") and its descriptor and metadata: the kernarg
/// segment pointer after the private segment buffer, dispatch and queue pointers it
/// enables; the enabled workgroup ids after the user SGPRs, in x, y, z order; the
/// work-item ids packed in `v0` (x in bits 0–9, y 10–19, z 20–29: gfx90a, gfx940+), as
/// many as `.amdhsa_system_vgpr_workitem_id` requests; the hidden grid arguments at their
/// metadata offsets in the kernarg segment.
pub(crate) struct EntryAbi {
    /// The first SGPR of the kernarg segment pointer.
    pub(crate) kernarg: u32,
    /// The SGPR of each workgroup id the descriptor enables.
    pub(crate) workgroup: [Option<u32>; 3],
    workitem_dims: u32,
    group_size: [Option<u64>; 3],
    block_count: [Option<u64>; 3],
    wave: u64,
    /// gfx9 (`HW_REG_HW_ID`); otherwise gfx10+ (`HW_REG_HW_ID1`).
    gfx9: bool,
    /// gfx940+ (`HW_REG_XCC_ID`).
    gfx940: bool,
}

impl EntryAbi {
    pub(crate) fn of(
        k: &crate::parse::Kernel,
        meta: &crate::metadata::MetaKernel,
        processor: &str,
    ) -> Result<EntryAbi, String> {
        let field = |n: &str| k.field(&format!(".amdhsa_{n}")).unwrap_or(0);
        if field("user_sgpr_kernarg_segment_ptr") != 1 {
            return Err("no kernarg segment pointer".into());
        }
        let kernarg = 4 * field("user_sgpr_private_segment_buffer")
            + 2 * field("user_sgpr_dispatch_ptr")
            + 2 * field("user_sgpr_queue_ptr");
        let mut next = field("user_sgpr_count");
        let mut workgroup = [None; 3];
        for (d, id) in workgroup.iter_mut().enumerate() {
            if field(&format!("system_sgpr_workgroup_id_{}", ["x", "y", "z"][d])) == 1 {
                *id = Some(next as u32);
                next += 1;
            }
        }
        let hidden = |kind: &str| {
            meta.args
                .iter()
                .find(|a| a.value_kind() == kind)
                .and_then(|a| a.offset())
        };
        let dims = |what: &str| ["x", "y", "z"].map(|d| hidden(&format!("hidden_{what}_{d}")));
        Ok(EntryAbi {
            kernarg: kernarg as u32,
            workgroup,
            workitem_dims: field("system_vgpr_workitem_id") as u32,
            group_size: dims("group_size"),
            block_count: dims("block_count"),
            wave: if field("wavefront_size32") == 1 {
                32
            } else {
                64
            },
            gfx9: processor.starts_with("gfx9"),
            gfx940: crate::insn::Isa::new(processor, 64, None).gfx940,
        })
    }

    /// The kernarg segment's address: the SGPR pair's entry value.
    fn kernarg_base(&self) -> BV {
        let s = |i: u32| BV::new_const(format!("s{i}"), 32);
        s(self.kernarg + 1).concat(s(self.kernarg))
    }

    /// The grid value `name` (`tid.x`, `ntid.y`, `ctaid.z`, `nctaid.x`; 32 bits) in terms
    /// of the entry state: `v0`'s field (0 for an id the descriptor does not request,
    /// decision 0010), the workgroup id's SGPR, the 16- or 32-bit hidden argument in the
    /// kernarg segment. A value the kernel does not have is a fresh unknown (no claim
    /// about it can be proved).
    fn value(&self, name: &str) -> BV {
        let Some((what, d)) = name.split_once('.') else {
            return BV::new_const(format!("{name}?"), 32);
        };
        let Some(d) = ["x", "y", "z"].iter().position(|x| *x == d) else {
            return BV::new_const(format!("{name}?"), 32);
        };
        let unknown = || BV::new_const(format!("{name}?"), 32);
        let at = |off: u64| kernarg32(&self.kernarg_base().bvadd(BV::from_u64(off, 64)));
        match what {
            "tid" if d as u32 <= self.workitem_dims => {
                let lo = 10 * d as u32;
                BV::new_const("v0", 32).extract(lo + 9, lo).zero_ext(22)
            }
            "tid" => BV::from_u64(0, 32),
            "ctaid" => {
                self.workgroup[d].map_or_else(unknown, |i| BV::new_const(format!("s{i}"), 32))
            }
            "ntid" => self.group_size[d].map_or_else(unknown, |off| {
                let shift = 8 * (off % 4) as u32;
                at(off - off % 4).extract(shift + 15, shift).zero_ext(16)
            }),
            "nctaid" => self.block_count[d].map_or_else(unknown, at),
            _ => unknown(),
        }
    }

    /// The hardware's limits the specials' proofs assume: a block of 1 to 1024
    /// work-items per dimension, at least one block, ids below their dimensions, at
    /// most 65536 blocks in y and z (HIP's `maxGridSize` on gfx9), the lane below the
    /// wave size.
    fn assumptions(&self) -> Vec<Bool> {
        let u = |v: u64| BV::from_u64(v, 32);
        let mut out = vec![BV::new_const("hw.lane", 32).bvult(u(self.wave))];
        for (i, d) in ["x", "y", "z"].iter().enumerate() {
            let v = |w: &str| self.value(&format!("{w}.{d}"));
            out.push(v("ntid").bvuge(u(1)));
            out.push(v("ntid").bvule(u(1024)));
            out.push(v("tid").bvult(v("ntid")));
            out.push(v("nctaid").bvuge(u(1)));
            if i > 0 {
                out.push(v("nctaid").bvule(u(65536)));
            }
            out.push(v("ctaid").bvult(v("nctaid")));
        }
        out
    }
}

/// A global-memory site the site proofs instrument: the kernel, the attach point, the
/// probed instruction's mnemonic (its first such instruction) and the site's name in
/// obligations.
#[derive(Debug, Clone, Copy)]
struct Site {
    k: TvKernel,
    point: &'static str,
    mnemonic: &'static str,
    name: &'static str,
}

impl Site {
    const fn new(k: TvKernel, point: &'static str, mnemonic: &'static str) -> Site {
        Site {
            k,
            point,
            mnemonic,
            name: mnemonic,
        }
    }
}

/// The sites of the site proofs: the address forms of `histogram` (a `vaddr` pair, the
/// `saddr` form) and of the buffer kernels (`offen` with an SGPR scalar offset, a store
/// with an immediate offset, `off` with a descriptor that adds the lane, and gfx11's).
const SITES: [Site; 6] = [
    Site::new(GFX942, "mem:global:load", "global_load_ubyte"),
    Site::new(GFX942, "mem:global:atomic", "global_atomic_add"),
    Site::new(BUFFERS_GFX942, "mem:global:load", "buffer_load_dword"),
    Site::new(BUFFERS_GFX942, "mem:global:store", "buffer_store_dword"),
    Site {
        name: "buffer_load_dword.off",
        ..Site::new(LANE_TABLE_GFX942, "mem:global:load", "buffer_load_dword")
    },
    Site::new(BUFFERS_GFX1100, "mem:global:load", "buffer_load_b32"),
];

/// What a probed instruction is, read from the module for the site proofs (not from the
/// instrumenter): the instruction, its index among the kernel body's instructions, and
/// the file and line of the nearest `.loc` before it (the file's path, directory and
/// name joined, from `.file`).
struct SiteFacts {
    insn: Instruction,
    pc: u64,
    loc: Option<(String, u64)>,
    /// gfx11: buffer descriptors' two-bit swizzle field.
    gfx11: bool,
}

impl SiteFacts {
    fn of(asm: &str, kernel: &str, mnemonic: &str) -> Result<SiteFacts, String> {
        let m = parse(asm).map_err(|e| e.to_string())?;
        let k = m.kernel(kernel).ok_or("no kernel")?;
        let mut files = HashMap::new();
        let mut loc = None;
        let mut pc = 0;
        for line in asm.lines().map(str::trim) {
            // `.file N "dir" "name"` (or `"path"`): the path, quotes removed, joined.
            if let Some(rest) = line.strip_prefix(".file") {
                let mut words = rest.split_whitespace();
                if let Some(Ok(n)) = words.next().map(str::parse::<u64>) {
                    let parts: Vec<&str> = rest
                        .split('"')
                        .skip(1)
                        .step_by(2)
                        .filter(|p| !p.is_empty())
                        .collect();
                    files.insert(n, parts.join("/"));
                }
            }
        }
        for i in k.body.clone() {
            let text = m.stmt_text(i).trim();
            if let Some(rest) = text.strip_prefix(".loc") {
                let mut words = rest.split_whitespace().map(str::parse::<u64>);
                if let (Some(Ok(f)), Some(Ok(l))) = (words.next(), words.next()) {
                    loc = files.get(&f).map(|p| (p.clone(), l));
                }
            }
            if let Some(x) = m.instr(i) {
                if x.mnemonic == mnemonic {
                    return Ok(SiteFacts {
                        insn: x.clone(),
                        pc,
                        loc,
                        gfx11: m
                            .processor
                            .as_deref()
                            .is_some_and(|p| p.starts_with("gfx11")),
                    });
                }
                pc += 1;
            }
        }
        Err(format!("no `{mnemonic}` in `{kernel}`"))
    }

    /// The bytes a lane accesses, from the mnemonic's data type (the ISA's naming).
    fn bytes(&self) -> Option<u64> {
        let m = self.insn.mnemonic.as_str();
        // gfx9's names, then gfx11's (`global_store_b64`, `global_atomic_add_u64`).
        let table: [(&str, u64); 17] = [
            ("dwordx4", 16),
            ("dwordx3", 12),
            ("dwordx2", 8),
            ("_x2", 8),
            ("byte", 1),
            ("short", 2),
            ("dword", 4),
            ("_b128", 16),
            ("_b96", 12),
            ("_b64", 8),
            ("_b32", 4),
            ("_b16", 2),
            ("_b8", 1),
            ("_u64", 8),
            ("_i64", 8),
            ("_f64", 8),
            ("global_atomic_", 4),
        ];
        table.iter().find(|(t, _)| m.contains(t)).map(|(_, b)| *b)
    }

    /// `value` (`docs/ir.md`): the first element of the loaded register (after a load)
    /// or of the data register (before a store or atomic), zero-extended — 8 or 16 bits
    /// for byte and short accesses, 64 for a 64-bit atomic, else 32.
    fn value(&self, lane: &mut Lane) -> Result<BV, String> {
        let x = &self.insn;
        let m = x.mnemonic.as_str();
        let at = if m.starts_with("global_load") || m.starts_with("buffer_") {
            // A buffer access's data or destination is its first operand.
            0
        } else if m.starts_with("global_store") {
            1
        } else {
            // An atomic's data follows its destination (if it returns) and address.
            1 + usize::from(x.modifiers.iter().any(|w| w == "sc0" || w == "glc"))
        };
        let reg = x.operands.get(at).ok_or("no value operand")?;
        let bits: u32 = if m.contains("byte") {
            8
        } else if m.contains("short") {
            16
        } else if m.starts_with("global_atomic") && m.ends_with("_x2") {
            64
        } else {
            32
        };
        let v = lane.read(reg, bits.div_ceil(32))?;
        Ok(match bits {
            64 => v,
            _ => v.extract(bits - 1, 0).zero_ext(64 - bits),
        })
    }

    /// The address the instruction accesses (`docs/ir.md`: the effective address,
    /// immediate offset included) over the registers at the site: `saddr + zext(vaddr)`
    /// with an SGPR pair, else the 64-bit `vaddr`, plus `offset:N`. The address operand
    /// follows the destination of a load or a returning atomic (`sc0`/`glc`).
    fn addr(&self, lane: &mut Lane) -> Result<BV, String> {
        let x = &self.insn;
        if x.mnemonic.starts_with("buffer_") {
            return Ok(BufferTerms::of(self, lane)?.isa());
        }
        let returns = x.mnemonic.starts_with("global_load")
            || x.modifiers.iter().any(|m| m == "sc0" || m == "glc");
        let at = usize::from(returns);
        let vaddr = x.operands.get(at).ok_or("no address operand")?;
        // The last operand: `off` or the SGPR pair.
        let saddr = x.operands.last().ok_or("no saddr operand")?;
        let off = x
            .modifiers
            .iter()
            .find_map(|m| m.strip_prefix("offset:"))
            .map_or(Ok(0), str::parse::<i64>)
            .map_err(|e| e.to_string())?;
        let base = if saddr.text == "off" {
            lane.read(vaddr, 2)?
        } else {
            lane.read(saddr, 2)?
                .bvadd(lane.read(vaddr, 1)?.zero_ext(32))
        };
        Ok(base.bvadd(BV::from_i64(off, 64)))
    }
}

/// The terms of a `buffer_*` access's address over the registers at the site
/// (`vdata, vaddr|off, srsrc, soffset`), as the ISA defines it (`docs/gcn.md`, "Buffer
/// addresses"): base (48 bits of words 0–1) + scalar offset + the buffer offset, which is
/// `index · stride + offset` unless the descriptor swizzles, then
/// `(index / IS · stride + offset / E · E) · IS + index % IS · E + offset % E`; `index`
/// is the lane when word 3's `ADD_TID_ENABLE` is set, `offset` the VGPR offset (`offen`)
/// plus the immediate (32-bit), `IS = 8 << INDEX_STRIDE`, `E` 4 bytes (gfx9) or
/// `2 << code` (gfx11's swizzle field). The sizes are powers of two, `2^n`: `x / 2^n` is
/// `x >> n`, `x % 2^n` is `x & (2^n − 1)`, `x · 2^n` is `x << n` (the test
/// `power_of_two_sizes_divide_as_shifts` proves it over the operands' widths).
struct BufferTerms {
    base: BV,
    soffset: BV,
    /// Whether the scalar offset is a register or a nonzero constant (else no step adds
    /// it).
    adds_soffset: bool,
    /// 64-bit (a 32-bit sum, zero-extended).
    offset: BV,
    /// 32-bit factors of [`product`].
    index: BV,
    stride: BV,
    swizzled: Bool,
    log_element: BV,
    log_index_stride: BV,
}

impl BufferTerms {
    fn of(facts: &SiteFacts, lane: &mut Lane) -> Result<BufferTerms, String> {
        let x = &facts.insn;
        let flag = |f: &str| x.modifiers.iter().any(|w| w == f);
        if flag("idxen") {
            return Err("no specification of an idxen buffer address".into());
        }
        let operand = |i: usize| x.operands.get(i).ok_or_else(|| format!("operand {i}"));
        let rsrc = lane.read(operand(2)?, 4)?;
        let field = |hi: u32, lo: u32| rsrc.extract(hi, lo).zero_ext(64 - (hi - lo + 1));
        let imm = x
            .modifiers
            .iter()
            .find_map(|m| m.strip_prefix("offset:"))
            .map_or(Ok(0), str::parse::<u64>)
            .map_err(|e| e.to_string())?;
        let voffset = if flag("offen") {
            lane.read(operand(1)?, 1)?
        } else {
            BV::from_u64(0, 32)
        };
        let k = |v: u64| BV::from_u64(v, 64);
        let (swizzled, log_element) = if facts.gfx11 {
            let code = field(63, 62);
            (code.eq(k(0)).not(), code.bvadd(k(1)))
        } else {
            (field(63, 63).eq(k(1)), k(2))
        };
        Ok(BufferTerms {
            base: field(47, 0),
            soffset: lane.read(operand(3)?, 1)?.zero_ext(32),
            adds_soffset: operand(3)?.imm.is_none_or(|v| v != 0),
            offset: voffset.bvadd(BV::from_u64(imm, 32)).zero_ext(32),
            index: rsrc
                .extract(119, 119)
                .eq(BV::from_u64(1, 1))
                .ite(&BV::new_const("hw.lane", 32), &BV::from_u64(0, 32)),
            stride: rsrc.extract(61, 48).zero_ext(18),
            swizzled,
            log_element,
            log_index_stride: field(118, 117).bvadd(k(3)),
        })
    }

    /// The address, the ISA's two cases.
    fn isa(&self) -> BV {
        let (e, is) = (&self.log_element, &self.log_index_stride);
        let index = self.index.zero_ext(32);
        let linear = product(&self.index, &self.stride).bvadd(&self.offset);
        let index_msb = index.bvlshr(is).extract(31, 0);
        let swizzle = product(&index_msb, &self.stride)
            .bvadd(self.offset.bvlshr(e).bvshl(e))
            .bvshl(is)
            .bvadd(low_bits(&index, is).bvshl(e))
            .bvadd(low_bits(&self.offset, e));
        self.base
            .bvadd(&self.soffset)
            .bvadd(self.swizzled.ite(&swizzle, &linear))
    }

    /// `log2 IS` when the descriptor swizzles, else 0: the one formula of both cases.
    fn shift(&self) -> BV {
        let zero = BV::from_u64(0, 64);
        self.swizzled.ite(&self.log_index_stride, &zero)
    }

    /// The snippet's steps in the 64-bit pair it shifts ([`buffer_cuts`]), each from the
    /// previous one's constant: `index >> L · stride + (offset − offset % E)`, that
    /// `<< L`, that `+ index % 2^L · E + offset % E`, that `+ base`, that `+ soffset`
    /// (when there is one).
    #[allow(clippy::type_complexity)]
    fn steps(&self) -> Vec<Box<dyn Fn(&BV) -> BV + '_>> {
        let (l, e) = (self.shift(), &self.log_element);
        let (l0, l2) = (l.clone(), l.clone());
        let mut steps: Vec<Box<dyn Fn(&BV) -> BV + '_>> = vec![
            Box::new(move |_| {
                let index_msb = self.index.bvlshr(l0.extract(31, 0));
                product(&index_msb, &self.stride)
                    .bvadd(self.offset.bvsub(low_bits(&self.offset, e)))
            }),
            Box::new(move |t| t.bvshl(&l)),
            Box::new(move |t| {
                let index = self.index.zero_ext(32);
                t.bvadd(low_bits(&index, &l2).bvshl(e))
                    .bvadd(low_bits(&self.offset, e))
            }),
            Box::new(move |t| t.bvadd(&self.base)),
        ];
        if self.adds_soffset {
            steps.push(Box::new(move |t| t.bvadd(&self.soffset)));
        }
        steps
    }
}

/// `x & (2^n − 1)` (64-bit).
fn low_bits(x: &BV, n: &BV) -> BV {
    let one = BV::from_u64(1, 64);
    x.bvand(one.bvshl(n).bvsub(&one))
}

/// The cuts of a buffer address's run: the 64-bit pair the snippet shifts by `L`
/// (`v_lshlrev_b64` by a register), after the instruction that completes the first step
/// in it, after the shift, and after the add of the low bits ([`BufferTerms::steps`]).
fn buffer_cuts(code: &[Instruction]) -> Result<Cuts, String> {
    let at = code
        .iter()
        .position(|x| {
            x.mnemonic == "v_lshlrev_b64" && x.operands.get(1).is_some_and(|o| o.reg.is_some())
        })
        .ok_or("no shift of the buffer offset by a register")?;
    let pair = code[at]
        .operands
        .first()
        .and_then(|o| o.reg)
        .filter(|r| r.count == 2)
        .ok_or("the shifted pair")?;
    let first = at.checked_sub(1).ok_or("no first step")?;
    // Then each 64-bit add into the pair (its carry half writes the high word) up to the
    // copy of the address out of it.
    let high = Reg::new(RegFile::Vgpr, pair.first + 1, 1);
    let low = Some(Reg::new(RegFile::Vgpr, pair.first, 1));
    let end = (at + 1..code.len())
        .find(|&i| {
            code[i].mnemonic == "v_mov_b32_e32"
                && code[i].operands.get(1).and_then(|o| o.reg) == low
        })
        .ok_or("no copy of the buffer address")?;
    let adds = (at + 1..end).filter(|&i| {
        is_carry(&code[i]) && code[i].operands.first().and_then(|o| o.reg) == Some(high)
    });
    Ok(Cuts {
        regs: [pair.first, pair.first + 1],
        after: [first, at].into_iter().chain(adds).collect(),
    })
}

/// The claims that the cut run `r` of a buffer address computes [`BufferTerms::steps`],
/// and that the steps compose to the ISA's address; and the address: the last step's
/// constant.
fn buffer_claims(t: &BufferTerms, r: &Run) -> Result<(Vec<Claim>, BV), String> {
    let steps = t.steps();
    if r.cuts.len() != steps.len() {
        return Err(format!(
            "the buffer address in {} steps, not {}",
            r.cuts.len(),
            steps.len()
        ));
    }
    let mut claims = Vec::new();
    let mut prev = BV::from_u64(0, 64);
    for (i, ((value, fresh), step)) in r.cuts.iter().zip(&steps).enumerate() {
        let want = step(&prev);
        claims.push((
            format!("buffer address step {i}"),
            value.eq(&want),
            Some((value.clone(), want)),
        ));
        prev = fresh.clone();
    }
    // The steps composed are the ISA's address (a fact of the specification alone).
    let composed = steps
        .iter()
        .fold(BV::from_u64(0, 64), |acc, step| step(&acc));
    let isa = t.isa();
    claims.push((
        "the steps are the ISA's buffer address".to_owned(),
        composed.eq(&isa),
        Some((composed, isa)),
    ));
    Ok((claims, prev))
}

/// `code`, the snippet at the site `facts` reads, run from `lane` — a product of two
/// registers uninterpreted at a buffer access ([`product`]) — and, when the snippet
/// computes that buffer access's address (`addr`), cut at its steps ([`buffer_cuts`]):
/// the run, the steps' claims and the address in terms of them ([`buffer_claims`]);
/// otherwise no claims and no address.
fn run_at_site(
    mut lane: Lane,
    facts: &SiteFacts,
    code: &[Instruction],
    addr: bool,
) -> Result<(Run, Vec<Claim>, Option<BV>), String> {
    lane.products = facts.insn.mnemonic.starts_with("buffer_");
    let buffer = (lane.products && addr)
        .then(|| BufferTerms::of(facts, &mut Lane::new()))
        .transpose()?;
    let cuts = buffer.as_ref().map(|_| buffer_cuts(code)).transpose()?;
    let r = run_cut_from(lane, code, cuts.as_ref())?;
    let Some(t) = buffer else {
        return Ok((r, Vec::new(), None));
    };
    let (claims, addr) = buffer_claims(&t, &r)?;
    Ok((r, claims, Some(addr)))
}

/// The verdict on `r2 = site VALUE` / `r2 = sreg VALUE` (`what`) at `SITES[site]`: `%a`
/// ends as what the probed instruction gives (`SiteFacts`), `exec`, `vcc` and `scc`
/// restored.
fn site_verdict(what: &str, site: usize) -> Verdict {
    outcome(site_check(what, site, None))
}

/// A change to a snippet (a test's mutant).
type Mutation<'a> = &'a dyn Fn(&mut Vec<Instruction>);

/// The claim of [`site_verdict`]; `mutate` changes the snippet first (tests).
fn site_check(what: &str, site: usize, mutate: Option<Mutation<'_>>) -> Result<(), String> {
    let Site {
        k, point, mnemonic, ..
    } = SITES[site];
    let facts = SiteFacts::of(k.asm, k.name, mnemonic)?;
    let body = format!("  2: r2 = {what}\n  3: store %a, r2\n  4: exit\n");
    // A load's value is read after it.
    let point = match (what, mnemonic.contains("_load")) {
        ("site value", true) => format!("after {point}"),
        _ => point.to_owned(),
    };
    let mut code = point_snippet_in(k.asm, k.name, &point, &body)?;
    if let Some(m) = mutate {
        m(&mut code);
    }
    let (mut r, mut claims, buffer_addr) =
        run_at_site(Lane::new(), &facts, &code, what == "site addr")?;
    // The lane index (a buffer descriptor may add it to the address) is below the wave's.
    let lanes = BV::from_u64(u64::from(k.lanes()?), 32);
    r.assume.push(BV::new_const("hw.lane", 32).bvult(&lanes));
    if !r.effects.is_empty() {
        return Err("the snippet accesses global memory".into());
    }
    let k = |v: u64| BV::from_u64(v, 64);
    let want = match what {
        "site bytes" => k(facts.bytes().ok_or("no access size")?),
        "site addr" => match buffer_addr {
            Some(a) => a,
            None => facts.addr(&mut Lane::new())?,
        },
        "site opcode" => k(warptrace_ir::kernel_id(mnemonic)),
        "site value" => facts.value(&mut Lane::new())?,
        "sreg pc" => k(facts.pc),
        "sreg line" => k(facts.loc.as_ref().map_or(0, |(_, l)| *l)),
        "sreg file" => k(facts
            .loc
            .as_ref()
            .map_or(0, |(f, _)| warptrace_ir::kernel_id(f))),
        other => return Err(format!("no specification of `{other}`")),
    };
    claims.extend([
        (
            what.to_owned(),
            r.got.eq(&want),
            Some((r.got.clone(), want)),
        ),
        (
            "exec, vcc, scc restored".to_owned(),
            r.restored.clone(),
            None,
        ),
    ]);
    prove_claims(&r, claims)
}

/// The verdict on `r2 = site sectors` / `run` / `wavefronts` at `SITES[site]`
/// ([`waterfall_check`]).
fn waterfall_verdict(value: crate::tv_waterfall::Waterfall, site: usize) -> Verdict {
    let Site {
        k, point, mnemonic, ..
    } = SITES[site];
    outcome(waterfall_check(value, k, (point, mnemonic), None))
}

/// The claim of [`waterfall_verdict`] at `site` (a point and the mnemonic it probes) of
/// kernel `k`: the snippet's waterfall loop keeps its invariant over a wave of the
/// kernel's 64 or 32 lanes (`tv_waterfall::prove_round`), and around the loop the lane
/// model proves that the loop starts with the site's lanes in `exec`, each lane's key
/// (`addr >> 5`; `addr − lane · bytes`; `addr >> u`) in the key pair, a count of zero
/// (`wavefronts`: each lane's group and count, the pair holding the site's lanes), and
/// that `%a` ends as the loop's output with `exec`, `vcc` and `scc` restored. The
/// invariant at the loop's exit is the value `docs/ir.md` defines over the site's lanes.
/// `mutate` changes the snippet first (tests).
fn waterfall_check(
    value: crate::tv_waterfall::Waterfall,
    k: TvKernel,
    (point, mnemonic): (&str, &str),
    mutate: Option<Mutation<'_>>,
) -> Result<(), String> {
    use crate::tv_waterfall::{loop_body, prove_round_cached, Waterfall};
    let facts = SiteFacts::of(k.asm, k.name, mnemonic)?;
    let lanes = k.lanes()?;
    let name = value.site_value().name();
    let body = format!("  2: r2 = site {name}\n  3: store %a, r2\n  4: exit\n");
    let mut code = point_snippet_in(k.asm, k.name, point, &body)?;
    if let Some(m) = mutate {
        m(&mut code);
    }
    // The one loop, which the wave model proves and the lane model passes over.
    let loops: Vec<&String> = code
        .iter()
        .filter(|x| x.mnemonic == LABEL)
        .filter_map(|x| x.modifiers.first())
        .filter(|l| loop_body(&code, l).is_ok())
        .collect();
    let [label] = loops[..] else {
        return Err(format!(
            "{} waterfall loops in the snippet, not one",
            loops.len()
        ));
    };
    let regs = prove_round_cached(value, loop_body(&code, label)?, lanes)?;
    let mut lane = Lane::new();
    lane.waterfalls = true;
    let (mut r, mut claims, buffer_addr) = run_at_site(lane, &facts, &code, true)?;
    if !r.effects.is_empty() {
        return Err("the snippet accesses global memory".into());
    }
    let mut at = r
        .waterfall
        .clone()
        .ok_or("the run passed no waterfall loop")?;
    let key = at.vgpr(regs.key + 1).concat(at.vgpr(regs.key));
    let addr = match buffer_addr {
        Some(a) => a,
        None => facts.addr(&mut Lane::new())?,
    };
    let lane = BV::new_const("hw.lane", 32);
    r.assume
        .push(lane.bvult(BV::from_u64(u64::from(lanes), 32)));
    let count = || BV::new_const(format!("wf.s{}", regs.out), 32).zero_ext(32);
    let k32 = |v: u64| BV::from_u64(v, 32);
    let (want_key, output, start) = match value {
        Waterfall::Sectors => (
            addr.bvlshr(BV::from_u64(
                u64::from(warptrace_ir::SECTOR_BYTES.trailing_zeros()),
                64,
            )),
            count(),
            at.sgpr(regs.out).eq(k32(0)),
        ),
        Waterfall::Wavefronts => {
            // The unit `addr >> u`; each lane's group (the unit's low bits), its count 0,
            // the site's lanes in the pair the rounds set `exec` from.
            let g = regs.groups.ok_or("the groups")?;
            let bytes = facts.bytes().ok_or("no access size")?;
            let shift = warptrace_ir::wavefront_unit_log2(bytes);
            let groups = warptrace_ir::WAVEFRONT_BYTES >> shift;
            if u64::try_from(g.mask).ok() != Some(groups - 1) {
                return Err(format!(
                    "the rounds take a group by the mask {}, not {}",
                    g.mask,
                    groups - 1
                ));
            }
            let unit = addr.bvlshr(BV::from_u64(u64::from(shift), 64));
            let group = unit.extract(31, 0).bvand(BV::from_i64(g.mask, 32));
            let start = Bool::and(&[
                at.sgpr(regs.out).eq(k32(0)),
                at.vgpr(g.group).eq(&group),
                at.vgpr(g.count).eq(k32(0)),
                if lanes == 64 {
                    at.sgpr(g.lanes + 1).concat(at.sgpr(g.lanes)).eq(&r.exec)
                } else {
                    at.sgpr(g.lanes).eq(r.exec.extract(31, 0))
                },
            ]);
            (unit, count(), start)
        }
        Waterfall::Run => {
            let bytes = facts.bytes().ok_or("no access size")?;
            (
                addr.bvsub(lane.zero_ext(32).bvmul(BV::from_u64(bytes, 64))),
                BV::new_const(format!("wf.v{}", regs.out + 1), 32)
                    .concat(BV::new_const(format!("wf.v{}", regs.out), 32)),
                Bool::from_bool(true),
            )
        }
    };
    claims.extend([
        (
            "the loop starts with the site's lanes".to_owned(),
            at.exec.eq(&r.exec),
            None,
        ),
        (
            "each lane's key".to_owned(),
            key.eq(&want_key),
            Some((key.clone(), want_key)),
        ),
        (
            "the count starts at zero (wavefronts: the groups, the lanes)".to_owned(),
            start,
            None,
        ),
        (
            format!("site {name} is the loop's output"),
            r.got.eq(&output),
            Some((r.got.clone(), output)),
        ),
        (
            "exec, vcc, scc restored".to_owned(),
            r.restored.clone(),
            None,
        ),
    ]);
    prove_claims(&r, claims)
}

/// `code` run after the entry `prologue`, from the kernel's entry state: the registers
/// the prologue sets (the kernarg loads, the saved `v0` and workgroup ids) hold its terms
/// over that state, so the snippet's terms are built over it (in the canonical order the
/// specifications use), and the lane is active (`exec` bit 0 set), so every vector
/// write's `ite` on it is gone. The persistent registers (found by a first run of `code`
/// alone) keep fresh inputs: they hold what the last firing left, not the prologue's
/// zero.
fn run_from_entry(
    prologue: &[Instruction],
    code: &[Instruction],
    cuts: Option<&Cuts>,
) -> Result<Run, String> {
    run_lane_from_entry(Lane::active(), prologue, code, cuts)
}

/// [`run_from_entry`] of `lane` (its position, its facts, `exec` with its bit set).
fn run_lane_from_entry(
    mut lane: Lane,
    prologue: &[Instruction],
    code: &[Instruction],
    cuts: Option<&Cuts>,
) -> Result<Run, String> {
    let (a, b) = run_cut(code, cuts)?.regs;
    for x in prologue {
        lane.step(x)
            .map_err(|e| format!("{e} (in the prologue's `{}`)", x.mnemonic))?;
    }
    for i in [a, a + 1, b, b + 1] {
        lane.v.remove(&i);
    }
    lane.v_inputs.clear();
    run_cut_from(lane, code, cuts)
}

/// The verdict on the snippet of `map.save @m, %b, (fields)` in kernel `k` to an array
/// of `slots` records per row, `per` thread or warp (a `warp kernel:entry` probe): the
/// lane's memory operations are the IR's save ([`array_check`]); in a `warp` probe the
/// other lanes only advance their cursor ([`non_leader_check`]).
fn array_verdict(
    k: TvKernel,
    per: warptrace_ir::Per,
    slots: u32,
    fields: &[warptrace_ir::Operand],
) -> Verdict {
    let per_name = match per {
        warptrace_ir::Per::Thread => "thread",
        warptrace_ir::Per::Warp => "warp",
    };
    let record = vec!["u64"; fields.len()].join(", ");
    let maps = format!("map @m: array(per = {per_name}, slots = {slots}) -> record({record})\n");
    let tuple: Vec<String> = fields.iter().map(ToString::to_string).collect();
    let line = format!("map.save @m, %b, ({})", tuple.join(", "));
    let mut p = entry_program_with(&maps, &[&line, "exit"]);
    if per == warptrace_ir::Per::Warp {
        for probe in &mut p.probes {
            probe.attach.granularity = warptrace_ir::Granularity::Warp;
        }
    }
    let layout = warptrace_ir::MapLayout::new(&p.maps);
    let Some(region) = layout.regions.first().copied() else {
        return Verdict::Unknown {
            reason: "no region".into(),
        };
    };
    outcome(entry_code(k, &p).and_then(|(prologue, code, abi)| {
        array_check(&prologue, &code, &abi, &region, fields)?;
        if per == warptrace_ir::Per::Warp {
            non_leader_check(&prologue, &code, slots)?;
        }
        schoolbook_lemma(true)
    }))
}

/// The claim of [`array_verdict`] on the other lanes of a `warp` probe's save (of an
/// array of `slots` records per row): a lane above an active lane (bit 1 of `exec`, bit
/// 0 set, so it is no leader) makes no memory operation — no record, no drop — and its
/// cursor `%b` becomes `s + 1` unless `s ≥ slots`; `exec`, `vcc`, `scc` are restored.
fn non_leader_check(
    prologue: &[Instruction],
    code: &[Instruction],
    slots: u32,
) -> Result<(), String> {
    let mut lane = Lane::new();
    lane.pos = 1;
    lane.exec = lane.exec.bvor(BV::from_u64(0b11, 64));
    let r = run_lane_from_entry(lane, prologue, code, None)?;
    let s = r.b.clone();
    let k = |v: u64| BV::from_u64(v, 64);
    let next = s.bvuge(k(u64::from(slots))).ite(&s, &s.bvadd(k(1)));
    let mut claims: Vec<Claim> = r
        .effects
        .iter()
        .enumerate()
        .map(|(i, e)| (format!("no memory operation {i}"), e.guard.not(), None))
        .collect();
    claims.push((
        "the cursor".into(),
        r.got_b.eq(&next),
        Some((r.got_b.clone(), next)),
    ));
    claims.push(("exec, vcc, scc restored".into(), r.restored.clone(), None));
    prove_claims(&r, claims)
}

/// The claim of [`array_verdict`]: for one active lane (bit 0 of `exec`: in a `warp`
/// probe the first active lane, the writer), from the kernel's entry state within the
/// hardware's limits ([`EntryAbi`]), with `s` the cursor `%b`: when `s ≥ slots`, one
/// increment of the drop counter and `%b` unchanged; otherwise `%b = s + 1`, the load of
/// the array word `W` (the records' offset the runtime writes) and, at `off = W +
/// ((block·rows + row)·slots + s)·slot_bytes` (`semantics::array_place`/`array_index`,
/// staged as the snippet computes it: the run is cut after each stage, products in
/// schoolbook form), a per-warp record's `seq` load, then the fields and `seq = s + 1` —
/// or, where the record cannot be placed (`docs/gcn.md`, "Arrays": a dimension without
/// an id whose size is not 1, `off ≥ 2^32`; a per-warp record already written), one
/// increment of the drop counter instead.
fn array_check(
    prologue: &[Instruction],
    code: &[Instruction],
    abi: &EntryAbi,
    region: &warptrace_ir::MapRegion,
    fields: &[warptrace_ir::Operand],
) -> Result<(), String> {
    use warptrace_verifier::semantics::array_place;
    let warptrace_ir::MapKind::Array { per, slots } = region.kind else {
        return Err("not an array".into());
    };
    let k = |v: u64| BV::from_u64(v, 64);
    // The offset's pair: the destination of the last 64-bit add before the first store
    // (`+ W`); a stage ends at each write of its high word from the end of the linear
    // block (the first carry into it) on.
    let store = code
        .iter()
        .position(|x| x.mnemonic == "global_store_dwordx2")
        .ok_or("no store")?;
    let last = code[..store]
        .iter()
        .rposition(is_carry)
        .ok_or("no 64-bit add")?;
    let pair = add64_pair(code, last)?;
    let first = (0..last)
        .find(|&i| is_carry(&code[i]) && add64_pair(code, i).ok() == Some(pair))
        .unwrap_or(last);
    let mut cuts = Cuts::writes(code, pair, last + 1);
    cuts.after.retain(|&i| i >= first);
    let mut r = run_from_entry(prologue, code, Some(&cuts))?;
    r.assume = abi.assumptions();

    // The IR's place of the record, staged.
    let value = |n: &str| abi.value(n);
    let place = array_place(per, &value);
    let loads: Vec<BV> = r
        .effects
        .iter()
        .filter(|e| e.op == "load")
        .filter_map(|e| e.result.clone())
        .collect();
    let w = loads.first().cloned().ok_or("no load of the array word")?;
    let s = r.b.clone();
    let tag = |i: usize| BV::new_const(format!("tag#{i}"), 64);
    let stages = [
        place.block.clone(),
        schoolbook(&tag(0), &place.rows),
        tag(1).bvadd(&place.row),
        schoolbook(&tag(2), &k(u64::from(slots))),
        tag(3).bvadd(&s),
        schoolbook(&tag(4), &k(region.slot_bytes())),
        tag(5).bvadd(&w),
    ];
    if r.cuts.len() != stages.len() {
        return Err(format!(
            "the offset is computed in {} stages, the IR's formula has {}",
            r.cuts.len(),
            stages.len()
        ));
    }
    // Dimensions the hardware gives no id for, whose size is not 1: the record cannot
    // be placed (with a size of 1, the id is 0 by the limits).
    let mut unknown = Vec::new();
    for (d, name) in ["x", "y", "z"].iter().enumerate() {
        if d as u32 > abi.workitem_dims {
            unknown.push(value(&format!("ntid.{name}")).eq(BV::from_u64(1, 32)).not());
        }
        if d > 0 && abi.workgroup[d].is_none() {
            unknown.push(
                value(&format!("nctaid.{name}"))
                    .eq(BV::from_u64(1, 32))
                    .not(),
            );
        }
    }
    let unknown = Bool::or(&unknown);
    // The lane's offset matters only when it takes a slot (else it is out of `exec`) in
    // a grid where the record has a place.
    let full = s.bvuge(k(u64::from(slots)));
    let computed = Bool::and(&[full.not(), unknown.not()]);
    // The stages from a run that assumes `computed` (the claims do): the lane's writes
    // are then unconditional where `computed` puts it in `exec`, so that the stages'
    // products are the plain terms the specification's are, not `ite`s of `exec`
    // (gfx1100's `volume_index`, whose three workgroup ids make the linear block a
    // product z3 did not decide through them).
    let mut lane = Lane::active();
    lane.assumed = Some(computed.clone());
    let staged = run_lane_from_entry(lane, prologue, code, Some(&cuts))?;
    if staged.cuts.len() != stages.len() {
        return Err("the assuming run cut the offset elsewhere".into());
    }
    let mut claims: Vec<Claim> = Vec::new();
    for (i, ((got, _), want)) in staged.cuts.iter().zip(&stages).enumerate() {
        claims.push((
            format!("offset stage {i}"),
            computed.implies(got.eq(want)),
            Some((got.clone(), want.clone())),
        ));
    }
    for (i, e) in place.exact.iter().enumerate() {
        claims.push((format!("exact step {i}"), e.clone(), None));
    }
    claims.push((
        "the cursor".into(),
        r.got_b.eq(full.ite(&s, &s.bvadd(k(1)))),
        Some((r.got_b.clone(), full.ite(&s, &s.bvadd(k(1))))),
    ));
    // At twenty times the limit, as the memory goals: with three workgroup ids (gfx1100's
    // `volume_index`) the per-warp linear block was decided at the verifier's limit or
    // not depending on the terms the thread's z3 context already held.
    prove_claims_with(&r, claims, MEMORY_RLIMIT)?;

    // The memory operations.
    let off = tag(6);
    let base = r
        .effects
        .first()
        .map(|e| e.base.clone())
        .ok_or("no memory operation")?;
    let drops = base.bvadd(k(region.drops_offset));
    let placed = full.not();
    let misplaced = Bool::or(&[&unknown, &off.bvuge(k(1 << 32))]);
    let mut want = vec![
        Expected {
            guard: full.clone(),
            op: "red.add",
            addr: drops.clone(),
            data: k(1),
        },
        Expected {
            guard: placed.clone(),
            op: "load",
            addr: base.bvadd(k(region.slots_offset)),
            data: k(0),
        },
    ];
    let mut bad = misplaced.clone();
    if per == warptrace_ir::Per::Warp {
        let seq = loads.get(1).cloned().ok_or("no load of the record's seq")?;
        want.push(Expected {
            guard: Bool::and(&[&placed, &misplaced.not()]),
            op: "load",
            addr: base.bvadd(&off),
            data: k(0),
        });
        bad = Bool::or(&[&misplaced, &seq.eq(k(0)).not()]);
    }
    want.push(Expected {
        guard: Bool::and(&[&placed, &bad]),
        op: "red.add",
        addr: drops,
        data: k(1),
    });
    let written = Bool::and(&[&placed, &bad.not()]);
    for (i, f) in fields.iter().enumerate() {
        want.push(Expected {
            guard: written.clone(),
            op: "store",
            addr: base.bvadd(&off).bvadd(k(8 * (i as u64 + 1))),
            data: form_term(f, &r.a, &r.b),
        });
    }
    want.push(Expected {
        guard: written,
        op: "store",
        addr: base.bvadd(&off),
        data: s.bvadd(k(1)),
    });
    compare(&r, want, "s", &s)
}

/// Proves each claim over the run's inputs, the lane active and the run's assumptions
/// held: the first that fails gives its counterexample (or "unknown").
fn prove_claims(r: &Run, claims: Vec<Claim>) -> Result<(), String> {
    prove_claims_with(r, claims, warptrace_verifier::SOLVER_RLIMIT)
}

/// [`prove_claims`] with each goal's solver at resource limit `rlimit`.
fn prove_claims_with(r: &Run, claims: Vec<Claim>, rlimit: u32) -> Result<(), String> {
    for (what, goal, sides) in claims {
        let solver = r.solver(rlimit);
        // Simplified: z3's normal form orders commutative operands the same way on both
        // sides whatever order the terms were built in.
        solver.assert(goal.not().simplify());
        match warptrace_verifier::check_with_retry(&solver, rlimit) {
            SatResult::Unsat => {}
            SatResult::Sat => {
                let m = solver.get_model().ok_or("no model")?;
                let show = |t: &BV| m.eval(t, true).map_or("?".into(), |v| v.to_string());
                let sides = sides.map_or(String::new(), |(g, w)| {
                    format!(": snippet {}, IR {}", show(&g), show(&w))
                });
                return Err(format!(
                    "counterexample ({what}{sides}): v0 = {}, lane = {}, a = {}, b = {}",
                    show(&BV::new_const("v0", 32)),
                    show(&BV::new_const("hw.lane", 32)),
                    show(&r.a),
                    show(&r.b)
                ));
            }
            SatResult::Unknown => return Err(format!("unknown ({what})")),
        }
    }
    Ok(())
}

/// The special registers [`gcn_special`] specifies (the others are listed as not
/// proved).
const PROVED_SPECIALS: [warptrace_ir::Special; 22] = [
    warptrace_ir::Special::Clock,
    warptrace_ir::Special::Clock64,
    warptrace_ir::Special::GlobalTimer,
    warptrace_ir::Special::Smid,
    warptrace_ir::Special::Nsmid,
    warptrace_ir::Special::Warpid,
    warptrace_ir::Special::Lane,
    warptrace_ir::Special::TidX,
    warptrace_ir::Special::TidY,
    warptrace_ir::Special::TidZ,
    warptrace_ir::Special::NtidX,
    warptrace_ir::Special::NtidY,
    warptrace_ir::Special::NtidZ,
    warptrace_ir::Special::CtaidX,
    warptrace_ir::Special::CtaidY,
    warptrace_ir::Special::CtaidZ,
    warptrace_ir::Special::NctaidX,
    warptrace_ir::Special::NctaidY,
    warptrace_ir::Special::NctaidZ,
    warptrace_ir::Special::Warp,
    warptrace_ir::Special::Block,
    warptrace_ir::Special::Thread,
];

/// The claim on `r2 = sreg launch` (stored to `%b`): the lane's one memory operation is
/// the load of the launch word from the map buffer (`MapLayout::launch_offset`, where the
/// runtime writes the launch's number), and `%b` ends as what it loaded, `%a`, `exec`,
/// `vcc`, `scc` as they began. `mutate` changes the snippet first (tests).
fn launch_check(mutate: Option<Mutation<'_>>) -> Result<(), String> {
    let p = entry_program(&["r2 = sreg launch", "store %b, r2", "exit"]);
    let layout = warptrace_ir::MapLayout::new(&p.maps);
    let mut code = entry_snippet(GFX942, &p)?;
    if let Some(m) = mutate {
        m(&mut code);
    }
    let r = run(&code)?;
    let load = r.effects.first().ok_or("no load")?;
    let word = load.result.clone().ok_or("the load returns nothing")?;
    let want = vec![Expected {
        guard: Bool::from_bool(true),
        op: "load",
        addr: load.base.bvadd(BV::from_u64(layout.launch_offset, 64)),
        data: BV::from_u64(0, 64),
    }];
    prove_equal("the launch word", &r, &r.got_b, &word)?;
    compare(&r, want, "launch", &word)
}

/// A special's specification for [`special_check`]: its value, the goals of its 32-bit
/// formula's exactness, and for a value the snippet computes in stages (`thread`: the
/// linear block, its product with the threads per block, the sum) the value of each stage
/// but the last — the run is cut where the snippet has it (its first 64-bit add, then
/// that pair's next write), each stage and `value` in terms of the previous cut's fresh
/// constant `tag#k`.
struct Spec {
    value: BV,
    exact: Vec<Bool>,
    stages: Vec<BV>,
}

/// `smid` at its own width: gfx9: the CU, SH and SE ids, bits 8–15 of HW_REG_HW_ID, with
/// gfx940+'s XCD (bits 0–3 of HW_REG_XCC_ID) above them; gfx10+: the WGP, SA and SE ids,
/// bits 10–20 of HW_REG_HW_ID1.
fn smid(abi: &EntryAbi) -> BV {
    let hw = |n: &str| BV::new_const(format!("hw.{n}"), 32);
    match (abi.gfx9, abi.gfx940) {
        (_, true) => hw("HW_REG_XCC_ID")
            .extract(3, 0)
            .concat(hw("HW_REG_HW_ID").extract(15, 8)),
        (true, false) => hw("HW_REG_HW_ID").extract(15, 8),
        (false, _) => hw("HW_REG_HW_ID1").extract(20, 10),
    }
}

/// `warpid`: the wave's SIMD id above its slot in the SIMD — gfx9: bits 0–5 of
/// HW_REG_HW_ID (WAVE_ID 0–3, SIMD_ID 4–5); gfx10+: SIMD_ID (bits 8–9 of HW_REG_HW_ID1)
/// above WAVE_ID (bits 0–4).
fn warpid(abi: &EntryAbi) -> BV {
    let hw = |n: &str| BV::new_const(format!("hw.{n}"), 32);
    if abi.gfx9 {
        hw("HW_REG_HW_ID").extract(5, 0)
    } else {
        let id = hw("HW_REG_HW_ID1");
        id.extract(9, 8).concat(id.extract(4, 0))
    }
}

/// `sreg sp` per `docs/ir.md`, as `docs/gcn.md` maps it to the hardware, in terms of the
/// entry state `abi` describes (and the instructions' hardware inputs: `hw.memtime`,
/// `hw.memrealtime`, `hw.HW_REG_HW_ID`, `hw.HW_REG_XCC_ID`, `hw.lane`); `None` for a
/// special no proof covers.
fn gcn_special(sp: warptrace_ir::Special, abi: &EntryAbi) -> Option<Spec> {
    use warptrace_ir::Special;
    let value = |n: &str| abi.value(n);
    if sp == Special::Thread {
        // `grid_special`'s formula, staged: the linear block, then its product (in
        // schoolbook form, as the snippet computes it: [`schoolbook_lemma`]) with the
        // threads per block, plus the linear work-item index.
        let mut ex = warptrace_verifier::semantics::Exact32::new(&value);
        let block = ex.linear_block(64);
        let per_block = ex.threads_per_block().zero_ext(32);
        let tid = ex.linear_tid().zero_ext(32);
        let cut = |k: u32| BV::new_const(format!("tag#{k}"), 64);
        return Some(Spec {
            value: cut(1).bvadd(&tid),
            exact: ex.exact,
            stages: vec![block, schoolbook(&cut(0), &per_block)],
        });
    }
    if let Some((v, exact)) = warptrace_verifier::semantics::grid_special(sp, &value, abi.wave) {
        return Some(Spec {
            value: v,
            exact,
            stages: Vec::new(),
        });
    }
    let memtime = || BV::new_const("hw.memtime", 64);
    let v = match sp {
        Special::Clock64 => memtime(),
        Special::Clock => memtime().extract(31, 0).zero_ext(32),
        // `s_memrealtime` counts a 100 MHz clock: nanoseconds are ten of its ticks.
        Special::GlobalTimer => BV::new_const("hw.memrealtime", 64).bvmul(BV::from_u64(10, 64)),
        Special::Smid => {
            let id = smid(abi);
            id.zero_ext(64 - id.get_size())
        }
        // The number of values `smid` can take: 2 to the power of its width.
        Special::Nsmid => BV::from_u64(1 << smid(abi).get_size(), 64),
        Special::Warpid => {
            let id = warpid(abi);
            id.zero_ext(64 - id.get_size())
        }
        Special::Lane => BV::new_const("hw.lane", 32).zero_ext(32),
        _ => return None,
    };
    Some(Spec {
        value: v,
        exact: Vec::new(),
        stages: Vec::new(),
    })
}

/// The verdict on the snippet of `sreg sp` (stored to `%a`) in `histogram`: run after
/// the prologue ([`run_from_entry`]), `%a` ends as [`gcn_special`]'s term for every entry
/// state within the hardware's limits, `exec`, `vcc` and `scc` restored, and the
/// formula's 32-bit evaluation exact under those limits.
fn special_verdict(sp: warptrace_ir::Special) -> Verdict {
    special_verdict_in(GFX942, sp)
}

/// [`special_verdict`] in kernel `k`.
fn special_verdict_in(k: TvKernel, sp: warptrace_ir::Special) -> Verdict {
    let text = format!("r2 = sreg {}", sp.name());
    let p = entry_program(&[&text, "store %a, r2", "exit"]);
    outcome(entry_code(k, &p).and_then(|(prologue, code, abi)| {
        let spec = gcn_special(sp, &abi).ok_or("no specification")?;
        special_check(&prologue, &code, &abi, &spec)?;
        match sp {
            warptrace_ir::Special::Thread => schoolbook_lemma(true),
            _ => Ok(()),
        }
    }))
}

/// The claim of [`special_verdict`] on `prologue` and `code`.
fn special_check(
    prologue: &[Instruction],
    code: &[Instruction],
    abi: &EntryAbi,
    spec: &Spec,
) -> Result<(), String> {
    let cuts = match spec.stages.len() {
        0 => None,
        _ => {
            let at = code.iter().position(is_carry).ok_or("no 64-bit add")?;
            let mut cuts = Cuts::writes(code, add64_pair(code, at)?, code.len());
            cuts.after.retain(|&i| i >= at);
            cuts.after.truncate(spec.stages.len());
            Some(cuts)
        }
    };
    let mut r = run_from_entry(prologue, code, cuts.as_ref())?;
    if !r.effects.is_empty() {
        return Err("the snippet accesses global memory".into());
    }
    r.assume = abi.assumptions();
    if r.cuts.len() != spec.stages.len() {
        return Err(format!(
            "{} stages computed, {} specified",
            r.cuts.len(),
            spec.stages.len()
        ));
    }
    let mut claims: Vec<Claim> = Vec::new();
    for (k, ((value, _), want)) in r.cuts.iter().zip(&spec.stages).enumerate() {
        claims.push((
            format!("stage {k}"),
            value.eq(want),
            Some((value.clone(), want.clone())),
        ));
    }
    claims.push((
        "the value".into(),
        r.got.eq(&spec.value),
        Some((r.got.clone(), spec.value.clone())),
    ));
    claims.push(("exec, vcc, scc restored".into(), r.restored.clone(), None));
    for (i, e) in spec.exact.iter().enumerate() {
        claims.push((format!("exact step {i}"), e.clone(), None));
    }
    prove_claims(&r, claims)
}

/// Asserts that a check of a mutant (`what`) found a counterexample (tests).
#[cfg(test)]
fn assert_refuted(what: &str, r: &Result<(), String>) {
    assert!(
        r.as_ref().is_err_and(|e| e.starts_with("counterexample")),
        "{what}: {r:?}"
    );
}

/// An IR register operand (tests).
#[cfg(test)]
fn ir_reg(i: u16) -> warptrace_ir::Operand {
    warptrace_ir::Operand::Reg(warptrace_ir::Reg(i))
}

/// A test's change to a snippet, boxed for a table of cases.
#[cfg(test)]
type Mutant = Box<dyn Fn(&mut Vec<Instruction>)>;

/// A wave-combined snippet's mutant that counts one lane where the group's are (the
/// `v_mov` of the `s_bcnt1` result made a 1; tests).
#[cfg(test)]
fn count_one_lane(c: &mut [Instruction]) {
    let i = index_of(c, |x| x.mnemonic == "s_bcnt1_i32_b64");
    let x = &mut c[i + 1];
    assert_eq!(x.mnemonic, "v_mov_b32_e32");
    x.operands[1].reg = None;
    set_imm(x, 1, 1);
}

/// A wave-combined snippet's mutant whose every lane acts for the group (the `exec`
/// narrowing to the leader removed; tests).
#[cfg(test)]
fn no_leader(c: &mut Vec<Instruction>) {
    let i = index_of(c, |x| x.mnemonic == "s_lshl_b64");
    assert_eq!(c[i + 1].mnemonic, "s_and_b64");
    c.remove(i + 1);
}

/// Sets operand `i` of `x` to the integer `v` (tests).
#[cfg(test)]
fn set_imm(x: &mut Instruction, i: usize, v: i64) {
    x.operands[i].imm = Some(v);
    x.operands[i].text = v.to_string();
}

/// The index of the first instruction of `c` that `f` accepts (tests).
#[cfg(test)]
fn index_of(c: &[Instruction], f: impl Fn(&Instruction) -> bool) -> usize {
    c.iter().position(f).expect("the instruction")
}

/// The pseudo-instruction of a label of the inserted code (its name the one modifier):
/// where the paths of forward branches to it join.
pub(crate) const LABEL: &str = ".label";

/// A label `l` (`name:`) as the pseudo-instruction the runs join branches at.
pub(crate) fn label(l: &str) -> Instruction {
    Instruction {
        mnemonic: LABEL.into(),
        operands: Vec::new(),
        modifiers: vec![l.trim_end_matches(':').to_owned()],
    }
}

/// `full` (64 bits) with its 32-bit half `half` (0 low, 1 high) replaced by `word`.
pub(crate) fn with_half(full: &BV, half: u32, word: BV) -> BV {
    if half == 0 {
        full.extract(63, 32).concat(&word)
    } else {
        word.concat(full.extract(31, 0))
    }
}

/// A `kernel:entry` probe that loads `%a` and `%b` into `r0` and `r1`, then runs `body`
/// (numbered from 2).
fn entry_program(body: &[&str]) -> Program {
    entry_program_with("", body)
}

/// [`entry_program`] after the map declarations `maps` (IR text lines).
fn entry_program_with(maps: &str, body: &[&str]) -> Program {
    let mut text = format!(
        "{maps}persistent %a\npersistent %b\n\nprobe 0: kernel:entry\n  0: r0 = load %a\n  1: r1 = load %b\n",
    );
    for (i, line) in body.iter().enumerate() {
        text.push_str(&format!("  {}: {line}\n", i + 2));
    }
    Program::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `code` run from a fresh lane: `%a` and `%b` (the first two VGPR pairs it reads, as
/// 64-bit inputs), `%a`'s final value, and whether `exec`, `vcc` and `scc` end as they
/// started (under the lane being active).
struct Run {
    a: BV,
    b: BV,
    got: BV,
    restored: Bool,
    active: Bool,
    /// `exec` at the start.
    exec: BV,
    /// The low VGPRs of `%a` and `%b`.
    regs: (u32, u32),
    /// The global memory operations, in order.
    effects: Vec<MemEffect>,
    /// At each cut of [`run_cut`]: the value the step computed and the constant that
    /// replaced it.
    cuts: Vec<(BV, BV)>,
    /// `%b`'s final value.
    got_b: BV,
    /// What the claims about this run assume besides the lane being active (the
    /// hardware's limits, for a run from the entry state).
    assume: Vec<Bool>,
    /// The lane at the label of a waterfall loop, which the run passes over
    /// ([`waterfall_summary`]).
    waterfall: Option<Lane>,
    /// What the summaries of the division loops the run passed over need, to be proved.
    loop_claims: Vec<(String, Bool)>,
    /// [`Lane::firsts`] at the end.
    firsts: Vec<(u32, BV)>,
}

impl Run {
    /// A solver at resource limit `rlimit` holding what every claim about the run
    /// assumes: the lane active, and [`Run::assume`].
    fn solver(&self, rlimit: u32) -> z3::Solver {
        let solver = warptrace_verifier::solver_at(rlimit);
        solver.assert(&self.active);
        for a in &self.assume {
            solver.assert(a);
        }
        solver
    }
}

fn run(code: &[Instruction]) -> Result<Run, String> {
    run_cut(code, None)
}

/// Cuts in a value's computation: after each instruction of `after` (indices into the
/// code, each completing a step of the value in the VGPR pair `regs`), the pair holds a
/// fresh constant `tag#k` instead, and the run records what the step computed (in terms
/// of the inputs and `tag#(k-1)`).
struct Cuts {
    regs: [u32; 2],
    after: Vec<usize>,
}

/// Whether `x` is the carry half of a 64-bit VALU add.
fn is_carry(x: &Instruction) -> bool {
    matches!(
        x.mnemonic.as_str(),
        "v_addc_co_u32_e64" | "v_add_co_ci_u32_e64"
    )
}

/// The destination pair `[lo, hi]` of the 64-bit add whose carry half is `code[carry]`
/// (its low half the instruction before).
fn add64_pair(code: &[Instruction], carry: usize) -> Result<[u32; 2], String> {
    let word = |i: usize| {
        code.get(i)
            .and_then(|x| x.operands.first())
            .and_then(|o| o.reg)
            .map(|r| r.first)
    };
    match (carry.checked_sub(1).and_then(word), word(carry)) {
        (Some(lo), Some(hi)) => Ok([lo, hi]),
        _ => Err("the 64-bit add's destination".into()),
    }
}

impl Cuts {
    /// A cut after each instruction before `before` that writes VGPR `regs[1]` (the high
    /// word of the pair, written after the low one).
    fn writes(code: &[Instruction], regs: [u32; 2], before: usize) -> Cuts {
        let after = (0..before)
            .filter(|&i| {
                code[i]
                    .operands
                    .first()
                    .and_then(|o| o.reg)
                    .is_some_and(|d| {
                        d.file == RegFile::Vgpr && (d.first..d.first + d.count).contains(&regs[1])
                    })
            })
            .collect();
        Cuts { regs, after }
    }
}

/// [`run`] with `cuts`: a claim of the run holds for every value of the `tag#k`, so for
/// the ones the snippet computes; [`Run::cuts`] lists what it computed at each.
fn run_cut(code: &[Instruction], cuts: Option<&Cuts>) -> Result<Run, String> {
    run_cut_from(Lane::new(), code, cuts)
}

/// [`run_cut`] from the state `lane`.
fn run_cut_from(mut lane: Lane, code: &[Instruction], cuts: Option<&Cuts>) -> Result<Run, String> {
    let (exec0, vcc0, scc0) = (lane.exec.clone(), lane.vcc.clone(), lane.scc.clone());
    let pos = lane.pos;
    let mut computed = Vec::new();
    // Forward branches: the taken path waits at its label, the other goes on.
    let mut waiting: HashMap<String, Vec<Lane>> = HashMap::new();
    let mut waterfall = None;
    let mut loop_claims = Vec::new();
    let mut skip_to = 0;
    for (i, x) in code.iter().enumerate() {
        if i < skip_to {
            continue;
        }
        if let Some(c) = cuts.filter(|c| i > 0 && c.after.contains(&(i - 1))) {
            let [lo, hi] = c.regs;
            let value = lane.vgpr(hi).concat(lane.vgpr(lo));
            let fresh = BV::new_const(format!("tag#{}", computed.len()), 64);
            lane.v.insert(lo, fresh.extract(31, 0));
            lane.v.insert(hi, fresh.extract(63, 32));
            computed.push((value, fresh));
        }
        match x.mnemonic.as_str() {
            LABEL => {
                let name = x.modifiers.first().cloned().unwrap_or_default();
                for taken in waiting.remove(&name).unwrap_or_default() {
                    lane.join(taken);
                }
                let body = lane
                    .waterfalls
                    .then(|| crate::tv_waterfall::loop_body(&code[i..], &name).ok())
                    .flatten();
                if let Some(body) = body {
                    waterfall = Some(lane.clone());
                    waterfall_summary(&mut lane, body)?;
                    // The body, then its branch back.
                    skip_to = i + 1 + body.len() + 1;
                } else if let Some((l, body)) =
                    lane.divisions.then(|| division::read(code, i)).flatten()
                {
                    division::summary(&mut lane, &l, body, &mut loop_claims)?;
                    skip_to = i + 1 + body.len() + 1;
                }
            }
            "s_cbranch_scc1" | "s_cbranch_scc0" | "s_cbranch_execz" => {
                let target = x.operands.first().ok_or("a branch without a target")?;
                let cond = match x.mnemonic.as_str() {
                    "s_cbranch_scc1" => lane.scc.clone(),
                    "s_cbranch_scc0" => lane.scc.not(),
                    _ => lane.exec.eq(BV::from_u64(0, 64)),
                };
                let mut taken = lane.clone();
                taken.path = Bool::and(&[&lane.path, &cond]);
                lane.path = Bool::and(&[&lane.path, &cond.not()]);
                waiting.entry(target.text.clone()).or_default().push(taken);
            }
            _ => lane
                .step(x)
                .map_err(|e| format!("{e} (in `{}`)", x.mnemonic))?,
        }
    }
    if let Some(label) = waiting.keys().next() {
        return Err(format!(
            "a branch to `{label}`, which is not ahead in the snippet"
        ));
    }
    let ins = &lane.v_inputs;
    if ins.len() < 4 || ins[1] != ins[0] + 1 || ins[3] != ins[2] + 1 {
        return Err(format!(
            "the persistent registers are not read first: {ins:?}"
        ));
    }
    let pair = |lo: u32| {
        BV::new_const(format!("v{}", lo + 1), 32).concat(BV::new_const(format!("v{lo}"), 32))
    };
    Ok(Run {
        a: pair(ins[0]),
        b: pair(ins[2]),
        got: lane.v[&(ins[0] + 1)].concat(&lane.v[&ins[0]]),
        restored: Bool::and(&[lane.exec.eq(&exec0), lane.vcc.eq(&vcc0), lane.scc.eq(&scc0)]),
        active: exec0.extract(pos, pos).eq(BV::from_u64(1, 1)),
        exec: exec0,
        regs: (ins[0], ins[2]),
        got_b: lane.v[&(ins[2] + 1)].concat(&lane.v[&ins[2]]),
        firsts: lane.firsts,
        effects: lane.effects,
        cuts: computed,
        assume: Vec::new(),
        waterfall,
        loop_claims,
    })
}

/// The lane after the waterfall loop `body` (`tv_waterfall.rs`, which proves what the
/// loop computes over the wave): every register an instruction of the body writes — its
/// first operand, `vcc`, `scc` — holds a fresh constant (`wf.s29`, `wf.v12`, …: the
/// claims on the code after the loop are about these), and `exec` is zero (the loop
/// leaves when it is).
fn waterfall_summary(lane: &mut Lane, body: &[Instruction]) -> Result<(), String> {
    for x in body {
        let Some(r) = x.operands.first().and_then(|o| o.reg) else {
            continue;
        };
        for w in 0..r.count {
            let n = r.first + w;
            match r.file {
                RegFile::Sgpr => {
                    lane.s.insert(n, BV::new_const(format!("wf.s{n}"), 32));
                }
                RegFile::Vgpr => {
                    lane.v.insert(n, BV::new_const(format!("wf.v{n}"), 32));
                }
                // The halves the rounds write (wave32: the low ones): `vcc`'s anything,
                // `exec`'s zero when the loop leaves. (The wave model, which proved this
                // body, knows only instructions that write them as their first operand.)
                RegFile::Vcc => {
                    lane.vcc = with_half(&lane.vcc, n, BV::new_const(format!("wf.vcc{n}"), 32));
                }
                RegFile::Exec => lane.exec = with_half(&lane.exec, n, BV::from_u64(0, 32)),
                f => return Err(format!("a waterfall writes {f:?}")),
            }
        }
    }
    lane.scc = Bool::new_const("wf.scc");
    Ok(())
}

/// The verdict on `code`: `Ok` when z3 proves `%a` ends as `expect(a, b)` for every
/// input, with `exec`, `vcc`, `scc` restored; `Err("unknown")` when z3 gives up within
/// the verifier's resource limit; otherwise a counterexample.
fn check(code: &[Instruction], expect: &dyn Fn(&BV, &BV) -> BV) -> Result<(), String> {
    check_lanes(code, expect, true)
}

/// [`check`] for the lanes in `exec` as the snippet starts (`active_only`), or for every
/// lane: a snippet that runs for lanes outside `exec` (the lanes an early return leaves
/// out) must leave the others' `%a` alone.
fn check_lanes(
    code: &[Instruction],
    expect: &dyn Fn(&BV, &BV) -> BV,
    active_only: bool,
) -> Result<(), String> {
    let r = run(code)?;
    if !r.effects.is_empty() {
        return Err("the snippet accesses global memory".into());
    }
    let want = expect(&r.a, &r.b);
    let solver = warptrace_verifier::solver();
    if active_only {
        solver.assert(&r.active);
    }
    solver.assert(Bool::and(&[r.got.eq(&want), r.restored.clone()]).not());
    match warptrace_verifier::proof_cache::check(&solver) {
        SatResult::Unsat => Ok(()),
        SatResult::Sat => {
            let m = solver.get_model().ok_or("no model")?;
            let show = |t: &BV| m.eval(t, true).map_or("?".into(), |v| v.to_string());
            Err(format!(
                "counterexample: a = {}, b = {}: snippet {}, IR {}",
                show(&r.a),
                show(&r.b),
                show(&r.got),
                show(&want)
            ))
        }
        SatResult::Unknown => Err("unknown".into()),
    }
}

/// `code` on concrete inputs: for each `(a, b)`, the snippet's `%a` and `expect`'s, both
/// evaluated by z3's simplifier; the first pair that differs.
fn spot_check(
    code: &[Instruction],
    expect: &dyn Fn(&BV, &BV) -> BV,
    inputs: &[(u64, u64)],
) -> Result<(), String> {
    let r = run(code)?;
    let want = expect(&r.a, &r.b);
    for &(a, b) in inputs {
        let word = |i: u32| BV::new_const(format!("v{i}"), 32);
        let (ra, rb) = r.regs;
        let vars = [
            word(ra),
            word(ra + 1),
            word(rb),
            word(rb + 1),
            r.exec.clone(),
        ];
        let vals = [
            k32(a),
            k32(a >> 32),
            k32(b),
            k32(b >> 32),
            BV::from_u64(u64::MAX, 64),
        ];
        let subst: Vec<(&BV, &BV)> = vars.iter().zip(&vals).collect();
        let got = r.got.substitute(&subst).simplify().as_u64();
        let exp = want.substitute(&subst).simplify().as_u64();
        if got.is_none() || got != exp {
            return Err(format!(
                "a = {a:#x}, b = {b:#x}: snippet {got:x?}, IR {exp:x?}"
            ));
        }
    }
    Ok(())
}

/// Concrete inputs: edge values, every pair of them, and pseudo-random ones.
/// A memory operation the IR semantics calls for: `op` of `data` at `addr` when `guard`.
struct Expected {
    guard: Bool,
    op: &'static str,
    addr: BV,
    data: BV,
}

/// The verdict on a ring append's snippet (`ring::append`) of `fields` (IR operands of
/// `%a`, `%b` or immediates) to a ring of `capacity` records laid out as `region` of the
/// map buffer: for one active lane whatever the others do, its global memory operations
/// are, in order, those of the IR's append (`docs/ir.md`) — the cursor's `atomic.add` of 1
/// at `base + cursor` whose result is `n`; `red.add` of 1 at the drop counter when
/// `n ≥ capacity`; with `drop`, when `n < capacity`, each field at record `n`, then `seq =
/// n + 1`; with `overwrite` (a power-of-two capacity) the same at record `n mod capacity`
/// always — same guards, addresses and data; and `%a`, `%b`, `exec`, `vcc`, `scc` end as
/// they began. `base` is the SGPR pair the snippet addresses from (the map base the
/// prologue loads). Ordering (the release before `seq`) is not modelled.
///
/// With the cursor taken once for a wave of `wave` lanes (`ring.rs`, decision 0036): the
/// lane at bit 0 of `exec` (the lowest: the leader) adds the number of lanes in `exec` to
/// the cursor and its `n` is the result; a lane with lanes of `exec` below it (the top
/// bit of the wave, the bits below unconstrained but not all clear) makes no cursor
/// operation, and its `n` is the leader's (`v_readfirstlane` of another lane: an unknown)
/// plus the number of those lanes — the records the leader's one add reserved for the
/// lanes in order; the rest of the append as above, from that `n`.
fn ring_check(
    code: &[Instruction],
    region: &warptrace_ir::MapRegion,
    overflow: warptrace_ir::Overflow,
    fields: &[warptrace_ir::Operand],
    wave: Option<u32>,
) -> Result<(), String> {
    ring_check_lane(code, region, overflow, fields, wave, None)?;
    match wave {
        Some(lanes) => ring_check_lane(code, region, overflow, fields, wave, Some(lanes - 1))
            .map_err(|e| format!("{e} (a lane above the leader)")),
        None => Ok(()),
    }
}

/// [`ring_check`] for the leader (`follower` `None`), or for the lane at bit `follower`
/// of `exec` with lanes of `exec` below it.
fn ring_check_lane(
    code: &[Instruction],
    region: &warptrace_ir::MapRegion,
    overflow: warptrace_ir::Overflow,
    fields: &[warptrace_ir::Operand],
    wave: Option<u32>,
    follower: Option<u32>,
) -> Result<(), String> {
    use warptrace_ir::Overflow;
    let k = |v: u64| BV::from_u64(v, 64);
    let r = match follower {
        None => run(code)?,
        Some(pos) => {
            let mut lane = Lane::new();
            lane.pos = pos;
            let mut r = run_cut_from(lane, code, None)?;
            let below = r.exec.extract(pos - 1, 0);
            r.assume.push(below.eq(BV::from_u64(0, pos)).not());
            r
        }
    };
    let first = r
        .effects
        .first()
        .ok_or("the snippet makes no memory operation")?;
    let base = first.base.clone();
    // The VGPR pair the cursor's add returns into: what a follower must read of the
    // first lane.
    let result = code
        .iter()
        .find(|x| x.mnemonic == "global_atomic_add_x2" && x.operands.len() == 4)
        .and_then(|x| x.operands[0].reg)
        .ok_or("no returning add of the cursor")?;
    let n = match (follower, r.firsts.as_slice()) {
        (None, _) => first
            .result
            .clone()
            .ok_or("the first operation returns nothing")?,
        (Some(pos), [(l, lo), (h, hi)]) if [*l, *h] == [result.first, result.first + 1] => {
            let rank = popcount(&r.exec.extract(pos - 1, 0)).zero_ext(32);
            hi.concat(lo).bvadd(rank)
        }
        (Some(_), firsts) => {
            let read: Vec<String> = firsts.iter().map(|(v, _)| format!("v{v}")).collect();
            return Err(format!(
                "counterexample: the first lane's [{}] read, not the halves of its n ({})",
                read.join(", "),
                result.name()
            ));
        }
    };
    let cap = u64::from(region.capacity);
    let always = Bool::from_bool(true);
    // What the cursor's add adds: 1, or the lanes of the wave in `exec`.
    let lanes = lanes_counted(&r.exec, wave);
    let mut want = vec![Expected {
        guard: Bool::from_bool(follower.is_none()),
        op: "atomic.add",
        addr: base.bvadd(k(region.slots_offset)),
        data: lanes,
    }];
    want.push(Expected {
        guard: n.bvuge(k(cap)),
        op: "red.add",
        addr: base.bvadd(k(region.drops_offset)),
        data: k(1),
    });
    let (written, slot) = match overflow {
        Overflow::Drop => (n.bvult(k(cap)), n.clone()),
        Overflow::Overwrite if cap.is_power_of_two() => (always, n.bvand(k(cap - 1))),
        Overflow::Overwrite => {
            return Err(format!(
                "an overwrite ring of {cap} records: its slot is `n mod {cap}` in 32 bits \
                 (appends past 2^32 write nothing), not the IR's"
            ))
        }
    };
    let record = base
        .bvadd(k(region.slots_offset + 8))
        .bvadd(slot.bvmul(k(region.slot_bytes())));
    for (i, f) in fields.iter().enumerate() {
        let data = form_term(f, &r.a, &r.b);
        want.push(Expected {
            guard: written.clone(),
            op: "store",
            addr: record.bvadd(k(8 * (i as u64 + 1))),
            data,
        });
    }
    want.push(Expected {
        guard: written,
        op: "store",
        addr: record,
        data: n.bvadd(k(1)),
    });
    compare(&r, want, "n", &n)
}

/// The resource limit of one goal of [`compare`]: twenty times the verifier's (a hash
/// update's late probes carry the conditions of the earlier ones; at five times, a
/// three-key update's last address goal was decided in some runs and not in others).
const MEMORY_RLIMIT: u32 = 20 * warptrace_verifier::SOLVER_RLIMIT;

/// One goal of [`compare`]: what it says, the claim, and the snippet's and the IR's terms
/// a counterexample shows.
type Claim = (String, Bool, Option<(BV, BV)>);

/// Whether the run's memory operations are `want`, in order, with equivalent guards and,
/// under them, equal addresses and data, and `%a`, `exec`, `vcc`, `scc` ending as they
/// began — one z3 query a goal; `shown` is a term a counterexample prints besides `a`
/// and `b`.
fn compare(r: &Run, want: Vec<Expected>, name: &str, shown: &BV) -> Result<(), String> {
    let n = shown;
    let got: Vec<&MemEffect> = r.effects.iter().collect();
    let ops = |v: &mut dyn Iterator<Item = &'static str>| v.collect::<Vec<_>>().join(", ");
    // Operations whose guard is false for an active lane are no operations of it: each
    // guard asked of one solver holding the run's facts (asserted once, not once a
    // guard), and of a fresh one should z3 give up there (a solver that has answered
    // other queries may give up on one a fresh solver decides).
    let facts = r.solver(warptrace_verifier::SOLVER_RLIMIT);
    let never = |g: &Bool| {
        facts.push();
        facts.assert(g);
        let shared = warptrace_verifier::proof_cache::check(&facts);
        facts.pop(1);
        let answered = match shared {
            SatResult::Unknown => {
                let solver = r.solver(warptrace_verifier::SOLVER_RLIMIT);
                solver.assert(g);
                warptrace_verifier::proof_cache::check(&solver)
            }
            answered => answered,
        };
        answered == SatResult::Unsat
    };
    let got: Vec<&MemEffect> = got.into_iter().filter(|e| !never(&e.guard)).collect();
    let want: Vec<Expected> = want.into_iter().filter(|e| !never(&e.guard)).collect();
    if got.len() != want.len() || got.iter().zip(&want).any(|(g, w)| g.op != w.op) {
        return Err(format!(
            "counterexample: the snippet does [{}], the IR calls for [{}]",
            ops(&mut got.iter().map(|e| e.op)),
            ops(&mut want.iter().map(|e| e.op))
        ));
    }
    let mut goals: Vec<Claim> = vec![
        (
            "exec, vcc, scc restored".to_owned(),
            r.restored.clone(),
            None,
        ),
        ("%a unchanged".to_owned(), r.got.eq(&r.a), None),
    ];
    let base = got.first().map(|e| e.base.clone());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if let Some(b) = &base {
            goals.push((
                format!("operation {i} ({}): the map base", w.op),
                w.guard.implies(g.base.eq(b)),
                Some((g.base.clone(), b.clone())),
            ));
        }
        goals.push((
            format!("operation {i} ({}): guard", w.op),
            g.guard.iff(&w.guard),
            None,
        ));
        goals.push((
            format!("operation {i} ({}): address", w.op),
            w.guard.implies(g.addr.eq(&w.addr)),
            Some((g.addr.clone(), w.addr.clone())),
        ));
        goals.push((
            format!("operation {i} ({}): data", w.op),
            w.guard.implies(g.data.eq(&w.data)),
            Some((g.data.clone(), w.data.clone())),
        ));
    }
    // One query a goal: their conjunction (a dozen 64-bit address products for a wide
    // record) is more than z3 decides within its limit.
    for (what, goal, sides) in goals {
        let solver = r.solver(MEMORY_RLIMIT);
        solver.assert(goal.not().simplify());
        let result = warptrace_verifier::proof_cache::check(&solver);
        let shown = match result {
            SatResult::Sat => {
                let m = solver.get_model().ok_or("no model")?;
                let show = |t: &BV| m.eval(t, true).map_or("?".into(), |v| v.to_string());
                let sides = sides.map_or(String::new(), |(g, w)| {
                    format!(": snippet {}, IR {}", show(&g), show(&w))
                });
                Some(format!(
                    "counterexample ({what}{sides}): {name} = {}, a = {}, b = {}",
                    show(n),
                    show(&r.a),
                    show(&r.b)
                ))
            }
            _ => None,
        };

        match (result, shown) {
            (SatResult::Unsat, _) => {}
            (SatResult::Sat, Some(e)) => return Err(e),
            _ => return Err(format!("unknown ({what})")),
        }
    }
    Ok(())
}

pub(crate) fn samples() -> Vec<(u64, u64)> {
    let edges = [
        0,
        1,
        2,
        3,
        0xffff_ffff,
        0x1_0000_0000,
        0x1_0000_0001,
        0x7fff_ffff_ffff_ffff,
        0x8000_0000_0000_0000,
        u64::MAX,
        0xdead_beef_1234_5678,
    ];
    let mut out: Vec<(u64, u64)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
        .collect();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..256 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let a = x;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push((a, x));
    }
    out
}

/// The snippet of the first probe of IR `program` (persistent `%a`, `%b`; the probe
/// attached at `point`) in `kernel` of the corpus file: from its marker to its `scc`
/// restore.
fn point_snippet(kernel: &str, point: &str, body: &str) -> Result<Vec<Instruction>, String> {
    point_snippet_in(GFX942.asm, kernel, point, body)
}

/// [`point_snippet`] in kernel `kernel` of `asm`.
fn point_snippet_in(
    asm: &str,
    kernel: &str,
    point: &str,
    body: &str,
) -> Result<Vec<Instruction>, String> {
    let text = format!(
        "persistent %a\npersistent %b\n\nprobe 0: {point}\n  0: r0 = load %a\n  1: r1 = load %b\n{body}"
    );
    let program = Program::parse(&text).map_err(|e| format!("{text}: {e}"))?;
    let out = instrumented(asm, &program, kernel, Combining::Uniform)?;
    let at = out.find(&format!("\n{kernel}:")).ok_or("kernel label")?;
    let start = at
        + out[at..]
            .find("; __wt_snippet 1\n")
            .ok_or("snippet marker")?;
    let len = out[start..].find("s_cmp_lg_u32").ok_or("scc restore")?;
    let end = start + len + out[start + len..].find('\n').ok_or("line end")?;
    let module = parse(&out[start..end]).map_err(|e| e.to_string())?;
    Ok(module
        .stmts
        .iter()
        .filter_map(|st| match &st.kind {
            StmtKind::Instr(x) if x.mnemonic != "s_nop" => Some(x.clone()),
            StmtKind::Label(l) => Some(label(l)),
            _ => None,
        })
        .collect())
}

/// A condition on one lane's inputs, as z3 terms.
type Takes = Box<dyn Fn() -> Bool>;

/// The loop edges the proofs cover: (kernel, point, when the modelled lane takes it).
/// `histogram`'s latch is `s_andn2_b64 exec, exec, s[0:1]; s_cbranch_execnz`: a lane
/// leaves when its bit of `s[0:1]` is set. `block_sum`'s is `s_cbranch_scc1` to the exit,
/// the back edge falling through.
fn loop_edges() -> Vec<(&'static str, &'static str, Takes)> {
    let bit = |name: &str| BV::new_const(name, 32).extract(0, 0).eq(BV::from_u64(1, 1));
    vec![
        ("histogram", "loop:exit", Box::new(move || bit("s0"))),
        (
            "histogram",
            "loop:backedge",
            Box::new(move || bit("s0").not()),
        ),
        (
            "block_sum",
            "loop:exit",
            Box::new(|| Bool::new_const("scc0")),
        ),
        (
            "block_sum",
            "loop:backedge",
            Box::new(|| Bool::from_bool(true)),
        ),
    ]
}

/// The body of a loop edge's probe in the proofs: `%a += %b` when the lane takes it.
const LOOP_BODY: &str = "  2: r2 = add.64 r0, r1\n  3: store %a, r2\n  4: exit\n";

/// `%a`'s final value as a function of the inputs `%a` and `%b`.
type Expect = Box<dyn Fn(&BV, &BV) -> BV>;

/// Probe branches (`jz`, `jnz`, `ja`): three programs (name, body) and what `%a` ends as.
fn branch_cases() -> Vec<(&'static str, Vec<&'static str>, Expect)> {
    let k = |v: u64| BV::from_u64(v, 64);
    vec![
        (
            "jz skips a store",
            vec![
                "r2 = lt.u.64 r0, r1",
                "jz r2, 6",
                "r3 = sub.64 r1, r0",
                "store %a, r3",
                "exit",
            ],
            Box::new(|a, b| a.bvult(b).ite(&b.bvsub(a), a)),
        ),
        (
            "jnz to a join both paths reach",
            vec![
                "r2 = and.64 r0, 1",
                "jnz r2, 6",
                "r3 = add.64 r0, r1",
                "store %a, r3",
                "r4 = load %a",
                "r5 = xor.64 r4, r1",
                "store %a, r5",
                "exit",
            ],
            Box::new(move |a, b| {
                let even = a.bvand(k(1)).eq(k(0));
                even.ite(&a.bvadd(b), a).bvxor(b)
            }),
        ),
        (
            "ja over an else with an exit on one path",
            vec![
                "r2 = eq.64 r1, 0",
                "jnz r2, 10",
                "r3 = gt.s.64 r0, r1",
                "jz r3, 8",
                "store %a, r1",
                "ja 10",
                "r4 = mul.32 r0, 3",
                "store %a, r4",
                "exit",
            ],
            Box::new(move |a, b| {
                let three = alu(BinOp::Mul, Width::W32, a, &k(3));
                b.eq(k(0)).ite(a, &a.bvsgt(b).ite(b, &three))
            }),
        ),
    ]
}

/// A 64-bit product as the GCN lowering builds it from 32-bit halves (`Emitter::mul64`):
/// low word `al·bl`, high word `hi(al·bl) + al·bh + ah·bl` (mod 2³²). z3 does not decide
/// the equality of this with `a·b` as bit-vectors (two different multiplier circuits);
/// checked against this form instead, the snippet's terms are the same products, and
/// [`schoolbook_lemma`] proves the form equal to `a·b`.
fn schoolbook(a: &BV, b: &BV) -> BV {
    let (al, ah) = (a.extract(31, 0), a.extract(63, 32));
    let (bl, bh) = (b.extract(31, 0), b.extract(63, 32));
    let carry = mul(&al.zero_ext(32), &bl.zero_ext(32)).extract(63, 32);
    let hi = carry.bvadd(mul(&al, &bh).bvadd(mul(&ah, &bl)));
    hi.concat(mul(&al, &bl))
}

/// What the GCN lowering of `op` at `width` is checked against: the IR semantics, a 64-bit
/// product in its [`schoolbook`] form.
fn gcn_form(op: BinOp, width: Width, a: &BV, b: &BV) -> BV {
    match (op, width) {
        (BinOp::Mul, Width::W64) => schoolbook(a, b),
        _ => alu(op, width, a, b),
    }
}

/// `schoolbook(a, b) = a·b` for all 64-bit `a`, `b`, proved over the integers, where it is
/// a polynomial identity: with `a = ah·W + al`, `b = bh·W + bl` (`W = 2³²`, halves in
/// `[0, W)`), the bit-vector operations of the form are, by the SMT-LIB semantics,
/// `al·bl = q·W + lo` (the 32-bit product `lo` and the high half `q` of the 64-bit one),
/// `q + al·bh + ah·bl = t·W + hi`, and `a·b = u·W² + p` (the 64-bit product `p`), each
/// remainder in range; the claim is `p = hi·W + lo` (the concatenation). `carry_term`
/// false drops `q` from the high word (a test's mutant: then it is refuted).
fn schoolbook_lemma(carry_term: bool) -> Result<(), String> {
    use z3::ast::Int;
    let v = |n: &str| Int::new_const(n);
    let (al, ah, bl, bh) = (v("al"), v("ah"), v("bl"), v("bh"));
    let (q, lo, t, hi, u, p) = (v("q"), v("lo"), v("t"), v("hi"), v("u"), v("p"));
    let w = Int::from_u64(1 << 32);
    let w2 = &w * &w;
    let zero = Int::from_u64(0);
    let within = |x: &Int, m: &Int| Bool::and(&[x.ge(&zero), x.lt(m)]);
    let solver = warptrace_verifier::solver();
    for x in [&al, &ah, &bl, &bh, &lo, &hi] {
        solver.assert(within(x, &w));
    }
    solver.assert(within(&p, &w2));
    solver.assert((&al * &bl).eq(&q * &w + &lo));
    let carry = if carry_term { q.clone() } else { zero.clone() };
    solver.assert((carry + &al * &bh + &ah * &bl).eq(&t * &w + &hi));
    let a = &ah * &w + &al;
    let b = &bh * &w + &bl;
    solver.assert((a * b).eq(&u * &w2 + &p));
    solver.assert(p.eq(&hi * &w + &lo).not());
    match warptrace_verifier::proof_cache::check(&solver) {
        SatResult::Unsat => Ok(()),
        SatResult::Sat => Err("the schoolbook form differs from the product".into()),
        SatResult::Unknown => Err("z3 gave up on the schoolbook identity".into()),
    }
}

/// The form of an operand list in an obligation: the first register from `%a` (`r0`), the
/// others from `%b` (`r1`), immediates kept.
fn operand_forms(ops: &[warptrace_ir::Operand]) -> Vec<warptrace_ir::Operand> {
    ops.iter()
        .enumerate()
        .map(|(i, o)| match o {
            warptrace_ir::Operand::Reg(_) => {
                warptrace_ir::Operand::Reg(warptrace_ir::Reg(u16::from(i > 0)))
            }
            imm => *imm,
        })
        .collect()
}

/// `reg.imm.5…`: the forms in an obligation's name.
fn forms_name(forms: &[warptrace_ir::Operand]) -> String {
    let form = |o: &warptrace_ir::Operand| match o {
        warptrace_ir::Operand::Reg(_) => "reg".to_owned(),
        warptrace_ir::Operand::Imm(v) => format!("imm.{v}"),
    };
    forms.iter().map(form).collect::<Vec<_>>().join(".")
}

/// The verdict on the snippet of `printf 0, (args)` with a printf ring of `capacity`
/// records of `width` arguments: the append of `(0, args…, 0…)` ([`ring_check`]).
fn printf_verdict(
    k: TvKernel,
    capacity: u32,
    width: u32,
    args: &[warptrace_ir::Operand],
) -> Verdict {
    let maps = format!(
        "map @printf: ring(capacity = {capacity}, overflow = drop) -> printf({width})\nformat 0: \"x\"\n"
    );
    let tuple: Vec<String> = args.iter().map(ToString::to_string).collect();
    let line = format!("printf 0, ({})", tuple.join(", "));
    let p = entry_program_with(&maps, &[&line, "exit"]);
    let mut fields = vec![warptrace_ir::Operand::Imm(0)];
    fields.extend_from_slice(args);
    fields.resize(1 + width as usize, warptrace_ir::Operand::Imm(0));
    append_verdict(k, &p, warptrace_ir::Overflow::Drop, &fields)
}

/// The snippets an append may get, by the prefix of their obligations' names: the
/// cursor taken per lane, or once per wave (`ring.rs`, decision 0036).
const APPEND_FORMS: [(&str, TvKernel); 2] = [("", GFX942.with(Combining::Off)), ("warp.", GFX942)];

/// The verdict of [`ring_check`] on `p`'s snippet, its first map being the ring.
fn append_verdict(
    k: TvKernel,
    p: &Program,
    overflow: warptrace_ir::Overflow,
    fields: &[warptrace_ir::Operand],
) -> Verdict {
    // The cursor once per wave unless combining is off (`ring.rs`).
    let wave = match (k.combining, k.lanes()) {
        (_, Err(reason)) => return Verdict::Unknown { reason },
        (Combining::Off, Ok(_)) => None,
        (_, Ok(lanes)) => Some(lanes),
    };
    memory_verdict(k, p, |code, region| {
        ring_check(code, region, overflow, fields, wave)
    })
}

/// The verdict of `check` on `p`'s snippet spliced into a corpus kernel, with the region
/// of `p`'s first map.
fn memory_verdict(
    k: TvKernel,
    p: &Program,
    check: impl FnOnce(&[Instruction], &warptrace_ir::MapRegion) -> Result<(), String>,
) -> Verdict {
    // An obligation's ring has the capacity its snippet is proved for: not spread again
    // over copies (the copies change the prologue's base, not the snippet).
    let unspread;
    let p = match warptrace_ir::placement::copies_to_spread(p) {
        Some(_) => {
            unspread = p.with_ring_copies(1);
            &unspread
        }
        None => p,
    };
    let layout = warptrace_ir::MapLayout::new(&p.maps);
    let Some(region) = layout.regions.first() else {
        return Verdict::Unknown {
            reason: "no region".into(),
        };
    };
    outcome(entry_snippet(k, p).and_then(|code| check(&code, region)))
}

/// A check's result as a verdict: a counterexample refutes, any other failure (z3 gave up,
/// a form outside the model) is not proved.
fn outcome(checked: Result<(), String>) -> Verdict {
    match checked {
        Ok(()) => Verdict::Proved,
        Err(e) if e.starts_with("counterexample") => Verdict::Refuted { counterexample: e },
        Err(reason) => Verdict::Unknown { reason },
    }
}

/// The program whose `kernel:entry` snippet is the update `map.update @m[keys] agg` of
/// a hash map of `capacity` slots of `value`s, probing as `probing` says: for linear
/// probing of constant keys, with a `kernel:exit` probe whose keys share their home slot.
fn hash_program(
    capacity: u32,
    keys: &[warptrace_ir::Operand],
    agg: warptrace_ir::Aggregation,
    value: &warptrace_ir::ValueKind,
    probing: Probing,
) -> Result<Program, String> {
    let key_types = vec!["u64"; keys.len()].join(", ");
    let agg_text = match agg.operand() {
        Some(x) => format!("{} {x}", agg.mnemonic()),
        None => agg.mnemonic().to_owned(),
    };
    let (key_types, tuple) = if keys.is_empty() {
        (String::new(), String::new())
    } else {
        let tuple: Vec<String> = keys.iter().map(ToString::to_string).collect();
        (format!(" [{key_types}]"), format!("[{}]", tuple.join(", ")))
    };
    let maps = format!("map @m: hash(keys = {capacity}){key_types} -> {value}\n");
    let line = format!("map.update @m{tuple} {agg_text}");
    let mut p = entry_program_with(&maps, &[&line, "exit"]);
    let constants: Option<Vec<u64>> = keys
        .iter()
        .map(|k| match k {
            warptrace_ir::Operand::Imm(v) => Some(*v as u64),
            warptrace_ir::Operand::Reg(_) => None,
        })
        .collect();
    // The kernel's decision (`HomeSlots::decide_at`) makes constant keys probe their home
    // slot unless another site's constant keys share it: for the linear form, a
    // `kernel:exit` probe updates the map with such keys (its snippet is not the one
    // checked).
    match (probing, constants) {
        (Probing::Linear, Some(c)) if c.is_empty() => {
            return Err("no keys: the one tag always probes its home slot".into())
        }
        (Probing::Linear, Some(c)) if capacity > 0 => {
            let other =
                colliding_keys(&c, capacity).ok_or("no keys that share these keys' home slot")?;
            let other: Vec<String> = other.iter().map(u64::to_string).collect();
            let exit = format!(
                "probe 1: kernel:exit\n  0: map.update @m[{}] {}\n  1: exit\n",
                other.join(", "),
                match agg.operand() {
                    Some(_) => format!("{} 1", agg.mnemonic()),
                    None => agg.mnemonic().to_owned(),
                }
            );
            let text = format!("{p}\n{exit}");
            p = Program::parse(&text).map_err(|e| format!("the colliding probe: {e}"))?;
        }
        (Probing::Home, None) => return Err("home-slot probing needs constant keys".into()),
        _ => {}
    }
    Ok(p)
}

/// The verdict on the snippet of `map.update @m[keys] agg` (keys and `agg`'s operand in
/// the obligation's form: `r0`, `r1` or an immediate) on a hash map of `capacity` slots
/// of `value`s, per lane or (`grouped`) combined within the wave: [`hash_check`], and
/// where a product is in schoolbook form (a register key's tag, a group's sum) the
/// [`schoolbook_lemma`] it rests on.
fn hash_verdict(
    k: TvKernel,
    capacity: u32,
    keys: &[warptrace_ir::Operand],
    agg: warptrace_ir::Aggregation,
    value: warptrace_ir::ValueKind,
    probing: Probing,
    grouped: bool,
) -> Verdict {
    use warptrace_ir::Aggregation as A;
    let products = keys
        .iter()
        .any(|k| matches!(k, warptrace_ir::Operand::Reg(_)))
        || (grouped && matches!(agg, A::Sum(_) | A::Avg(_) | A::Stats(_)));
    let p = match hash_program(capacity, keys, agg, &value, probing) {
        Ok(p) => p,
        Err(reason) => return Verdict::Unknown { reason },
    };
    let (k, wave) = match (grouped, k.lanes()) {
        (_, Err(reason)) => return Verdict::Unknown { reason },
        (true, Ok(lanes)) => (k.with(Combining::Assumed), Some(lanes)),
        (false, Ok(_)) => (k.with(Combining::Off), None),
    };
    memory_verdict(k, &p, |code, region| {
        hash_check(code, region, keys, agg, &value, probing, wave)?;
        match products {
            true => schoolbook_lemma(true),
            false => Ok(()),
        }
    })
}

/// The verdict on a hash update's snippet (`hashmap::update`) of `keys` (IR operands of
/// `%a`, `%b` or immediates) combining `agg` into the map `region` of `value`s: for
/// one active lane whatever the others do, its global memory operations are, in order,
/// those of the IR's update (`docs/ir.md`) — with `tag` the fold of `mix64` over the keys
/// (products in [`schoolbook`] form) or the constant tag: when `tag = 0`, the extra slot's
/// tag word set to 1, the keys stored and the value combined there; otherwise, for each of
/// the `HASH_MAX_PROBES` slots `(tag + j) mod capacity` while the lane has found none, the
/// compare-and-swap of its tag word from 0 to `tag` returning `old`, the keys stored when
/// `old = 0` (a claim), the value combined when `old ∈ {0, tag}` (each of the value
/// words `word_ops` names, with its atomic: an add, the unsigned maximum of an encoded
/// `min`/`max`, an exchange; a `hist`/`lhist` bucket as a term of the value); the drop
/// counter incremented when every probe missed.
///
/// Combined within a wave of `wave` lanes (`combine.rs`), the lane is the group's leader
/// (bit 0 of `exec`: the lowest active lane) and its update is the group's — with the
/// keys and the operand the same in every lane, the premise of combining: `n` =
/// the lanes in `exec` where the IR adds 1 (`count`, the count word of `avg`/`stats`, a
/// bucket, a drop), `x · n` (in schoolbook form) where it adds `x`; `min`, `max` and
/// `assign` as one lane. And a lane above an active one (bit 1, bit 0 set) makes no
/// memory operation at all.
fn hash_check(
    code: &[Instruction],
    region: &warptrace_ir::MapRegion,
    keys: &[warptrace_ir::Operand],
    agg: warptrace_ir::Aggregation,
    value: &warptrace_ir::ValueKind,
    probing: Probing,
    wave: Option<u32>,
) -> Result<(), String> {
    use warptrace_ir::{Aggregation as A, Operand};
    use warptrace_verifier::semantics::{word_ops, WordKind};
    if wave.is_some() {
        // Not the leader: nothing.
        let mut lane = Lane::new();
        lane.pos = 1;
        lane.exec = lane.exec.bvor(BV::from_u64(0b11, 64));
        let r = run_cut_from(lane, code, None)?;
        compare(&r, Vec::new(), "a", &r.a).map_err(|e| format!("{e} (a lane not the leader)"))?;
    }
    let r = run(code)?;
    let k = |v: u64| BV::from_u64(v, 64);
    let (a_in, b_in) = (r.a.clone(), r.b.clone());
    let term = |o: &Operand| form_term(o, &a_in, &b_in);
    let base = r
        .effects
        .first()
        .map(|e| e.base.clone())
        .ok_or("the snippet makes no memory operation")?;
    let cap = u64::from(region.capacity);
    let known = warptrace_ir::MapLayout::constant_tag(keys);
    // Register keys: the tag is `mix64` of them, two 64-bit products each, which z3 does
    // not decide against the snippet's word-wise computation in one query (not even in
    // schoolbook form at 20 times the limit). The run is cut after each step of the
    // computation (`tag_steps`), each step proved on its own from the previous one, and
    // the rest checked with the last step's constant as the tag.
    let (r, tag) = match known {
        Some(t) => (r, k(t)),
        None => {
            let cas = code
                .iter()
                .position(|x| x.mnemonic == "global_atomic_cmpswap_x2")
                .ok_or("no compare-and-swap")?;
            let data = code[cas]
                .operands
                .get(2)
                .and_then(|o| o.reg)
                .ok_or("the compare-and-swap's data")?;
            let cuts = Cuts::writes(code, [data.first, data.first + 1], cas);
            let cut = run_cut(code, Some(&cuts))?;
            let keys: Vec<BV> = keys.iter().map(&term).collect();
            let steps = tag_steps(&keys);
            if cut.cuts.len() != steps.len() {
                return Err(format!(
                    "the tag is computed in {} steps, mix64 of {} keys has {}",
                    cut.cuts.len(),
                    keys.len(),
                    steps.len()
                ));
            }
            let mut prev: Option<BV> = None;
            for (i, ((value, fresh), step)) in cut.cuts.iter().zip(&steps).enumerate() {
                let want = step(prev.as_ref());
                prove_equal(&format!("tag step {i}"), &cut, value, &want)?;
                prev = Some(fresh.clone());
            }
            let tag = prev.ok_or("no tag step")?;
            (cut, tag)
        }
    };

    // The value words the update combines (`docs/ir.md`'s value table).
    let x = agg.operand().map(|o| term(&o));
    let mut words = word_ops(agg, x.as_ref(), value)
        .ok_or_else(|| format!("`{}` does not fit a `{value}` map", agg.mnemonic()))?;
    // What a lane update adds 1 for: the lanes of the group.
    let lanes = lanes_counted(&r.exec, wave);
    if wave.is_some() {
        for (i, (_, kind, data)) in words.iter_mut().enumerate() {
            let sum = match agg {
                A::Sum(_) => true,
                A::Avg(_) | A::Stats(_) => i == 1,
                _ => false,
            };
            match (kind, &x) {
                (WordKind::Add, Some(x)) if sum => *data = schoolbook(x, &lanes),
                (WordKind::Add, _) => *data = lanes.clone(),
                _ => {}
            }
        }
    }
    let combine = |guard: &Bool, slot: &BV, out: &mut Vec<Expected>| {
        for (word, kind, data) in &words {
            out.push(Expected {
                guard: guard.clone(),
                op: match kind {
                    WordKind::Add => "red.add",
                    WordKind::Max => "red.umax",
                    WordKind::Exchange => "red.swap",
                },
                addr: slot
                    .bvadd(k(region.value_offset_in_slot()))
                    .bvadd(word.bvmul(k(8))),
                data: data.clone(),
            });
        }
    };
    let store_keys = |guard: &Bool, slot: &BV, out: &mut Vec<Expected>| {
        for (n, key) in keys.iter().enumerate() {
            out.push(Expected {
                guard: guard.clone(),
                op: "store",
                addr: slot.bvadd(k(8 * (n as u64 + 1))),
                data: term(key),
            });
        }
    };
    let zero = tag.eq(k(0));
    let extra = k(region.slots_offset + cap * region.slot_bytes());
    let first_slot = |j: u64| {
        k(region.slots_offset).bvadd(
            tag.extract(31, 0)
                .bvadd(BV::from_u64(j, 32))
                .bvand(BV::from_u64(cap - 1, 32))
                .zero_ext(32)
                .bvmul(k(region.slot_bytes())),
        )
    };
    let zero_path = known.is_none_or(|t| t == 0);
    let probe_path = known != Some(0);
    let mut want = Vec::new();
    if zero_path {
        let slot = base.bvadd(&extra);
        want.push(Expected {
            guard: zero.clone(),
            op: "store",
            addr: slot.clone(),
            data: k(1),
        });
        store_keys(&zero, &slot, &mut want);
        combine(&zero, &slot, &mut want);
    }
    if probe_path {
        let olds: Vec<BV> = r
            .effects
            .iter()
            .filter(|e| e.op == "cas")
            .filter_map(|e| e.result.clone())
            .collect();
        let probes = probe_count(probing, known);
        if olds.len() != probes as usize {
            return Err(format!(
                "counterexample: {} compare-and-swaps, the IR tries {probes} slots",
                olds.len(),
            ));
        }
        let mut pending = zero.not();
        if probes == 1 {
            // The home slot (decision 0013): it holds 0 or the tag and keeps the tag once
            // written, so a load that reads the tag stands for the compare-and-swap
            // finding it; the compare-and-swap runs when the load read anything else.
            let loaded = r
                .effects
                .iter()
                .find(|e| e.op == "load")
                .and_then(|e| e.result.clone())
                .ok_or("counterexample: no load of the home slot's tag")?;
            let slot = base.bvadd(first_slot(0));
            want.push(Expected {
                guard: pending.clone(),
                op: "load",
                addr: slot.clone(),
                data: k(0),
            });
            let read = Bool::and(&[&pending, &loaded.eq(&tag)]);
            let tries = Bool::and(&[&pending, &read.not()]);
            want.push(Expected {
                guard: tries.clone(),
                op: "cas",
                addr: slot.clone(),
                data: k(0).concat(&tag),
            });
            let old = &olds[0];
            let claim = Bool::and(&[&tries, &old.eq(k(0))]);
            let hit = Bool::or(&[
                &read,
                &Bool::and(&[&tries, &Bool::or(&[&old.eq(k(0)), &old.eq(&tag)])]),
            ]);
            store_keys(&claim, &slot, &mut want);
            combine(&hit, &slot, &mut want);
            pending = Bool::and(&[&pending, &hit.not()]);
        }
        for (j, old) in olds.iter().enumerate().filter(|_| probes > 1) {
            let slot = base.bvadd(first_slot(j as u64));
            want.push(Expected {
                guard: pending.clone(),
                op: "cas",
                addr: slot.clone(),
                data: k(0).concat(&tag),
            });
            let claim = Bool::and(&[&pending, &old.eq(k(0))]);
            let hit = Bool::and(&[&pending, &Bool::or(&[&old.eq(k(0)), &old.eq(&tag)])]);
            store_keys(&claim, &slot, &mut want);
            combine(&hit, &slot, &mut want);
            pending = Bool::and(&[&pending, &hit.not()]);
        }
        want.push(Expected {
            guard: pending,
            op: "red.add",
            addr: base.bvadd(k(region.drops_offset)),
            data: lanes,
        });
    }
    compare(&r, want, "tag", &tag)
}

/// The first of the constants that stand for keys a site folds (its `kernel` id, its `pc`):
/// the proofs of a folded update's snippet take keys `K, K + 1, …`; the snippet is the
/// same for every constant but for its immediates (the tag and its slots' offsets).
const REPRESENTATIVE_KEY: i64 = 0x1d5e_42a7_93c0_6b18;

/// Constant keys other than `keys` whose tag has the same home slot on `capacity` slots
/// (the last key varied), so that a kernel updating the map with both probes linearly.
fn colliding_keys(keys: &[u64], capacity: u32) -> Option<Vec<u64>> {
    use warptrace_ir::{MapLayout, Operand};
    let tag = |ks: &[u64]| {
        let ops: Vec<Operand> = ks.iter().map(|&v| Operand::Imm(v as i64)).collect();
        MapLayout::constant_tag(&ops)
    };
    let mine = tag(keys)?;
    let home = mine % u64::from(capacity);
    let mut other = if keys.is_empty() {
        vec![0]
    } else {
        keys.to_vec()
    };
    let last = other.len() - 1;
    (1..1u64 << 20).find_map(|d| {
        other[last] = keys.get(last).copied().unwrap_or(0).wrapping_add(d);
        let t = tag(&other)?;
        (t != 0 && t != mine && t % u64::from(capacity) == home).then(|| other.clone())
    })
}

/// The steps of the tag of register `keys` (`docs/ir.md`: the fold of `mix64`), each from
/// the previous step's value: load the first key or xor in the next, then `mix64`'s
/// xor-shifts and products (in [`schoolbook`] form, as the snippet computes them).
type TagStep = Box<dyn Fn(Option<&BV>) -> BV>;
fn tag_steps(keys: &[BV]) -> Vec<TagStep> {
    fn k(v: u64) -> BV {
        BV::from_u64(v, 64)
    }
    fn prev(p: Option<&BV>) -> BV {
        p.cloned().unwrap_or_else(|| k(0))
    }
    let mut steps: Vec<TagStep> = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        let key = key.clone();
        steps.push(if n == 0 {
            Box::new(move |_| key.clone())
        } else {
            Box::new(move |p| prev(p).bvxor(&key))
        });
        for (shift, mul) in [
            (30, Some(0xbf58_476d_1ce4_e5b9)),
            (27, Some(0x94d0_49bb_1331_11eb)),
            (31, None),
        ] {
            steps.push(Box::new(move |p| {
                let x = prev(p);
                x.bvxor(x.bvlshr(k(shift)))
            }));
            if let Some(m) = mul {
                steps.push(Box::new(move |p| schoolbook(&prev(p), &k(m))));
            }
        }
    }
    steps
}

/// Proves `snippet == ir` over the run's inputs (`what` names the claim).
fn prove_equal(what: &str, r: &Run, snippet: &BV, ir: &BV) -> Result<(), String> {
    let solver = warptrace_verifier::solver();
    solver.assert(&r.active);
    solver.assert(snippet.eq(ir).not());
    match warptrace_verifier::proof_cache::check(&solver) {
        SatResult::Unsat => Ok(()),
        SatResult::Sat => Err(format!("counterexample ({what})")),
        SatResult::Unknown => Err(format!("unknown ({what})")),
    }
}

/// `overflow = NAME` as the IR text writes it.
fn overflow_name(o: warptrace_ir::Overflow) -> &'static str {
    match o {
        warptrace_ir::Overflow::Drop => "drop",
        warptrace_ir::Overflow::Overwrite => "overwrite",
    }
}

/// The verdict on the snippet of `map.append @r, (fields)` to a ring of `capacity` records
/// (`fields` in the obligation's form: `r0`, `r1` or immediates), spliced into a corpus
/// kernel: [`ring_check`].
fn ring_verdict(
    k: TvKernel,
    capacity: u32,
    overflow: warptrace_ir::Overflow,
    fields: &[warptrace_ir::Operand],
) -> Verdict {
    let types = vec!["u64"; fields.len()].join(", ");
    let overflow_name = overflow_name(overflow);
    let maps = format!(
        "map @r: ring(capacity = {capacity}, overflow = {overflow_name}) -> record({types})\n"
    );
    let tuple: Vec<String> = fields.iter().map(ToString::to_string).collect();
    let append = format!("map.append @r, ({})", tuple.join(", "));
    let p = entry_program_with(&maps, &[&append, "exit"]);
    append_verdict(k, &p, overflow, fields)
}

/// The verdict of a binary operation's snippet: [`verdict`] against [`gcn_form`], and for
/// a 64-bit product the [`schoolbook_lemma`] too.
fn alu_verdict(
    code: Result<Vec<Instruction>, String>,
    op: BinOp,
    width: Width,
    a: &warptrace_ir::Operand,
    b: &warptrace_ir::Operand,
) -> Verdict {
    let v = verdict(code, &|x, y| {
        gcn_form(op, width, &operand_term(a, x), &operand_term(b, y))
    });
    match (v, (op, width) == (BinOp::Mul, Width::W64)) {
        (Verdict::Proved, true) => match schoolbook_lemma(true) {
            Ok(()) => Verdict::Proved,
            Err(reason) => Verdict::Unknown { reason },
        },
        (v, _) => v,
    }
}

/// The program of `r2 = <division> …` (`text`) storing `r2` to `%a`: a register divisor
/// (`%b`, in `r1`) is tested for zero first — in the bits the operation reads — as the IR
/// verifier asks of a divisor; the division runs for every other.
fn division_program(text: &str, width: Width, b: &warptrace_ir::Operand) -> Program {
    match (b, width) {
        (warptrace_ir::Operand::Imm(_), _) => entry_program(&[text, "store %a, r2", "exit"]),
        (_, Width::W64) => entry_program(&["jz r1, 5", text, "store %a, r2", "exit"]),
        (_, Width::W32) => entry_program(&[
            "r3 = and.64 r1, 4294967295",
            "jz r3, 6",
            text,
            "store %a, r2",
            "exit",
        ]),
    }
}

/// The verdict on `code`, the snippet of a division or remainder with a loop
/// ([`division_check`]).
fn division_verdict(
    code: Result<Vec<Instruction>, String>,
    op: BinOp,
    width: Width,
    a: &warptrace_ir::Operand,
    b: &warptrace_ir::Operand,
) -> Verdict {
    outcome(code.and_then(|c| division_check(&c, op, width, a, b)))
}

/// The claim of [`division_verdict`]: with the restoring division's loop passed over by
/// its summary (`tv_division.rs`, whose round and lemma are proved), `%a` ends as the
/// IR's `op.width a, b` for every divisor but zero (the IR verifier's), stated with the
/// same uninterpreted unsigned division, and `exec`, `vcc`, `scc` are restored.
fn division_check(
    code: &[Instruction],
    op: BinOp,
    width: Width,
    a: &warptrace_ir::Operand,
    b: &warptrace_ir::Operand,
) -> Result<(), String> {
    let mut lane = Lane::new();
    lane.divisions = true;
    let mut r = run_cut_from(lane, code, None)?;
    if !r.effects.is_empty() {
        return Err("the snippet accesses global memory".into());
    }
    if r.loop_claims.is_empty() {
        return Err("no division loop in the snippet".into());
    }
    let (x, y) = (operand_term(a, &r.a), operand_term(b, &r.b));
    let bits = if width == Width::W32 { 32 } else { 64 };
    r.assume
        .push(y.extract(bits - 1, 0).eq(BV::from_u64(0, bits)).not());
    let want = division::division_form(op, width, &x, &y);
    let mut claims: Vec<Claim> = std::mem::take(&mut r.loop_claims)
        .into_iter()
        .map(|(what, goal)| (what, goal, None))
        .collect();
    claims.push((
        format!("{} {}", op.mnemonic(), bits),
        r.got.eq(&want),
        Some((r.got.clone(), want)),
    ));
    claims.push((
        "exec, vcc, scc restored".to_owned(),
        r.restored.clone(),
        None,
    ));
    prove_claims(&r, claims)
}

/// The verdict of `code` against `expect`: a proof, a counterexample, or — where z3 does
/// not decide within its limit — not proved, with the concrete check's outcome as the
/// reason.
fn verdict(code: Result<Vec<Instruction>, String>, expect: &dyn Fn(&BV, &BV) -> BV) -> Verdict {
    let code = match code {
        Ok(c) => c,
        Err(reason) => return Verdict::Unknown { reason },
    };
    match check(&code, expect) {
        Err(e) if e == "unknown" => Verdict::Unknown {
            reason: match spot_check(&code, expect, &samples()) {
                Ok(()) => format!(
                    "z3 gave up within its limit; the snippet equals the IR on {} inputs",
                    samples().len()
                ),
                Err(e) => format!("z3 gave up within its limit; concrete inputs differ: {e}"),
            },
        },
        checked => outcome(checked),
    }
}

/// An IR operand of an obligation: the register it is loaded into, or the immediate.
fn operand_text(op: &warptrace_ir::Operand, reg: &str) -> String {
    match op {
        warptrace_ir::Operand::Reg(_) => reg.to_owned(),
        warptrace_ir::Operand::Imm(v) => v.to_string(),
    }
}

/// The z3 term of an operand in an obligation's form (`operand_forms`): `r0` is the input
/// `a` (`%a`), any other register `b` (`%b`), an immediate itself.
fn form_term(op: &warptrace_ir::Operand, a: &BV, b: &BV) -> BV {
    match op {
        warptrace_ir::Operand::Reg(x) if x.0 == 0 => a.clone(),
        other => operand_term(other, b),
    }
}

/// The z3 term of an operand: the input `x`, or the immediate.
fn operand_term(op: &warptrace_ir::Operand, x: &BV) -> BV {
    match op {
        warptrace_ir::Operand::Reg(_) => x.clone(),
        warptrace_ir::Operand::Imm(v) => BV::from_i64(*v, 64),
    }
}

/// What GCN translation validation says of one program.
#[derive(Debug, Clone, Default)]
pub struct Translation {
    /// One check a distinct operation form the program uses (level `translation`).
    pub checks: Vec<Check>,
    /// The program's operations whose GCN lowering no proof covers (the emulator tests
    /// check many of them against the interpreter, `docs/gcn.md` says which).
    pub not_proved: Vec<String>,
}

/// GCN translation validation of `program`: for each distinct operation form it uses —
/// each ALU operation with its operands (a register or its immediate), extensions, moves,
/// the persistent registers, probe branches, loop edges, `kernel`, `active` and
/// `activemask`, ring
/// appends and `printf` with their capacity and field forms, hash updates with their
/// key forms, value kind and operand form, the special registers `gcn_special`
/// specifies, `launch`, `pc`/`file`/`line` and the site values `bytes`/`addr`/`opcode`/
/// `value` at two sites, array saves with their kind, slots and field forms — the
/// snippet the instrumenter splices into
/// a corpus kernel is executed symbolically for one lane and z3 proves it computes the IR
/// semantics (for an append: makes the IR's memory operations) with `exec`, `vcc` and
/// `scc` restored; the warp-wide site values by induction over their waterfall
/// loop ([`waterfall_check`]); divisions other than by a power of two through their
/// loop's summary ([`division_check`]). What no proof covers (an operation the lowering
/// has no specification for) is listed in [`Translation::not_proved`].
pub fn translation_checks(program: &Program) -> Translation {
    use std::collections::BTreeMap;
    // Rings spread over copies (decision 0020): the code is generated for each copy's
    // capacity.
    let generated = warptrace_ir::placement::as_generated(program);
    let program: &Program = &generated;
    use warptrace_ir::{kernel_id, AttachPoint, Insn, LoopEdge, SiteValue, Special};
    let mut obligations: BTreeMap<String, Box<dyn Fn() -> Verdict>> = BTreeMap::new();
    let mut not_proved = std::collections::BTreeSet::new();
    for probe in &program.probes {
        if matches!(
            probe.attach.point,
            AttachPoint::Loop(LoopEdge::Exit | LoopEdge::Backedge)
        ) {
            for (kernel, point, _) in loop_edges() {
                let name = format!("loop.{kernel}.{}", point.trim_start_matches("loop:"));
                obligations.insert(
                    name,
                    Box::new(move || {
                        let (_, _, takes) = loop_edges()
                            .into_iter()
                            .find(|(k, p, _)| *k == kernel && *p == point)
                            .expect("the edge");
                        verdict(point_snippet(kernel, point, LOOP_BODY), &|a, b| {
                            takes().ite(&a.bvadd(b), a)
                        })
                    }),
                );
            }
        }
        // The updates the wave's lanes may do once, by their leader (`combine.rs`; one
        // decision for every site, so the program's own).
        let combined = crate::combine::plans(probe, Combining::Uniform);
        for (index, insn) in probe.insns.iter().enumerate() {
            match insn {
                Insn::Bin {
                    op, width, a, b, ..
                } => {
                    let w = if *width == Width::W32 { "32" } else { "64" };
                    let form = |o: &warptrace_ir::Operand| match o {
                        warptrace_ir::Operand::Reg(_) => "reg".to_owned(),
                        warptrace_ir::Operand::Imm(v) => format!("imm.{v}"),
                    };
                    let name = format!("bin.{}.{w}.{}.{}", op.mnemonic(), form(a), form(b));
                    let (op, width, a, b) = (*op, *width, *a, *b);
                    let text = format!(
                        "r2 = {}.{w} {}, {}",
                        op.mnemonic(),
                        operand_text(&a, "r0"),
                        operand_text(&b, "r1")
                    );
                    // The restoring division's loop (`alu::divide`): by its summary.
                    let looped = op.divides() && crate::alu::power_of_two_divisor(op, &b).is_none();
                    obligations.insert(
                        name,
                        Box::new(move || {
                            if looped {
                                let p = division_program(&text, width, &b);
                                division_verdict(entry_snippet(GFX942, &p), op, width, &a, &b)
                            } else {
                                let p = entry_program(&[&text, "store %a, r2", "exit"]);
                                alu_verdict(entry_snippet(GFX942, &p), op, width, &a, &b)
                            }
                        }),
                    );
                }
                Insn::Ext { from, signed, .. } => {
                    let name = format!(
                        "ext.{}.{}",
                        if *signed { "sext" } else { "zext" },
                        from.bits()
                    );
                    let (from, signed) = (*from, *signed);
                    let text = format!("r2 = {} r0", name.trim_start_matches("ext."));
                    obligations.insert(
                        name,
                        Box::new(move || {
                            let p = entry_program(&[&text, "store %a, r2", "store %b, r1", "exit"]);
                            verdict(entry_snippet(GFX942, &p), &|x, _| extend(x, from, signed))
                        }),
                    );
                }
                Insn::Mov { src, .. } => {
                    let name = match src {
                        warptrace_ir::Operand::Reg(_) => "mov.reg".to_owned(),
                        warptrace_ir::Operand::Imm(v) => format!("mov.imm.{v}"),
                    };
                    let src = *src;
                    let text = format!("r2 = mov {}", operand_text(&src, "r0"));
                    obligations.insert(
                        name,
                        Box::new(move || {
                            let p = entry_program(&[&text, "store %a, r2", "exit"]);
                            verdict(entry_snippet(GFX942, &p), &|x, _| operand_term(&src, x))
                        }),
                    );
                }
                Insn::LoadPersist { .. } | Insn::StorePersist { .. } => {
                    obligations.insert(
                        "persist.load-store".into(),
                        Box::new(move || {
                            let p = entry_program(&["store %a, r1", "store %b, r0", "exit"]);
                            verdict(entry_snippet(GFX942, &p), &|_, y| y.clone())
                        }),
                    );
                }
                Insn::Branch { .. } | Insn::Jump { .. } => {
                    for (i, (what, _, _)) in branch_cases().into_iter().enumerate() {
                        obligations.insert(
                            format!("branch.{}", what.replace(' ', "-")),
                            Box::new(move || {
                                let (_, body, expect) =
                                    branch_cases().into_iter().nth(i).expect("the case");
                                verdict(entry_snippet(GFX942, &entry_program(&body)), &*expect)
                            }),
                        );
                    }
                }
                Insn::ReadSpecial {
                    special: special @ (Special::KernelId | Special::Active | Special::ActiveMask),
                    ..
                } => {
                    let special = *special;
                    obligations.insert(
                        format!("sreg.{}", special.name()),
                        Box::new(move || {
                            let text = format!("r2 = sreg {}", special.name());
                            let p = entry_program(&[&text, "store %a, r2", "exit"]);
                            // `kernel`: the id of the kernel's name; `active`: the lanes
                            // in `exec` (the lane's own `exec0` input, all 64 bits);
                            // `activemask`: `exec` itself (the module is wave64).
                            let exec = BV::new_const("exec0", 64);
                            let want = match special {
                                Special::KernelId => BV::from_u64(kernel_id("histogram"), 64),
                                Special::ActiveMask => exec,
                                _ => popcount(&exec).zero_ext(32),
                            };
                            verdict(entry_snippet(GFX942, &p), &|_, _| want.clone())
                        }),
                    );
                }
                Insn::ReadSpecial {
                    special: Special::Launch,
                    ..
                } => {
                    obligations.insert(
                        "sreg.launch".into(),
                        Box::new(|| outcome(launch_check(None))),
                    );
                }
                Insn::ReadSpecial { special, .. } if PROVED_SPECIALS.contains(special) => {
                    let special = *special;
                    obligations.insert(
                        format!("sreg.{}", special.name()),
                        Box::new(move || special_verdict(special)),
                    );
                }
                Insn::ReadSpecial {
                    special: Special::Pc | Special::File | Special::Line,
                    ..
                }
                | Insn::ReadSite {
                    value: SiteValue::Bytes | SiteValue::Addr | SiteValue::Opcode | SiteValue::Value,
                    ..
                } => {
                    // `sreg pc` or `site bytes`, at each site.
                    let what = lowering_kind(insn);
                    for (site, Site { name, .. }) in SITES.iter().enumerate() {
                        let what = what.clone();
                        obligations.insert(
                            format!("{}.{name}", what.replace(' ', ".")),
                            Box::new(move || site_verdict(&what, site)),
                        );
                    }
                }
                Insn::ReadSite { value, .. } if value.is_warp_wide() => {
                    // The waterfall loop, by induction over a wave (`tv_waterfall.rs`).
                    let Some(value) = crate::tv_waterfall::Waterfall::of(*value) else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let name = value.site_value().name();
                    for (site, Site { name: at, .. }) in SITES.iter().enumerate() {
                        obligations.insert(
                            format!("site.{name}.{at}"),
                            Box::new(move || waterfall_verdict(value, site)),
                        );
                    }
                }
                Insn::ArraySave { map, fields, .. } => {
                    let Some(warptrace_ir::MapDecl {
                        kind: warptrace_ir::MapKind::Array { per, slots },
                        ..
                    }) = program.maps.get(map.0 as usize)
                    else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let (per, slots) = (*per, *slots);
                    let forms = operand_forms(fields);
                    let name = format!(
                        "array.{}.slots{slots}.{}",
                        match per {
                            warptrace_ir::Per::Thread => "thread",
                            warptrace_ir::Per::Warp => "warp",
                        },
                        forms_name(&forms)
                    );
                    obligations.insert(
                        name,
                        Box::new(move || array_verdict(GFX942, per, slots, &forms)),
                    );
                }
                Insn::Exit => {}
                Insn::RingAppend { map, fields } => {
                    let Some(decl) = program.maps.get(map.0 as usize) else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let warptrace_ir::MapKind::Ring { capacity, overflow } = decl.kind else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let forms = operand_forms(fields);
                    // The cursor once per wave, and per lane (`WARPTRACE_NO_WARP_COMBINE`).
                    for (kind, k) in APPEND_FORMS {
                        let forms = forms.clone();
                        let name = format!(
                            "ring.{kind}{}.cap{capacity}.{}",
                            overflow_name(overflow),
                            forms_name(&forms)
                        );
                        obligations.insert(
                            name,
                            Box::new(move || ring_verdict(k, capacity, overflow, &forms)),
                        );
                    }
                }
                Insn::MapUpdate { map, keys, agg } => {
                    let Some(warptrace_ir::MapDecl {
                        kind: warptrace_ir::MapKind::Hash { capacity },
                        value,
                        ..
                    }) = program.maps.get(map.0 as usize)
                    else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let (capacity, value) = (*capacity, value.clone());
                    let forms = operand_forms(keys);
                    let agg = match agg.operand() {
                        Some(x) => agg.with_operand(operand_forms(&[x])[0]),
                        None => *agg,
                    };
                    // The snippets a kernel may get: these keys probing linearly (a
                    // register's tag, or constants another site's keys collide with) or
                    // their home slot (decision 0013); keys that are all known at a site
                    // (`[kernel]`, `[kernel, pc]`) are folded there, which representative
                    // constants stand for.
                    let constant = forms
                        .iter()
                        .all(|f| matches!(f, warptrace_ir::Operand::Imm(_)));
                    let folded: Vec<warptrace_ir::Operand> = (0..forms.len())
                        .map(|n| {
                            warptrace_ir::Operand::Imm(REPRESENTATIVE_KEY.wrapping_add(n as i64))
                        })
                        .collect();
                    let mut variants = vec![];
                    if !forms.is_empty() {
                        variants.push(("", forms.clone(), Probing::Linear));
                    }
                    if constant {
                        variants.push(("home.", forms.clone(), Probing::Home));
                    } else {
                        variants.push(("const.", folded.clone(), Probing::Linear));
                        variants.push(("home.const.", folded, Probing::Home));
                    }
                    // Combined within the wave (decision 0036), each of them — and per
                    // lane as well, which `WARPTRACE_NO_WARP_COMBINE` gives.
                    let groupings: &[bool] = match combined[index] {
                        Some(_) => &[false, true],
                        None => &[false],
                    };
                    let variants = variants.into_iter().flat_map(|(kind, keys, probing)| {
                        groupings.iter().map(move |&g| {
                            let kind = if g {
                                format!("warp.{kind}")
                            } else {
                                kind.to_owned()
                            };
                            (kind, keys.clone(), probing, g)
                        })
                    });
                    for (kind, keys, probing, grouped) in variants {
                        let name = format!(
                            "hash.{kind}cap{capacity}.{}.{}{}",
                            forms_name(&forms),
                            value
                                .to_string()
                                .replace(", ", ".")
                                .replace(['(', ' '], ".")
                                .replace(')', ""),
                            agg.operand()
                                .map_or(String::new(), |x| format!(".{}", forms_name(&[x])))
                        );
                        let value = value.clone();
                        obligations.insert(
                            name,
                            Box::new(move || {
                                hash_verdict(
                                    GFX942,
                                    capacity,
                                    &keys,
                                    agg,
                                    value.clone(),
                                    probing,
                                    grouped,
                                )
                            }),
                        );
                    }
                }
                Insn::Printf { args, .. } => {
                    let ring = program
                        .printf_ring()
                        .and_then(|m| program.maps.get(m.0 as usize));
                    let Some(warptrace_ir::MapDecl {
                        kind: warptrace_ir::MapKind::Ring { capacity, .. },
                        value: warptrace_ir::ValueKind::Printf { args: width },
                        ..
                    }) = ring
                    else {
                        not_proved.insert(lowering_kind(insn));
                        continue;
                    };
                    let (capacity, width) = (*capacity, *width);
                    let forms = operand_forms(args);
                    for (kind, k) in APPEND_FORMS {
                        let forms = forms.clone();
                        let name =
                            format!("printf.{kind}cap{capacity}.w{width}.{}", forms_name(&forms));
                        obligations.insert(
                            name,
                            Box::new(move || printf_verdict(k, capacity, width, &forms)),
                        );
                    }
                }
                other => {
                    not_proved.insert(lowering_kind(other));
                }
            }
        }
    }
    // A form's name says all its proof depends on (the obligations above are built from
    // what the name spells), so a form is proved once in the process, for every program
    // that uses it: the library's probes share most of theirs; and with a proof cache,
    // once for every process of the same source (`named_proofs`). Its `micros` are that
    // proof's.
    static PROVED: crate::proved::Proofs<String, (Verdict, u64)> = crate::proved::Proofs::new();
    warptrace_verifier::progress::begin("GCN translation", obligations.len());
    let checks = obligations
        .into_iter()
        .map(|(name, prove)| {
            let mut asked = false;
            let (verdict, micros) = crate::proved::once(&PROVED, name.clone(), || {
                asked = true;
                warptrace_verifier::named_proofs::proved_once(
                    "gcn",
                    env!("WARPTRACE_SOURCE_DIGEST"),
                    &name,
                    || {
                        let start = std::time::Instant::now();
                        let verdict = prove();
                        (verdict, start.elapsed().as_micros() as u64)
                    },
                )
            });
            if !asked {
                // This process's own proof (`named_proofs` reported the first).
                warptrace_verifier::progress::settled(&name, true);
            }
            Check {
                level: "translation".into(),
                name,
                scope: "gcn".into(),
                verdict,
                micros,
            }
        })
        .collect();
    warptrace_verifier::progress::end();
    Translation {
        checks,
        not_proved: not_proved.into_iter().collect(),
    }
}

/// How an operation outside the proofs is named in [`Translation::not_proved`].
fn lowering_kind(insn: &warptrace_ir::Insn) -> String {
    use warptrace_ir::Insn;
    match insn {
        Insn::MapUpdate { .. } => "map update".into(),
        Insn::RingAppend { .. } => "ring append".into(),
        Insn::ArraySave { .. } => "array save".into(),
        Insn::Printf { .. } => "printf".into(),
        Insn::ReadSpecial { special, .. } => format!("sreg {}", special.name()),
        Insn::ReadSite { value, .. } => format!("site {}", value.name()),
        Insn::Bin { op, width, b, .. } => format!(
            "{}.{} by {}",
            op.mnemonic(),
            if *width == Width::W32 { 32 } else { 64 },
            match b {
                warptrace_ir::Operand::Reg(_) => "a register".to_owned(),
                warptrace_ir::Operand::Imm(v) => v.to_string(),
            }
        ),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use warptrace_ir::ExtFrom;

    /// `r2 = <op> r0, <rhs>; store %a, r2` after the loads (`rhs` is `r1` or an immediate).
    fn program(op: &str, rhs: &str) -> Program {
        entry_program(&[&format!("r2 = {op} r0, {rhs}"), "store %a, r2", "exit"])
    }

    /// The immediates each operator is proved with (divisions: powers of two only, the
    /// rest is not lowered).
    fn imms(op: BinOp, width: Width) -> Vec<i64> {
        match op {
            // A 32-bit division by 2^40 divides by zero: the IR verifier rejects it.
            BinOp::DivU | BinOp::RemU if width == Width::W32 => vec![1, 8, 1 << 31],
            BinOp::DivU | BinOp::RemU => vec![1, 8, 1 << 31, 1 << 40],
            BinOp::Shl | BinOp::ShrU | BinOp::ShrS => vec![0, 3, 31, 35, 64, 70],
            _ => vec![0, 5, -3, 0x1_0000_0003, i64::MIN],
        }
    }

    /// On `histogram` (gfx942, wave64) and on `volume_index` (gfx1100, wave32: the
    /// gfx10+ adds and carries, one-SGPR masks).
    #[test]
    fn every_alu_operation_computes_the_ir_semantics() {
        for asm in [GFX942, GFX1100] {
            alu_forms_are_proved(asm);
        }
        assert_eq!(schoolbook_lemma(true), Ok(()));
    }

    /// Every division and remainder the restoring loop lowers — unsigned and signed, 32
    /// and 64 bits, by a register and by constants that are no power of two — is proved
    /// through the loop's summary (`tv_division.rs`), on gfx942 and gfx1100.
    #[test]
    fn divisions_by_their_loop_are_proved() {
        for asm in [GFX942, GFX1100] {
            for op in [BinOp::DivU, BinOp::DivS, BinOp::RemU, BinOp::RemS] {
                for (width, w) in [(Width::W32, "32"), (Width::W64, "64")] {
                    for rhs in ["r1", "3", "-7"] {
                        let b = rhs.parse().map_or(ir_reg(1), warptrace_ir::Operand::Imm);
                        let text = format!("r2 = {}.{w} r0, {rhs}", op.mnemonic());
                        let p = division_program(&text, width, &b);
                        let code = entry_snippet(asm, &p).expect("lowered");
                        let r = division_check(&code, op, width, &ir_reg(0), &b);
                        assert_eq!(r, Ok(()), "{} {w} {rhs}", op.mnemonic());
                    }
                }
            }
        }
    }

    /// Wrong divisions are refuted or not proved: a round that never subtracts, a
    /// remainder that starts at one, a quotient given the dividend's sign only (all
    /// counterexamples); a loop of 31 rounds is refused.
    #[test]
    fn wrong_divisions_are_refuted() {
        let lowered = |op: BinOp| {
            let text = format!("r2 = {}.64 r0, r1", op.mnemonic());
            let p = division_program(&text, Width::W64, &ir_reg(1));
            entry_snippet(GFX942, &p).expect("lowered")
        };
        let check = |op: BinOp, code: &[Instruction]| {
            division_check(code, op, Width::W64, &ir_reg(0), &ir_reg(1))
        };
        // The loop's label and its first `v_cndmask` (the remainder's low word).
        let at = |c: &[Instruction], f: &dyn Fn(&Instruction) -> bool| {
            c.iter().position(f).expect("the instruction")
        };
        let mut c = lowered(BinOp::DivU);
        let i = at(&c, &|x| x.mnemonic == "v_cndmask_b32_e64");
        c[i].operands.swap(1, 2);
        assert_refuted("never subtracts", &check(BinOp::DivU, &c));
        let mut c = lowered(BinOp::RemU);
        let i = at(&c, &|x| {
            x.mnemonic == "s_mov_b32" && x.operands[1].imm == Some(64)
        });
        // The remainder's clearing: the two `v_mov_b32 …, 0` before the count.
        let clear = c[..i]
            .iter()
            .rposition(|x| x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm == Some(0))
            .expect("the remainder cleared");
        set_imm(&mut c[clear - 1], 1, 1);
        assert_refuted("a remainder from one", &check(BinOp::RemU, &c));
        let mut c = lowered(BinOp::DivS);
        let i = at(&c, &|x| {
            x.mnemonic == "v_xor_b32_e32"
                && x.operands[0].text == x.operands[1].text
                && x.operands[2].reg.is_some_and(|r| r.file == RegFile::Vgpr)
                && x.operands[0].reg.map(|r| r.first + 1) == x.operands[2].reg.map(|r| r.first)
        });
        c.remove(i);
        assert_refuted("the dividend's sign only", &check(BinOp::DivS, &c));
        let mut c = lowered(BinOp::DivU);
        let i = at(&c, &|x| {
            x.mnemonic == "s_mov_b32" && x.operands[1].imm == Some(64)
        });
        set_imm(&mut c[i], 1, 31);
        let r = check(BinOp::DivU, &c);
        assert!(r.as_ref().is_err_and(|e| e.contains("31 rounds")), "{r:?}");
    }

    fn alu_forms_are_proved(asm: TvKernel) {
        let mut failures = Vec::new();
        let mut proved = 0;
        for op in BinOp::ALL {
            if matches!(op, BinOp::DivS | BinOp::RemS) {
                // The restoring division's loop (`alu::divide`): proved through its
                // summary (`divisions_by_their_loop_are_proved` has every form).
                let p = program(&format!("{}.64", op.mnemonic()), "-7");
                let code = entry_snippet(asm, &p).expect("lowered");
                assert!(
                    code.iter().any(|x| x.mnemonic == "s_cbranch_scc1"),
                    "a loop"
                );
                let t = translation_checks(&p);
                assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
                let name = format!("bin.{}.64.reg.imm.-7", op.mnemonic());
                assert!(
                    t.checks
                        .iter()
                        .any(|c| c.name == name && c.verdict.is_proved()),
                    "{name}"
                );
                continue;
            }
            for (width, w) in [(Width::W32, "32"), (Width::W64, "64")] {
                let mnemonic = format!("{}.{w}", op.mnemonic());
                let mut cases: Vec<(String, Option<i64>)> = imms(op, width)
                    .into_iter()
                    .map(|v| (v.to_string(), Some(v)))
                    .collect();
                if !op.divides() {
                    cases.push(("r1".into(), None));
                }
                for (rhs, imm) in cases {
                    let name = format!("{mnemonic} r0, {rhs}");
                    let code = match entry_snippet(asm, &program(&mnemonic, &rhs)) {
                        Ok(c) => c,
                        Err(e) => {
                            failures.push(format!("{name}: {e}"));
                            continue;
                        }
                    };
                    let expect = |a: &BV, b: &BV| {
                        let b = imm.map_or_else(|| b.clone(), |v| BV::from_i64(v, 64));
                        gcn_form(op, width, a, &b)
                    };
                    match check(&code, &expect) {
                        Ok(()) => proved += 1,
                        Err(e) => failures.push(format!("{name}: {e}")),
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{}: {} failed:\n{}",
            asm.name,
            failures.len(),
            failures.join("\n")
        );
        // The 64-bit products against their schoolbook form, which the lemma proves equal
        // to the IR's.
        assert_eq!(proved, 248, "{}: proved", asm.name);
    }

    /// The schoolbook lemma is no tautology of its encoding: without the carry of the low
    /// product it is refuted; and the form itself is the product on concrete inputs (z3's
    /// simplifier evaluates both).
    #[test]
    fn the_schoolbook_form_of_a_64_bit_product_is_the_product() {
        assert!(schoolbook_lemma(false).is_err());
        for (a, b) in samples() {
            let (x, y) = (BV::from_u64(a, 64), BV::from_u64(b, 64));
            let form = schoolbook(&x, &y).simplify().as_u64();
            assert_eq!(form, Some(a.wrapping_mul(b)), "{a} * {b}");
        }
    }

    #[test]
    fn every_extension_computes_the_ir_semantics() {
        for asm in [GFX942, GFX1100] {
            extensions_are_proved(asm);
        }
    }

    fn extensions_are_proved(asm: TvKernel) {
        for from in [ExtFrom::B8, ExtFrom::B16, ExtFrom::B32] {
            for signed in [false, true] {
                let name = format!("{}.{}", if signed { "sext" } else { "zext" }, from.bits());
                let p = entry_program(&[
                    &format!("r2 = {name} r0"),
                    "store %a, r2",
                    "store %b, r1",
                    "exit",
                ]);
                let code = entry_snippet(asm, &p).unwrap_or_else(|e| panic!("{name}: {e}"));
                let r = check(&code, &|a, _| extend(a, from, signed));
                assert!(r.is_ok(), "{name}: {r:?}");
            }
        }
    }

    #[test]
    fn probe_branches_run_each_lane_on_its_own_path() {
        for asm in [GFX942, GFX1100] {
            for (what, body, expect) in branch_cases() {
                let code = entry_snippet(asm, &entry_program(&body))
                    .unwrap_or_else(|e| panic!("{} {what}: {e}", asm.name));
                let r = check(&code, expect.as_ref());
                assert!(r.is_ok(), "{} {what}: {r:?}", asm.name);
            }
        }
    }

    /// The lane and grid values of a wave32 kernel (gfx1100's `volume_index`): `lane`
    /// is `v_mbcnt_lo` alone, the grid values come from its entry state as on gfx942,
    /// `warp` divides by 32, `smid` is bits 10–20 of `HW_REG_HW_ID1`, `warpid` its bits
    /// 8–9 above bits 0–4, `globaltimer` ten times the `MSG_RTN_GET_REALTIME` count;
    /// `active` is the count of `exec_lo`, `activemask` `exec_lo` zero-extended (the high
    /// half of `exec` is no lane of a wave32); a wave64 form (`exec_hi` read), a `smid` a
    /// bit short and a `warpid` with its SIMD id from the wrong bit are refuted.
    #[test]
    fn wave32_lane_and_grid_values_are_proved() {
        use warptrace_ir::Special;
        for sp in PROVED_SPECIALS {
            // gfx11 has no `s_memtime` (`clock` is not lowered there); its `smid` is in
            // `HW_REG_HW_ID1`, its `globaltimer` the `MSG_RTN_GET_REALTIME` message.
            if matches!(sp, Special::Clock | Special::Clock64) {
                continue;
            }
            let v = special_verdict_in(GFX1100, sp);
            assert!(matches!(v, Verdict::Proved), "{}: {v:?}", sp.name());
        }
        let exec_lo = || BV::new_const("exec0", 64).extract(31, 0);
        let active = move |_: &BV, _: &BV| popcount(&exec_lo().zero_ext(32)).zero_ext(32);
        let mask = move |_: &BV, _: &BV| exec_lo().zero_ext(32);
        type Want = Box<dyn Fn(&BV, &BV) -> BV>;
        let cases: [(&str, Want); 2] =
            [("active", Box::new(active)), ("activemask", Box::new(mask))];
        for (name, want) in &cases {
            let p = entry_program(&[&format!("r2 = sreg {name}"), "store %a, r2", "exit"]);
            let code = entry_snippet(GFX1100, &p).expect("snippet");
            let r = check(&code, want.as_ref());
            assert!(r.is_ok(), "{name}: {r:?}");
        }
        let p = entry_program(&["r2 = sreg activemask", "store %a, r2", "exit"]);
        let mut code = entry_snippet(GFX1100, &p).expect("snippet");
        let zero = code
            .iter_mut()
            .find(|x| x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm == Some(0))
            .expect("the high word's zero");
        zero.operands[1] = Operand {
            text: "exec_hi".into(),
            reg: Some(Reg::new(RegFile::Exec, 1, 1)),
            imm: None,
        };
        let r = check(&code, &mask);
        assert_refuted(&format!("{r:?}"), &r);
        // gfx11's `smid` one bit short of the SE id, and its `warpid` with the SIMD id
        // right above the slot's 5 bits rather than at bit 8, are refuted.
        let mutants = [
            (
                Special::Smid,
                "hwreg(HW_REG_HW_ID1, 10, 11)",
                "hwreg(HW_REG_HW_ID1, 10, 10)",
            ),
            (
                Special::Warpid,
                "hwreg(HW_REG_HW_ID1, 8, 2)",
                "hwreg(HW_REG_HW_ID1, 5, 2)",
            ),
        ];
        for (sp, field, wrong) in mutants {
            let text = format!("r2 = sreg {}", sp.name());
            let p = entry_program(&[&text, "store %a, r2", "exit"]);
            let (prologue, mut code, abi) = entry_code(GFX1100, &p).expect("code");
            let spec = gcn_special(sp, &abi).expect("a specification");
            let x = code
                .iter_mut()
                .find(|x| x.mnemonic == "s_getreg_b32")
                .expect("the hardware id read");
            assert_eq!(x.operands[1].text, field);
            x.operands[1].text = wrong.into();
            let r = special_check(&prologue, &code, &abi, &spec);
            assert_refuted(&format!("{} from {wrong}", sp.name()), &r);
        }
    }

    /// `code`, an exit for the lanes an `if` leaves out, adds `%b` to `%a` exactly for the
    /// lanes `left_out` names — proved for any lane, in `exec` or not — and without its
    /// narrowing (instruction `narrowing`) it does not: refuted.
    fn left_out_lanes_proved(code: &[Instruction], narrowing: usize, left_out: &dyn Fn() -> Bool) {
        let expect = |a: &BV, b: &BV| left_out().ite(&a.bvadd(b), a);
        let r = check_lanes(code, &expect, false);
        assert!(r.is_ok(), "{r:?}");
        let mut unnarrowed = code.to_vec();
        unnarrowed.remove(narrowing);
        let r = check_lanes(&unnarrowed, &expect, false);
        assert_refuted("the exit of the lanes left out run for `exec`", &r);
    }

    /// The exit of the lanes an early return leaves out (`Lanes::Returned`): `block_sum`'s
    /// last `if` (`s_and_saveexec_b64 s[0:1], vcc`, then `s_cbranch_execz` to `s_endpgm`)
    /// returns the lanes it leaves out, and region 34-34's exit right after it runs for
    /// `s[0:1] & ~exec` — proved for any lane, in `exec` or not, so a lane the `if` keeps
    /// and one that never reached it are left alone. Without its narrowing it runs for the
    /// `if`'s lanes instead: refuted.
    #[test]
    fn early_return_exits_run_for_the_lanes_left_out() {
        let code = point_snippet("block_sum", "region:exit:gcn_kernels.hip:34-34", LOOP_BODY)
            .expect("the exit after the `if` opens");
        let narrowing = index_of(&code, |x| {
            x.mnemonic == "s_andn2_b64" && x.operands[1].text == "s[0:1]"
        });
        let bit = |v: BV| v.extract(0, 0).eq(BV::from_u64(1, 1));
        let left_out = move || {
            Bool::and(&[
                bit(BV::new_const("s0", 32)),
                bit(BV::new_const("exec0", 64)).not(),
            ])
        };
        left_out_lanes_proved(&code, narrowing, &left_out);
    }

    /// The exit of the lanes an `if` that narrows `exec` without saving it leaves out
    /// (`Return { after: false, lanes: Lanes::Drop(vcc) }`): `atomic_ticket`'s
    /// `if (v > 0.0f)`, inside its early return, is `s_and_b64 exec, exec, vcc` then
    /// `s_cbranch_execz` to `s_endpgm`, and region 75-75's exit right before it runs for
    /// `exec & ~vcc` — proved for any lane, so a lane the `if` keeps and one outside
    /// `exec` are left alone. Without its narrowing it runs for `exec`: refuted.
    #[test]
    fn narrowing_return_exits_run_for_the_lanes_left_out() {
        let code = point_snippet(
            "atomic_ticket",
            "region:exit:gcn_kernels.hip:75-75",
            LOOP_BODY,
        )
        .expect("the exit before the `if` narrows");
        let narrowing = index_of(&code, |x| {
            x.mnemonic == "s_andn2_b64" && x.operands[2].text == "vcc"
        });
        let bit = |name: &str| BV::new_const(name, 64).extract(0, 0).eq(BV::from_u64(1, 1));
        let left_out = move || Bool::and(&[bit("exec0"), bit("vcc0").not()]);
        left_out_lanes_proved(&code, narrowing, &left_out);
    }

    /// A loop edge's snippet runs for the lanes that take the edge and no others: the
    /// narrowing of `exec` at a masked latch (`exec & X` leaving, `exec & ~X` going on) and
    /// at a uniform branch (`exec` only when its `scc` condition holds) is proved for any
    /// lane, whatever the kernel's `X` and `scc` — the probe adds `%b` to `%a` exactly when
    /// its lane takes the edge.
    #[test]
    fn loop_edges_run_for_the_lanes_that_take_them() {
        for (kernel, point, takes) in loop_edges() {
            let code = point_snippet(kernel, point, LOOP_BODY)
                .unwrap_or_else(|e| panic!("{kernel} {point}: {e}"));
            let r = check(&code, &|a, b| takes().ite(&a.bvadd(b), a));
            assert!(r.is_ok(), "{kernel} {point}: {r:?}");
            // Without its narrowing the snippet runs for lanes that do not take the edge.
            let narrowed: Vec<Instruction> = code
                .iter()
                .filter(|x| {
                    let t = x.operands.first().map(|o| o.text.as_str());
                    !(t == Some("exec") && x.mnemonic != "s_mov_b64")
                })
                .cloned()
                .collect();
            // The back edge after `s_cbranch_scc1` falls through: nothing to narrow.
            let narrows = !(kernel == "block_sum" && point == "loop:backedge");
            assert_eq!(
                narrowed.len() + usize::from(narrows),
                code.len(),
                "{kernel} {point}"
            );
            if narrows {
                let r = check(&narrowed, &|a, b| takes().ite(&a.bvadd(b), a));
                assert!(
                    r.is_err(),
                    "{kernel} {point}: dropping the narrowing went unnoticed"
                );
            }
        }
    }

    #[test]
    fn a_wrong_lowering_is_refuted() {
        // The snippet of `add.64` with its carry-in add turned into a plain add: the high
        // word loses the carry, and z3 finds inputs that show it.
        let asm = GFX942;
        let mut code = entry_snippet(asm, &program("add.64", "r1")).expect("snippet");
        let carry = code
            .iter_mut()
            .find(|x| x.mnemonic == "v_addc_co_u32_e64")
            .expect("a carry-in add");
        carry.mnemonic = "v_add_co_u32_e64".into();
        carry.operands.truncate(4);
        let r = check(&code, &|a, b| alu(BinOp::Add, Width::W64, a, b));
        assert_refuted(&format!("{r:?}"), &r);
        // A `jz` whose jumping lanes stay in `exec` (its `s_andn2 exec` dropped) runs the
        // skipped store for them.
        let body = [
            "r2 = lt.u.64 r0, r1",
            "jz r2, 6",
            "r3 = sub.64 r1, r0",
            "store %a, r3",
            "exit",
        ];
        let mut code = entry_snippet(asm, &entry_program(&body)).expect("snippet");
        let leave = code
            .iter()
            .position(|x| x.mnemonic == "s_andn2_b64" && x.operands[0].text == "exec")
            .expect("lanes leaving exec");
        let expect = |a: &BV, b: &BV| a.bvult(b).ite(&b.bvsub(a), a);
        assert_eq!(check(&code, &expect), Ok(()));
        code.remove(leave);
        let r = check(&code, &expect);
        assert_refuted(&format!("{r:?}"), &r);
        // `mul.64` with a high word that lacks the carry of the low product
        // (`v_mul_hi_u32` made `v_mul_lo_u32`): refuted against the schoolbook form, and
        // the concrete check agrees.
        let mul = |a: &BV, b: &BV| alu(BinOp::Mul, Width::W64, a, b);
        let mut code = entry_snippet(asm, &program("mul.64", "r1")).expect("snippet");
        assert_eq!(check(&code, &schoolbook), Ok(()));
        assert_eq!(spot_check(&code, &mul, &samples()), Ok(()));
        let hi = code
            .iter_mut()
            .find(|x| x.mnemonic == "v_mul_hi_u32")
            .expect("a high product");
        hi.mnemonic = "v_mul_lo_u32".into();
        let r = check(&code, &schoolbook);
        assert_refuted(&format!("{r:?}"), &r);
        assert!(spot_check(&code, &mul, &samples()).is_err());
        // `active` counting only `exec`'s low half (a wave32 count in a wave64 kernel).
        let p = entry_program(&["r2 = sreg active", "store %a, r2", "exit"]);
        let mut code = entry_snippet(asm, &p).expect("snippet");
        let active = |_: &BV, _: &BV| popcount(&BV::new_const("exec0", 64)).zero_ext(32);
        assert_eq!(check(&code, &active), Ok(()));
        let bcnt = code
            .iter_mut()
            .find(|x| x.mnemonic == "s_bcnt1_i32_b64")
            .expect("the count of exec");
        bcnt.mnemonic = "s_bcnt1_i32_b32".into();
        let r = check(&code, &active);
        assert_refuted(&format!("{r:?}"), &r);
        // `activemask` with only `exec`'s low half (the wave32 form in a wave64 kernel).
        let p = entry_program(&["r2 = sreg activemask", "store %a, r2", "exit"]);
        let mut code = entry_snippet(asm, &p).expect("snippet");
        let mask = |_: &BV, _: &BV| BV::new_const("exec0", 64);
        assert_eq!(check(&code, &mask), Ok(()));
        let high = code
            .iter_mut()
            .find(|x| x.operands.iter().any(|o| o.text == "exec_hi"))
            .expect("the high half of exec");
        high.operands[1].reg = None;
        set_imm(high, 1, 0);
        let r = check(&code, &mask);
        assert_refuted(&format!("{r:?}"), &r);
    }

    /// `translation_checks` proves each operation form a program uses (the 64-bit
    /// multiplication through its schoolbook form), names it stably, and lists what no
    /// proof covers.
    #[test]
    fn a_program_s_operation_forms_are_proved_and_the_rest_listed() {
        let compile = |src: &str| warptrace_lang::compile(src, "t.wt").expect("compiles");
        let t = translation_checks(&compile(
            "kernel:entry { $x = (u64)tid.x; if ($x > 3) { @m[$x & 7] = sum(($x << 2) + 1); } }",
        ));
        let names: Vec<&str> = t.checks.iter().map(|c| c.name.as_str()).collect();
        for c in &t.checks {
            assert!(c.verdict.is_proved(), "{}: {:?}", c.name, c.verdict);
            assert_eq!((c.level.as_str(), c.scope.as_str()), ("translation", "gcn"));
        }
        for want in [
            "bin.gt.u.64.reg.imm.3",
            "bin.shl.64.reg.imm.2",
            "branch.jz-skips-a-store",
            "sreg.tid.x",
        ] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        // The division loop and the waterfalls are proved too: nothing is left unproved.
        let t = translation_checks(&compile(
            "mem:global:load { @m[pc, launch] = sum(bytes / 3 + sectors + wavefronts); }",
        ));
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        let names: Vec<&str> = t.checks.iter().map(|c| c.name.as_str()).collect();
        for want in [
            "bin.div.u.64.reg.imm.3",
            "sreg.pc.global_load_ubyte",
            "site.bytes.global_atomic_add",
            "site.sectors.global_load_ubyte",
            "site.wavefronts.global_atomic_add",
            "sreg.launch",
        ] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        assert!(
            t.checks.iter().all(|c| c.verdict.is_proved()),
            "{:?}",
            t.checks
        );
        // `kernel` and `active` are proved (the kernel's id; the lanes in `exec`).
        let t = translation_checks(&compile("kernel:entry { @k[kernel] = sum(active); }"));
        let names: Vec<&str> = t.checks.iter().map(|c| c.name.as_str()).collect();
        // The update as written, and as a site folds `[kernel]` (probing linearly or the
        // home slot); each also once per wave (`active` is one value for the lanes of its
        // definition on GCN).
        assert_eq!(
            names,
            [
                "hash.cap4096.reg.sum.u64.reg",
                "hash.const.cap4096.reg.sum.u64.reg",
                "hash.home.const.cap4096.reg.sum.u64.reg",
                "hash.warp.cap4096.reg.sum.u64.reg",
                "hash.warp.const.cap4096.reg.sum.u64.reg",
                "hash.warp.home.const.cap4096.reg.sum.u64.reg",
                "sreg.active",
                "sreg.kernel"
            ]
        );
        assert!(
            t.checks.iter().all(|c| c.verdict.is_proved()),
            "{:?}",
            t.checks
        );
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        // A ring append: proved with its capacity and field forms — a copy's capacity, the
        // ring spread over four copies of 1024 records (decision 0020).
        let t = translation_checks(&compile(
            "map @r: ring(capacity = 4096, overflow = drop); kernel:entry { @r = (tid.x, 5); }",
        ));
        let ring = t
            .checks
            .iter()
            .find(|c| c.name == "ring.drop.cap1024.reg.imm.5")
            .expect("the append's check");
        assert!(ring.verdict.is_proved(), "{:?}", ring.verdict);
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        // An array save: proved with its kind, slots and field forms.
        let t = translation_checks(&compile(
            "map @t: array(per = thread, slots = 2); kernel:entry { @t = (thread, 5); }",
        ));
        let save = t
            .checks
            .iter()
            .find(|c| c.name == "array.thread.slots2.reg.imm.5")
            .unwrap_or_else(|| panic!("no array check in {:?}", t.checks));
        assert!(save.verdict.is_proved(), "{:?}", save.verdict);
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        // Hash updates are proved, whatever their keys and aggregation, and named by them
        // and by the probing a kernel may give them (no keys: the home slot only); those
        // whose keys and operand are the same in every lane also combined within the wave
        // (`warp.`; not `@t[tid.x]`).
        let t = translation_checks(&compile(
            "map @t: hash(keys = 64); kernel:entry { @n = count(); @m[7] = sum(3); @k[kernel] = count(); @x = max(3); @t[tid.x] = count(); }",
        ));
        let hashes: Vec<&Check> = t
            .checks
            .iter()
            .filter(|c| c.name.starts_with("hash."))
            .collect();
        let names: Vec<&str> = hashes.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "hash.cap4096.imm.7.sum.i64.imm.3",
                "hash.cap4096.reg.count",
                "hash.cap64.reg.count",
                "hash.const.cap4096.reg.count",
                "hash.const.cap64.reg.count",
                "hash.home.cap4096..count",
                "hash.home.cap4096..max.i64.imm.3",
                "hash.home.cap4096.imm.7.sum.i64.imm.3",
                "hash.home.const.cap4096.reg.count",
                "hash.home.const.cap64.reg.count",
                "hash.warp.cap4096.imm.7.sum.i64.imm.3",
                "hash.warp.cap4096.reg.count",
                "hash.warp.const.cap4096.reg.count",
                "hash.warp.home.cap4096..count",
                "hash.warp.home.cap4096..max.i64.imm.3",
                "hash.warp.home.cap4096.imm.7.sum.i64.imm.3",
                "hash.warp.home.const.cap4096.reg.count",
            ]
        );
        assert!(hashes.iter().all(|c| c.verdict.is_proved()), "{hashes:?}");
        assert!(t.not_proved.is_empty(), "{:?}", t.not_proved);
        // `printf`: the append of its format id, arguments and padding.
        let t = translation_checks(&compile("kernel:entry { printf(\"%d %d\\n\", tid.x, 7); }"));
        let names: Vec<&str> = t.checks.iter().map(|c| c.name.as_str()).collect();
        let printf = t
            .checks
            .iter()
            .find(|c| c.name.starts_with("printf.cap"))
            .unwrap_or_else(|| panic!("no printf check in {names:?}"));
        assert!(
            printf.verdict.is_proved(),
            "{}: {:?}",
            printf.name,
            printf.verdict
        );
        assert!(
            !t.not_proved.iter().any(|n| n == "printf"),
            "{:?}",
            t.not_proved
        );
        let t = translation_checks(&compile(
            "kernel:entry { @m = sum((u64)tid.x * (u64)tid.y); }",
        ));
        let mul = t
            .checks
            .iter()
            .find(|c| c.name == "bin.mul.64.reg.reg")
            .expect("mul");
        assert!(mul.verdict.is_proved(), "{:?}", mul.verdict);
    }
}

#[cfg(test)]
mod site_tests {
    use super::*;

    const VALUES: [&str; 7] = [
        "site bytes",
        "site addr",
        "site opcode",
        "site value",
        "sreg pc",
        "sreg line",
        "sreg file",
    ];

    /// Every site value and per-site special the proofs cover is what the probed
    /// instruction gives, at a load (`vaddr` pair) and at an atomic (`saddr` form).
    #[test]
    fn site_values_are_proved_at_both_address_forms() {
        for what in VALUES {
            for site in 0..SITES.len() {
                assert_eq!(site_check(what, site, None), Ok(()), "{what} at {site}");
            }
        }
        let facts = SiteFacts::of(GFX942.asm, "histogram", "global_atomic_add").expect("site");
        assert_eq!(facts.bytes(), Some(4));
        assert!(facts
            .loc
            .is_some_and(|(f, l)| f.ends_with("gcn_kernels.hip") && l > 0));
    }

    /// A buffer access's `addr` is proved at each buffer site (the gfx942 forms and
    /// gfx1100's); a descriptor field read a bit off (the stride, the swizzle bit, the
    /// lane's enable, the index stride), gfx9's element size taken as 8 bytes, and the
    /// scalar offset left out are refuted.
    #[test]
    fn buffer_addresses_are_proved_and_wrong_ones_refuted() {
        let buffer_sites: Vec<usize> = (0..SITES.len())
            .filter(|&i| SITES[i].mnemonic.starts_with("buffer_"))
            .collect();
        assert_eq!(buffer_sites.len(), 4);
        for &site in &buffer_sites {
            assert_eq!(
                site_check("site addr", site, None),
                Ok(()),
                "{}",
                SITES[site].name
            );
        }
        // `v_bfe_u32 _, SGPR, offset, width` of the descriptor with `offset` moved.
        fn field(offset: i64, to: i64) -> Mutant {
            Box::new(move |c| {
                let i = index_of(c, |x| {
                    x.mnemonic == "v_bfe_u32"
                        && x.operands[1].text.starts_with('s')
                        && x.operands[2].imm == Some(offset)
                });
                set_imm(&mut c[i], 2, to);
            })
        }
        let cases: Vec<(&str, Mutant)> = vec![
            ("the stride a bit off", field(16, 17)),
            ("the swizzle bit", field(31, 30)),
            ("the lane's enable", field(23, 22)),
            ("the index stride", field(21, 22)),
            (
                "8-byte elements",
                Box::new(|c| {
                    let i = index_of(c, |x| {
                        x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm == Some(2)
                    });
                    set_imm(&mut c[i], 1, 3);
                }),
            ),
            (
                "no scalar offset",
                Box::new(|c| {
                    let i = index_of(c, |x| {
                        x.mnemonic == "v_mov_b32_e32" && x.operands[1].text == "s4"
                    });
                    c[i].operands[1] = Operand {
                        text: "0".into(),
                        reg: None,
                        imm: Some(0),
                    };
                }),
            ),
        ];
        let rows = buffer_sites[0];
        for (what, mutate) in cases {
            assert_refuted(what, &site_check("site addr", rows, Some(&*mutate)));
        }
    }

    /// The sizes of a buffer address are powers of two, so the ISA's divisions,
    /// remainders and products by them are the shifts and masks `BufferTerms` states:
    /// for every 32-bit value and every exponent the descriptors give (the index stride's
    /// 3–6, the element size's 1–4).
    #[test]
    fn power_of_two_sizes_divide_as_shifts() {
        let x = BV::new_const("x", 32).zero_ext(32);
        let y = BV::new_const("y", 64);
        let n = BV::new_const("n", 64);
        let size = BV::from_u64(1, 64).bvshl(&n);
        let claim = Bool::and(&[
            x.bvudiv(&size).eq(x.bvlshr(&n)),
            x.bvurem(&size).eq(low_bits(&x, &n)),
            y.bvmul(&size).eq(y.bvshl(&n)),
        ]);
        let solver = warptrace_verifier::solver();
        solver.assert(n.bvuge(BV::from_u64(1, 64)));
        solver.assert(n.bvule(BV::from_u64(6, 64)));
        solver.assert(claim.not());
        assert_eq!(solver.check(), SatResult::Unsat);
    }

    /// `launch` is the launch word the snippet loads from the map buffer; loaded from the
    /// next word, it is refuted.
    #[test]
    fn the_launch_word_is_proved() {
        assert_eq!(launch_check(None), Ok(()));
        let next: Mutation<'_> = &|c| {
            let i = c
                .iter()
                .position(|x| x.mnemonic == "global_load_dwordx2")
                .expect("the load");
            let v = c[i - 1].operands[1].imm.expect("the offset") + 8;
            set_imm(&mut c[i - 1], 1, v);
        };
        assert_refuted("the next word", &launch_check(Some(next)));
    }

    /// The waterfalls of a wave32 kernel (gfx1100's `volume_index`, at its store: one-SGPR
    /// masks, `exec_lo`, `v_add_nc_u32`) are proved over 32 lanes; a round that removes no
    /// lanes, a unit counted twice and a `run` whose high word holds the lanes found (a
    /// wave64 form) are refuted.
    #[test]
    fn wave32_waterfalls_are_proved_and_wrong_ones_refuted() {
        use crate::tv_waterfall::Waterfall::{Run, Sectors, Wavefronts};
        let site = ("mem:global:store", "global_store_b64");
        for value in [Sectors, Run, Wavefronts] {
            assert_eq!(
                waterfall_check(value, GFX1100, site, None),
                Ok(()),
                "{value:?}"
            );
        }
        let cases: Vec<(&str, crate::tv_waterfall::Waterfall, Mutant)> = vec![
            (
                "removes no lanes",
                Sectors,
                Box::new(|c| {
                    let at = index_of(c, |x| x.mnemonic == "s_andn2_b32");
                    c[at].operands.swap(1, 2);
                }),
            ),
            (
                "a unit counted twice",
                Wavefronts,
                Box::new(|c| {
                    let at = index_of(c, |x| x.mnemonic == "v_add_nc_u32_e32");
                    set_imm(&mut c[at], 1, 2);
                }),
            ),
            (
                "the run's high word from the lanes found",
                Run,
                Box::new(|c| {
                    // The round's `v_mov_b32_e32 HI, 0` (after its `v_mov_b32_e32 LO, sHIT`).
                    let lo = index_of(c, |x| {
                        x.mnemonic == "v_mov_b32_e32" && x.operands[1].text.starts_with('s')
                    });
                    let hit = c[lo].operands[1].clone();
                    c[lo + 1].operands[1] = hit;
                }),
            ),
        ];
        for (what, value, mutate) in cases {
            assert_refuted(what, &waterfall_check(value, GFX1100, site, Some(&*mutate)));
        }
    }

    /// `sectors`, `run` and `wavefronts` are proved at both sites (the waterfall by
    /// induction over a wave of 64 lanes, the code around it in the lane model); wrong
    /// snippets are refuted: a round that counts two, a round that removes no lanes, the
    /// lanes left instead of the lanes found as the run, a count that starts at one, a
    /// key of `addr >> 4`, a run key of `addr − lane · 2` at a byte access, a unit counted
    /// twice, groups of 16 units instead of 32, the last group's count kept instead of the
    /// largest.
    #[test]
    fn waterfalls_are_proved_and_wrong_ones_refuted() {
        use crate::tv_waterfall::Waterfall::{Run, Sectors, Wavefronts};
        for value in [Sectors, Run, Wavefronts] {
            for site in SITES {
                assert_eq!(
                    waterfall_check(value, site.k, (site.point, site.mnemonic), None),
                    Ok(()),
                    "{value:?} at {}",
                    site.name
                );
            }
        }
        fn find<'a>(
            c: &'a mut [Instruction],
            f: &dyn Fn(&Instruction) -> bool,
        ) -> &'a mut Instruction {
            c.iter_mut().find(|x| f(x)).expect("the instruction")
        }
        let cases: Vec<(&str, crate::tv_waterfall::Waterfall, Mutant)> = vec![
            (
                "counts two",
                Sectors,
                Box::new(|c| set_imm(find(c, &|x| x.mnemonic == "s_add_u32"), 2, 2)),
            ),
            (
                "removes no lanes",
                Sectors,
                Box::new(|c| {
                    let x = find(c, &|x| x.mnemonic == "s_andn2_b64");
                    x.operands.swap(1, 2);
                }),
            ),
            (
                "the lanes left as the run",
                Run,
                Box::new(|c| {
                    let at = c
                        .iter()
                        .position(|x| {
                            x.mnemonic == "v_mov_b32_e32" && x.operands[1].text.starts_with('s')
                        })
                        .expect("the run's copy");
                    // The round's `s_mov_b64 P, exec` before it.
                    let pend = c[..at]
                        .iter()
                        .rev()
                        .find(|x| x.mnemonic == "s_mov_b64" && x.operands[1].text == "exec")
                        .map(|x| x.operands[0].reg.expect("a pair").first)
                        .expect("the pending lanes");
                    let x = &mut c[at];
                    x.operands[1] = crate::parse::parse(&format!("\tv_mov_b32_e32 v0, s{pend}\n"))
                        .expect("parses")
                        .instr(0)
                        .expect("an instruction")
                        .operands[1]
                        .clone();
                }),
            ),
            (
                "a count from one",
                Sectors,
                Box::new(|c| {
                    set_imm(
                        find(c, &|x| {
                            x.mnemonic == "s_mov_b32" && x.operands[1].imm == Some(0)
                        }),
                        1,
                        1,
                    )
                }),
            ),
            (
                "addr >> 4",
                Sectors,
                Box::new(|c| set_imm(find(c, &|x| x.mnemonic == "v_lshrrev_b64"), 1, 4)),
            ),
            (
                "lane · 2",
                Run,
                Box::new(|c| set_imm(find(c, &|x| x.mnemonic == "v_mul_lo_u32"), 2, 2)),
            ),
            (
                "a unit counted twice",
                Wavefronts,
                Box::new(|c| set_imm(find(c, &|x| x.mnemonic == "v_add_u32_e32"), 1, 2)),
            ),
            (
                "groups of 16",
                Wavefronts,
                Box::new(|c| set_imm(find(c, &|x| x.mnemonic == "v_and_b32_e32"), 1, 15)),
            ),
            (
                "the last count, not the largest",
                Wavefronts,
                Box::new(|c| {
                    // `s_max_u32 st, read, read`: the count read.
                    let x = find(c, &|x| x.mnemonic == "s_max_u32");
                    x.operands[1] = x.operands[2].clone();
                }),
            ),
        ];
        for (what, value, mutate) in cases {
            assert_refuted(
                what,
                &waterfall_check(
                    value,
                    GFX942,
                    (SITES[0].point, SITES[0].mnemonic),
                    Some(&*mutate),
                ),
            );
        }
    }

    /// Wrong site values are refuted: an address without its high word's carry, from the
    /// wrong register, the byte count of a dword, a loaded byte read as a short, the
    /// previous instruction's `pc`.
    #[test]
    fn wrong_site_values_are_refuted() {
        fn last_imm64(c: &mut [Instruction], v: i64) {
            // The immediate's low word: the second-to-last `v_mov_b32` of a constant.
            let i = c
                .iter()
                .rposition(|x| {
                    x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm.is_some_and(|n| n > 0)
                })
                .expect("the constant");
            set_imm(&mut c[i], 1, v);
        }
        let cases: Vec<(&str, usize, Mutant)> = vec![
            (
                "site addr",
                1,
                Box::new(|c| {
                    let x = c
                        .iter_mut()
                        .find(|x| x.mnemonic == "v_addc_co_u32_e64")
                        .expect("the carry");
                    x.mnemonic = "v_add_co_u32_e64".into();
                    x.operands.truncate(4);
                }),
            ),
            (
                "site addr",
                0,
                Box::new(|c| {
                    let x = c
                        .iter_mut()
                        .find(|x| x.mnemonic == "v_mov_b32_e32" && x.operands[1].text == "v5")
                        .expect("the high word");
                    x.operands[1] = crate::parse::parse("\tv_mov_b32_e32 v0, v6\n")
                        .expect("parses")
                        .instr(0)
                        .expect("an instruction")
                        .operands[1]
                        .clone();
                }),
            ),
            ("site bytes", 0, Box::new(|c| last_imm64(c, 4))),
            (
                "site value",
                0,
                Box::new(|c| {
                    // A loaded byte read as a short.
                    let x = c
                        .iter_mut()
                        .find(|x| x.mnemonic == "v_bfe_u32")
                        .expect("the byte");
                    set_imm(x, 3, 16);
                }),
            ),
            (
                "sreg pc",
                1,
                Box::new(|c| {
                    let i = c
                        .iter()
                        .rposition(|x| {
                            x.mnemonic == "v_mov_b32_e32"
                                && x.operands[1].imm.is_some_and(|n| n > 0)
                        })
                        .expect("the pc");
                    let v = c[i].operands[1].imm.expect("imm") - 1;
                    set_imm(&mut c[i], 1, v);
                }),
            ),
        ];
        for (what, site, mutate) in cases {
            let r = site_check(what, site, Some(&*mutate));
            assert_refuted(&format!("{what} at {site}"), &r);
        }
    }
}

#[cfg(test)]
mod array_tests {
    use super::*;
    use warptrace_ir::{Operand, Per};

    use super::ir_reg as reg;

    /// Array saves are proved from the entry state: per-thread records of a thread probe
    /// and per-warp records of a `warp` probe, register and immediate fields.
    #[test]
    fn array_saves_are_proved() {
        for (per, slots, fields) in [
            (Per::Thread, 4, vec![reg(0), Operand::Imm(7)]),
            (Per::Warp, 256, vec![reg(0), reg(1), Operand::Imm(-2)]),
        ] {
            for k in [GFX942, GFX1100] {
                let v = array_verdict(k, per, slots, &fields);
                assert!(
                    v.is_proved(),
                    "{} {per:?} {slots} {fields:?}: {v:?}",
                    k.name
                );
            }
        }
    }

    /// The other lanes of a `warp` probe's save only advance their cursor: a lane above
    /// an active lane (bit 1 of `exec`, bit 0 set, so it is no leader) makes no memory
    /// operation — no record, no drop — and its cursor becomes `s + 1` unless `s ≥ slots`.
    /// Without the leader's restriction it writes, and that is refuted. In wave64 and
    /// wave32.
    #[test]
    fn non_leaders_of_a_warp_save_only_advance_their_cursor() {
        let maps = "map @m: array(per = warp, slots = 4) -> record(u64, u64)\n";
        let mut p = entry_program_with(maps, &["map.save @m, %b, (r0, 7)", "exit"]);
        for probe in &mut p.probes {
            probe.attach.granularity = warptrace_ir::Granularity::Warp;
        }
        let check =
            |prologue: &[Instruction], code: &[Instruction]| non_leader_check(prologue, code, 4);
        for k in [GFX942, GFX1100] {
            let (prologue, code, _) = entry_code(k, &p).expect("code");
            assert_eq!(check(&prologue, &code), Ok(()), "{}", k.name);
            // The leader's restriction dropped: every `s_and exec, exec, lead`.
            let exec = if k.name == "histogram" {
                "exec"
            } else {
                "exec_lo"
            };
            let lead = code
                .iter()
                .find(|x| x.mnemonic.starts_with("s_lshl_b"))
                .and_then(|x| x.operands.first())
                .map(|o| o.text.clone())
                .expect("the leader's bit");
            let unrestricted: Vec<Instruction> = code
                .iter()
                .filter(|x| {
                    let ops: Vec<&str> = x.operands.iter().map(|o| o.text.as_str()).collect();
                    !(x.mnemonic.starts_with("s_and_b") && ops == [exec, exec, lead.as_str()])
                })
                .cloned()
                .collect();
            assert!(
                unrestricted.len() < code.len(),
                "{}: no restriction found",
                k.name
            );
            let r = check(&prologue, &unrestricted);
            assert_refuted(&format!("{} unrestricted: {r:?}", k.name), &r);
        }
    }

    /// Wrong saves are refuted: a full cursor's drop counted one word off, per-warp rows
    /// not rounded up, a record past 2^32 written at its low word, a cursor that does
    /// not advance, a taken per-warp record overwritten, `seq = s`.
    #[test]
    fn wrong_array_saves_are_refuted() {
        let cases: Vec<(&str, Per, Mutant)> = vec![
            (
                "a full cursor's drop one word off",
                Per::Thread,
                Box::new(|c| {
                    // The drop counter's offset, loaded before the first atomic.
                    let i = index_of(c, |x| x.mnemonic == "global_atomic_add_x2");
                    let v = c[i - 1].operands[1].imm.expect("the offset") + 8;
                    set_imm(&mut c[i - 1], 1, v);
                }),
            ),
            (
                "rows not rounded up",
                Per::Warp,
                Box::new(|c| {
                    let i = index_of(c, |x| {
                        x.mnemonic == "v_add_u32_e32" && x.operands[1].imm == Some(31)
                    });
                    c.remove(i);
                }),
            ),
            (
                "no check of the offset's high word",
                Per::Thread,
                Box::new(|c| {
                    let i = index_of(c, |x| {
                        x.mnemonic == "v_cmp_ne_u32_e64" && x.operands[1].imm == Some(0)
                    });
                    c.remove(i);
                }),
            ),
            (
                "the cursor does not advance",
                Per::Thread,
                Box::new(|c| {
                    // `cursor += 1`: the first 64-bit add after the drop.
                    let i = index_of(c, |x| x.mnemonic == "v_add_co_u32_e64");
                    c.drain(i..i + 2);
                }),
            ),
            (
                "a taken record overwritten",
                Per::Warp,
                Box::new(|c| {
                    // `seq != 0` becomes `0 != 0`.
                    let i = index_of(c, |x| x.mnemonic == "v_cmp_ne_u64_e64");
                    c[i].operands[2] = c[i].operands[1].clone();
                }),
            ),
        ];
        for (what, per, mutate) in cases {
            let fields = [reg(0), Operand::Imm(7)];
            let record = "u64, u64";
            let per_name = if per == Per::Warp { "warp" } else { "thread" };
            let maps = format!("map @m: array(per = {per_name}, slots = 4) -> record({record})\n");
            let mut p = entry_program_with(&maps, &["map.save @m, %b, (r0, 7)", "exit"]);
            if per == Per::Warp {
                p.probes[0].attach.granularity = warptrace_ir::Granularity::Warp;
            }
            let layout = warptrace_ir::MapLayout::new(&p.maps);
            let region = layout.regions[0];
            let (prologue, code, abi) = entry_code(GFX942, &p).expect("code");
            assert_eq!(
                array_check(&prologue, &code, &abi, &region, &fields),
                Ok(()),
                "{what}"
            );
            let mut m = code.clone();
            mutate(&mut m);
            let r = array_check(&prologue, &m, &abi, &region, &fields);
            assert_refuted(what, &r);
        }
    }
}

#[cfg(test)]
mod special_tests {
    use super::*;
    use warptrace_ir::Special;

    /// Every special the GCN proofs cover is proved from the kernel's entry state: the
    /// grid values through the prologue's kernarg loads and saved ids, `lane` through
    /// `v_mbcnt`, the clocks and `smid` as the hardware registers `docs/gcn.md` names.
    #[test]
    fn specials_are_proved_from_the_entry_state() {
        for sp in PROVED_SPECIALS {
            let v = special_verdict(sp);
            assert!(v.is_proved(), "{}: {v:?}", sp.name());
        }
        // gfx90a has no XCDs: `smid` is the hardware id's 8 bits, `nsmid` 2^8.
        for sp in [Special::Smid, Special::Nsmid, Special::Warpid] {
            let v = special_verdict_in(GFX90A, sp);
            assert!(v.is_proved(), "gfx90a {}: {v:?}", sp.name());
        }
    }

    /// `thread`'s specification in schoolbook form is `grid_special`'s formula: equal on
    /// concrete entry states (the lemma proves the forms equal in general).
    #[test]
    fn the_schoolbook_thread_is_the_ir_formula() {
        let p = entry_program(&["r2 = sreg thread", "store %a, r2", "exit"]);
        let (_, _, abi) = entry_code(GFX942, &p).expect("code");
        let spec = gcn_special(Special::Thread, &abi).expect("thread");
        let (t0, t1) = (BV::new_const("tag#0", 64), BV::new_const("tag#1", 64));
        let product = spec.stages[1].substitute(&[(&t0, &spec.stages[0])]);
        let form = spec.value.substitute(&[(&t1, &product)]);
        let value = |n: &str| abi.value(n);
        let (ir, _) = warptrace_verifier::semantics::grid_special(Special::Thread, &value, 64)
            .expect("thread");
        let names = [
            "v0",
            &format!("s{}", abi.workgroup[0].expect("x")),
            &format!("s{}", abi.workgroup[1].expect("y")),
            &format!("s{}", abi.workgroup[2].expect("z")),
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let vars: Vec<BV> = names.iter().map(|n| BV::new_const(*n, 32)).collect();
            let vals: Vec<BV> = (0..4).map(|i| k32(x.rotate_left(16 * i))).collect();
            let mut subst: Vec<(&BV, &BV)> = vars.iter().zip(&vals).collect();
            // The kernarg dwords stay symbolic: fix them through a solver instead.
            let solver = z3::Solver::new();
            let kernarg = BV::new_const("kernarg", 64);
            subst.push((&kernarg, &kernarg));
            let (a, b) = (form.substitute(&subst), ir.substitute(&subst));
            solver.assert(a.eq(&b).not());
            for (i, d) in ["x", "y", "z"].iter().enumerate() {
                let n = abi.value(&format!("ntid.{d}"));
                let c = abi.value(&format!("nctaid.{d}"));
                solver.assert(n.eq(k32((x >> (8 * i)) & 0x3ff)));
                solver.assert(c.eq(k32(x >> (16 + 8 * i))));
            }
            assert_eq!(solver.check(), SatResult::Unsat, "{x:#x}");
        }
    }

    /// Wrong readings are refuted: `tid.x` from the y field, `lane` counting one lane
    /// more, `ntid.y` from `ntid.x`'s half, `block` without the carry into its high word
    /// (its low word is all `block` keeps: proved anyway), `thread` with `ntid.z` left
    /// out, `warp` divided by 32 on a wave64 target, `smid` one bit off, its XCD one bit
    /// low or left out, `warpid` without the SIMD id's top bit, gfx90a's `nsmid` on
    /// gfx942.
    #[test]
    fn wrong_specials_are_refuted() {
        fn find(c: &mut [Instruction], f: impl Fn(&Instruction) -> bool) -> &mut Instruction {
            &mut c[index_of(c, f)]
        }
        let cases: Vec<(Special, &str, Mutant)> = vec![
            (
                Special::TidX,
                "tid.x from bit 10",
                Box::new(|c| set_imm(find(c, |x| x.mnemonic == "v_bfe_u32"), 2, 10)),
            ),
            (
                Special::Lane,
                "lane + 1",
                Box::new(|c| set_imm(find(c, |x| x.mnemonic == "v_mbcnt_lo_u32_b32"), 2, 1)),
            ),
            (
                Special::NtidY,
                "ntid.y from the low half",
                Box::new(|c| set_imm(find(c, |x| x.mnemonic == "v_bfe_u32"), 2, 0)),
            ),
            (
                Special::Thread,
                "thread without ntid.z",
                Box::new(|c| {
                    let i = c
                        .iter()
                        .position(|x| x.mnemonic == "v_mul_lo_u32")
                        .and_then(|i| {
                            let j = c[i + 1..].iter().position(|x| x.mnemonic == "v_bfe_u32")?;
                            let k = c[i + 1 + j..]
                                .iter()
                                .position(|x| x.mnemonic == "v_bfe_u32")?;
                            let l = c[i + 1 + j + k + 1..]
                                .iter()
                                .position(|x| x.mnemonic == "v_mul_lo_u32")?;
                            Some(i + 1 + j + k + 1 + l)
                        })
                        .expect("the product with ntid.z");
                    c.remove(i);
                }),
            ),
            (
                Special::Warp,
                "warp = linear tid / 32",
                Box::new(|c| set_imm(find(c, |x| x.mnemonic == "v_lshrrev_b32_e32"), 1, 5)),
            ),
            (
                Special::Smid,
                "smid from bit 9",
                Box::new(|c| {
                    let x = find(c, |x| {
                        x.mnemonic == "s_getreg_b32"
                            && x.operands[1].text.starts_with("hwreg(HW_REG_HW_ID,")
                    });
                    x.operands[1].text = "hwreg(HW_REG_HW_ID, 9, 8)".into();
                }),
            ),
            (
                Special::Smid,
                "smid with the XCD one bit low",
                Box::new(|c| set_imm(find(c, |x| x.mnemonic == "v_lshlrev_b32_e64"), 1, 7)),
            ),
            (
                Special::Smid,
                "smid without the XCD",
                Box::new(|c| {
                    let x = find(c, |x| x.mnemonic == "v_or_b32_e32");
                    x.mnemonic = "v_mov_b32_e32".into();
                    x.operands.truncate(2);
                }),
            ),
            (
                Special::Warpid,
                "warpid without the SIMD id's top bit",
                Box::new(|c| {
                    let x = find(c, |x| x.mnemonic == "s_getreg_b32");
                    x.operands[1].text = "hwreg(HW_REG_HW_ID, 0, 5)".into();
                }),
            ),
            (
                Special::Nsmid,
                "nsmid of gfx90a",
                Box::new(|c| {
                    let x = find(c, |x| {
                        x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm == Some(1 << 12)
                    });
                    set_imm(x, 1, 1 << 8);
                }),
            ),
        ];
        for (sp, what, mutate) in cases {
            let text = format!("r2 = sreg {}", sp.name());
            let p = entry_program(&[&text, "store %a, r2", "exit"]);
            let (prologue, code, abi) = entry_code(GFX942, &p).expect("code");
            let spec = gcn_special(sp, &abi).expect("a specification");
            assert_eq!(
                special_check(&prologue, &code, &abi, &spec),
                Ok(()),
                "{what}"
            );
            let mut m = code.clone();
            mutate(&mut m);
            let r = special_check(&prologue, &m, &abi, &spec);
            assert_refuted(what, &r);
        }
    }
}

#[cfg(test)]
mod ring_tests {
    use super::*;
    use warptrace_ir::{Operand, Overflow};

    use super::ir_reg as reg;

    /// The ring append's lowering is proved for drop rings and power-of-two overwrite
    /// rings, with register and immediate fields.
    #[test]
    fn ring_appends_are_proved() {
        for (cap, overflow, fields) in [
            (1024, Overflow::Drop, vec![reg(0)]),
            (
                1 << 20,
                Overflow::Drop,
                vec![reg(0), reg(1), Operand::Imm(-7), reg(1)],
            ),
            (1000, Overflow::Drop, vec![reg(0), reg(1)]),
            (1024, Overflow::Overwrite, vec![reg(0), Operand::Imm(3)]),
        ] {
            // The cursor once per wave, and per lane.
            for k in [GFX942, GFX1100] {
                for k in [k, k.with(Combining::Off)] {
                    let v = ring_verdict(k, cap, overflow, &fields);
                    assert!(
                        v.is_proved(),
                        "{} {:?} {cap} {overflow:?} {fields:?}: {v:?}",
                        k.name,
                        k.combining
                    );
                }
            }
        }
        // A capacity that is no power of two: the 32-bit `n mod capacity` is not the IR's.
        let v = ring_verdict(GFX942, 1000, Overflow::Overwrite, &[reg(0)]);
        assert!(matches!(v, Verdict::Unknown { .. }), "{v:?}");
    }

    /// Hash updates are proved: register keys (their tag through `mix64`, step by step),
    /// a constant key with a non-zero tag (the probes, their branches to the end), the key
    /// whose tag is 0 (the extra slot), no keys (tag 1); and every aggregation: `count`,
    /// `sum`, the encoded `min`/`max` (signed and not), `avg`/`stats`' two words, `hist`
    /// and `lhist` buckets of a register (a power-of-two step, another step, a range past
    /// 2^32 with a power-of-two step) and of a constant, `assign`.
    #[test]
    fn hash_updates_are_proved() {
        use warptrace_ir::{Aggregation as A, ValueKind as V};
        let (five, u, s) = (vec![Operand::Imm(5)], false, true);
        let lhist = |min, max, step| V::Lhist { min, max, step };
        for (cap, keys, agg, value) in [
            (4096, vec![reg(0)], A::Count, V::Count),
            (
                64,
                vec![reg(0), reg(1)],
                A::Sum(reg(1)),
                V::Sum { signed: u },
            ),
            (1024, five.clone(), A::Count, V::Count),
            (
                64,
                vec![Operand::Imm(7), Operand::Imm(-9)],
                A::Sum(reg(1)),
                V::Sum { signed: s },
            ),
            (
                1024,
                vec![Operand::Imm(0)],
                A::Sum(Operand::Imm(3)),
                V::Sum { signed: u },
            ),
            (4096, vec![], A::Count, V::Count),
            (64, vec![reg(0)], A::Max(reg(1)), V::Max { signed: s }),
            (64, five.clone(), A::Max(reg(0)), V::Max { signed: u }),
            (64, five.clone(), A::Min(reg(0)), V::Min { signed: s }),
            (64, vec![], A::Min(Operand::Imm(-4)), V::Min { signed: u }),
            (64, five.clone(), A::Avg(reg(0)), V::Avg { signed: s }),
            (64, five.clone(), A::Stats(reg(1)), V::Stats { signed: u }),
            (64, five.clone(), A::Hist(reg(0)), V::Hist),
            (64, vec![reg(1)], A::Hist(reg(0)), V::Hist),
            (64, five.clone(), A::Hist(Operand::Imm(-3)), V::Hist),
            (64, five.clone(), A::Lhist(reg(0)), lhist(0, 100, 10)),
            (64, five.clone(), A::Lhist(reg(1)), lhist(-64, 1024, 64)),
            (
                64,
                five.clone(),
                A::Lhist(reg(0)),
                lhist(i64::MIN, i64::MAX, 1 << 60),
            ),
            (
                64,
                five.clone(),
                A::Lhist(Operand::Imm(37)),
                lhist(0, 100, 10),
            ),
            (64, five.clone(), A::Assign(reg(1)), V::Value { signed: s }),
        ] {
            for probing in probings(&keys) {
                for grouped in [false, true] {
                    let v = hash_verdict(GFX942, cap, &keys, agg, value.clone(), probing, grouped);
                    assert!(
                        v.is_proved(),
                        "{cap} {keys:?} {agg:?} {value} {probing:?} grouped {grouped}: {v:?}"
                    );
                }
            }
        }
    }

    /// The probings a kernel may give an update with `keys`: register keys probe linearly,
    /// no keys probe their one home slot, constant keys either (decision 0013).
    fn probings(keys: &[Operand]) -> Vec<Probing> {
        match keys.iter().all(|k| matches!(k, Operand::Imm(_))) {
            false => vec![Probing::Linear],
            true if keys.is_empty() => vec![Probing::Home],
            true => vec![Probing::Linear, Probing::Home],
        }
    }

    /// The wave32 forms of hash updates (gfx1100's `volume_index`: one-SGPR masks, the
    /// gfx10+ carries, `glc` for the returning compare-and-swap): a register key's tag
    /// through `mix64`, a constant key, an encoded maximum, a `lhist` bucket.
    #[test]
    fn wave32_hash_updates_are_proved() {
        use warptrace_ir::{Aggregation as A, ValueKind as V};
        for (cap, keys, agg, value) in [
            (4096, vec![reg(0)], A::Count, V::Count),
            (
                64,
                vec![Operand::Imm(5)],
                A::Sum(reg(1)),
                V::Sum { signed: true },
            ),
            (64, vec![reg(1)], A::Max(reg(0)), V::Max { signed: true }),
            (
                64,
                vec![Operand::Imm(5)],
                A::Lhist(reg(0)),
                V::Lhist {
                    min: 0,
                    max: 100,
                    step: 10,
                },
            ),
        ] {
            for probing in probings(&keys) {
                for grouped in [false, true] {
                    let v = hash_verdict(GFX1100, cap, &keys, agg, value.clone(), probing, grouped);
                    assert!(
                        v.is_proved(),
                        "{cap} {keys:?} {agg:?} {value} {probing:?} grouped {grouped}: {v:?}"
                    );
                }
            }
        }
    }

    /// Wrong hash updates are refuted: a claim taken for a match, the value combined one
    /// word off, a drop counted at slot 0's tag, the last probe dropped.
    #[test]
    fn wrong_hash_updates_are_refuted() {
        let agg = warptrace_ir::Aggregation::Count;
        let value = warptrace_ir::ValueKind::Count;
        let keys = [Operand::Imm(5)];
        let p = hash_program(1024, &keys, agg, &value, Probing::Linear).expect("program");
        let layout = warptrace_ir::MapLayout::new(&p.maps);
        let region = layout.regions[0];
        let code = entry_snippet(GFX942.with(Combining::Off), &p).expect("snippet");
        let linear = Probing::Linear;
        assert_eq!(
            hash_check(&code, &region, &keys, agg, &value, linear, None),
            Ok(())
        );
        let mutants: Vec<(&str, Mutant)> = vec![
            (
                "a claim where the tag matched",
                Box::new(|c: &mut Vec<Instruction>| {
                    let x = c
                        .iter_mut()
                        .find(|x| x.mnemonic == "v_cmp_eq_u64_e64")
                        .expect("the claim compare");
                    x.mnemonic = "v_cmp_ne_u64_e64".into();
                }),
            ),
            (
                "the value one word off",
                Box::new(|c: &mut Vec<Instruction>| {
                    let x = c
                        .iter_mut()
                        .find(|x| {
                            x.mnemonic == "global_atomic_add_x2"
                                && x.modifiers.iter().any(|m| m.starts_with("offset:"))
                        })
                        .expect("the combine");
                    x.modifiers = vec!["offset:24".into()];
                }),
            ),
            (
                "the drop at the cursor of slot 0",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = c
                        .iter()
                        .rposition(|x| x.mnemonic == "global_atomic_add_x2")
                        .expect("the drop");
                    set_imm(&mut c[i - 1], 1, 8);
                }),
            ),
            (
                "seven probes",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = c
                        .iter()
                        .rposition(|x| x.mnemonic == "global_atomic_cmpswap_x2")
                        .expect("the last probe");
                    c.remove(i);
                }),
            ),
        ];
        for (what, mutate) in mutants {
            let mut m = code.clone();
            mutate(&mut m);
            let r = hash_check(&m, &region, &keys, agg, &value, linear, None);
            assert_refuted(what, &r);
        }
        // The home slot's snippet: the load's test inverted (a slot holding another tag
        // taken as found), the load from the next slot, the compare-and-swap left out.
        let p = hash_program(1024, &keys, agg, &value, Probing::Home).expect("program");
        let code = entry_snippet(GFX942.with(Combining::Off), &p).expect("snippet");
        let home = Probing::Home;
        assert_eq!(
            hash_check(&code, &region, &keys, agg, &value, home, None),
            Ok(())
        );
        let load = |c: &[Instruction]| {
            c.iter()
                .position(|x| x.mnemonic == "global_load_dwordx2")
                .expect("the load")
        };
        let mutants: Vec<(&str, Mutant)> = vec![
            (
                "the load's test inverted",
                Box::new(move |c: &mut Vec<Instruction>| {
                    let i = load(c);
                    let x = c[i..]
                        .iter_mut()
                        .find(|x| x.mnemonic == "v_cmp_eq_u64_e64")
                        .expect("the load's compare");
                    x.mnemonic = "v_cmp_ne_u64_e64".into();
                }),
            ),
            (
                "the load from the next slot",
                Box::new(move |c: &mut Vec<Instruction>| {
                    let i = load(c);
                    c[i].modifiers.push("offset:24".into());
                }),
            ),
            (
                "no compare-and-swap",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = c
                        .iter()
                        .position(|x| x.mnemonic == "global_atomic_cmpswap_x2")
                        .expect("the compare-and-swap");
                    c.remove(i);
                }),
            ),
        ];
        for (what, mutate) in mutants {
            let mut m = code.clone();
            mutate(&mut m);
            let r = hash_check(&m, &region, &keys, agg, &value, home, None);
            assert_refuted(what, &r);
        }
    }

    /// Wrong combinations of the value are refuted, each on its aggregation's update: a
    /// signed `max` without the sign bias, a `min` with one word not inverted, a `hist`
    /// bucket one off, an `lhist` whose `min` falls in the underflow bucket, an `assign`
    /// that adds, an `avg` whose sum lands on its count.
    #[test]
    fn wrong_aggregations_are_refuted() {
        use warptrace_ir::{Aggregation as A, ValueKind as V};
        fn first<'a>(
            c: &'a mut [Instruction],
            what: &str,
            f: impl Fn(&Instruction) -> bool,
        ) -> &'a mut Instruction {
            let i = c.iter().position(f).unwrap_or_else(|| panic!("no {what}"));
            &mut c[i]
        }
        let cases: Vec<(&str, A, V, Mutant)> = vec![
            (
                "max without the bias",
                A::Max(reg(0)),
                V::Max { signed: true },
                Box::new(|c| {
                    let x = first(c, "bias", |x| {
                        x.mnemonic == "v_mov_b32_e32" && x.operands[1].imm == Some(1 << 31)
                    });
                    set_imm(x, 1, 0);
                }),
            ),
            (
                "min with its high word not inverted",
                A::Min(reg(0)),
                V::Min { signed: false },
                Box::new(|c| {
                    let i = c
                        .iter()
                        .rposition(|x| x.mnemonic == "v_not_b32_e32")
                        .expect("a not");
                    c.remove(i);
                }),
            ),
            (
                "hist one bucket up",
                A::Hist(reg(0)),
                V::Hist,
                Box::new(|c| {
                    let x = first(c, "65 - clz", |x| {
                        x.operands.get(1).and_then(|o| o.imm) == Some(0x41)
                    });
                    set_imm(x, 1, 0x42);
                }),
            ),
            (
                "lhist's min in the underflow bucket",
                A::Lhist(reg(0)),
                V::Lhist {
                    min: 0,
                    max: 100,
                    step: 10,
                },
                Box::new(|c| {
                    let x = first(c, "x < min", |x| x.mnemonic == "v_cmp_lt_i64_e64");
                    x.mnemonic = "v_cmp_le_i64_e64".into();
                }),
            ),
            (
                "assign by adding",
                A::Assign(reg(0)),
                V::Value { signed: false },
                Box::new(|c| {
                    let x = first(c, "swap", |x| x.mnemonic == "global_atomic_swap_x2");
                    x.mnemonic = "global_atomic_add_x2".into();
                }),
            ),
            (
                "avg's sum on its count",
                A::Avg(reg(1)),
                V::Avg { signed: true },
                Box::new(|c| {
                    let i = c
                        .iter()
                        .rposition(|x| {
                            x.mnemonic == "global_atomic_add_x2" && x.operands.len() == 3
                        })
                        .and_then(|i| {
                            c[..i]
                                .iter()
                                .rposition(|x| x.mnemonic == "global_atomic_add_x2")
                        })
                        .expect("the last probe's adds");
                    let count = c[i - 1].modifiers.clone();
                    c[i].modifiers = count;
                }),
            ),
        ];
        let keys = [Operand::Imm(5)];
        for (what, agg, value, mutate) in cases {
            let line = format!(
                "map.update @m[5] {} {}",
                agg.mnemonic(),
                agg.operand().expect("an operand")
            );
            let p = entry_program_with(
                &format!("map @m: hash(keys = 64) [u64] -> {value}\n"),
                &[&line, "exit"],
            );
            let layout = warptrace_ir::MapLayout::new(&p.maps);
            let region = layout.regions[0];
            let code = entry_snippet(GFX942.with(Combining::Off), &p).expect("snippet");
            // A constant key alone in its map: the kernel probes its home slot.
            let home = Probing::Home;
            assert_eq!(
                hash_check(&code, &region, &keys, agg, &value, home, None),
                Ok(()),
                "{what}"
            );
            let mut m = code.clone();
            mutate(&mut m);
            let r = hash_check(&m, &region, &keys, agg, &value, home, None);
            assert_refuted(what, &r);
        }
    }

    /// Wrong wave-combined updates are refuted: the leader counting itself alone, every
    /// lane updating for the group, a group's sum whose product lost its carry — and the
    /// per-lane snippet taken for the combined one.
    #[test]
    fn wrong_combined_updates_are_refuted() {
        use warptrace_ir::{Aggregation as A, ValueKind as V};
        let keys = [Operand::Imm(5)];
        let home = Probing::Home;
        let snippet = |agg: A, value: &V, combining: Combining| {
            let p = hash_program(64, &keys, agg, value, home).expect("program");
            let region = warptrace_ir::MapLayout::new(&p.maps).regions[0];
            let code = entry_snippet(GFX942.with(combining), &p).expect("snippet");
            (code, region)
        };
        let count = (A::Count, V::Count);
        let sum = (A::Sum(reg(1)), V::Sum { signed: false });
        for (agg, value) in [&count, &sum] {
            let (code, region) = snippet(*agg, value, Combining::Assumed);
            assert_eq!(
                hash_check(&code, &region, &keys, *agg, value, home, Some(64)),
                Ok(()),
                "{agg:?}"
            );
            let (lane, _) = snippet(*agg, value, Combining::Off);
            let r = hash_check(&lane, &region, &keys, *agg, value, home, Some(64));
            assert_refuted(&format!("{agg:?} per lane as combined"), &r);
        }
        let mutants: Vec<(&str, &(A, V), Mutant)> = vec![
            (
                "the leader counting itself alone",
                &count,
                Box::new(|c: &mut Vec<Instruction>| count_one_lane(c)),
            ),
            (
                "every lane updating for the group",
                &count,
                Box::new(no_leader),
            ),
            (
                "the group's sum without its carry",
                &sum,
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = index_of(c, |x| x.mnemonic == "v_mul_hi_u32");
                    c.remove(i);
                }),
            ),
        ];
        for (what, (agg, value), mutate) in mutants {
            let (mut code, region) = snippet(*agg, value, Combining::Assumed);
            mutate(&mut code);
            let r = hash_check(&code, &region, &keys, *agg, value, home, Some(64));
            assert_refuted(what, &r);
        }
    }

    /// Wrong appends with the cursor taken once per wave are refuted: every lane adding
    /// for the wave, the leader adding 1, a rank that misses the low half's lanes, `n`'s
    /// high half read from the low one — and the per-lane snippet taken for it.
    #[test]
    fn wrong_combined_appends_are_refuted() {
        let p = entry_program_with(
            "map @r: ring(capacity = 1024, overflow = drop) -> record(u64)\n",
            &["map.append @r, (r0)", "exit"],
        );
        let region = warptrace_ir::MapLayout::new(&p.maps).regions[0];
        let fields = [reg(0)];
        let code = entry_snippet(GFX942, &p).expect("snippet");
        let check = |c: &[Instruction]| ring_check(c, &region, Overflow::Drop, &fields, Some(64));
        assert_eq!(check(&code), Ok(()));
        let lane = entry_snippet(GFX942.with(Combining::Off), &p).expect("snippet");
        assert_refuted("the per-lane cursor", &check(&lane));
        let mutants: Vec<(&str, Mutant)> = vec![
            ("every lane adding for the wave", Box::new(no_leader)),
            (
                "the leader adding 1",
                Box::new(|c: &mut Vec<Instruction>| count_one_lane(c)),
            ),
            (
                "the rank without the low half's lanes",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = index_of(c, |x| x.mnemonic == "v_mbcnt_hi_u32_b32");
                    c[i].operands[2].reg = None;
                    set_imm(&mut c[i], 2, 0);
                }),
            ),
            (
                "n's high half from the low one",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = index_of(c, |x| x.mnemonic == "v_readfirstlane_b32");
                    c[i + 1].operands[1] = c[i].operands[1].clone();
                }),
            ),
        ];
        for (what, mutate) in mutants {
            let mut m = code.clone();
            mutate(&mut m);
            assert_refuted(what, &check(&m));
        }
    }

    /// Wrong appends are refuted: a drop at `n > capacity` only, the first field one word
    /// off, the fields swapped, records written by the lanes that drop, `seq = n - 1`,
    /// the drop counted at the cursor.
    #[test]
    fn wrong_ring_appends_are_refuted() {
        let p = entry_program_with(
            "map @r: ring(capacity = 1000, overflow = drop) -> record(u64, u64)\n",
            &["map.append @r, (r0, r1)", "exit"],
        );
        let layout = warptrace_ir::MapLayout::new(&p.maps);
        let region = layout.regions[0];
        let fields = [reg(0), reg(1)];
        let code = entry_snippet(GFX942.with(Combining::Off), &p).expect("snippet");
        assert_eq!(
            ring_check(&code, &region, Overflow::Drop, &fields, None),
            Ok(())
        );
        let stores = |c: &[Instruction]| -> Vec<usize> {
            (0..c.len())
                .filter(|&i| c[i].mnemonic == "global_store_dwordx2")
                .collect()
        };
        let rename = |from: &'static str, to: &'static str| -> Mutant {
            Box::new(move |c: &mut Vec<Instruction>| {
                let x = c.iter_mut().find(|x| x.mnemonic == from).expect(from);
                x.mnemonic = to.into();
            })
        };
        let mutants: Vec<(&str, Mutant)> = vec![
            (
                "drop only past the capacity",
                rename("v_cmp_ge_u64_e64", "v_cmp_gt_u64_e64"),
            ),
            (
                "first field one word off",
                Box::new(move |c: &mut Vec<Instruction>| {
                    let i = stores(c)[0];
                    c[i].modifiers = vec!["offset:16".into()];
                }),
            ),
            (
                "fields swapped",
                Box::new(move |c: &mut Vec<Instruction>| {
                    let s = stores(c);
                    let first = c[s[0]].operands[1].clone();
                    c[s[0]].operands[1] = c[s[1]].operands[1].clone();
                    c[s[1]].operands[1] = first;
                }),
            ),
            (
                "dropping lanes write",
                Box::new(|c: &mut Vec<Instruction>| {
                    let i = c
                        .iter()
                        .position(|x| x.mnemonic.starts_with("s_andn2"))
                        .expect("the store mask");
                    c.remove(i);
                }),
            ),
            (
                "seq = n - 1",
                rename("v_add_co_u32_e64", "v_sub_co_u32_e64"),
            ),
            (
                "the drop counted at the cursor",
                Box::new(|c: &mut Vec<Instruction>| {
                    let atomics: Vec<usize> = (0..c.len())
                        .filter(|&i| c[i].mnemonic == "global_atomic_add_x2")
                        .collect();
                    // The offset moved into place before each: the cursor's twice.
                    c[atomics[1] - 1] = c[atomics[0] - 1].clone();
                }),
            ),
        ];
        for (what, mutate) in mutants {
            let mut m = code.clone();
            mutate(&mut m);
            let r = ring_check(&m, &region, Overflow::Drop, &fields, None);
            assert_refuted(what, &r);
        }
    }
}
