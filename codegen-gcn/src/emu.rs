//! A concrete evaluator of the GCN subset the instrumenter emits (tests only): one wave's
//! scalar and vector registers, `exec`, `vcc`, `scc`, and a flat memory holding the
//! kernarg segment and the map buffer. Vector instructions write the lanes in `exec`
//! only; memory operations and atomics run lane by lane in ascending lane order (one
//! legal order of the hardware's). It runs a kernel's prologue and snippets, so the map
//! buffer they leave can be decoded with `MapStore::decode_launch` and compared with the
//! IR interpreter's (`tests` below) — the differential check of the lowering that stands
//! in for a GPU. An instruction it does not know is an error, never a silent no-op.

use crate::parse::{Instruction, Operand};
use crate::reg::{Reg, RegFile};
use std::collections::HashMap;

/// One wave's state.
pub(crate) struct Wave {
    pub lanes: usize,
    pub s: Vec<u32>,
    pub v: Vec<Vec<u32>>,
    pub exec: u64,
    pub vcc: u64,
    pub scc: bool,
    /// Byte-addressed memory.
    pub mem: HashMap<u64, u8>,
    /// What `s_memtime` and the real-time clock read (fixed).
    pub clock: u64,
    /// The hardware registers `s_getreg_b32` reads, by name (`HW_REG_HW_ID`, …); reading
    /// another is an error.
    pub hwregs: HashMap<&'static str, u32>,
    /// gfx11's buffer descriptors: a two-bit swizzle field, the element size's code.
    pub gfx11: bool,
    /// The address of each label of the code running: 4 × its position (`run`), the
    /// program counter's unit for `s_getpc_b64` and `s_setpc_b64`.
    labels: HashMap<String, u64>,
}

impl Wave {
    pub fn new(lanes: usize) -> Wave {
        Wave {
            lanes,
            s: vec![0; 128],
            v: vec![vec![0; 512]; lanes],
            exec: 0,
            vcc: 0,
            scc: false,
            mem: HashMap::new(),
            clock: 0,
            hwregs: HashMap::new(),
            gfx11: false,
            labels: HashMap::new(),
        }
    }

    pub fn read(&self, addr: u64, bytes: u64) -> u64 {
        (0..bytes).fold(0, |acc, i| {
            acc | u64::from(*self.mem.get(&(addr + i)).unwrap_or(&0)) << (8 * i)
        })
    }

    pub fn write(&mut self, addr: u64, bytes: u64, value: u64) {
        for i in 0..bytes {
            self.mem.insert(addr + i, (value >> (8 * i)) as u8);
        }
    }

    fn mask(&self) -> u64 {
        if self.lanes == 64 {
            u64::MAX
        } else {
            (1 << self.lanes) - 1
        }
    }

    /// A scalar register's 32-bit part `i` of `r`.
    fn sreg(&self, r: Reg, i: u32) -> Result<u32, String> {
        let k = r.first + i;
        Ok(match r.file {
            RegFile::Sgpr => self.s[k as usize],
            RegFile::Exec => (self.exec >> (32 * k)) as u32,
            RegFile::Vcc => (self.vcc >> (32 * k)) as u32,
            other => return Err(format!("scalar read of {other:?}")),
        })
    }

    fn set_sreg(&mut self, r: Reg, i: u32, value: u32) -> Result<(), String> {
        let k = r.first + i;
        let set = |w: &mut u64| {
            *w = (*w & !(0xffff_ffffu64 << (32 * k))) | (u64::from(value) << (32 * k));
        };
        match r.file {
            RegFile::Sgpr => self.s[k as usize] = value,
            RegFile::Exec => {
                set(&mut self.exec);
                self.exec &= self.mask();
            }
            RegFile::Vcc => set(&mut self.vcc),
            other => return Err(format!("scalar write of {other:?}")),
        }
        Ok(())
    }

    /// A scalar operand of `words` 32-bit words (inline constants sign-extend).
    fn sop(&self, o: &Operand, words: u32) -> Result<u64, String> {
        match (o.reg, o.imm) {
            (Some(r), _) => (0..words.min(r.count)).try_fold(0u64, |acc, i| {
                Ok(acc | u64::from(self.sreg(r, i)?) << (32 * i))
            }),
            (None, Some(v)) if words == 2 && (-16..=64).contains(&v) => Ok(v as u64),
            (None, Some(v)) => Ok(v as u64 & 0xffff_ffff),
            _ => self.expression(&o.text),
        }
    }

    /// A long branch's offset (`long_branch.rs`): `(A-B)&4294967295` or `(A-B)>>32` of
    /// two labels.
    fn expression(&self, text: &str) -> Result<u64, String> {
        let bad = || format!("operand `{text}`");
        let (diff, low) = match text.strip_suffix("&4294967295") {
            Some(d) => (d, true),
            None => (text.strip_suffix(">>32").ok_or_else(bad)?, false),
        };
        let (a, b) = diff
            .strip_prefix('(')
            .and_then(|d| d.strip_suffix(')'))
            .and_then(|d| d.split_once('-'))
            .ok_or_else(bad)?;
        let at = |l: &str| self.labels.get(l).copied().ok_or_else(bad);
        let d = at(a)?.wrapping_sub(at(b)?) as i64;
        Ok(if low {
            d as u64 & 0xffff_ffff
        } else {
            (d >> 32) as u64 & 0xffff_ffff
        })
    }

    fn set_s(&mut self, o: &Operand, words: u32, value: u64) -> Result<(), String> {
        let r = o.reg.ok_or_else(|| format!("destination `{}`", o.text))?;
        for i in 0..words {
            self.set_sreg(r, i, (value >> (32 * i)) as u32)?;
        }
        Ok(())
    }

    /// A lane's vector operand of `words` words.
    fn vop(&self, lane: usize, o: &Operand, words: u32) -> Result<u64, String> {
        match o.reg {
            Some(r) if r.file == RegFile::Vgpr => Ok((0..words).fold(0, |acc, i| {
                acc | u64::from(self.v[lane][(r.first + i) as usize]) << (32 * i)
            })),
            _ => self.sop(o, words),
        }
    }

    fn set_v(&mut self, lane: usize, o: &Operand, words: u32, value: u64) -> Result<(), String> {
        let r = o.reg.filter(|r| r.file == RegFile::Vgpr);
        let r = r.ok_or_else(|| format!("vector destination `{}`", o.text))?;
        for i in 0..words {
            self.v[lane][(r.first + i) as usize] = (value >> (32 * i)) as u32;
        }
        Ok(())
    }

    fn active(&self) -> Vec<usize> {
        (0..self.lanes)
            .filter(|&l| self.exec >> l & 1 == 1)
            .collect()
    }

    /// Runs `code` (instructions and labels, in order) to its end.
    pub fn run(&mut self, code: &[Step]) -> Result<(), String> {
        self.labels = code
            .iter()
            .enumerate()
            .filter_map(|(n, s)| match s {
                Step::Label(l) => Some((l.clone(), 4 * n as u64)),
                Step::Insn(_) => None,
            })
            .collect();
        let mut pc = 0;
        while let Some(step) = code.get(pc) {
            pc += 1;
            let Step::Insn(x) = step else { continue };
            if x.mnemonic == "s_endpgm" {
                break;
            }
            let pair = || x.operands.first().ok_or("s_getpc/s_setpc: operand");
            match x.mnemonic.as_str() {
                "s_getpc_b64" => {
                    self.set_s(pair()?, 2, 4 * pc as u64)?;
                    continue;
                }
                "s_setpc_b64" => {
                    let to = self.sop(pair()?, 2)?;
                    pc = usize::try_from(to / 4)
                        .ok()
                        .filter(|&n| to % 4 == 0 && n < code.len())
                        .ok_or_else(|| format!("s_setpc_b64 to {to:#x}"))?;
                    continue;
                }
                _ => {}
            }
            if let Some(target) = self.exec_one(x)? {
                pc = code
                    .iter()
                    .position(|s| matches!(s, Step::Label(l) if *l == target))
                    .ok_or_else(|| format!("no label {target}"))?;
            }
        }
        Ok(())
    }

    /// Executes one instruction; a taken branch returns its target.
    fn exec_one(&mut self, x: &Instruction) -> Result<Option<String>, String> {
        let m = x.mnemonic.as_str();
        let o = &x.operands;
        let op = |i: usize| o.get(i).ok_or_else(|| format!("{m}: operand {i}"));
        let w = if m.ends_with("_b64") || m.ends_with("_u64") {
            2
        } else {
            1
        };
        let offset = x
            .modifiers
            .iter()
            .find_map(|s| s.strip_prefix("offset:"))
            .and_then(crate::parse::parse_int)
            .unwrap_or(0) as u64;
        let returns = x.modifiers.iter().any(|s| s == "glc" || s == "sc0");
        match m {
            _ if m.starts_with("s_waitcnt") || m == "s_nop" || m == "buffer_wbl2" => {}
            "s_load_dwordx2" | "s_load_dword" => {
                let words = if m.ends_with("x2") { 2 } else { 1 };
                let addr = self.sop(op(1)?, 2)? + op(2)?.imm.unwrap_or(0) as u64;
                let v = self.read(addr, 4 * words);
                self.set_s(op(0)?, words as u32, v)?;
            }
            "s_mov_b32" | "s_mov_b64" => {
                let v = self.sop(op(1)?, w)?;
                self.set_s(op(0)?, w, v)?;
            }
            "s_cselect_b32" | "s_cselect_b64" => {
                let v = if self.scc {
                    self.sop(op(1)?, w)?
                } else {
                    self.sop(op(2)?, w)?
                };
                self.set_s(op(0)?, w, v)?;
            }
            "s_cmp_lg_u32" | "s_cmp_eq_u32" | "s_cmp_eq_u64" | "s_cmp_lt_u32" => {
                let words = if m.ends_with("64") { 2 } else { 1 };
                let (a, b) = (self.sop(op(0)?, words)?, self.sop(op(1)?, words)?);
                self.scc = match &m[6..8] {
                    "lg" => a != b,
                    "lt" => a < b,
                    _ => a == b,
                };
            }
            "s_max_u32" => {
                let (a, b) = (self.sop(op(1)?, 1)?, self.sop(op(2)?, 1)?);
                self.scc = a > b;
                self.set_s(op(0)?, 1, a.max(b))?;
            }
            "s_add_u32" => {
                let r = self.sop(op(1)?, 1)? + self.sop(op(2)?, 1)?;
                self.scc = r >> 32 != 0;
                self.set_s(op(0)?, 1, r & 0xffff_ffff)?;
            }
            "s_addc_u32" => {
                let r = self.sop(op(1)?, 1)? + self.sop(op(2)?, 1)? + u64::from(self.scc);
                self.scc = r >> 32 != 0;
                self.set_s(op(0)?, 1, r & 0xffff_ffff)?;
            }
            "s_mul_i32" => {
                // The low 32 bits of the product (signed or not); `scc` is kept.
                let r = self.sop(op(1)?, 1)?.wrapping_mul(self.sop(op(2)?, 1)?);
                self.set_s(op(0)?, 1, r & 0xffff_ffff)?;
            }
            "s_sub_u32" => {
                let (a, b) = (self.sop(op(1)?, 1)?, self.sop(op(2)?, 1)?);
                self.scc = b > a;
                self.set_s(op(0)?, 1, a.wrapping_sub(b) & 0xffff_ffff)?;
            }
            "s_and_b32" | "s_and_b64" | "s_andn2_b32" | "s_andn2_b64" | "s_or_b32" | "s_or_b64"
            | "s_lshl_b32" | "s_lshl_b64" => {
                let (a, b) = (self.sop(op(1)?, w)?, self.sop(op(2)?, w)?);
                let bits = 32 * w;
                let r = match &m[..5] {
                    "s_and" if m.contains("andn2") => a & !b,
                    "s_and" => a & b,
                    "s_or_" => a | b,
                    _ => a.wrapping_shl(b as u32 % bits),
                };
                let r = if w == 1 { r & 0xffff_ffff } else { r };
                self.scc = r != 0;
                self.set_s(op(0)?, w, r)?;
            }
            "s_and_saveexec_b32"
            | "s_and_saveexec_b64"
            | "s_andn2_saveexec_b32"
            | "s_andn2_saveexec_b64" => {
                let x = self.sop(op(1)?, w)?;
                let saved = self.exec;
                self.exec = if m.starts_with("s_andn2") {
                    x & !self.exec & self.mask()
                } else {
                    self.exec & x
                };
                self.scc = self.exec != 0;
                self.set_s(op(0)?, w, saved)?;
            }
            "s_xor_b32" | "s_xor_b64" => {
                let r = self.sop(op(1)?, w)? ^ self.sop(op(2)?, w)?;
                let r = if w == 1 { r & 0xffff_ffff } else { r };
                self.scc = r != 0;
                self.set_s(op(0)?, w, r)?;
            }
            "s_ff1_i32_b32" | "s_ff1_i32_b64" | "s_bcnt1_i32_b32" | "s_bcnt1_i32_b64" => {
                let v = self.sop(op(1)?, w)?;
                let r = if m.starts_with("s_ff1") {
                    if v == 0 {
                        u32::MAX
                    } else {
                        v.trailing_zeros()
                    }
                } else {
                    v.count_ones()
                };
                self.set_s(op(0)?, 1, u64::from(r))?;
            }
            "s_branch" => return Ok(Some(op(0)?.text.clone())),
            _ if m.starts_with("s_cbranch_") => {
                let taken = match &m["s_cbranch_".len()..] {
                    "scc0" => !self.scc,
                    "scc1" => self.scc,
                    "execz" => self.exec == 0,
                    "execnz" => self.exec != 0,
                    "vccz" => self.vcc == 0,
                    "vccnz" => self.vcc != 0,
                    _ => return Err(format!("unknown instruction {m}")),
                };
                if taken {
                    return Ok(Some(op(0)?.text.clone()));
                }
            }
            "s_getreg_b32" => {
                // `hwreg(NAME, offset, size)`: those bits of the register.
                let o = op(1)?;
                let fields: Vec<&str> = o
                    .text
                    .strip_prefix("hwreg(")
                    .and_then(|t| t.strip_suffix(')'))
                    .ok_or_else(|| format!("hwreg operand `{}`", o.text))?
                    .split(',')
                    .map(str::trim)
                    .collect();
                let [name, offset, size] = fields[..] else {
                    return Err(format!("hwreg operand `{}`", o.text));
                };
                let reg = *self
                    .hwregs
                    .get(name)
                    .ok_or_else(|| format!("hardware register {name}"))?;
                let num = |t: &str| t.parse::<u32>().map_err(|e| format!("`{t}`: {e}"));
                let (offset, size) = (num(offset)?, num(size)?);
                let v = (u64::from(reg) >> offset) & ((1u64 << size) - 1);
                self.set_s(op(0)?, 1, v)?
            }
            "s_memtime" | "s_memrealtime" | "s_sendmsg_rtn_b64" => {
                self.set_s(op(0)?, 2, self.clock)?
            }
            _ if m.starts_with("v_cmp_") => {
                // v_cmp_<op>_<ty><bits>_e64 sdst, a, b
                let parts: Vec<&str> = m.split('_').collect();
                let (cmp, ty) = (parts[2], parts[3]);
                let words = if ty.ends_with("64") { 2 } else { 1 };
                let signed = ty.starts_with('i');
                let mut r = 0u64;
                for l in self.active() {
                    let (a, b) = (self.vop(l, op(1)?, words)?, self.vop(l, op(2)?, words)?);
                    let (a, b) = if signed {
                        let sx = |v: u64| {
                            if words == 2 {
                                v as i64
                            } else {
                                v as u32 as i32 as i64
                            }
                        };
                        ((sx(a) as i128), (sx(b) as i128))
                    } else {
                        (a as i128, b as i128)
                    };
                    let t = match cmp {
                        "eq" => a == b,
                        "ne" => a != b,
                        "lt" => a < b,
                        "le" => a <= b,
                        "gt" => a > b,
                        "ge" => a >= b,
                        _ => return Err(format!("compare {m}")),
                    };
                    r |= u64::from(t) << l;
                }
                let words = if self.lanes == 64 { 2 } else { 1 };
                self.set_s(op(0)?, words, r)?;
            }
            "v_cndmask_b32_e64" => {
                let mask = self.sop(op(3)?, 2)?;
                for l in self.active() {
                    let v = if mask >> l & 1 == 1 {
                        self.vop(l, op(2)?, 1)?
                    } else {
                        self.vop(l, op(1)?, 1)?
                    };
                    self.set_v(l, op(0)?, 1, v)?;
                }
            }
            "v_mbcnt_lo_u32_b32" | "v_mbcnt_hi_u32_b32" => {
                for l in self.active() {
                    let below = if l == 0 { 0 } else { u64::MAX >> (64 - l) };
                    let mask = self.vop(l, op(1)?, 1)?;
                    let part = if m.contains("_lo_") {
                        below as u32
                    } else {
                        (below >> 32) as u32
                    };
                    let v = (part & mask as u32).count_ones() as u64 + self.vop(l, op(2)?, 1)?;
                    self.set_v(l, op(0)?, 1, v & 0xffff_ffff)?;
                }
            }
            _ if m.starts_with("v_add_co_u32")
                || m.starts_with("v_sub_co_u32")
                || m.starts_with("v_addc_co_u32")
                || m.starts_with("v_add_co_ci_u32")
                || m.starts_with("v_subb_co_u32")
                || m.starts_with("v_sub_co_ci_u32") =>
            {
                let carry_in = o.len() == 5;
                let sub = m.contains("sub");
                let cin = if carry_in { self.sop(op(4)?, 2)? } else { 0 };
                let mut cout = 0u64;
                for l in self.active() {
                    let (a, b) = (self.vop(l, op(2)?, 1)?, self.vop(l, op(3)?, 1)?);
                    let c = cin >> l & 1;
                    let (r, carry) = if sub {
                        let r = a.wrapping_sub(b).wrapping_sub(c);
                        (r, (b + c > a) as u64)
                    } else {
                        let r = a + b + c;
                        (r, r >> 32)
                    };
                    cout |= (carry & 1) << l;
                    self.set_v(l, op(0)?, 1, r & 0xffff_ffff)?;
                }
                let words = if self.lanes == 64 { 2 } else { 1 };
                self.set_s(op(1)?, words, cout)?;
            }
            "v_readfirstlane_b32" => {
                // The first lane in `exec` (lane 0 when it is empty).
                let first = self.active().first().copied().unwrap_or(0);
                let v = self.vop(first, op(1)?, 1)?;
                self.set_s(op(0)?, 1, v)?;
            }
            _ if m.starts_with("v_") => self.valu(m, x)?,
            // Loads into LDS are not emulated (there is no LDS here).
            _ if m.contains("_load_lds") || x.modifiers.iter().any(|w| w == "lds") => {
                return Err(format!("unknown instruction {m} (a load into LDS)"))
            }
            _ if m.starts_with("global_") => self.global(m, o, offset, returns)?,
            "buffer_load_dword" | "buffer_load_b32" | "buffer_store_dword" | "buffer_store_b32" => {
                self.buffer(x, offset)?
            }
            _ => return Err(format!("unknown instruction {m}")),
        }
        Ok(None)
    }

