use chrono::{FixedOffset, NaiveDate};

use super::runner::tick;
use super::*;

fn local(d: u32, h: u32, min: u32) -> DateTime<FixedOffset> {
    let tz = FixedOffset::east_opt(3600).unwrap();
    tz.from_local_datetime(
        &NaiveDate::from_ymd_opt(2026, 12, d)
            .unwrap()
            .and_hms_opt(h, min, 0)
            .unwrap(),
    )
    .unwrap()
}

fn weekdays_at_nine() -> Rule {
    Rule::parse("every weekday at 9").unwrap()
}

#[test]
fn a_request_with_its_when_at_the_start_or_the_end_is_a_schedule() {
    let cases = [
        (
            "every weekday at 9, summarize ~/Downloads",
            "every weekday at 09:00",
            "summarize ~/Downloads",
        ),
        (
            "Every day at 18:30: back up ~/notes to ~/backup",
            "every day at 18:30",
            "back up ~/notes to ~/backup",
        ),
        (
            "every 2 hours check ~/inbox for new PDFs",
            "every 2 hours",
            "check ~/inbox for new PDFs",
        ),
        (
            "move the .log files into ~/logs every monday at 8am",
            "every monday at 08:00",
            "move the .log files into ~/logs",
        ),
        (
            "每个工作日 9 点，整理下载文件夹",
            "every weekday at 09:00",
            "整理下载文件夹",
        ),
    ];
    for (text, when, task) in cases {
        let (rule, got) = parse_request(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            (rule.words().as_str(), got.as_str()),
            (when, task),
            "{text}"
        );
    }
}

#[test]
fn a_task_that_only_mentions_time_words_runs_now() {
    for text in [
        "list the files I changed every day this week",
        "how many hours are in a week",
        "count the lines of every file in ~/notes",
        "every weekday at 9",
        "what happens at 9 every day",
        "summarize what I do every day at work",
    ] {
        assert_eq!(parse_request(text), None, "{text}");
    }
}

#[test]
fn a_due_run_is_the_latest_due_time_and_counts_the_ones_missed() {
    // Made on Tuesday 1 Dec at 08:00.
    let made = local(1, 8, 0).with_timezone(&Utc);
    let mut s = Schedule::new("summarize ~/Downloads", weekdays_at_nine(), made);
    assert_eq!(s.due(&local(1, 8, 59)), None);
    assert_eq!(s.next_run(&local(1, 8, 59)), local(1, 9, 0));
    let due = s.due(&local(1, 9, 0)).unwrap();
    assert_eq!(
        (due.at, due.missed),
        (local(1, 9, 0).with_timezone(&Utc), 0)
    );
    s.last_run = Some(due.at);
    assert_eq!(s.due(&local(1, 17, 0)), None);
    // Asleep from Tuesday evening to Saturday: Wed, Thu and Fri fell due; Friday's runs
    // once, two are missed.
    let due = s.due(&local(5, 10, 0)).unwrap();
    assert_eq!(
        (due.at, due.missed),
        (local(4, 9, 0).with_timezone(&Utc), 2)
    );
    let note = s.run_note(&due, &local(5, 10, 0));
    assert_eq!(note.missed, 2);
    assert!(note.note.starts_with("Scheduled: every weekday at 09:00. This run was due at Fri 4 Dec 09:00 and started at 10:00"), "{}", note.note);
    assert!(
        note.note
            .ends_with("2 earlier runs were missed and are not made up."),
        "{}",
        note.note
    );
    // On time: the note says only when.
    let on_time = s.run_note(
        &Due {
            at: local(7, 9, 0).with_timezone(&Utc),
            missed: 0,
        },
        &local(7, 9, 0),
    );
    assert_eq!(on_time.note, "Scheduled: every weekday at 09:00.");
}

