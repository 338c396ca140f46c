//! DATE and TIMESTAMP: the calendar, the default NLS text forms, and parsing.
//!
//! A DATE is seconds since 1970-01-01 00:00:00 and a TIMESTAMP microseconds since then, both
//! without a time zone (Oracle's DATE and TIMESTAMP carry none either). The calendar is the
//! proleptic Gregorian one with astronomical year numbering (year 0 is 1 BC); Oracle switches
//! to the Julian calendar before 1582-10-15, which this engine does not model.
//!
//! Text forms, as with Oracle's default (AMERICAN) NLS settings:
//!
//! ```text
//!   NLS_DATE_FORMAT       DD-MON-RR                     21-NOV-26
//!   NLS_TIMESTAMP_FORMAT  DD-MON-RR HH.MI.SSXFF AM      21-NOV-26 07.38.09.000000 AM
//! ```
//!
//! Accepted input (case-insensitive, surrounding blanks ignored, month as `NOV` or `NOVEMBER`):
//!
//! ```text
//!   YYYY-MM-DD [HH24:MI:SS[.FF]]         2026-11-21 19:38:09.5   ('T' may separate the time)
//!   DD-MON-RR  [HH24:MI:SS[.FF]]         21-NOV-26               (RR: two-digit year, see below)
//!   DD-MON-YYYY [HH.MI.SS[.FF] AM|PM]    21-NOV-2026 07.38.09.000000 PM
//! ```
//!
//! RR picks the century so that the year lands within 50 years of the current one: in
//! 2000-2049, `00`-`49` mean 20xx and `50`-`99` mean 19xx; in 2050-2099, `00`-`49` mean 21xx.
//!
//! Failures are Oracle's: ORA-01861 (text in no accepted form), ORA-01843 (month),
//! ORA-01847 (day), ORA-01849/ORA-01850/ORA-01851/ORA-01852 (hour/minute/second),
//! ORA-01841 (year outside -4712..9999), ORA-01830 (text left over).

use chrono::Datelike;

use super::errors;
use crate::error::Result;

pub const SECONDS_PER_DAY: i64 = 86_400;
pub const MICROSECONDS_PER_SECOND: i64 = 1_000_000;
pub const MICROSECONDS_PER_DAY: i64 = SECONDS_PER_DAY * MICROSECONDS_PER_SECOND;

/// The first year a DATE may hold (4713 BC in astronomical numbering).
pub const YEAR_MIN: i64 = -4712;
/// The last year a DATE may hold.
pub const YEAR_MAX: i64 = 9999;

pub(crate) const MONTH_ABBREVIATIONS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
pub(crate) const MONTH_NAMES: [&str; 12] = [
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
];

/// A broken-down DATE or TIMESTAMP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CivilDateTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub microsecond: u32,
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let month = month as i64;
    let day = day as i64;
    let year = if month <= 2 { year - 1 } else { year };
    let era = if year >= 0 { year } else { year - 399 } / 400;
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date `days` after 1970-01-01. Total over every `i64` a DATE or
/// TIMESTAMP can produce (|days| < 2^47).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = if shifted >= 0 {
        shifted
    } else {
        shifted - 146_096
    } / 146_097;
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + if month <= 2 { 1 } else { 0 };
    (year, month, day)
}

pub fn is_leap_year(year: i64) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap_year(year) => 29,
        _ => 28,
    }
}

/// Seconds since the epoch of the first second of [`YEAR_MIN`].
pub fn date_seconds_min() -> i64 {
    days_from_civil(YEAR_MIN, 1, 1) * SECONDS_PER_DAY
}

/// Seconds since the epoch of the last second of [`YEAR_MAX`].
pub fn date_seconds_max() -> i64 {
    days_from_civil(YEAR_MAX + 1, 1, 1) * SECONDS_PER_DAY - 1
}

