//! Grants by effect: "always allow deleting `.tmp` files under ~/Downloads". A class of
//! changes to files ([`EffectClass`]: one kind of change, one folder, optionally one
//! extension) that the user approved often enough can be allowed for good; a later
//! request whose every change falls in a granted class runs without asking.
//!
//! The rules, stated once here and enforced by [`class_of`] and [`covers`]:
//! - A class is made only from a request whose every effect is a change to a named
//!   path, all of one kind ([`FileEffect`]); anything else (sending, stopping processes,
//!   system settings, code nobody can see into, targets only known at run time) is never
//!   grantable.
//! - Hard floors no grant passes: a path outside both the home folder and the
//!   workspace; version-control data (`.git`, `.hg`, …); credentials (keys, tokens,
//!   keyrings, `.env` files) and the files that change how the computer or the shell
//!   behaves ([`is_sensitive_path`]); a folder so wide it holds the home folder itself.
//!   The task-level floors (a task that read untrusted content) are the gate's.
//! - Paths are compared as they are on disk: `..` is resolved and the folders that exist
//!   are followed through symlinks, so a link inside a granted folder that points
//!   elsewhere leads out of the grant.
//!
//! **Invariant:** a class covers a set of changes only when each of them, resolved, is of
//! its kind, inside its folder and of its extension, and passes every floor.

use std::path::{Component, Path, PathBuf};

use super::CREDENTIALS;
use super::classify::is_sensitive_path;
use super::classify::text::normalize;
use crate::contracts::{EffectClass, FileEffect, PathEffect};

/// Folders of version-control systems: their content is history, which no grant covers.
const VERSION_CONTROL: &[&str] = &[".git", ".hg", ".svn", ".jj", ".bzr", "_darcs", ".fossil"];

/// Why a set of changes cannot be granted by effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Floor {
    /// There is no change to name.
    Nothing,
    /// The changes are of more than one kind, or of a kind no grant names.
    Kind(String),
    /// A change is outside the home folder and the workspace.
    Outside(PathBuf),
    /// A change touches version-control data.
    History(PathBuf),
    /// A change touches credentials or the files that configure the computer.
    Credentials(PathBuf),
    /// The changes spread over a folder that holds the home folder.
    TooWide(PathBuf),
}

/// The kind of change a dialog's verb names, if a grant can name it.
pub fn file_effect(verb: &str) -> Option<FileEffect> {
    match verb {
        "delete" | "delete the contents of" => Some(FileEffect::Delete),
        "overwrite" => Some(FileEffect::Overwrite),
        "truncate" => Some(FileEffect::Truncate),
        "change permissions" | "change owner" => Some(FileEffect::Permissions),
        "move" => Some(FileEffect::Move),
        _ => None,
    }
}

/// `path` as it is on disk: `..` resolved, and the longest part of it that exists
/// followed through symlinks.
pub fn resolved(path: &Path) -> PathBuf {
    let path = normalize(path);
    let mut existing = path.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return path,
        }
    }
}

/// The extension of a path's file name, lower case, when it has one.
fn extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_lowercase())
}

/// The floor one resolved path breaks, if any.
fn floor_of(path: &Path, home: &Path, workspace: &Path) -> Option<Floor> {
    let home = resolved(home);
    let workspace = resolved(workspace);
    if !(path.starts_with(&home) || path.starts_with(&workspace)) {
        return Some(Floor::Outside(path.to_path_buf()));
    }
    let names: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if names.iter().any(|n| VERSION_CONTROL.contains(&n.as_str())) {
        return Some(Floor::History(path.to_path_buf()));
    }
    let credential = CREDENTIALS.iter().any(|c| path.starts_with(home.join(c)))
        || is_sensitive_path(path, &home)
        || names.last().is_some_and(|name| secret_name(name));
    credential.then(|| Floor::Credentials(path.to_path_buf()))
}

/// File names that hold secrets wherever they are: private keys, `.env` files, key
/// stores.
fn secret_name(name: &str) -> bool {
    let name = name.to_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    name.starts_with(".env")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name.starts_with("id_ecdsa")
        || matches!(
            ext,
            "pem" | "key" | "p12" | "pfx" | "kdbx" | "keychain" | "keychain-db" | "gpg" | "asc"
        )
}

/// The deepest folder that holds every one of `folders`.
fn common_folder(folders: &[PathBuf]) -> Option<PathBuf> {
    let mut common = folders.first()?.clone();
    for f in &folders[1..] {
        while !f.starts_with(&common) {
            if !common.pop() {
                return None;
            }
        }
    }
    Some(common)
}

