pub mod advice;
pub mod hitpath;
pub mod scan;
pub mod stuffer;