/// ORA-01841 unless `seconds` lies within the years a DATE may hold.
pub fn check_date_range(seconds: i64) -> Result<i64> {
    if seconds < date_seconds_min() || seconds > date_seconds_max() {
        return Err(errors::year_out_of_range());
    }
    Ok(seconds)
}

/// ORA-01841 unless `microseconds` lies within the years a TIMESTAMP may hold.
pub fn check_timestamp_range(microseconds: i64) -> Result<i64> {
    check_date_range(microseconds.div_euclid(MICROSECONDS_PER_SECOND))?;
    Ok(microseconds)
}

pub fn civil_from_date(seconds: i64) -> CivilDateTime {
    civil_from_timestamp_parts(seconds, 0)
}

pub fn civil_from_timestamp(microseconds: i64) -> CivilDateTime {
    civil_from_timestamp_parts(
        microseconds.div_euclid(MICROSECONDS_PER_SECOND),
        microseconds.rem_euclid(MICROSECONDS_PER_SECOND) as u32,
    )
}

fn civil_from_timestamp_parts(seconds: i64, microsecond: u32) -> CivilDateTime {
    let (year, month, day) = civil_from_days(seconds.div_euclid(SECONDS_PER_DAY));
    let second_of_day = seconds.rem_euclid(SECONDS_PER_DAY) as u32;
    CivilDateTime {
        year,
        month,
        day,
        hour: second_of_day / 3600,
        minute: second_of_day / 60 % 60,
        second: second_of_day % 60,
        microsecond,
    }
}

/// A DATE in the default NLS_DATE_FORMAT `DD-MON-RR`, e.g. `21-NOV-26`.
pub fn format_date(seconds: i64) -> String {
    let civil = civil_from_date(seconds);
    format!(
        "{:02}-{}-{:02}",
        civil.day,
        MONTH_ABBREVIATIONS[civil.month as usize - 1],
        civil.year.rem_euclid(100)
    )
}

/// A TIMESTAMP in the default NLS_TIMESTAMP_FORMAT `DD-MON-RR HH.MI.SSXFF AM`,
/// e.g. `21-NOV-26 07.38.09.000000 AM`.
pub fn format_timestamp(microseconds: i64) -> String {
    let civil = civil_from_timestamp(microseconds);
    let hour_of_half_day = match civil.hour % 12 {
        0 => 12,
        hour => hour,
    };
    format!(
        "{:02}-{}-{:02} {:02}.{:02}.{:02}.{:06} {}",
        civil.day,
        MONTH_ABBREVIATIONS[civil.month as usize - 1],
        civil.year.rem_euclid(100),
        hour_of_half_day,
        civil.minute,
        civil.second,
        civil.microsecond,
        if civil.hour < 12 { "AM" } else { "PM" }
    )
}

/// A DATE as `YYYY-MM-DD HH24:MI:SS`, unambiguous, for traces and diagnostics.
pub fn format_date_iso(seconds: i64) -> String {
    let civil = civil_from_date(seconds);
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
        civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second
    )
}

/// ADD_MONTHS(date, months) with Oracle's rule for month ends: when the date is the last day
/// of its month, or the resulting month is shorter than the date's day, the result is the
/// last day of the resulting month (`31-JAN-26` + 1 is `28-FEB-26`, `28-FEB-26` + 1 is
/// `31-MAR-26`). The time of day is kept. ORA-01841 when the result leaves the years a DATE
/// may hold.
pub fn add_months(seconds: i64, months: i64) -> Result<i64> {
    let civil = civil_from_date(seconds);
    let month_index = civil
        .year
        .checked_mul(12)
        .and_then(|index| index.checked_add(civil.month as i64 - 1))
        .and_then(|index| index.checked_add(months))
        .ok_or_else(errors::year_out_of_range)?;
    let year = month_index.div_euclid(12);
    let month = month_index.rem_euclid(12) as u32 + 1;
    if !(YEAR_MIN..=YEAR_MAX).contains(&year) {
        return Err(errors::year_out_of_range());
    }
    let last_day = days_in_month(year, month);
    let day = if civil.day == days_in_month(civil.year, civil.month) {
        last_day
    } else {
        civil.day.min(last_day)
    };
    let second_of_day = seconds.rem_euclid(SECONDS_PER_DAY);
    check_date_range(days_from_civil(year, month, day) * SECONDS_PER_DAY + second_of_day)
}

