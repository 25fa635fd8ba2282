//! Trust by approval for MCP tool definitions, in `<data dir>/mcp-trust.json`.
//!
//! A tool's definition (by the server's origin: command line or URL, and the tool's
//! name) is trusted once the user approved a call of exactly that definition; its
//! fingerprint is recorded then. Until that, a tool is *new*, and a tool whose
//! definition differs from the approved one is *changed*: Law 1 asks before each of
//! their calls, whatever they say about themselves.
//!
//! **Invariant:** a definition becomes trusted only through a user's approval of a call
//! of exactly that definition; a file that cannot be read trusts nothing (every tool
//! counts as changed, nothing is overwritten).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

pub(crate) const TRUST_FILE: &str = "mcp-trust.json";

/// SHA-256 (hex) of what a tool's definition tells a client: name, title, description,
/// input and output schemas and annotations. Keys are sorted, so the same definition
/// always gives the same fingerprint.
pub fn fingerprint(tool: &rmcp::model::Tool) -> String {
    let canonical = json!({
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "inputSchema": Value::Object((*tool.input_schema).clone()),
        "outputSchema": tool.output_schema.as_ref().map(|s| Value::Object((**s).clone())),
        "annotations": tool.annotations,
    });
    let digest = Sha256::digest(canonical.to_string().as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    version: u32,
    /// Origin → tool name → fingerprint.
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

/// Why a tool's definition is not trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Untrusted {
    /// No call of this tool was ever approved.
    New,
    /// A call was approved when its definition was another one.
    Changed,
}

/// The trusted tool definitions of one data dir. Cheap to clone; clones share a lock.
#[derive(Clone, Debug)]
pub(crate) struct TrustStore {
    path: PathBuf,
    write: Arc<Mutex<()>>,
}

impl TrustStore {
    pub fn in_dir(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(TRUST_FILE),
            write: Arc::new(Mutex::new(())),
        }
    }

    fn read(&self) -> Option<TrustFile> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => match serde_json::from_str(&text) {
                Ok(file) => Some(file),
                Err(e) => {
                    tracing::warn!(path = %self.path.display(), error = %e, "MCP trust file unreadable; every tool counts as changed");
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(TrustFile::default()),
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "MCP trust file unreadable; every tool counts as changed");
                None
            }
        }
    }

    fn write_file(&self, file: &TrustFile) {
        if let Err(e) = crate::laws::grants::replace_json(&self.path, file) {
            tracing::warn!(path = %self.path.display(), error = %e, "MCP trust not saved");
        }
    }

    /// The tools of `origin` whose definitions are not trusted: never approved (new), or
    /// approved with another definition (changed). Nothing is trusted by being seen.
    pub fn untrusted(
        &self,
        origin: &str,
        tools: &[(String, String)],
    ) -> BTreeMap<String, Untrusted> {
        let _guard = crate::sync::lock(&self.write);
        let Some(file) = self.read() else {
            return tools
                .iter()
                .map(|(name, _)| (name.clone(), Untrusted::Changed))
                .collect();
        };
        let known = file.servers.get(origin);
        tools
            .iter()
            .filter_map(|(name, fp)| match known.and_then(|k| k.get(name)) {
                Some(trusted) if trusted == fp => None,
                Some(_) => Some((name.clone(), Untrusted::Changed)),
                None => Some((name.clone(), Untrusted::New)),
            })
            .collect()
    }

    /// Records `fingerprint` as the trusted definition of `tool` (the user approved a
    /// call of it).
    pub fn accept(&self, origin: &str, tool: &str, fingerprint: &str) {
        let _guard = crate::sync::lock(&self.write);
        let Some(mut file) = self.read() else {
            return;
        };
        file.version = 1;
        file.servers
            .entry(origin.to_string())
            .or_default()
            .insert(tool.to_string(), fingerprint.to_string());
        self.write_file(&file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, f)| (n.to_string(), f.to_string()))
            .collect()
    }

    #[test]
    fn nothing_is_trusted_until_approved_and_later_changes_are_found_until_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::in_dir(dir.path());
        let first = store.untrusted("srv a", &tools(&[("x", "1"), ("y", "2")]));
        assert_eq!(
            first,
            BTreeMap::from([("x".into(), Untrusted::New), ("y".into(), Untrusted::New)]),
            "seeing a server trusts none of its tools"
        );
        store.accept("srv a", "x", "1");
        store.accept("srv a", "y", "2");
        let again = TrustStore::in_dir(dir.path());
        assert!(
            again
                .untrusted("srv a", &tools(&[("x", "1"), ("y", "2")]))
                .is_empty()
        );
        let later = again.untrusted("srv a", &tools(&[("x", "1"), ("y", "3"), ("z", "4")]));
        assert_eq!(
            later,
            BTreeMap::from([
                ("y".into(), Untrusted::Changed),
                ("z".into(), Untrusted::New)
            ])
        );
        again.accept("srv a", "y", "3");
        let later = again.untrusted("srv a", &tools(&[("x", "1"), ("y", "3"), ("z", "4")]));
        assert_eq!(later, BTreeMap::from([("z".into(), Untrusted::New)]));
        // Another origin is another server: its approvals are its own.
        assert_eq!(
            again.untrusted("srv b", &tools(&[("x", "1")])),
            BTreeMap::from([("x".into(), Untrusted::New)])
        );
    }

    #[test]
    fn an_unreadable_file_trusts_nothing_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::in_dir(dir.path());
        std::fs::write(dir.path().join(TRUST_FILE), "garbage").unwrap();
        let changed = store.untrusted("srv", &tools(&[("x", "1")]));
        assert_eq!(changed, BTreeMap::from([("x".into(), Untrusted::Changed)]));
        store.accept("srv", "x", "1");
        assert_eq!(
            std::fs::read_to_string(dir.path().join(TRUST_FILE)).unwrap(),
            "garbage"
        );
    }

    #[test]
    fn the_fingerprint_follows_the_definition() {
        let schema: serde_json::Map<String, Value> =
            serde_json::from_value(json!({"type": "object"})).unwrap();
        let a = rmcp::model::Tool::new("echo", "Echoes", Arc::new(schema));
        let mut b = a.clone();
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.description = Some("Echoes, and deletes your files".into());
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_eq!(fingerprint(&a).len(), 64);
    }
}
