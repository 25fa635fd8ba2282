//! Grants by effect, through the executor's own path (`Toolbox::standard().call`), in
//! temp dirs only: a class of changes the user approved often enough is offered for
//! good, a later change of that class runs without asking and says which grant allowed
//! it, and nothing beyond the class or behind a floor rides on it. Deletions run
//! observed in the sandbox (Linux); `write_file`'s overwrite is asked about before it
//! runs, on every platform.

use std::path::PathBuf;
use std::sync::Arc;

use artoo::bus::Bus;
use artoo::contracts::{
    ApprovalScope, ConfirmationRequest, Decision, DecisionSource, FileEffect, Role, SubTaskId,
    TaskId,
};
use artoo::laws::grants::GrantStore;
use artoo::laws::{ConfirmationBroker, ConfirmationPolicy, ConfirmationResponder};
use artoo::tools::{ToolContext, ToolName, ToolOutcome, ToolResult, Toolbox};
use artoo::{Config, SystemClock};
use serde_json::json;

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    bus: Bus,
    config: Arc<Config>,
    broker: ConfirmationBroker,
}

impl World {
    fn new(offer_after: u32) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("real path");
        let home = root.join("home");
        let ws = home.join("artoo_workspace");
        std::fs::create_dir_all(&ws).expect("workspace");
        let mut config = Config::with_dirs(root.join("data"), &ws);
        config.home = home.clone();
        config.laws.offer_always_after = offer_after;
        let bus = Bus::new(SystemClock::shared());
        let broker = ConfirmationBroker::from_config(
            bus.handle(Role::Executor),
            SystemClock::shared(),
            &config,
        );
        Self {
            _dir: dir,
            home,
            bus,
            config: Arc::new(config),
            broker,
        }
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.home.join(rel);
        std::fs::create_dir_all(p.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        p
    }

    /// A fresh task's context, its sub-task asking for `request`.
    fn task(&self, request: &str) -> ToolContext {
        let mut ctx = ToolContext::new(
            TaskId::mint(),
            SubTaskId::mint(),
            Arc::clone(&self.config),
            self.broker.clone(),
        );
        ctx.request = Some(request.to_string());
        ctx
    }

    fn grants(&self) -> GrantStore {
        GrantStore::in_dir(&self.config.data_dir)
    }
}

async fn call(ctx: &ToolContext, tool: ToolName, input: serde_json::Value) -> ToolResult {
    Toolbox::standard().call(ctx, &tool.into(), input).await
}

fn ok(r: &ToolResult) -> &str {
    match &r.outcome {
        ToolOutcome::Ok { output } => output,
        other => panic!("expected ok, got {other:?}"),
    }
}

