use super::durable_env::SyncPolicy;
use super::*;
use crate::clock::{Clock, FakeClock};
use crate::contracts::MegramOrigin;
use crate::memory::megram::BANKRUPT_K;
use crate::memory::types::Distillation;
use chrono::Duration;

fn open(dir: &Path, clock: &Arc<FakeClock>) -> Store {
    Store::open(dir, clock.clone(), MemoryParams::default()).expect("store opens")
}

fn megram(clock: &Arc<FakeClock>, space: &str, entity: &str, f: f64, sigma: f64, k: f64) -> Megram {
    Megram {
        id: MegramId::mint(),
        level: Level::M,
        created_at: clock.now(),
        last_recalled_at: None,
        space: space.into(),
        entity: entity.into(),
        content: format!("{space} / {entity}"),
        state: MegramOrigin::Accept,
        f,
        sigma,
        k,
    }
}

/// Every key of the store, as (prefix char, whole key).
fn all_keys(store: &mut Store) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    scan_prefix(&mut store.db, b"", |k, _| {
        out.push(k.to_vec());
        Ok(())
    })
    .unwrap();
    out
}

fn keys_mentioning(store: &mut Store, id: MegramId) -> Vec<String> {
    let needle = id.to_string();
    all_keys(store)
        .into_iter()
        .map(|k| String::from_utf8_lossy(&k).into_owned())
        .filter(|k| k.contains(&needle))
        .collect()
}

fn write_now(store: &mut Store, m: &Megram) {
    store.pending.push(m.clone());
    store.commit_pending();
    assert!(store.write_failures.is_empty());
}

#[test]
fn a_new_store_has_the_format_key_and_the_four_laws() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    assert_eq!(store.db.get(keys::FORMAT_KEY).as_deref(), Some(&b"1"[..]));
    assert_eq!(store.t_ids.len(), 4);
    let law = store.load(mg::law_id(1)).unwrap().unwrap();
    assert_eq!(law.level, Level::T);
    assert_eq!(
        keys_mentioning(&mut store, law.id),
        vec![
            format!("l|T|{}", law.id),
            format!("m|{}", law.id),
            format!("x|laws|law:1|{}", law.id),
        ]
    );
}

#[test]
fn a_persona_entry_an_older_build_stored_can_be_forgotten_but_no_law() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    // What `/remember T` used to store.
    let persona = store
        .insert(mg::remembered(
            Level::T,
            "global:user",
            "env:local",
            "Answr in Englsh.",
            1.0,
            clock.now(),
        ))
        .unwrap();
    let report = store.forget(ForgetTarget::Id(persona.id)).unwrap();
    assert_eq!(report.forgotten, vec![persona.id]);
    assert!(keys_mentioning(&mut store, persona.id).is_empty());
    assert!(!store.t_ids.contains(&persona.id));
    assert!(matches!(
        store.forget(ForgetTarget::Id(mg::law_id(0))),
        Err(MemoryError::Immutable(_))
    ));
    let report = store
        .forget(ForgetTarget::Group {
            space: mg::LAW_SPACE.into(),
            entity: "law:2".into(),
        })
        .unwrap();
    assert_eq!(report.kept_immutable, vec![mg::law_id(2)]);
    assert!(store.load(mg::law_id(2)).unwrap().is_some());
}

#[test]
fn a_write_lays_down_record_index_and_level_keys_under_encoded_tags() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let m = megram(&clock, "tool:sh|ell", "path:/tmp/100%", 0.9, 1.0, 0.05);
    write_now(&mut store, &m);
    assert_eq!(
        keys_mentioning(&mut store, m.id),
        vec![
            format!("l|M|{}", m.id),
            format!("m|{}", m.id),
            format!("x|tool:sh%7Cell|path:/tmp/100%25|{}", m.id),
        ]
    );
}

#[test]
fn gc_hard_deletes_every_key_of_a_faded_entry() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let faded = megram(&clock, "intent:a", "env:local", 0.1, 0.5, 0.5);
    let kept = megram(&clock, "intent:a", "env:local", 0.9, 1.0, 0.05);
    write_now(&mut store, &faded);
    write_now(&mut store, &kept);
    clock.advance(Duration::days(1));
    let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
    assert_eq!(step.gc_deleted, 1);
    assert_eq!(step.next, None);
    assert!(keys_mentioning(&mut store, faded.id).is_empty());
    assert_eq!(keys_mentioning(&mut store, kept.id).len(), 3);
}

