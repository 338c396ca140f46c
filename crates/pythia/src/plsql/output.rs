//! DBMS_OUTPUT's buffer: a session's lines, written by PUT, PUT_LINE and NEW_LINE while it
//! is enabled and read by GET_LINE / GET_LINES (the shell's SET SERVEROUTPUT ON, the
//! server's notices).
//!
//! The buffer is bounded: ENABLE's size (20,000 bytes by default, 2,000 to 1,000,000; NULL
//! for unlimited means [`OUTPUT_BYTES_MAX`] here), and a line at most [`LINE_BYTES_MAX`].
//! Past them PUT fails with ORU-10027 or ORU-10028, as Oracle's, and what was written stays.

use std::collections::VecDeque;

use crate::error::{Error, Result};

/// ENABLE's default size, in bytes.
pub const DEFAULT_BYTES: usize = 20_000;
/// The most a buffer holds, even when ENABLE asks for unlimited.
pub const OUTPUT_BYTES_MAX: usize = 1_000_000;
/// The longest line.
pub const LINE_BYTES_MAX: usize = 32_767;

#[derive(Debug, Default)]
pub struct Output {
    enabled: bool,
    limit: usize,
    lines: VecDeque<String>,
    /// What PUT wrote since the last line ended.
    partial: String,
    bytes: usize,
}

impl Output {
    /// `ENABLE(size)`: None is the default size, Some(None) unlimited (bounded here).
    pub fn enable(&mut self, size: Option<Option<usize>>) {
        self.enabled = true;
        self.limit = match size {
            None => DEFAULT_BYTES,
            Some(None) => OUTPUT_BYTES_MAX,
            Some(Some(size)) => size.clamp(2_000, OUTPUT_BYTES_MAX),
        };
    }

    /// `DISABLE`: what is buffered is dropped.
    pub fn disable(&mut self) {
        *self = Output::default();
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    pub fn put(&mut self, text: &str) -> Result<()> {
        if !self.enabled {
            return Ok(());
        }
        if self.partial.len() + text.len() > LINE_BYTES_MAX {
            return Err(Error::new(
                20000,
                format!(
                    "ORU-10028: line length overflow, limit of {LINE_BYTES_MAX} bytes per line"
                ),
            ));
        }
        if self.bytes + text.len() > self.limit {
            return Err(Error::new(
                20000,
                format!("ORU-10027: buffer overflow, limit of {} bytes", self.limit),
            ));
        }
        self.partial.push_str(text);
        self.bytes += text.len();
        Ok(())
    }

    pub fn put_line(&mut self, text: &str) -> Result<()> {
        self.put(text)?;
        self.new_line();
        Ok(())
    }

    pub fn new_line(&mut self) {
        if self.enabled {
            self.lines.push_back(std::mem::take(&mut self.partial));
        }
    }

    /// `GET_LINE`: the oldest complete line, or None (status 1).
    pub fn get_line(&mut self) -> Option<String> {
        let line = self.lines.pop_front()?;
        self.bytes -= line.len();
        Some(line)
    }

    /// `GET_LINES`: every complete line, oldest first.
    pub fn take_lines(&mut self) -> Vec<String> {
        let lines: Vec<String> = self.lines.drain(..).collect();
        self.bytes = self.partial.len();
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_kept_only_while_enabled() {
        let mut output = Output::default();
        output.put_line("lost").unwrap();
        assert!(output.take_lines().is_empty());
        output.enable(None);
        output.put("a").unwrap();
        output.put("b").unwrap();
        assert!(output.take_lines().is_empty(), "a line ends with NEW_LINE");
        output.new_line();
        output.put_line("c").unwrap();
        assert_eq!(output.get_line().as_deref(), Some("ab"));
        assert_eq!(output.take_lines(), vec!["c".to_string()]);
        assert_eq!(output.get_line(), None);
    }

    #[test]
    fn the_buffer_is_bounded() {
        let mut output = Output::default();
        output.enable(Some(Some(2_000)));
        let line = "x".repeat(1_000);
        output.put_line(&line).unwrap();
        output.put_line(&line).unwrap();
        let error = output.put_line("y").unwrap_err();
        assert!(error.message().starts_with("ORU-10027"), "{error}");
        assert_eq!(output.take_lines().len(), 2, "what was written stays");
        let long = "z".repeat(LINE_BYTES_MAX + 1);
        output.enable(Some(None));
        assert!(output
            .put(&long)
            .unwrap_err()
            .message()
            .starts_with("ORU-10028"));
    }
}
