//! The parameter file, `init.ora`: reading it (the grammar in the module essay), and
//! rewriting it for `ALTER SYSTEM ... SCOPE=SPFILE | BOTH` through a temporary file and a
//! rename.

use std::io::{Read, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::parameters::definitions::index_of;
use crate::parameters::values::syntax_error;
use crate::parameters::{
    unknown_parameter, Parameters, SetScope, Value, DEFINITIONS, INIT_FILE_BYTES_MAX,
};

impl Parameters {
    /// Reads an `init.ora`-style file (see the module documentation for its grammar).
    pub fn load_file(path: &Path) -> Result<Parameters> {
        let cannot_open = |reason: String| {
            Error::new(
                1078,
                format!(
                    "failure in processing system parameters\n\
                     LRM-00109: could not open parameter file '{}' ({reason})",
                    path.display()
                ),
            )
        };
        let file = std::fs::File::open(path).map_err(|error| cannot_open(error.to_string()))?;
        let mut bytes = Vec::new();
        file.take(INIT_FILE_BYTES_MAX + 1)
            .read_to_end(&mut bytes)
            .map_err(|error| cannot_open(error.to_string()))?;
        if bytes.len() as u64 > INIT_FILE_BYTES_MAX {
            return Err(cannot_open(format!(
                "larger than {INIT_FILE_BYTES_MAX} bytes"
            )));
        }
        let text = std::str::from_utf8(&bytes).map_err(|error| {
            let line = bytes[..error.valid_up_to()]
                .iter()
                .filter(|&&byte| byte == b'\n')
                .count()
                + 1;
            at_line(
                Error::new(
                    1078,
                    "failure in processing system parameters\n\
                     LRM-00123: invalid character found in the input file (not UTF-8)",
                ),
                line,
                Some(path),
            )
        })?;
        parse_text(text, Some(path))
    }

    /// Reads the text of an `init.ora`-style file.
    pub fn parse(text: &str) -> Result<Parameters> {
        parse_text(text, None)
    }

    /// The parameter file's text: every value the file holds, in registry order.
    pub fn to_file_text(&self) -> String {
        let mut text = String::from(
            "# Pythia initialization parameters. Pythia rewrites this file for\n\
             # ALTER SYSTEM ... SCOPE=SPFILE or BOTH; comments are not kept.\n",
        );
        for (definition, setting) in DEFINITIONS.iter().zip(self.settings.iter()) {
            if let Some(value) = &setting.file_value {
                text.push_str(&format!(
                    "{} = {}\n",
                    definition.name,
                    file_value_text(value)
                ));
            }
        }
        text
    }

    /// Rewrites the parameter file (for `SCOPE=SPFILE` or `BOTH`): through a temporary file
    /// beside it and a rename, so that a crash leaves either the old file or the new one.
    pub fn write_file(&self, path: &Path) -> Result<()> {
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        let temporary = Path::new(&temporary);
        let write = || -> std::io::Result<()> {
            let mut file = std::fs::File::create(temporary)?;
            file.write_all(self.to_file_text().as_bytes())?;
            file.sync_all()?;
            std::fs::rename(temporary, path)?;
            // The rename is durable once the directory is synced; best effort, as not every
            // platform lets a directory be opened.
            if let Some(parent) = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
            {
                if let Ok(directory) = std::fs::File::open(parent) {
                    let _ = directory.sync_all();
                }
            }
            Ok(())
        };
        write().map_err(|error| {
            let _ = std::fs::remove_file(temporary);
            Error::io(path, error)
        })
    }
}

/// Adds where in the parameter file an error was found, at the end of its last line.
fn at_line(error: Error, line: usize, path: Option<&Path>) -> Error {
    let place = match path {
        Some(path) => format!("line {line} of {}", path.display()),
        None => format!("line {line}"),
    };
    Error::new(error.code(), format!("{} ({place})", error.message()))
}

fn parse_text(text: &str, path: Option<&Path>) -> Result<Parameters> {
    let mut parameters = Parameters::defaults();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        parse_line(&mut parameters, line).map_err(|error| at_line(error, index + 1, path))?;
    }
    Ok(parameters)
}

/// One `name = value` line, trimmed, not blank and not a comment.
fn parse_line(parameters: &mut Parameters, line: &str) -> Result<()> {
    let Some(equals) = line.find('=') else {
        return Err(syntax_error("end of line", line));
    };
    // `*.name`: the "every instance" prefix of files written by Oracle's CREATE PFILE.
    let name = line[..equals].trim();
    let name = name.strip_prefix("*.").unwrap_or(name);
    if name.is_empty() {
        return Err(syntax_error("=", "start of line"));
    }
    let value = read_value(&line[equals + 1..])?;
    let index = index_of(name).ok_or_else(|| unknown_parameter(name, SetScope::InitFile))?;
    parameters.assign(index, value, SetScope::InitFile)
}

/// The value of a parameter file line, given what follows the `=`: up to a `#` outside
/// quotes, trimmed, without quotes that enclose all of it.
fn read_value(part: &str) -> Result<&str> {
    let mut quote = None;
    let mut end = part.len();
    for (position, character) in part.char_indices() {
        match quote {
            Some(open) if character == open => quote = None,
            Some(_) => {}
            None if character == '#' => {
                end = position;
                break;
            }
            None if character == '\'' || character == '"' => quote = Some(character),
            None => {}
        }
    }
    if let Some(open) = quote {
        return Err(syntax_error("end of line", &format!("unterminated {open}")));
    }
    let value = part[..end].trim();
    if value.is_empty() {
        return Err(syntax_error("end of line", "="));
    }
    Ok(unquote_whole(value))
}

/// `'text'` or `"text"` without the quotes, when they enclose all of it; otherwise the text.
pub(super) fn unquote_whole(text: &str) -> &str {
    let Some(quote) = text
        .chars()
        .next()
        .filter(|first| *first == '\'' || *first == '"')
    else {
        return text;
    };
    // The quote is one ASCII byte.
    let rest = &text[1..];
    match rest.find(quote) {
        Some(close) if close + 1 == rest.len() => &rest[..close],
        _ => text,
    }
}

/// How to write a string value in the parameter file so that reading it gives it back: as is
/// when that works, otherwise in quotes it does not contain. `None` when neither works.
pub(super) fn file_text(text: &str) -> Option<String> {
    let reads_back =
        |written: &str| !written.contains(['\n', '\r']) && read_value(written).ok() == Some(text);
    if reads_back(text) {
        return Some(text.to_string());
    }
    ['"', '\'']
        .iter()
        .map(|quote| format!("{quote}{text}{quote}"))
        .find(|quoted| reads_back(quoted))
}

fn file_value_text(value: &Value) -> String {
    match value {
        // Every string held passed `parse_value`, which checked that it can be written.
        Value::Text(text) => file_text(text).unwrap_or_else(|| format!("\"{text}\"")),
        other => other.to_string(),
    }
}