const STEP_BUDGET_FOR_TESTS: usize = 1_000;

#[test]
fn a_step_never_splits_a_group_and_resumes_at_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    for g in 0..5 {
        for _ in 0..3 {
            write_now(
                &mut store,
                &megram(&clock, &format!("intent:{g}"), "env:local", 0.9, 1.0, 0.05),
            );
        }
    }
    let mut cursor = None;
    let mut steps = Vec::new();
    loop {
        let step = store.dream_step(cursor.take(), 2).unwrap();
        steps.push((step.groups, step.scanned));
        match step.next {
            Some(n) => cursor = Some(n),
            None => break,
        }
    }
    // Five groups of 3 sort before the four law groups of 1; a step closes at the
    // first group boundary at or past its budget of 2.
    assert_eq!(
        steps,
        vec![(1, 3), (1, 3), (1, 3), (1, 3), (1, 3), (2, 2), (2, 2)]
    );
}

#[test]
fn consolidation_marks_sources_without_rewriting_their_records() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let sources: Vec<Megram> = (0..6)
        .map(|_| megram(&clock, "intent:r", "env:local", 0.9, 1.0, 0.05))
        .collect();
    for m in &sources {
        write_now(&mut store, m);
    }
    let before: Vec<_> = sources
        .iter()
        .map(|m| store.db.get(&keys::megram_key(m.id)).unwrap())
        .collect();
    let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
    assert_eq!(step.candidates.len(), 1);
    let candidate = &step.candidates[0];
    assert_eq!(candidate.kind, Distillation::BestPractice);
    let rule = Megram {
        level: Level::C,
        k: 0.0,
        f: 1.0,
        state: MegramOrigin::BestPractice,
        content: "Use the template.".into(),
        ..megram(&clock, "intent:r", "env:local", 1.0, 1.0, 0.0)
    };
    let marked = store
        .consolidate("intent:r", "env:local", rule.clone(), &candidate.sources)
        .unwrap();
    assert_eq!(marked, 6);
    for (m, bytes) in sources.iter().zip(&before) {
        assert_eq!(&store.db.get(&keys::megram_key(m.id)).unwrap(), bytes);
        assert_eq!(
            store.db.get(&keys::consolidated_key(m.id)).as_deref(),
            Some(rule.id.to_string().as_bytes())
        );
    }
    // Marked sources are not offered again, and a replay marks nothing.
    let again = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
    assert!(again.candidates.is_empty());
    let second_rule = Megram {
        id: MegramId::mint(),
        ..rule
    };
    assert_eq!(
        store
            .consolidate(
                "intent:r",
                "env:local",
                second_rule.clone(),
                &candidate.sources
            )
            .unwrap(),
        0
    );
    assert!(store.load(second_rule.id).unwrap().is_none());
}

#[test]
fn bankruptcy_moves_the_level_key_and_keeps_content_and_recall() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let rule = store
        .insert(mg::remembered(
            Level::C,
            "intent:b",
            "env:local",
            "Prefer X.",
            1.0,
            clock.now(),
        ))
        .unwrap();
    clock.advance(Duration::days(1));
    let recalled = store.recall("intent:b", "env:local", 10).unwrap();
    assert_eq!(recalled.sops.len(), 1);
    store.negative_feedback(rule.id, "X failed").unwrap();
    store.negative_feedback(rule.id, "X failed again").unwrap();
    let step = store.dream_step(None, STEP_BUDGET_FOR_TESTS).unwrap();
    assert_eq!(step.bankrupt, vec![rule.id]);
    let demoted = store.load(rule.id).unwrap().unwrap();
    assert_eq!((demoted.level, demoted.k), (Level::K, BANKRUPT_K));
    assert_eq!(demoted.content, "Prefer X.");
    assert_eq!(demoted.created_at, rule.created_at);
    assert_eq!(demoted.last_recalled_at, Some(clock.now()));
    let keys = keys_mentioning(&mut store, rule.id);
    assert!(keys.contains(&format!("l|K|{}", rule.id)), "{keys:?}");
    assert!(!keys.contains(&format!("l|C|{}", rule.id)), "{keys:?}");
    assert!(keys.contains(&format!("r|{}", rule.id)), "{keys:?}");
}

