//! `--dmat FILE.png`: NEUTRINO's dense memory-access timeline drawn from access records,
//! time across, pages up, the bytes accessed in each (time, page) cell as colour.
//!
//! An access record is a ring or array record whose first four fields are integers:
//! `(time, address, lanes, bytes[, stride])` — when it happened, the address of the
//! lowest lane in `lanes` (a lane mask), the bytes each lane accesses and the byte
//! distance between consecutive lanes' addresses, `bytes` unless a fifth field gives it:
//! lane `i` accessed `address + (i - lowest) * stride`. The `dmat` probe writes one such
//! record per run of a warp's access (`run`: lanes `bytes` apart), so every lane's address
//! is in its records.
//!
//! Rows are the pages (4 KiB) the records touch, in address order with the gaps between
//! them left out (allocations lie far apart); when there are more pages than rows, each
//! row holds an equal share of them. Columns divide the time from the first record to
//! the last. A cell's colour is the logarithm of its bytes, from dark violet (one access)
//! to pale yellow (the busiest cell); black cells saw no access.

use crate::report::Report;
use std::collections::BTreeMap;
use std::path::Path;
use warptrace_ir::{KeyType, Program, ValueKind};

/// Page size of the rows.
pub const DMAT_PAGE_BYTES: u64 = 4096;
/// Most columns and rows of the image.
pub const DMAT_MAX_SIDE: u32 = 1024;

