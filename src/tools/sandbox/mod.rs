//! Law 1's second wall: the OS sandbox in which every shell command runs that the user
//! did not confirm. The classifier is the first wall; when it misjudges a command, the
//! command can fail here, but it cannot destroy anything.
//!
//! Inside, a command cannot delete, empty, overwrite or re-permission an existing file
//! anywhere — the workspace included — nor write outside the workspace, the paths the
//! classifier proved it creates and a temp folder of its own (`TMPDIR`), nor reach the
//! network unless the classifier proved a network read, nor talk to a server over a
//! Unix socket, nor see or signal other processes. New files stay free.
//!
//! - Linux (`linux`, `changes`, `seccomp`): bubblewrap namespaces with the home folder
//!   and the workspace as overlays. After the command ends, its upper folders are read:
//!   new entries where they may go are kept, appends to workspace files are kept, and
//!   everything else is refused and named in the result ("the sandbox refused: delete
//!   ~/a.txt"). The real folders are never written by the command itself.
//! - macOS (`seatbelt`): a Seatbelt profile for `sandbox-exec` that denies those writes
//!   as they happen. Generated here and tested as text; its behaviour on a Mac is not
//!   verified by this project's tests.
//! - Elsewhere, or when the sandbox cannot start (bubblewrap missing, user namespaces
//!   disabled) or is turned off in settings: [`Status::Off`] with the reason, and every
//!   command the classifier cannot prove reversible asks instead.
//!
//! **Invariant:** a sandboxed call either reports [`Outcome`] with every refused change
//! named, or fails; nothing it did outside the places new entries may go is kept.

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(target_os = "linux")]
mod changes;
#[cfg(target_os = "linux")]
mod held;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "macos")]
mod macos;
mod measured;
#[cfg(target_os = "linux")]
mod moves;
pub mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;

#[cfg(target_os = "linux")]
pub use held::Held;
pub use measured::{
    Measured, VERBS as HELD_VERBS, describe as describe_measured, dialog as held_dialog,
};

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use super::process::{BaseEnv, Finished};
use crate::contracts::PathEffect;
use crate::journal::Change;

/// Whether commands can run in the sandbox here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It works; the text names the mechanism.
    On(&'static str),
    /// It cannot be used, and why, in plain words.
    Off(String),
}

impl Status {
    /// True when commands run in the sandbox.
    pub fn is_on(&self) -> bool {
        matches!(self, Status::On(_))
    }

    /// One line for the CLI and the desktop app.
    pub fn describe(&self) -> String {
        match self {
            Status::On(how) => format!("the sandbox is on ({how})"),
            Status::Off(why) => format!(
                "the sandbox is off: {why}. Every command artoo cannot prove harmless asks first."
            ),
        }
    }
}

/// What the classifier proved about one command, for its sandbox.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Paths the command provably creates (or fills with new entries), outside the
    /// workspace too: new entries there are kept.
    pub creates: Vec<PathBuf>,
    /// A proven network read: the network stays reachable.
    pub network: bool,
    /// Credential stores the user's request names, left visible to the command; every
    /// other one ([`CREDENTIALS`]) is hidden inside the sandbox.
    pub reveal: Vec<PathBuf>,
}

/// Where credentials live in a home folder (see [`crate::laws::CREDENTIALS`]).
pub use crate::laws::CREDENTIALS;

/// The credential stores `request` names (by their name without the leading dot, as a
/// word: "my ssh config", "the .aws credentials"), which stay visible in the sandbox.
pub fn named_credentials(request: &str, home: &Path) -> Vec<PathBuf> {
    let words: Vec<String> = request
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    CREDENTIALS
        .iter()
        .filter(|c| {
            let last = c.rsplit('/').next().unwrap_or(c);
            let name = last.trim_start_matches('.').to_lowercase();
            let stem = name.split('.').next().unwrap_or(&name).to_string();
            words.iter().any(|w| *w == name || *w == stem)
        })
        .map(|c| home.join(c))
        .collect()
}

