//! The crate's layers import one way: each top-level module of `src/` may name (`crate::x`)
//! only the modules below it in [`LAYERS`], never one above, so that there is no cycle
//! between folders. `docs/architecture.md` draws the same order. Test code (`#[cfg(test)]`
//! modules, `tests.rs` files and `tests/` folders) may reach anywhere.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// The layers, lowest first.
const LAYERS: &[&str] = &[
    "error",
    "types",
    "scram",
    "parameters",
    "instrumentation",
    "io",
    "buffer",
    "redo",
    "access",
    "transaction",
    "syntax",
    "library_cache",
    "catalog",
    "instance",
    "views",
    "sql",
    "plsql",
    "session",
];

/// The crate root's re-exports (`lib.rs`), by the layer each comes from.
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("Error", "error"),
    ("Result", "error"),
    ("Value", "types"),
    ("Instance", "instance"),
    ("Session", "session"),
    ("Prepared", "session"),
    ("StatementResult", "session"),
    ("Column", "session"),
    ("Description", "session"),
    ("DescribeColumn", "session"),
];

/// The production source of `path`: without a trailing `#[cfg(test)]` module.
fn production_source(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The top-level modules that the source files under `dir` name as `crate::x`.
fn imports(dir: &Path, found: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            imports(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs")
            && path.file_name().unwrap() != "tests.rs"
            && !path.components().any(|part| part.as_os_str() == "tests")
        {
            let text = production_source(&path);
            let mut rest = text.as_str();
            while let Some(at) = rest.find("crate::") {
                rest = &rest[at + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                found.push((path.display().to_string(), name));
            }
        }
    }
}

#[test]
fn every_layer_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeSet::new();
    for entry in fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if stem != "lib" {
            modules.insert(stem);
        }
    }
    let listed: BTreeSet<String> = LAYERS.iter().map(|layer| layer.to_string()).collect();
    assert_eq!(
        modules, listed,
        "every top-level module has its place in LAYERS"
    );
    let mut violations = Vec::new();
    for (level, layer) in LAYERS.iter().enumerate() {
        let mut found = Vec::new();
        let folder = src.join(layer);
        if folder.is_dir() {
            imports(&folder, &mut found);
        } else {
            let file = src.join(format!("{layer}.rs"));
            let text = production_source(&file);
            for (at, _) in text.match_indices("crate::") {
                let name: String = text[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                found.push((file.display().to_string(), name));
            }
        }
        for (file, name) in found {
            let name = ROOT_ITEMS
                .iter()
                .find(|(item, _)| *item == name)
                .map_or(name.as_str(), |(_, layer)| *layer);
            match LAYERS.iter().position(|other| *other == name) {
                Some(other) if other > level => {
                    violations.push(format!("{file}: {layer} imports {name}, a layer above it"))
                }
                Some(_) => {}
                None => violations.push(format!("{file}: crate::{name} is no known layer")),
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}
