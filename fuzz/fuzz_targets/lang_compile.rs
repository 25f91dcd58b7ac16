//! The probe language front end (parse, check, lower) must return a program or
//! diagnostics for any input, never panic, and render its diagnostics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(source) = std::str::from_utf8(data) {
        if let Err(e) = warptrace_lang::compile(source, "fuzz.wt") {
            let _ = e.render();
        }
    }
});