/// The result of a sandboxed call.
#[derive(Debug)]
pub struct Outcome {
    /// How the command ended, with its output.
    pub finished: Finished,
    /// What the sandbox did not let through, each with the verb of what was tried
    /// (where changes cannot be held: they were stopped as they happened).
    pub refused: Vec<PathEffect>,
    /// What the command did that Law 1 cares about, held for the user's answer, with
    /// everything else it did (nothing of the call is applied until then).
    pub held: Option<Held>,
    /// New entries that should have been kept but could not be, with why.
    pub not_kept: Vec<(PathBuf, String)>,
    /// What was kept of the command's changes: each path with `create` or `append`.
    pub kept: Vec<PathEffect>,
    /// The same, as the journal keeps it (for an undo).
    pub journaled: Vec<Change>,
}

/// Where approved deletions go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deletions {
    /// Into artoo's private trash with every other original.
    PrivateTrash,
    /// Nowhere: they were already moved to the system Trash.
    AlreadyTrashed,
}

/// What a commit did.
#[derive(Debug, Default)]
pub struct Committed {
    /// Every change applied, as effect records carry them.
    pub applied: Vec<PathEffect>,
    /// The same, as the journal keeps them, each original named.
    pub journaled: Vec<Change>,
    /// Where the originals went, when any was kept.
    pub originals: Option<PathBuf>,
}

/// Where no layer can be held (no overlay), nothing is: that sandbox stops changes as
/// they happen, and a command it stopped can only be run again outside, asked first.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
pub enum Held {}

#[cfg(not(target_os = "linux"))]
impl Held {
    /// The changes Law 1 cares about, measured.
    pub fn effects(&self) -> &[Measured] {
        match *self {}
    }

    /// Whether the layer's paths are as they were (never reached: nothing is held here).
    pub fn unchanged(&self) -> std::io::Result<()> {
        match *self {}
    }

    /// Applies the layer (never reached: nothing is held here).
    pub fn commit(self, _originals: &Path, _deletions: Deletions) -> std::io::Result<Committed> {
        match self {}
    }
}

/// Where one call runs.
pub struct Confinement<'a> {
    /// The folder the command runs in and may add to.
    pub workspace: &'a Path,
    /// The user's home folder.
    pub home: &'a Path,
    /// What the classifier proved about the command.
    pub plan: &'a Plan,
    /// How long the command may run before it is killed.
    pub timeout: Duration,
}

/// The folders the sandbox takes its own programs from (bubblewrap, `sh`, and the
/// setup's `mount`, `unshare`, `setpriv`, `prlimit`): the system's, written by root
/// only. Never the command's `PATH`: a `mount` or `setpriv` that an earlier command
/// left on that `PATH` would run with the setup's privileges and leave the command
/// unconfined.
pub const SYSTEM_PROGRAMS: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The sandbox of one shell tool: its children's environment, where its own programs
/// come from, and the probe of whether it works, made once.
#[derive(Clone, Debug)]
pub struct Sandbox {
    env: BaseEnv,
    programs: std::ffi::OsString,
    status: Arc<OnceCell<Status>>,
}

impl Sandbox {
    /// The sandbox for children that inherit this process's environment. The probe is
    /// shared by every such sandbox of the process.
    pub fn standard() -> Self {
        static STATUS: OnceLock<Arc<OnceCell<Status>>> = OnceLock::new();
        Self {
            env: BaseEnv::Inherit,
            programs: SYSTEM_PROGRAMS.into(),
            status: STATUS.get_or_init(|| Arc::new(OnceCell::new())).clone(),
        }
    }

    /// A sandbox whose children see exactly `env` and whose own programs come from
    /// `programs` (folders, as in `PATH`), probed on its own.
    pub fn with_env(env: BaseEnv, programs: std::ffi::OsString) -> Self {
        Self {
            env,
            programs,
            status: Arc::new(OnceCell::new()),
        }
    }

    /// Whether the sandbox works here, probed on first use by running a command in it.
    pub async fn status(&self) -> &Status {
        self.status
            .get_or_init(|| async { probe(&self.env, &self.programs).await })
            .await
    }

    /// Runs `bash -c command` in the workspace, inside the sandbox.
    pub async fn run(
        &self,
        command: &str,
        at: Confinement<'_>,
        cancel: &CancellationToken,
    ) -> Result<Outcome, ToolError> {
        platform::run(&self.env, &self.programs, command, at, cancel).await
    }
}

async fn probe(env: &BaseEnv, programs: &std::ffi::OsStr) -> Status {
    if let Some(why) = platform::unsupported() {
        return Status::Off(why);
    }
    platform::probe(env, programs).await
}

