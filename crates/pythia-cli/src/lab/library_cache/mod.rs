use super::Group;

pub mod hotcursor;
pub mod parse;
pub mod slammer;

pub const GROUP: Group = Group {
    name: "library cache",
    chapter: "docs/lab-library-cache.md",
};
