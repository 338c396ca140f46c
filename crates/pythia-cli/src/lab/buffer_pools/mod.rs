pub mod advice;
pub mod hitpath;
pub mod midpoint;
pub mod scan;
pub mod stuffer;
