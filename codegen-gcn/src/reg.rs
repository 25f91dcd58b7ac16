//! Register operands: `s5`, `s[4:5]`, `v[4:7]`, `a[0:15]`, `ttmp[0:1]`, `vcc`, `exec_lo`,
//! `scc`, `m0`, … and the machine registers (32-bit parts) each one occupies.

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// Scalar registers `s0`…
    Sgpr,
    /// Vector registers `v0`…
    Vgpr,
    /// Accumulation registers `a0`… (gfx908+, part of the unified file on gfx90a+).
    Agpr,
    /// Trap-handler registers `ttmp0`…
    Ttmp,
    /// `vcc` (`vcc_lo` is part 0, `vcc_hi` part 1).
    Vcc,
    /// `exec` (`exec_lo`, `exec_hi`).
    Exec,
    /// `flat_scratch` (`flat_scratch_lo`, `flat_scratch_hi`).
    FlatScratch,
    /// `xnack_mask` (`xnack_mask_lo`, `xnack_mask_hi`).
    XnackMask,
    /// The scalar condition code (never written as an operand: implicit).
    Scc,
    /// `m0`.
    M0,
}

/// A register operand: `count` consecutive 32-bit registers of `file` from `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    /// The register file.
    pub file: RegFile,
    /// First register (0 for the named registers; 1 for `vcc_hi`, `exec_hi`, …).
    pub first: u32,
    /// Number of 32-bit registers.
    pub count: u32,
}

impl Reg {
    /// `count` registers of `file` from `first`.
    pub fn new(file: RegFile, first: u32, count: u32) -> Reg {
        Reg { file, first, count }
    }

    /// One scalar register.
    pub fn s(i: u32) -> Reg {
        Reg::new(RegFile::Sgpr, i, 1)
    }

    /// One vector register.
    pub fn v(i: u32) -> Reg {
        Reg::new(RegFile::Vgpr, i, 1)
    }

    /// `scc`.
    pub const SCC: Reg = Reg {
        file: RegFile::Scc,
        first: 0,
        count: 1,
    };

    /// `m0`.
    pub const M0: Reg = Reg {
        file: RegFile::M0,
        first: 0,
        count: 1,
    };

    /// `exec` of a wave of `wave` lanes (`exec_lo` in wave32).
    pub fn exec(wave: u32) -> Reg {
        Reg::new(RegFile::Exec, 0, if wave == 32 { 1 } else { 2 })
    }

    /// `vcc` of a wave of `wave` lanes (`vcc_lo` in wave32).
    pub fn vcc(wave: u32) -> Reg {
        Reg::new(RegFile::Vcc, 0, if wave == 32 { 1 } else { 2 })
    }

    /// The register as the model names it: `s5`, `s[4:5]`, `vcc`, `exec_lo`, `scc`.
    pub fn name(&self) -> String {
        let pair = |base: &str| match (self.first, self.count) {
            (0, 2) => base.to_owned(),
            (0, 1) => format!("{base}_lo"),
            (1, 1) => format!("{base}_hi"),
            (f, c) => format!("{base}[{f}:{}]", f + c - 1),
        };
        let file = match self.file {
            RegFile::Sgpr => "s",
            RegFile::Vgpr => "v",
            RegFile::Agpr => "a",
            RegFile::Ttmp => "ttmp",
            RegFile::Vcc => return pair("vcc"),
            RegFile::Exec => return pair("exec"),
            RegFile::FlatScratch => return pair("flat_scratch"),
            RegFile::XnackMask => return pair("xnack_mask"),
            RegFile::Scc => return "scc".into(),
            RegFile::M0 => return "m0".into(),
        };
        if self.count == 1 {
            format!("{file}{}", self.first)
        } else {
            format!("{file}[{}:{}]", self.first, self.first + self.count - 1)
        }
    }