/// Cache and history files programs write on their own in the home folder. They are
/// dropped, not kept, and not counted as refusals of the command.
#[cfg(target_os = "linux")]
fn is_quiet_cache(path: &Path, home: &Path) -> bool {
    const QUIET: &[&str] = &[
        ".cache",
        ".wget-hsts",
        ".lesshst",
        ".python_history",
        ".node_repl_history",
        ".bash_history",
        ".zsh_history",
        ".sqlite_history",
        ".psql_history",
        ".mysql_history",
        ".viminfo",
        ".npm",
        ".rnd",
        ".local/state",
        "Library/Caches",
        "Library/Logs",
    ];
    path.strip_prefix(home)
        .is_ok_and(|rel| QUIET.iter().any(|q| rel.starts_with(q)))
}

/// Where a new entry may be kept: in the workspace, under a path the classifier proved
/// the command creates, or on the way to one (`mkdir -p ~/a/b` makes `~/a` too); never
/// where it would configure the system. Only entries that did not exist are asked about.
#[cfg(target_os = "linux")]
fn may_keep(path: &Path, workspace: &Path, home: &Path, plan: &Plan) -> bool {
    !crate::laws::classify::is_sensitive_path(path, home)
        && (path.starts_with(workspace)
            || plan
                .creates
                .iter()
                .any(|c| path.starts_with(c) || c.starts_with(path)))
}

/// What applying kept changes did: as effect records carry it (each new file `create`,
/// each addition `append`, each move `move` at its new path), and as the journal keeps
/// it (every new entry, folders too, in the order they were made).
#[cfg(target_os = "linux")]
fn kept_effects(applied: changes::Applied) -> (Vec<PathEffect>, Vec<Change>) {
    let effect = |path: &Path, verb: &str, exists: bool| PathEffect {
        path: path.to_path_buf(),
        exists,
        effect: verb.to_string(),
    };
    let mut effects = Vec::new();
    let mut journaled = Vec::new();
    for path in applied.created {
        if !path.is_dir() {
            effects.push(effect(&path, "create", false));
        }
        journaled.push(Change::Create { path });
    }
    for (path, old_len) in applied.appended {
        effects.push(effect(&path, "append", true));
        journaled.push(Change::Append { path, old_len });
    }
    for (from, to) in applied.moved {
        effects.push(effect(&to, "move", false));
        journaled.push(Change::Move { from, path: to });
    }
    (effects, journaled)
}

/// The sentence the model reads when the sandbox refused something.
pub fn refusal_message(refused: &[PathEffect]) -> String {
    let what = refused
        .iter()
        .map(|r| format!("{} {}", r.effect, r.path.display()))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "The sandbox refused: {what}; nothing was changed there. To do it anyway, call shell again with the same command and \"unsandboxed\": true (the user is asked first)."
    )
}

#[cfg(target_os = "linux")]
mod platform {
    use std::ffi::{OsStr, OsString};
    use std::io::Write as _;
    use std::path::{Path, PathBuf};

    use tokio_util::sync::CancellationToken;

    use super::changes::{self, Place};
    use super::linux::{self, Grants, Layout};
    use super::{Confinement, Outcome, Plan, Status, is_quiet_cache, may_keep, moves, seccomp};
    use crate::contracts::PathEffect;
    use crate::journal::Change;
    use crate::tools::ToolError;
    use crate::tools::process::{self, BaseEnv, Input, Spec};

    /// Exit status of the setup script when it could not build the sandbox.
    const SETUP_FAILED: i32 = 125;

    /// Joins the control group whose `cgroup.procs` is `$0`, then starts the sandbox.
    const JOIN_GROUP: &str = r#"echo $$ > "$0" || { echo "artoo-sandbox: cannot join its process limit" >&2; exit 125; }
exec "$@""#;

    /// `program` in the first of `programs` (folders, as in `PATH`) that has it.
    fn find(programs: &OsStr, program: &str) -> Option<PathBuf> {
        std::env::split_paths(programs)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    }

    fn bwrap_missing() -> ToolError {
        ToolError::SandboxUnavailable("bubblewrap (bwrap) is not installed".into())
    }

    pub fn unsupported() -> Option<String> {
        seccomp::program().is_none().then(|| {
            format!(
                "there is no socket filter for this processor ({})",
                std::env::consts::ARCH
            )
        })
    }

