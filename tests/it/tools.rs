//! The executor's tools through the toolbox, in temp dirs only: evidence records,
//! truncation, the find guards, refusals, process-tree kills, the Law 1 gate and the
//! Trash.

use artoo::tools::{ToolName, ToolRef};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use artoo::bus::{Bus, TapEvent};
use artoo::config::SandboxSetting;
use artoo::contracts::{
    Decision, DecisionSource, Message, Role, SubTaskId, TaskId, ToolCallStatus,
};
use artoo::laws::{ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
use artoo::tools::{Locate, Mdfind, Shell, ToolContext, ToolOutcome, Toolbox};
use artoo::{Config, SystemClock};
use serde_json::json;
use tempfile::TempDir;

/// A private home with a workspace inside it, a bus and a broker.
struct Rig {
    _dir: TempDir,
    home: PathBuf,
    ws: PathBuf,
    bus: Bus,
    config: Arc<Config>,
}

impl Rig {
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
        Self {
            _dir: dir,
            home,
            ws,
            bus: Bus::new(SystemClock::shared()),
            config: Arc::new(config),
        }
    }

    fn ctx(&self) -> ToolContext {
        let broker = ConfirmationBroker::from_config(
            self.bus.handle(Role::Executor),
            SystemClock::shared(),
            &self.config,
        );
        ToolContext::new(
            TaskId::mint(),
            SubTaskId::mint(),
            Arc::clone(&self.config),
            broker,
        )
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.home.join(rel);
        std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }
}

/// The toolbox with the index fallback forced onto the walk (no system database).
fn toolbox() -> Toolbox {
    Toolbox::with_tools(vec![
        Arc::new(Mdfind::with_locate(Locate::Database(PathBuf::from(
            "/nonexistent/plocate.db",
        )))),
        Arc::new(artoo::tools::Glob),
        Arc::new(artoo::tools::ReadFile),
        Arc::new(artoo::tools::WriteFile),
        Arc::new(artoo::tools::EditFile),
        Arc::new(artoo::tools::SetValue),
        Arc::new(artoo::tools::AppleScript),
        Arc::new(artoo::tools::Shortcuts),
        Arc::new(Shell::new()),
        Arc::new(artoo::tools::Search::new()),
    ])
}

/// The tools that read, filter and delete files by their lines or names.
fn line_tools() -> Toolbox {
    Toolbox::with_tools(vec![
        Arc::new(artoo::tools::ReadLines),
        Arc::new(artoo::tools::ConvertFile),
        Arc::new(artoo::tools::DeleteFiles),
    ])
}

fn output(o: &ToolOutcome) -> &str {
    match o {
        ToolOutcome::Ok { output } => output,
        other => panic!("expected ok, got {other:?}"),
    }
}

/// Whether a process is gone (or a zombie nobody has reaped yet).
fn is_dead(pid: i32) -> bool {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    if kill(Pid::from_raw(pid), None).is_err() {
        return true;
    }
    // Still in the process table: dead only if it is a zombie.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

async fn wait_dead(pid: i32) -> bool {
    for _ in 0..100 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn long_output_is_cut_to_head_and_tail_on_char_boundaries() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "echo START; for i in $(seq 1 3000); do printf '日本語'; done; echo; echo END"}),
        )
        .await;
    let full = output(&r.outcome);
    assert!(full.chars().count() > 9000);
    assert!(r.for_model.chars().count() <= rig.config.tools.output_limit_chars);
    assert!(r.for_model.starts_with("START\n日本語"));
    assert!(r.for_model.trim_end().ends_with("END"));
    assert!(r.for_model.contains("characters left out"));
    assert_eq!(
        r.record.output_head.chars().count(),
        artoo::contracts::EVIDENCE_HEAD_CHARS
    );
    assert!(full.starts_with(&r.record.output_head));
}

#[tokio::test]
async fn every_call_yields_one_evidence_record_published_and_kept_in_the_history() {
    let rig = Rig::new();
    let mut tap = rig.bus.tap("test", 64);
    let ctx = rig.ctx();
    let file = rig.write("artoo_workspace/notes.txt", "first line\nsecond line\n");
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "notes.txt"}),
        )
        .await;
    assert_eq!(r.record.tool, ToolName::ReadFile);
    assert_eq!(r.record.status, ToolCallStatus::Ok);
    assert_eq!(r.record.input, json!({"path": file.to_string_lossy()}));
    assert_eq!(r.record.target, file.to_string_lossy());
    assert_eq!(
        r.record.output_head,
        "first line\nsecond line\n[the whole file: 2 lines, 4 words, 23 characters]"
    );
    assert_eq!(r.record.error, None);
    assert_eq!(r.record.confirmation, None);
    assert_eq!(ctx.history.records(), vec![r.record.clone()]);

    let missing = toolbox()
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "~/missing.txt"}),
        )
        .await;
    assert_eq!(missing.record.status, ToolCallStatus::Error);
    assert!(
        missing
            .record
            .error
            .as_deref()
            .unwrap()
            .contains("no such file")
    );
    assert_eq!(ctx.history.len(), 2);

    let mut published = Vec::new();
    while let Some(TapEvent::Message(env)) = tap.try_recv() {
        if let Message::ToolCallEvent(ev) = &env.message {
            assert_eq!(env.from, Role::Executor);
            assert_eq!(
                (ev.task_id.clone(), ev.subtask_id),
                (ctx.task_id.clone(), ctx.subtask_id)
            );
            published.push(ev.record.clone());
        }
    }
    assert_eq!(published, ctx.history.records());
}

#[tokio::test]
async fn find_on_a_personal_path_is_answered_by_mdfind_and_ignores_maxdepth() {
    let rig = Rig::new();
    let deep = rig.write("Documents/2024/q3/report-final.pdf", "%PDF");
    rig.write("Documents/notes.txt", "x");
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "find ~ -maxdepth 1 -name 'report*' 2>/dev/null"}),
        )
        .await;
    assert_eq!(r.record.tool, ToolName::Mdfind);
    assert_eq!(r.record.input["query"], "report*");
    assert_eq!(
        r.record.input["onlyin"],
        rig.home.to_string_lossy().as_ref()
    );
    assert_eq!(
        r.record.input["redirected_from"],
        "find ~ -name 'report*' 2>/dev/null"
    );
    let out = output(&r.outcome);
    assert!(out.contains(&*deep.to_string_lossy()), "{out}");
    assert!(!out.contains("notes.txt"));
    assert!(r.for_model.contains("answered from the file index"));

    // With -path the command is left to find (the index cannot answer it).
    let kept = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "find ~/Documents -path '*/q3/*' -name '*.pdf'"}),
        )
        .await;
    assert_eq!(kept.record.tool, ToolName::Shell);
    assert!(output(&kept.outcome).contains("report-final.pdf"));
}

#[tokio::test]
async fn maxdepth_is_stripped_before_find_runs_in_the_workspace() {
    let rig = Rig::new();
    rig.write("artoo_workspace/a/b/deep.txt", "x");
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "find . -maxdepth 1 -name '*.txt'"}),
        )
        .await;
    assert_eq!(r.record.tool, ToolName::Shell);
    assert_eq!(r.record.input["command"], "find . -name '*.txt'");
    assert!(output(&r.outcome).contains("./a/b/deep.txt"));
    assert!(r.for_model.starts_with("(-maxdepth was removed"));
}

#[tokio::test]
async fn a_find_that_changes_files_keeps_its_maxdepth() {
    let rig = Rig::new();
    rig.write("artoo_workspace/top.tmp", "x");
    rig.write("artoo_workspace/keep/deep.tmp", "x");
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    let ctx = rig.ctx();
    for command in [
        "find . -maxdepth 1 -name '*.tmp' -delete",
        "find . -maxdepth 1 -name '*.tmp' | xargs rm -f",
    ] {
        let r = toolbox()
            .call(&ctx, &ToolName::Shell.into(), json!({ "command": command }))
            .await;
        assert_eq!(r.record.input["command"], command, "never widened");
        assert!(
            !r.for_model.contains("-maxdepth was removed"),
            "{}",
            r.for_model
        );
    }
    assert!(!rig.ws.join("top.tmp").exists());
    assert!(
        rig.ws.join("keep/deep.tmp").exists(),
        "the depth the command named still bounds what it deletes"
    );
    drop(responder);
}

