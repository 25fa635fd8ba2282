//! A process-count limit for one sandboxed call that holds for every user, root
//! included. The command's own `RLIMIT_NPROC` (set in the sandbox, see `linux`) stops a
//! fork bomb of an ordinary user, but the kernel never applies that limit to root; a
//! control group's `pids.max` applies to everyone. Where artoo may make a control group
//! (it runs as root, or was given a writable one), each call gets its own, the sandbox
//! joins it before it starts, and it is removed after.
//!
//! **Invariant:** when a group was made, the sandbox either runs inside it or does not
//! run at all; no group outlives its call.

use std::path::{Path, PathBuf};

/// The control group of one call.
#[derive(Debug)]
pub struct Group {
    dir: PathBuf,
}

impl Group {
    /// A new group under the pids controller limited to `max` processes, when one can be
    /// made here (cgroup v2 with pids enabled at the root, or the v1 pids hierarchy).
    pub fn new(max: u32) -> Option<Self> {
        let name = format!("artoo-sandbox-{}", uuid::Uuid::new_v4().simple());
        let v2 = Path::new("/sys/fs/cgroup");
        let root = if std::fs::read_to_string(v2.join("cgroup.subtree_control"))
            .is_ok_and(|c| c.split_whitespace().any(|w| w == "pids"))
        {
            v2.to_path_buf()
        } else if v2.join("pids/pids.max").exists() || v2.join("pids/tasks").exists() {
            v2.join("pids")
        } else {
            return None;
        };
        let dir = root.join(name);
        std::fs::create_dir(&dir).ok()?;
        let group = Self { dir };
        std::fs::write(group.dir.join("pids.max"), max.to_string()).ok()?;
        Some(group)
    }

    /// The file a process writes its id to to join the group.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if std::fs::remove_dir(&self.dir).is_ok() {
            return;
        }
        // Its processes were killed with the call; the kernel may take a moment to let
        // go of them. Wait for that off the caller's thread.
        let dir = std::mem::take(&mut self.dir);
        std::thread::spawn(move || {
            for _ in 0..100 {
                std::thread::sleep(std::time::Duration::from_millis(20));
                if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                    return;
                }
            }
            tracing::warn!(group = %dir.display(), "a sandbox's control group could not be removed");
        });
    }
}
