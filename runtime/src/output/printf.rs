//! `printf` formatting on the host: the format string never goes to the device, which
//! only records the argument words.
//!
//! Conversions as bpftrace's `printf` accepts them for integers: `%d %i` (signed), `%u`,
//! `%x %X`, `%o`, `%c`, `%s` (a kernel argument prints as the kernel's name; any other as
//! its decimal value), `%%`; flags `-`, `0`, `+`, space; a width; length modifiers. Every
//! argument is a 64-bit word, printed at the conversion's C width as bpftrace (v0.17.0)
//! prints it: `%d %u %x %o` take its low 32 bits, `%hd` 16, `%hhd` 8, `%c` 8, and `%ld`,
//! `%lld`, `%zu`, `%jd`, `%td` all 64.

/// How an argument word prints where a `%s` takes it.
pub type StringArg<'a> = &'a dyn Fn(u64) -> Option<String>;

/// Formats `format` with `args`; `string_arg` names a word printed with `%s` (kernel ids
/// become kernel names). Missing arguments print as `0`; a malformed conversion is
/// printed as written.
pub fn format(format: &str, args: &[u64], string_arg: StringArg<'_>) -> String {
    let mut out = String::new();
    let mut next = args.iter().copied();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::from('%');
        let (mut left, mut zero, mut plus, mut space) = (false, false, false, false);
        while let Some(&f) = chars.peek() {
            match f {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                _ => break,
            }
            spec.push(f);
            chars.next();
        }
        let mut width = 0usize;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            width = width.saturating_mul(10).saturating_add(d as usize);
            spec.push(chars.next().unwrap_or('0'));
        }
        // The C width of the argument: `int` without a length modifier.
        let mut bits = 32u32;
        let mut shorts = 0;
        while let Some(&m) = chars.peek() {
            match m {
                'h' => shorts += 1,
                'l' | 'z' | 'j' | 't' => bits = 64,
                _ => break,
            }
            spec.push(m);
            chars.next();
        }
        if bits == 32 {
            bits = match shorts {
                0 => 32,
                1 => 16,
                _ => 8,
            };
        }
        let unsigned = |v: u64| {
            if bits == 64 {
                v
            } else {
                v & ((1u64 << bits) - 1)
            }
        };
        let signed = |v: u64| {
            let shift = 64 - bits;
            ((v << shift) as i64) >> shift
        };
        let Some(conv) = chars.next() else {
            out.push_str(&spec);
            break;
        };
        let body = match conv {
            '%' => {
                out.push('%');
                continue;
            }
            'd' | 'i' => {
                let v = signed(next.next().unwrap_or(0));
                let sign = if v < 0 {
                    "-"
                } else if plus {
                    "+"
                } else if space {
                    " "
                } else {
                    ""
                };
                (sign, v.unsigned_abs().to_string())
            }
            'u' => ("", unsigned(next.next().unwrap_or(0)).to_string()),
            'x' => ("", format!("{:x}", unsigned(next.next().unwrap_or(0)))),
            'X' => ("", format!("{:X}", unsigned(next.next().unwrap_or(0)))),
            'o' => ("", format!("{:o}", unsigned(next.next().unwrap_or(0)))),
            'c' => {
                let v = next.next().unwrap_or(0) as u8;
                ("", char::from(v).to_string())
            }
            's' => {
                let v = next.next().unwrap_or(0);
                ("", string_arg(v).unwrap_or_else(|| v.to_string()))
            }
            other => {
                spec.push(other);
                out.push_str(&spec);
                continue;
            }
        };
        let (sign, digits) = body;
        let len = sign.len() + digits.chars().count();
        let pad = width.saturating_sub(len);
        if left {
            out.push_str(sign);
            out.push_str(&digits);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if zero && conv != 's' && conv != 'c' {
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(&digits);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(sign);
            out.push_str(&digits);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format;

    fn f(fmt: &str, args: &[u64]) -> String {
        format(fmt, args, &|v| (v == 7).then(|| "vector_add".to_string()))
    }

    #[test]
    fn integer_conversions_flags_and_widths() {
        assert_eq!(f("%d %i %u\n", &[-5i64 as u64, 3, 9]), "-5 3 9\n");
        assert_eq!(f("%x %X %o", &[255, 255, 8]), "ff FF 10");
        assert_eq!(f("[%5d|%-5d|%05d]", &[42, 42, 42]), "[   42|42   |00042]");
        assert_eq!(f("[%+d|% d|%05d]", &[1, 1, -42i64 as u64]), "[+1| 1|-0042]");
        assert_eq!(f("%lld %llu %lx %zu", &[1, 2, 255, 4]), "1 2 ff 4");
        assert_eq!(f("100%% %c", &[65]), "100% A");
    }

    #[test]
    fn conversions_print_at_their_c_width_as_bpftrace_does() {
        // bpftrace v0.17.0's output for the same words.
        let m = u64::MAX;
        assert_eq!(
            f(
                "%d|%u|%x|%ld|%lu|%hhd|%hd|%c|",
                &[m, m, 0x1_ffff_ffff, m, m, 300, 70000, 65]
            ),
            "-1|4294967295|ffffffff|-1|18446744073709551615|44|4464|A|"
        );
        assert_eq!(
            f("%d|%u|%d|", &[5_000_000_000, 5_000_000_000, -3i64 as u64]),
            "705032704|705032704|-3|"
        );
        assert_eq!(
            f("%llx %zu %jd", &[1 << 40, 1 << 33, m]),
            "10000000000 8589934592 -1"
        );
    }

    #[test]
    fn strings_name_kernels_and_missing_args_are_zero() {
        assert_eq!(f("%s %s", &[7, 8]), "vector_add 8");
        assert_eq!(f("%d %d", &[1]), "1 0");
        assert_eq!(f("%q %", &[]), "%q %");
    }
}
