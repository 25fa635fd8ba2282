//! Behaviour of the files engine on real temporary folders.

#![allow(clippy::unwrap_used)]

use std::fs::{self, File};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use serde_json::{Value, json};

use super::params::parse_size;
use super::report::{date, human};
use super::{Group, Kind, Limits, Request, Sort, run};

/// 2026-03-05 12:00 UTC: the tests' "now".
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_772_712_000)
}

/// Creates `name` under `dir` with `size` bytes, modified `age` seconds before now.
fn file(dir: &Path, name: &str, size: u64, age: u64) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    let f = File::create(&path).unwrap();
    f.set_len(size).unwrap();
    f.set_modified(now() - Duration::from_secs(age)).unwrap();
}

fn call_with(dir: &Path, params: Value, limits: &Limits) -> Result<String, String> {
    let req = Request::from_json(&params)?;
    run(dir, "~/T", &req, limits, now())
}

fn call(dir: &Path, params: Value) -> Result<String, String> {
    call_with(dir, params, &Limits::default())
}

/// The first column of every row.
fn names(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.contains('\t'))
        .map(|l| l.split('\t').next().unwrap().to_string())
        .collect()
}

fn line_starting<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{out}"))
}

fn three_files(dir: &Path) {
    file(dir, "a.txt", 10, 60);
    file(dir, "b.pdf", 5000, 3 * 86_400);
    file(dir, "c.jpg", 300, 2 * 86_400);
}

#[test]
fn largest_and_newest_come_first() {
    let tmp = tempfile::tempdir().unwrap();
    three_files(tmp.path());
    let out = call(tmp.path(), json!({"sort": "largest"})).unwrap();
    assert_eq!(names(&out), ["b.pdf", "c.jpg", "a.txt"], "{out}");
    let out = call(tmp.path(), json!({"sort": "size"})).unwrap();
    assert_eq!(
        names(&out),
        ["b.pdf", "c.jpg", "a.txt"],
        "size defaults to largest first"
    );
    let out = call(tmp.path(), json!({"sort": "newest"})).unwrap();
    assert_eq!(names(&out), ["a.txt", "c.jpg", "b.pdf"], "{out}");
    let out = call(tmp.path(), json!({"sort": "date"})).unwrap();
    assert_eq!(
        names(&out),
        ["a.txt", "c.jpg", "b.pdf"],
        "date defaults to newest first"
    );
    let out = call(tmp.path(), json!({"sort": "oldest"})).unwrap();
    assert_eq!(names(&out), ["b.pdf", "c.jpg", "a.txt"]);
    assert_eq!(
        line_starting(&out, "total:"),
        "total: 3 files, 5310 bytes (5.3 KB); newest modified 1 minute ago, oldest 3 days ago"
    );
    let row = out.lines().find(|l| l.starts_with("b.pdf\t")).unwrap();
    let expected = format!(
        "b.pdf\t5.0 KB (5000 bytes)\t{}\tpdf",
        date(Some(now() - Duration::from_secs(3 * 86_400)))
    );
    assert_eq!(row, expected);
}

#[test]
fn smallest_and_order_asc_sort_ascending() {
    let tmp = tempfile::tempdir().unwrap();
    three_files(tmp.path());
    for params in [
        json!({"sort": "smallest"}),
        json!({"sort": "size", "order": "asc"}),
        json!({"sort": "largest", "order": "ascending"}),
        json!({"sort": "size asc"}),
    ] {
        let out = call(tmp.path(), params.clone()).unwrap();
        assert_eq!(names(&out), ["a.txt", "c.jpg", "b.pdf"], "{params}: {out}");
    }
    let out = call(tmp.path(), json!({"sort": "size_desc"})).unwrap();
    assert_eq!(names(&out), ["b.pdf", "c.jpg", "a.txt"]);
    let out = call(tmp.path(), json!({"order": "desc"})).unwrap();
    assert_eq!(names(&out), ["c.jpg", "b.pdf", "a.txt"], "name, Z to A");
}

#[test]
fn sort_by_extension_puts_names_without_one_first() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["z.pdf", "a.txt", "Makefile", "b.PDF", "c.jpg"] {
        file(tmp.path(), name, 1, 60);
    }
    let out = call(tmp.path(), json!({"sort": "ext"})).unwrap();
    assert_eq!(
        names(&out),
        ["Makefile", "c.jpg", "b.PDF", "z.pdf", "a.txt"]
    );
    let out = call(tmp.path(), json!({"sort": "extension", "order": "desc"})).unwrap();
    assert_eq!(
        names(&out),
        ["a.txt", "b.PDF", "z.pdf", "c.jpg", "Makefile"]
    );
}

