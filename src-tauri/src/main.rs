//! The artoo desktop app binary (see the library for everything).

#![forbid(unsafe_code)]
// No console window behind the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    artoo_desktop::run(std::time::Instant::now());
}
