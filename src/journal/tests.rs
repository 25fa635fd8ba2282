//! The journal and undo, on real files in temp folders: a task's changes made the way
//! artoo's writers make them (originals moved or linked into the trash, each change
//! journaled after it was made), then undone, redone, or refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::undo::{self, Refusal};
use super::*;

/// What a folder holds: each entry's kind, bytes and permission bits.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, (String, Vec<u8>, u32)> {
    walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .map(|e| e.expect("walk"))
        .map(|e| {
            let m = e.path().symlink_metadata().expect("meta");
            let bytes = if m.is_file() {
                fs::read(e.path()).expect("read")
            } else {
                Vec::new()
            };
            let kind = if m.is_dir() { "dir" } else { "file" };
            (
                e.path().strip_prefix(root).unwrap().to_path_buf(),
                (kind.to_string(), bytes, permission_bits(&m)),
            )
        })
        .collect()
}

/// One change as a task makes it, to a world of a few names.
#[derive(Clone, Debug)]
enum Op {
    Create(usize, Vec<u8>),
    Mkdir(usize),
    Append(usize, Vec<u8>),
    Delete(usize),
    Overwrite(usize, Vec<u8>),
    Move(usize, usize),
    Chmod(usize, u32),
}

const NAMES: &[&str] = &[
    "a.txt",
    "b.txt",
    "d",
    "d/c.txt",
    "d/e",
    "d/e/f.txt",
    "g.log",
];

fn op() -> impl Strategy<Value = Op> {
    let name = 0..NAMES.len();
    let bytes = proptest::collection::vec(any::<u8>(), 0..40);
    prop_oneof![
        (name.clone(), bytes.clone()).prop_map(|(n, b)| Op::Create(n, b)),
        name.clone().prop_map(Op::Mkdir),
        (name.clone(), bytes.clone()).prop_map(|(n, b)| Op::Append(n, b)),
        name.clone().prop_map(Op::Delete),
        (name.clone(), bytes).prop_map(|(n, b)| Op::Overwrite(n, b)),
        (name.clone(), name.clone()).prop_map(|(a, b)| Op::Move(a, b)),
        (
            name,
            prop_oneof![Just(0o600u32), Just(0o644), Just(0o755), Just(0o400)]
        )
            .prop_map(|(n, m)| Op::Chmod(n, m)),
    ]
}

/// Makes `op` in `world` as artoo's writers do and journals it for `task`; an op that
/// does not apply to the world as it is (a missing file, a taken name) is skipped.
fn make(journal: &Journal, task: &str, world: &Path, op: &Op) {
    let at = |n: usize| world.join(NAMES[n]);
    let parent_ok = |p: &Path| p.parent().is_some_and(Path::is_dir);
    let originals = journal.originals(task);
    let change = match op {
        Op::Create(n, bytes) if !at(*n).exists() && parent_ok(&at(*n)) => {
            fs::write(at(*n), bytes).unwrap();
            Change::Create { path: at(*n) }
        }
        Op::Mkdir(n) if !at(*n).exists() && parent_ok(&at(*n)) => {
            fs::create_dir(at(*n)).unwrap();
            Change::Create { path: at(*n) }
        }
        Op::Append(n, bytes) if at(*n).is_file() => {
            let old_len = fs::metadata(at(*n)).unwrap().len();
            let mut f = fs::OpenOptions::new().append(true).open(at(*n)).unwrap();
            f.write_all(bytes).unwrap();
            Change::Append {
                path: at(*n),
                old_len,
            }
        }
        Op::Delete(n) if at(*n).symlink_metadata().is_ok() => {
            let original = keep_original(&at(*n), &originals).unwrap();
            Change::Delete {
                path: at(*n),
                original,
            }
        }
        Op::Overwrite(n, bytes) if at(*n).is_file() => {
            let original = keep_copy(&at(*n), &originals).unwrap();
            let tmp = world.join(".tmp-write");
            fs::write(&tmp, bytes).unwrap();
            fs::rename(&tmp, at(*n)).unwrap();
            Change::Replace {
                path: at(*n),
                original,
            }
        }
        Op::Move(a, b)
            if at(*a).symlink_metadata().is_ok()
                && !at(*b).exists()
                && parent_ok(&at(*b))
                && !at(*b).starts_with(at(*a)) =>
        {
            move_entry(&at(*a), &at(*b)).unwrap();
            Change::Move {
                from: at(*a),
                path: at(*b),
            }
        }
        Op::Chmod(n, mode) if at(*n).is_file() => {
            let old = permission_bits(&fs::metadata(at(*n)).unwrap());
            fs::set_permissions(at(*n), std::os::unix::fs::PermissionsExt::from_mode(*mode))
                .unwrap();
            Change::Mode {
                path: at(*n),
                old,
                new: *mode,
            }
        }
        _ => return,
    };
    journal.record(task, &[change]).unwrap();
}