#[test]
fn ties_are_broken_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["delta", "Bravo", "alpha", "charlie"] {
        file(tmp.path(), name, 100, 60);
    }
    let out = call(tmp.path(), json!({"sort": "largest"})).unwrap();
    assert_eq!(names(&out), ["alpha", "Bravo", "charlie", "delta"]);
    let out = call(tmp.path(), json!({"sort": "newest"})).unwrap();
    assert_eq!(names(&out), ["alpha", "Bravo", "charlie", "delta"]);
}

#[test]
fn recursive_looks_inside_subfolders_and_plain_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "top.txt", 1, 60);
    file(tmp.path(), "sub/inner.txt", 2, 60);
    file(tmp.path(), "sub/deeper/deep.txt", 3, 60);
    let out = call(tmp.path(), json!({})).unwrap();
    assert_eq!(names(&out), ["top.txt"]);
    assert!(
        out.starts_with("~/T (not recursive), files: 1 found"),
        "{out}"
    );
    let out = call(tmp.path(), json!({"recursive": "yes"})).unwrap();
    assert_eq!(
        names(&out),
        ["sub/deeper/deep.txt", "sub/inner.txt", "top.txt"]
    );
    assert!(out.starts_with("~/T (recursive), files: 3 found"), "{out}");
    let out = call(tmp.path(), json!({"pattern": "**/*.txt"})).unwrap();
    assert_eq!(names(&out).len(), 3, "a **/ pattern means recursive: {out}");
    let out = call(tmp.path(), json!({"type": "any"})).unwrap();
    assert!(out.contains("sub/\t2 items\t"), "{out}");
}

#[test]
fn pattern_lists_and_braces() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "a.pdf",
        "B.PDF",
        "img_1.jpg",
        "IMG_2.png",
        "notes.txt",
        "x.jpeg",
    ] {
        file(tmp.path(), name, 1, 60);
    }
    let out = call(tmp.path(), json!({"pattern": "*.pdf, IMG_*"})).unwrap();
    assert_eq!(names(&out), ["a.pdf", "B.PDF", "img_1.jpg", "IMG_2.png"]);
    assert!(
        out.starts_with("~/T (not recursive), files matching *.pdf or IMG_*: 4 found"),
        "{out}"
    );
    let out = call(tmp.path(), json!({"pattern": "*.{jpg,jpeg}"})).unwrap();
    assert_eq!(names(&out), ["img_1.jpg", "x.jpeg"]);
    for params in [
        json!({"pattern": "*.pdf;*.txt"}),
        json!({"pattern": "*.pdf *.txt"}),
        json!({"pattern": ["*.pdf", "notes*"]}),
    ] {
        let out = call(tmp.path(), params.clone()).unwrap();
        assert_eq!(names(&out), ["a.pdf", "B.PDF", "notes.txt"], "{params}");
    }
    let out = call(tmp.path(), json!({"pattern": "*.*"})).unwrap();
    assert_eq!(names(&out).len(), 6, "*.* means everything");
    // A bare extension names the files that end with it, not a file called ".pdf".
    let out = call(tmp.path(), json!({"pattern": ".pdf"})).unwrap();
    assert_eq!(names(&out), ["a.pdf", "B.PDF"]);
    let err = call(tmp.path(), json!({"pattern": "docs/*.md"})).unwrap_err();
    assert!(err.contains("file names only"), "{err}");
    let err = call(tmp.path(), json!({"pattern": "[abc"})).unwrap_err();
    assert!(err.contains("not a valid glob"), "{err}");
}

#[test]
fn extensions_as_array_or_string() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["a.JPG", "b.png", "c.jpeg", "d.tar.gz", "jpg", ".png"] {
        file(tmp.path(), name, 1, 60);
    }
    for params in [
        json!({"extensions": "jpg,png"}),
        json!({"extensions": ".JPG .png"}),
        json!({"extensions": ["jpg", "*.png"]}),
        json!({"extension": "jpg; PNG"}),
    ] {
        let out = call(tmp.path(), params.clone()).unwrap();
        assert_eq!(names(&out), ["a.JPG", "b.png"], "{params}: {out}");
    }
    let out = call(tmp.path(), json!({"extensions": "tar.gz"})).unwrap();
    assert_eq!(names(&out), ["d.tar.gz"]);
    let out = call(tmp.path(), json!({"extensions": "gz"})).unwrap();
    assert_eq!(names(&out), ["d.tar.gz"]);
    let out = call(tmp.path(), json!({"extensions": "png", "hidden": true})).unwrap();
    assert_eq!(
        names(&out),
        ["b.png"],
        "a dotfile named .png has no extension"
    );
    let err = call(tmp.path(), json!({"extensions": "jp*"})).unwrap_err();
    assert!(err.contains("pattern"), "{err}");
}

