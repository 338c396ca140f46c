//! TO_DATE's format models: DATE text read against `YYYY-MM-DD HH24:MI:SS`, `DD-MON-YYYY`,
//! `YYYYMMDD` and the like.
//!
//! The format model is read into elements first (so that an element this engine does not
//! know fails before any text is looked at), then the text is matched against them, left to
//! right. Case does not matter in either.
//!
//! ```text
//!   element              reads                                        field
//!   YYYY                 1-4 digits, the year as written              year
//!   RRRR, RR             1-4 digits; with 1-2 the RR century rule     year
//!   YY                   1-2 digits in the current century            year
//!   MM                   1-2 digits, or a month's name                month
//!   MON, MONTH           a month's name, abbreviated or in full       month
//!   DD                   1-2 digits                                   day
//!   HH24                 1-2 digits, 0-23                             hour
//!   HH, HH12             1-2 digits, 1-12                             hour
//!   MI, SS               1-2 digits, 0-59                             minute, second
//!   AM, PM, A.M., P.M.   AM, A.M., PM or P.M. (any of them for any)   meridian
//!   - / , . ; : blank    any run of characters that are not letters or digits, even none
//!   "text"               the text
//! ```
//!
//! These are Oracle's rules without the FX modifier: punctuation need not match exactly,
//! a number may have fewer digits than its element when something else follows, and the
//! text may end before the format does. A field the text does not give takes Oracle's
//! default: the current year, the current month, the first day, midnight. An hour read by
//! HH without AM or PM is taken as written (12 is noon).
//!
//! Failures are Oracle's: ORA-01821 for an element not listed above (FX, FM, DDD, SSSSS,
//! J, DY, FF, ...), ORA-01810 for a field given twice, ORA-01818 for HH24 with a meridian,
//! ORA-01858 for a non-digit where digits belong, ORA-01843 / 01847 / 01839 / 01849 /
//! 01850 / 01851 / 01852 / 01841 for a month, day, hour, minute, second or year out of
//! range, ORA-01855 for a missing AM/PM, ORA-01861 for quoted text that does not match,
//! ORA-01830 for text left over after the format.

use chrono::Datelike;

use super::datetime::{self, Cursor, SECONDS_PER_DAY, YEAR_MAX, YEAR_MIN};
use super::errors;
use crate::error::Result;

/// One element of a format model. Quoted text borrows from the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element<'a> {
    /// YYYY: the year as written.
    Year,
    /// RR or RRRR: one or two digits take the century of the RR rule, more are the year.
    RoundedYear,
    /// YY: one or two digits in the current century.
    YearInCentury,
    /// MM: the month's number (its name is accepted too).
    MonthNumber,
    /// MON or MONTH: the month's name, abbreviated or in full.
    MonthName,
    Day,
    Hour24,
    Hour12,
    Minute,
    Second,
    /// AM, PM, A.M. or P.M.: each reads any of them.
    Meridian,
    /// A run of punctuation and blanks.
    Punctuation,
    /// "quoted text", without the quotes.
    Literal(&'a str),
}

/// What an element sets, to find a field given twice (ORA-01810).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Meridian,
}

impl Element<'_> {
    fn field(self) -> Option<Field> {
        match self {
            Element::Year | Element::RoundedYear | Element::YearInCentury => Some(Field::Year),
            Element::MonthNumber | Element::MonthName => Some(Field::Month),
            Element::Day => Some(Field::Day),
            Element::Hour24 | Element::Hour12 => Some(Field::Hour),
            Element::Minute => Some(Field::Minute),
            Element::Second => Some(Field::Second),
            Element::Meridian => Some(Field::Meridian),
            Element::Punctuation | Element::Literal(_) => None,
        }
    }
}