#[tokio::test]
async fn an_identical_call_in_the_same_subtask_is_refused_with_a_message() {
    let rig = Rig::new();
    rig.write("artoo_workspace/a.txt", "alpha");
    let ctx = rig.ctx();
    let tools = toolbox();
    let first = tools
        .call(&ctx, &ToolName::ReadFile.into(), json!({"path": "a.txt"}))
        .await;
    assert_eq!(first.record.status, ToolCallStatus::Ok);
    // Written differently, executed identically.
    let again = tools
        .call(&ctx, &ToolName::ReadFile.into(), json!({"path": "./a.txt"}))
        .await;
    assert_eq!(again.record.status, ToolCallStatus::Refused);
    let ToolOutcome::Refused { reason } = &again.outcome else {
        panic!("{:?}", again.outcome)
    };
    assert!(
        reason.contains("call #1") && reason.contains("alpha"),
        "{reason}"
    );

    // Another sub-task has its own history.
    let other = rig.ctx();
    let fresh = tools
        .call(&other, &ToolName::ReadFile.into(), json!({"path": "a.txt"}))
        .await;
    assert_eq!(fresh.record.status, ToolCallStatus::Ok);
}

#[tokio::test]
async fn blocked_tools_and_targets_are_refused_in_code() {
    let rig = Rig::new();
    rig.write("secret/plan.txt", "x");
    rig.write("artoo_workspace/ok.txt", "fine");
    let mut ctx = rig.ctx();
    ctx.blocked_tools = vec![ToolName::Shell.into()];
    ctx.blocked_targets = vec!["~/secret".into()];
    let tools = toolbox();

    let shell = tools
        .call(&ctx, &ToolName::Shell.into(), json!({"command": "ls"}))
        .await;
    assert_eq!(shell.record.status, ToolCallStatus::Refused);
    assert!(shell.for_model.contains("forbids the tool `shell`"));

    let read = tools
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "~/secret/plan.txt"}),
        )
        .await;
    assert_eq!(read.record.status, ToolCallStatus::Refused);
    assert!(read.for_model.contains("forbids the target `~/secret`"));

    let glob = tools
        .call(
            &ctx,
            &ToolName::Glob.into(),
            json!({"pattern": "*.txt", "root": "~/secret"}),
        )
        .await;
    assert_eq!(glob.record.status, ToolCallStatus::Refused);

    let fine = tools
        .call(&ctx, &ToolName::ReadFile.into(), json!({"path": "ok.txt"}))
        .await;
    assert_eq!(
        output(&fine.outcome),
        "fine\n[the whole file: 1 line, 1 word, 4 characters]"
    );
}

#[tokio::test]
async fn a_shell_timeout_kills_the_whole_process_tree() {
    // Outside the sandbox (off in settings), where the process group is all there is.
    let rig = Rig::with(|c| c.tools.sandbox = SandboxSetting::Off);
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "sleep 300 & echo $! > grandchild.pid; echo started; wait", "timeout_secs": 2}),
        )
        .await;
    let ToolOutcome::Error {
        message,
        output,
        failure,
    } = &r.outcome
    else {
        panic!("{:?}", r.outcome)
    };
    assert!(message.contains("timed out after 2 s"), "{message}");
    assert_eq!(*failure, artoo::contracts::ToolFailure::Timeout);
    assert_eq!(
        r.record.failure,
        Some(artoo::contracts::ToolFailure::Timeout)
    );
    assert!(
        output.contains("started"),
        "partial output is kept: {output:?}"
    );
    let pid: i32 = std::fs::read_to_string(rig.ws.join("grandchild.pid"))
        .expect("the command wrote its child's pid")
        .trim()
        .parse()
        .expect("a pid");
    assert!(
        wait_dead(pid).await,
        "the grandchild {pid} survived the timeout"
    );
}

#[tokio::test]
async fn cancelling_the_task_kills_the_running_command_and_its_children() {
    // Outside the sandbox (off in settings), where the process group is all there is.
    let rig = Rig::with(|c| c.tools.sandbox = SandboxSetting::Off);
    let ctx = rig.ctx();
    let pid_file = rig.ws.join("child.pid");
    let call = {
        let ctx = ctx.clone();
        tokio::spawn(async move {
            toolbox()
                .call(
                    &ctx,
                    &ToolName::Shell.into(),
                    json!({"command": "sleep 300 & echo $! > child.pid; wait"}),
                )
                .await
        })
    };
    let mut pid = None;
    for _ in 0..500 {
        if let Some(p) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            pid = Some(p);
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let pid = pid.expect("the command started its child");
    assert!(!is_dead(pid));
    ctx.cancel.cancel();
    let r = call.await.expect("the call returns after cancel");
    assert_eq!(r.record.status, ToolCallStatus::Error);
    assert!(r.for_model.contains("cancelled"), "{}", r.for_model);
    assert!(wait_dead(pid).await, "the child {pid} survived the cancel");

    let after = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "echo late"}),
        )
        .await;
    assert_eq!(after.record.status, ToolCallStatus::Refused);
}

#[tokio::test]
async fn a_shell_time_limit_of_zero_is_the_settings_own_and_a_word_is_an_error() {
    let rig = Rig::new();
    let tools = Toolbox::with_tools(vec![Arc::new(Shell::new())]);
    let r = tools
        .call(
            &rig.ctx(),
            &ToolName::Shell.into(),
            json!({"command": "echo ran", "timeout_secs": 0}),
        )
        .await;
    assert_eq!(output(&r.outcome).trim(), "ran");
    let r = tools
        .call(
            &rig.ctx(),
            &ToolName::Shell.into(),
            json!({"command": "echo ran", "timeout_secs": "soon"}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Error, "{r:?}");
    assert!(
        r.record
            .error
            .as_deref()
            .is_some_and(|e| e.contains("`timeout_secs` must be a whole number of seconds")),
        "{r:?}"
    );
}

#[tokio::test]
async fn the_shell_runs_in_the_workspace_without_the_apps_keys() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    let env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), rig.home.clone().into()),
        ("OPENAI_API_KEY".into(), "sk-test-openai".into()),
        ("BRAIN_API_KEY".into(), "sk-test-brain".into()),
        ("TOOL_API_KEY".into(), "sk-test-tool".into()),
        ("GITHUB_TOKEN".into(), "ghp-test".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    let tools = Toolbox::with_tools(vec![Arc::new(Shell::with_env(env))]);
    let r = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "pwd; env"}),
        )
        .await;
    let out = output(&r.outcome);
    assert!(out.starts_with(&*rig.ws.to_string_lossy()), "{out}");
    assert!(out.contains("LANG=C.UTF-8"));
    for secret in [
        "sk-test-openai",
        "sk-test-brain",
        "sk-test-tool",
        "ghp-test",
    ] {
        assert!(!out.contains(secret), "{secret} leaked: {out}");
    }
}

#[tokio::test]
async fn a_missing_file_folder_or_program_is_recorded_as_not_found_with_the_path_for_ggs() {
    use artoo::contracts::ToolFailure;
    use artoo::ggs::evidence::missing_resource;
    let rig = Rig::new();
    let ctx = rig.ctx();
    let tools = toolbox();
    let gone = rig.ws.join("gone").join("notes.txt");
    let gone = gone.display().to_string();

    for (tool, input) in [
        (ToolName::Shell, json!({"command": format!("cat {gone}")})),
        (ToolName::Shell, json!({"command": format!("ls {gone}")})),
        (ToolName::ReadFile, json!({"path": gone})),
    ] {
        let r = tools.call(&ctx, &tool.into(), input.clone()).await;
        assert_eq!(r.record.status, ToolCallStatus::Error, "{input}: {r:?}");
        assert_eq!(r.record.failure, Some(ToolFailure::NotFound), "{input}");
        assert_eq!(
            missing_resource(&r.record).as_deref(),
            Some(gone.as_str()),
            "{input}"
        );
    }

    let no_program = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "artoo-no-such-program --help"}),
        )
        .await;
    assert_eq!(
        no_program.record.failure,
        Some(ToolFailure::NotFound),
        "{no_program:?}"
    );
    // It names no path, so it blocks no target.
    assert_eq!(missing_resource(&no_program.record), None);

    // A command that fails for another reason is not a missing resource.
    let other = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "echo broken >&2; exit 3"}),
        )
        .await;
    assert_eq!(other.record.failure, Some(ToolFailure::Failed), "{other:?}");
    assert_eq!(missing_resource(&other.record), None);
}

