//! The functions PostgreSQL clients call that Oracle has no name for: the catalog
//! functions over `views::pg_catalog` (`format_type`, `pg_get_indexdef`, ...), the casts
//! to object identifier types (`regclass`, `regtype`, `regnamespace`), arrays in their text
//! form (`array_to_string`, `array_upper`, subscripts, `ARRAY(query)`), and REGEXP_LIKE,
//! which PostgreSQL's `~` operators are written as.
//!
//! Arrays. Pythia has no array type: an array is its PostgreSQL text form, `{a,b,"c d"}`
//! (elements separated by commas, quoted with `"` when they hold a separator, a quote, a
//! backslash or blanks, or spell NULL; an unquoted NULL is a NULL element). `ARRAY(query)`
//! makes that text from the query's one column, and the functions here read it back.
//! `x = ANY (array)` keeps Oracle's meaning (`x = ANY (value)`, a list of one value): see
//! `docs/sql.md`.
//!
//! Regular expressions are the `regex` crate's syntax (close to POSIX ERE and Perl's, with
//! neither backreferences nor lookaround), matched in time linear in the text; an invalid
//! pattern is ORA-12722. The last pattern compiled is kept per thread, so that a scan that
//! matches every row against one pattern compiles it once.

use std::cell::RefCell;

use regex::Regex;
use rust_decimal::prelude::ToPrimitive;

use crate::catalog::Dictionary;
use crate::error::{Error, Result};
use crate::types::Value;
use crate::views::pg_catalog;

/// A pattern this long or longer is refused (ORA-12733), so that compiling one is bounded.
pub const PATTERN_BYTES_MAX: usize = 512;

/// Elements an array's text form may have; more is ORA-22165-like (an index beyond it).
pub const ARRAY_ELEMENTS_MAX: usize = 1_000_000;

/// `REGEXP_LIKE(source, pattern[, match_parameter])`: whether `pattern` matches anywhere in
/// `source`. The match parameter's letters: `i` case-insensitive, `c` case-sensitive (the
/// last of the two wins), `n` `.` matches a newline, `m` `^` and `$` match at lines, `x`
/// white space in the pattern is ignored.
pub fn regexp_like(source: &str, pattern: &str, parameter: &str) -> Result<bool> {
    thread_local! {
        static LAST: RefCell<Option<(String, String, Regex)>> = const { RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((kept_pattern, kept_parameter, regex)) = last.as_ref() {
            if kept_pattern == pattern && kept_parameter == parameter {
                return Ok(regex.is_match(source));
            }
        }
        let regex = compile(pattern, parameter)?;
        let matched = regex.is_match(source);
        *last = Some((pattern.to_string(), parameter.to_string(), regex));
        Ok(matched)
    })
}

fn compile(pattern: &str, parameter: &str) -> Result<Regex> {
    if pattern.len() >= PATTERN_BYTES_MAX {
        return Err(Error::new(12733, "regular expression too long"));
    }
    let mut builder = regex::RegexBuilder::new(pattern);
    for letter in parameter.chars() {
        match letter {
            'i' => builder.case_insensitive(true),
            'c' => builder.case_insensitive(false),
            'n' => builder.dot_matches_new_line(true),
            'm' => builder.multi_line(true),
            'x' => builder.ignore_whitespace(true),
            _ => return Err(Error::new(1760, "illegal argument for function")),
        };
    }
    builder
        .size_limit(1 << 20)
        .build()
        .map_err(|error| Error::new(12722, format!("regular expression error: {error}")))
}

