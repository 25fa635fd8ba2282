//! The Linux sandbox: bubblewrap builds the namespaces, overlayfs keeps every change.
//!
//! One call, from the outside in:
//!
//! 1. `bwrap` makes new user, mount, pid, ipc, uts and cgroup namespaces (and a network
//!    namespace with nothing in it unless the classifier proved a network read), binds
//!    the whole file system read-only with a fresh `/dev` and `/proc`, binds the call's
//!    own folder writable, loads the socket filter ([`super::seccomp`]) and starts a small
//!    setup script with just the capabilities it needs to mount.
//! 2. The script mounts an overlay on the home folder and one on the workspace (one
//!    when one holds the other): the real folder below, an upper folder in the call's
//!    folder above. Every write lands in the upper folder; the real one is untouched.
//!    Credential stores the request does not name are covered by an empty folder or
//!    file (`Grants::hidden`).
//! 3. It enters a second user namespace mapped to the user's own id — which locks every
//!    mount as it is, read-only flags included — drops every capability, sets
//!    no-new-privileges and limits the processes, memory and processor time of the
//!    command (a fork bomb stops at the limit; a process spinning on every core cannot use
//!    more than the call's time on each), then runs `bash -c COMMAND` in the workspace.
//!
//! bubblewrap 0.8 (Debian 12) has no overlay options, so step 2 is done inside; the
//! nested namespace of step 3 is what keeps the command from undoing steps 1 and 2.
//!
//! **Invariant:** the command never holds a capability and never sees a writable mount
//! but the overlays and its own temp folder; every change it makes to the home folder
//! or the workspace exists only in an upper folder until [`super::changes`] keeps it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::changes::Layer;

/// The setup script (`sh -c`): `PROGRAMS UID GID CWD NPROC DATA CPU N (LOWER UPPER
/// WORK)×N M HIDDEN×M COMMAND…`. Its own programs come from PROGRAMS (the system's
/// folders); the command gets its `PATH` back.
const SETUP: &str = r#"set -u
fail() { echo "artoo-sandbox: $*" >&2; exit 125; }
command_path=${PATH-}
PATH=$1
u=$2 g=$3 cwd=$4 nproc=$5 data=$6 cpu=$7 n=$8
shift 8
while [ "$n" -gt 0 ]; do
  mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3,userxattr" "$1" ||
    fail "cannot mount an overlay on $1"
  shift 3
  n=$((n - 1))
done
m=$1
shift
while [ "$m" -gt 0 ]; do
  if [ -d "$1" ] && [ ! -L "$1" ]; then
    mount -t tmpfs -o size=64k,mode=700 tmpfs "$1" || fail "cannot hide $1"
  elif [ -e "$1" ] || [ -L "$1" ]; then
    mount --bind /dev/null "$1" || fail "cannot hide $1"
  fi
  shift
  m=$((m - 1))
done
cd "$cwd" || fail "cannot enter $cwd"
exec </dev/null
un=$(command -v unshare) && sp=$(command -v setpriv) && pl=$(command -v prlimit) ||
  fail "unshare, setpriv and prlimit (util-linux) are needed"
PATH=$command_path
export PATH
exec "$un" --user --mount --map-user="$u" --map-group="$g" -- "$sp" --no-new-privs --inh-caps=-all --bounding-set=-all -- "$pl" --nproc="$nproc" --data="$data" --cpu="$cpu" -- "$@"
"#;

/// Processes one call may run at once (its own and the user's other processes count
/// for an ordinary user; see `cgroup` for root).
pub const MAX_PROCESSES: u32 = 1024;

/// Bytes of writable memory one process of a call may map: half the machine's memory,
/// at least 1 GiB.
fn max_data() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(8 << 30, |kb| kb * 1024);
    (total / 2).max(1 << 30)
}

/// Capabilities the setup script holds inside the first namespace, and only there:
/// mounting, creating overlayfs's work folder, and mapping ids for the second
/// namespace. The command never has them.
const SETUP_CAPS: &[&str] = &["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_SETFCAP"];

/// Parts of /proc where writing changes the kernel, made read-only in the sandbox.
const PROC_KNOBS: &[&str] = &[
    "/proc/sys",
    "/proc/sysrq-trigger",
    "/proc/irq",
    "/proc/bus",
    "/proc/fs",
    "/proc/scsi",
    "/proc/acpi",
    "/proc/driver",
];

/// Characters overlayfs's mount options cannot carry unescaped.
pub fn mountable(path: &Path) -> bool {
    let s = path.to_string_lossy();
    !s.contains([',', ':', '\\', '\n']) && path.is_absolute()
}

/// The folders of one call: an upper and a work folder per overlay, and a temp folder.
#[derive(Debug)]
pub struct Layout {
    pub dir: PathBuf,
    pub layers: Vec<(Layer, PathBuf)>,
    pub tmp: PathBuf,
}

impl Layout {
    /// Creates the call's folder under `temp_root` with overlays for `roots`.
    pub fn create(temp_root: &Path, roots: &[PathBuf]) -> std::io::Result<Self> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = temp_root.join(format!("artoo-sandbox-{}", uuid::Uuid::new_v4().simple()));
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let mut layers = Vec::new();
        for (i, root) in roots.iter().enumerate() {
            let upper = dir.join(format!("{i}/upper"));
            let work = dir.join(format!("{i}/work"));
            std::fs::create_dir_all(&upper)?;
            std::fs::create_dir_all(&work)?;
            layers.push((
                Layer {
                    real: root.clone(),
                    upper,
                },
                work,
            ));
        }
        let tmp = dir.join("tmp");
        std::fs::create_dir(&tmp)?;
        Ok(Self { dir, layers, tmp })
    }
}

