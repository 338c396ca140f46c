//! Associative arrays as a run holds them: each collection a unit declares is a sorted map
//! from key to element beside the frame (sparse, as Oracle's are: keys need not be
//! consecutive, and FIRST / NEXT walk them in order), its elements converted by the
//! element type's rules on assignment. What the elements take is charged to the session's
//! PL/SQL memory, bounded by [`SESSION_PLSQL_MEMORY_MAX`]: beyond it an assignment is
//! ORA-04030 and the collection is left as it was.

use std::collections::BTreeMap;

use super::convert;
use crate::error::{Error, Result};
use crate::plsql::ast::CollectionKeyType;
use crate::plsql::code::{CollectionDef, Slot, SlotKind};
use crate::plsql::errors::value_error;
use crate::sql::eval::CollectionMethod;
use crate::types::{DataType, Value};

/// The most bytes a session's running PL/SQL holds in collections (Oracle's PGA for
/// PL/SQL tables, which `pga_aggregate_limit` bounds there): 256 MiB.
pub const SESSION_PLSQL_MEMORY_MAX: u64 = 256 << 20;

/// A key of an associative array: integer keys order as numbers, text keys as bytes
/// (NLS_SORT BINARY). One collection holds keys of one kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Integer(i32),
    Text(String),
}

impl Key {
    fn value(&self) -> Value {
        match self {
            Key::Integer(key) => Value::integer(*key as i64),
            Key::Text(key) => Value::Text(key.clone()),
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Key::Integer(_) => 4,
            Key::Text(key) => key.len() as u64,
        }
    }
}

/// One collection's elements, and the bytes they are charged.
#[derive(Debug, Default, Clone)]
pub struct Collection {
    elements: BTreeMap<Key, Value>,
    bytes: u64,
}

/// What an element takes: the value as held, its text, and its key.
fn element_bytes(key: &Key, value: &Value) -> u64 {
    let text = match value {
        Value::Text(text) => text.len() as u64,
        _ => 0,
    };
    std::mem::size_of::<(Key, Value)>() as u64 + key.bytes() + text
}

/// `value` as a key of a collection indexed by `key_type`: a number rounds to a
/// PLS_INTEGER (ORA-01426 outside its range), text is at most the key's length; NULL is
/// no key (ORA-06502).
pub fn key_of(value: Value, key_type: CollectionKeyType) -> Result<Key> {
    if value.is_null() {
        return Err(value_error("NULL index table key value"));
    }
    let slot = |kind| Slot {
        name: String::new(),
        kind,
        not_null: true,
    };
    match key_type {
        CollectionKeyType::Integer => {
            let value = convert::assign(value, &slot(SlotKind::PlsInteger))?;
            Ok(Key::Integer(convert::pls_integer(&value)? as i32))
        }
        CollectionKeyType::Text(length) => {
            let text_type = DataType::Varchar2 { length };
            match convert::assign(value, &slot(SlotKind::Sql(text_type)))? {
                Value::Text(text) => Ok(Key::Text(text)),
                _ => Err(value_error("")),
            }
        }
    }
}

impl Collection {
    /// `collection(key) := value`, the session's PL/SQL memory charged in `used`.
    pub fn set(
        &mut self,
        definition: &CollectionDef,
        key: Value,
        value: Value,
        used: &mut u64,
    ) -> Result<()> {
        let key = key_of(key, definition.key)?;
        let value = convert::assign(value, &definition.element)?;
        let added = element_bytes(&key, &value);
        let freed = self
            .elements
            .get(&key)
            .map_or(0, |old| element_bytes(&key, old));
        let after = (*used - freed).saturating_add(added);
        if after > SESSION_PLSQL_MEMORY_MAX {
            return Err(Error::new(
                4030,
                format!(
                    "out of process memory when trying to allocate {added} bytes (PL/SQL collection, session limit {SESSION_PLSQL_MEMORY_MAX} bytes)"
                ),
            ));
        }
        *used = after;
        self.bytes = self.bytes - freed + added;
        self.elements.insert(key, value);
        Ok(())
    }

    /// `DELETE` (no keys), `DELETE(key)`, `DELETE(low, high)`: a NULL key deletes nothing.
    pub fn delete(
        &mut self,
        definition: &CollectionDef,
        keys: Vec<Value>,
        used: &mut u64,
    ) -> Result<()> {
        let mut keys = keys.into_iter();
        let (low, high) = match (keys.next(), keys.next()) {
            (None, _) => {
                *used -= self.bytes;
                self.bytes = 0;
                self.elements.clear();
                return Ok(());
            }
            (Some(key), None) => (key.clone(), key),
            (Some(low), Some(high)) => (low, high),
        };
        if low.is_null() || high.is_null() {
            return Ok(());
        }
        let (low, high) = (key_of(low, definition.key)?, key_of(high, definition.key)?);
        if low > high {
            return Ok(());
        }
        let doomed: Vec<Key> = self
            .elements
            .range(low..=high)
            .map(|(key, _)| key.clone())
            .collect();
        for key in doomed {
            if let Some(value) = self.elements.remove(&key) {
                let bytes = element_bytes(&key, &value);
                self.bytes -= bytes;
                *used -= bytes;
            }
        }
        Ok(())
    }

    /// A copy for `to := from`, charged again.
    pub fn copy(&self, used: &mut u64) -> Result<Collection> {
        let after = used.saturating_add(self.bytes);
        if after > SESSION_PLSQL_MEMORY_MAX {
            return Err(Error::new(
                4030,
                format!(
                    "out of process memory when trying to allocate {} bytes (PL/SQL collection, session limit {SESSION_PLSQL_MEMORY_MAX} bytes)",
                    self.bytes
                ),
            ));
        }
        *used = after;
        Ok(self.clone())
    }

