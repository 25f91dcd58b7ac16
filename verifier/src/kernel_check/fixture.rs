//! A hand-built kernel model for the tests: the original kernel, two snippets, the
//! clean splice, and helpers to edit it before lines are numbered.

use crate::{
    verify_kernel, Access, Addr, Compute, Flow, Instr, Item, KernelModel, KernelRule,
    KernelViolation, Mask, MemRef, Origin, Resource, ResourceKind, Space,
};

/// A kernel model written out by hand.
#[derive(Debug, Clone)]
pub(super) struct Fixture {
    pub(super) items: Vec<Item>,
    pub(super) declared: Vec<(String, Origin)>,
    pub(super) map_param: Option<String>,
    pub(super) resources: Vec<Resource>,
}

impl KernelModel for Fixture {
    fn kernel_name(&self) -> &str {
        "_Z6kernelPj"
    }
    fn items(&self) -> Vec<Item> {
        self.items.clone()
    }
    fn declared_registers(&self) -> Vec<(String, Origin)> {
        self.declared.clone()
    }
    fn map_param(&self) -> Option<String> {
        self.map_param.clone()
    }
    fn resources(&self) -> Vec<Resource> {
        self.resources.clone()
    }
}

/// The map parameter of the spliced fixture.
pub(super) const MAP_PARAM: &str = "__wt_maps";

impl Fixture {
    /// A body whose items sit on lines 1, 2, … (labels take a line too), with the
    /// kernel's shared array and launch bound.
    pub(super) fn numbered(mut items: Vec<Item>, declared: Vec<(String, Origin)>) -> Fixture {
        for (i, item) in items.iter_mut().enumerate() {
            if let Item::Instr(x) = item {
                x.line = i as u32 + 1;
            }
        }
        Fixture {
            items,
            declared,
            map_param: None,
            resources: kernel_resources(),
        }
    }

