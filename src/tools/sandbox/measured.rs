//! A held layer's effects in words for the Law 1 dialog: what the command did in the
//! sandbox, measured, grouped by what happened and the folder it happened in, with counts
//! and sizes — never a prediction from the command's words.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::contracts::PathEffect;
use crate::text::{human_size, plural, tilde};

/// Names shown per group before "and N more".
const NAMES_PER_GROUP: usize = 5;
/// Groups shown before the rest are counted.
const GROUPS: usize = 8;

/// One change a sandboxed command made that Law 1 cares about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Measured {
    /// The real path it changes.
    pub path: PathBuf,
    /// What happens to it: "delete", "overwrite", "truncate", "change permissions",
    /// "change owner", "delete the contents of", "create (outside the workspace)".
    pub verb: &'static str,
    /// Whether the path exists now.
    pub existed: bool,
    /// Bytes concerned: what is removed or replaced, or what is created.
    pub bytes: u64,
    /// Whether it is a folder.
    pub is_dir: bool,
}

impl Measured {
    /// As the dialog's path list and the effect records carry it.
    pub fn path_effect(&self) -> PathEffect {
        PathEffect {
            path: self.path.clone(),
            exists: self.existed,
            effect: self.verb.to_string(),
        }
    }
}

/// The Law 1 dialog's text for a held layer: what the command did, one line per group
/// of changes, and what approving does.
pub fn dialog(effects: &[Measured], home: &Path) -> String {
    let mut text = String::from("In the sandbox, this command would:");
    for line in describe(effects, home) {
        text.push_str("\n- ");
        text.push_str(&line);
    }
    text.push_str("\nNothing of it is applied yet. Approving applies exactly these changes (the command does not run again) and keeps every original it replaces or removes in artoo's trash.");
    text
}

/// Every verb a held change is named with, in the dialog's path list.
pub const VERBS: &[&str] = &[
    "delete",
    "delete the contents of",
    "overwrite",
    "truncate",
    "change permissions",
    "change owner",
    "create (outside the workspace)",
];

/// The effects in lines for a person: "delete 3 files in ~/notes: `a.txt`, `b.txt`,
/// `c.txt` (1.2 KB)". A new folder that only holds other listed entries is not a line of its own.
pub fn describe(effects: &[Measured], home: &Path) -> Vec<String> {
    let mut groups: BTreeMap<(&'static str, PathBuf), Vec<&Measured>> = BTreeMap::new();
    for m in effects {
        let holds_listed = m.is_dir
            && !m.existed
            && effects
                .iter()
                .any(|o| o.path != m.path && o.path.starts_with(&m.path));
        if holds_listed {
            continue;
        }
        let folder = m.path.parent().map(Path::to_path_buf).unwrap_or_default();
        groups.entry((m.verb, folder)).or_default().push(m);
    }
    let total = groups.len();
    let mut lines: Vec<String> = groups
        .into_iter()
        .take(GROUPS)
        .map(|((verb, folder), items)| {
            let dirs = items.iter().filter(|m| m.is_dir).count();
            let what = match (dirs, items.len() - dirs) {
                (0, n) => plural(n, "file", "files"),
                (d, 0) => plural(d, "folder", "folders"),
                (d, n) => format!(
                    "{} and {}",
                    plural(n, "file", "files"),
                    plural(d, "folder", "folders")
                ),
            };
            let mut names: Vec<String> = items
                .iter()
                .take(NAMES_PER_GROUP)
                .map(|m| {
                    let name = m
                        .path
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    format!("`{name}`")
                })
                .collect();
            if items.len() > NAMES_PER_GROUP {
                names.push(format!("and {} more", items.len() - NAMES_PER_GROUP));
            }
            let bytes: u64 = items.iter().map(|m| m.bytes).sum();
            format!(
                "{verb} {what} in {}: {} ({})",
                tilde(&folder.to_string_lossy(), home),
                names.join(", "),
                human_size(bytes)
            )
        })
        .collect();
    if total > GROUPS {
        lines.push(format!(
            "and {} more {}",
            total - GROUPS,
            if total - GROUPS == 1 {
                "group of changes"
            } else {
                "groups of changes"
            }
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(path: &str, verb: &'static str, bytes: u64, is_dir: bool) -> Measured {
        Measured {
            path: PathBuf::from(path),
            verb,
            existed: verb != "create (outside the workspace)",
            bytes,
            is_dir,
        }
    }

    #[test]
    fn effects_are_grouped_by_what_happens_and_where_with_counts_and_sizes() {
        let home = Path::new("/home/u");
        let mut effects: Vec<Measured> = (1..=7)
            .map(|i| m(&format!("/home/u/notes/n{i}.txt"), "delete", 1000, false))
            .collect();
        effects.push(m("/home/u/.bashrc", "overwrite", 20, false));
        effects.push(m("/home/u/new", "create (outside the workspace)", 0, true));
        effects.push(m(
            "/home/u/new/a.txt",
            "create (outside the workspace)",
            5,
            false,
        ));
        let lines = describe(&effects, home);
        assert_eq!(
            lines,
            vec![
                "create (outside the workspace) 1 file in ~/new: `a.txt` (5 B)".to_string(),
                "delete 7 files in ~/notes: `n1.txt`, `n2.txt`, `n3.txt`, `n4.txt`, `n5.txt`, and 2 more (7.0 KB)"
                    .to_string(),
                "overwrite 1 file in ~: `.bashrc` (20 B)".to_string(),
            ]
        );
    }

    #[test]
    fn many_groups_end_with_a_count_of_the_rest() {
        let effects: Vec<Measured> = (0..11)
            .map(|i| m(&format!("/d{i}/f"), "delete", 1, false))
            .collect();
        let lines = describe(&effects, Path::new("/home/u"));
        assert_eq!(lines.len(), GROUPS + 1);
        assert_eq!(lines[GROUPS], "and 3 more groups of changes");
    }
}
