//! Where each node of a YAML document is: a map from a dotted path (`tools[3].params.limit`)
//! to its line and column.
//!
//! serde_yaml reports positions only for the errors it finds itself. Semantic errors (a
//! duplicate tool, an undeclared placeholder) are found on the typed catalog, by path; this
//! index turns such a path back into a position. It is built only when there is something
//! to report, so a valid catalog never pays for a second parse; and when only a few paths are
//! wanted (a warning or two on a large catalog), [`LocationIndex::build_for`] indexes just
//! those and stops as soon as it has them.

use std::collections::{HashMap, HashSet};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// A 1-based position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// Positions of a node: its value, and its key when it sits in a mapping.
#[derive(Debug, Clone, Copy)]
pub struct NodeLoc {
    pub key: Option<Pos>,
    pub value: Pos,
}

/// Path → position of every node in a document.
#[derive(Debug, Default)]
pub struct LocationIndex {
    nodes: HashMap<String, NodeLoc>,
}

impl LocationIndex {
    /// Indexes `text`; a document the event parser cannot read gives an empty index.
    pub fn build(text: &str) -> LocationIndex {
        let mut builder = Builder::default();
        let mut parser = Parser::new_from_str(text);
        let _ = parser.load(&mut builder, false);
        LocationIndex { nodes: builder.nodes }
    }

    /// Indexes only `paths` and their ancestors, skipping every other subtree, and stops
    /// reading once each of `paths` is found. [`find`](Self::find) answers for these paths as
    /// on the full index. On a catalog of 10,000 tools the full index costs about as much as
    /// the YAML parse itself, which two warnings about `product` should not.
    pub fn build_for(text: &str, paths: &[&str]) -> LocationIndex {
        let mut keep = HashSet::from([String::new()]);
        for p in paths {
            let mut q = *p;
            keep.insert(q.to_string());
            while let Some(cut) = q.rfind(['.', '[']) {
                q = &q[..cut];
                keep.insert(q.to_string());
            }
        }
        let mut missing: HashSet<&str> = paths.iter().copied().collect();
        let mut builder = Builder {
            keep: Some(keep),
            ..Builder::default()
        };
        let mut parser = Parser::new_from_str(text);
        // Depth inside a subtree that holds no wanted path.
        let mut skip = 0usize;
        while let Ok((ev, mark)) = parser.next_token() {
            match ev {
                Event::StreamEnd => break,
                Event::MappingStart(..) | Event::SequenceStart(..) if skip > 0 => skip += 1,
                Event::MappingEnd | Event::SequenceEnd if skip > 0 => skip -= 1,
                _ if skip > 0 => {}
                _ => {
                    if builder.event(ev, mark) {
                        skip = 1;
                    }
                }
            }
            if skip == 0 {
                missing.retain(|p| !builder.nodes.contains_key(*p));
                if missing.is_empty() {
                    break;
                }
            }
        }
        LocationIndex { nodes: builder.nodes }
    }

    /// The node at `path`, or the nearest ancestor that exists.
    pub fn find(&self, path: &str) -> Option<NodeLoc> {
        let mut p = path;
        loop {
            if let Some(loc) = self.nodes.get(p) {
                return Some(*loc);
            }
            let cut = p.rfind(['.', '['])?;
            p = &p[..cut];
        }
    }

    /// Whether `path` itself (not an ancestor) exists.
    pub fn contains(&self, path: &str) -> bool {
        self.nodes.contains_key(path)
    }
}

enum Frame {
    Map { path: String, key: Option<(String, Pos)> },
    Seq { path: String, next: usize },
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    nodes: HashMap<String, NodeLoc>,
    started: bool,
    /// The only paths to index (with [`LocationIndex::build_for`]); `None` indexes all.
    keep: Option<HashSet<String>>,
}

fn pos(mark: Marker) -> Pos {
    Pos {
        line: mark.line(),
        col: mark.col() + 1,
    }
}

fn insert(keep: &Option<HashSet<String>>, nodes: &mut HashMap<String, NodeLoc>, path: &str, loc: NodeLoc) {
    if keep.as_ref().is_none_or(|k| k.contains(path)) {
        nodes.insert(path.to_string(), loc);
    }
}

fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

