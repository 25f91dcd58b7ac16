//! The IR text parser must not panic, and whatever it accepts must print back to text
//! that parses to the same program.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(program) = warptrace_ir::Program::parse(text) {
            let printed = program.to_string();
            let again = warptrace_ir::Program::parse(&printed).expect("printed IR parses");
            assert_eq!(again, program);
        }
    }
});
