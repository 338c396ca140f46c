use super::Group;

pub mod commit;
pub mod crash;

pub const GROUP: Group = Group {
    name: "redo",
    chapter: "docs/lab-commit.md, docs/architecture/redo.md",
};
