//! RFC 3339 times read back to seconds (the writer is `driftlab_contract::text::rfc3339`).

/// `YYYY-MM-DDTHH:MM:SS` with `Z` or a `±HH:MM` offset (fractions of a second ignored), as
/// seconds since the Unix epoch; `None` for anything else or a time before 1970.
pub fn unix_seconds(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't')
    {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    if second > 60 || bytes[13] != b':' || bytes[16] != b':' {
        return None;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &fraction[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                return None;
            }
            let (h, m): (i64, i64) = (rest[1..3].parse().ok()?, rest[4..6].parse().ok()?);
            sign * (h * 3600 + m * 60)
        }
    };
    // Howard Hinnant's days-from-civil algorithm.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset;
    u64::try_from(seconds).ok()
}

/// A span such as `7d`, `36h`, `90m` or `600s`, in seconds.
pub fn span_seconds(text: &str) -> Option<u64> {
    let text = text.trim();
    let (number, unit) = text.split_at(text.len().checked_sub(1)?);
    let n: u64 = number.parse().ok()?;
    let unit = match unit {
        "d" => 86_400,
        "h" => 3600,
        "m" => 60,
        "s" => 1,
        _ => return None,
    };
    n.checked_mul(unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::text::rfc3339;

    #[test]
    fn reads_back_what_rfc3339_writes_and_offsets() {
        for seconds in [0, 86_399, 951_782_400, 1_781_000_000, 4_102_444_800] {
            assert_eq!(unix_seconds(&rfc3339(seconds)), Some(seconds));
        }
        assert_eq!(
            unix_seconds("2026-06-14T17:52:17+02:00"),
            unix_seconds("2026-06-14T15:52:17Z")
        );
        assert_eq!(
            unix_seconds("2026-06-14T15:52:17.250Z"),
            unix_seconds("2026-06-14T15:52:17Z")
        );
        for bad in [
            "2026-06-14",
            "2026-13-01T00:00:00Z",
            "2026-06-14T15:52:17",
            "x",
        ] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn spans_have_a_unit() {
        assert_eq!(span_seconds("7d"), Some(604_800));
        assert_eq!(span_seconds("36h"), Some(129_600));
        assert_eq!(span_seconds("7"), None);
        assert_eq!(span_seconds("d"), None);
    }
}
