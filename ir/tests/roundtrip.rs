//! print∘parse is the identity: on random well-formed programs (proptest) and on the
//! golden files in `tests/golden/`.

use proptest::prelude::*;
use warptrace_ir::*;

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,5}"
}

fn signed() -> impl Strategy<Value = bool> {
    any::<bool>()
}

fn key_type() -> impl Strategy<Value = KeyType> {
    prop_oneof![
        signed().prop_map(|signed| KeyType::Int { signed }),
        Just(KeyType::Kernel),
        Just(KeyType::Str)
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,10}",
        prop::collection::vec(any::<char>(), 0..8).prop_map(String::from_iter),
    ]
}

fn map_decl(name: String) -> impl Strategy<Value = MapDecl> {
    let hash_value =
        prop_oneof![
            Just(ValueKind::Count),
            signed().prop_map(|signed| ValueKind::Sum { signed }),
            signed().prop_map(|signed| ValueKind::Min { signed }),
            signed().prop_map(|signed| ValueKind::Max { signed }),
            signed().prop_map(|signed| ValueKind::Avg { signed }),
            signed().prop_map(|signed| ValueKind::Stats { signed }),
            signed().prop_map(|signed| ValueKind::Value { signed }),
            Just(ValueKind::Hist),
            (any::<i64>(), any::<i64>(), any::<i64>())
                .prop_map(|(min, max, step)| ValueKind::Lhist { min, max, step }),
        ];
    let record = prop_oneof![
        prop::collection::vec(key_type(), 0..4).prop_map(ValueKind::Record),
        (0u32..8).prop_map(|args| ValueKind::Printf { args }),
    ];
    let per = prop_oneof![Just(Per::Thread), Just(Per::Warp)];
    let overflow = prop_oneof![Just(Overflow::Drop), Just(Overflow::Overwrite)];
    prop_oneof![
        (
            any::<u32>(),
            prop::collection::vec(key_type(), 0..3),
            hash_value
        )
            .prop_map(|(capacity, keys, value)| (MapKind::Hash { capacity }, keys, value)),
        (per, any::<u32>(), record.clone()).prop_map(|(per, slots, value)| (
            MapKind::Array { per, slots },
            vec![],
            value
        )),
        (any::<u32>(), overflow, record).prop_map(|(capacity, overflow, value)| (
            MapKind::Ring { capacity, overflow },
            vec![],
            value
        )),
    ]
    .prop_map(move |(kind, keys, value)| MapDecl {
        name: name.clone(),
        kind,
        keys,
        value,
    })
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        any::<u16>().prop_map(|r| Operand::Reg(Reg(r))),
        any::<i64>().prop_map(Operand::Imm),
    ]
}

fn operands(max: usize) -> impl Strategy<Value = Vec<Operand>> {
    prop::collection::vec(operand(), 0..max)
}

