//! KataGo's rules vocabulary for `kata-get-rules` / `kata-set-rules`: a
//! name (`chinese`, `tromp-taylor`, `nz`, `aga`) or a flat JSON object such
//! as `{"ko":"POSITIONAL","scoring":"AREA","suicide":false,"komi":7.5}`.
//! Area or territory scoring, no tax or the seki tax; no button.

use crate::rules::score::fmt_points;
use crate::rules::{HandicapBonus, KoRule, Ruleset, Scoring, Tax};

/// The rules as KataGo's JSON.
pub fn to_json(r: &Ruleset) -> String {
    let ko = match r.ko {
        KoRule::Simple => "SIMPLE",
        KoRule::Positional => "POSITIONAL",
        KoRule::Situational => "SITUATIONAL",
    };
    let bonus = match r.handicap_bonus {
        HandicapBonus::Zero => "0",
        HandicapBonus::N => "N",
        HandicapBonus::NMinusOne => "N-1",
    };
    let scoring = match r.scoring {
        Scoring::Area => "AREA",
        Scoring::Territory => "TERRITORY",
    };
    let tax = match r.tax {
        Tax::None => "NONE",
        Tax::Seki => "SEKI",
    };
    format!(
        "{{\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"{ko}\",\"komi\":{},\"scoring\":\"{scoring}\",\"suicide\":{},\"tax\":\"{tax}\",\"whiteHandicapBonus\":\"{bonus}\"}}",
        fmt_points(r.komi),
        r.suicide_allowed
    )
}

/// Parses a rules name or JSON object; fields not given keep `current`'s
/// values (a name keeps the current komi).
pub fn parse(text: &str, current: &Ruleset) -> Result<Ruleset, String> {
    let text = text.trim();
    if !text.starts_with('{') {
        return Ruleset::from_name(text)
            .map(|r| r.with_komi(current.komi))
            .ok_or_else(|| {
                format!(
                    "unknown rules '{}'",
                    text.chars().take(40).collect::<String>()
                )
            });
    }
    let fields = parse_object(text).ok_or("syntax error: bad JSON object")?;
    let mut r = *current;
    for (key, value) in fields {
        let s = match &value {
            Value::Str(s) => s.to_ascii_uppercase(),
            _ => String::new(),
        };
        match key.as_str() {
            "ko" => {
                r.ko = match s.as_str() {
                    "SIMPLE" => KoRule::Simple,
                    "POSITIONAL" => KoRule::Positional,
                    "SITUATIONAL" => KoRule::Situational,
                    _ => return Err("unsupported ko rule".into()),
                }
            }
            "scoring" => {
                r.scoring = match s.as_str() {
                    "AREA" => Scoring::Area,
                    "TERRITORY" => Scoring::Territory,
                    _ => return Err("unsupported scoring: AREA or TERRITORY".into()),
                }
            }
            "tax" => {
                r.tax = match s.as_str() {
                    "NONE" => Tax::None,
                    "SEKI" => Tax::Seki,
                    _ => return Err("unsupported tax: NONE or SEKI".into()),
                }
            }
            "suicide" | "multiStoneSuicideLegal" => match value {
                Value::Bool(b) => r.suicide_allowed = b,
                _ => return Err("syntax error: suicide must be true or false".into()),
            },
            "hasButton" | "friendlyPassOk" => match value {
                Value::Bool(false) => {}
                Value::Bool(true) if key == "friendlyPassOk" => {}
                _ => return Err(format!("unsupported {key}")),
            },
            "komi" => match value {
                Value::Num(k) if k.is_finite() && k.abs() <= 1000.0 => r.komi = k as f32,
                _ => return Err("syntax error: komi must be a finite number".into()),
            },
            "whiteHandicapBonus" => {
                r.handicap_bonus = match s.as_str() {
                    "0" => HandicapBonus::Zero,
                    "N" => HandicapBonus::N,
                    "N-1" => HandicapBonus::NMinusOne,
                    _ => return Err("unsupported whiteHandicapBonus".into()),
                }
            }
            _ => {
                return Err(format!(
                    "unknown rules field '{}'",
                    key.chars().take(40).collect::<String>()
                ))
            }
        }
    }
    Ok(r)
}

#[derive(Debug, PartialEq)]
enum Value {
    Str(String),
    Num(f64),
    Bool(bool),
}

/// A flat JSON object of strings, numbers and booleans.
fn parse_object(text: &str) -> Option<Vec<(String, Value)>> {
    let mut chars = text.trim().chars().peekable();
    let mut out = Vec::new();
    let skip_ws = |c: &mut std::iter::Peekable<std::str::Chars>| {
        while c.peek().is_some_and(|x| x.is_whitespace()) {
            c.next();
        }
    };
    fn string(c: &mut std::iter::Peekable<std::str::Chars>) -> Option<String> {
        if c.next()? != '"' {
            return None;
        }
        let mut s = String::new();
        loop {
            match c.next()? {
                '"' => return Some(s),
                '\\' => s.push(c.next()?),
                x => s.push(x),
            }
        }
    }
    if chars.next()? != '{' {
        return None;
    }
    skip_ws(&mut chars);
    if chars.peek() == Some(&'}') {
        chars.next();
        return chars.all(char::is_whitespace).then_some(out);
    }
    loop {
        skip_ws(&mut chars);
        let key = string(&mut chars)?;
        skip_ws(&mut chars);
        if chars.next()? != ':' {
            return None;
        }
        skip_ws(&mut chars);
        let value = match *chars.peek()? {
            '"' => Value::Str(string(&mut chars)?),
            _ => {
                let mut word = String::new();
                while chars
                    .peek()
                    .is_some_and(|x| !x.is_whitespace() && *x != ',' && *x != '}')
                {
                    word.push(chars.next()?);
                }
                match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    w => Value::Num(w.parse().ok()?),
                }
            }
        };
        out.push((key, value));
        skip_ws(&mut chars);
        match chars.next()? {
            ',' => continue,
            '}' => break,
            _ => return None,
        }
    }
    chars.all(char::is_whitespace).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let r = Ruleset::tromp_taylor().with_komi(6.5);
        assert_eq!(parse(&to_json(&r), &Ruleset::chinese()), Ok(r));
        let r = parse(
            r#"{"ko":"SIMPLE","scoring":"AREA","suicide":true,"komi":7}"#,
            &Ruleset::chinese(),
        )
        .unwrap();
        assert_eq!(r.ko, KoRule::Simple);
        assert!(r.suicide_allowed);
        assert_eq!(r.komi, 7.0);
        let t = parse(r#"{"scoring":"TERRITORY","tax":"SEKI"}"#, &r).unwrap();
        assert_eq!((t.scoring, t.tax), (Scoring::Territory, Tax::Seki));
        assert_eq!(
            parse(&to_json(&Ruleset::japanese()), &r),
            Ok(Ruleset::japanese())
        );
        assert!(parse(r#"{"tax":"ALL"}"#, &r).is_err());
        assert!(parse(r#"{"komi":nan}"#, &r).is_err());
        assert!(parse("{", &r).is_err());
    }
}