#[tokio::test]
async fn a_command_that_only_complains_and_exits_non_zero_is_a_failed_call() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    std::fs::write(rig.ws.join("found.txt"), "alpha\n").expect("write");
    let tools = toolbox();

    let missing = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "cat missing.txt"}),
        )
        .await;
    assert_eq!(missing.record.status, ToolCallStatus::Error, "{missing:?}");
    let error = missing
        .record
        .error
        .as_deref()
        .expect("the error is recorded");
    assert!(error.contains("exit status 1"), "{error}");
    assert!(error.contains("No such file"), "{error}");
    assert!(
        missing.for_model.contains("No such file"),
        "{}",
        missing.for_model
    );

    // grep without a match is an empty answer, not a failure.
    let nothing = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "grep omega found.txt"}),
        )
        .await;
    assert_eq!(nothing.record.status, ToolCallStatus::Ok, "{nothing:?}");
    assert!(output(&nothing.outcome).contains("[exit status 1]"));

    // Output on stdout is a result even when the command also fails.
    let partial = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "cat found.txt missing.txt"}),
        )
        .await;
    assert_eq!(partial.record.status, ToolCallStatus::Ok, "{partial:?}");
    let out = output(&partial.outcome);
    assert!(
        out.starts_with("alpha") && out.contains("[exit status 1]"),
        "{out}"
    );
    // ... but it failed, so it backs no claim.
    assert_eq!(partial.record.failed_exit, Some(1));
    assert!(!partial.record.grounds());
    assert_eq!(
        nothing.record.failed_exit, None,
        "grep's quiet 1 is an answer"
    );
    assert!(nothing.record.grounds());
}

#[tokio::test]
async fn a_call_that_failed_is_not_repeated_in_another_sub_task_until_something_was_written() {
    let rig = Rig::new();
    let first = rig.ctx();
    // Another sub-task of the same task (a replan's): it shares the task's memory of calls.
    let mut second = rig.ctx();
    second.task_id = first.task_id.clone();
    second.task_calls = first.task_calls.clone();
    let tools = toolbox();
    let read = || json!({"path": "~/notes/missing.txt"});
    let failed = tools.call(&first, &ToolName::ReadFile.into(), read()).await;
    assert_eq!(failed.record.status, ToolCallStatus::Error);
    let again = tools
        .call(&second, &ToolName::ReadFile.into(), read())
        .await;
    let ToolOutcome::Refused { reason } = &again.outcome else {
        panic!("the same failing call again: {:?}", again.outcome)
    };
    assert!(
        reason.contains("already failed earlier in this task") && reason.contains("no such file"),
        "the refusal quotes the earlier error: {reason}"
    );
    // Once the task wrote something, the world may have changed: the call runs again.
    let wrote = tools
        .call(
            &second,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/missing.txt", "content": "now here"}),
        )
        .await;
    assert_eq!(
        wrote.record.status,
        ToolCallStatus::Ok,
        "{}",
        wrote.for_model
    );
    let third = tools
        .call(&second, &ToolName::ReadFile.into(), read())
        .await;
    assert_eq!(
        third.record.status,
        ToolCallStatus::Ok,
        "{}",
        third.for_model
    );
}

#[tokio::test]
async fn a_call_refused_for_its_parameters_is_refused_as_a_repeat_when_asked_again() {
    let rig = Rig::new();
    rig.write(
        "notes/plan.md",
        "# Plan\nTODO: fix the fence\nwater daily\n",
    );
    let first = rig.ctx();
    let mut second = rig.ctx();
    second.task_id = first.task_id.clone();
    second.task_calls = first.task_calls.clone();
    let tools = line_tools();
    // Lines of a file are not files: the call fails before anything runs.
    let delete = || json!({"from": "~/notes/plan.md", "names": "TODO"});
    let failed = tools
        .call(&first, &ToolName::DeleteFiles.into(), delete())
        .await;
    assert_eq!(failed.record.status, ToolCallStatus::Error, "{failed:?}");
    let again = tools
        .call(&second, &ToolName::DeleteFiles.into(), delete())
        .await;
    let ToolOutcome::Refused { reason } = &again.outcome else {
        panic!("the same refused parameters again: {:?}", again.outcome)
    };
    assert!(
        reason.contains("already failed earlier in this task") && reason.contains("is a file"),
        "the refusal quotes the earlier error: {reason}"
    );
    assert!(artoo::tools::guards::repeats_a_failure(reason), "{reason}");
    assert_eq!(
        std::fs::read_to_string(rig.home.join("notes/plan.md")).expect("kept"),
        "# Plan\nTODO: fix the fence\nwater daily\n"
    );
}

#[tokio::test]
async fn bounds_that_leave_out_every_named_file_say_which_files_and_why() {
    let rig = Rig::new();
    rig.write("inbox/old.tmp", "scratch\n");
    rig.write("inbox/keep.txt", "keep\n");
    let tools = line_tools();
    let failed = tools
        .call(
            &rig.ctx(),
            &ToolName::DeleteFiles.into(),
            json!({"from": "~/inbox", "names": "old.tmp", "older_than": "30 days"}),
        )
        .await;
    assert_eq!(failed.record.status, ToolCallStatus::Error, "{failed:?}");
    let why = failed.record.error.clone().unwrap_or_default();
    assert!(
        why.contains("1 file(s) match the names given — old.tmp (8 B, changed under an hour ago)")
            && why.contains("`older_than`"),
        "{why}"
    );
    // Without a bound, a name that picks nothing says no more than that.
    let missing = tools
        .call(
            &rig.ctx(),
            &ToolName::DeleteFiles.into(),
            json!({"from": "~/inbox", "names": "gone.tmp"}),
        )
        .await;
    let why = missing.record.error.clone().unwrap_or_default();
    assert!(
        why.contains("gone.tmp") && !why.contains("match the names given"),
        "{why}"
    );
    assert!(rig.home.join("inbox/old.tmp").exists());
}

#[tokio::test]
async fn a_read_asked_again_after_a_call_changed_its_file_runs_and_shows_the_file_now() {
    let rig = Rig::new();
    let _responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    rig.write(
        "notes/plan.md",
        "# Plan\nTODO: fix the fence\nwater daily\n",
    );
    let ctx = rig.ctx();
    let tools = line_tools();
    let count = || json!({"path": "~/notes/plan.md", "op": "count", "text": "TODO"});
    let before = tools.call(&ctx, &ToolName::ReadLines.into(), count()).await;
    assert!(
        before.for_model.contains("1 of the 3 lines"),
        "{}",
        before.for_model
    );
    // Unchanged, the same read is the same call: refused as a duplicate.
    let twice = tools.call(&ctx, &ToolName::ReadLines.into(), count()).await;
    assert_eq!(twice.record.status, ToolCallStatus::Refused, "{twice:?}");
    let changed = tools
        .call(
            &ctx,
            &ToolName::ConvertFile.into(),
            json!({"from": "~/notes/plan.md", "to": "~/notes/plan.md",
                   "how": "drop_lines_containing", "text": "TODO"}),
        )
        .await;
    assert_eq!(
        changed.record.status,
        ToolCallStatus::Ok,
        "{}",
        changed.for_model
    );
    assert!(
        changed.record.changed(&before.record.target),
        "the change is on record for the file read: {:?} / {}",
        changed.record.effects,
        before.record.target
    );
    let after = tools.call(&ctx, &ToolName::ReadLines.into(), count()).await;
    assert_eq!(
        after.record.status,
        ToolCallStatus::Ok,
        "{}",
        after.for_model
    );
    assert!(
        after.for_model.contains("0 of the 2 lines"),
        "{}",
        after.for_model
    );
}

