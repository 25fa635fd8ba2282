//! The core must never depend on the desktop shell: the dependency points one way.

use std::collections::{HashMap, HashSet, VecDeque};
use std::process::Command;

use serde_json::Value;

#[test]
fn the_core_dependency_tree_contains_no_tauri_crate() {
    let manifest_dir = env!("CARGO_MANIFEST_DIR");
    // Only the host platform's packages: the walk must not need every platform's crates.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            &host,
        ])
        .current_dir(manifest_dir)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = format!("{manifest_dir}/Cargo.toml");
    let root = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "artoo" && p["manifest_path"] == manifest.as_str())
        .expect("the core package is in the metadata")["id"]
        .as_str()
        .unwrap()
        .to_string();
    let names: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let deps: HashMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["id"].as_str().unwrap(),
                n["dependencies"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_str().unwrap())
                    .collect(),
            )
        })
        .collect();

    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([root.as_str()]);
    let mut reached = Vec::new();
    while let Some(id) = queue.pop_front() {
        if !seen.insert(id) {
            continue;
        }
        reached.push(names[id]);
        queue.extend(deps.get(id).into_iter().flatten().copied());
    }
    assert!(
        reached.contains(&"tokio") && reached.contains(&"serde"),
        "the walk reaches direct dependencies"
    );
    let shell: Vec<_> = reached
        .iter()
        .filter(|n| n.starts_with("tauri") || ["wry", "tao", "artoo-desktop"].contains(n))
        .collect();
    assert!(shell.is_empty(), "the core depends on {shell:?}");
}
