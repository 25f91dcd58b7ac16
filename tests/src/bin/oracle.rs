//! `warptrace-oracle -e PROGRAM`: what the IR interpreter predicts a probe program reports
//! for `tests/workloads/nvcc_app.cu`, printed exactly as `warptrace` prints its maps.
//! `scripts/gpu_e2e.py` runs the same programs on the GPU and compares the two outputs
//! line for line, so the interpreter is the oracle for the lowered PTX.
//!
//! The model of each kernel is the sequence of PTX instructions each thread executes, as
//! `nvcc -arch=sm_90a -ptx` compiles `nvcc_app.cu` (see `tests/corpus/ptx/nvcc_app.ptx`):
//! the global/shared accesses, barriers and exits a thread reaches, with their widths and
//! addresses, and the loop points of `block_sum`'s reduction loop. Only deterministic builtins should be compared (not `clock*`, `smid`).

use std::process::ExitCode;
use warptrace_ir::interp::{Event, Grid, Interpreter, SimConfig, SimKernel, SiteEvent, Thread};
use warptrace_ir::{kernel_id, LoopEdge, MapStore, MemOp, MemSpace, Program};

/// `nvcc_app`'s problem: 2^20 floats, 256-thread blocks.
const N: u64 = 1 << 20;
const THREADS: u32 = 256;
/// Base addresses of the arrays (any distinct values: only `addr` would show them).
const IN: u64 = 0x7f00_0000_0000;
const OUT: u64 = 0x7f10_0000_0000;
const Y: u64 = 0x7f20_0000_0000;

fn mem(pc: u32, space: MemSpace, op: MemOp, opcode: &str, addr: u64) -> Event {
    Event::at(pc, SiteEvent::mem(space, op, opcode, addr, 4))
}

fn barrier(pc: u32) -> Event {
    Event::at(
        pc,
        SiteEvent::Barrier {
            opcode: "bar.sync".to_string(),
        },
    )
}

/// `block_sum`: load one float, tree-reduce in shared memory, thread 0 stores the sum;
/// the other threads leave through the explicit `exit`, thread 0 through `ret`.
fn block_sum(t: &Thread) -> Vec<Event> {
    use MemOp::{Load, Store};
    use MemSpace::{Global, Shared};
    let i = t.ctaid[0] as u64 * THREADS as u64 + t.tid[0] as u64;
    let mut ev = vec![Event::at(0, SiteEvent::Entry)];
    if i < N {
        ev.push(mem(1, Global, Load, "ld.global.f32", IN + 4 * i));
    }
    ev.push(mem(2, Shared, Store, "st.shared.f32", 4 * t.tid[0] as u64));
    ev.push(barrier(3));
    let mut s = THREADS / 2;
    while s > 0 {
        // The reduction loop (`$L__BB0_4`): its header at the top of every iteration.
        ev.push(Event::at(12, SiteEvent::Loop(LoopEdge::Header)));
        if t.tid[0] < s {
            ev.push(mem(4, Shared, Load, "ld.shared.f32", 4 * t.tid[0] as u64));
            ev.push(mem(
                5,
                Shared,
                Load,
                "ld.shared.f32",
                4 * (t.tid[0] + s) as u64,
            ));
            ev.push(mem(6, Shared, Store, "st.shared.f32", 4 * t.tid[0] as u64));
        }
        ev.push(barrier(7));
        s /= 2;
        // The latch `@%p5 bra $L__BB0_4`: a back edge when taken, the loop's exit when it
        // falls through; every point of the loop has its header's `pc`.
        ev.push(if s > 0 {
            Event::at(12, SiteEvent::Loop(LoopEdge::Backedge))
        } else {
            Event::at(12, SiteEvent::Loop(LoopEdge::Exit))
        });
    }
    if t.tid[0] != 0 {
        ev.push(Event::at(8, SiteEvent::Exit));
    } else {
        ev.push(mem(9, Shared, Load, "ld.shared.f32", 0));
        ev.push(mem(
            10,
            Global,
            Store,
            "st.global.f32",
            OUT + 4 * t.ctaid[0] as u64,
        ));
        ev.push(Event::at(11, SiteEvent::Exit));
    }
    ev
}

/// `scale_add`: `y[i] = a * x[i] + y[i]` for `i < n`.
fn scale_add(t: &Thread) -> Vec<Event> {
    use MemOp::{Load, Store};
    use MemSpace::Global;
    let i = t.ctaid[0] as u64 * THREADS as u64 + t.tid[0] as u64;
    let mut ev = vec![Event::at(0, SiteEvent::Entry)];
    if i < N {
        ev.push(mem(1, Global, Load, "ld.global.f32", IN + 4 * i));
        ev.push(mem(2, Global, Load, "ld.global.f32", Y + 4 * i));
        ev.push(mem(3, Global, Store, "st.global.f32", Y + 4 * i));
    }
    ev.push(Event::at(4, SiteEvent::Exit));
    ev
}

fn run(program: &Program) -> Result<String, String> {
    let grid = Grid::linear((N / THREADS as u64) as u32, THREADS);
    let kernels = [
        ("_Z9block_sumPKfPfi", block_sum as fn(&Thread) -> Vec<Event>),
        ("_Z9scale_addPKfPffi", scale_add),
    ];
    let mut store = MapStore::new(program);
    let mut names = std::collections::BTreeMap::new();
    for (launch, (name, events)) in (1..).zip(kernels) {
        // The runtime numbers the process's instrumented launches from 1, in order.
        let interpreter = Interpreter::new(program).with_config(SimConfig {
            launch,
            ..SimConfig::default()
        });
        let kernel = SimKernel::new(name, events);
        let launch = interpreter
            .run_kernel(&kernel, &grid)
            .map_err(|e| format!("{name}: {e}"))?;
        store.merge(launch);
        names.insert(kernel_id(name), name.to_string());
    }
    // What the CLI prints at exit: maps, then ring and array records (stdout), then a
    // lost-events line per map that lost records (stderr there, last here).
    let maps = warptrace_runtime::store_outputs(program, &store, &names);
    let rings = warptrace_runtime::ring_outputs(program, &store, &names);
    let mut out = if maps.is_empty() && rings.iter().all(|r| r.records.is_empty()) {
        String::new()
    } else {
        warptrace_runtime::text::exit_with_rings(&maps, &rings)
    };
    for (_, lost) in warptrace_runtime::lost_records(program, &store) {
        out.push_str(&warptrace_runtime::text::lost_events(lost));
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let source = match args.as_slice() {
        [_, flag, source] if flag == "-e" => source,
        _ => {
            eprintln!("usage: warptrace-oracle -e PROGRAM");
            return ExitCode::from(2);
        }
    };
    let program = match warptrace_lang::compile(source, "stdin") {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
    };
    match run(&program) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("warptrace-oracle: {e}");
            ExitCode::FAILURE
        }
    }
}