    fn valu(&mut self, m: &str, x: &Instruction) -> Result<(), String> {
        let o = &x.operands;
        let op = |i: usize| o.get(i).ok_or_else(|| format!("{m}: operand {i}"));
        let base = m.trim_end_matches("_e32").trim_end_matches("_e64");
        for l in self.active() {
            let a32 = |i: usize| -> Result<u64, String> { self.vop(l, op(i)?, 1) };
            let (r, words) = match base {
                "v_mov_b32" => (a32(1)?, 1),
                "v_add_u32" | "v_add_nc_u32" => ((a32(1)? + a32(2)?) & 0xffff_ffff, 1),
                "v_sub_u32" | "v_sub_nc_u32" => (a32(1)?.wrapping_sub(a32(2)?) & 0xffff_ffff, 1),
                "v_mul_lo_u32" => ((a32(1)? * a32(2)?) & 0xffff_ffff, 1),
                "v_mul_hi_u32" => ((a32(1)? * a32(2)?) >> 32, 1),
                "v_min_u32" => (a32(1)?.min(a32(2)?), 1),
                "v_and_b32" => (a32(1)? & a32(2)?, 1),
                "v_or_b32" => (a32(1)? | a32(2)?, 1),
                "v_xor_b32" => (a32(1)? ^ a32(2)?, 1),
                "v_not_b32" => (!a32(1)? & 0xffff_ffff, 1),
                "v_ffbh_u32" => {
                    let v = a32(1)? as u32;
                    (
                        if v == 0 {
                            0xffff_ffff
                        } else {
                            u64::from(v.leading_zeros())
                        },
                        1,
                    )
                }
                "v_lshlrev_b32" => ((a32(2)? << (a32(1)? & 31)) & 0xffff_ffff, 1),
                "v_lshrrev_b32" => (a32(2)? >> (a32(1)? & 31), 1),
                "v_ashrrev_i32" => ((a32(2)? as u32 as i32 >> (a32(1)? & 31)) as u32 as u64, 1),
                "v_bfe_u32" | "v_bfe_i32" => {
                    let (v, off, n) = (a32(1)?, a32(2)? & 31, a32(3)? & 31);
                    let f = (v >> off) & ((1u64 << n) - 1);
                    let f = if base == "v_bfe_i32" && n > 0 && f >> (n - 1) & 1 == 1 {
                        (f | !((1u64 << n) - 1)) & 0xffff_ffff
                    } else {
                        f
                    };
                    (f, 1)
                }
                "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64" => {
                    let n = a32(1)? & 63;
                    let v = self.vop(l, op(2)?, 2)?;
                    let r = match base {
                        "v_lshlrev_b64" => v << n,
                        "v_lshrrev_b64" => v >> n,
                        _ => ((v as i64) >> n) as u64,
                    };
                    (r, 2)
                }
                _ => return Err(format!("unknown instruction {m}")),
            };
            self.set_v(l, op(0)?, words, r)?;
        }
        Ok(())
    }

    /// The address a buffer access reaches as the ISA states it, divisions and remainders
    /// as written there (the snippets compute them as shifts and masks): descriptor
    /// `words`, scalar offset `soffset`, and the lane's `(lane, VGPR index, byte offset)`
    /// (the offset: `offen`'s VGPR plus the immediate).
    pub fn buffer_address(
        words: [u32; 4],
        soffset: u64,
        (lane, vindex, offset): (u64, u64, u64),
        gfx11: bool,
    ) -> u64 {
        let [w0, w1, _, w3] = words.map(u64::from);
        let base = w0 | (w1 & 0xffff) << 32;
        let stride = w1 >> 16 & 0x3fff;
        let swizzle = if gfx11 { w1 >> 30 } else { w1 >> 31 };
        let element = if gfx11 { 2 << swizzle } else { 4 };
        let index_stride = 8 << (w3 >> 21 & 3);
        let index = vindex + (w3 >> 23 & 1) * lane;
        let within = if swizzle == 0 {
            index * stride + offset
        } else {
            (index / index_stride * stride + offset / element * element) * index_stride
                + index % index_stride * element
                + offset % element
        };
        base + soffset + within
    }

    /// A dword `buffer_load`/`buffer_store` at [`Wave::buffer_address`].
    fn buffer(&mut self, x: &Instruction, offset: u64) -> Result<(), String> {
        let (m, o) = (x.mnemonic.as_str(), &x.operands);
        let op = |i: usize| o.get(i).ok_or_else(|| format!("{m}: operand {i}"));
        let rsrc = op(2)?.reg.ok_or("a descriptor")?;
        let mut words = [0; 4];
        for (i, w) in (0..).zip(words.iter_mut()) {
            *w = self.sreg(rsrc, i)?;
        }
        let soffset = self.sop(op(3)?, 1)?;
        let flag = |f: &str| x.modifiers.iter().any(|w| w == f);
        let (offen, idxen) = (flag("offen"), flag("idxen"));
        for l in self.active() {
            let v = |i: usize| -> Result<u64, String> {
                let r = op(1)?.reg.ok_or("a VGPR address")?;
                Ok(u64::from(self.v[l][(r.first + i as u32) as usize]))
            };
            let vindex = if idxen { v(0)? } else { 0 };
            // The VGPR offset and the immediate add in 32 bits.
            let off = (if offen { v(usize::from(idxen))? } else { 0 } + offset) & 0xffff_ffff;
            let addr = Self::buffer_address(words, soffset, (l as u64, vindex, off), self.gfx11);
            if m.starts_with("buffer_load") {
                let got = self.read(addr, 4);
                self.set_v(l, op(0)?, 1, got)?;
            } else {
                let data = self.vop(l, op(0)?, 1)?;
                self.write(addr, 4, data);
            }
        }
        Ok(())
    }

    fn global(&mut self, m: &str, o: &[Operand], offset: u64, returns: bool) -> Result<(), String> {
        let op = |i: usize| o.get(i).ok_or_else(|| format!("{m}: operand {i}"));
        let words = if m.contains("x2") { 2 } else { 1 };
        let bytes = 4 * words;
        let ret = usize::from(returns || m.contains("_load"));
        let base = self.sop(op(o.len() - 1)?, 2)?;
        for l in self.active() {
            let addr = base + self.vop(l, op(ret)?, 1)? + offset;
            let old = self.read(addr, bytes);
            let data = |i: usize, w: u32| self.vop(l, op(ret + 1 + i)?, w);
            let new = match m {
                _ if m.starts_with("global_load") => None,
                _ if m.starts_with("global_store") => Some(data(0, words as u32)?),
                _ if m.contains("cmpswap") => {
                    // data: the new value, then the compare value.
                    let r = op(ret + 1)?.reg.ok_or("cmpswap data")?;
                    let word = |i: u32| u64::from(self.v[l][(r.first + i) as usize]);
                    let (src, cmp) = (word(0) | word(1) << 32, word(2) | word(3) << 32);
                    Some(if old == cmp { src } else { old })
                }
                _ if m.contains("_add_") => Some(old.wrapping_add(data(0, 2)?)),
                _ if m.contains("_umax_") => Some(old.max(data(0, 2)?)),
                _ if m.contains("_swap_") => Some(data(0, 2)?),
                _ => return Err(format!("unknown instruction {m}")),
            };
            if let Some(n) = new {
                self.write(addr, bytes, n);
            }
            if ret == 1 {
                self.set_v(l, op(0)?, words as u32, old)?;
            }
        }
        Ok(())
    }
}

/// One statement of emulated code.
pub(crate) enum Step {
    Insn(Instruction),
    Label(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, StmtKind};
    use crate::{instrument, KernelStatus};
    use warptrace_ir::interp::{Grid, Interpreter, Schedule, SimConfig, SimKernel};
    use warptrace_ir::{LaunchDims, MapStore, Program};

    const KERNARG: u64 = 0x1_0000_0000;
    const MAPS: u64 = 0x2_0000_0000;
    const LAUNCH: u64 = 7;

    fn corpus(name: &str) -> String {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/gcn");
        std::fs::read_to_string(dir.join(name)).expect("corpus file")
    }

    /// Runs `src` (`kernel:entry` probes) on `kernel` of `file` over a launch of `grid` ×
    /// `block`: the instrumented prologue and entry snippets on the emulator, wave by wave,
    /// and the program on the IR interpreter; the decoded buffers must be equal.
    fn differential(file: &str, kernel: &str, src: &str, grid: [u32; 3], block: [u32; 3]) {
        let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
        differential_ir(file, kernel, program, grid, block, src);
    }

