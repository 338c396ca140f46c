//! TEMPORARY stub: replaced by the views branch before landing.
use crate::instance::parameters::ParameterRow;
use crate::types::{DataType, Value};
pub struct FixedTable {
    pub columns: Vec<(String, DataType)>,
    pub rows: Vec<Vec<Value>>,
}
pub struct ViewContext {
    pub sid: u32,
    pub parameters: Vec<ParameterRow>,
}
pub fn fixed_table(_name: &str, _context: &ViewContext) -> Option<FixedTable> {
    None
}