/// The current year, for the RR century rule.
pub fn current_year() -> i64 {
    chrono::Utc::now().year() as i64
}

/// The four-digit year an RR two-digit year means in `current_year`.
pub fn resolve_two_digit_year(two_digit_year: i64, current_year: i64) -> i64 {
    let century = current_year.div_euclid(100) * 100;
    let current_two_digits = current_year.rem_euclid(100);
    match (current_two_digits < 50, two_digit_year < 50) {
        (true, true) | (false, false) => century + two_digit_year,
        (true, false) => century - 100 + two_digit_year,
        (false, true) => century + 100 + two_digit_year,
    }
}

/// Parses DATE text (see the module documentation); fractional seconds are dropped.
pub fn parse_date(text: &str) -> Result<i64> {
    parse_date_in_year(text, current_year())
}

/// Parses TIMESTAMP text (see the module documentation) into microseconds.
pub fn parse_timestamp(text: &str) -> Result<i64> {
    parse_timestamp_in_year(text, current_year())
}

/// [`parse_date`] with the current year given, for deterministic RR resolution.
pub fn parse_date_in_year(text: &str, current_year: i64) -> Result<i64> {
    let microseconds = parse_timestamp_in_year(text, current_year)?;
    Ok(microseconds.div_euclid(MICROSECONDS_PER_SECOND))
}

/// [`parse_timestamp`] with the current year given, for deterministic RR resolution.
pub fn parse_timestamp_in_year(text: &str, current_year: i64) -> Result<i64> {
    let mut cursor = Cursor {
        bytes: text.trim().as_bytes(),
        position: 0,
    };
    let (first, first_digits) = cursor
        .number(1, 4)
        .ok_or_else(errors::literal_does_not_match_format)?;
    if !cursor.eat(b'-') {
        return Err(errors::literal_does_not_match_format());
    }
    let (year, month, day) = if cursor.peek().is_some_and(|byte| byte.is_ascii_alphabetic()) {
        // DD-MON-RR or DD-MON-YYYY
        if first_digits > 2 {
            return Err(errors::literal_does_not_match_format());
        }
        let month = month_from_name(&cursor.letters())?;
        if !cursor.eat(b'-') {
            return Err(errors::literal_does_not_match_format());
        }
        let (year, year_digits) = cursor
            .number(1, 4)
            .ok_or_else(errors::literal_does_not_match_format)?;
        let year = if year_digits <= 2 {
            resolve_two_digit_year(year, current_year)
        } else {
            year
        };
        (year, month, first)
    } else {
        // YYYY-MM-DD
        let (month, _) = cursor
            .number(1, 2)
            .ok_or_else(errors::literal_does_not_match_format)?;
        if !cursor.eat(b'-') {
            return Err(errors::literal_does_not_match_format());
        }
        let (day, _) = cursor
            .number(1, 2)
            .ok_or_else(errors::literal_does_not_match_format)?;
        (first, month, day)
    };
    if year == 0 || !(YEAR_MIN..=YEAR_MAX).contains(&year) {
        return Err(errors::year_out_of_range());
    }
    if !(1..=12).contains(&month) {
        return Err(errors::not_a_valid_month());
    }
    let month = month as u32;
    if day < 1 || day > days_in_month(year, month) as i64 {
        return Err(errors::day_of_month_out_of_range());
    }
    let days = days_from_civil(year, month, day as u32);
    let time_microseconds = parse_time_of_day(&mut cursor)?;
    cursor.skip_blanks();
    if cursor.peek().is_some() {
        return Err(errors::format_ends_before_input());
    }
    check_timestamp_range(days * MICROSECONDS_PER_DAY + time_microseconds)
}