#[test]
fn type_folders_lists_folders_with_item_counts() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "Alpha/one.txt", 1, 60);
    file(tmp.path(), "Alpha/two.txt", 1, 60);
    file(tmp.path(), "Alpha/.hidden", 1, 60);
    fs::create_dir(tmp.path().join("beta")).unwrap();
    file(tmp.path(), "c.txt", 1, 60);
    for kind in ["folders", "dir", "directory", "Folder"] {
        let out = call(tmp.path(), json!({"type": kind})).unwrap();
        assert_eq!(names(&out), ["Alpha/", "beta/"], "{kind}: {out}");
        assert!(out.contains("Alpha/\t2 items\t"), "{out}");
        assert!(out.contains("beta/\t0 items\t"), "{out}");
        assert!(out.contains("\nbeta/\t0 items\t") && out.contains("\tfolder\n"));
        assert!(line_starting(&out, "total:").starts_with("total: 2 folders;"));
    }
    let out = call(tmp.path(), json!({"type": "folders", "sort": "largest"})).unwrap();
    assert_eq!(names(&out), ["Alpha/", "beta/"], "folders by item count");
    let out = call(tmp.path(), json!({"type": "any", "sort": "smallest"})).unwrap();
    assert_eq!(
        names(&out),
        ["c.txt", "beta/", "Alpha/"],
        "files first: {out}"
    );
    let out = call(tmp.path(), json!({"type": "any", "group_by": "kind"})).unwrap();
    assert_eq!(
        line_starting(&out, "by kind:"),
        "by kind: folder = 2, file = 1 (1 B)"
    );
    // "type" is the file type: the extension.
    let out = call(tmp.path(), json!({"group_by": "type"})).unwrap();
    assert!(
        line_starting(&out, "by extension:").starts_with("by extension: txt = 1"),
        "{out}"
    );
}

#[test]
fn group_by_extension_counts_and_sizes() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "a.pdf", 100, 60);
    file(tmp.path(), "b.PDF", 200, 60);
    file(tmp.path(), "c.jpg", 1500, 60);
    file(tmp.path(), "d", 5, 60);
    let out = call(tmp.path(), json!({"group_by": "extension", "limit": 1})).unwrap();
    assert_eq!(
        line_starting(&out, "by extension:"),
        "by extension: pdf = 2 (300 B), (none) = 1 (5 B), jpg = 1 (1.5 KB)"
    );
    assert_eq!(
        line_starting(&out, "total:"),
        "total: 4 files, 1805 bytes (1.8 KB); modified 1 minute ago"
    );
    assert_eq!(
        names(&out),
        ["a.pdf"],
        "groups count every match, not only the rows"
    );
    file(tmp.path(), "sub/e.pdf", 7, 60);
    let out = call(tmp.path(), json!({"group_by": "folder", "recursive": true})).unwrap();
    assert_eq!(
        line_starting(&out, "by folder:"),
        "by folder: ./ = 4 (1.8 KB), sub/ = 1 (7 B)"
    );
}

#[test]
fn min_size_and_max_size_read_units() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "big.bin", 1_500_000, 60);
    file(tmp.path(), "exact.bin", 1_000_000, 60);
    file(tmp.path(), "under.bin", 999_999, 60);
    file(tmp.path(), "tiny.bin", 400_000, 60);
    fs::create_dir(tmp.path().join("folder")).unwrap();
    let out = call(tmp.path(), json!({"min_size": "1MB"})).unwrap();
    assert_eq!(names(&out), ["big.bin", "exact.bin"], "{out}");
    assert!(out.starts_with("~/T (not recursive), files of at least 1.0 MB: 2 found"));
    let out = call(tmp.path(), json!({"min_size": "1 MiB", "type": "any"})).unwrap();
    assert_eq!(names(&out), ["big.bin"], "folders have no size: {out}");
    let out = call(tmp.path(), json!({"max_size": "500 KB"})).unwrap();
    assert_eq!(names(&out), ["tiny.bin"]);
    let out = call(
        tmp.path(),
        json!({"min_size": 999_999, "max_size": "1,000,000"}),
    )
    .unwrap();
    assert_eq!(names(&out), ["exact.bin", "under.bin"]);
    let err = call(tmp.path(), json!({"min_size": "2MB", "max_size": "1MB"})).unwrap_err();
    assert!(err.contains("larger than max_size"), "{err}");
    let err = call(tmp.path(), json!({"min_size": "12 parsecs"})).unwrap_err();
    assert!(err.contains("KB, MB, GB"), "{err}");
}