/// The elements of an array's text form (None for a NULL element); ORA-01722-like error
/// text for what is not one.
pub fn array_elements(text: &str) -> Result<Vec<Option<String>>> {
    let malformed = || Error::new(1722, format!("malformed array literal: \"{text}\""));
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|rest| rest.strip_suffix('}'))
        .ok_or_else(malformed)?;
    let mut elements = Vec::new();
    let mut characters = inner.chars().peekable();
    if inner.trim().is_empty() {
        return Ok(elements);
    }
    loop {
        while characters.next_if(|c| c.is_whitespace()).is_some() {}
        let mut element = String::new();
        let quoted = characters.next_if_eq(&'"').is_some();
        if quoted {
            loop {
                match characters.next() {
                    Some('"') => break,
                    Some('\\') => element.push(characters.next().ok_or_else(malformed)?),
                    Some(c) => element.push(c),
                    None => return Err(malformed()),
                }
            }
            while characters.next_if(|c| c.is_whitespace()).is_some() {}
        } else {
            while let Some(c) = characters.next_if(|c| *c != ',') {
                element.push(c);
            }
            element = element.trim_end().to_string();
        }
        if elements.len() >= ARRAY_ELEMENTS_MAX {
            return Err(Error::new(22165, "array has too many elements"));
        }
        elements.push(if !quoted && element.eq_ignore_ascii_case("NULL") {
            None
        } else {
            Some(element)
        });
        match characters.next() {
            Some(',') => {}
            None => return Ok(elements),
            Some(_) => return Err(malformed()),
        }
    }
}

/// The text form of an array of `values` (as PostgreSQL's array_out writes it).
pub fn array_text(values: &[Value]) -> Value {
    let elements: Vec<String> = values
        .iter()
        .map(|value| match value {
            Value::Null => "NULL".to_string(),
            value => {
                let text = value.to_string();
                let plain = !text.is_empty()
                    && !text.eq_ignore_ascii_case("NULL")
                    && !text
                        .chars()
                        .any(|c| matches!(c, '{' | '}' | ',' | '"' | '\\') || c.is_whitespace());
                if plain {
                    text
                } else {
                    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
                }
            }
        })
        .collect();
    Value::text(format!("{{{}}}", elements.join(",")))
}

/// `array_to_string(array, separator[, null_text])`: the elements joined; NULL elements
/// left out, or written as `null_text` when it is given.
pub fn array_to_string(array: &str, separator: &str, null_text: Option<&str>) -> Result<Value> {
    let elements = array_elements(array)?;
    let shown: Vec<&str> = elements
        .iter()
        .filter_map(|element| element.as_deref().or(null_text))
        .collect();
    Ok(Value::text(shown.join(separator)))
}

/// `array_upper(array, dimension)`: the last index of dimension 1 (arrays start at 1), NULL
/// for an empty array or another dimension.
pub fn array_upper(array: &str, dimension: i64) -> Result<Value> {
    let count = array_elements(array)?.len();
    Ok(if dimension == 1 && count > 0 {
        Value::integer(count as i64)
    } else {
        Value::Null
    })
}

/// `array[index]`: the element at `index` (from 1), NULL outside the array.
pub fn array_element(array: &str, index: i64) -> Result<Value> {
    let elements = array_elements(array)?;
    Ok(usize::try_from(index)
        .ok()
        .and_then(|index| index.checked_sub(1))
        .and_then(|position| elements.get(position).cloned().flatten())
        .map_or(Value::Null, Value::text))
}

/// An oid argument: a number, or text that is one (`'16390'`); None for anything else.
fn oid_of(value: &Value) -> Option<i64> {
    match value {
        Value::Text(text) => text.trim().parse().ok(),
        other => other
            .as_decimal()
            .filter(|number| number.fract().is_zero())
            .and_then(|number| number.to_i64()),
    }
}