#[tokio::test]
async fn copy_files_copies_each_item_asks_nothing_and_accounts_for_every_copy() {
    let rig = Rig::new();
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    rig.write("Documents/lease.pdf", "%PDF lease");
    rig.write("Documents/insurance.pdf", "%PDF insurance");
    rig.write("to-print/insurance.pdf", "the user's own copy");
    let ctx = rig.ctx();
    let r = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::CopyFiles.into(),
            json!({"from": "~/Documents", "names": "lease.pdf, warranty.pdf, insurance.pdf", "to": "~/to-print"}),
        )
        .await;
    let text = output(&r.outcome);
    assert!(
        text.starts_with("copied 1 of 3 into ~/to-print: lease.pdf"),
        "{text}"
    );
    assert!(text.contains("missing: warranty.pdf"), "{text}");
    assert!(
        text.contains("~/to-print/insurance.pdf already exists"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(rig.home.join("to-print/lease.pdf")).unwrap(),
        "%PDF lease"
    );
    assert_eq!(
        std::fs::read_to_string(rig.home.join("to-print/insurance.pdf")).unwrap(),
        "the user's own copy",
        "nothing is overwritten"
    );
    assert_eq!(
        r.record
            .effects
            .iter()
            .map(|e| (e.effect.as_str(), e.path.clone()))
            .collect::<Vec<_>>(),
        [("create", rig.home.join("to-print/lease.pdf"))]
    );
    assert!(
        responder.requests().is_empty(),
        "copying into a folder asks nobody"
    );
    // A new destination named like a file is no folder to copy into: refused, nothing made.
    let listy = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::CopyFiles.into(),
            json!({"from": "~/Documents", "names": "*.pdf", "to": "~/Documents/pdf-list.txt"}),
        )
        .await;
    assert!(
        listy.for_model.contains("named like a file") && listy.for_model.contains("write_file"),
        "{}",
        listy.for_model
    );
    assert!(!rig.home.join("Documents/pdf-list.txt").exists());
    // One file to a new name is a copy under that name.
    let renamed = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::CopyFiles.into(),
            json!({"from": "~/Documents/lease.pdf", "to": "~/Documents/lease-copy.pdf"}),
        )
        .await;
    assert!(
        renamed.for_model.starts_with("copied 1 of 1"),
        "{}",
        renamed.for_model
    );
    assert_eq!(
        std::fs::read_to_string(rig.home.join("Documents/lease-copy.pdf")).unwrap(),
        "%PDF lease"
    );
    // Outside the home folder and the workspace it does not copy at all.
    let outside = Toolbox::standard()
        .call(
            &ctx,
            &ToolName::CopyFiles.into(),
            json!({"from": "~/Documents", "to": "/etc/artoo-copies"}),
        )
        .await;
    assert_eq!(
        outside.record.status,
        ToolCallStatus::Error,
        "{}",
        outside.for_model
    );
    assert!(!Path::new("/etc/artoo-copies").exists());
}

#[tokio::test]
async fn write_file_reports_what_it_did_as_the_calls_effects() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    let tools = toolbox();
    let write = |content: &str, append: bool| json!({"path": "log.md", "content": content, "append": append});
    let made = tools
        .call(&ctx, &ToolName::WriteFile.into(), write("a\n", false))
        .await;
    let added = tools
        .call(&ctx, &ToolName::WriteFile.into(), write("b\n", true))
        .await;
    let effect = |r: &artoo::tools::ToolResult| {
        r.record
            .effects
            .iter()
            .map(|e| (e.effect.clone(), e.path.clone(), e.exists))
            .collect::<Vec<_>>()
    };
    let file = rig.ws.join("log.md");
    assert_eq!(effect(&made), [("create".to_string(), file.clone(), false)]);
    assert_eq!(effect(&added), [("append".to_string(), file.clone(), true)]);
    // A read has none.
    let read = tools
        .call(&ctx, &ToolName::ReadFile.into(), json!({"path": "log.md"}))
        .await;
    assert!(read.record.effects.is_empty());
}

#[tokio::test]
async fn a_selection_by_name_that_finds_nothing_says_which_files_hold_the_word() {
    let rig = Rig::new();
    rig.write("letters/a.txt", "Re: INVOICE 12");
    rig.write("letters/b.txt", "lunch on Friday");
    rig.write("letters/c.txt", "the invoice is paid");
    let ctx = rig.ctx();
    let tools = Toolbox::standard();
    let said = "no file name holds \"invoice\", but the text of 2 files does (a.txt, c.txt)";
    let call = |tool: ToolName, input: serde_json::Value| {
        let (tools, ctx) = (&tools, &ctx);
        async move { tools.call(ctx, &tool.into(), input).await }
    };
    let copied = call(
        ToolName::CopyFiles,
        json!({"from": "~/letters", "names": "invoice*", "to": "~/invoices"}),
    )
    .await;
    assert!(copied.for_model.contains(said), "{}", copied.for_model);
    assert!(
        copied.for_model.contains("give containing: \"invoice\""),
        "{}",
        copied.for_model
    );
    let moved = call(
        ToolName::MoveFiles,
        json!({"from": "~/letters", "names": "*invoice*", "to": "~/invoices"}),
    )
    .await;
    assert!(moved.for_model.contains(said), "{}", moved.for_model);
    let listed = call(
        ToolName::ListFiles,
        json!({"folder": "~/letters", "pattern": "*invoice*"}),
    )
    .await;
    assert!(listed.for_model.contains(said), "{}", listed.for_model);
    let read = call(
        ToolName::ReadTable,
        json!({"path": "~/letters", "op": "count", "column": "invoice"}),
    )
    .await;
    assert!(read.for_model.contains(said), "{}", read.for_model);
    assert!(
        read.for_model
            .contains("list_files with containing: \"invoice\" selects them"),
        "{}",
        read.for_model
    );
    // A file named by its own name that is not there is the missing path, said first
    // (the folder it was looked for in is there).
    let named = call(
        ToolName::MoveFiles,
        json!({"from": "~/letters", "names": "notes", "to": "~/urgent"}),
    )
    .await;
    let missing = rig.home.join("letters/notes").display().to_string();
    assert!(
        named
            .record
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with(&format!("no such file: {missing} ("))),
        "{:?}",
        named.record.error
    );
    // Nothing moved or copied, and a word no file holds adds nothing.
    assert!(!rig.home.join("invoices").exists());
    let none = call(
        ToolName::CopyFiles,
        json!({"from": "~/letters", "names": "garden*", "to": "~/garden"}),
    )
    .await;
    assert!(
        !none.for_model.contains("no file name holds"),
        "{}",
        none.for_model
    );
}

#[tokio::test]
async fn list_files_and_read_table_answer_from_the_files_with_typed_parameters() {
    let rig = Rig::new();
    rig.write("Downloads/small.pdf", "x");
    rig.write("Downloads/big file é.pdf", &"y".repeat(5000));
    rig.write("Downloads/photo.jpg", &"z".repeat(300));
    rig.write(
        "data/items.csv",
        "id,name,weight\n1,\"Laptop, 14 inch\",1.4\n2,Anvil,54.5\n3,Sofa,40\n",
    );
    let ctx = rig.ctx();
    let tools = Toolbox::standard();
    let listed = tools
        .call(
            &ctx,
            &ToolName::ListFiles.into(),
            json!({"folder": "~/Downloads", "sort": "largest", "limit": 1, "group_by": "extension"}),
        )
        .await;
    let text = output(&listed.outcome);
    assert!(text.starts_with("~/Downloads (not recursive)"), "{text}");
    assert!(
        text.contains("big file é.pdf\t"),
        "the name exactly, first: {text}"
    );
    assert!(!text.contains("small.pdf\t"), "the limit holds: {text}");
    assert!(
        text.contains("pdf = 2") && text.contains("jpg = 1"),
        "{text}"
    );
    assert_eq!(
        listed.record.target,
        rig.home.join("Downloads").display().to_string()
    );

    let heaviest = tools
        .call(
            &ctx,
            &ToolName::ReadTable.into(),
            json!({"path": "~/data/items.csv", "op": "max_row", "column": "weight"}),
        )
        .await;
    let text = output(&heaviest.outcome);
    assert!(text.contains("name = \"Anvil\""), "{text}");

    // A column that is not there: the error names the real ones, for the next attempt.
    let wrong = tools
        .call(
            &ctx,
            &ToolName::ReadTable.into(),
            json!({"path": "~/data/items.csv", "op": "sum", "column": "price"}),
        )
        .await;
    assert_eq!(wrong.record.status, ToolCallStatus::Error);
    assert!(
        wrong.for_model.contains("id, name, weight"),
        "{}",
        wrong.for_model
    );
}