/// One instruction over `maps` maps, `persist` persistent registers, `formats` formats.
fn insn(maps: u32, persist: u32, formats: u32) -> BoxedStrategy<Insn> {
    let reg = any::<u16>().prop_map(Reg);
    let mut all = vec![
        (reg.clone(), operand())
            .prop_map(|(dst, src)| Insn::Mov { dst, src })
            .boxed(),
        (
            prop::sample::select(BinOp::ALL.to_vec()),
            any::<bool>(),
            reg.clone(),
            operand(),
            operand(),
        )
            .prop_map(|(op, w, dst, a, b)| Insn::Bin {
                op,
                width: if w { Width::W32 } else { Width::W64 },
                dst,
                a,
                b,
            })
            .boxed(),
        (
            reg.clone(),
            operand(),
            prop::sample::select(vec![ExtFrom::B8, ExtFrom::B16, ExtFrom::B32]),
            any::<bool>(),
        )
            .prop_map(|(dst, src, from, signed)| Insn::Ext {
                dst,
                src,
                from,
                signed,
            })
            .boxed(),
        (reg.clone(), prop::sample::select(Special::ALL.to_vec()))
            .prop_map(|(dst, special)| Insn::ReadSpecial { dst, special })
            .boxed(),
        (reg.clone(), prop::sample::select(SiteValue::ALL.to_vec()))
            .prop_map(|(dst, value)| Insn::ReadSite { dst, value })
            .boxed(),
        (reg.clone(), any::<bool>(), any::<u32>())
            .prop_map(|(cond, if_zero, target)| Insn::Branch {
                cond,
                if_zero,
                target,
            })
            .boxed(),
        any::<u32>()
            .prop_map(|target| Insn::Jump { target })
            .boxed(),
        Just(Insn::StopTracing).boxed(),
        Just(Insn::Exit).boxed(),
    ];
    if maps > 0 {
        let map = (0..maps).prop_map(MapId);
        let agg = prop_oneof![
            Just(Aggregation::Count),
            operand().prop_map(Aggregation::Sum),
            operand().prop_map(Aggregation::Min),
            operand().prop_map(Aggregation::Max),
            operand().prop_map(Aggregation::Avg),
            operand().prop_map(Aggregation::Stats),
            operand().prop_map(Aggregation::Hist),
            operand().prop_map(Aggregation::Lhist),
            operand().prop_map(Aggregation::Assign),
        ];
        all.push(
            (map.clone(), operands(4), agg)
                .prop_map(|(map, keys, agg)| Insn::MapUpdate { map, keys, agg })
                .boxed(),
        );
        all.push(
            (map.clone(), operands(4))
                .prop_map(|(map, fields)| Insn::RingAppend { map, fields })
                .boxed(),
        );
        all.push(
            (map.clone(), 0u64..20, 0u64..2000)
                .prop_map(|(map, top, div)| Insn::Print { map, top, div })
                .boxed(),
        );
        all.push(map.clone().prop_map(|map| Insn::Clear { map }).boxed());
        all.push(map.clone().prop_map(|map| Insn::Zero { map }).boxed());
        all.push(
            (map.clone(), operands(3))
                .prop_map(|(map, keys)| Insn::Delete { map, keys })
                .boxed(),
        );
        if persist > 0 {
            all.push(
                (map, (0..persist).prop_map(PersistId), operands(4))
                    .prop_map(|(map, cursor, fields)| Insn::ArraySave {
                        map,
                        cursor,
                        fields,
                    })
                    .boxed(),
            );
        }
    }
    if persist > 0 {
        let slot = (0..persist).prop_map(PersistId);
        all.push(
            (reg, slot.clone())
                .prop_map(|(dst, slot)| Insn::LoadPersist { dst, slot })
                .boxed(),
        );
        all.push(
            (slot, operand())
                .prop_map(|(slot, src)| Insn::StorePersist { slot, src })
                .boxed(),
        );
    }
    if formats > 0 {
        all.push(
            ((0..formats).prop_map(FormatId), operands(4))
                .prop_map(|(format, args)| Insn::Printf { format, args })
                .boxed(),
        );
    }
    prop::strategy::Union::new(all).boxed()
}

fn body(maps: u32, persist: u32, formats: u32) -> impl Strategy<Value = Vec<Insn>> {
    prop::collection::vec(insn(maps, persist, formats), 0..8)
}

fn attach_point() -> impl Strategy<Value = AttachPoint> {
    let fixed = prop::sample::select(vec![
        AttachPoint::KernelEntry,
        AttachPoint::KernelExit,
        AttachPoint::TensorMma,
        AttachPoint::SyncBarrier,
        AttachPoint::Branch,
        AttachPoint::Loop(LoopEdge::Header),
        AttachPoint::Loop(LoopEdge::Backedge),
        AttachPoint::Loop(LoopEdge::Exit),
    ]);
    prop_oneof![
        fixed,
        (
            prop::sample::select(MemSpace::ALL.to_vec()),
            prop::sample::select(MemOp::ALL.to_vec())
        )
            .prop_map(|(space, op)| AttachPoint::Mem { space, op }),
        (
            prop_oneof!["[a-z0-9_./+-]{1,8}", text()],
            any::<u32>(),
            prop::option::of(any::<u32>())
        )
            .prop_map(|(file, from, to)| AttachPoint::Line {
                file,
                from,
                to: to.unwrap_or(from)
            }),
        (any::<bool>(), "[a-z0-9_.*?]{0,8}").prop_map(|(gcn, glob)| AttachPoint::Opcode {
            isa: if gcn { Isa::Gcn } else { Isa::Ptx },
            glob
        }),
    ]
}

fn attach_spec() -> impl Strategy<Value = AttachSpec> {
    (
        attach_point(),
        prop::option::of("[A-Za-z0-9_*?.:\\[\\]-]{0,8}"),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(point, kernel_glob, after, warp)| AttachSpec {
            point,
            kernel_glob,
            position: if after {
                Position::After
            } else {
                Position::Before
            },
            granularity: if warp {
                Granularity::Warp
            } else {
                Granularity::Thread
            },
        })
}

fn with_spans(insns: Vec<Insn>) -> (Vec<Insn>, Vec<Option<Span>>) {
    let spans = vec![None; insns.len()];
    (insns, spans)
}

