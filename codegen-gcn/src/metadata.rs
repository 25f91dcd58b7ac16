//! The `.amdgpu_metadata` block: the code object's YAML metadata note as the LLVM AMDGPU
//! back end prints it (block style, two-space indentation: `amdhsa.kernels:` is a list of
//! kernel maps, each with an `.args:` list of argument maps). The parts warptrace reads or
//! rewrites are kept with their byte spans: each kernel's scalar keys (`.name`,
//! `.kernarg_segment_size`, `.sgpr_count`, `.vgpr_count`, `.agpr_count`,
//! `.wavefront_size`, …) and its arguments (`.offset`, `.size`, `.value_kind`, hidden
//! arguments included). Other keys and nested lists are left as text. A flow-style
//! (`{ … }`, `[ … ]`) kernel map, which LLVM does not print, is a syntax error.

use crate::Error;
use std::ops::Range;

/// The parsed metadata block.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// The kernels of `amdhsa.kernels`, in order.
    pub kernels: Vec<MetaKernel>,
}

/// One `key: value` line of a map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaKey {
    /// The key (`.sgpr_count`).
    pub key: String,
    /// The value as written, quotes removed.
    pub value: String,
    /// Byte span of the value as written in the module.
    pub span: Range<usize>,
}

/// One kernel's map.
#[derive(Debug, Clone)]
pub struct MetaKernel {
    /// `.name` (quotes removed).
    pub name: String,
    /// The scalar keys, in order.
    pub keys: Vec<MetaKey>,
    /// The arguments, in order.
    pub args: Vec<MetaArg>,
    /// Byte offset just after the last line of the `.args` list (where an argument is
    /// appended), or after the kernel's first line when it has no `.args`.
    pub args_end: usize,
    /// Whether the kernel has an `.args:` key.
    pub has_args: bool,
}

/// One argument map.
#[derive(Debug, Clone)]
pub struct MetaArg {
    /// Its keys, in order.
    pub keys: Vec<MetaKey>,
}

impl MetaArg {
    /// A key's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|k| k.key == key)
            .map(|k| k.value.as_str())
    }

    /// `.offset`.
    pub fn offset(&self) -> Option<u64> {
        self.get(".offset").and_then(|v| v.parse().ok())
    }

    /// `.size`.
    pub fn size(&self) -> Option<u64> {
        self.get(".size").and_then(|v| v.parse().ok())
    }

    /// `.value_kind` (`global_buffer`, `by_value`, `hidden_block_count_x`, …).
    pub fn value_kind(&self) -> &str {
        self.get(".value_kind").unwrap_or("")
    }

    /// Whether it is a hidden argument (the runtime fills it).
    pub fn is_hidden(&self) -> bool {
        self.value_kind().starts_with("hidden_")
    }
}

impl MetaKernel {
    /// A scalar key.
    pub fn key(&self, key: &str) -> Option<&MetaKey> {
        self.keys.iter().find(|k| k.key == key)
    }

    /// A scalar key's integer value.
    pub fn int(&self, key: &str) -> Option<u64> {
        self.key(key).and_then(|k| k.value.parse().ok())
    }
}

/// Indentation and the rest of a line.
fn indent(line: &str) -> (usize, &str) {
    let rest = line.trim_start_matches(' ');
    (line.len() - rest.len(), rest)
}

/// `key: value` of a map line (after any `- `), with the value's offset in `text`.
fn key_value(text: &str) -> Option<(&str, &str, usize)> {
    let colon = text.find(':')?;
    let key = text[..colon].trim();
    if key.is_empty() || key.contains(' ') {
        return None;
    }
    let after = &text[colon + 1..];
    let value = after.trim();
    let offset = colon + 1 + (after.len() - after.trim_start().len());
    Some((key, value, offset))
}

fn unquote(v: &str) -> &str {
    v.strip_prefix('\'')
        .and_then(|x| x.strip_suffix('\''))
        .or_else(|| v.strip_prefix('"').and_then(|x| x.strip_suffix('"')))
        .unwrap_or(v)
}