#[test]
fn sizes_parse_in_both_bases() {
    assert_eq!(parse_size("1MB"), Some(1_000_000));
    assert_eq!(parse_size("500 KB"), Some(500_000));
    assert_eq!(parse_size("2 GiB"), Some(2 * 1024 * 1024 * 1024));
    assert_eq!(parse_size("1.5g"), Some(1_500_000_000));
    assert_eq!(parse_size("1,5 MB"), Some(1_500_000));
    assert_eq!(parse_size("1,000,000"), Some(1_000_000));
    assert_eq!(parse_size("532"), Some(532));
    assert_eq!(parse_size("10 bytes"), Some(10));
    assert_eq!(parse_size("12 parsecs"), None);
    assert_eq!(parse_size("MB"), None);
    assert_eq!(parse_size("-1MB"), None);
}

#[test]
fn human_sizes_are_1000_based_with_one_decimal() {
    assert_eq!(human(0), "0 B");
    assert_eq!(human(532), "532 B");
    assert_eq!(human(999), "999 B");
    assert_eq!(human(1000), "1.0 KB");
    assert_eq!(human(1_234_567), "1.2 MB");
    assert_eq!(human(999_949), "999.9 KB");
    assert_eq!(human(999_950), "1.0 MB");
    assert_eq!(human(u64::MAX), "18.4 EB");
}

#[test]
fn hidden_names_are_skipped_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), ".secret", 1, 60);
    file(tmp.path(), ".cache/inside.txt", 1, 60);
    file(tmp.path(), "visible.txt", 1, 60);
    let out = call(tmp.path(), json!({"recursive": true})).unwrap();
    assert_eq!(names(&out), ["visible.txt"]);
    let out = call(tmp.path(), json!({"recursive": true, "hidden": "yes"})).unwrap();
    assert_eq!(names(&out), [".cache/inside.txt", ".secret", "visible.txt"]);
    assert!(out.contains("(hidden included): 3 found"), "{out}");
}

#[test]
fn names_are_shown_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let odd = [
        "My Report (final).pdf",
        "café résumé.txt",
        "🎉 party.jpg",
        "quote's \"here\".md",
    ];
    for name in odd {
        file(tmp.path(), name, 1, 60);
    }
    file(tmp.path(), "line\nbreak.txt", 1, 60);
    let out = call(tmp.path(), json!({})).unwrap();
    let shown = names(&out);
    for name in odd {
        assert!(shown.contains(&name.to_string()), "{name} in {out}");
    }
    assert!(
        shown.contains(&"line\\nbreak.txt".to_string()),
        "control characters escaped: {out}"
    );
    let out = call(tmp.path(), json!({"name_contains": "CAFÉ"})).unwrap();
    assert_eq!(names(&out), ["café résumé.txt"]);
    assert!(out.contains("whose name contains \"CAFÉ\""), "{out}");
}

#[test]
fn containing_keeps_the_files_whose_text_holds_the_phrase() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("mon.txt", "Planted tulips in the garden.\n"),
        ("tue.txt", "Rain all day.\n"),
        ("thu.txt", "GARDEN party at Ben's.\n"),
        ("garden.txt", "Nothing about it inside.\n"),
    ] {
        std::fs::write(tmp.path().join(name), text).unwrap();
    }
    std::fs::create_dir(tmp.path().join("garden")).unwrap();
    let out = call(tmp.path(), json!({"containing": "garden", "type": "any"})).unwrap();
    // By what the files say, case ignored: not by their names, and no folder.
    assert_eq!(names(&out), ["mon.txt", "thu.txt"]);
    assert!(out.contains("whose text holds \"garden\""), "{out}");
    assert!(out.contains(": 2 found"), "{out}");
}

