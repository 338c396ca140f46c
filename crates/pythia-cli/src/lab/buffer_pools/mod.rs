use super::Group;

pub mod advice;
pub mod hitpath;
pub mod midpoint;
pub mod scan;
pub mod stuffer;

pub const GROUP: Group = Group {
    name: "buffer pools",
    chapter: "docs/lab-buffer-pools.md",
};