/// The catalog functions: their values for the evaluated `arguments` (NULLs included), in
/// `dictionary` (None outside a statement, where they are NULL).
pub fn catalog_function(
    name: CatalogFunction,
    arguments: &[Value],
    dictionary: Option<&Dictionary>,
) -> Result<Value> {
    use CatalogFunction as F;
    let text = |value: Option<String>| value.map_or(Value::Null, Value::text);
    let boolean = |value: Option<bool>| value.map_or(Value::Null, Value::Boolean);
    let oid = arguments.first().and_then(oid_of);
    if let F::Expression = name {
        // pg_get_expr(text, relation[, pretty]): the expression's text is what we keep.
        return Ok(arguments[0].clone());
    }
    let Some(oid) = oid else {
        // REGCLASS of a name: the relation's oid.
        if let (F::RegClass, Value::Text(name), Some(dictionary)) =
            (name, &arguments[0], dictionary)
        {
            return pg_catalog::relation_oid(dictionary, name)
                .map(Value::integer)
                .ok_or_else(Error::table_not_found);
        }
        return Ok(Value::Null);
    };
    let in_dictionary = |work: &dyn Fn(&Dictionary) -> Value| dictionary.map_or(Value::Null, work);
    Ok(match name {
        F::Expression => Value::Null,
        F::UserById => Value::text(pg_catalog::user_name(oid)),
        F::FormatType => {
            let typmod = arguments.get(1).and_then(oid_of);
            text(pg_catalog::format_type(oid, typmod))
        }
        F::RegType => text(pg_catalog::format_type(oid, None)),
        F::RegNamespace => text(pg_catalog::namespace_name(oid)),
        F::RegClass => {
            in_dictionary(&|dictionary| text(pg_catalog::relation_name(dictionary, oid)))
        }
        F::TableIsVisible => {
            in_dictionary(&|dictionary| boolean(pg_catalog::table_is_visible(dictionary, oid)))
        }
        F::RelationIsPublishable => in_dictionary(&|dictionary| {
            boolean(pg_catalog::relation_is_publishable(dictionary, oid))
        }),
        F::IndexDefinition => {
            let column = arguments.get(1).and_then(oid_of).unwrap_or(0);
            in_dictionary(&|dictionary| text(pg_catalog::index_definition(dictionary, oid, column)))
        }
        F::ConstraintDefinition => {
            in_dictionary(&|dictionary| text(pg_catalog::constraint_definition(dictionary, oid)))
        }
        // No extended statistics exist.
        F::StatisticsObjectColumns => Value::Null,
    })
}

/// The catalog functions [`catalog_function`] evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogFunction {
    /// `pg_get_userbyid(role oid)`
    UserById,
    /// `pg_table_is_visible(relation oid)`
    TableIsVisible,
    /// `format_type(type oid, typmod)`
    FormatType,
    /// `pg_get_indexdef(index oid[, column, pretty])`
    IndexDefinition,
    /// `pg_get_constraintdef(constraint oid[, pretty])`
    ConstraintDefinition,
    /// `pg_get_expr(expression text, relation oid[, pretty])`
    Expression,
    /// `pg_relation_is_publishable(relation oid)`
    RelationIsPublishable,
    /// `pg_get_statisticsobjdef_columns(oid)`
    StatisticsObjectColumns,
    /// `x::regclass`: an oid's relation name, or a name's oid.
    RegClass,
    /// `x::regtype`: a type oid's name.
    RegType,
    /// `x::regnamespace`: a namespace oid's name.
    RegNamespace,
}

