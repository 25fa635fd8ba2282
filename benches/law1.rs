//! Cost of Law 1 on the shell commands an executor sends: the classifier runs before
//! every shell call, and every call the user did not confirm runs in the OS sandbox, so
//! both are latency added to each one. The sandbox group runs the same shell tool call
//! with the sandbox on and off (Linux: bubblewrap with overlays); the difference is
//! what the sandbox adds.
#![allow(clippy::unwrap_used)] // a test may unwrap: a panic is its failure report
#![allow(missing_docs)] // criterion_group! defines an undocumented `pub fn` per group

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

/// A shell tool call of a proven command, with the sandbox on and off: setup, the
/// namespaces, the overlays, the read of the upper folders afterwards.
#[cfg(target_os = "linux")]
fn sandbox(c: &mut Criterion) {
    use std::sync::Arc;

    use artoo::bus::Bus;
    use artoo::config::SandboxSetting;
    use artoo::contracts::{Role, SubTaskId, TaskId};
    use artoo::laws::ConfirmationBroker;
    use artoo::tools::{ToolContext, Toolbox};
    use artoo::{Config, SystemClock};

    let dir = std::env::temp_dir().join(format!("artoo-bench-law1-{}", std::process::id()));
    let home = dir.join("home");
    let ws = home.join("artoo_workspace");
    std::fs::create_dir_all(&ws).expect("workspace");
    std::fs::write(ws.join("data.csv"), "a,1\nb,2\n").expect("data");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let bus = Bus::new(SystemClock::shared());
    let toolbox = Toolbox::standard();
    let mut group = c.benchmark_group("shell call");
    group.sample_size(30);
    for (name, setting) in [
        ("sandbox off", SandboxSetting::Off),
        ("sandbox on", SandboxSetting::Auto),
    ] {
        let mut config = Config::with_dirs(dir.join("data"), &ws);
        config.home = home.clone();
        config.tools.sandbox = setting;
        let config = Arc::new(config);
        if setting == SandboxSetting::Auto {
            let status = rt.block_on(artoo::tools::sandbox_status(&config));
            assert!(
                status.is_on(),
                "the sandbox must work to measure it: {status:?}"
            );
        }
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| {
                let broker = ConfirmationBroker::from_config(
                    bus.handle(Role::Executor),
                    SystemClock::shared(),
                    &config,
                );
                let ctx = ToolContext::new(
                    TaskId::mint(),
                    SubTaskId::mint(),
                    Arc::clone(&config),
                    broker,
                );
                let toolbox = &toolbox;
                async move {
                    let r = toolbox
                        .call(
                            &ctx,
                            &artoo::tools::ToolName::Shell.into(),
                            serde_json::json!({ "command": "wc -l data.csv" }),
                        )
                        .await;
                    assert!(
                        matches!(r.outcome, artoo::tools::ToolOutcome::Ok { .. }),
                        "{:?}",
                        r.outcome
                    );
                }
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(target_os = "linux")]
criterion_group!(benches, bench, sandbox);
#[cfg(not(target_os = "linux"))]
criterion_group!(benches, bench);
criterion_main!(benches);