    /// The line of the instruction whose text is `text`.
    pub(super) fn line_of(&self, text: &str) -> u32 {
        self.items
            .iter()
            .find_map(|item| match item {
                Item::Instr(x) if x.text == text => Some(x.line),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no instruction `{text}` in the fixture"))
    }
}

pub(super) const K: Origin = Origin::Kernel;

pub(super) fn s(snippet: u32) -> Origin {
    Origin::Inserted { snippet }
}

pub(super) fn names(regs: &[&str]) -> Vec<crate::Name> {
    regs.iter().map(|r| crate::Name::from(*r)).collect()
}

/// The kernel's declared shared array and its launch bound.
pub(super) fn kernel_resources() -> Vec<Resource> {
    vec![
        Resource {
            kind: ResourceKind::LaunchBound,
            text: ".reqntid 128".into(),
            origin: K,
            line: 0,
        },
        Resource {
            kind: ResourceKind::Shared,
            text: ".shared .align 4 .b8 smem[512];".into(),
            origin: K,
            line: 0,
        },
    ]
}

/// An instruction; a leading `@%p`/`@!%p` in `text` is its guard.
pub(super) fn op(origin: Origin, text: &str, defs: &[&str], uses: &[&str]) -> Item {
    let guard = text
        .strip_prefix('@')
        .and_then(|g| g.split_whitespace().next())
        .map(|g| crate::Name::from(g.trim_start_matches('!')));
    Item::Instr(Instr {
        origin,
        defs: names(defs),
        uses: names(uses),
        flow: Flow::Next,
        mem: Vec::new(),
        guard,
        compute: Compute::Opaque,
        text: text.to_string(),
        line: 0,
    })
}

/// The address inside the brackets of `text`, decoded like a back end would.
fn addr_of(text: &str) -> Addr {
    let Some(inner) = text.split_once('[').and_then(|(_, r)| r.split_once(']')) else {
        return Addr::Unknown;
    };
    let base = inner.0.split('+').next().unwrap_or("").trim();
    match base.chars().next() {
        Some('%') => Addr::Reg(base.into()),
        Some(c) if c.is_ascii_digit() => Addr::Absolute,
        Some(_) => Addr::Symbol(base.into()),
        None => Addr::Unknown,
    }
}

/// Adds a memory access (its address read from the text) to `item`; a pointer-wide
/// scalar load is [`Compute::LoadWord`].
pub(super) fn mem(item: Item, space: Space, access: Access) -> Item {
    let Item::Instr(mut x) = item else {
        panic!("not an instruction")
    };
    let addr = addr_of(&x.text);
    x.mem.push(MemRef {
        space,
        access,
        addr,
    });
    let wide = x.text.contains(".u64 ") || x.text.contains(".b64 ");
    if access == Access::Load && wide && x.defs.len() == 1 {
        x.compute = Compute::LoadWord;
    }
    Item::Instr(x)
}

/// Sets what `item` computes.
pub(super) fn compute(item: Item, compute: Compute) -> Item {
    let Item::Instr(mut x) = item else {
        panic!("not an instruction")
    };
    x.compute = compute;
    Item::Instr(x)
}

/// A warp collective of snippet `origin` with member mask `mask`.
pub(super) fn collective(
    origin: Origin,
    text: &str,
    defs: &[&str],
    uses: &[&str],
    mask: Mask,
) -> Item {
    compute(
        flow(op(origin, text, defs, uses), Flow::WarpCollective),
        Compute::Collective(mask),
    )
}

pub(super) fn flow(item: Item, flow: Flow) -> Item {
    let Item::Instr(mut x) = item else {
        panic!("not an instruction")
    };
    x.flow = flow;
    Item::Instr(x)
}

pub(super) fn bra(origin: Origin, text: &str, target: &str, uses: &[&str]) -> Item {
    let branch = Flow::Branch {
        target: target.into(),
        conditional: !uses.is_empty(),
    };
    flow(op(origin, text, &[], uses), branch)
}

pub(super) fn label(name: &str, origin: Origin) -> Item {
    Item::Label {
        name: name.into(),
        origin,
    }
}

pub(super) const LD_PARAM: &str = "ld.param.u64 %rd1, [_Z6kernelPj_param_0];";
pub(super) const KERNEL_BRA: &str = "@%p1 bra $L__BB0_2;";
pub(super) const LD_GLOBAL: &str = "ld.global.v2.u32 {%r2, %r3}, [%rd1];";
pub(super) const ADD: &str = "add.s32 %r4, %r2, %r3;";
pub(super) const ST_GLOBAL: &str = "st.global.u32 [%rd1], %r4;";
pub(super) const SNIPPET0_BRA: &str = "@%wt0_p0 bra $__wt0_done;";
pub(super) const SNIPPET1_ST: &str = "st.global.u64 [%wt1_rd0+8], %wt1_rd1;";

/// The original kernel: a guarded vector load, an add and a store.
pub(super) fn kernel_items() -> Vec<Item> {
    vec![
        mem(op(K, LD_PARAM, &["%rd1"], &[]), Space::Param, Access::Load),
        op(K, "mov.u32 %r1, %tid.x;", &["%r1"], &[]),
        op(K, "setp.ge.u32 %p1, %r1, 32;", &["%p1"], &["%r1"]),
        bra(K, KERNEL_BRA, "$L__BB0_2", &["%p1"]),
        mem(
            op(K, LD_GLOBAL, &["%r2", "%r3"], &["%rd1"]),
            Space::Global,
            Access::Load,
        ),
        op(K, ADD, &["%r4"], &["%r2", "%r3"]),
        mem(
            op(K, ST_GLOBAL, &[], &["%rd1", "%r4"]),
            Space::Global,
            Access::Store,
        ),
        label("$L__BB0_2", K),
        flow(op(K, "ret;", &[], &[]), Flow::Exit),
    ]
}

pub(super) fn kernel_declared() -> Vec<(String, Origin)> {
    let regs = [
        "%p0", "%p1", "%r0", "%r1", "%r2", "%r3", "%r4", "%rd0", "%rd1",
    ];
    regs.iter().map(|r| (r.to_string(), K)).collect()
}

/// `kernel:entry /tid.x == 0/ { @blocks[kernel] = count(); }`, roughly.
pub(super) fn snippet0() -> Vec<Item> {
    let o = s(0);
    vec![
        mem(
            op(o, "ld.param.u64 %wt0_rd0, [__wt_maps];", &["%wt0_rd0"], &[]),
            Space::Param,
            Access::Load,
        ),
        op(o, "mov.u32 %wt0_r0, %tid.x;", &["%wt0_r0"], &[]),
        op(
            o,
            "setp.ne.u32 %wt0_p0, %wt0_r0, 0;",
            &["%wt0_p0"],
            &["%wt0_r0"],
        ),
        bra(o, SNIPPET0_BRA, "$__wt0_done", &["%wt0_p0"]),
        mem(
            op(
                o,
                "atom.global.add.u64 %wt0_rd1, [%wt0_rd0+16], 1;",
                &["%wt0_rd1"],
                &["%wt0_rd0"],
            ),
            Space::Global,
            Access::Atomic,
        ),
        label("$__wt0_done", o),
    ]
}

/// A `mem:global:load` probe recording the address (it reads the kernel's `%rd1`).
pub(super) fn snippet1() -> Vec<Item> {
    let o = s(1);
    vec![
        mem(
            op(o, "ld.param.u64 %wt1_rd0, [__wt_maps];", &["%wt1_rd0"], &[]),
            Space::Param,
            Access::Load,
        ),
        op(o, "mov.u64 %wt1_rd1, %rd1;", &["%wt1_rd1"], &["%rd1"]),
        mem(
            op(o, SNIPPET1_ST, &[], &["%wt1_rd0", "%wt1_rd1"]),
            Space::Global,
            Access::Store,
        ),
    ]
}

pub(super) fn inserted_declared() -> Vec<(String, Origin)> {
    let s0 = ["%wt0_rd0", "%wt0_rd1", "%wt0_r0", "%wt0_p0"].map(|r| (r.to_string(), s(0)));
    let s1 = ["%wt1_rd0", "%wt1_rd1"].map(|r| (r.to_string(), s(1)));
    s0.into_iter().chain(s1).collect()
}

pub(super) fn original() -> Fixture {
    Fixture::numbered(kernel_items(), kernel_declared())
}

/// Index of the instruction with `text`.
pub(super) fn at(items: &[Item], text: &str) -> usize {
    items
        .iter()
        .position(|item| matches!(item, Item::Instr(x) if x.text == text))
        .unwrap_or_else(|| panic!("no instruction `{text}`"))
}

/// The clean splice, edited by `edit` before lines are numbered: snippet 0 at the
/// kernel's start, snippet 1 before the global load.
pub(super) fn spliced_with(edit: impl FnOnce(&mut Vec<Item>)) -> Fixture {
    let mut items = kernel_items();
    let load = at(&items, LD_GLOBAL);
    items.splice(load..load, snippet1());
    items.splice(0..0, snippet0());
    edit(&mut items);
    let declared = kernel_declared()
        .into_iter()
        .chain(inserted_declared())
        .collect();
    let mut f = Fixture::numbered(items, declared);
    f.map_param = Some(MAP_PARAM.to_string());
    f
}

/// Inserts `new` into `items` just before the instruction `before`.
pub(super) fn insert_before(items: &mut Vec<Item>, before: &str, new: Item) {
    let i = at(items, before);
    items.insert(i, new);
}

/// Replaces the instruction `old` with `new`.
pub(super) fn replace(items: &mut [Item], old: &str, new: Item) {
    let i = at(items, old);
    items[i] = new;
}

pub(super) fn violations(original: &Fixture, spliced: &Fixture) -> Vec<KernelViolation> {
    match verify_kernel(original, spliced) {
        Ok(()) => panic!("splice was accepted"),
        Err(e) => e.0,
    }
}

/// Asserts exactly one violation, of `rule`, at the instruction `text`.
pub(super) fn rejects(spliced: &Fixture, rule: KernelRule, text: &str) -> KernelViolation {
    let found = violations(&original(), spliced);
    assert_eq!(found.len(), 1, "expected one violation, got {found:#?}");
    let v = found[0].clone();
    assert_eq!(v.rule, rule, "{v}");
    assert_eq!(v.line, spliced.line_of(text), "{v}");
    assert_eq!(v.text, text, "{v}");
    assert_eq!(v.kernel, "_Z6kernelPj");
    v
}
