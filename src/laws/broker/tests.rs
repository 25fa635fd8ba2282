//! Unit tests of the Law 1 broker: timeouts, cancellation, replies, denials and what
//! it keeps per task.

use std::path::Path;

use super::*;
use crate::clock::{Clock, FakeClock};
use crate::contracts::ToolName;
use crate::laws::classify::testing::MemFs;
use crate::laws::classify::{Action, Scope, classify};

fn setup(timeout_secs: u64) -> (Bus, ConfirmationBroker) {
    let clock = FakeClock::at_epoch();
    let bus = Bus::new(clock.clone());
    let limits = Limits::new(Duration::from_secs(timeout_secs), Duration::from_secs(120));
    let broker = ConfirmationBroker::new(bus.handle(Role::Executor), clock, &limits);
    (bus, broker)
}

fn rm_request(broker: &ConfirmationBroker, task: &TaskId) -> ConfirmationRequest {
    let fs = MemFs::with(&["/h/ws/a.txt"]);
    let scope = Scope {
        cwd: Path::new("/h/ws"),
        home: Path::new("/h"),
        fs: &fs,
    };
    let a = classify(&Action::Shell("rm a.txt"), &scope);
    broker.request_for(GatedAction {
        task_id: task,
        subtask_id: None,
        tool: &ToolName::Shell.into(),
        command: "rm a.txt",
        assessment: &a,
    })
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_request_is_denied_at_the_timeout() {
    let (bus, broker) = setup(120);
    let _user = bus.subscribe(Role::User);
    let task = TaskId::mint();
    let req = rm_request(&broker, &task);
    assert!(req.can_trash && !req.reversible);
    assert_eq!(
        req.expires_at
            .signed_duration_since(FakeClock::at_epoch().now()),
        chrono::Duration::seconds(120)
    );
    let c = broker.confirm(req, &CancellationToken::new()).await;
    assert_eq!(
        (c.decision, c.source),
        (Decision::Deny, DecisionSource::Timeout)
    );
}

#[tokio::test(start_paused = true)]
async fn a_closed_bus_or_a_cancelled_task_denies() {
    let (bus, broker) = setup(120);
    let task = TaskId::mint();
    let cancel = CancellationToken::new();
    let waiting = {
        let broker = broker.clone();
        let req = rm_request(&broker, &task);
        let cancel = cancel.clone();
        tokio::spawn(async move { broker.confirm(req, &cancel).await })
    };
    tokio::task::yield_now().await;
    cancel.cancel();
    let c = waiting.await.unwrap();
    assert_eq!(c.source, DecisionSource::Dropped);
    assert_eq!(c.decision, Decision::Deny);

    let req = rm_request(&broker, &task);
    let waiting = {
        let broker = broker.clone();
        tokio::spawn(async move { broker.confirm(req, &CancellationToken::new()).await })
    };
    tokio::task::yield_now().await;
    bus.close();
    let c = waiting.await.unwrap();
    assert_eq!(
        (c.decision, c.source),
        (Decision::Deny, DecisionSource::Dropped)
    );
}

#[tokio::test]
async fn the_responder_answers_each_request_with_its_own_reply() {
    let (bus, broker) = setup(120);
    let responder = ConfirmationResponder::spawn(
        &bus,
        ConfirmationPolicy::script([Decision::Approve, Decision::Trash]),
        DecisionSource::User,
    );
    let task = TaskId::mint();
    let (a, b) = (rm_request(&broker, &task), rm_request(&broker, &task));
    let (ida, idb) = (a.request_id, b.request_id);
    let never = CancellationToken::new();
    let first = broker.confirm(a, &never).await;
    let second = broker.confirm(b, &never).await;
    assert_eq!((first.request_id, first.decision), (ida, Decision::Approve));
    assert_eq!((second.request_id, second.decision), (idb, Decision::Trash));
    assert_eq!(responder.requests().len(), 2);
}

#[tokio::test]
async fn a_users_denial_is_remembered_for_its_task_only() {
    let (bus, broker) = setup(120);
    let _responder =
        ConfirmationResponder::spawn(&bus, ConfirmationPolicy::Deny, DecisionSource::User);
    let (task, other) = (TaskId::mint(), TaskId::mint());
    let sig = vec!["delete: /h/ws/a.txt".to_string()];
    assert_eq!(broker.denied(&task, &sig), None);
    let req = rm_request(&broker, &task);
    let c = broker
        .confirm_effects(req, &sig, &CancellationToken::new())
        .await;
    assert_eq!(c.decision, Decision::Deny);
    assert_eq!(broker.clone().denied(&task, &sig), Some(sig[0].clone()));
    assert_eq!(broker.denied(&other, &sig), None);
}

/// A task's denials, `task` approvals and files made live as long as the task:
/// after `forget` the same effect is asked about again and the file is the user's.
#[tokio::test]
async fn forgetting_a_task_lets_go_of_all_it_kept() {
    let (bus, broker) = setup(120);
    let responder = ConfirmationResponder::spawn(
        &bus,
        ConfirmationPolicy::scoped_script([
            (Decision::Deny, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Task),
            (Decision::Approve, ApprovalScope::Once),
        ]),
        DecisionSource::User,
    );
    let dir = tempfile::tempdir().expect("a temp dir");
    let made = dir.path().join("made.txt");
    std::fs::write(&made, "x").expect("written");
    let (task, other) = (TaskId::mint(), TaskId::mint());
    let live = CancellationToken::new();
    let sig = vec!["delete: /h/ws/a.txt".to_string()];
    broker
        .confirm_effects(rm_request(&broker, &task), &sig, &live)
        .await;
    broker.confirm(rm_request(&broker, &task), &live).await;
    broker.note_made(&task, &made, &live);
    assert_eq!(broker.denied(&task, &sig), Some(sig[0].clone()));
    assert!(broker.task_owns(&task, &made));
    let covered = broker.confirm(rm_request(&broker, &task), &live).await;
    assert_eq!(covered.granted, Some(ApprovalScope::Task));
    assert_eq!(
        responder.requests().len(),
        2,
        "the task approval answered the third"
    );

    broker.forget(&other);
    assert_eq!(
        broker.denied(&task, &sig),
        Some(sig[0].clone()),
        "another task's end"
    );

    broker.forget(&task);
    assert_eq!(broker.denied(&task, &sig), None);
    assert!(!broker.task_owns(&task, &made));
    let asked = broker.confirm(rm_request(&broker, &task), &live).await;
    assert_eq!((asked.decision, asked.granted), (Decision::Approve, None));
    assert_eq!(responder.requests().len(), 3, "asked again after forget");
}

/// A worker that outlives its task's close must not bring the task's record back.
#[test]
fn nothing_is_kept_for_a_task_whose_token_is_cancelled() {
    let (_bus, broker) = setup(120);
    let dir = tempfile::tempdir().expect("a temp dir");
    let made = dir.path().join("made.txt");
    std::fs::write(&made, "x").expect("written");
    let task = TaskId::mint();
    let ended = CancellationToken::new();
    ended.cancel();
    broker.note_made(&task, &made, &ended);
    assert!(!broker.task_owns(&task, &made));
    broker.note_made(&task, &made, &CancellationToken::new());
    assert!(broker.task_owns(&task, &made));
}

#[tokio::test(start_paused = true)]
async fn a_timeout_is_not_remembered_as_the_users_denial() {
    let (bus, broker) = setup(5);
    let _user = bus.subscribe(Role::User);
    let task = TaskId::mint();
    let sig = vec!["delete: /h/ws/a.txt".to_string()];
    let req = rm_request(&broker, &task);
    let c = broker
        .confirm_effects(req, &sig, &CancellationToken::new())
        .await;
    assert_eq!(c.source, DecisionSource::Timeout);
    assert_eq!(broker.denied(&task, &sig), None);
}

#[tokio::test]
async fn trash_is_a_denial_where_it_was_not_offered() {
    let (bus, broker) = setup(120);
    let _responder = ConfirmationResponder::spawn(
        &bus,
        ConfirmationPolicy::script([Decision::Trash]),
        DecisionSource::User,
    );
    let task = TaskId::mint();
    let mut req = rm_request(&broker, &task);
    req.can_trash = false;
    let c = broker.confirm(req, &CancellationToken::new()).await;
    assert_eq!(c.decision, Decision::Deny);
}

mod by_effect {
    use super::*;
    use crate::contracts::FileEffect;
    use crate::laws::classify::{Effect, EffectKind, Existence, Target};

    struct Rig {
        _dir: tempfile::TempDir,
        home: PathBuf,
        bus: Bus,
        broker: ConfirmationBroker,
        store: GrantStore,
    }

    fn rig(offer_after: u32) -> Rig {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(home.join("Downloads")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        let store = GrantStore::in_dir(&root.join("data"));
        let (bus, broker) = setup(120);
        let broker = broker.with_grants(
            store.clone(),
            GrantPlaces {
                home: home.clone(),
                workspace: root.join("ws"),
                offer_after,
            },
        );
        Rig {
            _dir: dir,
            home,
            bus,
            broker,
            store,
        }
    }

    impl Rig {
        /// A request to delete these files of the home folder, as the gate makes it.
        fn delete(&self, task: &TaskId, files: &[&str]) -> ConfirmationRequest {
            let effects = files
                .iter()
                .map(|f| Effect {
                    kind: EffectKind::Delete,
                    target: Target::Path {
                        path: self.home.join(f),
                        exists: Existence::Exists,
                    },
                    source: format!("rm {f}"),
                    note: None,
                })
                .collect();
            let assessment = Assessment::irreversible(effects);
            let mut request = self.broker.request_for(GatedAction {
                task_id: task,
                subtask_id: None,
                tool: &ToolName::Shell.into(),
                command: "rm …",
                assessment: &assessment,
            });
            self.broker.offer_effect_grant(&mut request);
            request
        }
    }

    #[tokio::test]
    async fn always_is_offered_after_n_approvals_and_then_answers_without_asking_until_revoked() {
        let r = rig(3);
        let answers = [
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Task),
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Always),
        ];
        let user = ConfirmationResponder::spawn(
            &r.bus,
            ConfirmationPolicy::scoped_script(answers),
            DecisionSource::User,
        );
        let live = CancellationToken::new();
        // Three approvals of the same class, in three tasks: "always" is not offered yet.
        for (i, file) in ["Downloads/a.tmp", "Downloads/b.tmp", "Downloads/old/c.tmp"]
            .into_iter()
            .enumerate()
        {
            let request = r.delete(&TaskId::mint(), &[file]);
            assert!(
                !request.scopes.contains(&ApprovalScope::Always),
                "request {i}"
            );
            let answer = r.broker.confirm_effects(request, &[], &live).await;
            assert_eq!(answer.decision, Decision::Approve);
            assert_eq!(answer.granted, None);
        }
        // The classes differ in their folder (Downloads, Downloads/old): the count is by
        // class, so the fourth request of ~/Downloads has two approvals behind it.
        let fourth = r.delete(&TaskId::mint(), &["Downloads/d.tmp"]);
        assert!(!fourth.scopes.contains(&ApprovalScope::Always));
        r.broker.confirm_effects(fourth, &[], &live).await;
        let fifth = r.delete(&TaskId::mint(), &["Downloads/e.tmp"]);
        assert!(fifth.scopes.contains(&ApprovalScope::Always));
        let class = fifth.effect_grant.clone().unwrap();
        assert_eq!(class.effect, FileEffect::Delete);
        assert_eq!(class.words, "deleting .tmp files under ~/Downloads");
        let answer = r.broker.confirm_effects(fifth, &[], &live).await;
        assert_eq!(answer.decision, Decision::Approve);
        assert_eq!(r.store.effect_grants().unwrap().len(), 1);
        let asked = user.requests().len();
        assert_eq!(asked, 5);

        // Covered: approved without being asked, naming the grant, its use counted.
        let covered = r.delete(&TaskId::mint(), &["Downloads/sub/f.tmp", "Downloads/g.tmp"]);
        let answer = r.broker.confirm_effects(covered, &[], &live).await;
        assert_eq!(answer.decision, Decision::Approve);
        assert_eq!(answer.granted, Some(ApprovalScope::Always));
        assert_eq!(
            answer.grant.as_ref().map(|c| c.words.as_str()),
            Some(class.words.as_str())
        );
        assert_eq!(user.requests().len(), asked, "nothing was asked");
        assert_eq!(r.store.effect_grants().unwrap()[0].uses, 1);

        // Not covered: another extension asks.
        let other = r.delete(&TaskId::mint(), &["Downloads/h.txt"]);
        let answer = r.broker.confirm_effects(other, &[], &live).await;
        assert_eq!(answer.granted, None);
        assert_eq!(user.requests().len(), asked + 1);

        // Revoked: the very next request asks (and is denied: the script ran out).
        assert!(r.store.revoke_effect(&class).unwrap());
        let again = r.delete(&TaskId::mint(), &["Downloads/i.tmp"]);
        assert!(!again.scopes.contains(&ApprovalScope::Always));
        let answer = r.broker.confirm_effects(again, &[], &live).await;
        assert_eq!(answer.granted, None);
        assert_eq!(user.requests().len(), asked + 2);
    }

    #[tokio::test]
    async fn a_denial_starts_the_count_again() {
        let r = rig(2);
        let answers = [
            (Decision::Approve, ApprovalScope::Once),
            (Decision::Deny, ApprovalScope::Once),
            (Decision::Approve, ApprovalScope::Once),
        ];
        let _user = ConfirmationResponder::spawn(
            &r.bus,
            ConfirmationPolicy::scoped_script(answers),
            DecisionSource::User,
        );
        let live = CancellationToken::new();
        for _ in 0..3 {
            let request = r.delete(&TaskId::mint(), &["Downloads/a.tmp"]);
            assert!(!request.scopes.contains(&ApprovalScope::Always));
            r.broker.confirm_effects(request, &[], &live).await;
        }
        let class = r
            .delete(&TaskId::mint(), &["Downloads/a.tmp"])
            .effect_grant
            .unwrap();
        assert_eq!(r.store.approvals(&class), 1);
    }

    #[tokio::test]
    async fn no_class_is_named_behind_a_floor_and_zero_never_offers_always() {
        let r = rig(0);
        let secret = r.delete(&TaskId::mint(), &[".ssh/id_rsa"]);
        assert_eq!(secret.effect_grant, None);
        let wide = r.delete(&TaskId::mint(), &["Downloads/a", "Music/b"]);
        assert_eq!(wide.effect_grant, None);
        let plain = r.delete(&TaskId::mint(), &["Downloads/a"]);
        assert!(plain.effect_grant.is_some());
        r.store
            .add_effect(plain.effect_grant.clone().unwrap(), chrono::Utc::now())
            .unwrap();
        for _ in 0..5 {
            r.store
                .note_approval(plain.effect_grant.as_ref().unwrap())
                .unwrap();
        }
        let again = r.delete(&TaskId::mint(), &["Downloads/a"]);
        assert!(!again.scopes.contains(&ApprovalScope::Always));
        // A grant of ~/Downloads does not reach a credential put inside it.
        let planted = r.delete(&TaskId::mint(), &["Downloads/server.pem"]);
        assert_eq!(planted.effect_grant, None);
    }
}
