//! The programs the classifier understands well enough to prove a command reversible:
//! which options each takes, and which of them change nothing.
//!
//! A program is proven only when it is in this table and every option it is given is
//! one the table lists for it (long options may be abbreviated to any unique prefix, as
//! GNU tools accept). An unknown program, or an option the table does not list, leaves
//! the command unproven — it then runs in the sandbox, or asks where there is none. The
//! effects of the options that do something irreversible (`sort -o` onto an existing
//! file, `date -s`) are found by the program rules in `programs`; this table only says
//! whether the rest is understood.
//!
//! **Invariant:** an entry never lists an option that runs another program, writes a
//! file the rules in `programs` do not see, or changes the system; when in doubt an
//! option is left out (unproven), never put in.

use super::args::Arg;
pub(super) use super::known_readers::NETWORK_READERS;
use super::known_readers::{READER_OPTIONS, READERS};
use super::known_table::PROGRAM_OPTIONS;
pub(super) use super::known_table::{Known, Opts};

/// The entry of `name` in a table of `(names, entry)` rows.
fn entry(table: &[(&[&str], Known)], name: &str) -> Option<Known> {
    table
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, known)| *known)
}

/// The table entry of a program, by its folded name.
pub(super) fn known(name: &str) -> Option<Known> {
    if READERS.contains(&name) {
        // A few readers have options that write or run something: they get rules.
        return Some(entry(READER_OPTIONS, name).unwrap_or(Known::Reader));
    }
    entry(PROGRAM_OPTIONS, name)
}

/// Options a command was given that its table entry does not list.
pub(super) fn unknown_options(o: &Opts, args: &[Arg]) -> Option<String> {
    let mut i = 0;
    while i < args.len() {
        let Some(t) = args[i].lit.as_deref() else {
            // A word only known at run time may be an option.
            if args[i].raw.starts_with('-') || args[i].raw.starts_with('$') {
                return Some(args[i].raw.clone());
            }
            i += 1;
            continue;
        };
        if t == "--" {
            return None;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (key, has_value) = match body.split_once('=') {
                Some((k, _)) => (k, true),
                None => (body, false),
            };
            // A long option that takes a value is known too, whether or not `long`
            // repeats it.
            let all: Vec<&'static str> = o.long.iter().chain(o.long_val).copied().collect();
            match long_option(key, &all) {
                Some(full) => {
                    if !has_value && o.long_val.contains(&full) {
                        i += 1;
                    }
                }
                None => return Some(t.to_string()),
            }
        } else if t.len() > 1 && t.starts_with('-') {
            let body = &t[1..];
            if o.digits && body.chars().all(|c| c.is_ascii_digit()) {
                i += 1;
                continue;
            }
            for (j, c) in body.char_indices() {
                if o.short_val.contains(c) {
                    if j + c.len_utf8() == body.len() {
                        i += 1;
                    }
                    break;
                }
                if !o.short.contains(c) {
                    return Some(t.to_string());
                }
            }
        }
        i += 1;
    }
    None
}

/// The full name of a long option given as `key`: itself, or the one known option it
/// abbreviates (`--har` for `--hard`). `None` when unknown or ambiguous.
pub(super) fn long_option(key: &str, known: &[&'static str]) -> Option<&'static str> {
    if let Some(exact) = known.iter().find(|k| **k == key) {
        return Some(exact);
    }
    let mut matches = known
        .iter()
        .filter(|k| k.starts_with(key) && !key.is_empty());
    match (matches.next(), matches.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// `--help`, `--version` and their kin alone: the program prints and exits. `-h` and
/// `-V` count only for programs where they cannot mean something else.
pub(super) fn is_help_probe(name: &str, args: &[Arg]) -> bool {
    const POWER: &[&str] = &[
        "shutdown", "halt", "reboot", "poweroff", "kill", "killall", "pkill", "sort", "ls", "du",
        "df", "grep",
    ];
    !args.is_empty()
        && args.len() <= 2
        && args.iter().all(|a| match a.fixed() {
            Some("--help" | "--version" | "-help" | "-version" | "--usage" | "-?") => true,
            Some("-h" | "-V") => !POWER.contains(&name),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<Arg> {
        words.iter().map(|w| Arg::literal(w)).collect()
    }

    #[test]
    fn only_listed_options_are_understood() {
        let Some(Known::Options(sort)) = known("sort") else {
            panic!("sort has options")
        };
        assert_eq!(
            unknown_options(&sort, &args(&["-rn", "-k", "2", "a.txt"])),
            None
        );
        assert_eq!(unknown_options(&sort, &args(&["--numeric", "a.txt"])), None);
        assert_eq!(
            unknown_options(&sort, &args(&["--compress-program=sh", "a"])),
            Some("--compress-program=sh".into())
        );
        assert_eq!(
            unknown_options(&sort, &args(&["-Q", "a"])),
            Some("-Q".into())
        );
    }

    #[test]
    fn long_options_may_be_abbreviated_when_unambiguous() {
        assert_eq!(long_option("har", &["hard", "soft"]), Some("hard"));
        assert_eq!(long_option("s", &["soft", "stat"]), None);
        assert_eq!(long_option("x", &["hard"]), None);
    }

    #[test]
    fn help_and_version_probes_are_recognised_but_not_where_h_means_halt() {
        assert!(is_help_probe("rm", &args(&["--help"])));
        assert!(is_help_probe("python3", &args(&["-V"])));
        assert!(!is_help_probe("shutdown", &args(&["-h"])));
        assert!(!is_help_probe("rm", &args(&["--help", "x", "y"])));
        assert!(!is_help_probe("rm", &args(&["-rf"])));
    }
}
