//! Standing Law 1 approvals that outlive a task, kept in `<data dir>/grants.json`,
//! listed in Settings and by `artoo grants`, and revocable: "always allow this tool of
//! this MCP server", and grants by effect, "always allow deleting .tmp files under
//! ~/Downloads" ([`super::effect_grants`]). The file also counts how often the user
//! approved each class of file effects, so the dialog can offer "always" once a class
//! was approved often enough (`laws.offer_always_after`).
//!
//! The file is read on every check, so a grant revoked in one process (the desktop
//! app's Settings, the `artoo mcp revoke` command) stops applying in every other at
//! once. Writes replace the file atomically (a temporary file renamed over it).
//!
//! **Invariant:** an MCP grant applies only to a subject equal in every field — server
//! name, origin (command line or URL), tool name and definition fingerprint — to the one
//! the user approved; a grant by effect only to changes its class covers
//! ([`effect_grants::covers`]); a file that cannot be read or parsed allows nothing.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::effect_grants::{self, same_class};
use crate::contracts::{EffectClass, GrantSubject, PathEffect};

/// The file under the data dir.
pub const GRANTS_FILE: &str = "grants.json";

/// Writes `value` as pretty JSON to `path`, replacing it atomically (a temporary file
/// renamed over it); the directory is created when missing.
pub(crate) fn replace_json(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// One standing approval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Grant {
    /// The MCP tool the grant allows.
    pub subject: GrantSubject,
    /// When the user gave it.
    pub granted_at: DateTime<Utc>,
}

/// One standing grant by effect, with how often it was used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct EffectGrant {
    /// The changes the grant allows.
    pub class: EffectClass,
    /// When the user gave it.
    pub granted_at: DateTime<Utc>,
    /// How many requests it approved without asking.
    #[serde(default)]
    pub uses: u64,
    /// When it last did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<DateTime<Utc>>,
}

/// How often the user approved one class of changes, once or for a task.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Tally {
    class: EffectClass,
    approvals: u32,
}

/// Classes whose approvals are counted, at most; the least recently counted go first.
const MAX_TALLIES: usize = 200;

#[derive(Debug, Default, Serialize, Deserialize)]
struct GrantFile {
    version: u32,
    grants: Vec<Grant>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    effects: Vec<EffectGrant>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tallies: Vec<Tally>,
}

/// Why the grants file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error the system gave.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a grants file.
    #[error("{path} is not a grants file: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
}

/// The standing grants of one data dir. Cheap to clone; clones share one write lock.
#[derive(Clone, Debug)]
pub struct GrantStore {
    path: PathBuf,
    write: Arc<Mutex<()>>,
}

