//! The progress bar of the built-in model's start on stderr: redrawn in place on a
//! terminal, one line per change of stage (or per tenth of it) elsewhere, so logs stay
//! short.

use std::io::Write;
use std::sync::Mutex;

use artoo::local_llm::{Progress, Stage};

/// Width of the bar in cells.
const WIDTH: usize = 24;

/// The bar as text: `[#######·········]  38%`, or a spinner-free `[ … ]` when the stage
/// is not countable.
pub fn bar(progress: &Progress) -> String {
    match progress.fraction() {
        Some(f) => {
            let filled = ((f * WIDTH as f64).round() as usize).min(WIDTH);
            format!(
                "[{}{}] {:>3}%",
                "#".repeat(filled),
                "·".repeat(WIDTH - filled),
                (f * 100.0).round()
            )
        }
        None => format!("[{}]     ", "·".repeat(WIDTH)),
    }
}

/// Draws [`Progress`] reports on stderr.
#[derive(Debug)]
pub struct Bar {
    terminal: bool,
    /// The last stage and tenth printed (non-terminal output prints only changes).
    last: Mutex<Option<(Stage, u64)>>,
}

impl Bar {
    pub fn new(terminal: bool) -> Self {
        Self {
            terminal,
            last: Mutex::new(None),
        }
    }

    /// The lines to print for `progress` (with `text` saying what it is), if any.
    pub fn render(&self, progress: &Progress, text: &str) -> Option<String> {
        let tenth = progress.fraction().map_or(0, |f| (f * 10.0).floor() as u64);
        let mut last = artoo::sync::lock(&self.last);
        let done = progress.stage == Stage::Ready;
        if self.terminal {
            let end = if done { "\n" } else { "" };
            return Some(format!("\r\x1b[2K{} {text}{end}", bar(progress)));
        }
        if *last == Some((progress.stage, tenth)) {
            return None;
        }
        *last = Some((progress.stage, tenth));
        Some(format!("{} {text}\n", bar(progress)))
    }

    pub fn show(&self, progress: &Progress, text: &str) {
        if let Some(out) = self.render(progress, text) {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(out.as_bytes());
            let _ = err.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_fraction() {
        assert_eq!(
            bar(&Progress::new(Stage::Fetch, 3, 6)),
            format!("[{}{}]  50%", "#".repeat(12), "·".repeat(12))
        );
        assert!(bar(&Progress::new(Stage::Start, 0, 0)).starts_with("[····"));
    }

    #[test]
    fn without_a_terminal_only_changes_are_printed_one_line_each() {
        let bar = Bar::new(false);
        let build = |done| Progress::new(Stage::Build, done, 1000);
        assert!(bar.render(&build(10), "b").is_some());
        assert!(bar.render(&build(20), "b").is_none(), "same tenth");
        let next = bar.render(&build(150), "b").expect("a new tenth");
        assert!(next.ends_with(" b\n") && !next.contains('\r'), "{next:?}");
        let tty = Bar::new(true);
        let line = tty.render(&build(20), "b").expect("always redrawn");
        assert!(line.starts_with('\r'), "{line:?}");
    }
}