/// The elements a format may name, longest first where one begins another. None marks an
/// Oracle element this engine does not read, listed so that it is not taken for a shorter
/// one followed by more (`SSSSS` is not `SS`, `SS`, `S`).
const KEYWORDS: [(&[u8], Option<Element<'static>>); 20] = [
    (b"SSSSS", None),
    (b"HH24", Some(Element::Hour24)),
    (b"HH12", Some(Element::Hour12)),
    (b"HH", Some(Element::Hour12)),
    (b"YYYY", Some(Element::Year)),
    (b"YYY", None),
    (b"YY", Some(Element::YearInCentury)),
    (b"RRRR", Some(Element::RoundedYear)),
    (b"RR", Some(Element::RoundedYear)),
    (b"MONTH", Some(Element::MonthName)),
    (b"MON", Some(Element::MonthName)),
    (b"MM", Some(Element::MonthNumber)),
    (b"MI", Some(Element::Minute)),
    (b"DDD", None),
    (b"DD", Some(Element::Day)),
    (b"SS", Some(Element::Second)),
    (b"A.M.", Some(Element::Meridian)),
    (b"P.M.", Some(Element::Meridian)),
    (b"AM", Some(Element::Meridian)),
    (b"PM", Some(Element::Meridian)),
];

const PUNCTUATION: &[u8] = b"-/,.;: ";

/// Parses `text` as a DATE in the format model `format`; see the module documentation.
/// Missing fields default to the current year and month (of the local clock, as SYSDATE).
pub fn parse_date_with_format(text: &str, format: &str) -> Result<i64> {
    let today = chrono::Local::now().date_naive();
    parse_date_with_format_at(text, format, today.year() as i64, today.month())
}

/// [`parse_date_with_format`] with the current year and month given, for deterministic
/// defaults and RR resolution.
pub fn parse_date_with_format_at(
    text: &str,
    format: &str,
    current_year: i64,
    current_month: u32,
) -> Result<i64> {
    let elements = read_format(format)?;
    let mut cursor = Cursor::new(text);
    let mut parts = Parts::default();
    for element in elements {
        if element == Element::Punctuation {
            while cursor
                .peek()
                .is_some_and(|byte| !byte.is_ascii_alphanumeric())
            {
                cursor.position += 1;
            }
            continue;
        }
        cursor.skip_blanks();
        if cursor.peek().is_none() {
            // The text may end before the format: the fields left take their defaults.
            break;
        }
        read_element(&mut cursor, element, &mut parts, current_year)?;
    }
    cursor.skip_blanks();
    if cursor.peek().is_some() {
        return Err(errors::format_ends_before_input());
    }
    parts.to_date(current_year, current_month)
}

/// One piece of a format model as written.
enum Token<'a> {
    /// An element, with the keyword that named it (`MONTH` or `MON`, `YYYY` or `YY`).
    Element(Element<'a>, &'static [u8]),
    /// One punctuation character or blank.
    Punctuation(u8),
}

/// The pieces of a format model, left to right: quoted text (as `Element::Literal`),
/// punctuation, elements. ORA-01821 for an element this engine does not know or an
/// unclosed quote.
fn tokens(format: &str) -> Result<Vec<Token<'_>>> {
    let upper = format.to_ascii_uppercase();
    let bytes = upper.as_bytes();
    let mut tokens = Vec::new();
    let mut position = 0;
    while position < bytes.len() {
        let rest = &bytes[position..];
        if rest[0] == b'"' {
            // `to_ascii_uppercase` keeps byte positions, and quotes are ASCII, so these
            // positions are character boundaries of `format`.
            let length = rest[1..]
                .iter()
                .position(|byte| *byte == b'"')
                .ok_or_else(errors::date_format_not_recognized)?;
            let text = &format[position + 1..position + 1 + length];
            tokens.push(Token::Element(Element::Literal(text), b""));
            position += length + 2;
            continue;
        }
        if PUNCTUATION.contains(&rest[0]) {
            tokens.push(Token::Punctuation(rest[0]));
            position += 1;
            continue;
        }
        let (keyword, element) = KEYWORDS
            .iter()
            .find(|(keyword, _)| rest.starts_with(keyword))
            .ok_or_else(errors::date_format_not_recognized)?;
        let element = element.ok_or_else(errors::date_format_not_recognized)?;
        tokens.push(Token::Element(element, keyword));
        position += keyword.len();
    }
    Ok(tokens)
}

/// The format's elements; ORA-01821 for one this engine does not know, ORA-01810 for a
/// field named twice, ORA-01818 for HH24 with a meridian.
fn read_format(format: &str) -> Result<Vec<Element<'_>>> {
    let mut elements: Vec<Element> = Vec::new();
    let mut fields: Vec<Field> = Vec::new();
    for token in tokens(format)? {
        let element = match token {
            Token::Punctuation(_) if elements.last() == Some(&Element::Punctuation) => continue,
            Token::Punctuation(_) => Element::Punctuation,
            Token::Element(element, _) => element,
        };
        if let Some(field) = element.field() {
            if fields.contains(&field) {
                return Err(errors::format_code_twice());
            }
            fields.push(field);
        }
        elements.push(element);
    }
    if elements.contains(&Element::Hour24) && fields.contains(&Field::Meridian) {
        return Err(errors::hour24_precludes_meridian());
    }
    Ok(elements)
}