    /// [`differential`] of an IR program (`what` names it in failures).
    fn differential_ir(
        file: &str,
        kernel: &str,
        program: Program,
        grid: [u32; 3],
        block: [u32; 3],
        what: &str,
    ) {
        // Rings spread over copies (decision 0020) number a copy's records apart from the
        // interpreter's one ring: the same records, in another order.
        let spread = warptrace_ir::placement::ring_copies(&program) > 1;
        let (mut got, mut expect) = run_ir(file, kernel, program, grid, block, &|t| t.to_owned());
        if spread {
            for store in [&mut got, &mut expect] {
                for m in &mut store.maps {
                    m.records.sort_by(|a, b| a.fields.cmp(&b.fields));
                    for r in &mut m.records {
                        if let warptrace_ir::RecordOrigin::Ring { index, .. } = &mut r.origin {
                            *index = 0;
                        }
                    }
                }
            }
        }
        assert!(
            expect
                .maps
                .iter()
                .all(|m| !m.entries.is_empty() || !m.records.is_empty()),
            "{what}: a map recorded nothing"
        );
        assert_eq!(got, expect, "{file} {kernel}: `{what}`");
    }

    /// The emulated and the interpreted store of `src`, the instrumented text passed
    /// through `mutate` first.
    fn run(
        file: &str,
        kernel: &str,
        src: &str,
        grid: [u32; 3],
        block: [u32; 3],
        mutate: &dyn Fn(&str) -> String,
    ) -> (MapStore, MapStore) {
        let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
        run_ir(file, kernel, program, grid, block, mutate)
    }

    /// [`run`] of an IR program.
    fn run_ir(
        file: &str,
        kernel: &str,
        program: Program,
        grid: [u32; 3],
        block: [u32; 3],
        mutate: &dyn Fn(&str) -> String,
    ) -> (MapStore, MapStore) {
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        let asm = corpus(file);
        let got = emulate(&asm, kernel, &program, grid, block, mutate, false);
        let module = parse(&asm).expect("parses");
        let wave = wave_of(module.kernel(kernel).expect("kernel"));
        let processor = module.processor.as_deref().expect("a target");
        let nsmid = crate::special::smid_count(target(processor, wave));
        let mut sim = SimKernel::new(kernel, |_| Vec::new());
        sim.isa = warptrace_ir::Isa::Gcn;
        (got, interpret(&program, &sim, grid, block, (wave, nsmid)))
    }

    /// The snippets' target facts of `processor` with `wave` lanes.
    fn target(processor: &str, wave: u32) -> crate::emit::Target {
        crate::emit::Target::of(processor, &crate::insn::Isa::new(processor, wave, None))
    }

