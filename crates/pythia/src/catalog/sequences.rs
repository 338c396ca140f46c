//! Sequences: CREATE, ALTER and DROP SEQUENCE, their DICT$ row, and NEXTVAL handing out
//! numbers from a cached range whose end DICT$ keeps.

use std::sync::Arc;

use crate::access::heap::RowId;
use crate::buffer::BufferPool;
use crate::error::{Error, Result};
use crate::instrumentation::{Enqueue, WaitEvent};
use crate::syntax::ast;
use crate::transaction::RowChange;
use crate::types::{encode_row, Value};

use super::ddl::check_name;
use super::dict_rows::{integer, text};
use super::{Catalog, SequenceDef, DICTIONARY_OBJECT};

#[derive(Debug)]
pub(super) struct SequenceState {
    /// The next value to hand out.
    next: i128,
    /// Values up to (ascending) or down to (descending) this one, exclusive, are reserved in
    /// DICT$ already.
    high_water: i128,
}

impl SequenceDef {
    /// The last number a `nextval` may reach before the reservation runs out, for views.
    pub fn last_number(&self) -> i128 {
        self.state.lock().high_water
    }
}

impl Catalog {
    pub fn create_sequence(&self, name: &str, options: &[ast::SequenceOption]) -> Result<()> {
        check_name(name)?;
        let settings = SequenceSettings::from_options(options, None)?;
        self.change(|dictionary, context| {
            if dictionary.name_in_use(name) {
                return Err(Error::name_in_use());
            }
            let object_id = self.next_object_id();
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(object_id as i64),
                Value::text(name),
            ];
            settings.push_values(&mut row, settings.start);
            let dictionary_row = context.insert(&row)?;
            let sequence = settings.into_def(object_id, name, settings.start, dictionary_row);
            dictionary
                .sequences
                .insert(name.to_string(), Arc::new(sequence));
            Ok(())
        })
    }

    pub fn alter_sequence(&self, name: &str, options: &[ast::SequenceOption]) -> Result<()> {
        self.change(|dictionary, context| {
            let old = dictionary
                .sequences
                .get(name)
                .cloned()
                .ok_or_else(|| Error::new(2289, "sequence does not exist"))?;
            if options
                .iter()
                .any(|option| matches!(option, ast::SequenceOption::StartWith(_)))
            {
                return Err(Error::new(2283, "cannot alter starting sequence number"));
            }
            let settings = SequenceSettings::from_options(options, Some(&old))?;
            // The next value continues where the old definition was: unused cached values
            // are discarded, as in Oracle.
            let next = old.state.lock().next;
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(old.object_id as i64),
                Value::text(name),
            ];
            settings.push_values(&mut row, next);
            context.update(old.dictionary_row, &row)?;
            let sequence = settings.into_def(old.object_id, name, next, old.dictionary_row);
            dictionary
                .sequences
                .insert(name.to_string(), Arc::new(sequence));
            Ok(())
        })
    }

    pub fn drop_sequence(&self, name: &str) -> Result<()> {
        self.change(|dictionary, context| {
            let sequence = dictionary
                .sequences
                .remove(name)
                .ok_or_else(|| Error::new(2289, "sequence does not exist"))?;
            context.delete(sequence.dictionary_row)
        })
    }

    /// NEXTVAL: the next number, reserving a new cached range in DICT$ when the current one
    /// is used up.
    pub fn next_value(&self, sequence: &SequenceDef) -> Result<i128> {
        let mut state = sequence.state.lock();
        let ascending = sequence.increment > 0;
        let mut value = state.next;
        let beyond = if ascending {
            value > sequence.max
        } else {
            value < sequence.min
        };
        if beyond {
            if !sequence.cycle {
                return Err(Error::new(
                    8004,
                    format!(
                        "sequence {}.NEXTVAL {} {}VALUE and cannot be instantiated",
                        sequence.name,
                        if ascending { "exceeds" } else { "goes below" },
                        if ascending { "MAX" } else { "MIN" }
                    ),
                ));
            }
            value = if ascending {
                sequence.min
            } else {
                sequence.max
            };
            state.high_water = value;
        }
        let reserved = if ascending {
            value < state.high_water
        } else {
            value > state.high_water
        };
        if !reserved {
            let high_water = value + sequence.increment * sequence.cache.max(1);
            let mut row = vec![
                Value::text("SEQUENCE"),
                Value::integer(sequence.object_id as i64),
                Value::text(&sequence.name),
            ];
            SequenceSettings::of(sequence).push_values(&mut row, high_water);
            self.recursive_update(sequence.dictionary_row, &row)?;
            state.high_water = high_water;
        }
        state.next = value + sequence.increment;
        Ok(value)
    }

    /// Changes a DICT$ row in a transaction of its own, committed at once (Oracle's
    /// recursive SQL for SEQ$).
    fn recursive_update(&self, rowid: RowId, row: &[Value]) -> Result<()> {
        let transactions = &self.storage.transactions;
        let mut transaction = transactions.begin()?;
        let mut data = Vec::new();
        encode_row(row, &mut data);
        let changed = transactions.change_row(
            &mut transaction,
            DICTIONARY_OBJECT,
            BufferPool::Default,
            rowid,
            &mut |_| Ok(RowChange::Update(data.clone())),
        );
        match changed {
            Ok(_) => transactions.commit(transaction, true).map(|_| ()),
            Err(error) => {
                transactions.rollback(transaction)?;
                Err(error)
            }
        }
    }
}

