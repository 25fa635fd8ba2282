//! The places on this computer a request names, resolved the way a person means them:
//! `~/x` and absolute paths, "my home folder", and the name of a folder in the home
//! ("the notes folder", "Downloads", "下载"). The planner shows them to the model with
//! their real absolute paths, and the executor uses the first folder as the sub-task's
//! working folder, so no role has to guess what `~` is or invent `/home/user`.
//!
//! **Invariant:** only paths that exist are offered as places, except a path the user
//! wrote out, which is reported with whether it exists; nothing here writes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::resolve_user_path;

/// Places listed at most, so a long text cannot flood a prompt.
pub const MAX_PLACES: usize = 6;
/// Home entries examined when matching folder names.
const MAX_HOME_ENTRIES: usize = 500;

/// One place a text mentions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The words that named it.
    pub said: String,
    pub path: PathBuf,
    pub kind: PlaceKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceKind {
    Folder,
    File,
    Missing,
}

impl Place {
    /// `- notes → /home/u/notes (folder)`.
    pub fn line(&self) -> String {
        let kind = match self.kind {
            PlaceKind::Folder => "folder",
            PlaceKind::File => "file",
            PlaceKind::Missing => "does not exist",
        };
        format!("- {} → {} ({kind})", self.said, self.path.display())
    }
}

/// Common folder names in other languages and the English folder they mean.
const FOLDER_WORDS: &[(&str, &str)] = &[
    ("下载", "Downloads"),
    ("文档", "Documents"),
    ("桌面", "Desktop"),
    ("图片", "Pictures"),
    ("照片", "Pictures"),
    ("音乐", "Music"),
    ("视频", "Videos"),
    ("影片", "Movies"),
];

/// Phrases that mean the home folder itself.
const HOME_WORDS: &[&str] = &[
    "home folder",
    "home directory",
    "home dir",
    "my home",
    "主目录",
    "家目录",
    "用户目录",
];

fn kind_of(path: &Path) -> PlaceKind {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => PlaceKind::Folder,
        Ok(_) => PlaceKind::File,
        Err(_) => PlaceKind::Missing,
    }
}

/// Tokens that look like paths the user wrote: `~`, `~/…`, `$HOME/…`, `/…`.
pub(crate) fn written_paths(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ',' | '(' | ')'))
        .map(|t| t.trim_end_matches(['.', '?', '!', ':', ';', '，', '。', '？']))
        .filter(|t| {
            *t == "~" || t.starts_with("~/") || t.starts_with("$HOME/") || {
                t.starts_with('/') && t.len() > 1 && !t.starts_with("//")
            }
        })
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// Whether `name` occurs in `lower` as a whole word (case already folded).
fn has_word(lower: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    lower.match_indices(name).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + name.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(|c| is_word_char(c) && c != '.')
    })
}

/// The places `text` names, in the order found: written paths first, then the home,
/// then folders of the home named by their name.
pub fn places_in(text: &str, home: &Path, workspace: &Path) -> Vec<Place> {
    let mut out: Vec<Place> = Vec::new();
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut push = |said: &str, path: PathBuf, out: &mut Vec<Place>| {
        if out.len() < MAX_PLACES && seen.insert(path.clone()) {
            let kind = kind_of(&path);
            out.push(Place {
                said: said.to_string(),
                path,
                kind,
            });
        }
    };
    let written = written_paths(text);
    for token in &written {
        push(token, resolve_user_path(token, home, workspace), &mut out);
    }
    let lower = text.to_lowercase();
    // A folder's name inside a path the user wrote is that path's part, not a second
    // place: in "~/projects" the user named ~/projects, not a ~/Projects beside it.
    let mut outside_paths = lower.clone();
    for token in &written {
        outside_paths = outside_paths.replace(&token.to_lowercase(), " ");
    }
    if let Some(word) = HOME_WORDS.iter().find(|w| lower.contains(*w)) {
        push(word, home.to_path_buf(), &mut out);
    }
    if has_word(&lower, "workspace") {
        push("workspace", workspace.to_path_buf(), &mut out);
    }
    for (word, folder) in FOLDER_WORDS {
        if text.contains(word) {
            let path = home.join(folder);
            if path.is_dir() {
                push(word, path, &mut out);
            }
        }
    }
    if let Ok(entries) = std::fs::read_dir(home) {
        let mut names: Vec<(String, PathBuf)> = entries
            .take(MAX_HOME_ENTRIES)
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                (!name.starts_with('.')).then(|| (name, e.path()))
            })
            .collect();
        names.sort();
        for (name, path) in names {
            if has_word(&outside_paths, &name.to_lowercase()) {
                push(&name, path, &mut out);
            }
        }
    }
    out
}