#[tokio::test]
async fn write_file_puts_bare_names_in_the_workspace_without_asking() {
    let rig = Rig::new();
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "summary.md", "content": "# Summary\n"}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Ok, "{}", r.for_model);
    assert_eq!(
        std::fs::read_to_string(rig.ws.join("summary.md")).unwrap(),
        "# Summary\n"
    );
    assert!(
        responder.requests().is_empty(),
        "creating a file never asks"
    );
    assert_eq!(r.record.confirmation, None);
}

#[tokio::test]
async fn overwriting_with_write_file_asks_and_a_denial_leaves_the_file_untouched() {
    let rig = Rig::new();
    let file = rig.write("artoo_workspace/report.md", "original");
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "report.md", "content": "replacement"}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert_eq!(r.record.confirmation, Some(Decision::Deny));
    assert!(
        r.for_model.starts_with("[LAW1] The user denied it"),
        "{}",
        r.for_model
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "original");

    let requests = responder.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.task_id, ctx.task_id);
    assert_eq!(req.subtask_id, Some(ctx.subtask_id));
    assert_eq!(req.tool, ToolName::WriteFile);
    assert!(!req.reversible && req.can_trash);
    assert!(req.description.contains("Overwrite"), "{}", req.description);
    assert_eq!(req.paths.len(), 1);
    assert_eq!(
        (req.paths[0].path.clone(), req.paths[0].exists),
        (file.clone(), true)
    );
}

#[tokio::test]
async fn a_file_the_sub_task_read_is_not_retyped_as_a_new_one() {
    let rig = Rig::new();
    rig.write("lists/party.txt", "Zoe\nAdam\nMia\n");
    let ctx = rig.ctx();
    let read = toolbox()
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "~/lists/party.txt"}),
        )
        .await;
    assert_eq!(read.record.status, ToolCallStatus::Ok, "{}", read.for_model);
    let write = |content: &'static str| {
        let ctx = &ctx;
        async move {
            toolbox()
                .call(
                    ctx,
                    &ToolName::WriteFile.into(),
                    json!({"path": "~/lists/party-sorted.txt", "content": content}),
                )
                .await
        }
    };
    // The list as it is, asked to be sorted: a re-typed copy, refused.
    let copy = write("Zoe\nAdam\nMia").await;
    assert_eq!(copy.record.status, ToolCallStatus::Error);
    assert!(
        copy.for_model.contains("convert_file"),
        "{}",
        copy.for_model
    );
    assert!(!rig.home.join("lists/party-sorted.txt").exists());
    // Text of its own (here, the lines in another order) is written.
    let sorted = write("Adam\nMia\nZoe\n").await;
    assert_eq!(
        sorted.record.status,
        ToolCallStatus::Ok,
        "{}",
        sorted.for_model
    );
}

#[tokio::test]
async fn a_file_is_not_written_with_the_line_numbers_read_lines_shows() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    let shown = json!({"path": "~/logs/unique.txt",
                       "content": "line 1: cy\nline 2: ana\nline 4: bo\n"});
    let refused = toolbox()
        .call(&ctx, &ToolName::WriteFile.into(), shown)
        .await;
    assert_eq!(refused.record.status, ToolCallStatus::Error);
    assert!(
        refused.for_model.contains("convert_file"),
        "{}",
        refused.for_model
    );
    assert!(!rig.home.join("logs/unique.txt").exists());
    // A text of its own that mentions lines is written.
    let own = json!({"path": "~/logs/unique.txt", "content": "line 1: cy\nana\n"});
    let written = toolbox().call(&ctx, &ToolName::WriteFile.into(), own).await;
    assert_eq!(
        written.record.status,
        ToolCallStatus::Ok,
        "{}",
        written.for_model
    );
}

#[tokio::test]
async fn a_file_asked_to_change_in_place_is_not_retyped_whole_by_write_file() {
    let rig = Rig::new();
    let text = r#"{"name": "shop", "version": "1.4.2", "private": true}"#;
    let file = rig.write("app/package.json", text);
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    let mut ctx = rig.ctx();
    ctx.request = Some("Update the version in ~/app/package.json to 2.0.0".into());
    let retyped = json!({"path": "~/app/package.json", "content": r#"{"version": "2.0.0"}"#});
    let refused = toolbox()
        .call(&ctx, &ToolName::WriteFile.into(), retyped.clone())
        .await;
    assert_eq!(refused.record.status, ToolCallStatus::Error);
    assert!(
        refused.for_model.contains("keeps 0 of its 1 lines")
            && refused.for_model.contains("edit_file"),
        "{}",
        refused.for_model
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    assert!(responder.requests().is_empty(), "refused before Law 1 asks");

    // Most lines kept whole: a change of a part, asked and written.
    let list = rig.write("notes/list.txt", "milk\n\neggs\nbread\n");
    let mut ctx = rig.ctx();
    ctx.request = Some("Remove the empty lines from ~/notes/list.txt".into());
    let kept = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/list.txt", "content": "milk\neggs\nbread"}),
        )
        .await;
    assert_eq!(kept.record.status, ToolCallStatus::Ok, "{}", kept.for_model);
    // The file ended its last line, and still does.
    assert_eq!(
        std::fs::read_to_string(&list).unwrap(),
        "milk\neggs\nbread\n"
    );

    // The whole file re-typed with a line put first: only the new line is to be
    // written, before the file's own text; refused, the file as it was.
    let shopping = rig.write("notes/shopping.txt", "eggs\nbread\n");
    let mut ctx = rig.ctx();
    ctx.request = Some("Put the line '# Shopping' at the top of ~/notes/shopping.txt".into());
    let wrapped = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/shopping.txt", "content": "# Shopping\n\neggs\nbread\n"}),
        )
        .await;
    assert_eq!(wrapped.record.status, ToolCallStatus::Error);
    assert!(
        wrapped.for_model.contains("prepend: true"),
        "{}",
        wrapped.for_model
    );
    assert_eq!(std::fs::read_to_string(&shopping).unwrap(), "eggs\nbread\n");
    // The same whole text added at either end would hold the file twice: refused too.
    for end in ["append", "prepend"] {
        let mut twice =
            json!({"path": "~/notes/shopping.txt", "content": "# Shopping\n\neggs\nbread\n"});
        twice[end] = json!(true);
        let refused = toolbox()
            .call(&ctx, &ToolName::WriteFile.into(), twice)
            .await;
        assert_eq!(refused.record.status, ToolCallStatus::Error, "{end}");
        assert!(refused.for_model.contains("twice"), "{}", refused.for_model);
    }
    assert_eq!(std::fs::read_to_string(&shopping).unwrap(), "eggs\nbread\n");
    let prepended = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/shopping.txt", "content": "# Shopping", "prepend": true}),
        )
        .await;
    assert_eq!(
        prepended.record.status,
        ToolCallStatus::Ok,
        "{}",
        prepended.for_model
    );
    assert_eq!(
        std::fs::read_to_string(&shopping).unwrap(),
        "# Shopping\neggs\nbread\n"
    );

    // A request for new text writes it whole.
    let mut ctx = rig.ctx();
    ctx.request = Some("Write a fresh package.json for the shop".into());
    let written = toolbox()
        .call(&ctx, &ToolName::WriteFile.into(), retyped)
        .await;
    assert_eq!(
        written.record.status,
        ToolCallStatus::Ok,
        "{}",
        written.for_model
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        r#"{"version": "2.0.0"}"#
    );

    // The text the file already ends with, appended again: refused, nothing written.
    let again = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/app/package.json", "content": r#"{"version": "2.0.0"}"#, "append": true}),
        )
        .await;
    assert_eq!(again.record.status, ToolCallStatus::Error);
    assert!(
        again.for_model.contains("already ends with this text"),
        "{}",
        again.for_model
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        r#"{"version": "2.0.0"}"#
    );
}