#[test]
fn recalls_reuse_decoded_records_until_a_commit_rewrites_one() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let m = megram(&clock, "intent:c", "env:local", 1.0, 0.5, 0.2);
    write_now(&mut store, &m);
    let first = store.recall("intent:c", "env:local", 10).unwrap();
    assert_eq!(first.recent.len(), 1);
    assert_eq!(
        store.records.len(),
        1,
        "the recalled record is kept decoded"
    );
    // A newer write to the group is an append: the decoded record stays.
    let newer = megram(&clock, "intent:c", "env:local", 1.0, 0.5, 0.2);
    write_now(&mut store, &newer);
    assert_eq!(store.records.len(), 1);
    let second = store.recall("intent:c", "env:local", 10).unwrap();
    assert_eq!(second.recent.len(), 2);
    assert!(second.recent.iter().any(|r| r == &first.recent[0]));
    // Pinning rewrites the record (k = 0): the next recall reads it as it is now.
    store.pin(m.id).unwrap();
    assert_eq!(store.records.len(), 0);
    let third = store.recall("intent:c", "env:local", 10).unwrap();
    let pinned = third.recent.iter().find(|r| r.id == m.id).unwrap();
    assert_eq!(pinned.k, 0.0);
    assert_eq!(pinned, &store.load(m.id).unwrap().unwrap());
}

#[test]
fn a_replayed_id_is_refused_so_no_entry_moves_between_groups() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let first = megram(&clock, "intent:a", "env:local", 0.9, 1.0, 0.05);
    write_now(&mut store, &first);
    let replay = Megram {
        space: "intent:b".into(),
        ..first.clone()
    };
    write_now(&mut store, &replay);
    assert_eq!(store.load(first.id).unwrap().unwrap().space, "intent:a");
    assert!(
        store
            .scan_group(&keys::group_prefix("intent:b", "env:local"))
            .unwrap()
            .is_empty()
    );
}

/// Sorted, for comparing a cached group with LevelDB.
fn sorted(mut entries: Vec<(MegramId, IndexEntry)>) -> Vec<(MegramId, IndexEntry)> {
    entries.sort_by_key(|(id, _)| *id);
    entries
}

#[test]
fn the_group_cache_matches_leveldb_after_every_kind_of_change() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let spaces = ["intent:a", "intent:b|x", "意图:c"];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut rules: Vec<MegramId> = Vec::new();
    for round in 0..400 {
        let space = spaces[next(3) as usize];
        match next(9) {
            0..=2 => {
                let (f, sigma, k) =
                    [(0.9, 1.0, 0.05), (0.95, -1.0, 0.05), (0.1, 0.5, 0.5)][next(3) as usize];
                write_now(&mut store, &megram(&clock, space, "env:local", f, sigma, k));
            }
            3 => {
                let content = format!("rule {round}");
                let rule = mg::remembered(Level::C, space, "env:local", &content, 1.0, clock.now());
                rules.push(store.insert(rule).unwrap().id);
            }
            4 => {
                store.recall(space, "env:local", 10).unwrap();
            }
            5 if !rules.is_empty() => {
                let rule = rules[next(rules.len() as u64) as usize];
                if store.load(rule).unwrap().is_some() {
                    store.negative_feedback(rule, "contradicted").unwrap();
                }
            }
            6 => {
                let step = store.dream_step(None, usize::MAX).unwrap();
                if let Some(c) = step.candidates.first() {
                    let rule = mg::remembered(
                        Level::C,
                        &c.space,
                        &c.entity,
                        "distilled",
                        1.0,
                        clock.now(),
                    );
                    store
                        .consolidate(&c.space, &c.entity, rule, &c.sources)
                        .unwrap();
                }
            }
            7 => {
                let view = store.group(space, "env:local").unwrap();
                if let Some(v) = view.iter().find(|v| v.megram.level != Level::T) {
                    if next(2) == 0 {
                        store.pin(v.megram.id).unwrap();
                    } else {
                        store.forget(ForgetTarget::Id(v.megram.id)).unwrap();
                    }
                }
            }
            _ => clock.advance(Duration::hours(next(48) as i64)),
        }
        for space in spaces {
            let prefix = keys::group_prefix(space, "env:local");
            if let Some(cached) = store.cache.get(&prefix) {
                assert_eq!(
                    sorted(cached),
                    sorted(store.scan_group_uncached(&prefix).unwrap()),
                    "round {round}, group {space}"
                );
            }
        }
    }
    assert!(
        spaces
            .iter()
            .any(|s| store.cache.is_cached(&keys::group_prefix(s, "env:local")))
    );
}

