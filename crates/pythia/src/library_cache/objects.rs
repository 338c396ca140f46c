//! The library cache's objects that are not cursors: compiled stored PL/SQL units, in the
//! namespaces Oracle keeps them in (TABLE/PROCEDURE for procedures, functions and package
//! specifications, BODY for package bodies), found by name.
//!
//! An object is what its unit's compilation made, kept with the dictionary version of the
//! unit it was compiled from (a package's: its specification and body): a lookup whose unit the dictionary has since replaced, marked
//! INVALID or dropped finds nothing current, and the caller compiles again (counted as a
//! reload when the object had been loaded before). The object is shared by every session;
//! a session holds an `Arc` to it while it runs it (its pin), so a replacement never pulls
//! a unit from under a running call. Each lookup is a get in its namespace, a hit when the
//! object was current; each run a pin.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::cursor::Namespace;
use super::LibraryCache;

pub type Shared = Arc<dyn Any + Send + Sync>;

/// A compiled unit in the library cache.
pub struct CachedObject {
    pub namespace: Namespace,
    pub owner: String,
    pub name: String,
    /// `dba_objects.object_type` of the unit (PROCEDURE, FUNCTION, PACKAGE, PACKAGE BODY).
    pub object_type: &'static str,
    /// The dictionary's definition it was compiled from.
    pub definition: Shared,
    /// The compiled unit.
    pub unit: Shared,
    /// Bytes its compilation allocated (v$db_object_cache.sharable_mem).
    pub sharable_bytes: u64,
    /// Times it was loaded (compiled) into the cache.
    pub loads: u64,
    pub executions: AtomicU64,
}

/// The objects, by namespace, owner and name, and the names DBMS_SHARED_POOL.KEEP kept.
#[derive(Default)]
pub(super) struct Objects {
    entries: BTreeMap<(usize, String, String), Arc<CachedObject>>,
    /// (owner, name) of the units kept: a mark on the name, so that a unit compiled again
    /// (replaced, reloaded) stays kept, as Oracle keeps the object's handle.
    kept: BTreeSet<(String, String)>,
}

impl LibraryCache {
    /// The object `owner.name` in `namespace` when it was compiled from the dictionary's
    /// current definition (`is_current` says, of the definition it was compiled from): a
    /// get, and a hit when found.
    pub fn object(
        &self,
        namespace: Namespace,
        owner: &str,
        name: &str,
        is_current: &dyn Fn(&Shared) -> bool,
    ) -> Option<Arc<CachedObject>> {
        let counters = self.namespace(namespace);
        counters.gets.add(1);
        let objects = self.objects.lock();
        let object =
            objects
                .entries
                .get(&(namespace.index(), owner.to_string(), name.to_string()))?;
        if !is_current(&object.definition) {
            return None;
        }
        counters.gethits.add(1);
        Some(object.clone())
    }

    /// Keeps a unit compiled from `definition`, replacing what was kept under the name; a
    /// replacement of a unit loaded before is a reload.
    #[allow(clippy::too_many_arguments)]
    pub fn put_object(
        &self,
        namespace: Namespace,
        owner: &str,
        name: &str,
        object_type: &'static str,
        definition: Shared,
        unit: Shared,
        sharable_bytes: u64,
    ) -> Arc<CachedObject> {
        let counters = self.namespace(namespace);
        let mut objects = self.objects.lock();
        let key = (namespace.index(), owner.to_string(), name.to_string());
        let loads = match objects.entries.get(&key) {
            Some(before) => {
                counters.reloads.fetch_add(1, Ordering::Relaxed);
                before.loads + 1
            }
            None => 1,
        };
        let object = Arc::new(CachedObject {
            namespace,
            owner: owner.to_string(),
            name: name.to_string(),
            object_type,
            definition,
            unit,
            sharable_bytes,
            loads,
            executions: AtomicU64::new(0),
        });
        objects.entries.insert(key, object.clone());
        object
    }

    /// A run of a kept object: a pin in its namespace and an execution.
    pub fn pin_object(&self, object: &CachedObject) {
        let counters = self.namespace(object.namespace);
        counters.pins.add(1);
        counters.pinhits.add(1);
        object.executions.fetch_add(1, Ordering::Relaxed);
    }

    /// Every kept object (v$db_object_cache).
    pub fn cached_objects(&self) -> Vec<Arc<CachedObject>> {
        self.objects.lock().entries.values().cloned().collect()
    }

    /// DBMS_SHARED_POOL.KEEP (`keep`) or UNKEEP of the unit `owner.name`, in every namespace
    /// (a package's specification and body alike).
    pub fn keep_object(&self, owner: &str, name: &str, keep: bool) {
        let key = (owner.to_string(), name.to_string());
        let mut objects = self.objects.lock();
        if keep {
            objects.kept.insert(key);
        } else {
            objects.kept.remove(&key);
        }
    }

    /// Whether `owner.name` is kept (v$db_object_cache.kept).
    pub fn is_object_kept(&self, owner: &str, name: &str) -> bool {
        self.objects
            .lock()
            .kept
            .contains(&(owner.to_string(), name.to_string()))
    }

    /// DBMS_SHARED_POOL.PURGE of a unit: its compiled objects leave the cache (the next
    /// call loads them again, a reload), unless it is kept.
    pub fn purge_object(&self, owner: &str, name: &str) {
        if self.is_object_kept(owner, name) {
            return;
        }
        for namespace in [Namespace::TableProcedure, Namespace::Body] {
            self.drop_object(namespace, owner, name);
        }
    }

    /// Forgets the object `owner.name` (its unit dropped): an invalidation in its namespace.
    pub fn drop_object(&self, namespace: Namespace, owner: &str, name: &str) {
        let removed = self.objects.lock().entries.remove(&(
            namespace.index(),
            owner.to_string(),
            name.to_string(),
        ));
        if removed.is_some() {
            self.namespace(namespace)
                .invalidations
                .fetch_add(1, Ordering::Relaxed);
        }
    }
}