    /// Runs `true` in a sandbox over two scratch folders.
    pub async fn probe(env: &BaseEnv, programs: &OsStr) -> Status {
        let scratch = std::env::temp_dir().join(format!(
            "artoo-sandbox-probe-{}",
            uuid::Uuid::new_v4().simple()
        ));
        let (home, ws) = (scratch.join("home"), scratch.join("ws"));
        if let Err(e) = std::fs::create_dir_all(&ws).and(std::fs::create_dir_all(&home)) {
            return Status::Off(format!(
                "cannot prepare a probe in {}: {e}",
                scratch.display()
            ));
        }
        let plan = Plan::default();
        let result = run(
            env,
            programs,
            "true",
            Confinement {
                workspace: &ws,
                home: &home,
                plan: &plan,
                timeout: std::time::Duration::from_secs(20),
            },
            &CancellationToken::new(),
        )
        .await;
        let _ = std::fs::remove_dir_all(&scratch);
        match result {
            Ok(o) if o.finished.status.success() => {
                Status::On("bubblewrap with overlays of the home folder and the workspace")
            }
            Ok(o) => Status::Off(format!(
                "a test command failed inside it: {}",
                o.finished.stderr.trim()
            )),
            Err(ToolError::SandboxUnavailable(why)) => Status::Off(why),
            Err(e) => Status::Off(e.to_string()),
        }
    }

    /// A folder for the call's upper folders that none of the overlays covers.
    fn temp_root(roots: &[PathBuf]) -> Result<PathBuf, ToolError> {
        let candidates = [std::env::temp_dir(), PathBuf::from("/var/tmp")];
        let mut why = String::new();
        for c in candidates {
            match linux::unusable(&c, roots) {
                None => return Ok(c),
                Some(reason) => why = reason,
            }
        }
        Err(ToolError::SandboxUnavailable(why))
    }

    pub async fn run(
        env: &BaseEnv,
        programs: &OsStr,
        command: &str,
        at: Confinement<'_>,
        cancel: &CancellationToken,
    ) -> Result<Outcome, ToolError> {
        let bwrap = find(programs, "bwrap").ok_or_else(bwrap_missing)?;
        let sh = find(programs, "sh").ok_or_else(|| {
            ToolError::SandboxUnavailable("there is no sh in the system's folders".into())
        })?;
        let (layout, stdin) = prepare(&at)?;
        let argv: Vec<OsString> = vec!["bash".into(), "-c".into(), command.into()];
        let hidden: Vec<PathBuf> = super::CREDENTIALS
            .iter()
            .map(|c| at.home.join(c))
            .filter(|p| !at.plan.reveal.contains(p) && std::fs::symlink_metadata(p).is_ok())
            .filter(|p| linux::mountable(p))
            .collect();
        let args = linux::bwrap_args(
            &layout,
            &Grants {
                network: at.plan.network,
                hidden,
                // Processor time beyond the call's own time on every core is a runaway.
                cpu_secs: at.timeout.as_secs().saturating_mul(
                    std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
                ),
            },
            linux::ids(),
            (&sh, programs),
            at.workspace,
            &argv,
        );
        // Root ignores the process limit the command gets; a control group does not.
        let group = super::cgroup::Group::new(linux::MAX_PROCESSES);
        let (program, args) = match &group {
            Some(g) => {
                let mut wrapped: Vec<OsString> = vec![
                    "-c".into(),
                    JOIN_GROUP.into(),
                    g.procs().into_os_string(),
                    bwrap.into_os_string(),
                ];
                wrapped.extend(args);
                (sh, wrapped)
            }
            None => (bwrap, args),
        };
        let program = program.to_string_lossy().into_owned();
        let finished = match process::run(
            Spec {
                program: &program,
                args,
                cwd: Some(at.workspace),
                env,
                home: Some(at.home),
                stdin: Input::File(stdin),
                timeout: at.timeout,
            },
            cancel,
        )
        .await
        {
            Err(ToolError::NotFound(_)) => return Err(bwrap_missing()),
            other => other?,
        };
        if let Some(why) = setup_failure(&finished) {
            return Err(ToolError::SandboxUnavailable(why));
        }
        drop(group);
        let outcome = settle(layout, &at).await?;
        Ok(Outcome {
            finished,
            refused: Vec::new(),
            held: outcome.held,
            not_kept: outcome.not_kept,
            kept: outcome.kept,
            journaled: outcome.journaled,
        })
    }

