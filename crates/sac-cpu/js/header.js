// @NAME@: stackfish, the Mixtour engine, as a CPU opponent for StackAndConquer.
// Copyright (C) the stackfish developers
//
// This program is free software: you can redistribute it and/or modify it
// under the terms of the GNU General Public License as published by the Free
// Software Foundation, either version 3 of the License, or (at your option)
// any later version.
//
// This program is distributed in the hope that it will be useful, but WITHOUT
// ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
// FITNESS FOR A PARTICULAR PURPOSE. See the GNU General Public License for
// more details: <https://www.gnu.org/licenses/>.
//
// CPU strength: @STRENGTH@
//
// Install: put this file in StackAndConquer's cpu folder (Linux
// ~/.local/share/stackandconquer/cpu/, Windows %LOCALAPPDATA%\stackandconquer\cpu\,
// macOS ~/Library/Application Support/stackandconquer/cpu/) and pick it in
// Settings. Built from stackfish @VERSION@ (commit @COMMIT@) by
// tools/build-sac-cpu.sh: the engine (rules, search, Mixtour networks)
// compiled to WebAssembly and converted to plain JavaScript by binaryen's
// wasm2js, then the few lines at the end that speak to the app. The source:
// the stackfish repository, crates/sac-cpu and crates/sac.
