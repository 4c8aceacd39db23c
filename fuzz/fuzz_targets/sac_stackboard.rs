//! A StackAndConquer `.stackboard` file (`stackfish_fuzz::sac_file`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stackfish_sac::FileKind;

fuzz_target!(|data: &[u8]| stackfish_fuzz::sac_file(FileKind::StackBoard, data));