impl Drop for Layout {
    fn drop(&mut self) {
        // overlayfs leaves its work folders without permissions; open them first.
        for (_, work) in &self.layers {
            let _ = make_removable(work);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn make_removable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            make_removable(&entry.path())?;
        }
    }
    Ok(())
}

/// The overlay roots for a home folder and a workspace: one when one holds the other.
pub fn roots(home: &Path, workspace: &Path) -> Vec<PathBuf> {
    if workspace.starts_with(home) {
        vec![home.to_path_buf()]
    } else if home.starts_with(workspace) {
        vec![workspace.to_path_buf()]
    } else {
        vec![home.to_path_buf(), workspace.to_path_buf()]
    }
}

/// Why a layout cannot be mounted, if it cannot: overlay folders must not overlap the
/// folders they cover, and option syntax limits the paths.
pub fn unusable(temp_root: &Path, roots: &[PathBuf]) -> Option<String> {
    if let Some(bad) = roots
        .iter()
        .map(PathBuf::as_path)
        .chain([temp_root])
        .find(|p| !mountable(p))
    {
        return Some(format!(
            "the folder {} has a character (`,` `:` `\\`) an overlay mount cannot name",
            bad.display()
        ));
    }
    roots
        .iter()
        .find(|r| temp_root.starts_with(r) || r.starts_with(temp_root))
        .map(|r| {
            format!(
                "the temporary folder {} overlaps {}",
                temp_root.display(),
                r.display()
            )
        })
}

/// What one sandboxed call may do beyond reading, and what it may not see.
pub struct Grants {
    pub network: bool,
    /// Seconds of processor time each process of the call may use.
    pub cpu_secs: u64,
    /// Credential stores replaced by an empty folder or file inside.
    pub hidden: Vec<PathBuf>,
}

/// The `bwrap` arguments that run `argv` in `cwd` inside `layout`, the setup run by
/// `sh` with its programs from `programs` (both the system's). Standard input must be
/// the socket filter (`--seccomp 0`); the script then closes it.
pub fn bwrap_args(
    layout: &Layout,
    grants: &Grants,
    ids: (u32, u32),
    (sh, programs): (&Path, &std::ffi::OsStr),
    cwd: &Path,
    argv: &[OsString],
) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    let mut push = |s: &str| a.push(OsString::from(s));
    for s in [
        "--unshare-user",
        "--uid",
        "0",
        "--gid",
        "0",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ] {
        push(s);
    }
    if !grants.network {
        push("--unshare-net");
    }
    for cap in SETUP_CAPS {
        push("--cap-add");
        push(cap);
    }
    for s in [
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ] {
        push(s);
    }
    // The kernel's knobs under /proc: sysctl files let the real root user write them
    // from any namespace (the permission check compares with the global root id), so
    // when artoo runs as root they must be read-only here.
    for dir in PROC_KNOBS {
        push("--ro-bind-try");
        push(dir);
        push(dir);
    }
    a.push("--bind".into());
    a.push(layout.dir.clone().into());
    a.push(layout.dir.clone().into());
    a.push("--setenv".into());
    a.push("TMPDIR".into());
    a.push(layout.tmp.clone().into());
    a.push("--seccomp".into());
    a.push("0".into());
    a.push("--".into());
    a.push(sh.into());
    a.push("-c".into());
    a.push(SETUP.into());
    a.push("artoo-sandbox".into());
    a.push(programs.into());
    a.push(ids.0.to_string().into());
    a.push(ids.1.to_string().into());
    a.push(cwd.into());
    a.push(MAX_PROCESSES.to_string().into());
    a.push(max_data().to_string().into());
    a.push(grants.cpu_secs.max(1).to_string().into());
    a.push(layout.layers.len().to_string().into());
    for (layer, work) in &layout.layers {
        a.push(layer.real.clone().into());
        a.push(layer.upper.clone().into());
        a.push(work.clone().into());
    }
    a.push(grants.hidden.len().to_string().into());
    for hidden in &grants.hidden {
        a.push(hidden.clone().into());
    }
    a.extend(argv.iter().cloned());
    a
}

/// The user's own uid and gid, which the command runs as.
pub fn ids() -> (u32, u32) {
    (
        rustix::process::getuid().as_raw(),
        rustix::process::getgid().as_raw(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_overlay_covers_a_workspace_inside_the_home_folder() {
        let home = Path::new("/home/u");
        assert_eq!(
            roots(home, Path::new("/home/u/ws")),
            vec![home.to_path_buf()]
        );
        assert_eq!(
            roots(home, Path::new("/srv/ws")),
            vec![home.to_path_buf(), PathBuf::from("/srv/ws")]
        );
    }

    #[test]
    fn overlapping_or_unmountable_folders_are_reported() {
        let roots = vec![PathBuf::from("/home/u")];
        assert!(unusable(Path::new("/tmp"), &roots).is_none());
        assert!(unusable(Path::new("/home/u/tmp"), &roots).is_some());
        assert!(unusable(Path::new("/tmp"), &[PathBuf::from("/home/a,b")]).is_some());
    }
}
