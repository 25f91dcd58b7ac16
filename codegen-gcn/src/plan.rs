//! Instrumenting one kernel: register allocation, the prologue, the snippets at each
//! site, the descriptor and metadata edits, and the kernel-level verification of the
//! result.

use crate::alloc::{occupancy, occupancy_gfx10_plus, Alloc, MAX_SGPRS, MAX_VGPRS};
use crate::attach::{find_sites, KernelFilter, Site};
use crate::cost::{measure, SnippetCost};
use crate::emit::Target;
use crate::insn::{access_bytes, facts, Isa};
use crate::lower::{snippet, Cx, KernelRegs, Needs, SiteConstants, SiteInfo, PREFIX};
use crate::model::{isa_of, GcnKernelModel, MapArgLoad, RegisterCounts};
use crate::parse::{Kernel, Module, StmtKind};
use crate::reg::{Reg, RegFile};
use crate::splice::{apply, Edit};
use crate::{Error, KernelStatus, Occupancy, MAP_ARG};
use warptrace_ir::fold::SiteConsts;
use warptrace_ir::placement::{replicas, HomeSlots};
use warptrace_ir::{kernel_id, AttachPoint, MapLayout, Position, Program};
use warptrace_verifier::Origin;

/// The result of planning one kernel: its status, and its edits when accepted.
#[derive(Debug)]
pub(crate) struct Planned {
    pub status: KernelStatus,
    pub edits: Vec<Edit>,
    pub occupancy: Option<Occupancy>,
    /// Each snippet's longest path, when instrumented.
    pub costs: Vec<SnippetCost>,
    /// Kernel branches made long (decision 0032), when instrumented.
    pub long_branches: u32,
    /// Copies of the map buffer's fixed part the kernel's blocks spread their updates
    /// over (1 unless instrumented with a copy offset).
    pub copies: u32,
    /// Where its launches pass the map buffer, when instrumented.
    pub map_arg: Option<crate::MapArg>,
}

fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported {
        target: crate::TARGET,
        what: what.into(),
    }
}

/// An integer descriptor field, or `Unsupported` (LLVM may print an expression).
fn field(k: &Kernel, name: &str) -> Result<u32, Error> {
    match k.field_text(name) {
        None => Ok(0),
        Some(t) => crate::parse::parse_int(t)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| unsupported(format!("descriptor field `{name} {t}` is not an integer"))),
    }
}

/// Enables the workgroup ids the probes read (`want`) that kernel `k` does not: the
/// launch then writes them into SGPRs after the ones it initializes now, numbered from
/// `next` (`wg_regs` and `next` are updated), and the prologue copies them before the
/// kernel runs; the kernel itself never reads those SGPRs before writing them. Possible
/// only where no enabled system SGPR comes after one enabled here (it would move: the
/// kernel model compares their places, `ResourceKind::InitialRegister`). Returns the
/// dimensions enabled.
fn enable_workgroup_ids(
    k: &Kernel,
    gfx940: bool,
    want: [bool; 3],
    wg_regs: &mut [Option<Reg>; 3],
    next: &mut u32,
) -> Result<Vec<usize>, Error> {
    const XYZ: [&str; 3] = ["x", "y", "z"];
    let missing: Vec<usize> = (0..3)
        .filter(|&d| want[d] && wg_regs[d].is_none())
        .collect();
    let Some(&first) = missing.first() else {
        return Ok(Vec::new());
    };
    let enabled = crate::model::system_sgprs(k, gfx940);
    let after = crate::model::SYSTEM_SGPRS[first + 1..]
        .iter()
        .find(|f| enabled.contains(f));
    if let Some(f) = after {
        return Err(unsupported(format!(
            "ctaid.{}: the kernel does not enable its workgroup id, and enabling it would \
             move the SGPR of its `{f}`",
            XYZ[first]
        )));
    }
    for &d in &missing {
        let name = format!(".amdhsa_system_sgpr_workgroup_id_{}", XYZ[d]);
        if k.field_text(&name).is_none() {
            return Err(unsupported(format!("descriptor without {name}")));
        }
        wg_regs[d] = Some(Reg::s(*next));
        *next += 1;
    }
    Ok(missing)
}

/// The byte range of statement `i`'s argument text (a descriptor field's value).
fn args_range(module: &Module, i: usize) -> std::ops::Range<usize> {
    let s = &module.stmts[i];
    let text = &module.source()[s.span.clone()];
    let name_len = text.find(char::is_whitespace).unwrap_or(text.len());
    let rest = &text[name_len..];
    let start = s.span.start + name_len + (rest.len() - rest.trim_start().len());
    start..s.span.end
}

