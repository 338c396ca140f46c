//! The errors the parser raises: [`Syntax`], Oracle's fixed syntax errors with their numbers
//! and wording (ORA-00900 unknown statement, ORA-00933 trailing text, ORA-00936 missing
//! expression, ...), placed at a byte offset, and those whose text says more: ORA-00904 naming
//! a qualified name, ORA-00939 for the nesting limit.

use super::{Parser, PARSE_DEPTH_MAX};
use crate::error::Error;

/// The syntax errors the parser raises, with Oracle's numbers and wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Syntax {
    InvalidSqlStatement,
    InvalidCreateCommand,
    InvalidDatatype,
    InvalidTableName,
    InvalidIdentifier,
    MissingKeyword,
    MissingLeftParenthesis,
    MissingRightParenthesis,
    MissingNullKeyword,
    LengthTooLong,
    InvalidCharacter,
    MissingComma,
    MissingOrInvalidOption,
    FromKeywordNotFound,
    MissingByKeyword,
    MissingIntoKeyword,
    MissingValuesKeyword,
    MissingEqualSign,
    MissingSelectKeyword,
    CommandNotProperlyEnded,
    MissingExpression,
    InvalidAlterCommand,
    InvalidDropOption,
    InvalidIndexName,
    MissingOnKeyword,
    MissingSetKeyword,
    InvalidAnalyzeCommand,
    InvalidNumber,
    PrecisionOutOfRange,
    ScaleOutOfRange,
    InvalidAlterTableOption,
    StringLiteralRequired,
    IllegalAlterSystemOption,
    InvalidCreateIndexOption,
    InvalidPctfree,
    InvalidStorageOption,
    InvalidAlterIndexOption,
    InvalidAlterSessionOption,
    InvalidSequenceName,
    NoAlterSequenceOptions,
    UnimplementedFeature,
    DatetimePrecisionOutOfRange,
}

impl Syntax {
    fn code(self) -> u32 {
        match self {
            Syntax::InvalidSqlStatement => 900,
            Syntax::InvalidCreateCommand => 901,
            Syntax::InvalidDatatype => 902,
            Syntax::InvalidTableName => 903,
            Syntax::InvalidIdentifier => 904,
            Syntax::MissingKeyword => 905,
            Syntax::MissingLeftParenthesis => 906,
            Syntax::MissingRightParenthesis => 907,
            Syntax::MissingNullKeyword => 908,
            Syntax::LengthTooLong => 910,
            Syntax::InvalidCharacter => 911,
            Syntax::MissingComma => 917,
            Syntax::MissingOrInvalidOption => 922,
            Syntax::FromKeywordNotFound => 923,
            Syntax::MissingByKeyword => 924,
            Syntax::MissingIntoKeyword => 925,
            Syntax::MissingValuesKeyword => 926,
            Syntax::MissingEqualSign => 927,
            Syntax::MissingSelectKeyword => 928,
            Syntax::CommandNotProperlyEnded => 933,
            Syntax::MissingExpression => 936,
            Syntax::InvalidAlterCommand => 940,
            Syntax::InvalidDropOption => 950,
            Syntax::InvalidIndexName => 953,
            Syntax::MissingOnKeyword => 969,
            Syntax::MissingSetKeyword => 971,
            Syntax::InvalidAnalyzeCommand => 1490,
            Syntax::InvalidNumber => 1722,
            Syntax::PrecisionOutOfRange => 1727,
            Syntax::ScaleOutOfRange => 1728,
            Syntax::InvalidAlterTableOption => 1735,
            Syntax::StringLiteralRequired => 1780,
            Syntax::IllegalAlterSystemOption => 2065,
            Syntax::InvalidCreateIndexOption => 2158,
            Syntax::InvalidPctfree => 2211,
            Syntax::InvalidStorageOption => 2143,
            Syntax::InvalidAlterIndexOption => 2243,
            Syntax::InvalidAlterSessionOption => 2248,
            Syntax::InvalidSequenceName => 2277,
            Syntax::NoAlterSequenceOptions => 2286,
            Syntax::UnimplementedFeature => 3001,
            Syntax::DatetimePrecisionOutOfRange => 30088,
        }
    }