/// Sequence options resolved to values, with Oracle's defaults.
#[derive(Clone, Copy)]
struct SequenceSettings {
    start: i128,
    increment: i128,
    min: i128,
    max: i128,
    cache: i128,
    cycle: bool,
}

/// NOMAXVALUE of an ascending sequence: 10^28 - 1 (Oracle: 10^28 - 1 too).
const SEQUENCE_VALUE_MAX: i128 = 9_999_999_999_999_999_999_999_999_999;

impl SequenceSettings {
    fn of(sequence: &SequenceDef) -> SequenceSettings {
        SequenceSettings {
            start: 0,
            increment: sequence.increment,
            min: sequence.min,
            max: sequence.max,
            cache: sequence.cache,
            cycle: sequence.cycle,
        }
    }

    fn from_options(
        options: &[ast::SequenceOption],
        old: Option<&SequenceDef>,
    ) -> Result<SequenceSettings> {
        use ast::SequenceOption as O;
        let mut increment = old.map_or(1, |old| old.increment);
        let mut start = None;
        let mut min = old.map(|old| old.min);
        let mut max = old.map(|old| old.max);
        let mut cache = old.map_or(20, |old| old.cache);
        let mut cycle = old.is_some_and(|old| old.cycle);
        for option in options {
            match *option {
                O::StartWith(value) => start = Some(value),
                O::IncrementBy(value) => increment = value,
                O::MinValue(value) => min = Some(value),
                O::NoMinValue => min = None,
                O::MaxValue(value) => max = Some(value),
                O::NoMaxValue => max = None,
                O::Cache(value) => cache = value,
                O::NoCache => cache = 1,
                O::Cycle => cycle = true,
                O::NoCycle => cycle = false,
                O::Order | O::NoOrder => {}
            }
        }
        if increment == 0 {
            return Err(Error::new(4002, "INCREMENT must be a non-zero integer"));
        }
        let min = min.unwrap_or(if increment > 0 {
            1
        } else {
            -SEQUENCE_VALUE_MAX
        });
        let max = max.unwrap_or(if increment > 0 {
            SEQUENCE_VALUE_MAX
        } else {
            -1
        });
        if min >= max {
            return Err(Error::new(4004, "MINVALUE must be less than MAXVALUE"));
        }
        if cache < 1 {
            return Err(Error::new(
                4010,
                "the number of values to CACHE must be greater than 1",
            ));
        }
        let start = start.unwrap_or(if increment > 0 { min } else { max });
        if start < min {
            return Err(Error::new(4006, "START WITH cannot be less than MINVALUE"));
        }
        if start > max {
            return Err(Error::new(4008, "START WITH cannot be more than MAXVALUE"));
        }
        Ok(SequenceSettings {
            start,
            increment,
            min,
            max,
            cache,
            cycle,
        })
    }

    fn push_values(&self, row: &mut Vec<Value>, high_water: i128) {
        for value in [self.increment, self.min, self.max, self.cache] {
            row.push(number(value));
        }
        row.push(Value::integer(self.cycle as i64));
        row.push(number(high_water));
    }

    fn into_def(self, object_id: u32, name: &str, next: i128, row: RowId) -> SequenceDef {
        SequenceDef {
            object_id,
            name: name.to_string(),
            increment: self.increment,
            min: self.min,
            max: self.max,
            cache: self.cache,
            cycle: self.cycle,
            state: Arc::new(Enqueue::new(
                *b"SQ",
                WaitEvent::EnqueueSqContention,
                object_id as u64,
                SequenceState {
                    next,
                    high_water: next,
                },
            )),
            dictionary_row: row,
        }
    }
}

fn number(value: i128) -> Value {
    Value::Number(rust_decimal::Decimal::from_i128_with_scale(value, 0))
}

pub(super) fn sequence_from_row(rowid: RowId, values: &[Value]) -> Result<SequenceDef> {
    let settings = SequenceSettings {
        start: 0,
        increment: integer(values, 3)?,
        min: integer(values, 4)?,
        max: integer(values, 5)?,
        cache: integer(values, 6)?,
        cycle: integer(values, 7)? != 0,
    };
    // Numbers below the high-water value may have been handed out before the crash or
    // shutdown: continue after it.
    let high_water = integer(values, 8)?;
    Ok(settings.into_def(
        integer(values, 1)? as u32,
        &text(values, 2)?,
        high_water,
        rowid,
    ))
}
