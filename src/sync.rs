//! Locks that survive a panic elsewhere. Every critical section in artoo leaves its data
//! consistent at each statement (a push, a pop, an insert), so a lock a panicking thread
//! poisoned still guards valid data: the guard is taken back instead of spreading the
//! panic to every later user.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `m`, recovering the guard if it was poisoned.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Read-locks `l`, recovering the guard if it was poisoned.
pub fn read<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

/// Write-locks `l`, recovering the guard if it was poisoned.
pub fn write<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_poisoned_lock_still_hands_out_its_data() {
        let m = Arc::new(Mutex::new(vec![1]));
        let l = Arc::new(RwLock::new(7));
        let (m2, l2) = (Arc::clone(&m), Arc::clone(&l));
        let panicked = std::thread::spawn(move || {
            let _m = m2.lock();
            let _l = l2.write();
            panic!("poison both");
        })
        .join();
        assert!(panicked.is_err());
        assert!(m.is_poisoned() && l.is_poisoned());
        lock(&m).push(2);
        assert_eq!(*lock(&m), vec![1, 2]);
        *write(&l) += 1;
        assert_eq!(*read(&l), 8);
    }
}