/// The class a set of changes belongs to: their one kind, the deepest folder holding
/// them all, and their one extension when they share it. `Err` names the floor that
/// rules a grant out.
pub fn class_of(paths: &[PathEffect], home: &Path, workspace: &Path) -> Result<EffectClass, Floor> {
    let first = paths.first().ok_or(Floor::Nothing)?;
    let effect = file_effect(&first.effect).ok_or_else(|| Floor::Kind(first.effect.clone()))?;
    let mut folders = Vec::with_capacity(paths.len());
    let mut extensions = Vec::with_capacity(paths.len());
    for p in paths {
        if file_effect(&p.effect) != Some(effect) {
            return Err(Floor::Kind(p.effect.clone()));
        }
        let path = resolved(&p.path);
        if let Some(floor) = floor_of(&path, home, workspace) {
            return Err(floor);
        }
        folders.push(
            path.parent()
                .map_or_else(|| path.clone(), Path::to_path_buf),
        );
        extensions.push(extension(&path));
    }
    let place = common_folder(&folders).ok_or(Floor::TooWide(PathBuf::from("/")))?;
    let home = resolved(home);
    if home.starts_with(&place) {
        return Err(Floor::TooWide(place));
    }
    if let Some(floor) = floor_of(&place, &home, workspace) {
        return Err(floor);
    }
    let extension = extensions
        .iter()
        .all(|e| e.is_some() && *e == extensions[0])
        .then(|| extensions[0].clone())
        .flatten();
    let words = words(effect, &place, extension.as_deref(), &home);
    Ok(EffectClass {
        effect,
        place,
        extension,
        words,
    })
}

/// Whether `class` covers every one of `paths` (none: no). Each path is resolved and
/// held against the floors again, so a grant never reaches what a floor keeps out.
pub fn covers(class: &EffectClass, paths: &[PathEffect], home: &Path, workspace: &Path) -> bool {
    !paths.is_empty()
        && paths.iter().all(|p| {
            let path = resolved(&p.path);
            file_effect(&p.effect) == Some(class.effect)
                && path.starts_with(&class.place)
                && path != class.place
                && class
                    .extension
                    .as_ref()
                    .is_none_or(|e| extension(&path).as_ref() == Some(e))
                && floor_of(&path, home, workspace).is_none()
        })
}

/// Whether two classes name the same changes (their words aside).
pub fn same_class(a: &EffectClass, b: &EffectClass) -> bool {
    a.effect == b.effect && a.place == b.place && a.extension == b.extension
}