impl Metadata {
    /// Parses the block's text, which starts at byte `base` (line `first_line`) of the
    /// module.
    pub fn parse(text: &str, base: usize, first_line: u32) -> Result<Metadata, Error> {
        let mut kernels: Vec<MetaKernel> = Vec::new();
        let mut in_kernels = false;
        let mut in_args = false;
        let mut pos = 0;
        let err = |n: usize, message: String| Error::Syntax {
            line: first_line + n as u32,
            message,
        };
        for (n, line) in text.split_inclusive('\n').enumerate() {
            let start = pos;
            pos += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            let (ind, rest) = indent(body);
            if rest.is_empty() || rest.starts_with('#') || rest == "---" || rest == "..." {
                continue;
            }
            if ind == 0 {
                in_kernels = rest.starts_with("amdhsa.kernels:");
                in_args = false;
                continue;
            }
            if !in_kernels {
                continue;
            }
            let value_at = |off: usize| base + start + ind + off;
            match (ind, rest.strip_prefix("- ")) {
                (2, Some(item)) => {
                    in_args = false;
                    let (key, value, off) = key_value(item)
                        .ok_or_else(|| err(n, format!("expected a kernel map: `{rest}`")))?;
                    let mut k = MetaKernel {
                        name: String::new(),
                        keys: Vec::new(),
                        args: Vec::new(),
                        args_end: base + pos,
                        has_args: false,
                    };
                    push_key(
                        &mut k,
                        key,
                        value,
                        value_at(2 + off),
                        &mut in_args,
                        base + pos,
                    );
                    kernels.push(k);
                }
                (4, None) => {
                    let k = kernels
                        .last_mut()
                        .ok_or_else(|| err(n, "kernel key outside a kernel".into()))?;
                    let (key, value, off) = key_value(rest)
                        .ok_or_else(|| err(n, format!("expected `key: value`: `{rest}`")))?;
                    in_args = false;
                    push_key(k, key, value, value_at(off), &mut in_args, base + pos);
                }
                (6, Some(item)) if in_args => {
                    let k = kernels
                        .last_mut()
                        .ok_or_else(|| err(n, "argument outside a kernel".into()))?;
                    let (key, value, off) = key_value(item)
                        .ok_or_else(|| err(n, format!("expected an argument map: `{rest}`")))?;
                    k.args.push(MetaArg {
                        keys: vec![meta_key(key, value, value_at(2 + off))],
                    });
                    k.args_end = base + pos;
                }
                (8, None) if in_args => {
                    let k = kernels
                        .last_mut()
                        .ok_or_else(|| err(n, "argument key outside a kernel".into()))?;
                    let (key, value, off) = key_value(rest)
                        .ok_or_else(|| err(n, format!("expected `key: value`: `{rest}`")))?;
                    let arg = k
                        .args
                        .last_mut()
                        .ok_or_else(|| err(n, "argument key before an argument".into()))?;
                    arg.keys.push(meta_key(key, value, value_at(off)));
                    k.args_end = base + pos;
                }
                // Nested lists and maps other than `.args` (`.reqd_workgroup_size`, …).
                (i, _) if i > 4 => {}
                _ => return Err(err(n, format!("unexpected metadata line `{rest}`"))),
            }
        }
        Ok(Metadata { kernels })
    }

    /// A kernel's map by name.
    pub fn kernel(&self, name: &str) -> Option<&MetaKernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

fn meta_key(key: &str, value: &str, at: usize) -> MetaKey {
    MetaKey {
        key: key.to_owned(),
        value: unquote(value).to_owned(),
        span: at..at + value.len(),
    }
}

fn push_key(k: &mut MetaKernel, key: &str, value: &str, at: usize, in_args: &mut bool, end: usize) {
    if key == ".args" {
        *in_args = true;
        k.has_args = true;
        k.args_end = end;
        return;
    }
    if key == ".name" {
        k.name = unquote(value).to_owned();
    }
    if !k.has_args {
        // Without `.args` an argument list is inserted after the first line.
        k.args_end = k.args_end.min(end);
    }
    k.keys.push(meta_key(key, value, at));
}