fn program() -> impl Strategy<Value = Program> {
    let decls = (
        name(),
        0usize..4,
        name(),
        0u32..3,
        prop::collection::vec(text(), 0..3),
        prop::collection::vec(
            (
                "[a-z_][a-z0-9_]{0,6}",
                prop_oneof![
                    any::<i64>().prop_map(ConfigValue::Int),
                    text().prop_map(ConfigValue::Str)
                ],
            ),
            0..3,
        ),
    );
    decls.prop_flat_map(
        |(map_prefix, nmaps, persist_prefix, npersist, formats, config)| {
            let maps: Vec<_> = (0..nmaps)
                .map(|i| map_decl(format!("{map_prefix}_{i}")))
                .collect();
            let persistent: Vec<PersistDecl> = (0..npersist)
                .map(|i| PersistDecl {
                    name: format!("{persist_prefix}_{i}"),
                })
                .collect();
            let nformats = formats.len() as u32;
            let config: Vec<ConfigEntry> = config
                .into_iter()
                .map(|(key, value)| ConfigEntry { key, value })
                .collect();
            let event = prop::sample::select(vec![
                HostEvent::Begin,
                HostEvent::End,
                HostEvent::LaunchComplete,
            ]);
            let host = prop::collection::vec(
                (event, body(nmaps as u32, npersist, nformats)).prop_map(|(event, insns)| {
                    let (insns, spans) = with_spans(insns);
                    HostBlock {
                        event,
                        insns,
                        spans,
                    }
                }),
                0..3,
            );
            let probes = prop::collection::vec(
                (attach_spec(), body(nmaps as u32, npersist, nformats)).prop_map(
                    |(attach, insns)| {
                        let (insns, spans) = with_spans(insns);
                        Probe {
                            attach,
                            insns,
                            spans,
                        }
                    },
                ),
                0..4,
            );
            (maps, host, probes).prop_map(move |(maps, host, probes)| Program {
                maps,
                probes,
                persistent: persistent.clone(),
                formats: formats.clone(),
                // Any strings: the formats' (escapes and all) serve.
                strings: formats.clone(),
                host,
                config: config.clone(),
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn print_then_parse_is_the_identity(p in program()) {
        let text = p.to_string();
        let parsed = Program::parse(&text);
        prop_assert_eq!(parsed.as_ref().ok(), Some(&p), "text:\n{}\nerror: {:?}", text, parsed.as_ref().err());
        prop_assert_eq!(parsed.map(|q| q.to_string()).ok(), Some(text));
    }
}

/// Every golden file parses, prints back to exactly its text, and round-trips.
#[test]
fn golden_files_round_trip() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("golden dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("ir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let p = Program::parse(&text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
        assert_eq!(p.to_string(), text, "{}", path.display());
        n += 1;
    }
    assert!(n >= 3, "expected golden files in {}", dir.display());
}

fn error(text: &str) -> String {
    match Program::parse(text) {
        Ok(_) => "parsed".into(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn parse_errors_are_located() {
    assert_eq!(
        error(
            "map @a: hash(keys = 4) -> count\n\nprobe 0: kernel:entry\n  0: r0 = frob.64 r1, 2\n"
        ),
        "4:11: unknown instruction"
    );
    assert_eq!(
        error("probe 0: kernel:entry\n  0: map.update @nope count\n"),
        "2:17: unknown map @nope"
    );
    assert_eq!(
        error("probe 0: kernel:entry\n  1: exit\n"),
        "2:3: expected instruction 0"
    );
    assert_eq!(
        error("probe 0: kernel:middle\n"),
        "1:10: expected an attach point"
    );
    assert_eq!(
        error("  0: exit\n"),
        "1:1: an instruction outside a probe or host block"
    );
    assert_eq!(
        error("format 0: \"unterminated\n"),
        "1:11: unterminated string"
    );
    assert_eq!(
        error("probe 0: kernel:entry\n  0: r0 = mov 99999999999999999999\n"),
        "2:15: number out of range"
    );
    assert_eq!(
        error("probe 0: kernel:entry\nmap @a: hash(keys = 4) -> count\n"),
        "2:1: declarations come before host blocks and probes"
    );
    assert_eq!(
        error("map @a: hash(keys = 4) -> count\nmap @a: hash(keys = 4) -> count\n"),
        "2:1: map @a is declared twice"
    );
    assert_eq!(
        error("frobnicate\n"),
        "1:1: expected config, map, persistent, format, host or probe"
    );
}
