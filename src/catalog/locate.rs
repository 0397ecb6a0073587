//! Where each node of a YAML document is: a map from a dotted path (`tools[3].params.limit`)
//! to its line and column.
//!
//! serde_yaml reports positions only for the errors it finds itself. Semantic errors (a
//! duplicate tool, an undeclared placeholder) are found on the typed catalog, by path; this
//! index turns such a path back into a position. It is built only when there is something
//! to report, so a valid catalog never pays for a second parse.

use std::collections::HashMap;
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
}

fn pos(mark: Marker) -> Pos {
    Pos {
        line: mark.line(),
        col: mark.col() + 1,
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
    /// Called for each node that starts; returns its path when it is a value, or `None`
    /// when it was consumed as a mapping key.
    fn node(&mut self, scalar_key: Option<&str>, mark: Marker) -> Option<String> {
        match self.stack.last_mut() {
            None => {
                if self.started {
                    return None;
                }
                self.started = true;
                self.nodes.insert(
                    String::new(),
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
                self.nodes.insert(
                    p.clone(),
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
                    self.nodes.insert(
                        p.clone(),
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
        match ev {
            Event::Scalar(value, ..) => {
                self.node(Some(&value), mark);
            }
            Event::Alias(_) => {
                self.node(None, mark);
            }
            Event::MappingStart(..) => {
                // A mapping used as a key is not supported by the catalog; index it anyway.
                let path = self.node(None, mark).unwrap_or_else(|| "?".into());
                self.stack.push(Frame::Map { path, key: None });
            }
            Event::SequenceStart(..) => {
                let path = self.node(None, mark).unwrap_or_else(|| "?".into());
                self.stack.push(Frame::Seq { path, next: 0 });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
            }
            _ => {}
        }
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
}
