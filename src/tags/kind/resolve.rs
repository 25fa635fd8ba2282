//! Resolution: from what a reading named to the slug — the one action, what it acts
//! on and which ones, spelled with English or Chinese labels.
//!
//! **Invariant:** the slug is the action's label followed by the other labels sorted
//! and deduplicated, joined by `_`; it is never empty (the action defaults to `find`).

use super::Seen;
use super::read::Reading;
use super::{Class, class_of, concept, in_set, lx};

/// At most this many unknown words stand for what a task acts on.
const MAX_UNKNOWN_WORDS: usize = 2;

fn retain(list: &mut Vec<&'static str>, keep: impl Fn(&str) -> bool) {
    list.retain(|c| keep(c));
}

fn has(list: &[&str], id: &str) -> bool {
    list.contains(&id)
}

/// Objects that stand for whatever named them ("the Safari app").
fn class_object(o: &str) -> bool {
    in_set(lx::CLASS_OBJECTS, o)
}

fn label(id: &str, chinese: bool) -> String {
    concept(id).map_or_else(
        || id.to_string(),
        |c| if chinese { c.zh } else { c.en }.to_string(),
    )
}

/// What a reading named, sorted by what it contributes.
struct Sorted<'r> {
    actions: Vec<&'static str>,
    /// Objects named outside location phrases.
    strong: Vec<&'static str>,
    /// Objects named inside location phrases.
    weak: Vec<&'static str>,
    qualifiers: Vec<&'static str>,
    /// Unknown words outside location phrases.
    unknowns: Vec<&'r str>,
}

pub(super) fn resolve(r: &Reading, chinese: bool) -> String {
    let mut sorted = Sorted::of(r);
    let mut action = sorted.action(r);
    let real = sorted.acted_on(&mut action);
    sorted.spell(action, &real, chinese)
}

impl<'r> Sorted<'r> {
    fn of(r: &'r Reading) -> Self {
        let concepts: Vec<(&'static str, bool)> = r
            .named
            .iter()
            .filter_map(|n| match n.seen {
                Seen::Concept(c) => Some((c, n.weak)),
                _ => None,
            })
            .collect();
        let of_class = |class: Class, weak: Option<bool>| -> Vec<&'static str> {
            concepts
                .iter()
                .filter(|(c, w)| class_of(c) == Some(class) && weak.is_none_or(|x| x == *w))
                .map(|(c, _)| *c)
                .collect()
        };
        let unknowns: Vec<&str> = r
            .named
            .iter()
            .filter(|n| !n.weak)
            .filter_map(|n| match &n.seen {
                Seen::Unknown(w) => Some(w.as_str()),
                _ => None,
            })
            .collect();
        Sorted {
            actions: of_class(Class::Action, None),
            strong: of_class(Class::Object, Some(false)),
            weak: of_class(Class::Object, Some(true)),
            qualifiers: of_class(Class::Qualifier, None),
            unknowns,
        }
    }

    /// The one action: acts that read as one are combined first, then the most
    /// specific action named wins.
    fn action(&mut self, r: &Reading) -> &'static str {
        let objects: Vec<&str> = self
            .strong
            .iter()
            .chain(self.weak.iter())
            .copied()
            .collect();
        let actions = &mut self.actions;
        if r.named.iter().any(|n| n.seen == Seen::ConvertHint)
            && actions
                .iter()
                .all(|a| ["edit", "write", "find", "organize"].contains(a))
        {
            actions.push("convert");
        }
        if r.had_url && (has(actions, "write") || r.fetch) {
            actions.push("download");
        }
        if has(actions, "write") && has(&objects, "archive") {
            actions.push("compress");
        }
        if (has(actions, "organize") || has(actions, "move"))
            && objects
                .iter()
                .any(|o| in_set(lx::DISPOSABLE, o) || *o == "trash")
        {
            actions.push("delete");
        }
        if has(actions, "compress") || has(actions, "extract") {
            retain(&mut self.strong, |o| o != "archive");
            retain(&mut self.weak, |o| o != "archive");
        }
        let action = lx::ACTIONS
            .iter()
            .copied()
            .find(|a| has(&self.actions, a))
            .unwrap_or("find");
        if (action == "find" || action == "open")
            && r.had_file
            && self.strong.iter().all(|o| class_object(o))
        {
            return "read";
        }
        action
    }

    /// The objects the action acts on; may refine the action and drop qualifiers that
    /// add nothing to those objects.
    fn acted_on(&mut self, action: &mut &'static str) -> Vec<&'static str> {
        let (strong, weak) = (&self.strong, &self.weak);
        let qualifiers = &mut self.qualifiers;
        let mut real: Vec<&'static str> = strong
            .iter()
            .copied()
            .filter(|o| !class_object(o) && *o != "web")
            .collect();
        if *action == "capture" {
            retain(&mut real, |o| o != "image");
        }
        if *action == "delete"
            && real
                .iter()
                .chain(weak.iter())
                .any(|o| in_set(lx::DISPOSABLE, o))
        {
            retain(&mut real, |o| o != "trash");
        }
        if real.is_empty() {
            real = weak
                .iter()
                .copied()
                .filter(|o| !in_set(lx::CONTAINERS, o) && !class_object(o))
                .collect();
        }
        if real.is_empty() && *action == "delete" {
            real = weak.iter().copied().filter(|o| *o == "trash").collect();
        }
        if real.iter().any(|o| in_set(lx::CURRENT, o)) {
            retain(qualifiers, |q| q != "newest");
        }
        if real.iter().any(|o| in_set(lx::RESOURCES, o)) {
            retain(&mut real, |o| o != "size");
        }
        if has(&real, "battery") {
            retain(qualifiers, |q| q != "free");
        }
        if has(&real, "package") {
            retain(&mut real, |o| o != "code");
            if ["write", "edit", "find"].contains(action) {
                *action = "install";
            }
        }
        if has(&real, "network") || *action == "download" || *action == "open" {
            retain(&mut real, |o| o != "web");
        }
        real
    }

    /// The slug: the action's label, then the other labels sorted.
    fn spell(&self, action: &str, real: &[&'static str], chinese: bool) -> String {
        let label = |id: &str| label(id, chinese);
        let mut parts: Vec<String> = Vec::new();
        for c in real.iter().chain(self.qualifiers.iter()) {
            parts.push(label(c));
        }
        if real.is_empty() {
            parts.extend(
                self.unknowns
                    .iter()
                    .take(MAX_UNKNOWN_WORDS)
                    .map(|w| (*w).to_string()),
            );
            if self.unknowns.is_empty() {
                parts.extend(
                    self.strong
                        .iter()
                        .filter(|o| class_object(o))
                        .map(|o| label(o)),
                );
            }
        }
        if parts.is_empty() && has(&self.strong, "web") && action != "open" && action != "download"
        {
            parts.push(label(if action == "find" { "network" } else { "web" }));
        }
        parts.sort();
        parts.dedup();
        let mut slug = label(action);
        for p in parts {
            slug.push('_');
            slug.push_str(&p);
        }
        slug
    }
}