    /// The call's folders (overlay layers, upper folders) and its socket filter, opened
    /// as the file bubblewrap reads it from.
    fn prepare(at: &Confinement<'_>) -> Result<(Layout, std::fs::File), ToolError> {
        // A folder that does not exist has nothing to protect (and nothing to mount on).
        let roots: Vec<PathBuf> = linux::roots(at.home, at.workspace)
            .into_iter()
            .filter(|r| r.is_dir())
            .collect();
        let temp = temp_root(&roots)?;
        let filter = seccomp::program()
            .ok_or_else(|| ToolError::SandboxUnavailable("no socket filter here".into()))?;
        let layout = Layout::create(&temp, &roots).map_err(|e| {
            ToolError::SandboxUnavailable(format!(
                "cannot prepare its folders in {}: {e}",
                temp.display()
            ))
        })?;
        let filter_path = layout.dir.join("filter.bpf");
        let stdin = std::fs::File::create(&filter_path)
            .and_then(|mut f| f.write_all(&seccomp::bytes(&filter)))
            .and_then(|()| std::fs::File::open(&filter_path))
            .map_err(|e| {
                ToolError::SandboxUnavailable(format!("cannot write its socket filter: {e}"))
            })?;
        Ok((layout, stdin))
    }

    /// What [`settle`] found: kept, or held for the user's answer.
    struct Settled {
        held: Option<super::Held>,
        not_kept: Vec<(PathBuf, String)>,
        kept: Vec<PathEffect>,
        journaled: Vec<Change>,
    }

    /// Reads what the command changed in the overlays. When nothing of it is a change
    /// Law 1 cares about, keeps what may be kept (new entries where they may go, appends
    /// to workspace files that never run, moves inside the home folder and workspace that
    /// replace nothing) and removes the layout; otherwise holds the whole layer, applied
    /// or discarded on the user's answer.
    async fn settle(layout: Layout, at: &Confinement<'_>) -> Result<Settled, ToolError> {
        let workspace = at.workspace.to_path_buf();
        let home = at.home.to_path_buf();
        let plan = at.plan.clone();
        tokio::task::spawn_blocking(move || {
            let layers: Vec<changes::Layer> = layout.layers.iter().map(|(l, _)| l.clone()).collect();
            let place = |p: &Path| {
                if may_keep(p, &workspace, &home, &plan) {
                    Place::Keep
                } else if is_quiet_cache(p, &home) {
                    Place::DropQuietly
                } else {
                    Place::Refuse
                }
            };
            let appendable = |p: &Path| {
                may_keep(p, &workspace, &home, &plan) && !crate::laws::classify::runs_later(p)
            };
            let movable = |p: &Path| {
                (p.starts_with(&workspace) || p.starts_with(&home))
                    && !crate::laws::classify::is_sensitive_path(p, &home)
            };
            let scanned = changes::scan(&layers, &place, &appendable).and_then(|mut c| {
                moves::pair(&mut c, &movable)?;
                Ok(c)
            });
            scanned.map(|c| {
                // New entries a program leaves in configuration and start-up places (its
                // own settings folder, a new start-up file) are not kept and not asked
                // about on their own: the command's other changes stand, and those are
                // named as not kept.
                let only_declined = c.refused.iter().all(|r| {
                    r.what == changes::Refused::CreateOutside
                        && crate::laws::classify::is_sensitive_path(&r.path, &home)
                });
                if !only_declined {
                    return Settled {
                        held: Some(super::Held::new(layout, c.kept, c.refused)),
                        not_kept: Vec::new(),
                        kept: Vec::new(),
                        journaled: Vec::new(),
                    };
                }
                let applied = changes::apply(&c.kept);
                let mut not_kept = applied.failed.clone();
                not_kept.extend(c.refused.iter().filter(|r| !r.upper.is_dir() || is_empty_dir(&r.upper)).map(|r| {
                    (r.path.clone(), DECLINED.to_string())
                }));
                drop(layout);
                let (kept, journaled) = super::kept_effects(applied);
                Settled {
                    held: None,
                    not_kept,
                    kept,
                    journaled,
                }
            })
        })
        .await
        .map_err(|e| ToolError::Failed(format!("the sandbox's check of the changes failed: {e}")))?
        .map_err(|e| ToolError::Failed(format!("the sandbox could not read what the command changed, so nothing of it was kept: {e}")))
    }