#[cfg(unix)]
#[test]
fn non_utf8_names_are_shown_lossily() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let name = OsStr::from_bytes(b"bad\xffname.txt");
    if File::create(tmp.path().join(name)).is_err() {
        return; // the file system refuses such names
    }
    let out = call(
        tmp.path(),
        json!({"pattern": "bad*", "group_by": "extension"}),
    )
    .unwrap();
    assert_eq!(names(&out), ["bad\u{fffd}name.txt"]);
}

#[test]
fn limit_shows_the_first_rows_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..10 {
        file(tmp.path(), &format!("f{i}.txt"), i, 60);
    }
    let out = call(tmp.path(), json!({"limit": "3", "sort": "biggest"})).unwrap();
    assert_eq!(names(&out), ["f9.txt", "f8.txt", "f7.txt"]);
    assert!(
        out.ends_with("(showing the first 3 of 10, sorted by size, largest first)"),
        "{out}"
    );
    assert!(line_starting(&out, "total:").starts_with("total: 10 files, 45 bytes"));
    let small = Limits {
        max_entries: 1000,
        max_shown: 2,
    };
    let out = call_with(tmp.path(), json!({"limit": 5}), &small).unwrap();
    assert_eq!(names(&out).len(), 2);
    assert!(
        out.contains("(showing the first 2 of 10, sorted by name, A to Z; at most 2 rows per call"),
        "{out}"
    );
    let out = call(tmp.path(), json!({"limit": 0})).unwrap();
    assert!(names(&out).is_empty());
    assert!(out.contains("total: 10 files"), "{out}");
    let out = call(tmp.path(), json!({})).unwrap();
    assert!(!out.contains("showing"), "all shown: {out}");
}

#[test]
fn an_empty_result_says_what_the_folder_holds() {
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "a.pdf",
        "b.pdf",
        "c.PDF",
        "d.jpg",
        "e.jpg",
        "README",
        ".DS_Store",
    ] {
        file(tmp.path(), name, 1, 60);
    }
    fs::create_dir(tmp.path().join("sub")).unwrap();
    let out = call(tmp.path(), json!({"pattern": "*.xyz"})).unwrap();
    assert_eq!(
        out,
        "no files matching *.xyz in ~/T (not recursive); the folder holds 6 files: 3 .pdf, 2 .jpg, 1 without extension; and 1 folder (sub/) (recursive=true looks inside); 1 hidden entry left out (hidden=true includes them)"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = call(empty.path(), json!({"recursive": true})).unwrap();
    assert_eq!(out, "no files in ~/T (recursive); the folder is empty");
}

#[test]
fn a_missing_folder_names_look_alike_siblings() {
    let tmp = tempfile::tempdir().unwrap();
    for dir in ["Downloads", "downloads-old", "Documents", "Desktop"] {
        fs::create_dir(tmp.path().join(dir)).unwrap();
    }
    file(tmp.path(), "Download notes.txt", 1, 60);
    let req = Request::default();
    let limits = Limits::default();
    let err = run(
        &tmp.path().join("Downlods"),
        "~/Downlods",
        &req,
        &limits,
        now(),
    )
    .unwrap_err();
    assert!(
        err.starts_with("no such folder: ~/Downlods; similar names there: ~/Downloads/"),
        "{err}"
    );
    assert!(err.contains("~/downloads-old/"), "{err}");
    assert!(err.contains("~/Download notes.txt"), "{err}");
    assert!(
        !err.contains("Desktop") && !err.contains("Documents"),
        "{err}"
    );
    let err = run(
        &tmp.path().join("DOWNLOADS"),
        "~/DOWNLOADS",
        &req,
        &limits,
        now(),
    )
    .unwrap_err();
    assert!(
        err.starts_with("no such folder: ~/DOWNLOADS; similar names there: ~/Downloads/, "),
        "same name, other case, first: {err}"
    );
    let err = run(&tmp.path().join("Doc"), "~/Doc", &req, &limits, now()).unwrap_err();
    assert_eq!(
        err,
        "no such folder: ~/Doc; similar names there: ~/Documents/"
    );
    let err = run(&tmp.path().join("zzz"), "~/zzz", &req, &limits, now()).unwrap_err();
    assert_eq!(err, "no such folder: ~/zzz");
    let err = run(
        &tmp.path().join("no/where"),
        "~/no/where",
        &req,
        &limits,
        now(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        "no such folder: ~/no/where (its parent folder does not exist either)"
    );
}

#[test]
fn a_file_given_as_the_folder_is_an_error_saying_so() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "a.pdf", 1234, 3600);
    let err = run(
        &tmp.path().join("a.pdf"),
        "~/T/a.pdf",
        &Request::default(),
        &Limits::default(),
        now(),
    )
    .unwrap_err();
    let expected = format!(
        "~/T/a.pdf is a file, not a folder: 1.2 KB (1234 bytes), modified {}; its folder is ~/T",
        date(Some(now() - Duration::from_secs(3600)))
    );
    assert_eq!(err, expected);
    // A table or a text: the error names the tool that reads inside it.
    for (name, reader) in [("t.csv", "read_table"), ("notes.txt", "read_lines")] {
        file(tmp.path(), name, 10, 60);
        let err = run(
            &tmp.path().join(name),
            &format!("~/T/{name}"),
            &Request::default(),
            &Limits::default(),
            now(),
        )
        .unwrap_err();
        assert!(
            err.ends_with(&format!(
                "call {reader} (its {}) with `path` ~/T/{name}",
                if reader == "read_table" {
                    "columns and rows"
                } else {
                    "lines"
                }
            )),
            "{err}"
        );
    }
}