    /// The hardware id registers of wave `warp` of workgroup `block` on `processor`: its
    /// `smid` is `block % nsmid` and its `warpid` (SIMD and slot) `warp`, as the
    /// interpreter has them, in the fields `docs/gcn.md` names (the XCD in
    /// `HW_REG_XCC_ID` on gfx940+), the other bits set (queue and pipe ids are not zero on
    /// hardware either).
    fn hardware_ids(
        processor: &str,
        wave: u32,
        block: u64,
        warp: u32,
    ) -> HashMap<&'static str, u32> {
        let t = target(processor, wave);
        let smid = (block % u64::from(crate::special::smid_count(t))) as u32;
        let noise = 0xa5a5_a5a5u32;
        let mut ids = HashMap::new();
        if t.gfx9 {
            let fields = (0xff << 8) | 0x3f;
            ids.insert(
                "HW_REG_HW_ID",
                noise & !fields | (smid & 0xff) << 8 | warp & 0x3f,
            );
            if t.gfx940 {
                ids.insert("HW_REG_XCC_ID", noise & !0xf | smid >> 8);
            }
        } else {
            let fields = (0x7ff << 10) | (0x3 << 8) | 0x1f;
            let warpid = (warp >> 5 & 0x3) << 8 | warp & 0x1f;
            ids.insert("HW_REG_HW_ID1", noise & !fields | smid << 10 | warpid);
        }
        ids
    }

    /// The number of SMs the interpreter is given where the program reads neither `smid`
    /// nor `nsmid` (the emulated hardware ids then matter to nothing).
    const UNREAD_NSMID: u32 = 1;

    /// The lanes of a wave of kernel `k`, from its descriptor.
    fn wave_of(k: &crate::parse::Kernel) -> u32 {
        if k.field(".amdhsa_wavefront_size32") == Some(1) {
            32
        } else {
            64
        }
    }

    /// The IR interpreter's store for `program` on `sim` over `grid` × `block` in waves of
    /// `wave` lanes: the oracle the emulated buffers are compared with.
    fn interpret(
        program: &warptrace_verifier::VerifiedProgram,
        sim: &SimKernel<'_>,
        grid: [u32; 3],
        block: [u32; 3],
        (wave, nsmid): (u32, u32),
    ) -> MapStore {
        let interp = Interpreter::new(program.program()).with_config(SimConfig {
            nsmid,
            launch: LAUNCH,
            schedule: Schedule::InOrder,
        });
        let grid = Grid {
            grid,
            block,
            warp_size: wave,
        };
        interp.run_kernel(sim, &grid).expect("interpreter runs")
    }

    /// The map buffer `program` leaves when `kernel` of `asm`, instrumented and passed
    /// through `mutate`, runs on the emulator over `grid` × `block`: its entry code (the
    /// prologue and the entry snippets), or, `whole`, its whole body to `s_endpgm`.
    fn emulate(
        asm: &str,
        kernel: &str,
        program: &warptrace_verifier::VerifiedProgram,
        grid: [u32; 3],
        block: [u32; 3],
        mutate: &dyn Fn(&str) -> String,
        whole: bool,
    ) -> MapStore {
        let options = crate::Options::default();
        emulate_with(asm, kernel, program, grid, block, mutate, whole, &options)
    }

    /// [`emulate`] instrumenting with `options`.
    #[allow(clippy::too_many_arguments)]
    fn emulate_with(
        asm: &str,
        kernel: &str,
        program: &warptrace_verifier::VerifiedProgram,
        grid: [u32; 3],
        block: [u32; 3],
        mutate: &dyn Fn(&str) -> String,
        whole: bool,
        options: &crate::Options,
    ) -> MapStore {
        let out = crate::instrument_with(asm, program, options).expect("instruments");
        let outcome = out
            .kernels
            .iter()
            .find(|k| k.name == kernel)
            .expect("kernel");
        let status = &outcome.status;
        // The buffer the runtime gives the kernel: its copies of the instrumented layout
        // (decisions 0019, 0020), decoded and merged as the runtime does.
        let layout = match outcome.copies {
            1 => out.layout.clone(),
            n => out.layout.replicated(n),
        };
        assert!(
            matches!(status, KernelStatus::Instrumented { .. }),
            "{kernel}: {status:?}"
        );
        let mutated = mutate(&out.asm);
        let (before, after) = (
            parse(asm).expect("parses"),
            parse(&mutated).expect("parses"),
        );
        let (k0, k1) = (
            before.kernel(kernel).expect("k"),
            after.kernel(kernel).expect("k"),
        );
        let first = k0
            .body
            .clone()
            .find(|&i| before.instr(i).is_some())
            .map(|i| before.stmt_text(i).to_owned())
            .expect("an instruction");
        // The inserted code at the entry: everything before the kernel's first instruction.
        let mut code = Vec::new();
        for i in k1.body.clone() {
            match &after.stmts[i].kind {
                StmtKind::Instr(_) if !whole && after.stmt_text(i) == first => break,
                StmtKind::Instr(x) => code.push(Step::Insn(x.clone())),
                StmtKind::Label(l) => code.push(Step::Label(l.clone())),
                StmtKind::Directive { .. } => {}
            }
        }
        let wave = wave_of(k0) as usize;
        let meta = before
            .metadata
            .as_ref()
            .and_then(|m| m.kernel(kernel))
            .expect("meta");
        let tpb = block.iter().product::<u32>();
        let dims = LaunchDims {
            blocks: grid.iter().map(|&g| u64::from(g)).product(),
            threads_per_block: tpb,
        };
        let launch = layout.for_launch(dims);
        let mut w = Wave::new(wave);
        // The kernarg segment: the hidden grid arguments and the map argument.
        for a in &meta.args {
            let (Some(off), Some(size)) = (a.offset(), a.size()) else {
                continue;
            };
            let kind = a.value_kind();
            let d = ["_x", "_y", "_z"].iter().position(|s| kind.ends_with(s));
            let v = match (kind, d) {
                (k, Some(d)) if k.starts_with("hidden_block_count") => grid[d],
                (k, Some(d)) if k.starts_with("hidden_group_size") => block[d],
                _ => continue,
            };
            w.write(KERNARG + off, size, u64::from(v));
        }
        let map_arg = meta
            .int(".kernarg_segment_size")
            .expect("size")
            .next_multiple_of(8);
        w.write(KERNARG + map_arg, 8, MAPS);
        // Every copy of the fixed part has its own `launch` word, as the runtime writes it.
        for copy in 0..u64::from(layout.replicas.max(1)) {
            w.write(
                MAPS + copy * layout.total_bytes + layout.launch_offset,
                8,
                LAUNCH,
            );
        }
        for (r, off) in layout.regions.iter().zip(&launch.array_offsets) {
            if let Some(off) = off {
                w.write(MAPS + r.slots_offset, 8, *off);
            }
        }
        // The launch initializes the SGPRs the instrumented descriptor enables (the
        // instrumenter may enable more workgroup ids than the kernel did), as the TV's
        // entry state places them.
        let processor = after.processor.as_deref().expect("a target");
        let abi = crate::tv::EntryAbi::of(k1, meta, processor).expect("an entry state");
        let kernarg = abi.kernarg as usize;
        for b in 0..dims.blocks {
            let id = [
                (b % u64::from(grid[0])) as u32,
                (b / u64::from(grid[0]) % u64::from(grid[1])) as u32,
                (b / u64::from(grid[0] * grid[1])) as u32,
            ];
            for first in (0..tpb).step_by(wave) {
                let mem = std::mem::take(&mut w.mem);
                w = Wave::new(wave);
                w.mem = mem;
                w.gfx11 = processor.starts_with("gfx11");
                w.hwregs = hardware_ids(processor, wave as u32, b, first / wave as u32);
                w.s[kernarg] = KERNARG as u32;
                w.s[kernarg + 1] = (KERNARG >> 32) as u32;
                for (sgpr, id) in abi.workgroup.iter().zip(id) {
                    if let Some(sgpr) = sgpr {
                        w.s[*sgpr as usize] = id;
                    }
                }
                for l in 0..wave {
                    let t = first + l as u32;
                    if t < tpb {
                        w.exec |= 1 << l;
                        let (x, y, z) = (
                            t % block[0],
                            t / block[0] % block[1],
                            t / (block[0] * block[1]),
                        );
                        w.v[l][0] = x | y << 10 | z << 20;
                    }
                }
                w.run(&code).unwrap_or_else(|e| panic!("{kernel}: {e}"));
            }
        }
        let buf: Vec<u8> = (0..launch.total_bytes)
            .map(|i| *w.mem.get(&(MAPS + i)).unwrap_or(&0))
            .collect();
        MapStore::decode_launch(program.program(), &layout, Some(dims), &buf)
    }

    const PROGRAMS: &[&str] = &[
        "map @n: hash(keys = 64); map @s: hash(keys = 8); kernel:entry { @n[kernel] = count(); @s = sum(thread); @x = max(ctaid.x * 1000 + lane); }",
        "kernel:entry { @c[tid.x % 4, ctaid.y] = count(); @s[warp] = sum(thread); @m = max(block); @n = min((i64)tid.y - 2); @a[tid.z] = avg(lane); @x[kernel] = stats(launch); }",
        "kernel:entry { @h = hist(thread * 37); @h2[tid.x] = hist((i64)tid.y - 1); @l = lhist((i64)thread - 50, -20, 400, 7); @l2 = lhist((i64)thread, 0, 1024, 64); }",
        "map @r: ring(capacity = 100, overflow = overwrite); map @d: ring(capacity = 64, overflow = drop); kernel:entry { @r = (thread, block); @d = (lane, ntid.y); }",
        "map @t: array(per = thread, slots = 2); kernel:entry { @t = (thread, ntid.x); @t = (block, nctaid.z); @t = (1, 2); }",
        "map @w: array(per = warp, slots = 1); warp kernel:entry { @w = (warp, active); }",
        "kernel:entry { printf(\"%d %d\\n\", thread, lane); }",
        "kernel:entry { if (tid.x % 2 == 0) { @e[tid.x % 4] = count(); } else { @o = sum(tid.x << (tid.y + 60)); } }",
        "warp kernel:entry { @wc[warp] = count(); @ws = sum(active); @wm = max(lane); }",
        "kernel:entry { @am[activemask] = count(); @ac[active] = sum(activemask >> 16); }",
        "kernel:entry { @q[nctaid.x, nctaid.y, ntid.z] = count(); @sh = sum((thread >> 3) ^ (thread * 5)); @sa[(i64)thread >> 2] = min(((i64)0 - (i64)thread) >> 1); }",
        // Updates combined within the wave (decision 0036): keys and operands the same in
        // every lane, some behind a branch that leaves part of each wave.
        "kernel:entry { @hu[ctaid.x] = hist(block * 1000); @lu = lhist((i64)ctaid.y * 30, 0, 105, 7); @su[kernel] = sum(block * 0x9e3779b97f4a7c15 + 1); @au = avg(ntid.x * 5); @vu[ctaid.z] = block; @mu[block] = min((i64)block - 3); @cu[smid, kernel] = count(); if (tid.x % 3 == 0) { @br[block] = count(); @bs = stats(ctaid.y + 7); } }",
    ];

    #[test]
    fn snippets_leave_the_buffer_the_interpreter_computes_wave64() {
        for src in PROGRAMS {
            differential(
                "hip_grid_gfx942.s",
                "volume_index",
                src,
                [2, 2, 2],
                [8, 4, 3],
            );
        }
    }

    #[test]
    fn snippets_leave_the_buffer_the_interpreter_computes_wave32() {
        for src in PROGRAMS {
            differential(
                "hip_grid_gfx1100.s",
                "volume_index",
                src,
                [3, 1, 2],
                [5, 4, 3],
            );
        }
    }

    /// `smid` over more workgroups than the hardware id's 8 bits name: gfx942's XCD above
    /// them (workgroups 256 and on have `HW_REG_XCC_ID` 1), gfx90a's ids wrapping at 256,
    /// gfx1100's 11 bits; `nsmid` the number of ids of each.
    #[test]
    fn smid_names_workgroups_past_the_hardware_ids_8_bits() {
        let src = "kernel:entry { @cu[smid] = count(); @hi = max(smid); @ns = max(nsmid); }";
        for (file, kernel, ids) in [
            ("hip_grid_gfx942.s", "volume_index", 300),
            ("hip_kernels_gfx90a.s", "histogram", 256),
            ("hip_grid_gfx1100.s", "volume_index", 300),
        ] {
            let (got, expect) = run(file, kernel, src, [300, 1, 1], [1, 1, 1], &|t| t.to_owned());
            assert_eq!(got, expect, "{file}");
            assert_eq!(got.maps[0].entries.len(), ids, "{file}: the smid values");
        }
    }

    /// `warpid` reads each wave's SIMD and slot: the emulated hardware gives wave `w` of a
    /// workgroup the slot `w` (gfx9: SIMD_ID and WAVE_ID, six adjacent bits of
    /// `HW_REG_HW_ID`; gfx10+: `HW_REG_HW_ID1`'s SIMD_ID above its 5-bit WAVE_ID, the
    /// queue and pipe bits around them set), as the interpreter has it: 16 values over a
    /// 1024-lane wave64 workgroup, 32 in wave32, one per wave.
    #[test]
    fn warpid_names_each_wave_of_a_workgroup() {
        let src = "kernel:entry { @w[warpid, warp] = count(); @hi = max(warpid); }";
        for (file, kernel, waves) in [
            ("hip_grid_gfx942.s", "volume_index", 16),
            ("hip_kernels_gfx90a.s", "histogram", 16),
            ("hip_grid_gfx1100.s", "volume_index", 32),
        ] {
            let (got, expect) = run(file, kernel, src, [2, 1, 1], [1024, 1, 1], &|t| {
                t.to_owned()
            });
            assert_eq!(got, expect, "{file}");
            assert_eq!(
                got.maps[0].entries.len(),
                waves,
                "{file}: the warpid values"
            );
        }
    }

    /// Divisions and remainders of every form the restoring division lowers (`alu.rs`):
    /// unsigned by a divisor of 2^63 or more (a quotient of 0 or 1), by registers and
    /// immediates, signed with every sign combination and the most negative value by −1
    /// (which wraps); at 64 bits and, the same program with 32-bit operations, at 32.
    const DIVISIONS: &str = "kernel:entry {
        @u[thread] = max((thread * 0x9e3779b97f4a7c15) / ((thread << 59) | 0x8000000000000001));
        @ur[thread] = max((thread * 0x9e3779b97f4a7c15) % ((thread * 3) | 5));
        @s[thread] = max(((i64)thread - 300) / -7);
        @sr[thread] = max(((i64)thread - 300) % (((i64)tid.x - 4) | 1));
        @m[thread] = max(((i64)1 << 63 | (i64)tid.y << 31) / (((i64)tid.x - 4) | 1));
        @mr[thread] = max(((i64)1 << 63 | (i64)1 << 31) % (((i64)tid.x - 4) | 1));
        @q[thread] = max(thread / 10 + thread % 1000);
    }";

    /// The 64-bit and the 32-bit form of [`DIVISIONS`].
    fn divisions() -> [Program; 2] {
        let p = warptrace_lang::compile(DIVISIONS, "t.wt").expect("compiles");
        let mut text = p.to_string();
        for op in ["div.u", "rem.u", "div.s", "rem.s"] {
            text = text.replace(&format!("{op}.64"), &format!("{op}.32"));
        }
        let p32 = Program::parse(&text).expect("parses");
        assert!(
            text.contains("div.s.32") && text.contains("rem.u.32"),
            "{text}"
        );
        [p, p32]
    }

    #[test]
    fn divisions_leave_the_buffer_the_interpreter_computes() {
        for (i, p) in divisions().into_iter().enumerate() {
            let what = format!("divisions at {} bits", [64, 32][i]);
            let (grid, block) = ([2, 2, 1], [8, 4, 3]);
            differential_ir(
                "hip_grid_gfx942.s",
                "volume_index",
                p.clone(),
                grid,
                block,
                &what,
            );
            differential_ir("hip_grid_gfx1100.s", "volume_index", p, grid, block, &what);
        }
    }

    /// Mutations of the division's loop that the differential check refutes: one round
    /// short (at 64 and at 32 bits), `rr > dv` for `rr ≥ dv`, the quotient's sign the
    /// dividend's alone.
    #[test]
    fn division_mutants_are_refuted() {
        let rem = "kernel:entry { @r[thread] = max((thread * 0x9e3779b97f4a7c15) % ((thread * 3) | 5)); }";
        let div = "kernel:entry { @q[thread] = max(((i64)thread - 300) / -7); }";
        let narrow = |src: &str| {
            let p = warptrace_lang::compile(src, "t.wt").expect("compiles");
            Program::parse(&p.to_string().replace("rem.u.64", "rem.u.32")).expect("parses")
        };
        let compile = |src: &str| warptrace_lang::compile(src, "t.wt").expect("compiles");
        // The text after the loop's label, and the label's offset.
        let label = |t: &str| {
            let start = t.find("; __wt_snippet 1").expect("snippet");
            start + t[start..].find("_div:\n").expect("a division loop")
        };
        let one_round_short = |t: &str| {
            let line = t[..label(t)].rfind('\n').expect("a line");
            let prev = t[..line].rfind('\n').expect("the count") + 1;
            let (mov, rounds) = t[prev..line].rsplit_once(' ').expect("s_mov_b32 sN, W");
            assert!(mov.trim_start().starts_with("s_mov_b32"), "{mov}");
            let fewer = rounds.parse::<u32>().expect("rounds") - 1;
            format!("{}{mov} {fewer}{}", &t[..prev], &t[line..])
        };
        let greater = |t: &str| {
            let at = label(t) + t[label(t)..].find("v_cmp_ge_u64").expect("the compare");
            format!(
                "{}v_cmp_gt_u64{}",
                &t[..at],
                &t[at + "v_cmp_ge_u64".len()..]
            )
        };
        let unsigned_quotient = |t: &str| {
            let at = label(t) + t[label(t)..].find("s_cbranch_scc1").expect("the back edge");
            let next = at + t[at..].find('\n').expect("a line") + 1;
            let end = next + t[next..].find('\n').expect("a line");
            assert!(t[next..end].contains("v_xor_b32"), "{}", &t[next..end]);
            format!("{}\ts_nop 0{}", &t[..next], &t[end..])
        };
        type Mutate<'a> = &'a dyn Fn(&str) -> String;
        let cases: [(Program, Mutate<'_>, &str); 4] = [
            (compile(rem), &one_round_short, "63 rounds"),
            (narrow(rem), &one_round_short, "31 rounds"),
            (compile(rem), &greater, "rr > dv"),
            (compile(div), &unsigned_quotient, "the quotient's sign"),
        ];
        for (p, mutate, what) in cases {
            let (grid, block) = ([2, 1, 1], [96, 1, 1]);
            let file = "hip_grid_gfx942.s";
            let (clean, expect) = run_ir(file, "volume_index", p.clone(), grid, block, &|t| {
                t.to_owned()
            });
            assert!(clean == expect, "unmutated ({what})");
            let (got, expect) = run_ir(file, "volume_index", p, grid, block, mutate);
            assert!(got != expect, "the mutation ({what}) went unnoticed");
        }
    }

    /// Workgroup ids the kernel does not enable are enabled for the probe (`histogram`
    /// enables only x): `block` and `ctaid.y/z` over a 3-D grid are the interpreter's.
    #[test]
    fn workgroup_ids_the_kernel_does_not_enable_are_read_once_enabled() {
        let src = "kernel:entry { @b[block, ctaid.y, ctaid.z] = count(); @t = max(thread); }";
        differential(
            "hip_kernels_gfx942.s",
            "histogram",
            src,
            [2, 3, 2],
            [64, 1, 1],
        );
    }

    /// Mutations of the lowering that the differential check refutes: each changes one
    /// instruction of the generated code, and the buffer no longer matches.
    #[test]
    fn mutated_snippets_are_refuted() {
        let cases: &[(&str, &str, &str)] = &[
            // The warp leader's restriction dropped: every lane updates.
            ("warp kernel:entry { @wc[warp] = count(); }", "\ts_and_b64 exec, exec, s[", "\ts_nop 0 ; "),
            // hist: 64 - clz instead of 65 - clz for large values.
            ("kernel:entry { @h = hist(thread << 40); }", "0x41,", "0x40,"),
            // A ring that keeps n == capacity.
            ("map @d: ring(capacity = 64, overflow = drop); kernel:entry { @d = (lane, 1); }", "v_cmp_ge_u64_e64", "v_cmp_gt_u64_e64"),
            // The hash probe's slot index not masked to the capacity.
            ("map @m: hash(keys = 4096); kernel:entry { @m[thread] = count(); }", "v_and_b32_e32 v", "v_or_b32_e32 v"),
            // An array save past the last slot.
            ("map @t: array(per = thread, slots = 2); kernel:entry { @t = (thread, 1); @t = (block, 2); @t = (3, 3); }", "v_cmp_ge_u64_e64", "v_cmp_gt_u64_e64"),
            // activemask: the wave32 form (the high half of `exec` read as 0).
            ("kernel:entry { @am[activemask] = count(); }", "exec_hi", "0"),
            // lhist: the division's shift off by one.
            ("kernel:entry { @l = lhist((i64)thread, 0, 210, 7); }", "v_lshrrev_b32_e32 v", "v_lshlrev_b32_e32 v"),
        ];
        for (src, from, to) in cases {
            let (clean, expect) = run(
                "hip_grid_gfx942.s",
                "volume_index",
                src,
                [2, 1, 1],
                [96, 1, 1],
                &|t| t.to_owned(),
            );
            assert!(clean == expect, "unmutated `{src}`");
            let mutate = |t: &str| {
                let start = t.find("; __wt_snippet 1").expect("snippet");
                // The last occurrence for the array's third save, the first otherwise.
                let end = start + t[start..].find("s_cmp_lg_u32").expect("snippet end");
                let hit = if src.contains("(3, 3)") {
                    t[start..end].rfind(from)
                } else {
                    t[start..end].find(from)
                };
                let at = start + hit.unwrap_or_else(|| panic!("`{from}` in `{src}`"));
                format!("{}{to}{}", &t[..at], &t[at + from.len()..])
            };
            let (got, expect) = run(
                "hip_grid_gfx942.s",
                "volume_index",
                src,
                [2, 1, 1],
                [96, 1, 1],
                &mutate,
            );
            assert!(
                got != expect,
                "the mutation `{from}` → `{to}` of `{src}` went unnoticed"
            );
        }
    }

    /// A kernel of `file` with its body replaced by two loops, in instructions the
    /// emulator runs: a masked loop (LLVM's form of a divergent loop: lanes leave `exec`
    /// at the latch's `s_andn2`, the wave goes on while any remain) in which lane `x`
    /// iterates `(x & 3) + 1` times, then a uniform loop of 3 iterations (`s_cbranch_scc1`).
    fn with_loops(file: &str, kernel: &str, wave: u32) -> String {
        let Names {
            mask, exec, add, ..
        } = Names::of(wave);
        let (brk, done) = (Names::sgprs(wave, 6), Names::sgprs(wave, 8));
        let body = format!(
            "\tv_and_b32_e32 v1, 3, v0\n\
             \tv_mov_b32_e32 v2, 0\n\
             \ts_mov_{mask} {brk}, 0\n\
             .LBBt_1:\n\
             \t{add} v2, 1, v2\n\
             \tv_cmp_gt_u32_e64 {done}, v2, v1\n\
             \ts_or_{mask} {brk}, {done}, {brk}\n\
             \ts_andn2_{mask} {exec}, {exec}, {brk}\n\
             \ts_cbranch_execnz .LBBt_1\n\
             \ts_or_{mask} {exec}, {exec}, {brk}\n\
             \ts_mov_b32 s10, 0\n\
             .LBBt_2:\n\
             \ts_add_u32 s10, s10, 1\n\
             \ts_cmp_lt_u32 s10, 3\n\
             \ts_cbranch_scc1 .LBBt_2\n"
        );
        with_body(file, kernel, &body)
    }

    /// Kernel `kernel` of corpus file `file` with its body up to `s_endpgm` replaced by
    /// `body`.
    fn with_body(file: &str, kernel: &str, body: &str) -> String {
        let asm = corpus(file);
        let start = asm.find(&format!("\n{kernel}:")).expect("kernel label") + 1;
        let start = start + asm[start..].find('\n').expect("line end") + 1;
        let end = start + asm[start..].find("\ts_endpgm").expect("s_endpgm");
        format!("{}{body}{}", &asm[..start], &asm[end..])
    }

    /// What the IR interpreter makes of `program` on [`with_loops`]' kernel: each thread
    /// reaches the loops' points as the loops run it (headers at `pc` 3 and 10).
    fn loops_expected(
        program: &warptrace_verifier::VerifiedProgram,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        wave: u32,
    ) -> MapStore {
        use warptrace_ir::interp::{Event, SiteEvent};
        use warptrace_ir::LoopEdge;
        let sim = SimKernel {
            isa: warptrace_ir::Isa::Gcn,
            ..SimKernel::new(kernel, |t| {
                let mut ev = Vec::new();
                let mut run = |pc: u32, trips: u32| {
                    for k in 1..=trips {
                        ev.push(Event::at(pc, SiteEvent::Loop(LoopEdge::Header)));
                        let edge = if k < trips {
                            LoopEdge::Backedge
                        } else {
                            LoopEdge::Exit
                        };
                        ev.push(Event::at(pc, SiteEvent::Loop(edge)));
                    }
                };
                run(3, (t.tid[0] & 3) + 1);
                run(10, 3);
                ev
            })
        };
        interpret(program, &sim, grid, block, (wave, UNREAD_NSMID))
    }

    const LOOP_PROGRAM: &str = "loop:header { @h[pc, lane] = count(); } \
        loop:backedge { @b[pc, lane] = count(); } loop:exit { @e[pc, lane] = count(); } \
        warp loop:exit { @w[pc] = sum(active); }";

    /// Loop points run for the lanes that take each edge: a masked loop's back edge and
    /// exit for the lanes going on and leaving at its latch, a uniform loop's back edge only
    /// when its branch is taken — the whole instrumented body runs on the emulator, with
    /// partial waves, and leaves what the interpreter computes from the loops' events.
    #[test]
    fn loop_points_run_for_the_lanes_that_take_each_edge() {
        for (file, wave, block) in REWRITE_TARGETS {
            let asm = with_loops(file, "volume_index", wave);
            let program = warptrace_lang::compile(LOOP_PROGRAM, "t.wt").expect("compiles");
            let program = warptrace_verifier::verify_program(&program).expect("verifies");
            let grid = [2, 1, 1];
            let got = emulate(
                &asm,
                "volume_index",
                &program,
                grid,
                block,
                &|t| t.to_owned(),
                true,
            );
            let expect = loops_expected(&program, "volume_index", grid, block, wave);
            assert!(
                expect.maps.iter().all(|m| !m.entries.is_empty()),
                "a map recorded nothing"
            );
            assert_eq!(got, expect, "{file}");
            // Mutations: an exit snippet that runs for every lane of each iteration, a
            // back-edge snippet that runs when the uniform branch falls through.
            let narrow = if wave == 64 {
                "\ts_and_b64 exec, exec, s[6:7]"
            } else {
                "\ts_and_b32 exec_lo, exec_lo, s6"
            };
            let select = if wave == 64 {
                "\ts_cselect_b64 exec, exec, 0"
            } else {
                "\ts_cselect_b32 exec_lo, exec_lo, 0"
            };
            for from in [narrow, select] {
                let mutate = |t: &str| {
                    assert!(t.contains(from), "`{from}` in the instrumented text");
                    t.replace(from, "\ts_nop 0")
                };
                let got = emulate(&asm, "volume_index", &program, grid, block, &mutate, true);
                assert!(got != expect, "{file}: `{from}` dropped went unnoticed");
            }
        }
    }

    /// Long branches (decision 0032) run as the branches they replace: both loops' back
    /// edges made long, the instrumented body leaves what the interpreter computes, with
    /// no hazard added, and the verifier accepts it — and rejects a long branch whose
    /// complement, target or registers are wrong.
    #[test]
    fn long_branches_run_as_the_branches_they_replace() {
        for (file, wave, block) in REWRITE_TARGETS {
            let asm = with_loops(file, "volume_index", wave);
            let m = parse(&asm).expect("parses");
            let k = m.kernel("volume_index").expect("kernel");
            let long_branches: std::collections::BTreeSet<u32> = k
                .body
                .clone()
                .filter(|&i| {
                    m.instr(i)
                        .is_some_and(|x| x.mnemonic.starts_with("s_cbranch"))
                })
                .map(|i| m.stmts[i].line)
                .collect();
            assert_eq!(long_branches.len(), 2, "{file}: the loops' back edges");
            let options = crate::Options {
                long_branches,
                ..crate::Options::default()
            };
            let program = warptrace_lang::compile(LOOP_PROGRAM, "t.wt").expect("compiles");
            let program = warptrace_verifier::verify_program(&program).expect("verifies");
            let grid = [2, 1, 1];
            let same = |t: &str| t.to_owned();
            let got = emulate_with(
                &asm,
                "volume_index",
                &program,
                grid,
                block,
                &same,
                true,
                &options,
            );
            let expect = loops_expected(&program, "volume_index", grid, block, wave);
            assert_eq!(got, expect, "{file}");
            let out = crate::instrument_with(&asm, &program, &options).expect("instruments");
            assert_eq!(out.asm.matches("s_setpc_b64").count(), 2, "{file}");
            assert_eq!(
                crate::added_hazards(&asm, &out.asm).expect("parses"),
                [],
                "{file}"
            );
            let verify = |t: &str| {
                crate::verify::verify_mutant(&asm, &out, t, "volume_index").expect("parses")
            };
            assert!(verify(&out.asm).is_ok(), "{file}: {:?}", verify(&out.asm));
            // The scalar temporary and the pair: the long branches' registers.
            // The long branches' pair and scalar: `s_cselect_b32 T, -1, 0` then
            // `s_getpc_b64 PC`.
            let (pc, t) = {
                let at = out.asm.find("\ts_getpc_b64 ").expect("getpc");
                let pc = out.asm[at + 13..].lines().next().expect("line").to_owned();
                let save = out.asm[..at].lines().last().expect("the line before");
                let t = save.trim().strip_prefix("s_cselect_b32 ").expect("save");
                (pc, t.split(',').next().expect("t").to_owned())
            };
            let far = |t: &str| t.find("s_cbranch_scc0 .L__wt_far").expect("a complement");
            use warptrace_verifier::KernelRule;
            let complement = {
                let at = far(&out.asm);
                let rest = &out.asm[at + "s_cbranch_scc0".len()..];
                format!("{}s_cbranch_scc1{rest}", &out.asm[..at])
            };
            let (lo, hi) = (pc_lo(&pc), pc_hi(&pc));
            let kernel_pair = out
                .asm
                .replace(&pc, "s[4:5]")
                .replace(&format!("{lo}, {lo}"), "s4, s4")
                .replace(&format!("{hi}, {hi}"), "s5, s5");
            let mutants = [
                // The complement not complemented: the other branch.
                ("complement", complement, KernelRule::KernelPreserved),
                // Another target.
                (
                    "target",
                    out.asm.replace("(.LBBt_2-", "(.LBBt_1-"),
                    KernelRule::KernelPreserved,
                ),
                // A kernel pair for the address.
                ("registers", kernel_pair, KernelRule::RegisterIsolation),
                // `scc` not restored: no long branch, an inserted `s_setpc_b64` leaving.
                (
                    "restore",
                    out.asm.replace(&format!("s_cmp_lg_u32 {t}, 0"), "s_nop 0"),
                    KernelRule::ControlFlow,
                ),
            ];
            for (what, text, rule) in mutants {
                assert_ne!(text, out.asm, "{file}: the {what} mutant changes nothing");
                let found = verify(&text).expect_err(what).0;
                assert!(
                    found.iter().any(|v| v.rule == rule),
                    "{file}: the {what} mutant: {found:?}"
                );
            }
        }
    }

    /// The low SGPR of pair `s[a:b]`, as `sa`.
    fn pc_lo(pair: &str) -> String {
        let a = pair.trim_start_matches("s[").split(':').next().expect("a");
        format!("s{a}")
    }

    /// The high SGPR of pair `s[a:b]`, as `sb`.
    fn pc_hi(pair: &str) -> String {
        let b = pair.split(':').nth(1).expect("b").trim_end_matches(']');
        format!("s{b}")
    }

    /// The names a wave's code is written with.
    struct Names {
        /// The suffix of lane-mask operations (`b64`, `b32`).
        mask: &'static str,
        /// `exec` (`exec_lo` in wave32).
        exec: &'static str,
        /// `vcc` (`vcc_lo` in wave32).
        vcc: &'static str,
        /// The 32-bit vector add.
        add: &'static str,
    }

    impl Names {
        fn of(wave: u32) -> Names {
            if wave == 64 {
                Names {
                    mask: "b64",
                    exec: "exec",
                    vcc: "vcc",
                    add: "v_add_u32_e32",
                }
            } else {
                Names {
                    mask: "b32",
                    exec: "exec_lo",
                    vcc: "vcc_lo",
                    add: "v_add_nc_u32_e32",
                }
            }
        }

        /// A lane mask in the SGPRs from `first`: `s[6:7]` in wave64, `s6` in wave32.
        fn sgprs(wave: u32, first: u32) -> String {
            if wave == 64 {
                format!("s[{first}:{}]", first + 1)
            } else {
                format!("s{first}")
            }
        }
    }

    /// Kernel `kernel` of `file` with its body up to `s_endpgm` replaced by `template`
    /// after a `.file 9 "/src" "t.hip"` (for its `.loc 9 LINE 0`s), with the names of a
    /// wave of `wave` lanes put in: `{mask}`, `{exec}`, `{vcc}`, `{add}` ([`Names`]),
    /// `{s6}` and `{s8}` the lane masks in the SGPRs from 6 and 8.
    fn wave_body(file: &str, kernel: &str, wave: u32, template: &str) -> String {
        let n = Names::of(wave);
        let body = template
            .replace("{mask}", n.mask)
            .replace("{exec}", n.exec)
            .replace("{vcc}", n.vcc)
            .replace("{add}", n.add)
            .replace("{s6}", &Names::sgprs(wave, 6))
            .replace("{s8}", &Names::sgprs(wave, 8));
        with_body(
            file,
            kernel,
            &format!("\t.file 9 \"/src\" \"t.hip\"\n{body}"),
        )
    }

    /// A kernel of `file` whose body is [`with_loops`]' masked loop with source lines: line
    /// 1 before it, line 2 its body (header to latch), line 3 after it.
    fn with_region(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_and_b32_e32 v1, 3, v0\n\
             \tv_mov_b32_e32 v2, 0\n\
             \ts_mov_{mask} {s6}, 0\n\
             .LBBt_1:\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v2\n\
             \tv_cmp_gt_u32_e64 {s8}, v2, v1\n\
             \ts_or_{mask} {s6}, {s8}, {s6}\n\
             \ts_andn2_{mask} {exec}, {exec}, {s6}\n\
             \ts_cbranch_execnz .LBBt_1\n\
             \t.loc 9 3 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \ts_mov_b32 s10, 0\n",
        )
    }

    /// A region of the lines of a masked loop's body (`region:…:t.hip:2-2`): the region
    /// is one iteration of its holding loop (decision 0017), so each lane enters and
    /// leaves it once an iteration — the exit before the latch takes the leaving lanes
    /// out of `exec` — as the interpreter runs the two events an iteration (wave64 and
    /// wave32, partial waves). Placed after the `s_andn2 exec` (where the region's sites
    /// put it on PTX: before the branch), the exit misses each lane's last iteration. A
    /// region around the whole loop, inside which `exec` changes, is `Unsupported`.
    #[test]
    fn region_ends_run_for_each_lane_around_a_masked_loop_iteration() {
        use warptrace_ir::interp::{Event, SiteEvent};
        use warptrace_ir::RegionEnd;
        let src = "region:entry:t.hip:2-2 { @en[lane, tid.x & 3] = count(); } \
                   region:exit:t.hip:2-2 { @ex[lane] = count(); @v[tid.x & 3] = sum(pc + line); }";
        let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        for (file, wave, block) in REWRITE_TARGETS {
            let asm = with_region(file, "volume_index", wave);
            let grid = [2, 1, 1];
            let run = |mutate: &dyn Fn(&str) -> String| {
                emulate(&asm, "volume_index", &program, grid, block, mutate, true)
            };
            // Both ends report the region's place: the loop header's first instruction
            // (pc 3, line 2).
            let region = |end| {
                let site = SiteEvent::Region {
                    end,
                    file: "/src/t.hip".into(),
                    from: 2,
                    to: 2,
                };
                Event::at(3, site).with_line("/src/t.hip", 2)
            };
            let sim = SimKernel {
                isa: warptrace_ir::Isa::Gcn,
                ..SimKernel::new("volume_index", move |t| {
                    (0..=(t.tid[0] & 3))
                        .flat_map(|_| [region(RegionEnd::Entry), region(RegionEnd::Exit)])
                        .collect()
                })
            };
            let expect = interpret(&program, &sim, grid, block, (wave, UNREAD_NSMID));
            assert!(
                expect.maps.iter().all(|m| !m.entries.is_empty()),
                "a map recorded nothing"
            );
            assert_eq!(run(&|t| t.to_owned()), expect, "{file}");
            let latch = if wave == 64 {
                "\ts_andn2_b64 exec, exec, s[6:7]\n"
            } else {
                "\ts_andn2_b32 exec_lo, exec_lo, s6\n"
            };
            let after_latch = |t: &str| {
                let marker = t.find("; __wt_snippet 2\n").expect("the exit snippet");
                let at = marker + t[marker..].find(latch).expect("the latch's s_andn2");
                format!(
                    "{}{latch}{}{}",
                    &t[..marker],
                    &t[marker..at],
                    &t[at + latch.len()..]
                )
            };
            assert!(
                run(&after_latch) != expect,
                "{file}: the exit after the latch's s_andn2 went unnoticed"
            );
            // Lines 1-3 hold the whole loop (decision 0028): its break mask, cleared before
            // it, takes in each lane as it leaves, and the `s_or exec` after it gives them
            // all back — each lane enters and leaves once. The exit before that `s_or`
            // runs for no lane: noticed.
            let (whole, expect) = region_run("1-3", (0, 1), |_| true, grid, block, wave);
            let run = |mutate: &dyn Fn(&str) -> String| {
                emulate(&asm, "volume_index", &whole, grid, block, mutate, true)
            };
            assert_eq!(run(&|t| t.to_owned()), expect, "{file} 1-3");
            let Names { mask, exec, .. } = Names::of(wave);
            let brk = Names::sgprs(wave, 6);
            let restore = format!("\ts_or_{mask} {exec}, {exec}, {brk}\n");
            // The restore moved after the exit snippet (before the kernel's `s_endpgm`).
            let exit_first = |t: &str| {
                let at = t.find(&restore).expect("the loop's restore");
                let t = format!("{}{}", &t[..at], &t[at + restore.len()..]);
                let marker = t.find("; __wt_snippet 2\n").expect("the exit snippet");
                let end = marker + t[marker..].find("\ts_endpgm").expect("s_endpgm");
                format!("{}{restore}{}", &t[..end], &t[end..])
            };
            assert!(
                run(&exit_first) != expect,
                "{file}: the exit before the loop's restore went unnoticed"
            );
            // A break mask that takes in lanes no compare gave: the restore could bring
            // back lanes that never entered. `Unsupported`.
            let done = Names::sgprs(wave, 8);
            let foreign = Names::sgprs(wave, 10);
            let taken_in = format!("\ts_or_{mask} {brk}, {done}, {brk}\n");
            let wrong = asm.replace(&taken_in, &taken_in.replace(&done, &foreign));
            assert_ne!(wrong, asm);
            let out = instrument(&wrong, &whole).expect("instruments");
            let k = out.kernels.iter().find(|k| k.name == "volume_index");
            assert!(
                k.is_some_and(|k| matches!(&k.status, KernelStatus::Unsupported { what }
                    if what.contains("writes the break mask of the masked loop"))),
                "{file}: {:?}",
                k.map(|k| &k.status)
            );
        }
    }

    /// The region probe of `t.hip:lines` (both ends counting per lane, the exit summing
    /// `pc + line`), verified, and what the interpreter makes of it on a `grid` of `block`s
    /// when each thread that `enters` picks (by `tid.x`) enters and leaves the region once,
    /// both ends at `place` (`pc`, `line`).
    fn region_run(
        lines: &str,
        place: (u32, u32),
        enters: fn(u32) -> bool,
        grid: [u32; 3],
        block: [u32; 3],
        wave: u32,
    ) -> (warptrace_verifier::VerifiedProgram, MapStore) {
        use warptrace_ir::interp::{Event, SiteEvent};
        use warptrace_ir::RegionEnd;
        let src = format!(
            "region:entry:t.hip:{lines} {{ @en[lane, tid.x & 3] = count(); }} \
             region:exit:t.hip:{lines} {{ @ex[lane] = count(); @v[tid.x & 3] = sum(pc + line); }}"
        );
        let program = warptrace_lang::compile(&src, "t.wt").expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        let (from, to) = lines.split_once('-').expect("a range");
        let (from, to) = (from.parse().expect("line"), to.parse().expect("line"));
        let region = move |end| {
            let site = SiteEvent::Region {
                end,
                file: "/src/t.hip".into(),
                from,
                to,
            };
            Event::at(place.0, site).with_line("/src/t.hip", place.1)
        };
        let sim = SimKernel {
            isa: warptrace_ir::Isa::Gcn,
            ..SimKernel::new("volume_index", move |t| {
                if enters(t.tid[0]) {
                    vec![region(RegionEnd::Entry), region(RegionEnd::Exit)]
                } else {
                    Vec::new()
                }
            })
        };
        let expect = interpret(&program, &sim, grid, block, (wave, UNREAD_NSMID));
        (program, expect)
    }

    /// A kernel of `file` whose body is an `if` holding a masked loop, as clang lowers a
    /// guarded `for`: line 1 computes the guard (`tid.x & 3 != 0`) and opens the `if`
    /// (`s_and_saveexec`, `s_cbranch_execz` to the join), line 2 is the loop (`tid.x & 3`
    /// rounds; its latch's `s_andn2 exec` narrows the `if`'s lanes), the join (line 0)
    /// or-s the saved lanes back, line 3 follows.
    fn with_if(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_and_b32_e32 v1, 3, v0\n\
             \tv_mov_b32_e32 v2, 0\n\
             \tv_cmp_ne_u32_e64 {vcc}, 0, v1\n\
             \ts_and_saveexec_{mask} {s6}, {vcc}\n\
             \ts_cbranch_execz .LBBt_3\n\
             \ts_mov_{mask} {s8}, 0\n\
             .LBBt_2:\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v2\n\
             \tv_cmp_ge_u32_e64 {vcc}, v2, v1\n\
             \ts_or_{mask} {s8}, {vcc}, {s8}\n\
             \ts_andn2_{mask} {exec}, {exec}, {s8}\n\
             \ts_cbranch_execnz .LBBt_2\n\
             .LBBt_3:\n\
             \t.loc 9 0 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \t.loc 9 3 0\n\
             \ts_mov_b32 s10, 0\n",
        )
    }

    /// [`with_if`] as clang emits a short `if`: no `s_cbranch_execz` around its body (line
    /// 2, one instruction), nor a loop.
    fn with_short_if(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_and_b32_e32 v1, 3, v0\n\
             \tv_cmp_ne_u32_e64 {vcc}, 0, v1\n\
             \ts_and_saveexec_{mask} {s6}, {vcc}\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v1\n\
             \t.loc 9 0 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \t.loc 9 3 0\n\
             \ts_mov_b32 s10, 0\n",
        )
    }

    /// [`with_short_if`] with the `if`'s body laid out after its join, as LLVM's block
    /// placement may put it: `s_cbranch_execnz` to the body, which branches back.
    fn with_outlined_if(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_and_b32_e32 v1, 3, v0\n\
             \tv_mov_b32_e32 v2, 0\n\
             \tv_cmp_ne_u32_e64 {vcc}, 0, v1\n\
             \ts_and_saveexec_{mask} {s6}, {vcc}\n\
             \ts_cbranch_execnz .LBBt_4\n\
             .LBBt_3:\n\
             \t.loc 9 0 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \t.loc 9 3 0\n\
             \ts_mov_b32 s10, 0\n\
             \ts_branch .LBBt_5\n\
             .LBBt_4:\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v1\n\
             \ts_branch .LBBt_3\n\
             .LBBt_5:\n\
             \t.loc 9 4 0\n",
        )
    }

    /// The kernels the tests that rewrite a body (loops, long branches, regions) run, their
    /// wave and a block of partial waves: gfx942 (wave64) and gfx1100 (wave32).
    const REWRITE_TARGETS: [(&str, u32, [u32; 3]); 2] = [
        ("hip_grid_gfx942.s", 64, [100, 1, 1]),
        ("hip_grid_gfx1100.s", 32, [45, 1, 1]),
    ];

    /// What instrumenting `volume_index` of `asm` with a region of `lines` of `t.hip` (both
    /// ends counting) makes of it.
    fn region_status(asm: &str, lines: &str) -> KernelStatus {
        let src = format!(
            "region:entry:t.hip:{lines} {{ @en = count(); }} \
             region:exit:t.hip:{lines} {{ @ex = count(); }}"
        );
        let program = warptrace_lang::compile(&src, "t.wt").expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        let out = instrument(asm, &program).expect("instruments");
        let k = out.kernels.into_iter().find(|k| k.name == "volume_index");
        k.expect("kernel").status
    }

    /// A kernel of `file` whose body is an early return, as clang lowers `if (tid.x & 3 ==
    /// 0) return;` or a guard around the kernel's last statements: line 1 opens the `if`
    /// (`s_and_saveexec`, `s_cbranch_execz` to the `s_endpgm`), lines 2 and 3 are its body,
    /// which reuses the saved mask's SGPRs (the lanes left out never come back), line 4 the
    /// `s_endpgm`.
    fn with_early_return(file: &str, kernel: &str, wave: u32) -> String {
        let tail = "\t.loc 9 3 0\n\
                    \ts_mov_b32 s10, 0\n\
                    .LBBt_9:\n\
                    \t.loc 9 4 0\n";
        wave_body(file, kernel, wave, &format!("{EARLY_RETURN}{tail}"))
    }

    /// Lines 1 and 2 of [`with_early_return`]: the `if` that runs to `.LBBt_9` and the
    /// start of its body, which overwrites the saved mask.
    const EARLY_RETURN: &str = "\t.loc 9 1 0\n\
                                \tv_and_b32_e32 v1, 3, v0\n\
                                \tv_cmp_ne_u32_e64 {vcc}, 0, v1\n\
                                \ts_and_saveexec_{mask} {s6}, {vcc}\n\
                                \ts_cbranch_execz .LBBt_9\n\
                                \t.loc 9 2 0\n\
                                \t{add} v2, 1, v1\n\
                                \ts_mov_{mask} {s6}, 0\n";

    /// [`with_early_return`] with an `if` inside the early return's that runs to the
    /// `s_endpgm` too, as clang lowers one whose saved `exec` nothing would read: line 3
    /// narrows `exec` to the lanes with `tid.x & 3 != 1` (`s_and exec, exec, vcc`, then
    /// `s_cbranch_execz` to the `s_endpgm`), line 4 is its body, line 5 the `s_endpgm`.
    fn with_nested_return(file: &str, kernel: &str, wave: u32) -> String {
        let tail = "\t.loc 9 3 0\n\
                    \tv_cmp_ne_u32_e64 {vcc}, 1, v1\n\
                    \ts_and_{mask} {exec}, {exec}, {vcc}\n\
                    \ts_cbranch_execz .LBBt_9\n\
                    \t.loc 9 4 0\n\
                    \ts_mov_b32 s10, 0\n\
                    .LBBt_9:\n\
                    \t.loc 9 5 0\n";
        wave_body(file, kernel, wave, &format!("{EARLY_RETURN}{tail}"))
    }

    /// Regions around an early return ([`with_early_return`], `returning_if`): 1-1, 1-2,
    /// 1-3, 1-4 (every lane enters; the lanes the `if` leaves out leave as it opens, the others
    /// at the region's exit), 2-3 (the `if`'s lanes); and around one inside it that
    /// narrows `exec` without saving it ([`with_nested_return`]): 1-5, 1-3, 2-4, 3-3, 3-4
    /// (the lanes it leaves out leave right before it narrows) and 4-4 (the lanes it
    /// keeps). Each runs its entry and exit once for every lane that enters, as the
    /// interpreter does (wave64 and wave32, partial waves; `pc` and `line` of the region's
    /// place). An exit for the lanes left out run for `exec` (its narrowing dropped) is
    /// noticed; the early return's `if` inside another is `Unsupported`.
    #[test]
    fn regions_around_an_early_return_run_their_ends_for_every_lane() {
        for (file, wave, block) in REWRITE_TARGETS {
            let Names {
                mask, exec, vcc, ..
            } = Names::of(wave);
            let asm = with_early_return(file, "volume_index", wave);
            let saved = Names::sgprs(wave, 6);
            let grid = [2, 1, 1];
            // The narrowings of the exits of the lanes each `if` leaves out.
            let narrowings = [
                format!("\ts_andn2_{mask} {exec}, {saved}, {exec}\n"),
                format!("\ts_andn2_{mask} {exec}, {exec}, {vcc}\n"),
            ];
            // (lines, the region's place — `pc` and line —, whether a lane enters, whether
            // each `if` leaves out lanes that entered). 2-4 and 3-4 start at the early
            // return's `s_cbranch_execz` (pc 3, line 1): the end of the block that
            // dominates the `s_endpgm` they both reach.
            type Case = (&'static str, u32, u32, fn(u32) -> bool, [bool; 2]);
            let early: [Case; 5] = [
                ("1-1", 0, 1, |_| true, [true, false]),
                ("1-2", 0, 1, |_| true, [true, false]),
                ("1-3", 0, 1, |_| true, [true, false]),
                ("1-4", 0, 1, |_| true, [true, false]),
                ("2-3", 4, 2, |t| t & 3 != 0, [false, false]),
            ];
            let inner: [Case; 6] = [
                ("1-5", 0, 1, |_| true, [true, true]),
                ("1-3", 0, 1, |_| true, [true, true]),
                ("2-4", 3, 1, |t| t & 3 != 0, [false, true]),
                ("3-3", 6, 3, |t| t & 3 != 0, [false, true]),
                ("3-4", 3, 1, |t| t & 3 != 0, [false, true]),
                ("4-4", 9, 4, |t| t & 3 > 1, [false, false]),
            ];
            let nested_asm = with_nested_return(file, "volume_index", wave);
            for (asm, cases) in [(&asm, &early[..]), (&nested_asm, &inner[..])] {
                for &(lines, pc, line, enters, leaves) in cases {
                    let (program, expect) =
                        region_run(lines, (pc, line), enters, grid, block, wave);
                    let run = |mutate: &dyn Fn(&str) -> String| {
                        emulate(asm, "volume_index", &program, grid, block, mutate, true)
                    };
                    let what = format!("{file} {lines}");
                    let instrumented = instrument(asm, &program).expect("instruments").asm;
                    assert_eq!(run(&|t| t.to_owned()), expect, "{what}");
                    for (narrowing, leaves) in narrowings.iter().zip(leaves) {
                        assert_eq!(
                            instrumented.contains(narrowing),
                            leaves,
                            "{what}: `{}` for the lanes left out",
                            narrowing.trim()
                        );
                        let unnarrowed = |t: &str| t.replacen(narrowing, "", 1);
                        assert!(
                            !leaves || run(&unnarrowed) != expect,
                            "{what}: the exit of the lanes left out run for `exec` went \
                             unnoticed"
                        );
                    }
                }
            }
            // The same `if` inside another: the lanes it leaves out would return from the
            // middle of the outer one.
            let outer = Names::sgprs(wave, 12);
            let nested = asm.replacen(
                "\t.loc 9 1 0\n",
                &format!("\t.loc 9 1 0\n\ts_and_saveexec_{mask} {outer}, {exec}\n"),
                1,
            );
            let status = region_status(&nested, "1-3");
            assert!(
                matches!(&status, KernelStatus::Unsupported { what }
                    if what.contains("runs to `s_endpgm`, is inside")),
                "{file}: {status:?}"
            );
        }
    }

    /// A kernel of `file` whose body is an early return of the lanes with `tid.x >= 40`
    /// (line 1: `s_and_saveexec`, then `s_cbranch_execz` to the `s_endpgm`): in a block of
    /// 100 work-items the waves past the first 40 lanes reach the `s_endpgm` through the
    /// branch with no lane in `exec`, the first wave with only its first 40.
    fn with_partial_return(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_cmp_gt_u32_e64 {vcc}, 40, v0\n\
             \ts_and_saveexec_{mask} {s6}, {vcc}\n\
             \ts_cbranch_execz .LBBt_9\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v0\n\
             .LBBt_9:\n\
             \t.loc 9 3 0\n",
        )
    }

    /// `kernel:exit` runs for every lane of the launch at the `s_endpgm`, however few are
    /// in `exec` there ([`with_partial_return`]): the lanes an early return left out, and
    /// a wave that reaches it with `exec` zero — the snippet sets `exec` to the launch's
    /// lanes, which the prologue saved. Each of the 200 work-items exits once, as the
    /// interpreter has it (wave64 and wave32); without that `exec` the left-out lanes and
    /// the empty waves are not counted, and the difference is noticed.
    #[test]
    fn kernel_exit_runs_for_the_lanes_left_out_and_for_waves_with_no_lane() {
        for (file, wave, _) in REWRITE_TARGETS {
            let Names { mask, exec, .. } = Names::of(wave);
            let asm = with_partial_return(file, "volume_index", wave);
            let src = "kernel:exit { @x[tid.x] = count(); @n = count(); }";
            let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
            let program = warptrace_verifier::verify_program(&program).expect("verifies");
            let (grid, block) = ([2, 1, 1], [100, 1, 1]);
            let mut sim = SimKernel::new("volume_index", |_| Vec::new());
            sim.isa = warptrace_ir::Isa::Gcn;
            let expect = interpret(&program, &sim, grid, block, (wave, UNREAD_NSMID));
            let run = |mutate: &dyn Fn(&str) -> String| {
                emulate(&asm, "volume_index", &program, grid, block, mutate, true)
            };
            assert_eq!(run(&|t| t.to_owned()), expect, "{file}");
            assert_eq!(expect.maps[0].entries.len(), 100, "{file}");
            // The launch's lanes, as the prologue (before the first snippet) saves them.
            let out = instrument(&asm, &program).expect("instruments").asm;
            let body = &out[out.find("\nvolume_index:").expect("the kernel")..];
            let prologue = &body[..body.find("; __wt_snippet 1").expect("the exit snippet")];
            let save = prologue
                .lines()
                .find(|l| l.trim_end().ends_with(&format!(", {exec}")))
                .expect("the launch's exec saved");
            let launch = save.trim().split([' ', ',']).nth(1).expect("its register");
            let restore = format!("\ts_mov_{mask} {exec}, {launch}\n");
            assert!(out.contains(&restore), "{file}: {restore}");
            let without = |t: &str| t.replacen(&restore, "", 1);
            assert!(
                run(&without) != expect,
                "{file}: an exit snippet without the launch's lanes went unnoticed"
            );
        }
    }

    /// A kernel of `file` whose body is an `if`/`else` as clang 19 lowers one, tail
    /// duplication included: line 1 opens the `if` (`tid.x & 3 != 0`) and makes its mask
    /// the `else` lanes (`s_xor`), the `then` (line 2) and the `else` (line 4) are laid out
    /// after the code that switches to the `else` (`s_andn2_saveexec`) and joins (line 3,
    /// twice: after the `else` and on the path with no `else` lane).
    fn with_if_else(file: &str, kernel: &str, wave: u32) -> String {
        wave_body(
            file,
            kernel,
            wave,
            "\t.loc 9 1 0\n\
             \tv_and_b32_e32 v1, 3, v0\n\
             \tv_mov_b32_e32 v2, 0\n\
             \tv_cmp_ne_u32_e64 {vcc}, 0, v1\n\
             \ts_and_saveexec_{mask} {s6}, {vcc}\n\
             \ts_xor_{mask} {s6}, {exec}, {s6}\n\
             \ts_cbranch_execnz .LBBt_3\n\
             .LBBt_1:\n\
             \ts_andn2_saveexec_{mask} {s6}, {s6}\n\
             \ts_cbranch_execnz .LBBt_4\n\
             .LBBt_2:\n\
             \t.loc 9 0 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \t.loc 9 3 0\n\
             \ts_mov_b32 s10, 0\n\
             \ts_branch .LBBt_5\n\
             .LBBt_3:\n\
             \t.loc 9 2 0\n\
             \t{add} v2, 1, v1\n\
             \t.loc 9 0 0\n\
             \ts_andn2_saveexec_{mask} {s6}, {s6}\n\
             \ts_cbranch_execz .LBBt_2\n\
             .LBBt_4:\n\
             \t.loc 9 4 0\n\
             \t{add} v2, 2, v1\n\
             \t.loc 9 0 0\n\
             \ts_or_{mask} {exec}, {exec}, {s6}\n\
             \t.loc 9 3 0\n\
             \ts_mov_b32 s10, 0\n\
             .LBBt_5:\n\
             \t.loc 9 5 0\n",
        )
    }

    /// Regions around an `if`/`else` ([`with_if_else`], decision 0028): lines 1-3 and 1-4
    /// (the whole `if`) run their ends once for every lane, 2-2 (the `then`) for the
    /// `tid.x & 3 != 0` lanes, 4-4 (the `else`) for the others, as the interpreter does
    /// (wave64 and wave32). A `then` that narrows `exec` without giving it back before the
    /// `else`, or an `else` that does before the join, would leave lanes out of the join:
    /// a region around it is `Unsupported`.
    #[test]
    fn regions_around_an_if_else_run_their_ends_for_the_lanes_of_each_part() {
        for (file, wave, block) in REWRITE_TARGETS {
            let asm = with_if_else(file, "volume_index", wave);
            let grid = [2, 1, 1];
            // (lines, `pc` and line of the region's place, the lanes that enter).
            type Case = (&'static str, u32, u32, fn(u32) -> bool);
            let cases: [Case; 4] = [
                ("1-3", 0, 1, |_| true),
                ("1-4", 0, 1, |_| true),
                ("2-2", 11, 2, |t| t & 3 != 0),
                ("4-4", 14, 4, |t| t & 3 == 0),
            ];
            for (lines, pc, line, enters) in cases {
                let (program, expect) = region_run(lines, (pc, line), enters, grid, block, wave);
                let got = emulate(
                    &asm,
                    "volume_index",
                    &program,
                    grid,
                    block,
                    &|t| t.to_owned(),
                    true,
                );
                assert_eq!(got, expect, "{file} {lines}");
            }
            // The `then` narrowed without giving the lanes back: the switch to the `else`
            // would save fewer `then` lanes. The `else` narrowed: its join gives back
            // fewer lanes than entered.
            let Names { mask, exec, .. } = Names::of(wave);
            for (part, why) in [
                ("\t.loc 9 2 0\n", "does not give it back before its `else`"),
                ("\t.loc 9 4 0\n", "may run for fewer lanes than entered"),
            ] {
                let narrowed = asm.replacen(
                    part,
                    &format!("{part}\ts_and_{mask} {exec}, {exec}, s10\n"),
                    1,
                );
                let status = region_status(&narrowed, "1-4");
                assert!(
                    matches!(&status, KernelStatus::Unsupported { what } if what.contains(why)),
                    "{file}: {status:?}"
                );
            }
        }
    }

    /// Regions around an `if` (decision 0028). Of [`with_if`]: lines 1-2 (the guard, the
    /// `if` and its loop), 1-3 and 2-3 (whose entry, at the end of the guard's block, is
    /// moved before the `s_and_saveexec`); of [`with_short_if`] and [`with_outlined_if`]
    /// (the body after the join, reached by branches): 1-2 (whose exit, inside the `if`,
    /// is moved after the join) and 2-2 (the `if`'s body, for its lanes). Each runs its
    /// entry and exit once for every lane that enters, as the interpreter does (wave64
    /// and wave32, partial waves; `pc` and `line` of the region's place). The exit of
    /// [`with_if`]'s 1-2 left before the join runs for no lane, the entry of its 2-3 left
    /// after the `s_and_saveexec` for the `if`'s lanes only: both noticed. The loop
    /// without the `if` and with its break mask not cleared, a branch into the `if` from
    /// before it, and an `if` whose join restores another mask are `Unsupported`.
    #[test]
    fn regions_around_an_if_run_their_ends_for_every_lane() {
        use warptrace_ir::RegionEnd;
        type Kernel = fn(&str, &str, u32) -> String;
        type Case = (
            Kernel,
            &'static str,
            u32,
            u32,
            fn(u32) -> bool,
            Option<RegionEnd>,
        );
        for (file, wave, block) in REWRITE_TARGETS {
            let Names {
                mask, exec, vcc, ..
            } = Names::of(wave);
            let saved = Names::sgprs(wave, 6);
            let join = format!("\ts_or_{mask} {exec}, {exec}, {saved}\n");
            let open = format!("\ts_and_saveexec_{mask} {saved}, {vcc}\n");
            let grid = [2, 1, 1];
            // (kernel, lines, the place both ends report — `pc` and line of the
            // instruction the region's structure put the entry at —, whether every lane
            // enters or only the `if`'s, the end to put one instruction off).
            let cases: [Case; 7] = [
                (with_if, "1-2", 0, 1, |_| true, Some(RegionEnd::Exit)),
                (with_if, "1-3", 0, 1, |_| true, None),
                (with_if, "2-3", 4, 1, |_| true, Some(RegionEnd::Entry)),
                (with_short_if, "1-2", 0, 1, |_| true, None),
                (with_short_if, "2-2", 3, 2, |t| t & 3 != 0, None),
                (with_outlined_if, "1-2", 0, 1, |_| true, None),
                (with_outlined_if, "2-2", 8, 2, |t| t & 3 != 0, None),
            ];
            for (kernel, lines, pc, line, enters, off) in cases {
                let asm = kernel(file, "volume_index", wave);
                let (program, expect) = region_run(lines, (pc, line), enters, grid, block, wave);
                let run = |mutate: &dyn Fn(&str) -> String| {
                    emulate(&asm, "volume_index", &program, grid, block, mutate, true)
                };
                let what = format!(
                    "{file} {lines} ({} lanes)",
                    if enters(0) { "all" } else { "if" }
                );
                assert_eq!(run(&|t| t.to_owned()), expect, "{what}");
                // The same ends, one instruction off: the exit of 1-2 before the join (the
                // join moved after the next instruction), the entry of 2-3 after the `if`
                // opens.
                let next = "\ts_mov_b32 s10, 0\n";
                let mutant: Box<dyn Fn(&str) -> String> = match off {
                    None => continue,
                    Some(RegionEnd::Entry) => Box::new(|t: &str| {
                        let at = t.find(&open).expect("the s_and_saveexec");
                        let t = format!("{}{}", &t[..at], &t[at + open.len()..]);
                        let entry = t.find("; __wt_snippet 1\n").expect("the entry");
                        format!("{}{open}{}", &t[..entry], &t[entry..])
                    }),
                    Some(RegionEnd::Exit) => Box::new(|t: &str| {
                        let at = t.find(&join).expect("the join");
                        let t = format!("{}{}", &t[..at], &t[at + join.len()..]);
                        let after = t.find(next).expect("line 3") + next.len();
                        format!("{}{join}{}", &t[..after], &t[after..])
                    }),
                };
                assert!(
                    run(&*mutant) != expect,
                    "{what}: an end one instruction off went unnoticed"
                );
            }
            let asm = with_if(file, "volume_index", wave);
            // Without the `if` (its mask saved by an `s_mov`) and with the loop's break
            // mask not cleared before it, the latch narrows `exec` between the region's
            // ends, outside any `if` or loop the region follows.
            let brk = Names::sgprs(wave, 8);
            let unguarded = asm
                .replace(&open, &format!("\ts_mov_{mask} {saved}, {exec}\n"))
                .replace(
                    &format!("\ts_mov_{mask} {brk}, 0\n"),
                    &format!("\ts_mov_{mask} {brk}, {saved}\n"),
                );
            let loop_only = region_status(&unguarded, "1-3");
            assert!(
                matches!(&loop_only, KernelStatus::Unsupported { what }
                    if what.contains("the lanes change") && what.contains("s_andn2")),
                "{file}: {loop_only:?}"
            );
            // A branch from before the `if` into its loop: lanes that did not pass the
            // `s_and_saveexec` would meet the join, whose mask is then not known.
            let into = asm.replace(&open, &format!("\ts_cbranch_scc1 .LBBt_2\n{open}"));
            let jumps = region_status(&into, "1-3");
            assert!(
                matches!(&jumps, KernelStatus::Unsupported { what }
                    if what.contains("the lanes change")),
                "{file}: {jumps:?}"
            );
            let other = Names::sgprs(wave, 8);
            let wrong_join = asm.replace(&join, &join.replace(&saved, &other));
            let wrong = region_status(&wrong_join, "1-3");
            assert!(
                matches!(&wrong, KernelStatus::Unsupported { what }
                    if what.contains("the lanes change") && what.contains(&format!("{exec}, {other}"))),
                "{file}: {wrong:?}"
            );
        }
    }

    /// A loop edge taken when `exec` is zero after an `exec` update that is not the masked
    /// latch's `s_andn2` leaves no record of its lanes: the kernel is `Unsupported`, with
    /// the edge named.
    #[test]
    fn loop_edges_of_unknown_lanes_are_unsupported() {
        let asm = with_loops("hip_grid_gfx942.s", "volume_index", 64).replace(
            "s_andn2_b64 exec, exec, s[6:7]",
            "s_and_b64 exec, exec, s[8:9]",
        );
        let status = |src: &str| {
            let program = warptrace_lang::compile(src, "t.wt").expect("compiles");
            let program = warptrace_verifier::verify_program(&program).expect("verifies");
            let out = instrument(&asm, &program).expect("instruments");
            let k = out.kernels.into_iter().find(|k| k.name == "volume_index");
            k.expect("kernel").status
        };
        let exit = status("loop:exit { @e = count(); }");
        assert!(
            matches!(&exit, KernelStatus::Unsupported { what }
                if what.contains("loop:exit at `s_cbranch_execnz .LBBt_1`")
                    && what.contains("`exec` is zero")),
            "{exit:?}"
        );
        // The back edge (taken while lanes remain) is placed.
        let back = status("loop:backedge { @b = count(); }");
        assert!(
            matches!(back, KernelStatus::Instrumented { .. }),
            "{back:?}"
        );
    }

    /// The base address of [`with_access`]' loads: `s[6:7]`, so that the lanes' 64-bit
    /// addresses cross 2^32.
    const ACCESS_BASE: u64 = 0x3_ffff_ff00;

    /// A lane address pattern: its name, the instructions, the function of `tid.x`.
    type Pattern = (&'static str, String, fn(u64) -> u64);

    /// Lane address patterns: instructions that compute `v1` (the offset from
    /// [`ACCESS_BASE`]) from `v0` (`tid.x`, a one-dimensional block), and the same function.
    fn access_patterns(wave: u32) -> Vec<Pattern> {
        let (add, sub) = if wave == 64 {
            ("v_add_u32_e32", "v_sub_u32_e32")
        } else {
            ("v_add_nc_u32_e32", "v_sub_nc_u32_e32")
        };
        vec![
            ("linear", "\tv_lshlrev_b32_e32 v1, 2, v0\n".into(), |t| {
                4 * t
            }),
            ("strided", "\tv_mul_lo_u32 v1, v0, 12\n".into(), |t| 12 * t),
            (
                "tile rows",
                format!(
                    "\tv_and_b32_e32 v1, 7, v0\n\tv_lshlrev_b32_e32 v1, 2, v1\n\
                     \tv_lshrrev_b32_e32 v4, 3, v0\n\tv_lshlrev_b32_e32 v4, 8, v4\n\
                     \t{add} v1, v1, v4\n"
                ),
                |t| (t & 7) * 4 + (t >> 3) * 256,
            ),
            (
                "gather",
                "\tv_mul_lo_u32 v1, v0, v0\n\tv_and_b32_e32 v1, 0x3fc, v1\n".into(),
                |t| (t * t) & 0x3fc,
            ),
            ("broadcast", "\tv_mov_b32_e32 v1, 0x40\n".into(), |_| 0x40),
            (
                "reversed",
                format!("\tv_lshlrev_b32_e32 v1, 2, v0\n\t{sub} v1, 0x400, v1\n"),
                |t| (0x400 - 4 * t) & 0xffff_ffff,
            ),
        ]
    }

    /// A kernel whose body is one `global_load_dword v3, v1, s[6:7]` by the lanes with
    /// `tid.x % 4 != 3`, `v1` computed by `address`; and the load's `pc`.
    fn with_access(file: &str, kernel: &str, wave: u32, address: &str) -> (String, u32) {
        let (mask, exec, m) = if wave == 64 {
            ("b64", "exec", "s[8:9]")
        } else {
            ("b32", "exec_lo", "s8")
        };
        let body = format!(
            "\ts_mov_b32 s6, 0x{:x}\n\ts_mov_b32 s7, 0x{:x}\n\
             \tv_and_b32_e32 v2, 3, v0\n\tv_cmp_ne_u32_e64 {m}, 3, v2\n\
             \ts_and_{mask} {exec}, {exec}, {m}\n{address}",
            ACCESS_BASE as u32,
            ACCESS_BASE >> 32
        );
        let pc = body.lines().count() as u32;
        let body = format!("{body}\tglobal_load_dword v3, v1, s[6:7]\n");
        (with_body(file, kernel, &body), pc)
    }

    /// What the IR interpreter makes of `program` on [`with_access`]' kernel.
    fn access_expected(
        program: &warptrace_verifier::VerifiedProgram,
        kernel: &str,
        (pc, offset): (u32, fn(u64) -> u64),
        block: [u32; 3],
        wave: u32,
    ) -> MapStore {
        let site = (pc, "global_load_dword");
        access_expected_at(
            program,
            kernel,
            site,
            move |x| ACCESS_BASE + offset(x),
            block,
            wave,
        )
    }

    /// What the IR interpreter makes of `program` on a kernel whose one access, the load
    /// `opcode` at `pc`, reaches `addr(tid.x)` in the lanes with `tid.x % 4 != 3`.
    fn access_expected_at(
        program: &warptrace_verifier::VerifiedProgram,
        kernel: &str,
        (pc, opcode): (u32, &str),
        addr: impl Fn(u64) -> u64 + Send + Sync + 'static,
        block: [u32; 3],
        wave: u32,
    ) -> MapStore {
        use warptrace_ir::interp::{Event, SiteEvent};
        use warptrace_ir::{MemOp, MemSpace};
        let opcode = opcode.to_owned();
        let sim = SimKernel {
            isa: warptrace_ir::Isa::Gcn,
            ..SimKernel::new(kernel, move |t| {
                let x = u64::from(t.tid[0]);
                if x % 4 == 3 {
                    return Vec::new();
                }
                vec![Event::at(
                    pc,
                    SiteEvent::Mem {
                        space: MemSpace::Global,
                        op: MemOp::Load,
                        opcode: opcode.clone(),
                        addr: addr(x),
                        bytes: 4,
                        stored: 0,
                        loaded: 0,
                    },
                )]
            })
        };
        interpret(program, &sim, [2, 1, 1], block, (wave, UNREAD_NSMID))
    }

    /// `sectors`, `wavefronts` and `run` over the lanes that execute the access — also
    /// when the probe reads them after a jump left it fewer lanes — and the site's
    /// `opcode`, `bytes`, `addr` and (after the load, of zeroed memory) `value`.
    const ACCESS_PROGRAM: &str = "mem:global:load { @r[lane, run] = count(); \
        @s[sectors, wavefronts] = count(); \
        if (lane % 4 == 1) { @e[lane, run, sectors, wavefronts] = count(); } } \
        mem:global:load { @o[opcode, bytes, addr] = count(); } \
        after mem:global:load { @v[value, bytes] = count(); }";

    /// The waterfall rounds of the warp-wide values leave what the interpreter's
    /// reference functions compute, over partial waves and a masked-off lane in four, for
    /// coalesced, strided, tiled, gathered, broadcast and reversed addresses (wave64 and
    /// wave32); mutations of the rounds are noticed.
    #[test]
    fn warp_access_values_are_the_reference_over_the_site_lanes() {
        let program = warptrace_lang::compile(ACCESS_PROGRAM, "t.wt").expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        for (file, wave, block) in REWRITE_TARGETS {
            let emulated = |asm: &str, mutate: &dyn Fn(&str) -> String| {
                emulate(
                    asm,
                    "volume_index",
                    &program,
                    [2, 1, 1],
                    block,
                    mutate,
                    true,
                )
            };
            let mut distinct = std::collections::BTreeSet::new();
            for (name, address, offset) in access_patterns(wave) {
                let (asm, pc) = with_access(file, "volume_index", wave, &address);
                let expect = access_expected(&program, "volume_index", (pc, offset), block, wave);
                assert!(
                    expect.maps.iter().all(|m| !m.entries.is_empty()),
                    "{file} {name}: a map recorded nothing"
                );
                let got = emulated(&asm, &|t| t.to_owned());
                assert_eq!(got, expect, "{file} {name}");
                distinct.insert(format!("{:?}", expect.maps[1].entries));
            }
            // The patterns differ in what they compute.
            assert_eq!(distinct.len(), access_patterns(wave).len(), "{file}");
            // Mutations: the rounds over the probe's lanes instead of the site's; a run
            // key of 8 bytes a lane; a sector of 64 bytes.
            let (asm, pc) = with_access(file, "volume_index", wave, &access_patterns(wave)[0].1);
            let expect = access_expected(
                &program,
                "volume_index",
                (pc, access_patterns(wave)[0].2),
                block,
                wave,
            );
            let exec = if wave == 64 { "exec" } else { "exec_lo" };
            // Replaces, in the line of the first match of `line`, `from` by `to`.
            let edit = |t: &str, line: &str, from: &str, to: &str| {
                let at = t.find(line);
                let at = at.unwrap_or_else(|| panic!("`{line}` in the instrumented text"));
                let end = at + t[at..].find('\n').expect("line end");
                let fixed = t[at..end].replacen(from, to, 1);
                assert_ne!(fixed, t[at..end], "`{from}` in `{}`", &t[at..end]);
                format!("{}{fixed}{}", &t[..at], &t[end..])
            };
            let switch = format!("\ts_mov_b{wave} {exec}, s");
            type Mutation<'a> = (&'a str, Box<dyn Fn(&str) -> String + 'a>);
            let mutations: [Mutation<'_>; 3] = [
                // The rounds over the probe's lanes, not the site's.
                (
                    "rounds over the probe's lanes",
                    Box::new(|t: &str| {
                        // Every read's (only those after the jump run for fewer lanes).
                        let needle = format!(", {exec}\n{switch}");
                        assert!(t.contains(&needle), "the switch to the site's lanes");
                        t.replace(&needle, &format!(", {exec}\n\ts_nop 0 ; s"))
                    }),
                ),
                (
                    "a run key of 8 bytes a lane",
                    Box::new(|t: &str| edit(t, "\tv_mul_lo_u32 ", ", 4", ", 8")),
                ),
                (
                    "64-byte sectors",
                    Box::new(|t: &str| edit(t, ", 5, v[", ", 5, ", ", 6, ")),
                ),
            ];
            for (what, mutate) in &mutations {
                let got = emulated(&asm, &**mutate);
                assert!(got != expect, "{file}: {what} went unnoticed");
            }
        }
    }

    /// A kernel whose body is one dword buffer load by the lanes with `tid.x % 4 != 3`,
    /// `buffer_load v3, v1, s[8:11], s5 offen offset:20` through the descriptor
    /// `(ACCESS_BASE, w1, -, w3)` (`w1` without the base's high bits), `v1` computed by
    /// `address`, the scalar offset [`SOFFSET`]; and the load's `pc`.
    fn with_buffer_access(
        file: &str,
        kernel: &str,
        wave: u32,
        address: &str,
        [w1, w3]: [u32; 2],
    ) -> (String, u32) {
        let (mask, exec, m, load) = if wave == 64 {
            ("b64", "exec", "s[6:7]", "buffer_load_dword")
        } else {
            ("b32", "exec_lo", "s6", "buffer_load_b32")
        };
        let body = format!(
            "\ts_mov_b32 s8, 0x{:x}\n\ts_mov_b32 s9, 0x{:x}\n\ts_mov_b32 s10, 0x7ffffffe\n\
             \ts_mov_b32 s11, 0x{w3:x}\n\ts_mov_b32 s5, 0x{SOFFSET:x}\n\
             \tv_and_b32_e32 v2, 3, v0\n\tv_cmp_ne_u32_e64 {m}, 3, v2\n\
             \ts_and_{mask} {exec}, {exec}, {m}\n{address}",
            ACCESS_BASE as u32,
            (ACCESS_BASE >> 32) as u32 | w1,
        );
        let pc = body.lines().count() as u32;
        let body = format!("{body}\t{load} v3, v1, s[8:11], s5 offen offset:20\n");
        (with_body(file, kernel, &body), pc)
    }

    /// The scalar offset of [`with_buffer_access`]' load.
    const SOFFSET: u32 = 0x40;

    /// `addr` and the warp-wide values of a buffer load are what the ISA's address gives
    /// (the emulator's [`Wave::buffer_address`], divisions as written) for a raw
    /// descriptor, one that adds the lane to the index scaled by a stride, and a swizzling
    /// one (gfx9's bit 31; gfx11's element-size code 3, 16 bytes), over partial waves
    /// (wave64 and wave32), for two lane address patterns each; the descriptor's fields
    /// read one bit off are noticed.
    #[test]
    fn buffer_access_addresses_are_the_isas() {
        let program = warptrace_lang::compile(ACCESS_PROGRAM, "t.wt").expect("compiles");
        let program = warptrace_verifier::verify_program(&program).expect("verifies");
        let descriptors: [(&str, [u32; 2]); 3] = [
            ("raw", [0, 0x27000]),
            ("lane times stride", [12 << 16, 0x27000 | 1 << 23]),
            (
                "swizzled",
                [0xc000_0000 | 16 << 16, 0x27000 | 1 << 23 | 1 << 21],
            ),
        ];
        for (file, wave, block, opcode) in [
            ("hip_grid_gfx942.s", 64, [100, 1, 1], "buffer_load_dword"),
            ("hip_grid_gfx1100.s", 32, [45, 1, 1], "buffer_load_b32"),
        ] {
            let gfx11 = file.contains("gfx1100");
            let mut distinct = std::collections::BTreeSet::new();
            for (what, [w1, w3]) in descriptors {
                for (name, address, offset) in access_patterns(wave).into_iter().take(2) {
                    let (asm, pc) =
                        with_buffer_access(file, "volume_index", wave, &address, [w1, w3]);
                    let words = [ACCESS_BASE as u32, (ACCESS_BASE >> 32) as u32 | w1, 0, w3];
                    let addr = move |x: u64| {
                        let lane = x % u64::from(wave);
                        let at = (lane, 0, offset(x) + 20);
                        Wave::buffer_address(words, u64::from(SOFFSET), at, gfx11)
                    };
                    let expect = access_expected_at(
                        &program,
                        "volume_index",
                        (pc, opcode),
                        addr,
                        block,
                        wave,
                    );
                    let got = emulate(
                        &asm,
                        "volume_index",
                        &program,
                        [2, 1, 1],
                        block,
                        &|t| t.to_owned(),
                        true,
                    );
                    assert_eq!(got, expect, "{file} {what} {name}");
                    distinct.insert(format!("{:?}", expect.maps[3].entries));
                    // A descriptor field read one bit off: the stride, the lane's
                    // enable, the base's high half, the index stride.
                    let mutants: &[(&str, &str, &str)] = match what {
                        "lane times stride" => &[
                            ("stride", ", 16, 14", ", 17, 14"),
                            ("ADD_TID_ENABLE", ", 23, 1", ", 22, 1"),
                            ("base", ", 0, 16\n", ", 0, 1\n"),
                        ],
                        "swizzled" => &[("INDEX_STRIDE", ", 21, 2", ", 22, 2")],
                        _ => &[],
                    };
                    for (field, from, to) in mutants.iter().filter(|_| name == "linear") {
                        let off = |t: &str| {
                            assert!(t.contains(from), "{field}: `{from}`");
                            t.replace(from, to)
                        };
                        let got =
                            emulate(&asm, "volume_index", &program, [2, 1, 1], block, &off, true);
                        assert!(
                            got != expect,
                            "{file} {what}: {field} one bit off went unnoticed"
                        );
                    }
                }
            }
            // The descriptors and patterns differ in the addresses they give.
            assert_eq!(distinct.len(), 6, "{file}");
        }
    }
}