/// A world with a file, a folder holding one, and the journal beside it.
fn world() -> (tempfile::TempDir, PathBuf, Journal) {
    let tmp = tempfile::tempdir().unwrap();
    let world = tmp.path().join("home");
    fs::create_dir_all(world.join("d")).unwrap();
    fs::write(world.join("a.txt"), "first").unwrap();
    fs::write(world.join("d/c.txt"), "inside").unwrap();
    let journal = Journal::in_data_dir(&tmp.path().join("data"));
    (tmp, world, journal)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any sequence of changes, undone, leaves the world exactly as before the task;
    /// undoing the undo brings back exactly what the task left.
    #[test]
    fn undo_restores_the_world_before_the_task_and_redo_the_world_after(
        ops in proptest::collection::vec(op(), 1..14)
    ) {
        let (_tmp, world, journal) = world();
        let before = snapshot(&world);
        for op in &ops {
            make(&journal, "task_1", &world, op);
        }
        let after = snapshot(&world);
        match undo::undo(&journal, "task_1") {
            Ok(done) => {
                prop_assert_eq!(&snapshot(&world), &before);
                let redo = undo::undo(&journal, &done.id).expect("redo");
                prop_assert!(redo.count == done.count);
                prop_assert_eq!(&snapshot(&world), &after);
            }
            Err(Refusal::NoChanges(_)) => prop_assert_eq!(&before, &after),
            Err(other) => prop_assert!(false, "refused: {}", other),
        }
    }

    /// A path the task changed, changed again by someone else: the undo refuses and
    /// changes nothing.
    #[test]
    fn an_undo_over_a_file_changed_since_refuses_without_changing_anything(
        ops in proptest::collection::vec(op(), 1..14),
        pick in any::<prop::sample::Index>(),
    ) {
        let (_tmp, world, journal) = world();
        for op in &ops {
            make(&journal, "task_1", &world, op);
        }
        let touched: Vec<PathBuf> = journal
            .entries()
            .unwrap()
            .iter()
            .map(|e| e.change.path().to_path_buf())
            .collect();
        prop_assume!(!touched.is_empty());
        let path = pick.get(&touched).clone();
        // Someone else writes there: a new file where the task left none, new bytes in
        // a file it left, or a new file in a folder it left.
        let into_folder = match fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                fs::write(path.join("someone-else.txt"), "someone else's").unwrap();
                true
            }
            Ok(_) => {
                fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"!").unwrap();
                false
            }
            Err(_) => {
                prop_assume!(path.parent().is_some_and(Path::is_dir));
                fs::write(&path, "someone else's").unwrap();
                false
            }
        };
        let meddled = snapshot(&world);
        match undo::undo(&journal, "task_1") {
            Err(Refusal::Changed { .. }) => prop_assert_eq!(&snapshot(&world), &meddled),
            // A folder the task moved goes back with what someone put in it: nothing of
            // theirs is lost. A file's change is never undone over.
            Ok(_) if into_folder => {
                let kept = snapshot(&world)
                    .into_iter()
                    .any(|(p, (_, bytes, _))| p.ends_with("someone-else.txt") && bytes == b"someone else's");
                prop_assert!(kept, "their file is still in the world");
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }
}