#[test]
fn the_walk_stops_at_max_entries_and_says_it_is_partial() {
    let tmp = tempfile::tempdir().unwrap();
    for i in 0..30 {
        file(tmp.path(), &format!("f{i:02}.txt"), 1, 60);
    }
    let limits = Limits {
        max_entries: 10,
        max_shown: 100,
    };
    let out = call_with(tmp.path(), json!({}), &limits).unwrap();
    assert!(out.contains("files: 10 found so far (partial)"), "{out}");
    assert_eq!(names(&out).len(), 10);
    assert!(
        out.ends_with(
            "partial: stopped after reading 10 entries; the counts cover only those. Narrow the folder or the filters"
        ),
        "{out}"
    );
    let out = call_with(tmp.path(), json!({"pattern": "*.none"}), &limits).unwrap();
    assert!(out.starts_with("no files matching *.none"), "{out}");
    assert!(
        out.contains("partial: stopped after reading 10 entries"),
        "{out}"
    );
}

#[test]
fn unknown_values_are_errors_naming_the_valid_ones() {
    let err = Request::from_json(&json!({"sort": "popularity"})).unwrap_err();
    assert_eq!(
        err,
        "sort must be one of: name, size, modified, extension (or largest, smallest, newest, oldest); got \"popularity\""
    );
    let err = Request::from_json(&json!({"type": "pictures"})).unwrap_err();
    assert!(err.contains("\"files\", \"folders\" or \"any\""), "{err}");
    let err = Request::from_json(&json!({"group_by": "colour"})).unwrap_err();
    assert!(
        err.contains("\"extension\", \"folder\", \"kind\" or \"content\""),
        "{err}"
    );
    let err = Request::from_json(&json!({"order": "sideways"})).unwrap_err();
    assert!(err.contains("\"asc\" or \"desc\""), "{err}");
    let err = Request::from_json(&json!({"recursive": "maybe"})).unwrap_err();
    assert!(err.contains("true or false"), "{err}");
    let err = Request::from_json(&json!({"limit": -3})).unwrap_err();
    assert!(err.contains("whole number"), "{err}");
    let err = Request::from_json(&json!(["*.pdf"])).unwrap_err();
    assert!(err.contains("JSON object"), "{err}");
}

#[test]
fn a_window_of_time_keeps_the_files_changed_in_it() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    file(d, "landlord.txt", 18, 2 * 86_400);
    file(d, "bank.txt", 14, 5 * 86_400);
    file(d, "school.txt", 16, 10 * 86_400);
    file(d, "old-tax.txt", 17, 400 * 86_400);
    let out = call(d, json!({"modified_within": "7 days"})).unwrap();
    assert_eq!(names(&out), ["bank.txt", "landlord.txt"]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("modified within the last 1 week"),
        "{out}"
    );
    assert!(out.contains("2 found"), "{out}");
    let out = call(d, json!({"older_than": "1 year", "sort": "name"})).unwrap();
    assert_eq!(names(&out), ["old-tax.txt"]);
    // Both sides: a window between; a bare number is days.
    let out = call(d, json!({"modified_within": 30, "older_than": "4 days"})).unwrap();
    assert_eq!(names(&out), ["bank.txt", "school.txt"]);
    let err = call(d, json!({"modified_within": "soon"})).unwrap_err();
    assert!(err.contains("as an age"), "{err}");
}