/// A class in plain words: "deleting .tmp files under ~/Downloads".
pub fn words(effect: FileEffect, place: &Path, extension: Option<&str>, home: &Path) -> String {
    let what = match extension {
        Some(e) => format!(".{e} files"),
        None if effect == FileEffect::Delete => "files and folders".to_string(),
        None => "files".to_string(),
    };
    let verb = match effect {
        FileEffect::Delete => "deleting",
        FileEffect::Overwrite => "overwriting",
        FileEffect::Truncate => "emptying",
        FileEffect::Permissions => "changing the permissions of",
        FileEffect::Move => "moving away",
    };
    let place = crate::text::tilde(&place.display().to_string(), home);
    format!("{verb} {what} under {place}")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Dirs {
        _tmp: tempfile::TempDir,
        home: PathBuf,
        workspace: PathBuf,
    }

    fn dirs() -> Dirs {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let home = root.join("home");
        let workspace = root.join("ws");
        for d in ["Downloads/old", "Archive", ".ssh", "project/.git", "notes"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::create_dir_all(&workspace).unwrap();
        Dirs {
            _tmp: tmp,
            home,
            workspace,
        }
    }

    fn effect(path: &Path, verb: &str) -> PathEffect {
        PathEffect {
            path: path.to_path_buf(),
            exists: true,
            effect: verb.into(),
        }
    }

    #[test]
    fn changes_of_one_kind_make_a_class_of_their_folder_and_shared_extension() {
        let d = dirs();
        let paths = [
            effect(&d.home.join("Downloads/a.tmp"), "delete"),
            effect(&d.home.join("Downloads/old/b.TMP"), "delete"),
        ];
        let class = class_of(&paths, &d.home, &d.workspace).unwrap();
        assert_eq!(class.effect, FileEffect::Delete);
        assert_eq!(class.place, d.home.join("Downloads"));
        assert_eq!(class.extension.as_deref(), Some("tmp"));
        assert_eq!(class.words, "deleting .tmp files under ~/Downloads");
        // Two extensions: the class names none.
        let mixed = [
            effect(&d.home.join("Downloads/a.tmp"), "delete"),
            effect(&d.home.join("Downloads/b.log"), "delete"),
        ];
        let class = class_of(&mixed, &d.home, &d.workspace).unwrap();
        assert_eq!(class.extension, None);
        assert_eq!(class.words, "deleting files and folders under ~/Downloads");
    }

    #[test]
    fn the_floors_rule_out_what_no_grant_may_cover() {
        let d = dirs();
        let class = |p: &Path, verb: &str| class_of(&[effect(p, verb)], &d.home, &d.workspace);
        assert!(matches!(
            class(Path::new("/etc/hosts"), "overwrite"),
            Err(Floor::Outside(_))
        ));
        assert!(matches!(
            class(&d.home.join("project/.git/index"), "delete"),
            Err(Floor::History(_))
        ));
        assert!(matches!(
            class(&d.home.join(".ssh/known_hosts"), "overwrite"),
            Err(Floor::Credentials(_))
        ));
        assert!(matches!(
            class(&d.home.join("notes/.env"), "overwrite"),
            Err(Floor::Credentials(_))
        ));
        assert!(matches!(
            class(&d.home.join("notes/server.pem"), "delete"),
            Err(Floor::Credentials(_))
        ));
        // A file right in the home folder would make the home folder the grant's place.
        assert!(matches!(
            class(&d.home.join("a.txt"), "delete"),
            Err(Floor::TooWide(_))
        ));
        assert!(matches!(
            class(&d.home.join("notes/a"), "send"),
            Err(Floor::Kind(_))
        ));
        let two_kinds = [
            effect(&d.home.join("notes/a"), "delete"),
            effect(&d.home.join("notes/b"), "overwrite"),
        ];
        assert!(matches!(
            class_of(&two_kinds, &d.home, &d.workspace),
            Err(Floor::Kind(_))
        ));
        assert_eq!(class_of(&[], &d.home, &d.workspace), Err(Floor::Nothing));
        // Spread over two top folders of the home: too wide.
        let spread = [
            effect(&d.home.join("notes/a"), "delete"),
            effect(&d.home.join("Archive/b"), "delete"),
        ];
        assert!(matches!(
            class_of(&spread, &d.home, &d.workspace),
            Err(Floor::TooWide(_))
        ));
    }

    #[test]
    fn a_class_covers_its_kind_in_its_folder_of_its_extension_and_nothing_else() {
        let d = dirs();
        let class = class_of(
            &[effect(&d.home.join("Downloads/a.tmp"), "delete")],
            &d.home,
            &d.workspace,
        )
        .unwrap();
        let covers_one =
            |p: PathBuf, verb: &str| covers(&class, &[effect(&p, verb)], &d.home, &d.workspace);
        assert!(covers_one(d.home.join("Downloads/x.tmp"), "delete"));
        assert!(covers_one(
            d.home.join("Downloads/old/deep/y.tmp"),
            "delete"
        ));
        assert!(!covers_one(d.home.join("Downloads/x.txt"), "delete"));
        assert!(!covers_one(d.home.join("Downloads/x.tmp"), "overwrite"));
        assert!(!covers_one(d.home.join("Archive/x.tmp"), "delete"));
        assert!(!covers_one(
            d.home.join("Downloads/../Archive/x.tmp"),
            "delete"
        ));
        assert!(!covers(&class, &[], &d.home, &d.workspace));
        // One path outside makes the whole request uncovered.
        let both = [
            effect(&d.home.join("Downloads/x.tmp"), "delete"),
            effect(&d.home.join("notes/x.tmp"), "delete"),
        ];
        assert!(!covers(&class, &both, &d.home, &d.workspace));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_inside_the_granted_folder_leads_out_of_the_grant() {
        let d = dirs();
        std::os::unix::fs::symlink(d.home.join(".ssh"), d.home.join("Downloads/keys")).unwrap();
        std::os::unix::fs::symlink(d.home.join("Archive"), d.home.join("Downloads/arch")).unwrap();
        let class = class_of(
            &[effect(&d.home.join("Downloads/a"), "delete")],
            &d.home,
            &d.workspace,
        )
        .unwrap();
        let through = |p: &str| {
            covers(
                &class,
                &[effect(&d.home.join(p), "delete")],
                &d.home,
                &d.workspace,
            )
        };
        assert!(!through("Downloads/keys/id_rsa"));
        assert!(!through("Downloads/arch/report.pdf"));
        assert!(through("Downloads/report.pdf"));
        assert!(matches!(
            class_of(
                &[effect(&d.home.join("Downloads/keys/config"), "delete")],
                &d.home,
                &d.workspace
            ),
            Err(Floor::Credentials(_))
        ));
    }

    #[test]
    fn every_verb_a_dialog_shows_for_a_file_change_has_its_kind() {
        assert_eq!(file_effect("delete"), Some(FileEffect::Delete));
        assert_eq!(
            file_effect("delete the contents of"),
            Some(FileEffect::Delete)
        );
        assert_eq!(file_effect("overwrite"), Some(FileEffect::Overwrite));
        assert_eq!(file_effect("truncate"), Some(FileEffect::Truncate));
        assert_eq!(file_effect("change owner"), Some(FileEffect::Permissions));
        assert_eq!(file_effect("move"), Some(FileEffect::Move));
        assert_eq!(file_effect("send"), None);
        assert_eq!(file_effect("create (outside the workspace)"), None);
    }
}