    /// The 32-bit machine registers it occupies, each a one-register [`Reg`].
    pub fn parts(&self) -> Vec<Reg> {
        (self.first..self.first + self.count)
            .map(|i| Reg::new(self.file, i, 1))
            .collect()
    }

    /// Whether the two share a machine register.
    pub fn overlaps(&self, other: &Reg) -> bool {
        self.file == other.file
            && self.first < other.first + other.count
            && other.first < self.first + self.count
    }

    /// The last register + 1 (for counting a kernel's registers).
    pub fn end(&self) -> u32 {
        self.first + self.count
    }
}

/// Parses a register operand (without modifiers such as `-` or `|…|`).
pub fn parse_reg(text: &str) -> Option<Reg> {
    let named = |file, first, count| Some(Reg::new(file, first, count));
    match text {
        "vcc" => return named(RegFile::Vcc, 0, 2),
        "vcc_lo" => return named(RegFile::Vcc, 0, 1),
        "vcc_hi" => return named(RegFile::Vcc, 1, 1),
        "exec" => return named(RegFile::Exec, 0, 2),
        "exec_lo" => return named(RegFile::Exec, 0, 1),
        "exec_hi" => return named(RegFile::Exec, 1, 1),
        "flat_scratch" => return named(RegFile::FlatScratch, 0, 2),
        "flat_scratch_lo" => return named(RegFile::FlatScratch, 0, 1),
        "flat_scratch_hi" => return named(RegFile::FlatScratch, 1, 1),
        "xnack_mask" => return named(RegFile::XnackMask, 0, 2),
        "xnack_mask_lo" => return named(RegFile::XnackMask, 0, 1),
        "xnack_mask_hi" => return named(RegFile::XnackMask, 1, 1),
        "scc" => return named(RegFile::Scc, 0, 1),
        "m0" => return named(RegFile::M0, 0, 1),
        _ => {}
    }
    let (file, rest) = if let Some(r) = text.strip_prefix("ttmp") {
        (RegFile::Ttmp, r)
    } else if let Some(r) = text.strip_prefix('s') {
        (RegFile::Sgpr, r)
    } else if let Some(r) = text.strip_prefix('v') {
        (RegFile::Vgpr, r)
    } else if let Some(r) = text.strip_prefix("acc") {
        (RegFile::Agpr, r)
    } else if let Some(r) = text.strip_prefix('a') {
        (RegFile::Agpr, r)
    } else {
        return None;
    };
    if let Some(range) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = match range.split_once(':') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let a: u32 = range.trim().parse().ok()?;
                (a, a)
            }
        };
        return (b >= a).then(|| Reg::new(file, a, b - a + 1));
    }
    if rest.is_empty() || !rest.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(Reg::new(file, rest.parse().ok()?, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_parse_and_name_back() {
        for text in [
            "s5",
            "s[4:5]",
            "v[4:7]",
            "a[0:15]",
            "ttmp[0:1]",
            "vcc",
            "vcc_lo",
            "exec_hi",
            "m0",
            "scc",
            "v255",
        ] {
            let r = parse_reg(text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(r.name(), text);
        }
        assert_eq!(parse_reg("s[7]"), Some(Reg::s(7)));
        assert_eq!(parse_reg("acc3"), Some(Reg::new(RegFile::Agpr, 3, 1)));
        for bad in ["s", "sx", "s[5:4]", "off", "vccz", "v1.5", "sext"] {
            assert_eq!(parse_reg(bad), None, "{bad}");
        }
    }

    #[test]
    fn overlap_and_parts() {
        let pair = parse_reg("s[40:41]").expect("pair");
        assert!(pair.overlaps(&Reg::s(41)));
        assert!(!pair.overlaps(&Reg::s(42)));
        assert!(!pair.overlaps(&Reg::v(41)));
        assert_eq!(
            parse_reg("vcc").expect("vcc").parts(),
            vec![
                parse_reg("vcc_lo").expect("lo"),
                parse_reg("vcc_hi").expect("hi")
            ]
        );
    }
}
