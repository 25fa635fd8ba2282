//! Cost of the Law 1 classifier on the shell commands an executor sends: every shell
//! call is classified before it runs, so this is latency added to each one.

use std::hint::black_box;
use std::path::Path;

use artoo::laws::classify::{Action, FsView, Scope, classify};
use criterion::{Criterion, criterion_group, criterion_main};

/// A file system where `report.md` exists (no disk access in the measurement).
struct Fs;

impl FsView for Fs {
    fn exists(&self, path: &Path) -> bool {
        path.ends_with("report.md")
    }
    fn is_dir(&self, _: &Path) -> bool {
        false
    }
    fn read_script(&self, _: &Path) -> Option<String> {
        None
    }
}

const CASES: &[(&str, &str)] = &[
    (
        "read-only pipeline",
        "ls -la ~/Documents | grep -i report | head -20",
    ),
    (
        "read-only loop with substitutions",
        r#"for f in $(find . -name '*.csv'); do echo "$f: $(wc -l < "$f")"; done"#,
    ),
    (
        "destructive compound",
        r#"cd ~/Downloads && find . -name '*.tmp' -print0 | xargs -0 sudo rm -f && echo "done" > report.md"#,
    ),
    (
        "nested bash -c",
        r#"bash -c "sh -c 'eval \"rm -rf build\"'""#,
    ),
];

fn bench(c: &mut Criterion) {
    let scope = Scope {
        cwd: Path::new("/home/u/artoo_workspace"),
        home: Path::new("/home/u"),
        fs: &Fs,
    };
    let mut group = c.benchmark_group("classify");
    for (name, cmd) in CASES {
        group.bench_function(*name, |b| {
            b.iter(|| black_box(classify(&Action::Shell(black_box(cmd)), &scope)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
