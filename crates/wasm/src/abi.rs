//! The exports and imports described in the crate's documentation.

use std::cell::RefCell;
use std::io::{self, Write};

use stackfish_engine::protocol::{Host, Protocol};

#[link(wasm_import_module = "env")]
extern "C" {
    fn sf_out(ptr: *const u8, len: usize);
    fn sf_now() -> f64;
}

thread_local! {
    /// The one engine of this instance; created on first use.
    static ENGINE: RefCell<Option<Protocol>> = const { RefCell::new(None) };
}

/// Output bytes, handed to the host a whole line at a time.
struct Lines(Vec<u8>);

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut start = 0;
        while let Some(end) = self.0[start..].iter().position(|&b| b == b'\n') {
            let line = &self.0[start..start + end];
            // SAFETY: the host reads `len` bytes at `ptr` during the call only.
            unsafe { sf_out(line.as_ptr(), line.len()) };
            start += end + 1;
        }
        self.0.drain(..start);
        Ok(())
    }
}

pub(crate) fn now_ms() -> f64 {
    // SAFETY: an import without arguments returning a number.
    unsafe { sf_now() }
}

fn new_engine() -> Protocol {
    stackfish_search::seam::set_clock(now_ms);
    Protocol::new(Host::default(), Lines(Vec::new()))
}

/// A buffer of `len` bytes for the host to write a line into; `sf_line`
/// takes it back.
#[no_mangle]
pub extern "C" fn sf_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Hands one input line (UTF-8, without its newline) to the protocol loop;
/// 1 while the engine runs, 0 once it has quit.
///
/// # Safety
/// `ptr` comes from `sf_alloc(len)` and holds `len` written bytes.
#[no_mangle]
pub unsafe extern "C" fn sf_line(ptr: *mut u8, len: usize) -> u32 {
    // SAFETY: the caller's contract, passed on.
    let line = unsafe { take_text(ptr, len) };
    ENGINE.with(|engine| {
        let mut engine = engine.borrow_mut();
        let protocol = engine.get_or_insert_with(new_engine);
        u32::from(protocol.line(&line))
    })
}

/// Takes back a buffer of `sf_alloc` as text; invalid UTF-8 becomes
/// `<invalid utf-8>` (for the engine an unknown command, as on standard
/// input; for the board a request or line it refuses).
///
/// # Safety
/// `ptr` comes from `sf_alloc(len)` and holds `len` written bytes; the
/// buffer is freed here.
pub(crate) unsafe fn take_text(ptr: *mut u8, len: usize) -> String {
    // SAFETY: the caller's contract: the buffer is ours, from `sf_alloc`.
    let bytes = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) };
    String::from_utf8(bytes.into_vec()).unwrap_or_else(|_| "<invalid utf-8>".to_string())
}

/// Drops the engine; the next line starts a fresh one.
#[no_mangle]
pub extern "C" fn sf_reset() {
    ENGINE.with(|engine| *engine.borrow_mut() = None);
}
