//! Character-set detection and decoding of raw SGF bytes.
//!
//! This file owns [`decode`]: it turns the bytes of a file into text.
//! Order of evidence:
//! 1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE);
//! 2. UTF-16 without a BOM, recognised by its NUL bytes;
//! 3. the `CA[...]` property, found in the raw bytes (SGF syntax is ASCII,
//!    so it can be read before decoding), decoded with `encoding_rs`;
//! 4. no or unknown `CA`: UTF-8 if the bytes are valid UTF-8, else Latin-1.
//!
//! `CA` is sometimes wrong. When the stated charset reports decoding errors
//! but the bytes are clean UTF-8, UTF-8 wins (with a warning).

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

use super::error::Warning;

/// Decoded text plus what was learned on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The text, without any byte-order mark.
    pub text: String,
    /// The name of the encoding used (as `encoding_rs` spells it).
    pub encoding: &'static str,
    /// Guesses and repairs made while decoding.
    pub warnings: Vec<Warning>,
}

/// Decodes the bytes of an SGF file (see the module docs for the order of
/// evidence). Never fails: undecodable bytes become U+FFFD, with a warning.
pub fn decode(bytes: &[u8]) -> Decoded {
    let mut warnings = Vec::new();
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return finish(UTF_8, rest, warnings);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return finish(UTF_16LE, rest, warnings);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return finish(UTF_16BE, rest, warnings);
    }
    if let Some(enc) = utf16_without_bom(bytes) {
        warnings.push(Warning::file(format!(
            "no byte-order mark; NUL bytes suggest {}",
            enc.name()
        )));
        return finish(enc, bytes, warnings);
    }

    let labels = find_charsets(bytes);
    let label = labels.first().cloned();
    if let Some(first) = &label {
        if let Some(other) = labels.iter().find(|l| !l.eq_ignore_ascii_case(first)) {
            warnings.push(Warning::file(format!(
                "several charsets (CA[{first}], CA[{other}]); using the first"
            )));
        }
    }
    let stated = match &label {
        None => None,
        Some(l) => match encoding_for_label(l) {
            Some(e) if e == UTF_16LE || e == UTF_16BE => {
                warnings.push(Warning::file(format!(
                    "CA[{l}] says UTF-16 but the bytes are not UTF-16; reading them as UTF-8"
                )));
                None
            }
            Some(e) => Some(e),
            None => {
                warnings.push(Warning::file(format!("unknown charset CA[{l}]")));
                None
            }
        },
    };

    match stated {
        Some(enc) => {
            if enc
                .decode_without_bom_handling_and_without_replacement(bytes)
                .is_some()
            {
                return finish(enc, bytes, warnings);
            }
            if enc != UTF_8 && std::str::from_utf8(bytes).is_ok() {
                warnings.push(Warning::file(format!(
                    "text is not valid {} as CA says, but is valid UTF-8; reading it as UTF-8",
                    enc.name()
                )));
                return finish(UTF_8, bytes, warnings);
            }
            warnings.push(Warning::file(format!(
                "text is not valid {}; undecodable bytes replaced by U+FFFD",
                enc.name()
            )));
            finish(enc, bytes, warnings)
        }
        None => {
            if std::str::from_utf8(bytes).is_ok() {
                return finish(UTF_8, bytes, warnings);
            }
            warnings.push(Warning::file(
                "charset unknown and text is not UTF-8; reading it as Latin-1 (windows-1252)",
            ));
            finish(WINDOWS_1252, bytes, warnings)
        }
    }
}

/// Decodes `bytes` (BOM already removed) with `enc`, replacing errors.
fn finish(enc: &'static Encoding, bytes: &[u8], mut warnings: Vec<Warning>) -> Decoded {
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    if had_errors && !warnings.iter().any(|w| w.message.contains("U+FFFD")) {
        warnings.push(Warning::file(format!(
            "text is not valid {}; undecodable bytes replaced by U+FFFD",
            enc.name()
        )));
    }
    Decoded {
        text: text.into_owned(),
        encoding: enc.name(),
        warnings,
    }
}

/// UTF-16 without a BOM: in ASCII-heavy SGF text every other byte is NUL.
fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(4096)];
    let pairs = sample.len() / 2;
    if pairs < 2 {
        return None;
    }
    let (mut even, mut odd) = (0usize, 0usize);
    for pair in sample.chunks_exact(2) {
        if pair[0] == 0 && pair[1] != 0 {
            even += 1;
        }
        if pair[1] == 0 && pair[0] != 0 {
            odd += 1;
        }
    }
    // Require a clear majority of one pattern.
    if even * 10 >= pairs * 4 && even > odd * 4 {
        Some(UTF_16BE)
    } else if odd * 10 >= pairs * 4 && odd > even * 4 {
        Some(UTF_16LE)
    } else {
        None
    }
}