#[test]
fn parameters_are_read_leniently() {
    let req = Request::from_json(&json!({
        "folder": "~/Downloads",
        "Recursive": "TRUE",
        "pattern": "'*.PDF'",
        "type": "file",
        "sort_by": "recent",
        "limit": 10.0,
        "group-by": "ext",
        "min_size": 1024,
        "hidden": 0,
        "contains": " Tax ",
        "unknown": [1, 2]
    }))
    .unwrap();
    assert_eq!(
        req,
        Request {
            recursive: true,
            patterns: vec!["*.PDF".to_string()],
            extensions: vec![],
            kind: Kind::Files,
            sort: Sort::Modified,
            descending: true,
            limit: 10,
            group_by: Some(Group::Extension),
            min_size: Some(1024),
            max_size: None,
            modified_within: None,
            older_than: None,
            hidden: false,
            name_contains: Some("Tax".to_string()),
            containing: None,
        }
    );
    let req = Request::from_json(&json!("{\"sort\": \"oldest\", \"limit\": \"all\"}")).unwrap();
    assert_eq!(
        (req.sort, req.descending, req.limit),
        (Sort::Modified, false, usize::MAX)
    );
    let req = Request::from_json(&json!({"sort": null, "pattern": ""})).unwrap();
    assert_eq!(req, Request::default());
    let req = Request::from_json(&json!({"sort": "extension"})).unwrap();
    assert!(!req.descending);
}

#[cfg(unix)]
#[test]
fn symlinks_are_listed_and_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    file(outside.path(), "far.txt", 1, 60);
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("ln")).unwrap();
    file(tmp.path(), "near.txt", 1, 60);
    let out = call(tmp.path(), json!({"recursive": true, "type": "any"})).unwrap();
    assert_eq!(names(&out), ["ln", "near.txt"], "{out}");
    let target = outside.path().to_string_lossy().to_string();
    assert!(out.contains(&format!("ln\tlink -> {target}\t")), "{out}");
    assert!(line_starting(&out, "total:").starts_with("total: 1 file, 1 link, 1 bytes"));
    let out = call(tmp.path(), json!({"type": "folders", "recursive": true})).unwrap();
    assert!(
        out.starts_with("no folders in ~/T"),
        "a link is not a folder: {out}"
    );
}

#[cfg(unix)]
#[test]
fn unreadable_folders_are_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "locked/inside.txt", 1, 60);
    file(tmp.path(), "open.txt", 1, 60);
    let locked = tmp.path().join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = fs::read_dir(&locked).is_ok(); // root reads everything
    let out = call(tmp.path(), json!({"recursive": true}));
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let out = out.unwrap();
    if readable_anyway {
        assert_eq!(names(&out), ["locked/inside.txt", "open.txt"]);
    } else {
        assert_eq!(names(&out), ["open.txt"]);
        assert!(
            out.ends_with("skipped 1 entry that could not be read"),
            "{out}"
        );
    }
}

#[test]
fn odd_times_never_panic() {
    assert_eq!(date(None), "-");
    let far = UNIX_EPOCH.checked_add(Duration::from_secs(1 << 60));
    if let Some(far) = far {
        let shown = date(Some(far));
        assert!(shown == "-" || shown.ends_with("UTC"), "{shown}");
    }
    let early = UNIX_EPOCH.checked_sub(Duration::from_secs(1 << 40));
    if let Some(early) = early {
        let shown = date(Some(early));
        assert!(shown == "-" || shown.ends_with("UTC"), "{shown}");
    }
    assert_eq!(date(Some(UNIX_EPOCH)).len(), "1970-01-01 00:00".len());
}

#[test]
fn params_name_the_folder_and_every_request_field() {
    let names: Vec<&str> = super::PARAMS.iter().map(|p| p.0).collect();
    assert_eq!(
        super::PARAMS[0],
        ("folder", "string", true, "absolute, ~/…, or relative")
    );
    for name in [
        "recursive",
        "pattern",
        "extensions",
        "type",
        "sort",
        "order",
        "limit",
        "group_by",
        "min_size",
        "max_size",
        "hidden",
        "name_contains",
        "containing",
    ] {
        assert!(names.contains(&name), "{name}");
        let params = json!({ name: "nonsense-value-xyz" });
        let _ = Request::from_json(&params);
    }
    assert_eq!(super::PARAMS.iter().filter(|p| p.2).count(), 1);
}