#[tokio::test]
async fn set_value_asks_with_the_old_and_new_value_and_changes_only_those_bytes() {
    let rig = Rig::new();
    let text = "{\n  \"name\": \"shop\",\n  \"version\": \"1.4.2\",\n  \"private\": true\n}\n";
    let file = rig.write("app/package.json", text);
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    let ctx = rig.ctx();
    let done = toolbox()
        .call(
            &ctx,
            &ToolName::SetValue.into(),
            json!({"path": "~/app/package.json", "key": "version", "value": "2.0.0"}),
        )
        .await;
    assert_eq!(done.record.status, ToolCallStatus::Ok, "{}", done.for_model);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        text.replace("1.4.2", "2.0.0")
    );
    let asked = responder.requests();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .description
            .contains(r#"version from "1.4.2" to "2.0.0" in ~/app/package.json, line 3"#),
        "{}",
        asked[0].description
    );
    // The key named wrong: nothing asked, nothing changed, the keys there are named.
    let missing = toolbox()
        .call(
            &ctx,
            &ToolName::SetValue.into(),
            json!({"path": "~/app/package.json", "key": "release", "value": "3"}),
        )
        .await;
    assert_eq!(missing.record.status, ToolCallStatus::Error);
    assert!(
        missing.for_model.contains("name, version, private"),
        "{}",
        missing.for_model
    );
    assert_eq!(responder.requests().len(), 1);
}

#[tokio::test]
async fn edit_file_asks_with_the_places_it_changes_and_writes_the_file_s_own_text() {
    let rig = Rig::new();
    let text = "# Charts\nUse one colour per series.\nThe colour of links is blue.\n";
    let file = rig.write("docs/style.md", text);
    let responder = ConfirmationResponder::spawn(
        &rig.bus,
        ConfirmationPolicy::script([Decision::Deny, Decision::Approve]),
        DecisionSource::User,
    );
    let ctx = rig.ctx();
    let edit = json!({"path": "~/docs/style.md", "find": "colour", "replace": "color"});
    let denied = toolbox()
        .call(&ctx, &ToolName::EditFile.into(), edit.clone())
        .await;
    assert_eq!(denied.record.status, ToolCallStatus::Denied);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    let asked = responder.requests();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0]
            .description
            .contains("\"colour\" with \"color\" in ~/docs/style.md: 2 places, on lines 2 and 3"),
        "{}",
        asked[0].description
    );
    assert_eq!(asked[0].paths[0].path, file);

    // Asked again in another task, approved: exactly the replaced text, the places said.
    let mut again = rig.ctx();
    again.task_id = TaskId::mint();
    let done = toolbox()
        .call(&again, &ToolName::EditFile.into(), edit)
        .await;
    assert_eq!(done.record.status, ToolCallStatus::Ok, "{}", done.for_model);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Charts\nUse one color per series.\nThe color of links is blue.\n"
    );
    assert!(
        done.record
            .output_head
            .starts_with("replaced \"colour\" with \"color\""),
        "{}",
        done.record.output_head
    );
    assert!(
        done.record
            .effects
            .iter()
            .any(|e| e.path == file && e.effect == "overwrite"),
        "{:?}",
        done.record.effects
    );

    // A text that occurs nowhere is an answer: nothing asked, nothing written.
    let before = responder.requests().len();
    let absent = toolbox()
        .call(
            &again,
            &ToolName::EditFile.into(),
            json!({"path": "~/docs/style.md", "find": "Color", "replace": "Colour"}),
        )
        .await;
    assert_eq!(absent.record.status, ToolCallStatus::Error);
    assert!(
        absent.for_model.contains("occurs nowhere")
            && absent.for_model.contains("another case on lines 2 and 3"),
        "{}",
        absent.for_model
    );
    assert_eq!(responder.requests().len(), before);
}

#[tokio::test]
async fn write_file_puts_a_line_first_by_code_and_asks_with_the_whole_new_text() {
    let rig = Rig::new();
    let file = rig.write("notes/list.txt", "eggs\nbread\n");
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/list.txt", "content": "# Shopping", "prepend": true}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Ok, "{}", r.for_model);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Shopping\neggs\nbread\n"
    );
    assert_eq!(
        r.record.input["content"],
        json!("# Shopping\neggs\nbread\n")
    );
    assert!(
        r.for_model.contains("put before the file's own text"),
        "{}",
        r.for_model
    );
    assert_eq!(responder.requests().len(), 1);
    let both = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "~/notes/list.txt", "content": "x", "prepend": true, "append": true}),
        )
        .await;
    assert_eq!(both.record.status, ToolCallStatus::Error);
    // The workspace itself is no file to write.
    let ws = toolbox()
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": rig.ws.display().to_string(), "content": "mkdir -p x"}),
        )
        .await;
    assert_eq!(ws.record.status, ToolCallStatus::Error);
    assert!(
        ws.for_model.contains("is the workspace folder"),
        "{}",
        ws.for_model
    );
}

#[tokio::test]
async fn editing_a_file_the_task_made_asks_nobody() {
    let rig = Rig::new();
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let ctx = rig.ctx();
    let tools = toolbox();
    let made = tools
        .call(
            &ctx,
            &ToolName::WriteFile.into(),
            json!({"path": "list.txt", "content": "eggs\nbread\n"}),
        )
        .await;
    assert_eq!(made.record.status, ToolCallStatus::Ok, "{}", made.for_model);
    let edited = tools
        .call(
            &ctx,
            &ToolName::EditFile.into(),
            json!({"path": rig.ws.join("list.txt"), "find": "eggs\n", "replace": ""}),
        )
        .await;
    assert_eq!(
        edited.record.status,
        ToolCallStatus::Ok,
        "{}",
        edited.for_model
    );
    assert_eq!(
        std::fs::read_to_string(rig.ws.join("list.txt")).unwrap(),
        "bread\n"
    );
    assert!(responder.requests().is_empty());
}

#[tokio::test]
async fn rewriting_a_file_the_task_created_does_not_ask_until_something_else_changes_it() {
    let rig = Rig::new();
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let first = rig.ctx();
    // Another sub-task of the same task: the broker is the runtime's, shared.
    let second = ToolContext::new(
        first.task_id.clone(),
        SubTaskId::mint(),
        Arc::clone(&rig.config),
        first.broker.clone(),
    );
    let tools = toolbox();
    let write = |path: &str, content: &str| json!({"path": path, "content": content});
    let file = rig.ws.join("report.md");

    let made = tools
        .call(
            &first,
            &ToolName::WriteFile.into(),
            write("report.md", "draft"),
        )
        .await;
    assert_eq!(made.record.status, ToolCallStatus::Ok, "{}", made.for_model);
    let rewritten = tools
        .call(
            &second,
            &ToolName::WriteFile.into(),
            write("report.md", "final"),
        )
        .await;
    assert_eq!(
        rewritten.record.status,
        ToolCallStatus::Ok,
        "{}",
        rewritten.for_model
    );
    assert_eq!(rewritten.record.confirmation, None);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "final");
    assert!(
        responder.requests().is_empty(),
        "{:?}",
        responder.requests()
    );

    // Another task did not make it: replacing it there asks (denied here).
    let other_task = ToolContext::new(
        TaskId::mint(),
        SubTaskId::mint(),
        Arc::clone(&rig.config),
        first.broker.clone(),
    );
    let elsewhere = tools
        .call(
            &other_task,
            &ToolName::WriteFile.into(),
            write("report.md", "other"),
        )
        .await;
    assert_eq!(elsewhere.record.status, ToolCallStatus::Denied);
    assert_eq!(responder.requests().len(), 1);

    // Changed by someone else since: it is the user's again, and asks.
    std::fs::write(&file, "the user's edit").unwrap();
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .and_then(|f| f.set_modified(later))
        .unwrap();
    let after_edit = tools
        .call(
            &second,
            &ToolName::WriteFile.into(),
            write("report.md", "again"),
        )
        .await;
    assert_eq!(after_edit.record.status, ToolCallStatus::Denied);
    assert_eq!(responder.requests().len(), 2);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "the user's edit");

    // A file that was there before the task is never the task's.
    let theirs = rig.write("artoo_workspace/theirs.md", "original");
    let replaced = tools
        .call(
            &first,
            &ToolName::WriteFile.into(),
            write("theirs.md", "mine"),
        )
        .await;
    assert_eq!(replaced.record.status, ToolCallStatus::Denied);
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "original");
}

