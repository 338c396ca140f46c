//! Names in scope: each block's declarations, innermost first, a block's label qualifying
//! its own (`outer.x`), and record types, whose fields are flattened into consecutive slots.

use std::sync::Arc;

use crate::plsql::ast::CollectionKeyType;
use crate::plsql::code::SlotKind;

/// A record type: its fields in order, each a scalar or a record.
#[derive(Debug, PartialEq)]
pub(super) struct RecordType {
    pub(super) fields: Vec<(String, Member)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Member {
    Scalar {
        kind: SlotKind,
        not_null: bool,
    },
    Record(Arc<RecordType>),
    /// An associative array type (a variable of it holds no slot: its elements live beside
    /// the frame).
    Collection(Arc<CollectionType>),
}

/// `TABLE OF element INDEX BY key`.
#[derive(Debug, PartialEq)]
pub(super) struct CollectionType {
    pub(super) element: SlotKind,
    pub(super) not_null: bool,
    pub(super) key: CollectionKeyType,
}

impl RecordType {
    /// How many slots a value of the type takes.
    pub(super) fn width(&self) -> usize {
        self.fields.iter().map(|(_, member)| member.width()).sum()
    }

    /// A field by name: its offset in slots from the record's first, and what it is.
    pub(super) fn field(&self, name: &str) -> Option<(usize, &Member)> {
        let mut offset = 0;
        for (field, member) in &self.fields {
            if field == name {
                return Some((offset, member));
            }
            offset += member.width();
        }
        None
    }

    /// Every scalar of the record, in slot order: its kind and NOT NULL.
    pub(super) fn scalars(&self, out: &mut Vec<(SlotKind, bool)>) {
        for (_, member) in &self.fields {
            match member {
                Member::Scalar { kind, not_null } => out.push((*kind, *not_null)),
                Member::Record(record) => record.scalars(out),
                Member::Collection(_) => {}
            }
        }
    }
}

impl Member {
    pub(super) fn width(&self) -> usize {
        match self {
            Member::Scalar { .. } => 1,
            Member::Record(record) => record.width(),
            Member::Collection(_) => 0,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) enum Symbol {
    /// A variable or constant (a loop counter is a constant).
    Scalar {
        slot: usize,
        kind: SlotKind,
        constant: bool,
    },
    Record {
        first: usize,
        record: Arc<RecordType>,
    },
    /// A variable of a collection type: its number in the unit.
    Collection {
        id: u32,
        collection: Arc<CollectionType>,
    },
    Exception(usize),
    Cursor(usize),
    /// A declared type: a record type or a subtype.
    Type(Member),
}

/// A name resolved to what it denotes, fields followed.
#[derive(Debug, Clone)]
pub(super) enum Resolved {
    Scalar {
        slot: usize,
        kind: SlotKind,
        constant: bool,
    },
    Record {
        first: usize,
        record: Arc<RecordType>,
    },
    Collection {
        id: u32,
        collection: Arc<CollectionType>,
    },
}

#[derive(Debug, Default)]
struct Scope {
    label: Option<String>,
    names: Vec<(String, Symbol)>,
}

#[derive(Debug, Default)]
pub(super) struct Scopes {
    scopes: Vec<Scope>,
}

impl Scopes {
    pub(super) fn push(&mut self, label: Option<String>) {
        self.scopes.push(Scope {
            label,
            names: Vec::new(),
        });
    }

    pub(super) fn pop(&mut self) {
        self.scopes.pop();
    }

    /// Declares `name` in the innermost scope; false when it is declared there already.
    pub(super) fn declare(&mut self, name: &str, symbol: Symbol) -> bool {
        let Some(scope) = self.scopes.last_mut() else {
            return false;
        };
        if scope.names.iter().any(|(declared, _)| declared == name) {
            return false;
        }
        scope.names.push((name.to_string(), symbol));
        true
    }

    /// The innermost declaration of `name`.
    pub(super) fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.scopes.iter().rev().find_map(|scope| {
            scope
                .names
                .iter()
                .rev()
                .find(|(declared, _)| declared == name)
                .map(|(_, symbol)| symbol)
        })
    }

    /// The declaration a dotted name starts with, and the parts after it: `label.x.f` is
    /// `x` in the block labelled `label`, then the field `f`.
    pub(super) fn lookup_qualified<'p>(
        &self,
        parts: &'p [String],
    ) -> Option<(&Symbol, &'p [String])> {
        if parts.len() >= 2 {
            let labelled = self.scopes.iter().rev().find_map(|scope| {
                (scope.label.as_deref() == Some(parts[0].as_str()))
                    .then(|| {
                        scope
                            .names
                            .iter()
                            .find(|(declared, _)| *declared == parts[1])
                            .map(|(_, symbol)| symbol)
                    })
                    .flatten()
            });
            if let Some(symbol) = labelled {
                if self.lookup(&parts[0]).is_none() {
                    return Some((symbol, &parts[2..]));
                }
            }
        }
        let symbol = self.lookup(parts.first()?)?;
        Some((symbol, &parts[1..]))
    }

    /// A dotted name as a variable, record or field.
    pub(super) fn resolve(&self, parts: &[String]) -> Option<Resolved> {
        let (symbol, fields) = self.lookup_qualified(parts)?;
        let mut resolved = match symbol {
            Symbol::Scalar {
                slot,
                kind,
                constant,
            } => Resolved::Scalar {
                slot: *slot,
                kind: *kind,
                constant: *constant,
            },
            Symbol::Record { first, record } => Resolved::Record {
                first: *first,
                record: record.clone(),
            },
            Symbol::Collection { id, collection } => Resolved::Collection {
                id: *id,
                collection: collection.clone(),
            },
            _ => return None,
        };
        for field in fields {
            let Resolved::Record { first, record } = resolved else {
                return None;
            };
            let (offset, member) = record.field(field)?;
            resolved = match member {
                Member::Scalar { kind, .. } => Resolved::Scalar {
                    slot: first + offset,
                    kind: *kind,
                    constant: false,
                },
                Member::Record(inner) => Resolved::Record {
                    first: first + offset,
                    record: inner.clone(),
                },
                Member::Collection(_) => return None,
            };
        }
        Some(resolved)
    }

    /// A user exception by (possibly label-qualified) name.
    pub(super) fn exception(&self, parts: &[String]) -> Option<usize> {
        match self.lookup_qualified(parts)? {
            (Symbol::Exception(id), []) => Some(*id),
            _ => None,
        }
    }

    pub(super) fn cursor(&self, name: &str) -> Option<usize> {
        match self.lookup(name)? {
            Symbol::Cursor(id) => Some(*id),
            _ => None,
        }
    }

    pub(super) fn type_named(&self, parts: &[String]) -> Option<Member> {
        match self.lookup_qualified(parts)? {
            (Symbol::Type(member), []) => Some(member.clone()),
            _ => None,
        }
    }
}