/// Where the prologue and `kernel:entry` snippets go: a byte offset at a line start.
pub(crate) fn entry_point(module: &Module, k: &Kernel, preload: bool) -> Result<usize, Error> {
    let body = k.body.clone();
    let mut from = body.start + 1;
    if preload {
        // Kernarg preloading: the first 256 bytes are a compatibility prologue that
        // loads the preloaded arguments and branches to the real entry, a label after
        // `.p2align 8`, where hardware that preloads starts.
        let (i, target) = body
            .clone()
            .find_map(|i| {
                module
                    .instr(i)
                    .filter(|x| x.mnemonic == "s_branch")
                    .and_then(|x| x.operands.first())
                    .map(|o| (i, o.text.clone()))
            })
            .ok_or_else(|| unsupported("kernarg preloading without its s_branch"))?;
        let label = (i..body.end)
            .find(|&j| matches!(&module.stmts[j].kind, StmtKind::Label(l) if *l == target))
            .ok_or_else(|| unsupported("kernarg preloading: entry label not found"))?;
        let aligned = (i..label).any(|j| {
            matches!(&module.stmts[j].kind, StmtKind::Directive { name, args }
                if name == ".p2align" && args.split(',').next().map(str::trim) == Some("8"))
        });
        if !aligned {
            return Err(unsupported(
                "kernarg preloading: entry not aligned to 256 bytes",
            ));
        }
        from = label + 1;
    }
    let first = (from..body.end)
        .find(|&i| module.instr(i).is_some())
        .ok_or_else(|| unsupported("a kernel without instructions"))?;
    // A label between here and the first instruction that a branch targets would run
    // the prologue again: insert right after the entry label then.
    let targeted = (from..first).any(|i| match &module.stmts[i].kind {
        StmtKind::Label(l) => body.clone().any(|j| {
            module.instr(j).is_some_and(|x| {
                x.mnemonic.contains("branch") && x.operands.first().is_some_and(|o| o.text == *l)
            })
        }),
        _ => false,
    });
    let at = if targeted { from - 1 } else { first };
    let line = module.stmts[at].line;
    Ok(if targeted {
        module.line_end(line)
    } else {
        module.line_start(line)
    })
}

/// Plans kernel `k`: `Ok(Planned)` with a status; errors only for input errors.
pub(crate) fn plan_kernel(
    module: &Module,
    k: &Kernel,
    program: &Program,
    layout: &MapLayout,
    filter: &KernelFilter,
    options: &crate::Options,
) -> Result<Planned, Error> {
    let isa = isa_of(module, &k.name).ok_or_else(|| Error::NoSuchKernel(k.name.clone()))?;
    let (sites, unplaced) = find_sites(module, k, &isa, program, filter);
    let no = |status| Planned {
        status,
        edits: Vec::new(),
        occupancy: None,
        costs: Vec::new(),
        long_branches: 0,
        copies: 1,
        map_arg: None,
    };
    if let Some(what) = unplaced {
        return Ok(no(KernelStatus::Unsupported { what }));
    }
    if sites.is_empty() {
        return Ok(no(KernelStatus::NoSites));
    }
    let body_text = &module.source()
        [module.stmts[k.body.start].span.start..module.stmts[k.body.end - 1].span.end];
    if body_text.contains(PREFIX) {
        return Err(Error::ReservedPrefix {
            kernel: k.name.clone(),
        });
    }
    match build(module, k, &isa, &sites, program, layout, options) {
        Ok(p) => Ok(p),
        Err(Error::Unsupported { what, .. }) => Ok(no(KernelStatus::Unsupported { what })),
        Err(e) => Err(e),
    }
}

