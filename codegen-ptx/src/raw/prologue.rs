//! Snippet 0 of a kernel instrumented with raw probes: the instrumenter's registers, the
//! probes' `.reg` lines, the map base and, for every array map, this thread's (warp's)
//! row pointer and record index. The register table is in `expand.rs`.

use super::expand::{r, reserved, split_decls, Ctx, LineOrigin, Snippet};
use super::RawError;
use crate::lower::BASE;
use crate::special::{self, SiteImms};
use crate::splice::At;
use crate::MAP_PARAM;
use warptrace_ir::{Per, Special};

/// Snippet 0: registers, the probes' declarations, the map base, each array's row.
pub(super) fn prologue(ctx: &Ctx<'_>) -> Result<Snippet, RawError> {
    let mut s = Snippet::new(At::Entry, None);
    let own = LineOrigin {
        probe: None,
        line: None,
    };
    let maps = ctx.map_of.iter().flatten().count();
    s.emit(own, |e| {
        e.comment("warptrace: raw probes: prologue (registers, map base, array rows)");
    });
    for decl in [
        format!("\t.reg .b64 {BASE};"),
        format!("\t.reg .b64 {}<7>;", r("t")),
        format!("\t.reg .b32 {}<4>;", r("s")),
        format!("\t.reg .pred {}<4>;", r("p")),
        format!("\t.reg .b64 {};", r("addr")),
    ] {
        s.push(decl, own);
    }
    if maps > 0 {
        s.push(format!("\t.reg .b64 {}<{maps}>;", r("c")), own);
        s.push(format!("\t.reg .b64 {}<{maps}>;", r("row")), own);
    }
    for (p, probe) in ctx.file.probes.iter().enumerate() {
        for block in [&probe.before, &probe.after].into_iter().flatten() {
            for l in split_decls(block).0 {
                reserved(probe, l)?;
                let origin = LineOrigin {
                    probe: Some(p),
                    line: Some(l.line),
                };
                s.push(format!("\t{}", l.text), origin);
            }
        }
    }
    s.emit(own, |e| {
        e.insf(format_args!("ld.param.u64 {BASE}, [{MAP_PARAM}]"));
        e.insf(format_args!("cvta.to.global.u64 {BASE}, {BASE}"));
    });
    for (p, probe) in ctx.file.probes.iter().enumerate() {
        let (Some(k), Some(dm)) = (ctx.map_of[p], &probe.datamodel) else {
            continue;
        };
        let Some(region) = ctx.layout.regions.get(k) else {
            continue;
        };
        let origin = LineOrigin {
            probe: Some(p),
            line: Some(dm.line),
        };
        let row_bytes = u64::from(region.capacity) * region.slot_bytes();
        let mut failed = None;
        s.emit(origin, |e| {
            e.comment(&format!(
                "array @{}: this {} row",
                probe.name,
                per_name(dm.per)
            ));
            e.insf(format_args!("mov.b64 {}{k}, 0", r("c")));
            let (t0, t1, t2, t3) = (r("t0"), r("t1"), r("t2"), r("t3"));
            let imms = SiteImms::default();
            let row = match dm.per {
                Per::Thread => special::emit(e, &t1, Special::Thread, &imms),
                Per::Warp => special::emit(e, &t1, Special::Block, &imms).and_then(|()| {
                    let (s0, s1) = (r("s0"), r("s1"));
                    e.insf(format_args!("mov.u32 {s0}, %ntid.x"));
                    e.insf(format_args!("mov.u32 {s1}, %ntid.y"));
                    e.insf(format_args!("mul.lo.u32 {s0}, {s0}, {s1}"));
                    e.insf(format_args!("mov.u32 {s1}, %ntid.z"));
                    e.insf(format_args!("mul.lo.u32 {s0}, {s0}, {s1}"));
                    e.insf(format_args!("add.u32 {s0}, {s0}, 31"));
                    e.insf(format_args!("shr.u32 {s0}, {s0}, 5"));
                    e.insf(format_args!("cvt.u64.u32 {t2}, {s0}"));
                    special::emit(e, &t3, Special::Warp, &imms)?;
                    e.insf(format_args!("mad.lo.u64 {t1}, {t1}, {t2}, {t3}"));
                    Ok(())
                }),
            };
            if let Err(err) = row {
                failed = Some(err);
            }
            e.insf(format_args!("mul.lo.u64 {t1}, {t1}, {row_bytes}"));
            e.insf(format_args!(
                "ld.global.u64 {t0}, [{BASE}+{}]",
                region.slots_offset
            ));
            e.insf(format_args!("add.s64 {t0}, {t0}, {t1}"));
            e.insf(format_args!("add.s64 {}{k}, {BASE}, {t0}", r("row")));
        });
        if let Some(err) = failed {
            return Err(err.into());
        }
    }
    Ok(s)
}

fn per_name(per: Per) -> &'static str {
    match per {
        Per::Thread => "thread's",
        Per::Warp => "warp's",
    }
}
