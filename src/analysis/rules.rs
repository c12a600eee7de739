//! The query's `rules` field in KataGo's vocabulary: a name (`chinese`,
//! `tromp-taylor`, `japanese`, ...) or an object such as
//! `{"ko":"SIMPLE","scoring":"AREA","suicide":false}`.
//!
//! Area and territory scoring, the seki tax, every ko and suicide rule are
//! played as named. What tengen cannot play exactly (the all-groups tax
//! of stone scoring, the button) is mapped to the nearest ruleset with a
//! warning, as KataGo does when its net lacks a rule; an unknown name or
//! field is an error.

use serde_json::Value;

use crate::rules::{HandicapBonus, KoRule, Ruleset, Scoring, Tax};

/// Parsed rules: the ruleset (komi: the rules' own or KataGo's default for
/// them), and a warning when something had to be mapped.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedRules {
    pub rules: Ruleset,
    pub warning: Option<String>,
}

/// KataGo's default rules object before fields apply: positional superko,
/// area scoring, suicide legal, no handicap bonus, komi 7.5.
fn base() -> Ruleset {
    Ruleset {
        ko: KoRule::Positional,
        suicide_allowed: true,
        komi: 7.5,
        handicap_bonus: HandicapBonus::Zero,
        scoring: Scoring::Area,
        tax: Tax::None,
    }
}

/// Parses the `rules` field; `Err` carries KataGo's message.
pub fn parse(value: &Value) -> Result<ParsedRules, String> {
    match value {
        Value::String(s) => parse_name(s).ok_or_else(|| format!("Could not parse rules: {s}")),
        Value::Object(_) => parse_object(value).ok_or_else(|| format!("Could not parse rules: {value}")),
        _ => Err("Must specify rules string, such as \"chinese\" or \"tromp-taylor\", or a JSON object with detailed rules parameters.".to_string()),
    }
}

fn mapped(rules: Ruleset, from: &str, to: &str) -> ParsedRules {
    ParsedRules {
        rules,
        warning: Some(format!(
            "Rules {from} not supported by tengen, using {to} instead"
        )),
    }
}

fn parse_name(name: &str) -> Option<ParsedRules> {
    let n = name.trim().to_ascii_lowercase().replace(['_', ' '], "-");
    let plain = |rules: Ruleset| ParsedRules {
        rules,
        warning: None,
    };
    Some(match n.as_str() {
        // KataGo's default komi for area scoring is 7.5.
        "chinese" | "chinese-ogs" | "chinese-kgs" | "cn" => {
            plain(Ruleset::chinese().with_komi(7.5))
        }
        // Territory scoring, seki tax, simple ko, komi 6.5.
        "japanese" | "korean" | "jp" | "ko" => plain(Ruleset::japanese()),
        "stone-scoring" => mapped(
            Ruleset {
                ko: KoRule::Simple,
                suicide_allowed: false,
                komi: 7.5,
                handicap_bonus: HandicapBonus::Zero,
                scoring: Scoring::Area,
                tax: Tax::None,
            },
            name,
            "area scoring without the group tax, with simple ko and no suicide",
        ),
        "aga-button" => mapped(Ruleset::from_name("aga")?, name, "aga without the button"),
        "bga" => plain(Ruleset {
            ko: KoRule::Situational,
            suicide_allowed: false,
            komi: 7.5,
            handicap_bonus: HandicapBonus::N,
            scoring: Scoring::Area,
            tax: Tax::None,
        }),
        _ => plain(Ruleset::from_name(&n)?),
    })
}

fn parse_object(value: &Value) -> Option<ParsedRules> {
    let map = value.as_object()?;
    let mut r = base();
    let mut unsupported: Vec<String> = Vec::new();
    for (key, v) in map {
        let upper = v.as_str().map(|s| s.to_ascii_uppercase());
        match key.as_str() {
            "ko" => {
                r.ko = match upper?.as_str() {
                    "SIMPLE" => KoRule::Simple,
                    "POSITIONAL" => KoRule::Positional,
                    "SITUATIONAL" => KoRule::Situational,
                    _ => return None,
                }
            }
            "scoring" => match upper?.as_str() {
                "AREA" => r.scoring = Scoring::Area,
                "TERRITORY" => r.scoring = Scoring::Territory,
                _ => return None,
            },
            "tax" => match upper.as_deref()? {
                "NONE" => r.tax = Tax::None,
                "SEKI" => r.tax = Tax::Seki,
                "ALL" => unsupported.push("tax ALL".into()),
                _ => return None,
            },
            "suicide" | "multiStoneSuicideLegal" => r.suicide_allowed = v.as_bool()?,
            "hasButton" => {
                if v.as_bool()? {
                    unsupported.push("hasButton".into());
                }
            }
            "friendlyPassOk" => {
                v.as_bool()?;
            }
            "komi" => {
                let k = v.as_f64().filter(|k| k.is_finite() && k.abs() <= 400.0)?;
                r.komi = k as f32;
            }
            "whiteHandicapBonus" => {
                r.handicap_bonus = match v.as_str()? {
                    "0" => HandicapBonus::Zero,
                    "N" => HandicapBonus::N,
                    "N-1" => HandicapBonus::NMinusOne,
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(if unsupported.is_empty() {
        ParsedRules {
            rules: r,
            warning: None,
        }
    } else {
        mapped(
            r,
            &value.to_string(),
            &format!("the same rules without {}", unsupported.join(", ")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_objects() {
        let c = parse(&json!("chinese")).unwrap();
        assert_eq!(c.rules.ko, KoRule::Positional);
        assert!(c.warning.is_none());
        assert_eq!(c.rules.komi, 7.5);
        let j = parse(&json!("japanese")).unwrap();
        assert_eq!(j.rules.ko, KoRule::Simple);
        assert_eq!(
            (j.rules.scoring, j.rules.tax),
            (Scoring::Territory, Tax::Seki)
        );
        assert_eq!(j.rules.komi, 6.5);
        assert!(j.warning.is_none());
        assert!(parse(&json!("stone-scoring")).unwrap().warning.is_some());
        assert!(parse(&json!("new zealand")).unwrap().warning.is_none());
        let o = parse(&json!({"ko":"SIMPLE","scoring":"AREA","suicide":false,"komi":6})).unwrap();
        assert_eq!(
            (o.rules.ko, o.rules.suicide_allowed, o.rules.komi),
            (KoRule::Simple, false, 6.0)
        );
        let t = parse(&json!({"ko":"SIMPLE","scoring":"TERRITORY","tax":"SEKI"})).unwrap();
        assert!(t.warning.is_none());
        assert_eq!(t.rules.scoring, Scoring::Territory);
        assert!(parse(&json!({"scoring":"AREA","tax":"ALL"}))
            .unwrap()
            .warning
            .is_some());
    }

    #[test]
    fn unknown_rules_are_errors() {
        assert_eq!(
            parse(&json!("bogus")).unwrap_err(),
            "Could not parse rules: bogus"
        );
        assert!(parse(&json!({"ko":"NOPE"})).is_err());
        assert!(parse(&json!({"color":"red"})).is_err());
        assert!(parse(&json!(3))
            .unwrap_err()
            .starts_with("Must specify rules string"));
    }
}