    /// The bytes the collection is charged.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// An element or a method's value.
    pub fn read(
        &self,
        definition: &CollectionDef,
        method: CollectionMethod,
        arguments: &[Value],
    ) -> Result<Value> {
        let argument = || arguments.first().cloned().unwrap_or(Value::Null);
        Ok(match method {
            CollectionMethod::Element => {
                let key = key_of(argument(), definition.key)?;
                return self
                    .elements
                    .get(&key)
                    .cloned()
                    .ok_or_else(|| Error::new(1403, "no data found"));
            }
            CollectionMethod::Count => Value::integer(self.elements.len() as i64),
            CollectionMethod::First => self.elements.keys().next().map_or(Value::Null, Key::value),
            CollectionMethod::Last => self
                .elements
                .keys()
                .next_back()
                .map_or(Value::Null, Key::value),
            CollectionMethod::Exists => {
                let key = argument();
                if key.is_null() {
                    Value::Boolean(false)
                } else {
                    let key = key_of(key, definition.key)?;
                    Value::Boolean(self.elements.contains_key(&key))
                }
            }
            CollectionMethod::Next | CollectionMethod::Prior => {
                let key = argument();
                if key.is_null() {
                    return Ok(Value::Null);
                }
                let key = key_of(key, definition.key)?;
                use std::ops::Bound::{Excluded, Unbounded};
                let found = if method == CollectionMethod::Next {
                    self.elements.range((Excluded(&key), Unbounded)).next()
                } else {
                    self.elements.range((Unbounded, Excluded(&key))).next_back()
                };
                found.map_or(Value::Null, |(key, _)| key.value())
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers() -> CollectionDef {
        CollectionDef {
            element: Slot {
                name: "E".to_string(),
                kind: SlotKind::Sql(DataType::number()),
                not_null: false,
            },
            key: CollectionKeyType::Integer,
        }
    }

    #[test]
    fn elements_are_sparse_and_walked_in_key_order() {
        let definition = numbers();
        let mut collection = Collection::default();
        let mut used = 0;
        for key in [10, -3, 7] {
            collection
                .set(
                    &definition,
                    Value::integer(key),
                    Value::integer(key * 2),
                    &mut used,
                )
                .unwrap();
        }
        let read = |method, arguments: &[Value]| collection.read(&definition, method, arguments);
        assert_eq!(
            read(CollectionMethod::Count, &[]).unwrap(),
            Value::integer(3)
        );
        assert_eq!(
            read(CollectionMethod::First, &[]).unwrap(),
            Value::integer(-3)
        );
        assert_eq!(
            read(CollectionMethod::Last, &[]).unwrap(),
            Value::integer(10)
        );
        let next = read(CollectionMethod::Next, &[Value::integer(-3)]).unwrap();
        assert_eq!(next, Value::integer(7));
        let prior = read(CollectionMethod::Prior, &[Value::integer(-3)]).unwrap();
        assert_eq!(prior, Value::Null);
        let element = read(CollectionMethod::Element, &[Value::integer(7)]).unwrap();
        assert_eq!(element, Value::integer(14));
        let missing = read(CollectionMethod::Element, &[Value::integer(8)]).unwrap_err();
        assert_eq!(missing.code(), 1403);
        assert!(used > 0 && used == collection.bytes());
    }

    #[test]
    fn a_key_is_rounded_to_an_integer_and_null_is_no_key() {
        let definition = numbers();
        let key = key_of(Value::Number("2.5".parse().unwrap()), definition.key).unwrap();
        assert_eq!(key, Key::Integer(3));
        assert_eq!(
            key_of(Value::Null, definition.key).unwrap_err().code(),
            6502
        );
        let too_big = key_of(Value::integer(1 << 40), definition.key).unwrap_err();
        assert_eq!(too_big.code(), 1426);
    }

    #[test]
    fn delete_gives_back_what_the_elements_were_charged() {
        let definition = numbers();
        let mut collection = Collection::default();
        let mut used = 100;
        for key in 1..=5 {
            collection
                .set(
                    &definition,
                    Value::integer(key),
                    Value::integer(key),
                    &mut used,
                )
                .unwrap();
        }
        collection
            .delete(
                &definition,
                vec![Value::integer(2), Value::integer(4)],
                &mut used,
            )
            .unwrap();
        let count = collection.read(&definition, CollectionMethod::Count, &[]);
        assert_eq!(count.unwrap(), Value::integer(2));
        collection
            .delete(&definition, Vec::new(), &mut used)
            .unwrap();
        assert_eq!(used, 100);
        assert_eq!(collection.bytes(), 0);
    }

    #[test]
    fn an_assignment_beyond_the_session_bound_is_ora_04030_and_changes_nothing() {
        let definition = numbers();
        let mut collection = Collection::default();
        let mut used = SESSION_PLSQL_MEMORY_MAX - 10;
        let error = collection
            .set(&definition, Value::integer(1), Value::integer(1), &mut used)
            .unwrap_err();
        assert_eq!(error.code(), 4030);
        assert_eq!(used, SESSION_PLSQL_MEMORY_MAX - 10);
        let count = collection.read(&definition, CollectionMethod::Count, &[]);
        assert_eq!(count.unwrap(), Value::integer(0));
    }
}