/// The fields read so far.
#[derive(Default)]
struct Parts {
    year: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    hour: Option<i64>,
    /// Whether the hour was read by HH or HH12 (1-12), which a meridian shifts.
    hour_of_half_day: bool,
    minute: Option<i64>,
    second: Option<i64>,
    afternoon: Option<bool>,
}

fn read_element(
    cursor: &mut Cursor,
    element: Element,
    parts: &mut Parts,
    current_year: i64,
) -> Result<()> {
    match element {
        Element::Year => {
            let (year, _) = digits(cursor, 4)?;
            parts.year = Some(checked_year(year)?);
        }
        Element::RoundedYear => {
            let (year, count) = digits(cursor, 4)?;
            let year = if count <= 2 {
                datetime::resolve_two_digit_year(year, current_year)
            } else {
                year
            };
            parts.year = Some(checked_year(year)?);
        }
        Element::YearInCentury => {
            let (year, _) = digits(cursor, 2)?;
            parts.year = Some(checked_year(current_year.div_euclid(100) * 100 + year)?);
        }
        Element::MonthNumber if cursor.peek().is_some_and(|byte| byte.is_ascii_alphabetic()) => {
            parts.month = Some(datetime::month_from_name(&cursor.letters())?);
        }
        Element::MonthNumber => {
            let (month, _) = digits(cursor, 2)?;
            if !(1..=12).contains(&month) {
                return Err(errors::not_a_valid_month());
            }
            parts.month = Some(month);
        }
        Element::MonthName => {
            parts.month = Some(datetime::month_from_name(&cursor.letters())?);
        }
        Element::Day => {
            let (day, _) = digits(cursor, 2)?;
            if !(1..=31).contains(&day) {
                return Err(errors::day_of_month_out_of_range());
            }
            parts.day = Some(day);
        }
        Element::Hour24 => {
            let (hour, _) = digits(cursor, 2)?;
            if hour > 23 {
                return Err(errors::hour_out_of_range_24());
            }
            parts.hour = Some(hour);
        }
        Element::Hour12 => {
            let (hour, _) = digits(cursor, 2)?;
            if !(1..=12).contains(&hour) {
                return Err(errors::hour_out_of_range_12());
            }
            parts.hour = Some(hour);
            parts.hour_of_half_day = true;
        }
        Element::Minute => {
            let (minute, _) = digits(cursor, 2)?;
            if minute > 59 {
                return Err(errors::minute_out_of_range());
            }
            parts.minute = Some(minute);
        }
        Element::Second => {
            let (second, _) = digits(cursor, 2)?;
            if second > 59 {
                return Err(errors::second_out_of_range());
            }
            parts.second = Some(second);
        }
        Element::Meridian => {
            parts.afternoon = Some(match cursor.letters().to_ascii_uppercase().as_str() {
                "AM" | "A" => false,
                "PM" | "P" => true,
                _ => return Err(errors::meridian_required()),
            });
        }
        Element::Literal(literal) => {
            for expected in literal.bytes() {
                match cursor.peek() {
                    Some(byte) if byte.eq_ignore_ascii_case(&expected) => cursor.position += 1,
                    _ => return Err(errors::literal_does_not_match_format()),
                }
            }
        }
        Element::Punctuation => {}
    }
    Ok(())
}

/// Up to `digits_max` digits; ORA-01858 when there is none.
fn digits(cursor: &mut Cursor, digits_max: usize) -> Result<(i64, usize)> {
    cursor
        .number_prefix(digits_max)
        .ok_or_else(errors::non_numeric_character)
}

fn checked_year(year: i64) -> Result<i64> {
    if year == 0 || !(YEAR_MIN..=YEAR_MAX).contains(&year) {
        return Err(errors::year_out_of_range());
    }
    Ok(year)
}

