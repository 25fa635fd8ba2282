//! A schedule's run through the whole hierarchy: the runner starts the due run once,
//! the task carries no session history and leaves none, and its result says when it
//! was due and how many runs were missed while the app was not running.

use artoo::contracts::{Message, MessageKind};
use artoo::schedule::runner::tick;
use artoo::schedule::{Rule, Schedule, ScheduleStore};
use artoo::testkit::Script;
use chrono::{Duration, Local, Utc};

use super::replies::counting_three_files;
use super::{Stage, final_result};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_due_while_asleep_runs_once_and_its_result_says_what_was_missed() {
    let mut stage = Stage::new(counting_three_files(Script::new())).await;
    for f in ["a.txt", "b.txt", "c.txt"] {
        std::fs::write(stage.workspace.join(f), "x").expect("write");
    }
    let store = ScheduleStore::in_dir(&stage.runtime.config().data_dir);
    // Made 95 minutes ago to run every 30 minutes: due at +30, +60 and +90; the app was
    // not running for any of them.
    let made = Utc::now() - Duration::minutes(95);
    let schedule = store
        .add(Schedule::new(
            "how many files are in my workspace?",
            Rule::Every { minutes: 30 },
            made,
        ))
        .expect("kept");
    let task = {
        let runtime = &stage.runtime;
        let mut start = |task: &str, run| {
            runtime
                .submit_scheduled(task, run)
                .map_err(|e| e.to_string())
        };
        let started = tick(&store, &Local::now(), &mut start);
        assert_eq!(started.len(), 1);
        // Looking again at once starts nothing more.
        assert!(tick(&store, &Local::now(), &mut start).is_empty());
        started[0].task.clone().expect("started")
    };

    let end = stage.finish(&task).await;
    let result = final_result(&end).clone();
    let run = result.scheduled.clone().expect("the result names its run");
    assert_eq!(run.schedule_id, schedule.id);
    assert_eq!(run.missed, 2);
    assert_eq!(run.due_at, made + Duration::minutes(90));
    assert!(
        run.note.starts_with("Scheduled: every 30 minutes."),
        "{}",
        run.note
    );
    assert!(
        run.note
            .ends_with("2 earlier runs were missed and are not made up."),
        "{}",
        run.note
    );
    stage.settle().await;
    let submitted = stage.of(&task, MessageKind::TaskSubmitted);
    let Message::TaskSubmitted(s) = &submitted[0].message else {
        unreachable!()
    };
    assert!(s.session_history.is_empty());
    assert!(
        stage.runtime.session_history().is_empty(),
        "a schedule's run is no turn of the user's session"
    );
    let kept = store.list().expect("list");
    assert_eq!((kept[0].runs, kept[0].last_task.as_ref()), (1, Some(&task)));
    stage.stop().await;
}
