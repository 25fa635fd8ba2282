//! The core's modules are layered: no module reaches, directly or through others, a
//! module that reaches it. Checked on the source itself, among the children of every
//! module (the top-level modules of the crate included), so a new import that closes a
//! loop fails here with the loop spelled out.
//!
//! A child uses another child when any file under it names a path into the other
//! (`crate::…`, `super::…`, `self::…`) outside comments, string literals and its
//! `#[cfg(test)]` part; test files are left out, since tests may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines: `roles/planner/mod.rs` is `roles::planner`.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).expect("a file under src");
    let mut parts: Module = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// `text` with comments and the contents of string and character literals blanked, so
/// only code is left to read paths from.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(len) = raw_string_len(rest, i == 0 || !is_ident(b[i - 1])) {
            out.push_str("\"\"");
            i += len;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = (j + 1).min(b.len());
        } else if let Some(len) = char_literal_len(rest) {
            out.push_str("''");
            i += len;
        } else {
            let ch = rest.chars().next().expect("not at the end");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The length of a raw (byte) string literal starting `rest`, if one does.
fn raw_string_len(rest: &str, at_token_start: bool) -> Option<usize> {
    if !at_token_start {
        return None;
    }
    let after_prefix = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = after_prefix.len() - after_prefix.trim_start_matches('#').len();
    let body = after_prefix[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let end = body.find(&close)? + close.len();
    Some(rest.len() - body.len() + end)
}

/// The length of a character literal starting `rest` (`'a'`, `'\n'`), not a lifetime.
fn char_literal_len(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices();
    if chars.next()?.1 != '\'' {
        return None;
    }
    let (_, first) = chars.next()?;
    if first == '\\' {
        // An escape runs to the next quote: '\n', '\'', '\u{1F600}'.
        let close = rest[2..].find('\'')? + 2;
        let close = if close == 2 {
            rest[3..].find('\'')? + 3
        } else {
            close
        };
        return Some(close + 1);
    }
    let (at, closing) = chars.next()?;
    (closing == '\'').then_some(at + 1)
}

/// The paths a module's code names, resolved against the modules that exist: the
/// longest prefix of each path that is a module.
fn uses(me: &Module, code: &str, modules: &BTreeSet<Module>) -> BTreeSet<Module> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    for head in ["crate", "super", "self"] {
        let mut from = 0;
        while let Some(at) = code[from..].find(head).map(|a| a + from) {
            from = at + head.len();
            let starts_token = at == 0 || !is_ident(bytes[at - 1]);
            if !starts_token || !code[from..].starts_with("::") {
                continue;
            }
            let path: Vec<&str> = code[from..]
                .split(|c: char| !(is_ident(c as u8) || c == ':'))
                .next()
                .unwrap_or_default()
                .split("::")
                .filter(|s| !s.is_empty())
                .collect();
            let mut base: Module = match head {
                "crate" => Vec::new(),
                "self" => me.clone(),
                _ => me[..me.len().saturating_sub(1)].to_vec(),
            };
            let mut rest = path.as_slice();
            while let Some(("super", tail)) = rest.split_first().map(|(h, t)| (*h, t)) {
                base.pop();
                rest = tail;
            }
            base.extend(rest.iter().map(|s| s.to_string()));
            while !base.is_empty() && !modules.contains(&base) {
                base.pop();
            }
            if !base.is_empty() && &base != me {
                found.insert(base);
            }
        }
    }
    found
}

/// The first loop among `edges`, as the modules it passes through.
fn find_loop(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

/// For every module, which of its children use which others.
fn sibling_edges(src: &Path) -> BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(src, f)).collect();
    let mut graph: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let me = module_of(src, file);
        if me.iter().any(|m| m == "tests") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        let mut code = code_only(&text);
        if let Some(cut) = code.find("#[cfg(test)]") {
            code.truncate(cut);
        }
        for target in uses(&me, &code, &modules) {
            let common = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            let (Some(from), Some(to)) = (me.get(common), target.get(common)) else {
                continue; // one contains the other
            };
            graph
                .entry(me[..common].to_vec())
                .or_default()
                .entry(from.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    graph
}

#[test]
fn no_module_reaches_back_into_a_module_that_uses_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = sibling_edges(&src);
    // The check sees the layering it guards: the crate's top level has edges at all.
    let top = graph
        .get(&Vec::new())
        .expect("the crate's modules use each other");
    assert!(top["roles"].contains("contracts"), "{top:?}");
    let loops: Vec<String> = graph
        .iter()
        .filter_map(|(parent, edges)| {
            find_loop(edges).map(|cycle| {
                let at = if parent.is_empty() {
                    "crate".to_string()
                } else {
                    parent.join("::")
                };
                format!("in {at}: {}", cycle.join(" → "))
            })
        })
        .collect();
    assert!(loops.is_empty(), "module loops:\n{}", loops.join("\n"));
}

#[test]
fn the_reader_skips_comments_literals_and_lifetimes() {
    let code = code_only(
        "use crate::a; // crate::b\n/* crate::c */ let s = \"crate::d\"; \
         let r = r#\"crate::e\"#; fn f<'x>(c: char) -> bool { c == '\"' || c == '\\'' } \
         use super::g;",
    );
    assert!(code.contains("crate::a"));
    for hidden in ["crate::b", "crate::c", "crate::d", "crate::e"] {
        assert!(!code.contains(hidden), "{hidden} in {code}");
    }
    assert!(code.contains("<'x>"), "{code}");
    assert!(code.contains("super::g"), "{code}");
    let modules: BTreeSet<Module> = [vec!["a".to_string()], vec!["p".into(), "g".into()]]
        .into_iter()
        .collect();
    let me = vec!["p".to_string(), "h".to_string()];
    let found = uses(&me, &code, &modules);
    assert_eq!(
        found,
        [vec!["a".to_string()], vec!["p".into(), "g".into()]]
            .into_iter()
            .collect()
    );
    let mut looped: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    looped.entry("x".into()).or_default().insert("y".into());
    looped.entry("y".into()).or_default().insert("x".into());
    assert_eq!(
        find_loop(&looped),
        Some(vec!["x".to_string(), "y".into(), "x".into()])
    );
    looped.remove("y");
    assert_eq!(find_loop(&looped), None);
}