impl Parts {
    /// The DATE the fields name, with Oracle's defaults for the missing ones.
    fn to_date(&self, current_year: i64, current_month: u32) -> Result<i64> {
        let year = self.year.unwrap_or(current_year);
        let month = self.month.map_or(current_month, |month| month as u32);
        let day = self.day.unwrap_or(1);
        if day > datetime::days_in_month(year, month) as i64 {
            return Err(errors::date_not_valid_for_month());
        }
        let mut hour = self.hour.unwrap_or(0);
        if let (true, Some(afternoon)) = (self.hour_of_half_day, self.afternoon) {
            hour = hour % 12 + if afternoon { 12 } else { 0 };
        }
        let second_of_day = hour * 3600 + self.minute.unwrap_or(0) * 60 + self.second.unwrap_or(0);
        datetime::check_date_range(
            datetime::days_from_civil(year, month, day as u32) * SECONDS_PER_DAY + second_of_day,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses in November 2026, so that defaults and RR are fixed.
    fn parse(text: &str, format: &str) -> Result<String> {
        parse_date_with_format_at(text, format, 2026, 11).map(datetime::format_date_iso)
    }

    fn code(text: &str, format: &str) -> u32 {
        parse(text, format).unwrap_err().code()
    }

    #[test]
    fn common_formats() {
        assert_eq!(
            parse("2026-01-02", "YYYY-MM-DD").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("2026-01-02 13:45:09", "YYYY-MM-DD HH24:MI:SS").unwrap(),
            "2026-01-02 13:45:09"
        );
        assert_eq!(
            parse("02-JAN-2026", "DD-MON-YYYY").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("02-january-2026", "dd-month-yyyy").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("20260102", "YYYYMMDD").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("01/02/2026 07:05 PM", "MM/DD/YYYY HH:MI AM").unwrap(),
            "2026-01-02 19:05:00"
        );
        assert_eq!(
            parse("01/02/2026 12:05 a.m.", "MM/DD/YYYY HH12:MI P.M.").unwrap(),
            "2026-01-02 00:05:00"
        );
        assert_eq!(
            parse("2026T03", "YYYY\"T\"MM").unwrap(),
            "2026-03-01 00:00:00"
        );
    }

    /// Without FX, Oracle lets punctuation differ, numbers be short and the text end early.
    #[test]
    fn lenient_matching() {
        assert_eq!(
            parse("2026/1/2", "YYYY-MM-DD").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse(" 2026-01-02 ", "YYYY-MM-DD").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("2026-01-02", "YYYY-MM-DD HH24:MI:SS").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("2026-JAN-02", "YYYY-MM-DD").unwrap(),
            "2026-01-02 00:00:00",
            "MM reads a name"
        );
        assert_eq!(
            parse("02-JANUARY-26", "DD-MON-RR").unwrap(),
            "2026-01-02 00:00:00"
        );
        assert_eq!(
            parse("02-JAN-99", "DD-MON-RR").unwrap(),
            "1999-01-02 00:00:00"
        );
        assert_eq!(
            parse("02-JAN-1899", "DD-MON-RR").unwrap(),
            "1899-01-02 00:00:00"
        );
        assert_eq!(
            parse("02-JAN-99", "DD-MON-YY").unwrap(),
            "2099-01-02 00:00:00"
        );
    }

    #[test]
    fn missing_fields_take_oracle_defaults() {
        assert_eq!(parse("2024", "YYYY").unwrap(), "2024-11-01 00:00:00");
        assert_eq!(parse("10:30", "HH24:MI").unwrap(), "2026-11-01 10:30:00");
        assert_eq!(parse("15", "DD").unwrap(), "2026-11-15 00:00:00");
        assert_eq!(parse("", "YYYY").unwrap(), "2026-11-01 00:00:00");
        assert_eq!(
            parse("12:00", "HH:MI").unwrap(),
            "2026-11-01 12:00:00",
            "HH alone as written"
        );
    }

    #[test]
    fn errors_are_oracle_errors() {
        assert_eq!(code("2026-01-02", "YYYY-MM-DD FX"), 1821);
        assert_eq!(code("2026", "J"), 1821);
        assert_eq!(code("2026-001", "YYYY-DDD"), 1821);
        assert_eq!(code("12345", "SSSSS"), 1821);
        assert_eq!(code("2026", "YYY"), 1821);
        assert_eq!(code("2026", "\"unclosed"), 1821);
        assert_eq!(code("2026-01", "YYYY-MM-MON"), 1810);
        assert_eq!(code("2026 26", "YYYY RR"), 1810);
        assert_eq!(code("10 PM", "HH24 AM"), 1818);
        assert_eq!(code("2026-AB-01", "YYYY-DD-MM"), 1858);
        assert_eq!(code("2026-13-01", "YYYY-MM-DD"), 1843);
        assert_eq!(code("2026-FOO-01", "YYYY-MON-DD"), 1843);
        assert_eq!(code("2026-01-32", "YYYY-MM-DD"), 1847);
        assert_eq!(code("2026-02-29", "YYYY-MM-DD"), 1839);
        assert_eq!(code("2026-02-28 24", "YYYY-MM-DD HH24"), 1850);
        assert_eq!(code("2026-02-28 13", "YYYY-MM-DD HH"), 1849);
        assert_eq!(code("2026-02-28 0", "YYYY-MM-DD HH12"), 1849);
        assert_eq!(code("10:60", "HH24:MI"), 1851);
        assert_eq!(code("10:00:60", "HH24:MI:SS"), 1852);
        assert_eq!(code("0000-01-01", "YYYY-MM-DD"), 1841);
        assert_eq!(code("10 XM", "HH AM"), 1855);
        assert_eq!(code("2026x03", "YYYY\"T\"MM"), 1861);
        assert_eq!(code("2026-01-02 junk", "YYYY-MM-DD"), 1830);
        assert_eq!(code("20260", "YYYY"), 1830);
        assert!(parse("2024-02-29", "YYYY-MM-DD").is_ok());
    }

    /// Text that is not ASCII, or ends in the middle of anything, fails with an error and
    /// never panics.
    #[test]
    fn odd_input_never_panics() {
        for (text, format) in [
            ("é", "YYYY"),
            ("2026-é-01", "YYYY-MON-DD"),
            ("2026", "\"é\""),
            ("2026", "é"),
            ("2026é01é02", "YYYY-MM-DD"),
            ("9999999999999999999999", "YYYY"),
            ("2026-01-02 10", "YYYY-MM-DD HH:MI AM"),
            ("2026", "\"20"),
            ("2026", "\""),
            ("2", "\"2026\""),
        ] {
            let _ = parse(text, format);
        }
    }
}

/// TO_CHAR of a DATE or TIMESTAMP with a format model of the elements TO_DATE reads (the
/// module documentation lists them). Punctuation and quoted text are copied; MON and MONTH
/// print the month's name in capitals, MONTH padded to nine characters as Oracle pads it;
/// an element this engine does not know is ORA-01821.
pub fn format_date_with_format(civil: &datetime::CivilDateTime, format: &str) -> Result<String> {
    let mut out = String::new();
    let hour12 = match civil.hour % 12 {
        0 => 12,
        hour => hour,
    };
    let month = civil.month as usize - 1;
    for token in tokens(format)? {
        let (element, keyword) = match token {
            Token::Punctuation(byte) => {
                out.push(byte as char);
                continue;
            }
            Token::Element(element, keyword) => (element, keyword),
        };
        match element {
            Element::Year | Element::RoundedYear if keyword.len() == 4 => {
                out.push_str(&format!("{:04}", civil.year))
            }
            Element::Year | Element::RoundedYear | Element::YearInCentury => {
                out.push_str(&format!("{:02}", civil.year.rem_euclid(100)))
            }
            Element::MonthNumber => out.push_str(&format!("{:02}", civil.month)),
            Element::MonthName if keyword.len() == 5 => {
                out.push_str(&format!("{:<9}", datetime::MONTH_NAMES[month]))
            }
            Element::MonthName => out.push_str(datetime::MONTH_ABBREVIATIONS[month]),
            Element::Day => out.push_str(&format!("{:02}", civil.day)),
            Element::Hour24 => out.push_str(&format!("{:02}", civil.hour)),
            Element::Hour12 => out.push_str(&format!("{hour12:02}")),
            Element::Minute => out.push_str(&format!("{:02}", civil.minute)),
            Element::Second => out.push_str(&format!("{:02}", civil.second)),
            Element::Meridian => {
                let morning = civil.hour < 12;
                out.push_str(match (keyword.len() == 4, morning) {
                    (true, true) => "A.M.",
                    (true, false) => "P.M.",
                    (false, true) => "AM",
                    (false, false) => "PM",
                });
            }
            Element::Literal(text) => out.push_str(text),
            Element::Punctuation => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod format_tests {
    use super::*;

    #[test]
    fn dates_print_by_their_format_model() {
        let seconds =
            parse_date_with_format_at("2026-11-21 15:04:05", "YYYY-MM-DD HH24:MI:SS", 2026, 11)
                .unwrap();
        let civil = datetime::civil_from_date(seconds);
        let print = |format: &str| format_date_with_format(&civil, format).unwrap();
        assert_eq!(print("YYYY-MM-DD HH24:MI:SS"), "2026-11-21 15:04:05");
        assert_eq!(print("DD-MON-RR"), "21-NOV-26");
        assert_eq!(print("Month YYYY"), "NOVEMBER  2026");
        assert_eq!(print("HH:MI AM"), "03:04 PM");
        assert_eq!(print("\"Q\" YYYY/MM"), "Q 2026/11");
        assert_eq!(print("yyyymmdd"), "20261121");
        assert_eq!(
            format_date_with_format(&civil, "J").unwrap_err().code(),
            1821
        );
    }
}