impl Builder {
    fn kept(&self, path: &str) -> bool {
        self.keep.as_ref().is_none_or(|k| k.contains(path))
    }


    /// Handles one event; returns true when it starts a collection that holds no wanted path,
    /// which the caller then skips whole (no frame was pushed for it).
    fn event(&mut self, ev: Event, mark: Marker) -> bool {
        match ev {
            Event::Scalar(value, ..) => {
                self.node(Some(&value), mark);
            }
            Event::Alias(_) => {
                self.node(None, mark);
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                // A mapping used as a key is not supported by the catalog; index it anyway.
                let path = self.node(None, mark).unwrap_or_else(|| "?".into());
                if !self.kept(&path) {
                    return true;
                }
                self.stack.push(if matches!(ev, Event::MappingStart(..)) {
                    Frame::Map { path, key: None }
                } else {
                    Frame::Seq { path, next: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
        false
    }

    /// Called for each node that starts; returns its path when it is a value, or `None`
    /// when it was consumed as a mapping key.
    fn node(&mut self, scalar_key: Option<&str>, mark: Marker) -> Option<String> {
        match self.stack.last_mut() {
            None => {
                if self.started {
                    return None;
                }
                self.started = true;
                insert(
                    &self.keep,
                    &mut self.nodes,
                    "",
                    NodeLoc {
                        key: None,
                        value: pos(mark),
                    },
                );
                Some(String::new())
            }
            Some(Frame::Seq { path, next }) => {
                let p = format!("{path}[{next}]");
                *next += 1;
                insert(
                    &self.keep,
                    &mut self.nodes,
                    &p,
                    NodeLoc {
                        key: None,
                        value: pos(mark),
                    },
                );
                Some(p)
            }
            Some(Frame::Map { path, key }) => match key.take() {
                None => {
                    // A key: complex (non-scalar) keys are indexed under a placeholder name.
                    *key = Some((scalar_key.unwrap_or("?").to_string(), pos(mark)));
                    // The parser marks a block mapping where its first key ends; the mapping
                    // really starts at that key.
                    if let Some(node) = self.nodes.get_mut(path.as_str())
                        && (mark.line(), mark.col() + 1) < (node.value.line, node.value.col)
                    {
                        node.value = pos(mark);
                    }
                    None
                }
                Some((k, key_pos)) => {
                    let p = join(path, &k);
                    insert(
                        &self.keep,
                        &mut self.nodes,
                        &p,
                        NodeLoc {
                            key: Some(key_pos),
                            value: pos(mark),
                        },
                    );
                    Some(p)
                }
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        // The full index never skips: every collection is kept.
        self.event(ev, mark);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_keys_values_and_sequence_items() {
        let src = "version: 1\ntools:\n  - name: a\n    params:\n      limit: {type: integer}\n";
        let idx = LocationIndex::build(src);
        let v = idx.find("version").unwrap();
        assert_eq!(v.key, Some(Pos { line: 1, col: 1 }));
        assert_eq!(v.value, Pos { line: 1, col: 10 });
        let name = idx.find("tools[0].name").unwrap();
        assert_eq!(name.key, Some(Pos { line: 3, col: 5 }));
        assert_eq!(name.value, Pos { line: 3, col: 11 });
        let ty = idx.find("tools[0].params.limit.type").unwrap();
        assert_eq!(ty.value.line, 5);
        // A path below a scalar falls back to its nearest indexed ancestor.
        assert_eq!(idx.find("tools[0].name.nope").unwrap().value.line, 3);
    }

    #[test]
    fn a_partial_index_finds_what_the_full_one_does() {
        let src = "version: 1\nproduct: {name: p}\ntools:\n  - name: a\n    params: {x: {type: string}}\n  - name: b\n    params:\n      limit: {type: integer}\n";
        let full = LocationIndex::build(src);
        for path in [
            "tools[1].params.limit.type",
            "product.name",
            "product",
            "tools[0].params.x",
            "tools[1].name.nope",
            "tools[7].name",
            "",
        ] {
            let part = LocationIndex::build_for(src, &[path, "version"]);
            let (a, b) = (full.find(path), part.find(path));
            assert_eq!(a.map(|l| (l.key, l.value)), b.map(|l| (l.key, l.value)), "{path}");
            assert_eq!(full.contains(path), part.contains(path), "{path}");
        }
    }
}
