//! Tests of `CallRewrite` over hand-built models: a kernel calling `_Z1fPj`, redirected to
//! its clone `__wt_0__Z1fPj`, and mutations of the redirection and of the clone.

use super::fixture::{flow, mem, op, s, K};
use crate::{
    verify_kernel, verify_kernel_with_callees, Access, CallSite, Compute, Flow, Item, KernelModel,
    KernelRule, KernelViolation, Origin, Space, Spliced,
};

/// A model with a name and parameters (the fixture's has neither).
#[derive(Debug, Clone)]
struct Model {
    name: String,
    items: Vec<Item>,
    params: Vec<(String, Origin)>,
    declared: Vec<(String, Origin)>,
    map_param: Option<String>,
}

impl KernelModel for Model {
    fn kernel_name(&self) -> &str {
        &self.name
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
    fn params(&self) -> Vec<(String, Origin)> {
        self.params.clone()
    }
}

const MAPS: &str = "__wt_maps";
const KERNEL: &str = "_Z6kernelPj";
const F: &str = "_Z1fPj";
const CLONE: &str = "__wt_0__Z1fPj";
const CALL: &str = "call.uni (retval0), _Z1fPj, (param0);";
const NEW_CALL: &str = "call.uni (retval0), __wt_0__Z1fPj, (param0, __wt_arg1);";
const LOAD: &str = "ld.param.u64 %__wt_t0, [__wt_maps];";
const STORE: &str = "st.param.b64 [__wt_arg1], %__wt_t0;";

fn model(name: &str, mut items: Vec<Item>, params: &[(&str, Origin)], map: bool) -> Model {
    for (i, item) in items.iter_mut().enumerate() {
        if let Item::Instr(x) = item {
            x.line = i as u32 + 1;
        }
    }
    let mut declared: Vec<(String, Origin)> = Vec::new();
    for item in &items {
        if let Item::Instr(x) = item {
            for r in x.defs.iter().chain(&x.uses) {
                if !declared.iter().any(|(d, _)| d == r) {
                    declared.push((r.to_string(), x.origin));
                }
            }
        }
    }
    Model {
        name: name.into(),
        items,
        params: params.iter().map(|(n, o)| (n.to_string(), *o)).collect(),
        declared,
        map_param: map.then(|| MAPS.to_string()),
    }
}

/// A call of `callee` with `args`, written `text`.
fn call(origin: Origin, text: &str, form: &str, callee: Option<&str>, args: &[&str]) -> Item {
    let Item::Instr(mut x) = flow(op(origin, text, &[], &[]), Flow::Call) else {
        unreachable!()
    };
    x.compute = Compute::Call(Box::new(CallSite {
        callee: callee.map(str::to_string),
        rets: vec!["retval0".to_string()],
        args: args.iter().map(|a| a.to_string()).collect(),
        form: form.into(),
    }));
    Item::Instr(x)
}

fn param_load(origin: Origin, text: &str, def: &str) -> Item {
    mem(op(origin, text, &[def], &[]), Space::Param, Access::Load)
}

fn prologue() -> Vec<Item> {
    vec![
        param_load(s(0), "ld.param.u64 %__wt_base, [__wt_maps];", "%__wt_base"),
        compute_copy(),
    ]
}

fn compute_copy() -> Item {
    let Item::Instr(mut x) = op(
        s(0),
        "cvta.to.global.u64 %__wt_base, %__wt_base;",
        &["%__wt_base"],
        &["%__wt_base"],
    ) else {
        unreachable!()
    };
    x.compute = Compute::Copy("%__wt_base".into());
    Item::Instr(x)
}

fn original_kernel() -> Model {
    let items = vec![
        param_load(K, "ld.param.u64 %rd1, [_Z6kernelPj_param_0];", "%rd1"),
        mem(
            op(K, "st.param.b64 [param0], %rd1;", &[], &["%rd1"]),
            Space::Param,
            Access::Store,
        ),
        call(K, CALL, "call.uni", Some(F), &["param0"]),
        flow(op(K, "ret;", &[], &[]), Flow::Exit),
    ];
    model(KERNEL, items, &[("_Z6kernelPj_param_0", K)], false)
}

/// The redirected kernel, its items edited by `edit` before lines are numbered.
fn kernel_with(edit: impl FnOnce(&mut Vec<Item>)) -> Model {
    let mut items = prologue();
    let o = original_kernel().items;
    items.extend(o[..2].iter().cloned());
    items.push(param_load(s(1), LOAD, "%__wt_t0"));
    items.push(mem(
        op(s(1), STORE, &[], &["%__wt_t0"]),
        Space::Param,
        Access::Store,
    ));
    items.push(call(
        K,
        NEW_CALL,
        "call.uni",
        Some(CLONE),
        &["param0", "__wt_arg1"],
    ));
    items.push(o[3].clone());
    edit(&mut items);
    model(
        KERNEL,
        items,
        &[("_Z6kernelPj_param_0", K), (MAPS, s(0))],
        true,
    )
}

fn original_f() -> Model {
    let items = vec![
        param_load(K, "ld.param.u64 %rd1, [_Z1fPj_param_0];", "%rd1"),
        mem(
            op(K, "st.global.u32 [%rd1], 0;", &[], &["%rd1"]),
            Space::Global,
            Access::Store,
        ),
        flow(op(K, "ret;", &[], &[]), Flow::Exit),
    ];
    model(F, items, &[("_Z1fPj_param_0", K)], false)
}

/// The clone: a probe counting the store into the map buffer.
fn clone_with(edit: impl FnOnce(&mut Vec<Item>)) -> Model {
    let o = original_f().items;
    let mut items = prologue();
    items.push(o[0].clone());
    items.push(mem(
        op(
            s(1),
            "red.global.add.u64 [%__wt_base+8], 1;",
            &[],
            &["%__wt_base"],
        ),
        Space::Global,
        Access::Atomic,
    ));
    items.extend(o[1..].iter().cloned());
    edit(&mut items);
    model(CLONE, items, &[("_Z1fPj_param_0", K), (MAPS, s(0))], true)
}

fn check(kernel: &Model, clones: &[(&Model, &Model)]) -> Vec<KernelViolation> {
    let original = original_kernel();
    let units: Vec<Spliced<'_>> = clones
        .iter()
        .map(|&(original, spliced)| Spliced { original, spliced })
        .collect();
    let k = Spliced {
        original: &original,
        spliced: kernel,
    };
    verify_kernel_with_callees(k, &units)
        .err()
        .map_or(Vec::new(), |e| e.0)
}

/// The violations of `kernel` with the clean clone of `_Z1fPj`.
fn violations(kernel: &Model) -> Vec<KernelViolation> {
    check(kernel, &[(&original_f(), &clone_with(|_| {}))])
}

/// Exactly one `CallRewrite` violation, at the redirected call of `kernel`; its message.
fn rejected(kernel: &Model, call_text: &str) -> String {
    let found = violations(kernel);
    assert_eq!(found.len(), 1, "{found:#?}");
    let v = &found[0];
    assert_eq!(v.rule, KernelRule::CallRewrite, "{v}");
    assert_eq!(v.text, call_text, "{v}");
    assert_eq!(v.kernel, KERNEL);
    assert_eq!(v.corrupts.as_deref(), Some(CALL));
    v.message.clone()
}

fn replace(items: &mut [Item], text: &str, new: Item) {
    let i = super::fixture::at(items, text);
    items[i] = new;
}

#[test]
fn accepts_a_call_redirected_to_the_clone_with_the_map_parameter() {
    assert_eq!(violations(&kernel_with(|_| {})), []);
}

#[test]
fn without_the_clone_the_redirected_call_is_rejected() {
    let e = verify_kernel(&original_kernel(), &kernel_with(|_| {})).expect_err("rejected");
    assert_eq!(e.0.len(), 1, "{e}");
    assert_eq!(e.0[0].rule, KernelRule::CallRewrite);
    assert!(e.0[0].message.contains("not a verified clone"), "{e}");
}

#[test]
fn rejects_a_call_to_another_function_or_another_functions_clone() {
    let other = |callee: &str| {
        let text = format!("call.uni (retval0), {callee}, (param0, __wt_arg1);");
        let kernel = kernel_with(|items| {
            let new = call(K, &text, "call.uni", Some(callee), &["param0", "__wt_arg1"]);
            replace(items, NEW_CALL, new)
        });
        (text, kernel)
    };
    let (text, kernel) = other("_Z4evilPj");
    assert!(rejected(&kernel, &text).contains("not a verified clone"));
    // `__wt_0__Z1gPj` is the verified clone of `_Z1gPj`, not of `_Z1fPj`.
    let (text, kernel) = other("__wt_0__Z1gPj");
    let g = model(
        "_Z1gPj",
        original_f().items,
        &[("_Z1fPj_param_0", K)],
        false,
    );
    let g_clone = Model {
        name: "__wt_0__Z1gPj".into(),
        ..clone_with(|_| {})
    };
    let found = check(
        &kernel,
        &[(&original_f(), &clone_with(|_| {})), (&g, &g_clone)],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::CallRewrite);
    assert!(
        found[0].message.contains("the clone of `_Z1gPj`"),
        "{}",
        found[0]
    );
    assert_eq!(found[0].text, text);
}

#[test]
fn rejects_other_arguments_and_a_map_argument_the_kernel_uses() {
    for (args, why) in [
        (&["__wt_arg1"][..], "not the original's"),
        (&["param0", "param0"][..], "the kernel's own code uses"),
        (&["__wt_arg1", "param0"][..], "not the original's"),
        (
            &["param0", "_Z6kernelPj_param_0"][..],
            "the kernel's own code uses",
        ),
    ] {
        let text = format!("call.uni (retval0), __wt_0__Z1fPj, ({});", args.join(", "));
        let last = args.last().copied().unwrap_or("");
        let kernel = kernel_with(|items| {
            replace(
                items,
                NEW_CALL,
                call(K, &text, "call.uni", Some(CLONE), args),
            );
            let store = format!("st.param.b64 [{last}], %__wt_t0;");
            replace(
                items,
                STORE,
                mem(
                    op(s(1), &store, &[], &["%__wt_t0"]),
                    Space::Param,
                    Access::Store,
                ),
            );
        });
        let message = rejected(&kernel, &text);
        assert!(message.contains(why), "{args:?}: {message}");
    }
}

#[test]
fn rejects_a_changed_call_form() {
    let text = "call (retval0), __wt_0__Z1fPj, (param0, __wt_arg1);";
    let kernel = kernel_with(|items| {
        replace(
            items,
            NEW_CALL,
            call(K, text, "call", Some(CLONE), &["param0", "__wt_arg1"]),
        )
    });
    assert!(rejected(&kernel, text).contains("form"));
}

#[test]
fn rejects_a_map_argument_that_is_not_the_map_parameters_value() {
    let store = |value: &str| {
        mem(
            op(
                s(1),
                &format!("st.param.b64 [__wt_arg1], {value};"),
                &[],
                &[value],
            ),
            Space::Param,
            Access::Store,
        )
    };
    // A kernel register instead of the base.
    let kernel = kernel_with(|items| replace(items, STORE, store("%rd1")));
    assert!(rejected(&kernel, NEW_CALL).contains("not loaded from the map parameter"));
    // The base plus an offset: a map pointer, but not the base the callee must get.
    let kernel = kernel_with(|items| {
        let add = op(
            s(1),
            "add.s64 %__wt_t0, %__wt_base, 8;",
            &["%__wt_t0"],
            &["%__wt_base"],
        );
        replace(items, LOAD, add);
    });
    assert!(rejected(&kernel, NEW_CALL).contains("not loaded from the map parameter"));
    // A guarded load, or no store at all.
    let kernel = kernel_with(|items| {
        let guarded = param_load(s(1), "@%p1 ld.param.u64 %__wt_t0, [__wt_maps];", "%__wt_t0");
        replace(items, LOAD, guarded);
    });
    assert!(rejected(&kernel, NEW_CALL).contains("not loaded from the map parameter"));
    let kernel = kernel_with(|items| {
        let i = super::fixture::at(items, STORE);
        items.remove(i);
    });
    assert!(rejected(&kernel, NEW_CALL).contains("not an inserted, unguarded store"));
}

#[test]
fn an_inserted_parameter_store_elsewhere_is_still_memory_safety() {
    let kernel = kernel_with(|items| {
        let i = super::fixture::at(items, LOAD);
        let stray = mem(
            op(s(1), "st.param.b64 [param0], %__wt_t0;", &[], &["%__wt_t0"]),
            Space::Param,
            Access::Store,
        );
        items.insert(i, stray);
    });
    let found = violations(&kernel);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::MemorySafety);
}

