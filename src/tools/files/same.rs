//! Files with the same content: `group_by: "content"` adds a line naming each set of
//! files whose bytes are identical. Asked which two files hold the same content, a small
//! model had sizes to guess from (a photo had the reports' size) and no way to compare
//! bytes; the comparison is code's.
//!
//! Files are first grouped by size; only files that share a size are read, each at most
//! [`MAX_FILE_BYTES`], and [`MAX_TOTAL_BYTES`] in all. Files of a size group are compared
//! by a hash of their bytes and then byte for byte, so a hash collision never joins two
//! different files.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::scan::{EntryKind, Found};

/// Files larger than this are not read (and the line says how many were left out).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Bytes read at most by one call.
pub const MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// Sets of identical files named at most.
const MAX_SETS: usize = 20;

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// The `same content: …` line for the files among `found`.
pub(super) fn line(found: &[Found]) -> String {
    let mut by_size: BTreeMap<u64, Vec<&Found>> = BTreeMap::new();
    for f in found.iter().filter(|f| f.kind == EntryKind::File) {
        by_size.entry(f.size).or_default().push(f);
    }
    let compared = found.iter().filter(|f| f.kind == EntryKind::File).count();
    let mut budget = MAX_TOTAL_BYTES;
    let mut left_out = 0usize;
    let mut sets: Vec<(u64, Vec<&str>)> = Vec::new();
    for (size, files) in by_size.into_iter().filter(|(_, files)| files.len() > 1) {
        if size > MAX_FILE_BYTES || size.saturating_mul(files.len() as u64) > budget {
            left_out += files.len();
            continue;
        }
        budget -= size * files.len() as u64;
        let mut read: Vec<(&Found, Vec<u8>, u64)> = Vec::new();
        for f in files {
            match std::fs::read(&f.path) {
                Ok(bytes) => {
                    let h = hash_of(&bytes);
                    read.push((f, bytes, h));
                }
                Err(_) => left_out += 1,
            }
        }
        let mut taken = vec![false; read.len()];
        for i in 0..read.len() {
            if taken[i] {
                continue;
            }
            let mut set = vec![read[i].0.shown.as_str()];
            for j in i + 1..read.len() {
                if !taken[j] && read[j].2 == read[i].2 && read[j].1 == read[i].1 {
                    taken[j] = true;
                    set.push(read[j].0.shown.as_str());
                }
            }
            if set.len() > 1 {
                sets.push((size, set));
            }
        }
    }
    let skipped = if left_out > 0 {
        format!(" ({left_out} not compared: too large or unreadable)")
    } else {
        String::new()
    };
    if sets.is_empty() {
        return format!(
            "same content: none — no two of the {compared} files hold the same bytes{skipped}"
        );
    }
    let mut items: Vec<String> = sets
        .iter()
        .take(MAX_SETS)
        .map(|(size, names)| {
            format!(
                "{} ({} each)",
                names.join(" = "),
                crate::text::human_size(*size)
            )
        })
        .collect();
    if sets.len() > MAX_SETS {
        items.push(format!("… and {} more sets", sets.len() - MAX_SETS));
    }
    format!("same content: {}{skipped}", items.join("; "))
}

#[cfg(test)]
mod tests {
    use super::super::{Limits, Request, run};

    fn listing(dir: &std::path::Path, params: serde_json::Value) -> String {
        let req = Request::from_json(&params).unwrap();
        run(
            dir,
            "~/T",
            &req,
            &Limits::default(),
            std::time::SystemTime::now(),
        )
        .unwrap()
    }

    #[test]
    fn identical_bytes_are_named_together_and_equal_sizes_are_not_enough() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        std::fs::write(d.join("report-final.pdf"), vec![b'%'; 4096]).unwrap();
        std::fs::write(d.join("report-copy.pdf"), vec![b'%'; 4096]).unwrap();
        std::fs::write(d.join("photo.jpg"), vec![b'J'; 4096]).unwrap();
        std::fs::write(d.join("notes.txt"), b"compare\n").unwrap();
        let out = listing(d, serde_json::json!({"group_by": "content"}));
        let line = out
            .lines()
            .find(|l| l.starts_with("same content:"))
            .unwrap_or_else(|| panic!("no line in {out}"));
        assert!(
            line.contains("report-copy.pdf = report-final.pdf")
                || line.contains("report-final.pdf = report-copy.pdf"),
            "{line}"
        );
        assert!(!line.contains("photo.jpg"), "{line}");
        // Nothing alike.
        std::fs::remove_file(d.join("report-copy.pdf")).unwrap();
        let out = listing(d, serde_json::json!({"group_by": "same content"}));
        assert!(
            out.contains("same content: none — no two of the 3 files hold the same bytes"),
            "{out}"
        );
    }
}
