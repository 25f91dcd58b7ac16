//! The PTX parser must not panic, and print∘parse must give back the input exactly.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(module) = warptrace_codegen_ptx::parse(text) {
            assert_eq!(module.to_text(), text);
        }
    }
});