#[test]
fn the_clone_is_verified_with_every_rule() {
    let bad = clone_with(|items| {
        let i = super::fixture::at(items, "red.global.add.u64 [%__wt_base+8], 1;");
        items[i] = mem(
            op(s(1), "red.global.add.u64 [%rd1], 1;", &[], &["%rd1"]),
            Space::Global,
            Access::Atomic,
        );
    });
    let found = check(&kernel_with(|_| {}), &[(&original_f(), &bad)]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].rule, KernelRule::MemorySafety);
    assert_eq!(found[0].kernel, CLONE);
}

#[test]
fn a_clone_needs_its_own_name_and_the_originals_parameters_then_the_map_parameter() {
    let kernel = kernel_with(|_| {});
    for (params, why) in [
        (
            vec![(MAPS, s(0)), ("_Z1fPj_param_0", K)],
            "not the original's",
        ),
        (vec![("_Z1fPj_param_0", K)], "not the original's"),
        (
            vec![("_Z1fPj_param_0", K), ("__wt_other", s(0))],
            "not the original's",
        ),
        (
            vec![("_Z1fPj_param_0", s(0)), (MAPS, s(0))],
            "not the original's",
        ),
    ] {
        let clone = Model {
            params: params.iter().map(|(n, o)| (n.to_string(), *o)).collect(),
            ..clone_with(|_| {})
        };
        let found = check(&kernel, &[(&original_f(), &clone)]);
        assert!(
            found
                .iter()
                .any(|v| v.rule == KernelRule::CallRewrite && v.message.contains(why)),
            "{params:?}: {found:#?}"
        );
    }
    let in_place = Model {
        name: F.into(),
        ..clone_with(|_| {})
    };
    let found = check(&kernel, &[(&original_f(), &in_place)]);
    assert!(
        found
            .iter()
            .any(|v| v.message.contains("keeps the original's name")),
        "{found:#?}"
    );
}
