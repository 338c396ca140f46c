//! Redo: every change to a block is described by a redo record before the change can reach
//! disk, and a commit is durable when its record is.
//!
//! - [`mtr`]: the mini-transaction, which turns block edits into one redo record;
//! - [`record`]: the record format and the one function that applies a change vector;
//! - [`log`]: the log buffer, the online log files and LGWR (group commit), log switches;
//! - [`archive`]: ARC0, which archives full log sequences (`log_archive_dest`);
//! - [`adaptive`]: how committing sessions learn their redo is written (post/wait or polling);
//! - [`controlfile`]: where the checkpoint is, so that recovery knows where to start;
//! - [`recovery`]: rolling forward from the checkpoint after a crash.
pub mod adaptive;
pub mod archive;
pub mod controlfile;
pub mod log;
pub mod mtr;
pub mod record;
pub mod recovery;