/// Why no timeline could be drawn.
#[derive(Debug, thiserror::Error)]
pub enum DmatError {
    /// The program has no map of that name holding records.
    #[error("no ring or array map @{map} in the program{}", list(.records))]
    NoSuchMap {
        /// The map asked for.
        map: String,
        /// The program's record maps.
        records: Vec<String>,
    },
    /// The map's records are not access records.
    #[error(
        "@{map}'s records are not access records: they must start with four integer fields \
         (time, address, lane mask, bytes per lane[, stride]), as the dmat probe's \
         `@dmat = (globaltimer, addr, run, bytes)` do"
    )]
    NotAccessRecords {
        /// The map.
        map: String,
    },
    /// Nothing was recorded.
    #[error("@{map} holds no records")]
    Empty {
        /// The map.
        map: String,
    },
    /// The PNG file could not be written.
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!(
            " (its record maps: {})",
            names
                .iter()
                .map(|n| format!("@{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// A drawn timeline: `width × height` RGB pixels, top row first, and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Dmat {
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// RGB, row by row from the top (the highest pages).
    pub pixels: Vec<u8>,
    /// Bytes accessed in each cell, `[row][column]` from the bottom row (lowest pages).
    pub cells: Vec<Vec<u64>>,
    /// Records drawn.
    pub records: u64,
    /// Lane accesses drawn (set bits of the lane masks).
    pub accesses: u64,
    /// Bytes accessed in all.
    pub bytes: u64,
    /// Distinct pages touched.
    pub pages: u64,
    /// Pages per row (the last row may hold fewer).
    pub pages_per_row: u64,
    /// Time of the first and last record.
    pub span: (u64, u64),
    /// Pages of the lowest and highest row.
    pub page_range: (u64, u64),
}

/// Checks that `program`'s map `map` holds access records; says whether they carry a
/// stride (a fifth integer field).
pub fn access_map(program: &Program, map: &str) -> Result<bool, DmatError> {
    let records: Vec<String> = program
        .maps
        .iter()
        .filter(|m| matches!(m.value, ValueKind::Record(_)))
        .map(|m| m.name.clone())
        .collect();
    let types = program
        .maps
        .iter()
        .find(|m| m.name == map)
        .and_then(|m| match &m.value {
            ValueKind::Record(types) => Some(types),
            _ => None,
        })
        .ok_or_else(|| DmatError::NoSuchMap {
            map: map.into(),
            records,
        })?;
    let integer = |t: &KeyType| !matches!(t, KeyType::Kernel);
    if types.len() < 4 || !types[..4].iter().all(integer) {
        return Err(DmatError::NotAccessRecords { map: map.into() });
    }
    Ok(types.get(4).is_some_and(integer))
}

/// Draws the access records of map `map` of `report` (every process's).
pub fn dmat(program: &Program, report: &Report, map: &str) -> Result<Dmat, DmatError> {
    let stride = access_map(program, map)?;
    let records: Vec<&[u64]> = report
        .maps
        .iter()
        .filter(|m| m.name == map)
        .flat_map(|m| &m.records)
        .map(|r| r.fields.as_slice())
        .filter(|f| f.len() >= 4 + usize::from(stride))
        .collect();
    if records.is_empty() {
        return Err(DmatError::Empty { map: map.into() });
    }
    Ok(draw(&records, stride))
}

/// Each lane access of a record: (page, bytes).
fn accesses(fields: &[u64], stride: bool) -> impl Iterator<Item = (u64, u64)> + '_ {
    // A lane mask of up to 64 lanes (a GCN wave64).
    let (addr, mask, bytes) = (fields[1], fields[2], fields[3]);
    let first = mask.trailing_zeros();
    let step = if stride { fields[4] } else { bytes } as i64;
    (first..64)
        .filter(move |i| mask & (1 << i) != 0)
        .map(move |i| {
            let at = addr.wrapping_add((i64::from(i - first).wrapping_mul(step)) as u64);
            (at / DMAT_PAGE_BYTES, bytes)
        })
}

fn draw(records: &[&[u64]], stride: bool) -> Dmat {
    let t0 = records.iter().map(|f| f[0]).min().unwrap_or(0);
    let t1 = records.iter().map(|f| f[0]).max().unwrap_or(0);
    let mut pages = BTreeMap::new();
    for f in records {
        for (page, _) in accesses(f, stride) {
            pages.insert(page, 0u64);
        }
    }
    let npages = pages.len() as u64;
    let per_row = npages.div_ceil(u64::from(DMAT_MAX_SIDE)).max(1);
    let height = npages.div_ceil(per_row).max(1) as u32;
    for (rank, row) in (0u64..).zip(pages.values_mut()) {
        *row = rank / per_row;
    }
    let span = t1 - t0;
    let width = (span + 1).min(u64::from(DMAT_MAX_SIDE)) as u32;
    let column = |t: u64| -> usize {
        if span == 0 {
            0
        } else {
            (u128::from(t - t0) * u128::from(width - 1) / u128::from(span)) as usize
        }
    };
    let mut cells = vec![vec![0u64; width as usize]; height as usize];
    let (mut accessed, mut total) = (0u64, 0u64);
    for f in records {
        let c = column(f[0]);
        for (page, bytes) in accesses(f, stride) {
            let row = pages.get(&page).copied().unwrap_or(0) as usize;
            cells[row][c] = cells[row][c].saturating_add(bytes);
            accessed += 1;
            total = total.saturating_add(bytes);
        }
    }
    let busiest = cells.iter().flatten().copied().max().unwrap_or(0);
    let mut pixels = Vec::with_capacity(3 * width as usize * height as usize);
    for row in cells.iter().rev() {
        for &b in row {
            pixels.extend_from_slice(&colour(b, busiest));
        }
    }
    let first = pages.keys().next().copied().unwrap_or(0);
    let last = pages.keys().next_back().copied().unwrap_or(0);
    Dmat {
        width,
        height,
        pixels,
        cells,
        records: records.len() as u64,
        accesses: accessed,
        bytes: total,
        pages: npages,
        pages_per_row: per_row,
        span: (t0, t1),
        page_range: (first, last),
    }
}

/// The colour of a cell of `bytes` when the busiest holds `busiest`: black for none, then
/// along dark violet → red → orange → pale yellow by `ln(1 + bytes) / ln(1 + busiest)`.
fn colour(bytes: u64, busiest: u64) -> [u8; 3] {
    const STOPS: [[f64; 3]; 5] = [
        [40.0, 11.0, 84.0],
        [101.0, 21.0, 110.0],
        [188.0, 55.0, 84.0],
        [249.0, 142.0, 9.0],
        [252.0, 255.0, 164.0],
    ];
    if bytes == 0 {
        return [0, 0, 0];
    }
    let v = if busiest <= 1 {
        1.0
    } else {
        ((bytes as f64).ln_1p() / (busiest as f64).ln_1p()).clamp(0.0, 1.0)
    };
    let x = v * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let w = x - i as f64;
    let mut out = [0u8; 3];
    for (k, o) in out.iter_mut().enumerate() {
        *o = (STOPS[i][k] + w * (STOPS[i + 1][k] - STOPS[i][k])).round() as u8;
    }
    out
}

/// Writes `dmat` as an 8-bit RGB PNG.
pub fn write_dmat_png(path: &Path, dmat: &Dmat) -> Result<(), DmatError> {
    let fail = |e: std::io::Error| DmatError::Write {
        path: path.to_path_buf(),
        source: e,
    };
    let file = std::fs::File::create(path).map_err(fail)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), dmat.width, dmat.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let io = |e: png::EncodingError| match e {
        png::EncodingError::IoError(e) => fail(e),
        other => fail(std::io::Error::other(other)),
    };
    let mut writer = encoder.write_header().map_err(io)?;
    writer.write_image_data(&dmat.pixels).map_err(io)?;
    writer.finish().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::MapReport;
    use warptrace_ir::{Record, RecordOrigin};

    fn program(src: &str) -> Program {
        warptrace_lang::compile(src, "t.wt").expect("compiles")
    }

    fn report(name: &str, records: &[[u64; 4]]) -> Report {
        let records = (0u64..)
            .zip(records)
            .map(|(index, f)| Record {
                origin: RecordOrigin::Ring { launch: 1, index },
                fields: f.to_vec(),
            })
            .collect();
        Report {
            maps: vec![MapReport {
                name: name.into(),
                records,
                ..MapReport::default()
            }],
            ..Report::default()
        }
    }

    const DMAT: &str = "map @dmat: ring(capacity = 1K, overflow = drop);\n\
                        mem:global:* { @dmat = (globaltimer, addr, run, bytes); }";

    /// Cells add the bytes of every lane in its page; rows are the touched
    /// pages in address order with the gaps left out; columns divide the time span.
    #[test]
    fn cells_hold_the_bytes_of_each_page_and_time() {
        let p = program(DMAT);
        let far = 1 << 40;
        let r = report(
            "dmat",
            &[
                [1000, 0x10_0000, 0xffff_ffff, 4], // 128 bytes, page 0x100 at t=1000
                [1000, 0x10_0080, 0xff, 4],        // 32 more, same cell
                [3000, far, 0b101, 16],            // 32 bytes, far page, last column
                [2000, 0x10_1000, 1, 8],           // 8 bytes, the next page, mid time
            ],
        );
        let d = dmat(&p, &r, "dmat").expect("draws");
        assert_eq!((d.width, d.height), (1024, 3));
        assert_eq!((d.records, d.accesses, d.bytes), (4, 43, 128 + 32 + 32 + 8));
        assert_eq!((d.pages, d.pages_per_row), (3, 1));
        assert_eq!(d.span, (1000, 3000));
        assert_eq!(d.page_range, (0x100, far / DMAT_PAGE_BYTES));
        assert_eq!(d.cells[0][0], 160);
        assert_eq!(d.cells[1][511], 8);
        assert_eq!(d.cells[2][1023], 32);
        let drawn: u64 = d.cells.iter().flatten().sum();
        assert_eq!(drawn, d.bytes);
        // The busiest cell is the palest, an empty one black; the top row is the highest page.
        let px = |row: u32, col: u32| {
            let at = 3 * (row * d.width + col) as usize;
            [d.pixels[at], d.pixels[at + 1], d.pixels[at + 2]]
        };
        assert_eq!(px(2, 0), [252, 255, 164]);
        assert_eq!(px(0, 0), [0, 0, 0]);
        assert_ne!(px(0, 1023), [0, 0, 0]);
    }

    /// Lanes are `bytes` apart, or a fifth field's stride apart: each lane's bytes go to
    /// its own page.
    #[test]
    fn a_stride_places_every_lane() {
        let p = program(DMAT);
        // 8-byte lanes 0..31 from 4 KiB below a page boundary: 16 lanes either side.
        let d = dmat(
            &p,
            &report("dmat", &[[7, 0x4000 - 128, 0xffff_ffff, 8]]),
            "dmat",
        )
        .expect("draws");
        assert_eq!((d.pages, d.page_range), (2, (3, 4)));
        assert_eq!((d.cells[0][0], d.cells[1][0]), (128, 128));
        // A wave64's lane 40, a page a lane.
        let d = dmat(&p, &report("dmat", &[[7, 0, 1 | 1 << 40, 4096]]), "dmat").expect("draws");
        assert_eq!((d.pages, d.accesses, d.page_range), (2, 2, (0, 40)));
        let p = program(
            "map @d: ring(capacity = 1K);\n\
             warp mem:global:* { @d = (globaltimer, addr, activemask, bytes, (i64)4096); }",
        );
        let r = report("d", &[]);
        let mut r = r;
        r.maps[0].records.push(Record {
            origin: RecordOrigin::Ring {
                launch: 1,
                index: 0,
            },
            fields: vec![5, 0x4000, 0b1010, 4, 4096],
        });
        let d = dmat(&p, &r, "d").expect("draws");
        // Lanes 1 and 3: pages 4 and 6.
        assert_eq!((d.pages, d.accesses, d.page_range), (2, 2, (4, 6)));
        assert_eq!((d.width, d.height), (1, 2));
    }

    /// More pages than rows: each row holds an equal share, in address order.
    #[test]
    fn many_pages_share_rows() {
        let p = program(DMAT);
        let records: Vec<[u64; 4]> = (0..3000u64).map(|i| [i, i * 4096, 1, 4]).collect();
        let d = dmat(&p, &report("dmat", &records), "dmat").expect("draws");
        assert_eq!((d.height, d.pages, d.pages_per_row), (1000, 3000, 3));
        assert!(d.cells.iter().all(|row| row.iter().sum::<u64>() == 12));
    }

    #[test]
    fn maps_that_hold_no_access_records_are_refused() {
        let p = program(
            "map @r: ring(capacity = 1K);\n\
             mem:global:* { @r = (addr, kernel, 1, 2); @n[kernel] = count(); }",
        );
        let e = access_map(&p, "dmat").expect_err("no such map").to_string();
        assert_eq!(
            e,
            "no ring or array map @dmat in the program (its record maps: @r)"
        );
        let e = access_map(&p, "r").expect_err("a kernel field").to_string();
        assert!(e.starts_with("@r's records are not access records"), "{e}");
        assert!(matches!(
            access_map(&p, "n"),
            Err(DmatError::NoSuchMap { .. })
        ));
        let e = dmat(&program(DMAT), &Report::default(), "dmat").expect_err("empty");
        assert_eq!(e.to_string(), "@dmat holds no records");
    }

    #[test]
    fn the_png_holds_the_pixels() {
        let p = program(DMAT);
        let d = dmat(
            &p,
            &report("dmat", &[[1, 4096, 1, 4], [9, 8192, 3, 4]]),
            "dmat",
        )
        .expect("draws");
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.png");
        write_dmat_png(&path, &d).expect("written");
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&path).expect("open"),
        ));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!((info.width, info.height), (d.width, d.height));
        assert_eq!(&buf[..info.buffer_size()], d.pixels.as_slice());
        let bad = dir.path().join("no/such/dir/d.png");
        assert!(write_dmat_png(&bad, &d)
            .expect_err("no directory")
            .to_string()
            .starts_with("cannot write"));
    }
}