#[test]
fn tasks_are_listed_newest_first_and_an_undo_marks_the_task_it_took_back() {
    let (_tmp, world, journal) = world();
    make(&journal, "task_1", &world, &Op::Create(1, b"one".to_vec()));
    make(&journal, "task_2", &world, &Op::Delete(0));
    let latest = undo::latest(&journal).unwrap().expect("a task");
    assert_eq!(latest.task, "task_2");
    let done = undo::undo(&journal, "task_2").unwrap();
    assert_eq!(fs::read_to_string(world.join("a.txt")).unwrap(), "first");
    let listed = undo::tasks(&journal).unwrap();
    assert_eq!(listed[0].task, done.id);
    assert_eq!(listed[0].undoes.as_deref(), Some("task_2"));
    assert_eq!(
        listed
            .iter()
            .find(|t| t.task == "task_2")
            .unwrap()
            .undone_by,
        Some(done.id.clone())
    );
    // The newest standing task is now the first one.
    assert_eq!(undo::latest(&journal).unwrap().unwrap().task, "task_1");
    assert_eq!(
        undo::undo(&journal, "task_2"),
        Err(Refusal::AlreadyUndone {
            task: "task_2".into(),
            by: done.id.clone()
        })
    );
    // Redo: the undo undone, task_2 stands again.
    undo::undo(&journal, &done.id).unwrap();
    assert!(!world.join("a.txt").exists());
    assert_eq!(undo::latest(&journal).unwrap().unwrap().task, "task_2");
}

#[test]
fn an_undo_says_what_it_will_do_and_what_it_removes_goes_to_the_trash() {
    let (_tmp, world, journal) = world();
    make(&journal, "t", &world, &Op::Create(1, b"made".to_vec()));
    make(&journal, "t", &world, &Op::Move(3, 6));
    let plan = undo::plan(&journal, "t").unwrap();
    let home = world.clone();
    assert_eq!(
        plan.lines(&home),
        [
            "move ~/g.log back to ~/d/c.txt",
            "remove ~/b.txt (the task made it)"
        ]
    );
    let done = undo::apply(&journal, &plan).unwrap();
    assert_eq!(done.count, 2);
    let kept = done.originals.expect("the made file was kept");
    let in_trash: Vec<_> = walkdir::WalkDir::new(&kept)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| fs::read_to_string(e.path()).unwrap())
        .collect();
    assert_eq!(in_trash, ["made"]);
    assert_eq!(fs::read_to_string(world.join("d/c.txt")).unwrap(), "inside");
}

#[test]
fn no_change_journaled_is_said_and_a_missing_original_refuses() {
    let (_tmp, world, journal) = world();
    assert_eq!(
        undo::undo(&journal, "task_9").unwrap_err(),
        Refusal::NoChanges("task_9".into())
    );
    make(&journal, "t", &world, &Op::Delete(0));
    // The trash was emptied meanwhile.
    fs::remove_dir_all(journal.root().join("t")).unwrap();
    let refused = undo::undo(&journal, "t").unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("has no original left in artoo's trash"),
        "{refused}"
    );
    assert!(!world.join("a.txt").exists());
}

#[test]
fn the_trash_is_pruned_by_whole_commits_by_age_and_an_undo_then_says_the_original_is_gone() {
    let (_tmp, world, journal) = world();
    make(&journal, "old", &world, &Op::Delete(0));
    make(&journal, "new", &world, &Op::Delete(2));
    let old_commit = journal.root().join("old/1");
    let forty_days = std::time::Duration::from_secs(40 * 24 * 3600);
    fs::File::open(&old_commit)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - forty_days)
        .unwrap();
    let keep = crate::retention::Keep::from_days_and_mb(30, 1024);
    let pruned = prune(&journal, Utc::now(), keep).unwrap();
    assert_eq!(pruned.files, 1);
    assert!(
        !journal.root().join("old").exists(),
        "the emptied task folder went too"
    );
    assert!(
        journal.root().join("new/1").is_dir(),
        "a recent commit stays"
    );
    let refused = undo::undo(&journal, "old").unwrap_err();
    assert!(
        refused.to_string().contains("no original left"),
        "{refused}"
    );
    undo::undo(&journal, "new").expect("the recent task is still undone");
    assert_eq!(fs::read_to_string(world.join("d/c.txt")).unwrap(), "inside");
}