fn build(
    module: &Module,
    k: &Kernel,
    isa: &Isa,
    sites: &[Site],
    program: &Program,
    layout: &MapLayout,
    options: &crate::Options,
) -> Result<Planned, Error> {
    let processor = module.processor.as_deref().unwrap_or_default();
    let gfx10_11 = processor.starts_with("gfx10") || processor.starts_with("gfx11");
    if !(isa.gfx9 && isa.wave == 64 || gfx10_11) {
        return Err(unsupported(format!(
            "lowering for {} (wave{}) is not implemented",
            module.processor.as_deref().unwrap_or("?"),
            isa.wave
        )));
    }
    // Hazards the snippets are not padded for (`hazard.rs`, decision 0030).
    if processor.starts_with("gfx101") {
        return Err(unsupported(format!(
            "{processor}: its hardware hazards (a vector memory access then a scalar write \
             of a register it read, v_cmpx after an exec read, LDS-branch-VMEM) are not \
             handled in snippets"
        )));
    }
    if processor.starts_with("gfx11") && isa.wave == 64 {
        return Err(unsupported(format!(
            "{processor} in wave64: its VALU mask-write and partial-forwarding hazards are \
             not handled in snippets"
        )));
    }
    let meta = module
        .metadata
        .as_ref()
        .and_then(|m| m.kernel(&k.name))
        .ok_or_else(|| unsupported("a kernel without metadata"))?;
    if field(k, ".amdhsa_user_sgpr_kernarg_segment_ptr")? != 1 {
        return Err(unsupported("a kernel without a kernarg segment pointer"));
    }
    let kernarg = 4 * field(k, ".amdhsa_user_sgpr_private_segment_buffer")?
        + 2 * field(k, ".amdhsa_user_sgpr_dispatch_ptr")?
        + 2 * field(k, ".amdhsa_user_sgpr_queue_ptr")?;
    let kernarg = Reg::new(RegFile::Sgpr, kernarg, 2);
    let sgprs = field(k, ".amdhsa_next_free_sgpr")?;
    let vgprs = field(k, ".amdhsa_next_free_vgpr")?;
    let agprs = meta.int(".agpr_count").unwrap_or(0) as u32;
    let accum = k
        .field_text(".amdhsa_accum_offset")
        .map(|_| field(k, ".amdhsa_accum_offset"));
    let accum = accum.transpose()?;
    let arch = match (agprs, accum) {
        (0, _) => vgprs,
        (_, Some(a)) => a,
        (_, None) => vgprs.saturating_sub(agprs),
    };
    let workitem_dims = field(k, ".amdhsa_system_vgpr_workitem_id")?;
    let user = field(k, ".amdhsa_user_sgpr_count")?;
    let mut wg = user;
    let mut wg_regs = [None; 3];
    for (d, f) in ["x", "y", "z"].iter().enumerate() {
        if field(k, &format!(".amdhsa_system_sgpr_workgroup_id_{f}"))? == 1 {
            wg_regs[d] = Some(Reg::s(wg));
            wg += 1;
        }
    }
    // What the probes that run in this kernel need.
    let mut probes: Vec<&warptrace_ir::Probe> = Vec::new();
    for s in sites {
        if !probes
            .iter()
            .any(|p| std::ptr::eq(*p, &program.probes[s.probe]))
        {
            probes.push(&program.probes[s.probe]);
        }
    }
    let needs = Needs::of(probes, workitem_dims, wg_regs.map(|r| r.is_some()));
    // Copies of the buffer's fixed part the blocks spread their updates over (decisions
    // 0019, 0020), by the workgroup id x: where the kernel has it or the probes need it
    // enabled anyway; otherwise one copy.
    let id = kernel_id(&k.name);
    let copies = match replicas(program, id) {
        n if n > 1
            && (wg_regs[0].is_some() || needs.ctaid[0])
            && u64::from(n) * layout.total_bytes <= u64::from(u32::MAX) =>
        {
            n
        }
        _ => 1,
    };
    let enabled_ids = enable_workgroup_ids(k, isa.gfx940, needs.ctaid, &mut wg_regs, &mut wg)?;
    let target = Target::of(processor, isa);
    // Above the system SGPRs too: a workgroup id enabled here may lie past the kernel's
    // own SGPRs.
    let mut alloc = Alloc::new(sgprs.max(wg), arch);
    let regs = KernelRegs::allocate(&mut alloc, program, needs, target);
    let (grid, grid_loads) = crate::grid::allocate(meta, &needs, &mut alloc);
    let missing = |want: [bool; 3], have: [Option<crate::lower::Field>; 3]| {
        (0..3).any(|d| want[d] && have[d].is_none())
    };
    if missing(needs.ntid, grid.ntid) || missing(needs.nctaid, grid.nctaid) {
        return Err(unsupported(
            "the grid builtins and array maps: the kernel's metadata has no code object v5 \
             hidden grid arguments",
        ));
    }
    // The kernel branches to make long, and their registers (decision 0032).
    let long: Vec<usize> = k
        .body
        .clone()
        .filter(|&i| {
            module.instr(i).is_some() && options.long_branches.contains(&module.stmts[i].line)
        })
        .collect();
    let long_regs = (!long.is_empty()).then(|| (alloc.sgprs(2), alloc.sgprs(1)));
    // The map argument as loaded, when the prologue offsets it to the block's copy.
    let map_arg = (copies > 1).then(|| alloc.sgprs(2));
    if alloc.sgpr_end() > MAX_SGPRS {
        return Err(unsupported(format!(
            "probe registers: {} SGPRs needed, {MAX_SGPRS} addressable",
            alloc.sgpr_end()
        )));
    }
    if alloc.vgpr_end() > MAX_VGPRS {
        return Err(unsupported(format!(
            "probe registers: {} VGPRs needed, {MAX_VGPRS} addressable",
            alloc.vgpr_end()
        )));
    }
    let new_accum = accum.map(|_| alloc.vgpr_end().next_multiple_of(4));
    let new_vgprs = match (agprs, new_accum) {
        (0, _) => alloc.vgpr_end(),
        (_, Some(a)) => a + agprs,
        (_, None) => alloc.vgpr_end() + agprs,
    };
    let kernarg_size = meta
        .int(".kernarg_segment_size")
        .ok_or_else(|| unsupported("metadata without .kernarg_segment_size"))?;
    let map_offset = kernarg_size.next_multiple_of(8);
    let preload = field(k, ".amdhsa_user_sgpr_kernarg_preload_length")? > 0;
    let entry = entry_point(module, k, preload)?;
    let mut edits = Vec::new();
    // The prologue (snippet 0).
    let mut pro = format!(
        "\ts_load_dwordx2 {}, {}, 0x{map_offset:x}\n",
        map_arg.unwrap_or(regs.base).name(),
        kernarg.name(),
    );
    for (offset, reg) in &grid_loads {
        pro.push_str(&format!(
            "\ts_load_dword {}, {}, 0x{offset:x}\n",
            reg.name(),
            kernarg.name()
        ));
    }
    if needs.exit {
        pro.push_str(&format!(
            "\t{} {}, {}\n",
            target.s("s_mov"),
            regs.launch_exec.name(),
            target.exec()
        ));
    }
    if let Some(t) = regs.tid {
        pro.push_str(&format!("\tv_mov_b32_e32 {}, v0\n", t.name()));
    }
    for (d, c) in regs.ctaid.iter().enumerate() {
        if let (Some(c), Some(w)) = (c, wg_regs[d]) {
            pro.push_str(&format!("\ts_mov_b32 {}, {}\n", c.name(), w.name()));
        }
    }
    for p in &regs.persist {
        pro.push_str(&format!(
            "\tv_mov_b32_e32 {}, 0\n\tv_mov_b32_e32 {}, 0\n",
            crate::emit::lo(*p),
            crate::emit::hi(*p)
        ));
    }
    pro.push_str("\ts_waitcnt lgkmcnt(0)\n");
    if let Some(arg) = map_arg {
        // base = the map argument + (ctaid.x & (copies - 1)) * one copy's bytes, a 64-bit
        // scalar add (`scc` saved around it); `model.rs` reads the pair as one addition.
        let wgx = wg_regs[0].ok_or_else(|| unsupported("copies without a workgroup id x"))?;
        let (st, scc, base) = (regs.st.name(), regs.save_scc.name(), regs.base);
        let half = |r: Reg, i: u32| Reg::s(r.first + i).name();
        pro.push_str(&format!(
            "\ts_cselect_b32 {scc}, -1, 0\n\
             \ts_and_b32 {st}, {}, 0x{:x}\n\
             \ts_mul_i32 {st}, {st}, 0x{:x}\n\
             \ts_add_u32 {}, {}, {st}\n\
             \ts_addc_u32 {}, {}, 0\n\
             \ts_cmp_lg_u32 {scc}, 0\n",
            wgx.name(),
            copies - 1,
            layout.total_bytes,
            half(base, 0),
            half(arg, 0),
            half(base, 1),
            half(arg, 1),
        ));
    }
    edits.push(Edit {
        range: entry..entry,
        text: pro,
        snippet: Some(0),
    });
    // The snippets, numbered in text order from 1.
    let mut placed: Vec<(usize, usize, usize, &Site)> = Vec::new(); // (offset, order, probe, site)
    let files = crate::attach::file_table(module);
    let locs = crate::attach::locs(module, k);
    for (order, site) in sites.iter().enumerate() {
        let probe = &program.probes[site.probe];
        let after = probe.attach.position == Position::After;
        if let (Some(i), Some(_)) = (site.stmt, site.ident) {
            // A loop or region end in kernarg preloading's compatibility code, which runs
            // before the entry point (and the prologue that loads the map argument).
            if module.line_start(module.stmts[i].line) < entry {
                return Err(unsupported(format!(
                    "a loop or region point before the kernel's entry point (at `{}`: \
                     kernarg preloading's compatibility code)",
                    module.stmt_text(i)
                )));
            }
        }
        let at = match site.stmt {
            None => entry,
            Some(i) => {
                let line = module.stmts[i].line;
                if site.after {
                    // A loop edge's fall-through path (checked by `loops.rs`).
                    module.line_end(line)
                } else if after {
                    let x = module
                        .instr(i)
                        .ok_or_else(|| unsupported("after a non-instruction"))?;
                    // A barrier and a cross-lane operation continue with the next
                    // instruction once they are done, as PTX's `after` takes them.
                    use warptrace_verifier::Flow;
                    if !matches!(
                        facts(x, isa).flow,
                        Flow::Next | Flow::Barrier | Flow::WarpCollective
                    ) {
                        return Err(unsupported(format!(
                            "`after` at `{}`: it does not fall through to the next \
                             instruction",
                            x.mnemonic
                        )));
                    }
                    module.line_end(line)
                } else if probe.attach.point == AttachPoint::KernelExit {
                    // Before gfx11's `s_nop 0; s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)`: a
                    // snippet after it would use released VGPRs.
                    let mut first = i;
                    while first > k.body.start {
                        let prev = first - 1;
                        let skip = match &module.stmts[prev].kind {
                            StmtKind::Directive { .. } => true,
                            StmtKind::Instr(x) => {
                                x.mnemonic == "s_nop"
                                    || (x.mnemonic == "s_sendmsg"
                                        && module.stmt_text(prev).contains("MSG_DEALLOC_VGPRS"))
                            }
                            StmtKind::Label(_) => false,
                        };
                        if !skip {
                            break;
                        }
                        first = prev;
                    }
                    module.line_start(module.stmts[first].line)
                } else {
                    module.line_start(line)
                }
            }
        };
        placed.push((at, order, site.probe, site));
    }
    placed.sort_by_key(|&(at, order, _, _)| (at, order));
    let ordinal = k.descriptor_start;
    let mut infos = Vec::with_capacity(placed.len());
    for &(_, _, p, site) in &placed {
        let probe = &program.probes[p];
        let mut info = SiteInfo {
            exit: matches!(probe.attach.point, AttachPoint::KernelExit),
            after: probe.attach.position == Position::After,
            lanes: site.lanes,
            ..SiteInfo::default()
        };
        if let Some(i) = site.ident {
            // A loop point: the loop's identity, no instruction operands.
            info.located = true;
            info.pc = pc_of(module, k, i);
            if let Some((file, line)) = locs[i - k.body.start] {
                info.line = u64::from(line);
                info.file = files.get(&file).map_or(0, |p| kernel_id(p));
            }
        } else if let Some(i) = site.stmt {
            let x = module
                .instr(i)
                .ok_or_else(|| unsupported("a site that is no instruction"))?;
            info.located = true;
            info.pc = pc_of(module, k, i);
            info.instruction(x, isa);
            if let Some((file, line)) = locs[i - k.body.start] {
                info.line = u64::from(line);
                info.file = files.get(&file).map_or(0, |p| kernel_id(p));
            }
        }
        infos.push(info);
    }
    // One decision for the launch, from every site's keys (decision 0013): only these
    // snippets update the launch's buffer.
    let consts: Vec<SiteConstants<'_>> = infos
        .iter()
        .map(|site| SiteConstants {
            kernel_id: id,
            site,
        })
        .collect();
    let home = HomeSlots::decide_at(
        program,
        layout,
        placed
            .iter()
            .zip(&consts)
            .map(|(&(_, _, p, _), c)| (p, c as &dyn SiteConsts)),
    );
    let cx = Cx {
        program,
        layout,
        t: target,
        regs: &regs,
        kernel_id: id,
        workitem_dims,
        grid,
        packed_tid: target.packed_tid(processor),
        home: &home,
        combining: options.combining.in_effect(),
    };
    let mut costs = Vec::new();
    for (n, (&(at, _, p, _), info)) in placed.iter().zip(&infos).enumerate() {
        let number = n as u32 + 1;
        let probe = &program.probes[p];
        let labels = format!(".L{PREFIX}{ordinal}_{number}");
        let text = snippet(&cx, probe, info, &labels)?;
        let (insns, atomics) = measure(&text, isa)?;
        costs.push(SnippetCost {
            probe: p,
            insns,
            atomics,
        });
        edits.push(Edit {
            range: at..at,
            text: format!("; {PREFIX}snippet {number}\n{text}"),
            snippet: Some(number),
        });
    }
    // The long branches, each a snippet after the probes' (`long_branch.rs`).
    if let Some((pc, t)) = long_regs {
        for (j, &i) in long.iter().enumerate() {
            let number = (placed.len() + 1 + j) as u32;
            let x = module
                .instr(i)
                .ok_or_else(|| unsupported("a long branch"))?;
            let labels = format!(".L{PREFIX}far{ordinal}_{j}");
            let text = crate::long_branch::emit(x, module.stmt_text(i), pc, t, &labels)?;
            let line = module.stmts[i].line;
            edits.push(Edit {
                range: module.line_start(line)..module.line_end(line),
                text: format!("; {PREFIX}snippet {number}\n{text}"),
                snippet: Some(number),
            });
        }
    }
    // Descriptor fields.
    let mut set_field = |name: &str, value: u32| -> Result<(), Error> {
        let (_, _, i) = k
            .fields
            .iter()
            .find(|(n, _, _)| n == name)
            .ok_or_else(|| unsupported(format!("descriptor without {name}")))?;
        edits.push(Edit {
            range: args_range(module, *i),
            text: value.to_string(),
            snippet: None,
        });
        Ok(())
    };
    for d in enabled_ids {
        set_field(
            &format!(".amdhsa_system_sgpr_workgroup_id_{}", ["x", "y", "z"][d]),
            1,
        )?;
    }
    set_field(".amdhsa_next_free_sgpr", alloc.sgpr_end())?;
    set_field(".amdhsa_next_free_vgpr", new_vgprs)?;
    if let Some(a) = new_accum {
        set_field(".amdhsa_accum_offset", a)?;
    }
    let new_kernarg = map_offset + 8;
    set_field(".amdhsa_kernarg_size", new_kernarg as u32)?;
    // Metadata: sizes, counts, the argument.
    let mut set_key = |key: &str, f: &dyn Fn(u64) -> u64| -> Result<(), Error> {
        if let Some(m) = meta.key(key) {
            let v: u64 = m
                .value
                .parse()
                .map_err(|_| unsupported(format!("metadata {key}")))?;
            edits.push(Edit {
                range: m.span.clone(),
                text: f(v).to_string(),
                snippet: None,
            });
        }
        Ok(())
    };
    let ds = u64::from(alloc.sgpr_end() - sgprs);
    let dv = u64::from(new_vgprs - vgprs);
    set_key(".kernarg_segment_size", &|_| new_kernarg)?;
    set_key(".sgpr_count", &|v| v + ds)?;
    set_key(".vgpr_count", &|v| v + dv)?;
    let named = meta.args.iter().any(|a| a.get(".name").is_some());
    let mut arg = if meta.has_args {
        String::new()
    } else {
        "    .args:\n".to_owned()
    };
    arg.push_str("      - .address_space:  global\n");
    if named {
        arg.push_str(&format!("        .name:           {MAP_ARG}\n"));
    }
    arg.push_str(&format!(
        "        .offset:         {map_offset}\n        .size:           8\n        .value_kind:     global_buffer\n"
    ));
    edits.push(Edit {
        range: meta.args_end..meta.args_end,
        text: arg,
        snippet: None,
    });
    // Verify the spliced kernel against the original.
    let applied = apply(module.source(), &edits);
    let spliced = crate::parse::parse(&applied.text)?;
    let mut origins = Vec::with_capacity(spliced.stmts.len());
    for s in &spliced.stmts {
        origins.push(applied.lines.origin(s.line));
    }
    let original_counts = RegisterCounts {
        initial_sgprs: crate::model::initial_sgprs(k, isa.gfx940),
        sgprs,
        vgprs: arch,
        agprs,
    };
    let original = GcnKernelModel::build(
        module,
        &k.name,
        &|_| Origin::Kernel,
        original_counts,
        original_counts,
        None,
    )
    .ok_or_else(|| Error::NoSuchKernel(k.name.clone()))?;
    let new_counts = RegisterCounts {
        initial_sgprs: wg,
        sgprs: alloc.sgpr_end(),
        vgprs: alloc.vgpr_end(),
        agprs,
    };
    let model = GcnKernelModel::build(
        &spliced,
        &k.name,
        &|i| origins[i],
        original_counts,
        new_counts,
        Some(MapArgLoad {
            kernarg,
            offset: map_offset,
        }),
    )
    .ok_or_else(|| Error::NoSuchKernel(k.name.clone()))?;
    let occupancy = Some(Occupancy {
        sgprs: (sgprs, alloc.sgpr_end()),
        vgprs: (vgprs, new_vgprs),
        waves: if isa.gfx9 {
            (
                occupancy(
                    vgprs,
                    meta.int(".sgpr_count").unwrap_or(u64::from(sgprs)) as u32,
                ),
                occupancy(
                    new_vgprs,
                    (meta.int(".sgpr_count").unwrap_or(u64::from(sgprs)) + ds) as u32,
                ),
            )
        } else {
            (
                occupancy_gfx10_plus(vgprs, isa.wave, target.gfx11),
                occupancy_gfx10_plus(new_vgprs, isa.wave, target.gfx11),
            )
        },
    });
    match crate::verify::kernel_rules(&original, &model, module, &spliced, &k.name, &origins)? {
        Ok(()) => Ok(Planned {
            status: KernelStatus::Instrumented {
                sites: placed.len() as u32,
            },
            edits,
            occupancy,
            costs,
            long_branches: long.len() as u32,
            copies,
            map_arg: Some(crate::MapArg {
                explicit: meta.args.iter().filter(|a| !a.is_hidden()).count() as u32,
                offset: map_offset,
            }),
        }),
        Err(e) => Ok(Planned {
            status: KernelStatus::Rejected(e),
            edits: Vec::new(),
            occupancy: None,
            costs: Vec::new(),
            long_branches: 0,
            copies: 1,
            map_arg: None,
        }),
    }
}