    fn message(self) -> &'static str {
        match self {
            Syntax::InvalidSqlStatement => "invalid SQL statement",
            Syntax::InvalidCreateCommand => "invalid CREATE command",
            Syntax::InvalidDatatype => "invalid datatype",
            Syntax::InvalidTableName => "invalid table name",
            // Oracle names the identifier when it knows one; a syntax error does not.
            Syntax::InvalidIdentifier => ": invalid identifier",
            Syntax::MissingKeyword => "missing keyword",
            Syntax::MissingLeftParenthesis => "missing left parenthesis",
            Syntax::MissingRightParenthesis => "missing right parenthesis",
            Syntax::MissingNullKeyword => "missing NULL keyword",
            Syntax::LengthTooLong => "specified length too long for its datatype",
            Syntax::InvalidCharacter => "invalid character",
            Syntax::MissingComma => "missing comma",
            Syntax::MissingOrInvalidOption => "missing or invalid option",
            Syntax::FromKeywordNotFound => "FROM keyword not found where expected",
            Syntax::MissingByKeyword => "missing BY keyword",
            Syntax::MissingIntoKeyword => "missing INTO keyword",
            Syntax::MissingValuesKeyword => "missing VALUES keyword",
            Syntax::MissingEqualSign => "missing equal sign",
            Syntax::MissingSelectKeyword => "missing SELECT keyword",
            Syntax::CommandNotProperlyEnded => "SQL command not properly ended",
            Syntax::MissingExpression => "missing expression",
            Syntax::InvalidAlterCommand => "invalid ALTER command",
            Syntax::InvalidDropOption => "invalid DROP option",
            Syntax::InvalidIndexName => "missing or invalid index name",
            Syntax::MissingOnKeyword => "missing ON keyword",
            Syntax::MissingSetKeyword => "missing SET keyword",
            Syntax::InvalidAnalyzeCommand => "invalid ANALYZE command",
            Syntax::InvalidNumber => "invalid number",
            Syntax::PrecisionOutOfRange => "numeric precision specifier is out of range (1 to 38)",
            Syntax::ScaleOutOfRange => "numeric scale specifier is out of range (-84 to 127)",
            Syntax::InvalidAlterTableOption => "invalid ALTER TABLE option",
            Syntax::StringLiteralRequired => "string literal required",
            Syntax::IllegalAlterSystemOption => "illegal option for ALTER SYSTEM",
            Syntax::InvalidCreateIndexOption => "invalid CREATE INDEX option",
            Syntax::InvalidPctfree => "invalid value for PCTFREE or PCTUSED",
            Syntax::InvalidStorageOption => "invalid STORAGE option",
            Syntax::InvalidAlterIndexOption => {
                "invalid ALTER INDEX or ALTER MATERIALIZED VIEW option"
            }
            Syntax::InvalidAlterSessionOption => "invalid option for ALTER SESSION",
            Syntax::InvalidSequenceName => "invalid sequence name",
            Syntax::NoAlterSequenceOptions => "no options specified for ALTER SEQUENCE",
            Syntax::UnimplementedFeature => "unimplemented feature",
            Syntax::DatetimePrecisionOutOfRange => "datetime/interval precision is out of range",
        }
    }

    pub(super) fn at(self, position: usize) -> Error {
        Error::syntax(self.code(), self.message(), position)
    }
}

/// ORA-00904 naming a qualified name: `"A"."B"."C"."D": invalid identifier`.
pub(super) fn invalid_qualified_name(parts: &[String], position: usize) -> Error {
    let quoted: Vec<String> = parts.iter().map(|part| format!("\"{part}\"")).collect();
    Error::syntax(
        904,
        format!("{}: invalid identifier", quoted.join(".")),
        position,
    )
}

impl Parser<'_> {
    pub(super) fn error(&self, syntax: Syntax) -> Error {
        syntax.at(self.position())
    }

    pub(super) fn depth_error(&self, position: usize) -> Error {
        Error::syntax(
            939,
            format!("statement nesting exceeds the limit of {PARSE_DEPTH_MAX} levels"),
            position,
        )
    }
}
