pub mod commit;
pub mod crash;
