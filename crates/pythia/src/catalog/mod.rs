//! The data dictionary (stub while it lands).

pub struct Catalog {}

impl Catalog {
    pub fn empty() -> Catalog {
        Catalog {}
    }
}