/// The optional time after the date, as microseconds since midnight (may round up to
/// 86_400_000_000 when the fraction rounds up at 23:59:59.9999995).
fn parse_time_of_day(cursor: &mut Cursor) -> Result<i64> {
    let had_blank = cursor.skip_blanks();
    if cursor.peek().is_none() {
        return Ok(0);
    }
    if !had_blank && !cursor.eat(b'T') && !cursor.eat(b't') {
        return Err(errors::literal_does_not_match_format());
    }
    let (hour, _) = cursor
        .number(1, 2)
        .ok_or_else(errors::literal_does_not_match_format)?;
    let separator = match cursor.peek() {
        Some(byte @ (b':' | b'.')) => byte,
        _ => return Err(errors::literal_does_not_match_format()),
    };
    cursor.position += 1;
    let (minute, _) = cursor
        .number(1, 2)
        .ok_or_else(errors::literal_does_not_match_format)?;
    let second = if cursor.eat(separator) {
        cursor
            .number(1, 2)
            .ok_or_else(errors::literal_does_not_match_format)?
            .0
    } else {
        0
    };
    let mut microsecond: i64 = 0;
    if cursor.eat(b'.') {
        let start = cursor.position;
        let mut scale: i64 = 100_000;
        let mut rounding_digit_seen = false;
        while let Some(byte) = cursor.peek().filter(u8::is_ascii_digit) {
            let digit = (byte - b'0') as i64;
            if scale > 0 {
                microsecond += digit * scale;
                scale /= 10;
            } else if !rounding_digit_seen {
                // Round half up on the seventh fractional digit, as TIMESTAMP(6) does.
                rounding_digit_seen = true;
                if digit >= 5 {
                    microsecond += 1;
                }
            }
            cursor.position += 1;
        }
        if cursor.position == start {
            return Err(errors::literal_does_not_match_format());
        }
    }
    let save = cursor.position;
    cursor.skip_blanks();
    let meridian = match cursor.letters().to_ascii_uppercase().as_str() {
        "AM" | "A" => Some(false),
        "PM" | "P" => Some(true),
        "" => {
            cursor.position = save;
            None
        }
        _ => return Err(errors::literal_does_not_match_format()),
    };
    let hour = match meridian {
        Some(afternoon) => {
            if !(1..=12).contains(&hour) {
                return Err(errors::hour_out_of_range_12());
            }
            hour % 12 + if afternoon { 12 } else { 0 }
        }
        None => {
            if hour > 23 {
                return Err(errors::hour_out_of_range_24());
            }
            hour
        }
    };
    if minute > 59 {
        return Err(errors::minute_out_of_range());
    }
    if second > 59 {
        return Err(errors::second_out_of_range());
    }
    Ok((hour * 3600 + minute * 60 + second) * MICROSECONDS_PER_SECOND + microsecond)
}

/// The month (1-12) a name means, abbreviated (`NOV`) or in full (`NOVEMBER`), in any case;
/// ORA-01843 for anything else.
pub(super) fn month_from_name(name: &str) -> Result<i64> {
    let upper = name.to_ascii_uppercase();
    MONTH_ABBREVIATIONS
        .iter()
        .position(|abbreviation| *abbreviation == upper)
        .or_else(|| MONTH_NAMES.iter().position(|full| *full == upper))
        .map(|index| index as i64 + 1)
        .ok_or_else(errors::not_a_valid_month)
}