    /// Why a new entry in a configuration or start-up place was not kept.
    pub const DECLINED: &str = "artoo adds nothing to configuration and start-up places unasked; to add it, call shell again with the same command and \"unsandboxed\": true (the user is asked first)";

    /// A folder with nothing in it.
    fn is_empty_dir(dir: &Path) -> bool {
        std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
    }

    /// bubblewrap's or the setup script's own failure, before the command ran.
    fn setup_failure(f: &process::Finished) -> Option<String> {
        let first = f
            .stderr
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        if first.starts_with("bwrap:") {
            return Some(format!("bubblewrap could not start it ({first})"));
        }
        (f.status.code() == Some(SETUP_FAILED) && f.stderr.contains("artoo-sandbox:"))
            .then(|| format!("it could not be set up ({})", f.stderr.trim()))
    }
}

#[cfg(target_os = "macos")]
mod platform {
    pub use super::macos::{probe, run};

    pub fn unsupported() -> Option<String> {
        None
    }
}

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod platform {
    use tokio_util::sync::CancellationToken;

    use super::{Confinement, Outcome, Status};
    use crate::tools::ToolError;
    use crate::tools::process::BaseEnv;

    pub fn unsupported() -> Option<String> {
        Some(format!("artoo has no sandbox for {}", std::env::consts::OS))
    }

    pub async fn probe(_env: &BaseEnv, _programs: &std::ffi::OsStr) -> Status {
        Status::Off(unsupported().unwrap_or_default())
    }

    pub async fn run(
        _env: &BaseEnv,
        _programs: &std::ffi::OsStr,
        _command: &str,
        _at: Confinement<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Outcome, ToolError> {
        Err(ToolError::SandboxUnavailable(
            unsupported().unwrap_or_default(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn caches_are_quiet_and_sensitive_places_never_keep_new_entries() {
        let home = Path::new("/home/u");
        let ws = Path::new("/home/u/ws");
        let plan = Plan {
            creates: vec![PathBuf::from("/home/u/backup")],
            ..Plan::default()
        };
        assert!(is_quiet_cache(Path::new("/home/u/.cache/pip/x"), home));
        assert!(!is_quiet_cache(Path::new("/home/u/.ssh/config"), home));
        assert!(may_keep(Path::new("/home/u/ws/out.txt"), ws, home, &plan));
        assert!(may_keep(Path::new("/home/u/backup/a.txt"), ws, home, &plan));
        assert!(!may_keep(Path::new("/home/u/notes.txt"), ws, home, &plan));
        let deep = Plan {
            creates: vec![PathBuf::from("/home/u/a/b")],
            ..Plan::default()
        };
        assert!(
            may_keep(Path::new("/home/u/a"), ws, home, &deep),
            "a parent made on the way"
        );
        assert!(!may_keep(Path::new("/home/u/a/other"), ws, home, &deep));
        assert!(!may_keep(
            Path::new("/home/u/ws/.git/hooks/pre-commit"),
            ws,
            home,
            &plan
        ));
        assert!(!may_keep(Path::new("/home/u/.bashrc"), ws, home, &plan));
    }

    #[test]
    fn the_refusal_names_each_operation_and_how_to_ask() {
        let m = refusal_message(&[
            PathEffect {
                path: "/h/a.txt".into(),
                exists: true,
                effect: "delete".into(),
            },
            PathEffect {
                path: "/h/b.txt".into(),
                exists: true,
                effect: "overwrite".into(),
            },
        ]);
        assert!(
            m.starts_with("The sandbox refused: delete /h/a.txt, overwrite /h/b.txt;"),
            "{m}"
        );
        assert!(m.contains("\"unsandboxed\": true"), "{m}");
    }

    #[test]
    fn a_credential_store_stays_visible_only_when_the_request_names_it() {
        let home = Path::new("/home/u");
        assert_eq!(
            named_credentials("Add a host to my ssh config", home),
            vec![home.join(".ssh")]
        );
        assert_eq!(
            named_credentials("show the profiles in ~/.aws/config", home),
            vec![home.join(".aws")]
        );
        assert!(named_credentials("sum the sales column of data.csv", home).is_empty());
        assert!(named_credentials("list my sshd_config notes", home).is_empty());
    }
}
