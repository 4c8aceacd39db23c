//! The exports the shim calls (the crate's documentation lists them). The
//! module imports nothing: no clock (the search stops by nodes), no output
//! function (replies wait in `OUT` for the shim to read).

use std::cell::RefCell;

use super::{bench_mixtour, strength, Script};

thread_local! {
    /// The script, made by `sc_init` (or the first turn, at level 1).
    static SCRIPT: RefCell<Option<Script>> = const { RefCell::new(None) };
    /// The last reply or bench report, read by the shim at `sc_out()`.
    static OUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

fn answer(text: String) -> usize {
    OUT.with(|out| {
        let mut out = out.borrow_mut();
        *out = text.into_bytes();
        out.len()
    })
}

/// A buffer of `len` bytes for the request; `sc_turn` takes it back.
#[no_mangle]
pub extern "C" fn sc_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Where the last reply starts; `sc_turn` and `sc_bench` return its length.
#[no_mangle]
pub extern "C" fn sc_out() -> *const u8 {
    OUT.with(|out| out.borrow().as_ptr())
}

/// Makes the script at `level` (1 to `MAX_LEVEL`; others are brought into
/// range).
#[no_mangle]
pub extern "C" fn sc_init(level: u32) {
    let level = u8::try_from(level).unwrap_or(u8::MAX);
    SCRIPT.with(|script| *script.borrow_mut() = Some(Script::new(level)));
}

/// One turn: the request (UTF-8 JSON) in the buffer from `sc_alloc(len)`,
/// freed here; returns the length of the reply at `sc_out()`.
///
/// # Safety
/// `ptr` comes from `sc_alloc(len)` and holds `len` written bytes.
#[no_mangle]
pub unsafe extern "C" fn sc_turn(ptr: *mut u8, len: usize) -> usize {
    // SAFETY: the caller's contract: the buffer is ours, from `sc_alloc`.
    let bytes = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) };
    let request = String::from_utf8_lossy(&bytes).into_owned();
    let reply = SCRIPT.with(|script| {
        script
            .borrow_mut()
            .get_or_insert_with(|| Script::new(1))
            .turn(&request)
    });
    answer(reply)
}

/// The Mixtour part of `bench` to `depth` (0: the suite's own, 7); its
/// lines, each ended by a newline, at `sc_out()`.
#[no_mangle]
pub extern "C" fn sc_bench(depth: i32) -> usize {
    let mut lines = String::new();
    let nodes = bench_mixtour((depth > 0).then_some(depth), &mut |line| {
        lines.push_str(line);
        lines.push('\n');
    });
    lines.push_str(&format!("{nodes} nodes\n"));
    answer(lines)
}

/// The `// CPU strength:` label of `level` (for the build) at `sc_out()`.
#[no_mangle]
pub extern "C" fn sc_strength(level: u32) -> usize {
    answer(strength(u8::try_from(level).unwrap_or(u8::MAX)))
}
