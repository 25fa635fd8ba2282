//! Runs a test's body in a child process of this test binary whose HOME and
//! XDG_DATA_HOME are temp dirs: the Trash lives there, and a test must never touch a
//! real one.

use std::process::Command;

const CHILD: &str = "ARTOO_TEST_TRASH_CHILD";

/// In the parent: runs `test` (its full path, e.g. `tools::…`) alone in a child with a
/// private Trash, asserts that it passed and used that Trash, and returns false. In the
/// child: returns true, and the caller runs the body.
pub fn in_private_trash(test: &str) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let home = tempfile::tempdir().expect("temp home");
    let data = home.path().join(".local/share");
    std::fs::create_dir_all(&data).expect("data dir");
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", test, "--test-threads=1"])
        .env(CHILD, "1")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", &data)
        .output()
        .expect("the child test runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        data.join("Trash/info").read_dir().is_ok(),
        "the private Trash was used"
    );
    false
}