/// A position in ASCII text being parsed (datetime text here and in `date_format.rs`).
pub(super) struct Cursor<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) position: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            bytes: text.as_bytes(),
            position: 0,
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.position).copied()
    }

    pub(super) fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.position += 1;
            true
        } else {
            false
        }
    }

    /// Skips blanks; says whether there were any.
    pub(super) fn skip_blanks(&mut self) -> bool {
        let start = self.position;
        while self.peek().is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.position += 1;
        }
        self.position > start
    }

    /// Between `digits_min` and `digits_max` decimal digits, with how many there were. More
    /// digits than `digits_max` is no match.
    fn number(&mut self, digits_min: usize, digits_max: usize) -> Option<(i64, usize)> {
        let start = self.position;
        let mut value: i64 = 0;
        while let Some(byte) = self.peek().filter(u8::is_ascii_digit) {
            if self.position - start == digits_max {
                return None;
            }
            value = value * 10 + (byte - b'0') as i64;
            self.position += 1;
        }
        let count = self.position - start;
        (count >= digits_min).then_some((value, count))
    }

    /// At most `digits_max` decimal digits, stopping there even when more follow (so that
    /// `20260102` reads as `YYYY`, `MM`, `DD`), with how many there were; None without one.
    pub(super) fn number_prefix(&mut self, digits_max: usize) -> Option<(i64, usize)> {
        let start = self.position;
        let mut value: i64 = 0;
        while self.position - start < digits_max {
            let Some(byte) = self.peek().filter(u8::is_ascii_digit) else {
                break;
            };
            value = value * 10 + (byte - b'0') as i64;
            self.position += 1;
        }
        let count = self.position - start;
        (count > 0).then_some((value, count))
    }

    /// ASCII letters and dots (for `A.M.`), dots removed.
    pub(super) fn letters(&mut self) -> String {
        let mut word = String::new();
        while let Some(byte) = self
            .peek()
            .filter(|byte| byte.is_ascii_alphabetic() || *byte == b'.')
        {
            if byte != b'.' {
                word.push(byte as char);
            }
            self.position += 1;
        }
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> i64 {
        parse_date_in_year(text, 2026).unwrap()
    }

    #[test]
    fn calendar_round_trips_across_eras() {
        for days in [
            -2_500_000i64,
            -719_468,
            -1,
            0,
            1,
            59,
            365,
            10_957,
            2_932_896,
        ] {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, month, day),
                days,
                "{year}-{month}-{day}"
            );
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn default_formats_match_oracle() {
        let seconds = date("2026-11-21 07:38:09");
        assert_eq!(format_date(seconds), "21-NOV-26");
        assert_eq!(
            format_timestamp(seconds * MICROSECONDS_PER_SECOND),
            "21-NOV-26 07.38.09.000000 AM"
        );
        assert_eq!(
            format_timestamp(date("2026-11-21") * MICROSECONDS_PER_SECOND),
            "21-NOV-26 12.00.00.000000 AM"
        );
        assert_eq!(
            format_timestamp(parse_timestamp_in_year("2026-11-21 13:05:00.25", 2026).unwrap()),
            "21-NOV-26 01.05.00.250000 PM"
        );
        assert_eq!(format_date_iso(seconds), "2026-11-21 07:38:09");
    }

    #[test]
    fn accepted_input_forms() {
        let expected = date("2026-11-21");
        assert_eq!(date("21-NOV-26"), expected);
        assert_eq!(date("21-nov-2026"), expected);
        assert_eq!(date("21-November-2026"), expected);
        assert_eq!(date("  2026-11-21  "), expected);
        assert_eq!(date("2026-11-21T00:00:00"), expected);
        assert_eq!(
            date("21-NOV-26 07.38.09.000000 PM"),
            expected + 19 * 3600 + 38 * 60 + 9
        );
        assert_eq!(date("21-NOV-26 12.00.00 AM"), expected);
        assert_eq!(
            parse_timestamp_in_year("21-NOV-26 07.38.09.123456 AM", 2026).unwrap(),
            (expected + 7 * 3600 + 38 * 60 + 9) * MICROSECONDS_PER_SECOND + 123_456
        );
    }

    #[test]
    fn two_digit_years_follow_the_rr_rule() {
        assert_eq!(resolve_two_digit_year(26, 2026), 2026);
        assert_eq!(resolve_two_digit_year(49, 2026), 2049);
        assert_eq!(resolve_two_digit_year(50, 2026), 1950);
        assert_eq!(resolve_two_digit_year(99, 2026), 1999);
        assert_eq!(resolve_two_digit_year(10, 2075), 2110);
        assert_eq!(resolve_two_digit_year(80, 2075), 2080);
    }

    #[test]
    fn invalid_input_raises_oracle_errors() {
        let code = |text: &str| parse_date_in_year(text, 2026).unwrap_err().code();
        assert_eq!(code("hello"), 1861);
        assert_eq!(code("21-FOO-26"), 1843);
        assert_eq!(code("2026-13-01"), 1843);
        assert_eq!(code("2026-02-29"), 1847);
        assert_eq!(code("2026-01-01 24:00:00"), 1850);
        assert_eq!(code("2026-01-01 13.00.00 PM"), 1849);
        assert_eq!(code("2026-01-01 10:60:00"), 1851);
        assert_eq!(code("2026-01-01 10:00:60"), 1852);
        assert_eq!(code("0000-01-01"), 1841);
        assert_eq!(code("2026-01-01 10:00:00 junk"), 1861);
        assert_eq!(code("2026-01-01 10:00:00 PM x"), 1830);
        assert!(date("2024-02-29") > 0);
    }

    /// ADD_MONTHS keeps month ends at month ends and clamps days the new month lacks.
    #[test]
    fn add_months_follows_the_month_end_rule() {
        let add =
            |text: &str, months: i64| format_date_iso(add_months(date(text), months).unwrap());
        assert_eq!(add("2026-01-15 10:30:00", 1), "2026-02-15 10:30:00");
        assert_eq!(add("2026-01-31", 1), "2026-02-28 00:00:00", "clamped");
        assert_eq!(add("2024-01-31", 1), "2024-02-29 00:00:00", "leap year");
        assert_eq!(
            add("2026-02-28", 1),
            "2026-03-31 00:00:00",
            "last day stays last"
        );
        assert_eq!(add("2024-02-29", 12), "2025-02-28 00:00:00");
        assert_eq!(
            add("2024-02-28", 12),
            "2025-02-28 00:00:00",
            "not the last day"
        );
        assert_eq!(add("2026-04-30 23:59:59", -2), "2026-02-28 23:59:59");
        assert_eq!(add("2026-03-31", -1), "2026-02-28 00:00:00");
        assert_eq!(add("2026-05-30", -3), "2026-02-28 00:00:00");
        assert_eq!(
            add("2026-01-15", -13),
            "2024-12-15 00:00:00",
            "across years"
        );
        assert_eq!(add("2026-01-15", 0), "2026-01-15 00:00:00");
        assert_eq!(add("9999-11-30", 1), "9999-12-31 00:00:00");
        assert_eq!(add_months(date("9999-12-01"), 1).unwrap_err().code(), 1841);
        assert_eq!(
            add_months(date("2026-01-01"), i64::MAX).unwrap_err().code(),
            1841,
            "no overflow"
        );
        assert_eq!(
            add_months(date("2026-01-01"), i64::MIN).unwrap_err().code(),
            1841
        );
    }

    #[test]
    fn range_checks_cover_the_oracle_years() {
        assert!(check_date_range(date_seconds_max()).is_ok());
        assert_eq!(
            check_date_range(date_seconds_max() + 1).unwrap_err().code(),
            1841
        );
        assert!(check_date_range(date_seconds_min()).is_ok());
        assert_eq!(
            check_date_range(date_seconds_min() - 1).unwrap_err().code(),
            1841
        );
    }
}
