//! The schedules of one data dir, in `<data dir>/schedules.json`: read on every use (a
//! schedule removed from the CLI stops at once in the running app), replaced atomically
//! on every change.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Schedule;
use crate::contracts::TaskId;

/// The file under the data dir.
pub const SCHEDULES_FILE: &str = "schedules.json";

/// Schedules one data dir keeps, at most.
pub const MAX_SCHEDULES: usize = 100;

#[derive(Debug, Default, Serialize, Deserialize)]
struct ScheduleFile {
    version: u32,
    schedules: Vec<Schedule>,
}

/// Why the schedules could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a schedules file.
    #[error("{path} is not a schedules file: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// No schedule has this id.
    #[error("there is no schedule {0} (`artoo schedule list` shows them)")]
    Unknown(String),
    /// Too many schedules.
    #[error("there are already {MAX_SCHEDULES} schedules; remove one first")]
    Full,
}

/// The schedules of one data dir. Cheap to clone; clones share one write lock.
#[derive(Clone, Debug)]
pub struct ScheduleStore {
    path: PathBuf,
    write: Arc<Mutex<()>>,
}

impl ScheduleStore {
    /// The schedules of the data dir `data_dir`.
    pub fn in_dir(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(SCHEDULES_FILE),
            write: Arc::new(Mutex::new(())),
        }
    }

    fn read(&self) -> Result<ScheduleFile, ScheduleError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| ScheduleError::Parse {
                path: self.path.clone(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ScheduleFile::default()),
            Err(source) => Err(ScheduleError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    fn update<T>(
        &self,
        change: impl FnOnce(&mut Vec<Schedule>) -> Result<T, ScheduleError>,
    ) -> Result<T, ScheduleError> {
        let _guard = crate::sync::lock(&self.write);
        let mut file = self.read()?;
        let out = change(&mut file.schedules)?;
        file.version = 1;
        crate::laws::grants::replace_json(&self.path, &file).map_err(|source| {
            ScheduleError::Io {
                path: self.path.clone(),
                source,
            }
        })?;
        Ok(out)
    }

    /// Every schedule, oldest first.
    pub fn list(&self) -> Result<Vec<Schedule>, ScheduleError> {
        Ok(self.read()?.schedules)
    }

    /// Keeps a new schedule.
    pub fn add(&self, schedule: Schedule) -> Result<Schedule, ScheduleError> {
        self.update(|all| {
            if all.len() >= MAX_SCHEDULES {
                return Err(ScheduleError::Full);
            }
            all.push(schedule.clone());
            Ok(schedule)
        })
    }

    /// Removes the schedule `id` (or the only one whose id starts with it); returns it.
    pub fn remove(&self, id: &str) -> Result<Schedule, ScheduleError> {
        self.update(|all| Ok(all.remove(one_named(all, id)?)))
    }

    /// Sets how long the questions of schedule `id`'s runs wait for an answer
    /// ([`Schedule::with_answer_window`]); returns the schedule as it is now kept.
    pub fn set_answer_window(
        &self,
        id: &str,
        window: std::time::Duration,
    ) -> Result<Schedule, ScheduleError> {
        self.update(|all| {
            let i = one_named(all, id)?;
            all[i] = all[i].clone().with_answer_window(window);
            Ok(all[i].clone())
        })
    }

    /// Claims the run of `id` due `due`, unless a run of that due time (or a later one)
    /// was claimed already: true when this call claimed it, so the caller may start it.
    pub fn claim_run(&self, id: &str, due: DateTime<Utc>) -> Result<bool, ScheduleError> {
        self.update(|all| {
            let Some(s) = all.iter_mut().find(|s| s.id == id) else {
                return Ok(false);
            };
            if s.last_run.is_some_and(|last| last >= due) {
                return Ok(false);
            }
            s.last_run = Some(due);
            s.runs = s.runs.saturating_add(1);
            Ok(true)
        })
    }

    /// Records the task a claimed run started as.
    pub fn note_task(&self, id: &str, task: &TaskId) -> Result<(), ScheduleError> {
        self.update(|all| {
            if let Some(s) = all.iter_mut().find(|s| s.id == id) {
                s.last_task = Some(task.clone());
            }
            Ok(())
        })
    }
}

/// Where the schedule `id` (or the only one whose id starts with it, four characters at
/// least) is in `all`.
fn one_named(all: &[Schedule], id: &str) -> Result<usize, ScheduleError> {
    let matches: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| s.id == id || (id.len() >= 4 && s.id.starts_with(id)))
        .map(|(i, _)| i)
        .collect();
    match matches[..] {
        [i] => Ok(i),
        _ => Err(ScheduleError::Unknown(id.to_string())),
    }
}