/// The values of the `CA[...]` properties in the raw bytes, trimmed, in
/// file order (at most a few).
fn find_charsets(bytes: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes[i] == b'C'
            && bytes[i + 1] == b'A'
            && (i == 0 || !bytes[i - 1].is_ascii_alphabetic())
        {
            let mut j = i + 2;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.get(j) == Some(&b'[') {
                let start = j + 1;
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == b']')
                    .map_or(bytes.len(), |k| start + k);
                let value = String::from_utf8_lossy(&bytes[start..end])
                    .trim()
                    .to_string();
                if !value.is_empty() && value.len() < 64 {
                    found.push(value);
                    if found.len() == 4 {
                        break;
                    }
                }
            }
        }
        i += 1;
    }
    found
}

/// `encoding_rs` labels plus the spellings SGF files use in the wild.
fn encoding_for_label(label: &str) -> Option<&'static Encoding> {
    let l = label.trim().to_ascii_lowercase();
    let alias = match l.as_str() {
        "utf8" => "utf-8",
        "latin-1" | "latin_1" | "iso8859-1" | "iso-8859-1:1987" => "iso-8859-1",
        "latin-9" | "latin9" | "iso8859-15" => "iso-8859-15",
        "euc-cn" | "euccn" | "gb-2312" | "cp936" | "ms936" => "gbk",
        "gb-18030" => "gb18030",
        "big-5" | "cp950" => "big5",
        "sjis" | "shift-jis" | "cp932" | "ms932" | "windows-31j" => "shift_jis",
        "euckr" | "cp949" | "uhc" => "euc-kr",
        "eucjp" => "euc-jp",
        "macroman" | "mac-roman" | "x-mac-roman" | "macintosh" => "macintosh",
        "koi8r" => "koi8-r",
        "koi8u" => "koi8-u",
        "cp1251" => "windows-1251",
        "cp1252" => "windows-1252",
        "utf-16-le" => "utf-16le",
        "utf-16-be" => "utf-16be",
        other => other,
    };
    Encoding::for_label(alias.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for (l, name) in [
            ("UTF-8", "UTF-8"),
            ("utf8", "UTF-8"),
            ("GB2312", "GBK"),
            ("EUC-CN", "GBK"),
            ("GB18030", "gb18030"),
            ("Big5", "Big5"),
            ("Shift_JIS", "Shift_JIS"),
            ("MS_KANJI", "Shift_JIS"),
            ("EUC-KR", "EUC-KR"),
            ("ISO-8859-1", "windows-1252"),
            ("ISO-8859-15", "ISO-8859-15"),
            ("ISO-2022-JP", "ISO-2022-JP"),
            ("macintosh", "macintosh"),
            ("MacRoman", "macintosh"),
            ("KOI8-R", "KOI8-R"),
            ("Windows-1251", "windows-1251"),
        ] {
            assert_eq!(encoding_for_label(l).map(|e| e.name()), Some(name), "{l}");
        }
        assert!(encoding_for_label("foo").is_none());
    }

    #[test]
    fn detection() {
        let d = decode(b"(;CA[ISO-8859-1]C[caf\xe9])");
        assert_eq!(d.text, "(;CA[ISO-8859-1]C[café])");
        assert!(d.warnings.is_empty());
        // Stated Latin-1 never fails, so clean UTF-8 under a wrong CA is
        // read as stated; a wrong multi-byte CA falls back to UTF-8.
        let d = decode("(;CA[Shift_JIS]C[\u{20ac}\u{fffd}])".as_bytes());
        assert_eq!(d.encoding, "UTF-8");
        assert_eq!(d.warnings.len(), 1);
        let d = decode(b"(;C[caf\xe9])");
        assert_eq!(d.text, "(;C[café])");
        assert_eq!(d.warnings.len(), 1);
        let utf16: Vec<u8> = "(;C[x])"
            .encode_utf16()
            .flat_map(|u| u.to_be_bytes())
            .collect();
        assert_eq!(decode(&utf16).text, "(;C[x])");
        let utf16: Vec<u8> = "(;C[x])"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(decode(&utf16).text, "(;C[x])");
        assert_eq!(decode(b"").text, "");
        assert_eq!(decode(b"CA").text, "CA");
        assert_eq!(decode(b"CA[").text, "CA[");
        let d = decode(b"(;CA[UTF-8])(;CA[ISO-8859-1])");
        assert_eq!(d.encoding, "UTF-8");
        assert_eq!(d.warnings.len(), 1);
    }
}
