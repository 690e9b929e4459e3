//! Byte sizes as people write them on the command line (`--max-memory 4G`).

/// Parses a byte size: a number (fractions allowed) and an optional binary unit, `K`, `M`, `G`
/// or `T` (also written `KiB`, `KB`, `k`, ...; every unit is a power of 1024).
///
/// # Errors
/// A message saying what is wrong, for the argument parser to print.
///
/// ```
/// use flatland_cli::bytes::parse_bytes;
/// assert_eq!(parse_bytes("4096"), Ok(4096));
/// assert_eq!(parse_bytes("512M"), Ok(512 << 20));
/// assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
/// assert_eq!(parse_bytes("2 gb"), Ok(2 << 30));
/// assert!(parse_bytes("-1G").is_err());
/// assert!(parse_bytes("lots").is_err());
/// ```
pub fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let not_a_size = || format!("'{s}' is not a size (for example 4G or 512M)");
    if num.is_empty() {
        return Err(not_a_size());
    }
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => {
            return Err(format!(
                "unknown unit '{other}' in '{s}' (use K, M, G or T)"
            ));
        }
    };
    let value: f64 = num.parse().map_err(|_| not_a_size())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes >= usize::MAX as f64 {
        return Err(format!("'{s}' is not a usable memory size"));
    }
    Ok(bytes as usize)
}