#[tokio::test]
async fn an_approval_performs_exactly_the_approved_action_and_nothing_wider() {
    let rig = Rig::new();
    let a = rig.write("artoo_workspace/a.txt", "a");
    let b = rig.write("artoo_workspace/b.txt", "b");
    let responder = ConfirmationResponder::spawn(
        &rig.bus,
        ConfirmationPolicy::script([Decision::Approve, Decision::Deny]),
        DecisionSource::User,
    );
    let ctx = rig.ctx();
    let tools = toolbox();
    let first = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "rm a.txt"}),
        )
        .await;
    assert_eq!(
        first.record.status,
        ToolCallStatus::Ok,
        "{}",
        first.for_model
    );
    assert_eq!(first.record.confirmation, Some(Decision::Approve));
    assert!(!a.exists());
    assert!(b.exists(), "only the approved path is deleted");

    // A wider compound command is a new action: it asks again (and is denied here).
    let wider = tools
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "rm b.txt && echo gone"}),
        )
        .await;
    assert_eq!(wider.record.status, ToolCallStatus::Denied);
    assert!(b.exists());
    let requests = responder.requests();
    assert_eq!(
        requests
            .iter()
            .map(|r| r.command.as_str())
            .collect::<Vec<_>>(),
        ["rm a.txt", "rm b.txt && echo gone"]
    );
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_confirmation_is_denied_after_the_configured_timeout() {
    // Asked before it runs (no sandbox to observe it in): the clock is paused, and a
    // sandboxed program's own timeout would fire at once.
    let rig = Rig::with(|c| {
        c.laws.confirm_timeout_secs = 90;
        c.tools.sandbox = SandboxSetting::Off;
    });
    let file = rig.write("artoo_workspace/keep.txt", "keep");
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Silent, DecisionSource::User);
    let ctx = rig.ctx();
    let started = tokio::time::Instant::now();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "rm keep.txt"}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Denied);
    assert_eq!(r.record.confirmation, Some(Decision::Deny));
    assert!(
        r.for_model.contains("Nobody answered within 90 s"),
        "{}",
        r.for_model
    );
    assert!(started.elapsed() >= Duration::from_secs(90));
    assert!(file.exists());
    assert_eq!(responder.requests().len(), 1);
}

#[test]
fn moving_to_the_trash_instead_of_deleting_is_reversible() {
    if !crate::private_trash::in_private_trash(
        "tools::moving_to_the_trash_instead_of_deleting_is_reversible",
    ) {
        return;
    }
    let home = PathBuf::from(std::env::var_os("HOME").expect("the parent set HOME"));
    let data = PathBuf::from(std::env::var_os("XDG_DATA_HOME").expect("set"));
    assert!(data.starts_with(std::env::temp_dir()) || data.starts_with(&home));
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(trash_round_trip(&home));
}

async fn trash_round_trip(home: &Path) {
    let ws = home.join("artoo_workspace");
    let folder = ws.join("drafts");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("one.md"), "one").unwrap();
    let mut config = Config::with_dirs(home.join(".artoo"), &ws);
    config.home = home.to_path_buf();
    let bus = Bus::new(SystemClock::shared());
    let responder =
        ConfirmationResponder::spawn(&bus, ConfirmationPolicy::TrashOrDeny, DecisionSource::User);
    let broker =
        ConfirmationBroker::from_config(bus.handle(Role::Executor), SystemClock::shared(), &config);
    let ctx = ToolContext::new(TaskId::mint(), SubTaskId::mint(), Arc::new(config), broker);
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({"command": "rm -rf drafts"}),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Ok, "{}", r.for_model);
    assert_eq!(r.record.confirmation, Some(Decision::Trash));
    assert!(
        r.for_model.contains("Moved to the Trash"),
        "{}",
        r.for_model
    );
    assert!(!folder.exists());
    assert!(responder.requests()[0].can_trash);

    let restored = artoo::tools::trash::restore(&folder)
        .await
        .expect("put back");
    assert_eq!(restored, folder);
    assert_eq!(
        std::fs::read_to_string(folder.join("one.md")).unwrap(),
        "one"
    );
}

#[tokio::test]
async fn read_file_is_capped_on_a_char_boundary_and_names_binary_files() {
    let rig = Rig::with(|c| c.tools.read_limit_bytes = 100);
    rig.write("artoo_workspace/long.txt", &"é".repeat(80));
    std::fs::write(rig.ws.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let ctx = rig.ctx();
    let tools = toolbox();
    let r = tools
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "long.txt"}),
        )
        .await;
    let out = output(&r.outcome);
    assert!(out.starts_with(&"é".repeat(50)), "{out}");
    assert!(
        out.contains("[showing the first 100 of 160 bytes]"),
        "{out}"
    );

    let bin = tools
        .call(
            &ctx,
            &ToolName::ReadFile.into(),
            json!({"path": "image.png"}),
        )
        .await;
    let out = output(&bin.outcome);
    assert!(out.contains("binary file (PNG image, 16 bytes)"), "{out}");
    assert!(!out.contains("IHDR"));
}

#[tokio::test]
async fn glob_honours_directory_parts_and_expands_home() {
    let rig = Rig::new();
    rig.write("artoo_workspace/src/a/b.rs", "");
    rig.write("artoo_workspace/src/c.rs", "");
    rig.write("artoo_workspace/top.rs", "");
    rig.write("Documents/plan.pdf", "");
    let ctx = rig.ctx();
    let tools = toolbox();
    let nested = tools
        .call(
            &ctx,
            &ToolName::Glob.into(),
            json!({"pattern": "src/**/*.rs"}),
        )
        .await;
    let out = output(&nested.outcome);
    assert!(
        out.contains("src/a/b.rs") && out.contains("src/c.rs"),
        "{out}"
    );
    assert!(!out.contains("top.rs"), "{out}");

    let names = tools
        .call(&ctx, &ToolName::Glob.into(), json!({"pattern": "*.rs"}))
        .await;
    let listed: Vec<&str> = output(&names.outcome).lines().collect();
    assert_eq!(listed.len(), 4, "{listed:?}");
    assert_eq!(listed[3], "(3 files matched *.rs)", "the count is given");

    let home = tools
        .call(
            &ctx,
            &ToolName::Glob.into(),
            json!({"pattern": "~/Documents/*.pdf"}),
        )
        .await;
    assert_eq!(
        output(&home.outcome),
        format!(
            "{}\n(1 file matched ~/Documents/*.pdf)",
            rig.home.join("Documents/plan.pdf").display()
        )
    );

    let none = tools
        .call(&ctx, &ToolName::Glob.into(), json!({"pattern": "*.xyz"}))
        .await;
    assert!(output(&none.outcome).starts_with("(no files matched pattern *.xyz under"));
}

#[tokio::test]
async fn mdfind_uses_the_locate_index_when_one_is_built() {
    let rig = Rig::new();
    let report = rig.write("Documents/Q3-Report.pdf", "%PDF");
    rig.write("Documents/other.txt", "x");
    let db = rig.home.parent().unwrap().join("locate.db");
    let built = std::process::Command::new("updatedb")
        .args(["-l", "0", "--prunepaths", "", "-U"])
        .arg(&rig.home)
        .arg("-o")
        .arg(&db)
        .status()
        .expect("updatedb (plocate) is installed by scripts/setup");
    assert!(built.success());
    let tools = Toolbox::with_tools(vec![Arc::new(Mdfind::with_locate(Locate::Database(db)))]);
    let ctx = rig.ctx();
    let r = tools
        .call(&ctx, &ToolName::Mdfind.into(), json!({"query": "report"}))
        .await;
    let out = output(&r.outcome);
    assert!(out.starts_with(&*report.to_string_lossy()), "{out}");
    assert!(out.contains("searched the locate index"), "{out}");
}