/// The size in bytes a row's size column shows.
fn row_bytes(line: &str) -> u64 {
    let column = line.split('\t').nth(1).unwrap();
    match column.split_once(" (") {
        Some((_, rest)) => rest.trim_end_matches(" bytes)").parse().unwrap(),
        None => column.trim_end_matches(" B").parse().unwrap(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn largest_first_counts_and_groups_agree(
        files in proptest::collection::btree_map(
            ("[a-z]{1,8}", prop::sample::select(vec!["pdf", "jpg", "txt", ""])),
            0u64..5000,
            0..25,
        ),
        wanted in prop::sample::subsequence(vec!["pdf", "jpg", "txt"], 0..=3),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let mut created = std::collections::BTreeSet::new();
        let mut matching = 0usize;
        let mut matching_bytes = 0u64;
        for ((stem, ext), size) in &files {
            let name = if ext.is_empty() { stem.clone() } else { format!("{stem}.{ext}") };
            if !created.insert(name.clone()) {
                continue;
            }
            file(tmp.path(), &name, *size, 60);
            if wanted.is_empty() || wanted.contains(ext) {
                matching += 1;
                matching_bytes += size;
            }
        }
        let out = call(tmp.path(), json!({
            "sort": "largest",
            "limit": 1000,
            "group_by": "extension",
            "extensions": wanted.join(","),
        })).unwrap();
        if matching == 0 {
            prop_assert!(out.starts_with("no files"), "{}", out);
            return Ok(());
        }
        let sizes: Vec<u64> = out.lines().filter(|l| l.contains('\t')).map(row_bytes).collect();
        prop_assert_eq!(sizes.len(), matching);
        prop_assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{}", out);
        prop_assert_eq!(sizes.iter().sum::<u64>(), matching_bytes);
        let totals = line_starting(&out, "total: ");
        let count: usize = totals["total: ".len()..].split(' ').next().unwrap().parse().unwrap();
        prop_assert_eq!(count, matching);
        let groups = &line_starting(&out, "by extension: ")["by extension: ".len()..];
        let summed: usize = groups
            .split(", ")
            .map(|g| g.split(" = ").nth(1).unwrap().split(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        prop_assert_eq!(summed, matching);
    }
}

#[test]
fn every_closed_value_the_grammar_offers_is_read() {
    for (param, values) in super::CHOICES {
        assert!(
            super::PARAMS.iter().any(|p| p.0 == *param),
            "{param} is a parameter"
        );
        for value in *values {
            let mut input = json!({ "folder": "/tmp" });
            input[*param] = json!(value);
            assert!(Request::from_json(&input).is_ok(), "{param} = {value}");
        }
    }
}

#[test]
fn size_and_age_are_read_in_the_request_s_words_not_in_the_names_it_gives() {
    for said in [
        "move the big files",
        "files over 2 MB",
        "the largest report",
        "500kb or more",
    ] {
        assert!(super::mentions_size(said), "{said}");
    }
    for said in [
        "move ~/big/a.txt to ~/b",
        "delete large-scan.pdf",
        "copy \"huge.tmp\" and tiny.log",
        "version 2.5 of the notes",
    ] {
        assert!(!super::mentions_size(said), "{said}");
    }
    assert_eq!(
        super::prose("Move (old.tmp) from ~/stale/ to /data/new, the 2.5 copies."),
        "Move from to the 2.5 copies."
    );
}

#[test]
fn folders_bounded_to_nothing_are_the_empty_ones_hidden_entries_counting() {
    let tmp = tempfile::tempdir().unwrap();
    file(tmp.path(), "alpha/plan.txt", 10, 60);
    fs::create_dir_all(tmp.path().join("beta")).unwrap();
    file(tmp.path(), "gamma/.DS_Store", 0, 60);
    fs::create_dir_all(tmp.path().join("delta/docs")).unwrap();
    let out = call(
        tmp.path(),
        json!({"type": "folders", "recursive": true, "max_size": 0}),
    )
    .unwrap();
    assert_eq!(names(&out), ["beta/", "delta/docs/"], "{out}");
    assert!(
        out.starts_with("~/T (recursive), folders that are empty"),
        "{out}"
    );
    // Files bounded to nothing are still the empty files, and no folder.
    let files = call(
        tmp.path(),
        json!({"recursive": true, "max_size": 0, "hidden": true}),
    )
    .unwrap();
    assert_eq!(names(&files), ["gamma/.DS_Store"], "{files}");
}