impl CatalogFunction {
    /// The function named `name` (upper case, without `PG_CATALOG.`), with its least and
    /// most arguments.
    pub fn resolve(name: &str) -> Option<(CatalogFunction, usize, usize)> {
        use CatalogFunction as F;
        Some(match name {
            "PG_GET_USERBYID" => (F::UserById, 1, 1),
            "PG_TABLE_IS_VISIBLE" => (F::TableIsVisible, 1, 1),
            "FORMAT_TYPE" => (F::FormatType, 2, 2),
            "PG_GET_INDEXDEF" => (F::IndexDefinition, 1, 3),
            "PG_GET_CONSTRAINTDEF" => (F::ConstraintDefinition, 1, 2),
            "PG_GET_EXPR" => (F::Expression, 2, 3),
            "PG_RELATION_IS_PUBLISHABLE" => (F::RelationIsPublishable, 1, 1),
            "PG_GET_STATISTICSOBJDEF_COLUMNS" => (F::StatisticsObjectColumns, 1, 1),
            "REGCLASS" => (F::RegClass, 1, 1),
            "REGTYPE" => (F::RegType, 1, 1),
            "REGNAMESPACE" => (F::RegNamespace, 1, 1),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_read_back_what_array_text_writes() {
        let values = [
            Value::integer(1),
            Value::Null,
            Value::text("a b"),
            Value::text("q\"x"),
            Value::text("NULL"),
        ];
        let text = array_text(&values);
        assert_eq!(text, Value::text(r#"{1,NULL,"a b","q\"x","NULL"}"#));
        let elements = array_elements(text.as_str().unwrap()).unwrap();
        assert_eq!(
            elements,
            vec![
                Some("1".to_string()),
                None,
                Some("a b".to_string()),
                Some("q\"x".to_string()),
                Some("NULL".to_string())
            ]
        );
        assert_eq!(array_elements("{}").unwrap(), Vec::<Option<String>>::new());
        assert_eq!(array_elements(" { 1 , 2 } ").unwrap().len(), 2);
        assert_eq!(array_elements("1,2").unwrap_err().code(), 1722);
        assert_eq!(array_elements("{\"1}").unwrap_err().code(), 1722);
    }

    #[test]
    fn array_functions_follow_postgresql() {
        assert_eq!(
            array_to_string("{a,NULL,c}", ",", None).unwrap(),
            Value::text("a,c")
        );
        assert_eq!(
            array_to_string("{a,NULL,c}", "-", Some("*")).unwrap(),
            Value::text("a-*-c")
        );
        assert_eq!(array_upper("{5,6,7}", 1).unwrap(), Value::integer(3));
        assert_eq!(array_upper("{}", 1).unwrap(), Value::Null);
        assert_eq!(array_upper("{5}", 2).unwrap(), Value::Null);
        assert_eq!(array_element("{5,6,7}", 2).unwrap(), Value::text("6"));
        assert_eq!(array_element("{5,6,7}", 0).unwrap(), Value::Null);
        assert_eq!(array_element("{5,6,7}", 4).unwrap(), Value::Null);
    }

    #[test]
    fn regular_expressions_match_as_psql_patterns_need() {
        assert!(regexp_like("pgbench_accounts", "^(pgbench_accounts)$", "").unwrap());
        assert!(!regexp_like("pgbench_accounts_pkey", "^(pgbench_accounts)$", "").unwrap());
        assert!(regexp_like("pg_toast_1", "^pg_toast", "").unwrap());
        assert!(regexp_like("PGBENCH", "^pgbench$", "i").unwrap());
        assert!(!regexp_like("PGBENCH", "^pgbench$", "ic").unwrap());
        assert!(regexp_like("pgbench_x", "^(pgbench.*)$", "").unwrap());
        assert_eq!(regexp_like("a", "(", "").unwrap_err().code(), 12722);
        assert_eq!(regexp_like("a", "a", "z").unwrap_err().code(), 1760);
        let long = "a".repeat(PATTERN_BYTES_MAX);
        assert_eq!(regexp_like("a", &long, "").unwrap_err().code(), 12733);
    }

    #[test]
    fn catalog_functions_without_a_dictionary_are_null_or_constant() {
        let call =
            |function, arguments: &[Value]| catalog_function(function, arguments, None).unwrap();
        assert_eq!(
            call(CatalogFunction::UserById, &[Value::integer(10)]),
            Value::text("system")
        );
        assert_eq!(
            call(CatalogFunction::UserById, &[Value::integer(7)]),
            Value::text("unknown (OID=7)")
        );
        assert_eq!(
            call(
                CatalogFunction::FormatType,
                &[Value::integer(1042), Value::integer(88)]
            ),
            Value::text("character(84)")
        );
        assert_eq!(
            call(
                CatalogFunction::FormatType,
                &[Value::integer(23), Value::Null]
            ),
            Value::text("integer")
        );
        assert_eq!(
            call(CatalogFunction::RegType, &[Value::text("1043")]),
            Value::text("character varying")
        );
        assert_eq!(
            call(CatalogFunction::RegNamespace, &[Value::integer(11)]),
            Value::text("pg_catalog")
        );
        assert_eq!(
            call(CatalogFunction::TableIsVisible, &[Value::integer(1)]),
            Value::Null
        );
        assert_eq!(
            call(
                CatalogFunction::Expression,
                &[Value::text("0"), Value::integer(1)]
            ),
            Value::text("0")
        );
        assert_eq!(call(CatalogFunction::UserById, &[Value::Null]), Value::Null);
    }
}
