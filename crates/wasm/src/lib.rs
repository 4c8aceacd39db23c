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
//! The board ABI, in the same module: the browser board's state (crate
//! stackfish-board, the JSON API of `stackfish serve` without HTTP), whose
//! searches the host runs on an engine of its own (a worker of the same
//! module). Exports: `sb_call(ptr, len) -> status` (one request
//! `{"method","path","body"}`, answered through the import `sb_out(ptr,
//! len)` once, before it returns, as `{"status","type","body"}` and
//! `"filename"` for a download); `sb_engine_line(search, ptr, len)` (a line
//! of the engine running search `search`); `sb_engine_failed(search, ptr,
//! len)` (that engine crashed, with a message). Imports: `sb_engine(ptr,
//! len)` (`{"search":id,"send":[lines]}` starts a search, `{"search":id,
//! "stop":true}` stops it), `sb_changed()` (the state changed) and
//! `sf_wall() -> f64` (ms since the Unix epoch, `Date.now()`). Input
//! buffers come from `sf_alloc` and are freed by the callee. A host of the
//! engine alone gives the board's imports functions that do nothing.
//! js/board.js is the browser's host of the board.
//!
//! On every other target the crate is empty.

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod abi;
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod board;
