//! Files with the same content: `group_by: "content"` adds a line naming each set of
//! files whose bytes are identical. Asked which two files hold the same content, a small
//! model had sizes to guess from (a photo had the reports' size) and no way to compare
//! bytes; the comparison is code's.
//!
//! Files are first grouped by size; only files that share a size are read, each at most
//! [`MAX_FILE_BYTES`], and [`MAX_TOTAL_BYTES`] in all. Files of a size group are compared
//! by a hash of their bytes and then byte for byte, so a hash collision never joins two
//! different files. Both passes stream the files: memory stays one buffer per file open,
//! whatever their size.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hasher};
use std::io::Read;
use std::path::Path;

use super::scan::{EntryKind, Found};

/// Files larger than this are not read (and the line says how many were left out).
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// Bytes read at most by one call.
pub const MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// Sets of identical files named at most.
const MAX_SETS: usize = 20;

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// Reads `reader` to the end in chunks, handing each to `each`.
fn chunks(mut reader: impl Read, mut each: impl FnMut(&[u8])) -> std::io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        each(&buf[..n]);
    }
}

/// A hash of the file's bytes, read in chunks.
fn hash_of(path: &Path) -> std::io::Result<u64> {
    let mut h = DefaultHasher::new();
    chunks(std::fs::File::open(path)?, |bytes| h.write(bytes))?;
    Ok(h.finish())
}

/// Whether two files hold the same bytes: the same size, then read side by side.
pub(crate) fn identical(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.is_file() && y.is_file() && x.len() == y.len() && same_bytes(a, b),
        _ => false,
    }
}

/// Whether two files of one size hold the same bytes, read side by side in chunks.
fn same_bytes(a: &Path, b: &Path) -> bool {
    let (Ok(mut a), Ok(mut b)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut x, mut y) = (vec![0u8; CHUNK], vec![0u8; CHUNK]);
    loop {
        let (Ok(n), Ok(m)) = (read_full(&mut a, &mut x), read_full(&mut b, &mut y)) else {
            return false;
        };
        if n != m || x[..n] != y[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

/// Fills `buf` as far as the reader goes; the bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        let n = reader.read(&mut buf[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
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
        let mut read: Vec<(&Found, u64)> = Vec::new();
        for f in files {
            match hash_of(&f.path) {
                Ok(h) => read.push((f, h)),
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
                if !taken[j]
                    && read[j].1 == read[i].1
                    && same_bytes(&read[i].0.path, &read[j].0.path)
                {
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

    #[test]
    fn bytes_are_compared_to_the_last_one_across_chunks() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        let bytes = vec![7u8; super::CHUNK * 3 + 5];
        std::fs::write(&a, &bytes).unwrap();
        std::fs::write(&b, &bytes).unwrap();
        let mut last = bytes.clone();
        *last.last_mut().unwrap() = 8;
        std::fs::write(&c, &last).unwrap();
        assert!(super::same_bytes(&a, &b));
        assert!(!super::same_bytes(&a, &c));
        assert_eq!(super::hash_of(&a).unwrap(), super::hash_of(&b).unwrap());
    }

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