#[test]
fn one_due_time_starts_one_run_however_often_the_runner_looks() {
    let dir = tempfile::tempdir().unwrap();
    let store = ScheduleStore::in_dir(dir.path());
    let made = local(1, 8, 0).with_timezone(&Utc);
    let s = store
        .add(Schedule::new(
            "summarize ~/Downloads",
            weekdays_at_nine(),
            made,
        ))
        .unwrap();
    store
        .add(Schedule::new("ping", Rule::Every { minutes: 30 }, made))
        .unwrap();
    let mut runs: Vec<(String, ScheduledRun)> = Vec::new();
    let mut start = |task: &str, run: ScheduledRun| {
        runs.push((task.to_string(), run));
        Ok(TaskId::mint())
    };
    assert!(tick(&store, &local(1, 8, 10), &mut start).is_empty());
    let started = tick(&store, &local(1, 9, 0), &mut start);
    assert_eq!(started.len(), 2, "the 9:00 run and the 8:30 ping");
    assert!(tick(&store, &local(1, 9, 0), &mut start).is_empty());
    assert!(tick(&store, &local(1, 9, 20), &mut start).is_empty());
    assert_eq!(tick(&store, &local(1, 9, 30), &mut start).len(), 1);
    assert_eq!(runs.len(), 3);
    assert_eq!(runs[0].0, "summarize ~/Downloads");
    let kept = store.list().unwrap();
    let summary = kept.iter().find(|k| k.id == s.id).unwrap();
    assert_eq!(summary.runs, 1);
    assert!(summary.last_task.is_some());
    // Removed: it runs no more.
    store.remove(&s.id).unwrap();
    assert!(
        tick(
            &store,
            &local(2, 9, 0),
            &mut |_: &str, _| Ok(TaskId::mint())
        )
        .iter()
        .all(|st| st.schedule_id != s.id)
    );
    assert!(matches!(
        store.remove(&s.id),
        Err(ScheduleError::Unknown(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn the_runner_waits_while_runs_cannot_start_then_starts_the_due_run_once() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let store = ScheduleStore::in_dir(dir.path());
    let made = Utc::now() - chrono::Duration::minutes(31);
    store
        .add(Schedule::new("ping", Rule::Every { minutes: 30 }, made))
        .unwrap();
    let ready = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let stop = tokio_util::sync::CancellationToken::new();
    let running = tokio::spawn(runner::run(
        store.clone(),
        Box::new({
            let ready = Arc::clone(&ready);
            move || ready.load(Ordering::SeqCst)
        }),
        Box::new(move |task: &str, _run| {
            let _ = tx.send(task.to_string());
            Ok(TaskId::mint())
        }),
        stop.clone().cancelled_owned(),
    ));
    tokio::time::sleep(runner::TICK * 2).await;
    assert!(rx.try_recv().is_err(), "nothing starts while not ready");
    ready.store(true, Ordering::SeqCst);
    tokio::time::sleep(runner::TICK + std::time::Duration::from_secs(1)).await;
    assert_eq!(rx.try_recv().ok().as_deref(), Some("ping"));
    tokio::time::sleep(runner::TICK * 3).await;
    assert!(rx.try_recv().is_err(), "one run per due time");
    stop.cancel();
    running.await.unwrap();
}

#[test]
fn an_answer_window_is_read_as_people_write_it_and_said_back_in_words() {
    let cases = [
        ("90", 90 * 60),
        ("90m", 90 * 60),
        ("45 min", 45 * 60),
        ("2h", 2 * 3600),
        ("1h30m", 90 * 60),
        ("1 hour 15 minutes", 75 * 60),
        ("1 day", 86_400),
        ("2d", 2 * 86_400),
    ];
    for (text, secs) in cases {
        assert_eq!(
            parse_window(text),
            Some(std::time::Duration::from_secs(secs)),
            "{text}"
        );
    }
    for bad in ["", "soon", "2 weeks", "h", "1.5h", "-3"] {
        assert_eq!(parse_window(bad), None, "{bad}");
    }
    assert_eq!(length_words(45 * 60), "45 min");
    assert_eq!(length_words(3600), "1 h");
    assert_eq!(length_words(90 * 60), "1 h 30 min");
    assert_eq!(length_words(86_400), "1 day");
    assert_eq!(length_words(3 * 86_400), "3 days");
}

#[test]
fn a_schedules_window_defaults_to_an_hour_travels_with_its_run_and_has_a_floor() {
    let made = local(1, 8, 0);
    let schedule = Schedule::new("tidy ~/inbox", weekdays_at_nine(), made.to_utc());
    assert_eq!(schedule.answer_window_secs, DEFAULT_ANSWER_WINDOW_SECS);
    let now = local(1, 9, 0);
    let due = schedule.due(&now).expect("due at nine");
    assert_eq!(
        schedule.run_note(&due, &now).answer_window_secs,
        DEFAULT_ANSWER_WINDOW_SECS
    );
    let long = schedule
        .clone()
        .with_answer_window(std::time::Duration::from_secs(4 * 3600));
    assert_eq!(long.run_note(&due, &now).answer_window_secs, 4 * 3600);
    assert_eq!(
        long.window_words(),
        "a question waits up to 4 h for your answer"
    );
    let short = schedule.with_answer_window(std::time::Duration::from_secs(5));
    assert_eq!(short.answer_window_secs, SHORTEST_ANSWER_WINDOW_SECS);
    // A schedule kept before windows existed reads with the default one.
    let rule = serde_json::to_value(Rule::Every { minutes: 30 }).expect("rule");
    let old = serde_json::json!({"id": "sch_abcdef", "task": "t", "rule": rule,
        "created_at": "2026-11-01T00:00:00Z"});
    let read: Schedule = serde_json::from_value(old).expect("an older schedule reads");
    assert_eq!(read.answer_window_secs, DEFAULT_ANSWER_WINDOW_SECS);
}
