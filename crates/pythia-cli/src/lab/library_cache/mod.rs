pub mod hotcursor;
pub mod parse;
pub mod slammer;
