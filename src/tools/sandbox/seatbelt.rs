//! The macOS sandbox profile: Seatbelt (`sandbox-exec`) rules written from a call's
//! plan. macOS denies the writes as they happen — there is no overlay to read
//! afterwards — so the profile itself must tell new entries from existing ones: it
//! allows writing in the workspace and where the command provably creates, then denies
//! every entry of the workspace that exists now by its exact path. Rules later in a
//! profile take precedence over earlier ones, so the denials come last.
//!
//! Generated and tested as text here (this module compiles everywhere); how
//! `sandbox-exec` runs it is declared unverified, as the project's machines run Linux.
//!
//! **Invariant:** every path enters the profile as a quoted string (backslashes and
//! quotes escaped), and the profile never allows a write it does not scope to the call's
//! temp folder, the workspace or a declared new path.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Everything one profile is written from. Paths must be canonical (`/private/tmp`,
/// not `/tmp`): Seatbelt matches resolved paths.
pub struct Profile<'a> {
    /// The folder the command runs in.
    pub workspace: &'a Path,
    /// The call's own temp folder (`TMPDIR`).
    pub tmp: &'a Path,
    /// Paths the command provably creates.
    pub creates: &'a [PathBuf],
    /// Every entry of the workspace that exists now: none of them may be written.
    pub existing: &'a [PathBuf],
    /// Whether `existing` is the whole workspace. When it is not, nothing new may be
    /// created in the workspace either (an unlisted entry could be overwritten).
    pub workspace_listed: bool,
    /// A proven network read: outgoing connections to the internet stay allowed.
    pub network: bool,
}

/// A path as a Seatbelt (Scheme) string literal.
pub fn quote(path: &Path) -> String {
    let mut out = String::from("\"");
    for c in path.to_string_lossy().chars() {
        if matches!(c, '\\' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The profile text.
pub fn profile(p: &Profile<'_>) -> String {
    let mut s = String::from("(version 1)\n(allow default)\n");
    s.push_str("; Nothing is written anywhere ...\n(deny file-write*)\n");
    let _ = writeln!(
        s,
        "; ... but in the call's own temp folder and to harmless devices.\n(allow file-write* (subpath {}))",
        quote(p.tmp)
    );
    s.push_str(
        "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") \
         (literal \"/dev/dtracehelper\") (regex #\"^/dev/tty\") (regex #\"^/dev/fd/\"))\n",
    );
    let mut places: Vec<String> = p.creates.iter().map(|c| quote(c)).collect();
    if p.workspace_listed {
        places.insert(0, quote(p.workspace));
    }
    if !places.is_empty() {
        s.push_str("; New entries in the workspace and where the command provably creates them.\n");
        let _ = writeln!(
            s,
            "(allow file-write* {})",
            places
                .iter()
                .map(|q| format!("(subpath {q})"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    if p.workspace_listed && !p.existing.is_empty() {
        s.push_str("; Never an entry that exists now: no deleting, emptying, overwriting, renaming or re-permissioning.\n");
        s.push_str("(deny file-write*");
        for e in p.existing {
            let _ = write!(s, "\n  (literal {})", quote(e));
        }
        s.push_str(")\n");
    }
    let _ = writeln!(
        s,
        "; Never a repository's hooks or configuration (both run commands).\n\
         (deny file-write* (regex #\"/\\.git/hooks(/|$)\") (regex #\"/\\.git/config$\"))"
    );
    s.push_str("; No other process is signalled, no other application driven or opened.\n");
    s.push_str("(deny signal (target others))\n(deny appleevent-send)\n(deny lsopen)\n");
    s.push_str("; No network, and no local server reached through a socket ...\n(deny network*)\n");
    if p.network {
        s.push_str(
            "; ... except the internet and name lookups, for a proven network read.\n\
             (allow network-outbound (remote ip))\n\
             (allow network-outbound (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))\n",
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(network: bool, listed: bool) -> String {
        let existing = vec![
            PathBuf::from("/Users/u/artoo_workspace/report.md"),
            PathBuf::from("/Users/u/artoo_workspace/data"),
        ];
        let creates = vec![PathBuf::from("/Users/u/backup")];
        profile(&Profile {
            workspace: Path::new("/Users/u/artoo_workspace"),
            tmp: Path::new("/private/var/folders/x/T/artoo-sandbox-1"),
            creates: &creates,
            existing: &existing,
            workspace_listed: listed,
            network,
        })
    }

    #[test]
    fn writes_are_denied_except_new_entries_and_the_temp_folder() {
        let p = sample(false, true);
        assert!(p.starts_with("(version 1)\n(allow default)\n"));
        let deny_all = p
            .find("(deny file-write*)\n")
            .expect("a blanket write denial");
        let allow_tmp = p
            .find("(allow file-write* (subpath \"/private/var/folders/x/T/artoo-sandbox-1\"))")
            .expect("the temp folder");
        let allow_new = p
            .find("(allow file-write* (subpath \"/Users/u/artoo_workspace\") (subpath \"/Users/u/backup\"))")
            .expect("the workspace and the declared new path");
        let deny_existing = p
            .find("(deny file-write*\n  (literal \"/Users/u/artoo_workspace/report.md\")\n  (literal \"/Users/u/artoo_workspace/data\"))")
            .expect("every existing entry by name");
        // Later rules win: the blanket denial first, then the allowances, then the
        // denial of existing entries.
        assert!(deny_all < allow_tmp && allow_tmp < allow_new && allow_new < deny_existing);
        assert!(p.contains("(deny signal (target others))"));
        assert!(p.contains("(deny appleevent-send)"));
        assert!(p.contains("(deny lsopen)"));
        assert!(p.contains("(deny network*)"));
        assert!(!p.contains("(allow network-outbound"));
    }

    #[test]
    fn a_network_read_keeps_internet_and_name_lookups_only() {
        let p = sample(true, true);
        let deny = p.find("(deny network*)").expect("network denied first");
        let allow = p
            .find("(allow network-outbound (remote ip))")
            .expect("internet allowed after");
        assert!(deny < allow);
        assert!(p.contains("mDNSResponder"));
        assert!(!p.contains("(allow network*)"));
    }

    #[test]
    fn an_unlisted_workspace_takes_no_new_entries() {
        let p = sample(false, false);
        assert!(!p.contains("(subpath \"/Users/u/artoo_workspace\")"));
        assert!(p.contains("(allow file-write* (subpath \"/Users/u/backup\"))"));
        assert!(!p.contains("(literal \"/Users/u/artoo_workspace/report.md\")"));
    }

    #[test]
    fn paths_are_quoted_so_they_cannot_end_the_string() {
        assert_eq!(quote(Path::new("/a\"b\\c")), "\"/a\\\"b\\\\c\"");
        let creates = vec![PathBuf::from("/x\") (allow file-write* (subpath \"/")];
        let p = profile(&Profile {
            workspace: Path::new("/w"),
            tmp: Path::new("/t"),
            creates: &creates,
            existing: &[],
            workspace_listed: true,
            network: false,
        });
        assert!(p.contains("(subpath \"/x\\\") (allow file-write* (subpath \\\"/\")"));
        // Outside quoted strings, only the two allowances the profile writes itself.
        let mut unquoted = String::new();
        let (mut in_string, mut escaped) = (false, false);
        for c in p.chars() {
            match c {
                _ if escaped => escaped = false,
                '\\' if in_string => escaped = true,
                '"' => in_string = !in_string,
                _ if !in_string => unquoted.push(c),
                _ => {}
            }
        }
        assert!(unquoted.matches("(allow file-write*").count() <= 2, "{p}");
    }
}