impl GrantStore {
    /// The grants of the data dir `data_dir`.
    pub fn in_dir(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(GRANTS_FILE),
            write: Arc::new(Mutex::new(())),
        }
    }

    /// The grants file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<GrantFile, GrantError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| GrantError::Parse {
                path: self.path.clone(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(GrantFile::default()),
            Err(source) => Err(GrantError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    fn write_file(&self, file: &GrantFile) -> Result<(), GrantError> {
        replace_json(&self.path, file).map_err(|source| GrantError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Every standing grant, oldest first.
    pub fn list(&self) -> Result<Vec<Grant>, GrantError> {
        Ok(self.read()?.grants)
    }

    /// Whether a grant covers exactly this subject. Unreadable file: no.
    pub fn allows(&self, subject: &GrantSubject) -> bool {
        match self.read() {
            Ok(file) => file.grants.iter().any(|g| &g.subject == subject),
            Err(e) => {
                tracing::warn!(error = %e, "standing grants unreadable; none applies");
                false
            }
        }
    }

    /// Adds a grant (once: the same subject again keeps the first).
    pub fn add(&self, subject: GrantSubject, at: DateTime<Utc>) -> Result<(), GrantError> {
        let _guard = crate::sync::lock(&self.write);
        let mut file = self.read()?;
        if file.grants.iter().any(|g| g.subject == subject) {
            return Ok(());
        }
        file.version = 1;
        file.grants.push(Grant {
            subject,
            granted_at: at,
        });
        self.write_file(&file)
    }

    /// Removes the grant of exactly this subject; false when there was none.
    pub fn revoke(&self, subject: &GrantSubject) -> Result<bool, GrantError> {
        let _guard = crate::sync::lock(&self.write);
        let mut file = self.read()?;
        let before = file.grants.len();
        file.grants.retain(|g| &g.subject != subject);
        if file.grants.len() == before {
            return Ok(false);
        }
        file.version = 1;
        self.write_file(&file)?;
        Ok(true)
    }

    /// Removes every grant of one server (by name); returns how many went.
    pub fn revoke_server(&self, server: &str) -> Result<usize, GrantError> {
        let _guard = crate::sync::lock(&self.write);
        let mut file = self.read()?;
        let before = file.grants.len();
        file.grants.retain(|g| g.subject.server != server);
        let removed = before - file.grants.len();
        if removed > 0 {
            file.version = 1;
            self.write_file(&file)?;
        }
        Ok(removed)
    }

    /// Changes the file under the write lock with `change`, which says whether it changed
    /// anything (only then is the file written).
    fn update<T>(&self, change: impl FnOnce(&mut GrantFile) -> (bool, T)) -> Result<T, GrantError> {
        let _guard = crate::sync::lock(&self.write);
        let mut file = self.read()?;
        let (changed, out) = change(&mut file);
        if changed {
            file.version = 1;
            self.write_file(&file)?;
        }
        Ok(out)
    }

    /// Every standing grant by effect, oldest first.
    pub fn effect_grants(&self) -> Result<Vec<EffectGrant>, GrantError> {
        Ok(self.read()?.effects)
    }

    /// The standing grant by effect that covers every one of `paths`, if one does; its
    /// use is counted. Unreadable file: none.
    pub fn covering(
        &self,
        paths: &[PathEffect],
        home: &Path,
        workspace: &Path,
        at: DateTime<Utc>,
    ) -> Option<EffectClass> {
        let found = self.update(|file| {
            let Some(grant) = file
                .effects
                .iter_mut()
                .find(|g| effect_grants::covers(&g.class, paths, home, workspace))
            else {
                return (false, None);
            };
            grant.uses += 1;
            grant.last_used = Some(at);
            (true, Some(grant.class.clone()))
        });
        found.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "standing grants unreadable; none applies");
            None
        })
    }

    /// Adds a grant by effect (once: the same class again keeps the first).
    pub fn add_effect(&self, class: EffectClass, at: DateTime<Utc>) -> Result<(), GrantError> {
        self.update(|file| {
            if file.effects.iter().any(|g| same_class(&g.class, &class)) {
                return (false, ());
            }
            file.tallies.retain(|t| !same_class(&t.class, &class));
            file.effects.push(EffectGrant {
                class,
                granted_at: at,
                uses: 0,
                last_used: None,
            });
            (true, ())
        })
    }

    /// Removes the grant of exactly this class, and its count of approvals, so the next
    /// such change asks, and "always" is offered again only after new approvals; false
    /// when there was no such grant.
    pub fn revoke_effect(&self, class: &EffectClass) -> Result<bool, GrantError> {
        self.update(|file| {
            let before = file.effects.len();
            file.effects.retain(|g| !same_class(&g.class, class));
            file.tallies.retain(|t| !same_class(&t.class, class));
            let removed = file.effects.len() < before;
            (removed, removed)
        })
    }

    /// How often the user approved this class of changes.
    pub fn approvals(&self, class: &EffectClass) -> u32 {
        self.read().map_or(0, |file| {
            file.tallies
                .iter()
                .find(|t| same_class(&t.class, class))
                .map_or(0, |t| t.approvals)
        })
    }

    /// Counts one approval of this class; returns the new count.
    pub fn note_approval(&self, class: &EffectClass) -> Result<u32, GrantError> {
        self.update(|file| {
            let approvals = match file
                .tallies
                .iter()
                .position(|t| same_class(&t.class, class))
            {
                Some(i) => {
                    let mut tally = file.tallies.remove(i);
                    tally.approvals = tally.approvals.saturating_add(1);
                    let n = tally.approvals;
                    file.tallies.push(tally);
                    n
                }
                None => {
                    file.tallies.push(Tally {
                        class: class.clone(),
                        approvals: 1,
                    });
                    1
                }
            };
            if file.tallies.len() > MAX_TALLIES {
                let extra = file.tallies.len() - MAX_TALLIES;
                file.tallies.drain(..extra);
            }
            (true, approvals)
        })
    }

    /// A denial of this class starts its count again: "always" is offered only after
    /// approvals in a row.
    pub fn note_denial(&self, class: &EffectClass) -> Result<(), GrantError> {
        self.update(|file| {
            let before = file.tallies.len();
            file.tallies.retain(|t| !same_class(&t.class, class));
            (file.tallies.len() < before, ())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(tool: &str, fingerprint: &str) -> GrantSubject {
        GrantSubject {
            server: "files".into(),
            origin: "mcp-server-filesystem /w".into(),
            tool: tool.into(),
            fingerprint: fingerprint.into(),
        }
    }

    #[test]
    fn a_grant_allows_exactly_its_subject_and_survives_a_new_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = GrantStore::in_dir(dir.path());
        assert!(store.list().unwrap().is_empty());
        store.add(subject("write_file", "f1"), Utc::now()).unwrap();
        store.add(subject("write_file", "f1"), Utc::now()).unwrap();
        let again = GrantStore::in_dir(dir.path());
        assert_eq!(again.list().unwrap().len(), 1);
        assert!(again.allows(&subject("write_file", "f1")));
        // Another definition, tool, origin or server is another subject.
        assert!(!again.allows(&subject("write_file", "f2")));
        assert!(!again.allows(&subject("move_file", "f1")));
        let mut elsewhere = subject("write_file", "f1");
        elsewhere.origin = "mcp-server-filesystem /".into();
        assert!(!again.allows(&elsewhere));
    }

    #[test]
    fn revoking_removes_the_grant_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        let a = GrantStore::in_dir(dir.path());
        let b = GrantStore::in_dir(dir.path());
        a.add(subject("write_file", "f1"), Utc::now()).unwrap();
        a.add(subject("move_file", "f1"), Utc::now()).unwrap();
        assert!(b.revoke(&subject("write_file", "f1")).unwrap());
        assert!(!b.revoke(&subject("write_file", "f1")).unwrap());
        assert!(!a.allows(&subject("write_file", "f1")));
        assert!(a.allows(&subject("move_file", "f1")));
        assert_eq!(a.revoke_server("files").unwrap(), 1);
        assert!(a.list().unwrap().is_empty());
    }

    #[test]
    fn a_damaged_file_allows_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = GrantStore::in_dir(dir.path());
        store.add(subject("write_file", "f1"), Utc::now()).unwrap();
        std::fs::write(store.path(), "{ not json").unwrap();
        assert!(!store.allows(&subject("write_file", "f1")));
        assert!(store.list().is_err());
    }
}
