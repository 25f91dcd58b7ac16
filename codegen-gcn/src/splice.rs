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

/// The spliced text and the lines of each inserted snippet.
#[derive(Debug, Clone)]
pub(crate) struct Applied {
    pub text: String,
    /// (first line, number of lines, snippet), 1-based lines of the output.
    pub inserted: Vec<(u32, u32, u32)>,
}

impl Applied {
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
    let mut inserted = Vec::new();
    for i in order {
        let e = &edits[i];
        let kept = &source[last..e.range.start.max(last)];
        line += kept.matches('\n').count() as u32;
        text.push_str(kept);
        if let Some(s) = e.snippet {
            inserted.push((line, e.text.matches('\n').count() as u32, s));
        }
        line += e.text.matches('\n').count() as u32;
        text.push_str(&e.text);
        last = e.range.end.max(last);
    }
    text.push_str(&source[last..]);
    Applied { text, inserted }
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
        assert_eq!(a.inserted, vec![(2, 1, 1), (4, 2, 2)]);
        assert_eq!(a.origin(5), Origin::Inserted { snippet: 2 });
        assert_eq!(a.origin(3), Origin::Kernel);
    }
}
