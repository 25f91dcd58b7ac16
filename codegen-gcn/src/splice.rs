//! Text edits and their application: snippets inserted at line boundaries, descriptor
//! and metadata values replaced, the map argument appended. Applying a kernel's edits
//! gives the spliced text and which lines each snippet occupies, from which the spliced
//! model's origins come.

use std::ops::Range;
use warptrace_verifier::Origin;

/// One edit of the source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    /// The bytes replaced (empty for an insertion).
    pub range: Range<usize>,
    /// The new text.
    pub text: String,
    /// The snippet it inserts (whole lines), if it is one.
    pub snippet: Option<u32>,
}

/// The spliced text and who wrote its lines.
#[derive(Debug, Clone)]
pub(crate) struct Applied {
    pub text: String,
    pub lines: Lines,
}

/// Who wrote each line of a spliced text, and where the source has it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Lines {
    /// (first line, number of lines, snippet), 1-based lines of the output.
    inserted: Vec<(u32, u32, u32)>,
    /// The edits that changed the number of lines: (first line of the output, lines
    /// written, lines of the source replaced), in order.
    reshaped: Vec<(u32, u32, u32)>,
}

impl Lines {
    /// The line of the source that output line `line` is, `None` for a line an edit
    /// wrote.
    pub fn source_line(&self, line: u32) -> Option<u32> {
        let mut shift = 0i64;
        for &(first, written, replaced) in &self.reshaped {
            if line < first {
                break;
            }
            if line < first + written {
                return None;
            }
            shift += i64::from(written) - i64::from(replaced);
        }
        u32::try_from(i64::from(line) - shift).ok()
    }

    /// Who wrote line `line`.
    pub fn origin(&self, line: u32) -> Origin {
        self.inserted
            .iter()
            .find(|(first, n, _)| (*first..first + n).contains(&line))
            .map_or(Origin::Kernel, |&(_, _, snippet)| Origin::Inserted {
                snippet,
            })
    }
}

/// Applies `edits` (in any order; insertions at one place keep their order) to `source`.
pub(crate) fn apply(source: &str, edits: &[Edit]) -> Applied {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].range.start, edits[i].range.end, i));
    let mut text =
        String::with_capacity(source.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut line = 1u32;
    let mut last = 0;
    let mut lines = Lines::default();
    for i in order {
        let e = &edits[i];
        let kept = &source[last..e.range.start.max(last)];
        line += kept.matches('\n').count() as u32;
        text.push_str(kept);
        let written = e.text.matches('\n').count() as u32;
        if let Some(s) = e.snippet {
            lines.inserted.push((line, written, s));
        }
        let replaced = source[e.range.start.max(last)..e.range.end.max(last)]
            .matches('\n')
            .count() as u32;
        if written != replaced {
            lines.reshaped.push((line, written, replaced));
        }
        line += written;
        text.push_str(&e.text);
        last = e.range.end.max(last);
    }
    text.push_str(&source[last..]);
    Applied { text, lines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertions_are_located_by_line() {
        let src = "a\nb\nc\n";
        let edits = [
            Edit {
                range: 4..4,
                text: "x\ny\n".into(),
                snippet: Some(2),
            },
            Edit {
                range: 2..2,
                text: "p\n".into(),
                snippet: Some(1),
            },
            Edit {
                range: 0..1,
                text: "A".into(),
                snippet: None,
            },
        ];
        let a = apply(src, &edits);
        assert_eq!(a.text, "A\np\nb\nx\ny\nc\n");
        assert_eq!(a.lines.inserted, vec![(2, 1, 1), (4, 2, 2)]);
        assert_eq!(a.lines.origin(5), Origin::Inserted { snippet: 2 });
        assert_eq!(a.lines.origin(3), Origin::Kernel);
        assert_eq!(
            (1..=6).map(|l| a.lines.source_line(l)).collect::<Vec<_>>(),
            [Some(1), None, Some(2), None, None, Some(3)]
        );
    }

    /// A line replaced by several keeps the lines after it where the source has them.
    #[test]
    fn replaced_lines_map_back_to_the_source() {
        let src = "a\nb\nc\nd\n";
        let edits = [
            Edit {
                range: 2..4,
                text: "b1\nb2\nb3\n".into(),
                snippet: Some(1),
            },
            Edit {
                range: 6..6,
                text: "x\n".into(),
                snippet: Some(2),
            },
        ];
        let a = apply(src, &edits);
        assert_eq!(a.text, "a\nb1\nb2\nb3\nc\nx\nd\n");
        assert_eq!(
            (1..=7).map(|l| a.lines.source_line(l)).collect::<Vec<_>>(),
            [Some(1), None, None, None, Some(3), None, Some(4)]
        );
    }
}