#[tokio::test]
async fn mdfind_falls_back_to_a_bounded_walk_without_an_index() {
    let rig = Rig::with(|c| c.tools.walk_limit_entries = 10_000);
    let pdf = rig.write("Documents/deep/er/Invoice.PDF", "%PDF");
    rig.write(".hidden/invoice.pdf", "%PDF");
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Mdfind.into(),
            json!({"query": "*.pdf", "type": "f"}),
        )
        .await;
    let out = output(&r.outcome);
    assert_eq!(out.lines().next(), Some(&*pdf.to_string_lossy()));
    assert!(!out.contains(".hidden"), "{out}");
    assert!(out.contains("searched a walk of"), "{out}");

    let tight = Rig::with(|c| c.tools.walk_limit_entries = 2);
    tight.write("a/b/c/d.pdf", "");
    let r = toolbox()
        .call(
            &tight.ctx(),
            &ToolName::Mdfind.into(),
            json!({"query": "d.pdf"}),
        )
        .await;
    assert!(output(&r.outcome).contains("results may be incomplete"));
}

#[tokio::test]
async fn a_name_search_says_when_no_file_has_exactly_the_name_asked() {
    let rig = Rig::new();
    rig.write("Documents/budget.xlsx.bak", "PK");
    rig.write("Documents/budget.xls", "PK");
    let docs = rig.home.join("Documents").to_string_lossy().into_owned();
    let search = |query: &'static str| {
        // A sub-task each: the same search again in one sub-task is a repeat.
        let (ctx, docs) = (rig.ctx(), docs.clone());
        async move {
            let r = toolbox()
                .call(
                    &ctx,
                    &ToolName::Mdfind.into(),
                    json!({"query": query, "onlyin": docs}),
                )
                .await;
            output(&r.outcome).to_string()
        }
    };
    let out = search("budget.xlsx").await;
    assert!(out.contains("budget.xlsx.bak"), "{out}");
    assert!(
        out.contains("none of them is named exactly \"budget.xlsx\""),
        "{out}"
    );
    // Found by its exact name (in any case), or asked by a pattern: nothing to add.
    rig.write("Documents/Budget.XLSX", "PK");
    assert!(!search("budget.xlsx").await.contains("named exactly"));
    assert!(!search("budget*").await.contains("named exactly"));
}

#[tokio::test]
async fn a_name_search_that_finds_nothing_for_words_says_how_to_search_the_text() {
    let rig = Rig::new();
    let notes = rig.home.join("notes");
    rig.write("notes/monday.txt", "remember to fix bug 42");
    let ctx = rig.ctx();
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Mdfind.into(),
            json!({"query": "fix bug", "onlyin": notes.to_string_lossy()}),
        )
        .await;
    let out = output(&r.outcome);
    let hint = format!("grep -ril 'fix bug' '{}'", notes.display());
    assert!(
        out.contains("no files found") && out.contains(&hint),
        "{out}"
    );
    // The hint runs as written and finds the file.
    let r = toolbox()
        .call(&ctx, &ToolName::Shell.into(), json!({ "command": hint }))
        .await;
    assert!(output(&r.outcome).contains("monday.txt"), "{}", r.for_model);
    // A name pattern that matches nothing is only that.
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Mdfind.into(),
            json!({"query": "*.pdf", "onlyin": notes.to_string_lossy()}),
        )
        .await;
    assert!(!output(&r.outcome).contains("grep"), "{}", r.for_model);
}

/// A one-page fake search engine on loopback; `answer: false` accepts and stays silent.
async fn fake_search(answer: bool) -> (String, tokio::task::JoinHandle<Vec<String>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/html/", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let mut bodies = Vec::new();
        let (mut sock, _) = listener.accept().await.unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = sock.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).to_string();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let len = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                    })
                    .unwrap_or(0);
                if body.len() >= len {
                    bodies.push(body.to_string());
                    break;
                }
            }
        }
        if !answer {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return bodies;
        }
        let page = r#"<html><body>
          <div class="result results_links web-result">
            <a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2Fparis&amp;rut=1">Paris weather</a>
            <a class="result__snippet">Sunny, 24 °C.</a>
          </div></body></html>"#;
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        sock.write_all(reply.as_bytes()).await.unwrap();
        bodies
    });
    (url, server)
}

#[tokio::test]
async fn search_posts_the_query_to_the_configured_endpoint_and_lists_results() {
    let (url, server) = fake_search(true).await;
    let rig = Rig::with(|c| c.tools.search_url = url.clone());
    let r = toolbox()
        .call(
            &rig.ctx(),
            &ToolName::Search.into(),
            json!({"query": "weather in Paris"}),
        )
        .await;
    assert_eq!(
        output(&r.outcome),
        "Paris weather\nSunny, 24 °C.\nhttps://example.org/paris"
    );
    let bodies = server.await.unwrap();
    assert!(bodies[0].contains("q=weather+in+Paris"), "{bodies:?}");
}

#[tokio::test(start_paused = true)]
async fn a_search_that_times_out_says_unavailable_do_not_guess() {
    let (url, _server) = fake_search(false).await;
    let rig = Rig::with(|c| {
        c.tools.search_url = url.clone();
        c.tools.search_timeout_secs = 5;
    });
    let r = toolbox()
        .call(
            &rig.ctx(),
            &ToolName::Search.into(),
            json!({"query": "anything"}),
        )
        .await;
    let ToolOutcome::Error {
        message, failure, ..
    } = &r.outcome
    else {
        panic!("{:?}", r.outcome)
    };
    assert!(message.starts_with("search unavailable"), "{message}");
    assert_eq!(*failure, artoo::contracts::ToolFailure::Network);
    assert!(message.contains("do not guess"), "{message}");
}

#[cfg(not(target_os = "macos"))]
#[tokio::test]
async fn applescript_and_shortcuts_fail_explicitly_off_macos() {
    let rig = Rig::new();
    let ctx = rig.ctx();
    let tools = toolbox();
    for (tool, input) in [
        (
            ToolName::Applescript,
            json!({"script": "tell application \"Finder\" to activate"}),
        ),
        (ToolName::Shortcuts, json!({"name": "Get Weather"})),
    ] {
        let r = tools.call(&ctx, &tool.into(), input).await;
        assert_eq!(r.record.status, ToolCallStatus::Error);
        assert!(
            r.for_model.contains("unavailable on this platform"),
            "{}",
            r.for_model
        );
    }
}

#[tokio::test]
async fn an_unknown_tool_is_refused_naming_the_available_ones() {
    let rig = Rig::new();
    let r = toolbox()
        .call(&rig.ctx(), &ToolRef::parse("browser"), json!({"url": "x"}))
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Refused);
    assert!(r.for_model.contains("no tool `browser`") && r.for_model.contains("mdfind"));
}

#[tokio::test]
async fn a_command_bash_cannot_read_is_refused_before_anyone_is_asked() {
    let rig = Rig::new();
    let log = rig.write("logs/a.log", "x");
    let archive = rig.home.join("logs/archive");
    let responder =
        ConfirmationResponder::spawn(&rig.bus, ConfirmationPolicy::Approve, DecisionSource::User);
    let ctx = rig.ctx();
    let logs = rig.home.join("logs");
    // What a small model makes of `-exec mv {} DIR/ \;` once its JSON escaping slips:
    // a trailing backslash, or a quote left open.
    for command in [
        format!(
            "mkdir -p {a} && find {l} -name '*.log' -exec mv {{}} {a}/ \\",
            a = archive.display(),
            l = logs.display()
        ),
        format!(
            "find {l} -name '*.log' -exec mv {{}} {a}/ \";",
            a = archive.display(),
            l = logs.display()
        ),
    ] {
        let r = toolbox()
            .call(&ctx, &ToolName::Shell.into(), json!({ "command": command }))
            .await;
        // An invalid input, like any other: the model reads why, and nothing ran.
        assert_eq!(r.record.status, ToolCallStatus::Error, "{command}");
        assert!(
            r.for_model.contains("bash cannot read this command")
                && r.for_model.contains("nothing ran"),
            "{}",
            r.for_model
        );
    }
    assert!(responder.requests().is_empty(), "nobody was asked");
    assert!(log.exists() && !archive.exists(), "nothing ran");

    // A command bash reads is not refused for the classifier's sake: this one (a
    // here-document inside a subshell that reuses its delimiter) is one our parser does
    // not read, and it runs.
    let r = toolbox()
        .call(
            &ctx,
            &ToolName::Shell.into(),
            json!({ "command": "(cat <<EOF\nEOF\n) && echo fine" }),
        )
        .await;
    assert_eq!(r.record.status, ToolCallStatus::Ok, "{}", r.for_model);
    assert!(output(&r.outcome).contains("fine"), "{}", r.for_model);
}
