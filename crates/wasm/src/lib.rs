//! The engine as a WebAssembly module, with a hand-written ABI of four
//! exports and two imports instead of generated glue: the engine speaks
//! text (UGI lines), so bytes in and bytes out are all a host needs.
//!
//! Exports: `sf_alloc(len) -> ptr` (a buffer the host writes one input line
//! into), `sf_line(ptr, len) -> 1|0` (hands the line to the protocol loop and
//! frees the buffer; 0 once the engine has quit), `sf_reset()` (a fresh
//! engine, as at start). Imports from module `env`: `sf_out(ptr, len)`, one
//! output line without its newline, valid only during the call; and
//! `sf_now() -> f64`, milliseconds on any monotonic clock
//! (`performance.now()`).
//!
//! A search runs on the calling thread: `sf_line("go ...")` returns after
//! `bestmove`, `go infinite` after its last depth with the `bestmove` held
//! until `stop`. A host that must stop sooner ends the instance and starts
//! another from the compiled module (stackfish.js does).
//!
//! On every other target the crate is empty.

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod abi;