fn offered_always(r: &ConfirmationRequest) -> bool {
    r.scopes.contains(&ApprovalScope::Always)
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn deletions_of_one_class_are_offered_for_good_then_run_unasked_and_name_their_grant() {
    use artoo::contracts::Message;
    let w = World::new(1);
    let user = ConfirmationResponder::spawn(
        &w.bus,
        ConfirmationPolicy::scoped_script([
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Always),
        ]),
        DecisionSource::User,
    );
    let mut events = w.bus.subscribe(Role::Observer);
    for f in [
        "a.tmp",
        "b.tmp",
        "c.tmp",
        "sub/d.tmp",
        "e.txt",
        "f.tmp",
        "g.tmp",
    ] {
        w.write(&format!("Downloads/{f}"), "scratch\n");
    }
    let delete = |names: &str| json!({"from": "~/Downloads", "names": names});
    let asking = "delete the tmp files in my Downloads folder";

    // The first approval of the class: asked, with the class named but no "always".
    let r = call(&w.task(asking), ToolName::DeleteFiles, delete("a.tmp")).await;
    ok(&r);
    let asked = user.requests();
    assert_eq!(asked.len(), 1);
    let class = asked[0].effect_grant.clone().expect("the class is named");
    assert_eq!(class.effect, FileEffect::Delete);
    assert_eq!(class.words, "deleting .tmp files under ~/Downloads");
    assert!(!offered_always(&asked[0]));
    assert!(!w.home.join("Downloads/a.tmp").exists());

    // Approved once already: now "always" is offered, and taken.
    let r = call(&w.task(asking), ToolName::DeleteFiles, delete("b.tmp")).await;
    ok(&r);
    assert!(offered_always(&user.requests()[1]));
    assert_eq!(w.grants().effect_grants().unwrap().len(), 1);

    // A later task of the class: nobody is asked, and the call names the grant.
    let r = call(&w.task(asking), ToolName::DeleteFiles, delete("*.tmp")).await;
    let output = ok(&r);
    assert_eq!(user.requests().len(), 2, "nothing was asked");
    assert!(
        output.contains("standing grant \"deleting .tmp files under ~/Downloads\""),
        "{output}"
    );
    for gone in ["c.tmp", "f.tmp", "g.tmp"] {
        assert!(!w.home.join("Downloads").join(gone).exists(), "{gone}");
    }
    assert!(w.home.join("Downloads/e.txt").exists());
    let mut named = None;
    while let Some(env) = events.try_recv() {
        if let Message::ToolCallEvent(e) = &env.message
            && e.record.grant.is_some()
        {
            named = e.record.grant.clone();
        }
    }
    assert_eq!(
        named.as_deref(),
        Some("deleting .tmp files under ~/Downloads")
    );
    assert_eq!(w.grants().effect_grants().unwrap()[0].uses, 1);

    // Another extension is another class: asked (and denied: the script ran out).
    let r = call(&w.task(asking), ToolName::DeleteFiles, delete("e.txt")).await;
    assert!(
        matches!(r.outcome, ToolOutcome::Denied { .. }),
        "{:?}",
        r.outcome
    );
    assert_eq!(user.requests().len(), 3);
    assert!(w.home.join("Downloads/e.txt").exists());

    // A task that read text from outside this computer: no grant answers for it.
    w.write("Downloads/h.tmp", "scratch\n");
    let tainted = w.task(asking);
    tainted.task_calls.note_untrusted();
    let r = call(&tainted, ToolName::DeleteFiles, delete("h.tmp")).await;
    assert!(
        matches!(r.outcome, ToolOutcome::Denied { .. }),
        "{:?}",
        r.outcome
    );
    let last = user.requests().pop().unwrap();
    assert_eq!(last.effect_grant, None);
    assert!(w.home.join("Downloads/h.tmp").exists());

    // Revoked: the next deletion of the class asks at once.
    assert!(w.grants().revoke_effect(&class).unwrap());
    let r = call(&w.task(asking), ToolName::DeleteFiles, delete("h.tmp")).await;
    assert!(
        matches!(r.outcome, ToolOutcome::Denied { .. }),
        "{:?}",
        r.outcome
    );
    assert_eq!(user.requests().len(), 5);
    assert!(w.home.join("Downloads/h.tmp").exists());
}

#[tokio::test]
async fn an_overwrite_grant_covers_its_folder_and_never_a_credential_inside_it() {
    let w = World::new(1);
    let user = ConfirmationResponder::spawn(
        &w.bus,
        ConfirmationPolicy::scoped_script([(Decision::Approve, ApprovalScope::Once)]),
        DecisionSource::User,
    );
    w.write("notes/today.md", "old\n");
    w.write("notes/later.md", "old\n");
    w.write("notes/.env", "TOKEN=1\n");
    let asking = "overwrite my notes with the new text";
    let write = |path: &str| json!({"path": path, "content": "new\n"});
    // Asked, approved once: the class is counted.
    let r = call(
        &w.task(asking),
        ToolName::WriteFile,
        write("~/notes/today.md"),
    )
    .await;
    ok(&r);
    let first = user.requests();
    assert_eq!(first.len(), 1);
    let class = first[0].effect_grant.clone().expect("named");
    assert_eq!(class.effect, FileEffect::Overwrite);
    assert_eq!(class.words, "overwriting .md files under ~/notes");
    assert!(!offered_always(&first[0]), "no approval of the class yet");
    // The grant given in Settings (as the dialog's "always" would): the next overwrite
    // of the class runs unasked.
    w.grants().add_effect(class, chrono::Utc::now()).unwrap();
    let r = call(
        &w.task(asking),
        ToolName::WriteFile,
        write("~/notes/later.md"),
    )
    .await;
    let output = ok(&r).to_string();
    assert_eq!(user.requests().len(), 1, "nothing was asked");
    assert!(r.for_model.contains("standing grant"), "{}", r.for_model);
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/later.md")).unwrap(),
        "new\n",
        "{output}"
    );
    // A credential inside the folder: asked, whatever the grants (denied here).
    let r = call(&w.task(asking), ToolName::WriteFile, write("~/notes/.env")).await;
    assert!(
        matches!(r.outcome, ToolOutcome::Denied { .. }),
        "{:?}",
        r.outcome
    );
    let asked = user.requests();
    assert_eq!(asked.len(), 2);
    assert_eq!(asked[1].effect_grant, None);
    assert_eq!(
        std::fs::read_to_string(w.home.join("notes/.env")).unwrap(),
        "TOKEN=1\n"
    );
}