impl SiteInfo {
    /// What a snippet knows of the instruction `x` it probes: its opcode, mnemonic and
    /// memory access.
    pub(crate) fn instruction(&mut self, x: &crate::parse::Instruction, isa: &Isa) {
        let f = facts(x, isa);
        self.opcode = Some(kernel_id(&x.mnemonic));
        self.mnemonic = Some(x.mnemonic.clone());
        self.bytes = f.mem.as_ref().and_then(|a| bytes_of(&x.mnemonic, a));
        self.mem = f.mem;
    }
}

/// Bytes one lane accesses, from the mnemonic's width.
fn bytes_of(m: &str, a: &crate::insn::MemAccess) -> Option<u64> {
    const WIDTHS: &[(&str, u64)] = &[
        ("dwordx4", 16),
        ("dwordx3", 12),
        ("dwordx2", 8),
        ("dword", 4),
        ("ubyte", 1),
        ("sbyte", 1),
        ("byte", 1),
        ("ushort", 2),
        ("sshort", 2),
        ("short", 2),
        ("b128", 16),
        ("b96", 12),
        ("b64", 8),
        ("b32", 4),
        ("b16", 2),
        ("b8", 1),
        ("u8", 1),
        ("i8", 1),
        ("u16", 2),
        ("i16", 2),
        ("x2", 8),
        ("u64", 8),
        ("i64", 8),
        ("f64", 8),
    ];
    let two = m.starts_with("ds_read2")
        || m.starts_with("ds_write2")
        || m.starts_with("ds_load_2")
        || m.starts_with("ds_store_2");
    let w = WIDTHS
        .iter()
        .find(|(s, _)| m.contains(s))
        .map(|&(_, w)| w)
        .or_else(|| (m.contains("_atomic") || m.starts_with("ds_")).then_some(4))
        .or_else(|| access_bytes(a).map(u64::from))?;
    Some(if two { 2 * w } else { w })
}

/// The `pc` of statement `i`: its index among the body's instructions.
fn pc_of(module: &Module, k: &Kernel, i: usize) -> u64 {
    k.body
        .clone()
        .take_while(|&j| j < i)
        .filter(|&j| module.instr(j).is_some())
        .count() as u64
}
