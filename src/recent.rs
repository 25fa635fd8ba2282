//! [`Recent`]: the last ids seen, bounded. Several parts of the runtime remember ended or
//! cancelled tasks for a while after the fact (so a late message about one is answered
//! correctly) without growing with every task a long-running process ever ran.

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// A set that keeps the last `capacity` distinct ids inserted and forgets the oldest.
pub(crate) struct Recent<T> {
    ids: HashSet<T>,
    order: VecDeque<T>,
    capacity: usize,
}

impl<T: Eq + Hash + Clone> Recent<T> {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            ids: HashSet::new(),
            order: VecDeque::new(),
            capacity,
        }
    }

    pub(crate) fn contains(&self, id: &T) -> bool {
        self.ids.contains(id)
    }

    /// Adds `id`, handing each id forgotten to make room to `forget` (so the caller can
    /// drop what it keeps for it). Returns false, and changes nothing, if `id` is known.
    pub(crate) fn insert(&mut self, id: T, mut forget: impl FnMut(T)) -> bool {
        if !self.ids.insert(id.clone()) {
            return false;
        }
        self.order.push_back(id);
        while self.order.len() > self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
                forget(old);
            }
        }
        true
    }

    /// How many ids are kept (at most the capacity).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        debug_assert_eq!(self.ids.len(), self.order.len());
        self.order.len()
    }

    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_ids_and_hands_over_the_ones_it_forgets() {
        let mut recent = Recent::new(3);
        let mut forgotten = Vec::new();
        for id in [1, 2, 3, 4, 5] {
            assert!(recent.insert(id, |old| forgotten.push(old)));
        }
        assert_eq!(forgotten, [1, 2]);
        assert!(!recent.insert(4, |old| forgotten.push(old)), "known id");
        assert_eq!(forgotten, [1, 2]);
        assert!(!recent.contains(&2));
        assert!([3, 4, 5].iter().all(|id| recent.contains(id)));
    }
}