/// The places as prompt lines, or `None` when there are none.
pub fn render(places: &[Place]) -> Option<String> {
    (!places.is_empty()).then(|| {
        places
            .iter()
            .map(Place::line)
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The working folder a text points at: the first folder it names, or the folder of the
/// first file it names.
pub fn working_folder(places: &[Place]) -> Option<PathBuf> {
    places.iter().find_map(|p| match p.kind {
        PlaceKind::Folder => Some(p.path.clone()),
        PlaceKind::File => p.path.parent().map(Path::to_path_buf),
        PlaceKind::Missing => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        for d in ["notes", "Downloads", "Documents", ".ssh", "projects"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join("notes/a.txt"), "a").unwrap();
        let ws = home.join("artoo_workspace");
        std::fs::create_dir_all(&ws).unwrap();
        (dir, home, ws)
    }

    #[test]
    fn folders_of_the_home_are_found_by_their_name_in_any_case() {
        let (_d, home, ws) = world();
        let got = places_in(
            "how many .txt files are in the notes folder in my home directory?",
            &home,
            &ws,
        );
        let paths: Vec<_> = got.iter().map(|p| p.path.clone()).collect();
        assert!(paths.contains(&home.join("notes")), "{got:?}");
        assert!(paths.contains(&home), "{got:?}");
        let got = places_in("list my downloads", &home, &ws);
        assert_eq!(got[0].path, home.join("Downloads"));
        assert_eq!(got[0].kind, PlaceKind::Folder);
    }

    #[test]
    fn written_paths_are_resolved_and_say_whether_they_exist() {
        let (_d, home, ws) = world();
        let got = places_in("read ~/notes/a.txt and ~/notes/friday.txt.", &home, &ws);
        assert_eq!(got[0].path, home.join("notes/a.txt"));
        assert_eq!(got[0].kind, PlaceKind::File);
        assert_eq!(got[1].path, home.join("notes/friday.txt"));
        assert_eq!(got[1].kind, PlaceKind::Missing);
        assert!(
            got[1].line().ends_with("(does not exist)"),
            "{}",
            got[1].line()
        );
        assert_eq!(working_folder(&got), Some(home.join("notes")));
    }

    #[test]
    fn a_folder_named_inside_a_written_path_is_that_path_only() {
        let (_d, home, ws) = world();
        std::fs::create_dir_all(home.join("Projects")).unwrap();
        let got = places_in("Which folder in ~/projects has the most files?", &home, &ws);
        let paths: Vec<_> = got.iter().map(|p| p.path.clone()).collect();
        assert_eq!(paths, vec![home.join("projects")], "{got:?}");
        // Named by its word outside a path, a folder is found in any case.
        let got = places_in("my Projects", &home, &ws);
        assert!(
            got.iter().any(|p| p.path == home.join("Projects")),
            "{got:?}"
        );
    }

    #[test]
    fn words_inside_other_words_and_hidden_folders_are_not_places() {
        let (_d, home, ws) = world();
        assert!(places_in("keynotes and subprojects", &home, &ws).is_empty());
        assert!(places_in("what is in ssh", &home, &ws).is_empty());
        assert!(places_in("what is 2 + 2?", &home, &ws).is_empty());
    }

    #[test]
    fn chinese_folder_words_mean_the_english_folders() {
        let (_d, home, ws) = world();
        let got = places_in("统计下载文件夹里的文件", &home, &ws);
        assert_eq!(got[0].path, home.join("Downloads"), "{got:?}");
    }

    #[test]
    fn places_are_bounded() {
        let (_d, home, ws) = world();
        let text = (0..20)
            .map(|i| format!("/tmp/x{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(places_in(&text, &home, &ws).len(), MAX_PLACES);
    }
}