#[test]
fn logs_sync_on_request_while_tables_manifests_and_current_always_sync() {
    let policy =
        |name: &str| DurableEnv::policy(Path::new("/data/memory.leveldb").join(name).as_path());
    assert!(policy("000003.log") == SyncPolicy::WriteAheadLog);
    for name in [
        "000005.ldb",
        "000007.sst",
        "MANIFEST-000001",
        "000001.dbtmp",
        "CURRENT",
    ] {
        assert!(policy(name) == SyncPolicy::Always, "{name}");
    }
    for name in ["LOG", "LOG.old"] {
        assert!(policy(name) == SyncPolicy::Never, "{name}");
    }
}

#[test]
fn the_replay_window_forgets_the_oldest_id_first() {
    let mut recent = Recent::new(RECENT_IDS);
    let first = MegramId::mint();
    assert!(recent.insert(first, |_| {}));
    assert!(!recent.insert(first, |_| {}));
    for _ in 0..RECENT_IDS {
        recent.insert(MegramId::mint(), |_| {});
    }
    assert!(!recent.contains(&first));
    assert_eq!(recent.len(), RECENT_IDS);
}

#[test]
fn a_store_with_another_format_version_is_refused_with_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    {
        let mut store = open(dir.path(), &clock);
        store.db.put(keys::FORMAT_KEY, b"2").unwrap();
        store.shutdown().unwrap();
    }
    let err = Store::open(dir.path(), clock.clone(), MemoryParams::default())
        .err()
        .expect("format 2 is refused");
    assert!(matches!(&err, MemoryError::Format { found, .. } if found == "2"));
    assert!(err.to_string().contains(&dir.path().display().to_string()));
}

#[test]
fn a_leveldb_that_is_not_a_memory_store_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut db = DB::open(dir.path(), Options::default()).unwrap();
        db.put(b"foreign", b"data").unwrap();
        db.close().unwrap();
    }
    let err = Store::open(dir.path(), FakeClock::at_epoch(), MemoryParams::default())
        .err()
        .expect("a foreign database is refused");
    assert!(matches!(err, MemoryError::Format { .. }), "{err}");
}

#[test]
fn a_second_opener_gets_a_lock_error_naming_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let _first = open(dir.path(), &clock);
    let err = Store::open(dir.path(), clock.clone(), MemoryParams::default())
        .err()
        .expect("the second open fails");
    assert!(matches!(&err, MemoryError::Locked { dir: d } if d == dir.path()));
    assert!(err.to_string().contains(&dir.path().display().to_string()));
}

#[test]
fn records_stored_with_each_state_string_load_as_their_origin() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    for origin in MegramOrigin::ALL {
        let m = megram(&clock, "intent:legacy", "env:local", 0.5, 1.0, 0.05);
        write_now(&mut store, &m);
        // The record as an older build wrote it, with `state` as free text.
        let raw = format!(
            r#"{{"id":"{}","level":"M","created_at":"1970-01-01T00:00:00Z","last_recalled_at":null,"space":"intent:legacy","entity":"env:local","content":"c","state":"{}","f":0.5,"sigma":1.0,"k":0.05}}"#,
            m.id,
            origin.as_str()
        );
        store
            .db
            .put(&keys::megram_key(m.id), raw.as_bytes())
            .unwrap();
        let loaded = store.load(m.id).unwrap().expect("stored");
        assert_eq!(loaded.state, origin);
        let back = serde_json::to_value(&loaded).unwrap();
        assert_eq!(back["state"], origin.as_str());
    }
}

#[test]
fn a_record_with_an_unknown_state_is_reported_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at_epoch();
    let mut store = open(dir.path(), &clock);
    let m = megram(&clock, "intent:legacy", "env:local", 0.5, 1.0, 0.05);
    write_now(&mut store, &m);
    let mut value = serde_json::to_value(&m).unwrap();
    value["state"] = "consolidated".into();
    let raw = serde_json::to_vec(&value).unwrap();
    store.db.put(&keys::megram_key(m.id), &raw).unwrap();
    let err = store.load(m.id).expect_err("an unknown state is refused");
    assert!(matches!(err, MemoryError::Corrupt { .. }), "{err}");
}
