//! The COCO caption tokenizer's engine: `nlpeval.tokenizers.ptb`, step for step, over the
//! rules of `nlpeval.tokenizers.ptb_rules` compiled here.
//!
//! A caption goes the way `ptb.coco_line` sends it: the plain-caption fast path (ASCII words,
//! at most a final period), else the whole caption through the lexer when a token may cross a
//! space, else each space-delimited chunk that is not all letters through the lexer (plain
//! chunks stay as they are). The lexer takes letter runs whole where `ptb._lex` does, else the
//! longest match of the rules that may start with the character (the earlier rule wins a tie),
//! and applies the rule's action. The tokens are lowercased as Python's `str.lower` does and
//! pycocoevalcap's punctuation is removed.
//!
//! Character classes are Python's (the binding passes `str.isalpha`, `isdecimal`, `isalnum`
//! and `str.lower` for the Basic Multilingual Plane), so the regexes' classes, written by
//! `ptb_rules` from Python's Unicode database, and the code here agree. A caption is left to
//! the Python tokenizer (`None`) when its text (with the next caption's start the rules may
//! look at) holds a character beyond the BMP, or when it holds `Σ` (Java's final-sigma
//! lowercasing), `İ` or `ı` (Python's case-insensitive `re` equates them with `i`).

use crate::text::py_rstrip;
use regex_automata::hybrid::dfa::{OverlappingState, DFA};
use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input, MatchKind};
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// What a rule makes of the text it matched (`ptb._act`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Plain,
    /// the text without soft hyphens (`-` if nothing is left)
    Word,
    Skip,
    Newline,
    QuoteRight,
    QuoteLeft,
    /// the text but its last `n` characters, which are lexed again
    Pushback(usize),
    Nbsp,
    Mdash,
    Amp,
    Fraction,
    Currency,
    Acronym,
    Abbrev1End,
    Phone,
    Lt,
    Gt,
    Parens,
    Bracket(&'static str),
    Hyphens,
    Ellipsis,
}

impl Action {
    /// The action of `ptb_rules`' name.
    pub fn from_name(name: &str) -> Option<Action> {
        Some(match name {
            "plain" => Action::Plain,
            "word" | "softhyphen" => Action::Word,
            "skip" | "delete" => Action::Skip,
            "newline" => Action::Newline,
            "quote_right" => Action::QuoteRight,
            "quote_left" => Action::QuoteLeft,
            "pushback3" => Action::Pushback(3),
            "pushback2" => Action::Pushback(2),
            "nbsp" => Action::Nbsp,
            "mdash" => Action::Mdash,
            "amp" => Action::Amp,
            "fraction" => Action::Fraction,
            "currency" => Action::Currency,
            "acronym" => Action::Acronym,
            "abbrev1_end" => Action::Abbrev1End,
            "phone" => Action::Phone,
            "lt" => Action::Lt,
            "gt" => Action::Gt,
            "parens" => Action::Parens,
            "lcb" => Action::Bracket("-LCB-"),
            "rcb" => Action::Bracket("-RCB-"),
            "lsb" => Action::Bracket("-LSB-"),
            "rsb" => Action::Bracket("-RSB-"),
            "lrb" => Action::Bracket("-LRB-"),
            "rrb" => Action::Bracket("-RRB-"),
            "hyphens" => Action::Hyphens,
            "ellipsis" => Action::Ellipsis,
            _ => return None,
        })
    }
}

/// What must occur in a text for a rule to match anywhere in it (`Rule.needs`).
#[derive(Clone, Debug)]
pub enum Needs {
    Nothing,
    /// one of these characters
    AnyOf(Vec<char>),
    /// a match of this pattern
    Pattern(String),
}

/// One rule as `ptb_rules` writes it.
#[derive(Clone, Debug)]
pub struct RuleSpec {
    pub name: String,
    /// the token as group 1, then the trailing context (if any)
    pub pattern: String,
    /// whether the pattern has a trailing context after group 1
    pub context: bool,
    pub action: Action,
    pub needs: Needs,
    /// a one-character pattern every match starts with
    pub first: String,
}

const ALPHA: u8 = 1;
const DECIMAL: u8 = 2;
const ALNUM: u8 = 4;

/// Python's character predicates and `str.lower` over the Basic Multilingual Plane.
pub struct CharTables {
    flags: Vec<u8>,
    lower: FxHashMap<char, String>,
}

impl CharTables {
    /// `flags[c]` for each BMP code point: 1 `isalpha`, 2 `isdecimal`, 4 `isalnum`; `lower`:
    /// `c.lower()` of every non-ASCII BMP character it changes.
    pub fn new(flags: Vec<u8>, lower: Vec<(char, String)>) -> Result<CharTables, String> {
        if flags.len() != 0x10000 {
            return Err(format!(
                "the character flags must cover the 65536 BMP code points, not {}",
                flags.len()
            ));
        }
        Ok(CharTables {
            flags,
            lower: lower.into_iter().collect(),
        })
    }

    /// Tables from Rust's Unicode data (for tests; close to Python's, not equal).
    pub fn from_rust() -> CharTables {
        let mut flags = vec![0u8; 0x10000];
        let mut lower = Vec::new();
        for (code, flag) in flags.iter_mut().enumerate() {
            let Some(c) = char::from_u32(code as u32) else {
                continue;
            };
            if c.is_alphabetic() && !c.is_numeric() {
                *flag |= ALPHA | ALNUM;
            }
            if c.is_ascii_digit() {
                *flag |= DECIMAL | ALNUM;
            }
            if !c.is_ascii() {
                let low: String = c.to_lowercase().collect();
                if low.len() != c.len_utf8() || !low.starts_with(c) {
                    lower.push((c, low));
                }
            }
        }
        CharTables::new(flags, lower).expect("65536 flags")
    }

    fn flag(&self, c: char) -> u8 {
        self.flags.get(c as usize).copied().unwrap_or(0)
    }

    fn is_alpha(&self, c: char) -> bool {
        self.flag(c) & ALPHA != 0
    }

    fn is_decimal(&self, c: char) -> bool {
        self.flag(c) & DECIMAL != 0
    }

    /// Python's `str.lower` of `text` (without `Σ`) appended to `out`.
    fn lower_into(&self, text: &str, out: &mut String) {
        if text.is_ascii() {
            out.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
            return;
        }
        for c in text.chars() {
            match self.lower.get(&c) {
                Some(low) => out.push_str(low),
                None => out.push(c.to_ascii_lowercase()),
            }
        }
    }
}

enum NeedsRe {
    Nothing,
    Ascii(u128),
    Chars(Vec<char>),
    Pattern(Regex),
}

struct Rule {
    name: String,
    pattern: String,
    regex: Regex,
    context: bool,
    action: Action,
    needs: NeedsRe,
    first: Regex,
}

/// The compiled rules and tables (immutable; share it between threads).
pub struct Lexer {
    rules: Vec<Rule>,
    ascii: Vec<Vec<u16>>,
    /// all rules in one lazy DFA reporting every (rule, end) at a position: the bounds that
    /// spare most rules' own searches (None with more than 128 rules)
    union: Option<DFA>,
    tables: CharTables,
    url_rules: Vec<usize>,
    abbrev_rules: Vec<usize>,
}

/// One call's regex caches and first-character dispatch of non-ASCII characters.
pub struct Scratch {
    union: Option<regex_automata::hybrid::dfa::Cache>,
    ends: Vec<usize>,
    bounds: Vec<(usize, usize)>,
    caches: Vec<Option<meta::Cache>>,
    needs: Vec<Option<meta::Cache>>,
    captures: Vec<Option<Captures>>,
    firsts: FxHashMap<char, Vec<u16>>,
    first_caches: Vec<Option<meta::Cache>>,
}

const CONTEXT_CHARS: usize = 64;
/// Captions per block of a batch cut for the thread pool (at least).
const BLOCK_MIN: usize = 1000;
const SPECIAL: [&str; 6] = ["cannot", "gonna", "gotta", "lemme", "gimme", "wanna"];
const ABBREV3: [&str; 10] = [
    "figs.", "fig.", "ca.", "prop.", "nos.", "no.", "art.", "bldg.", "pp.", "op.",
];
const SAFE_AFTER: &str = " \t\n,;:\"()[]{}\u{201c}\u{201d}\u{201e}\u{ab}\u{bb}";
const TRAILING_SPACE: [char; 7] = [' ', '\t', '\n', '\u{b}', '\u{c}', '\r', '\u{85}'];
/// pycocoevalcap's `PUNCTUATIONS`.
const PUNCTUATION: [&str; 17] = [
    "''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-", ".", "?", "!", ",", ":", "-", "--",
    "...", ";",
];

fn compile(pattern: &str, name: &str) -> Result<Regex, String> {
    Regex::builder()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(256 << 20))
                .dfa_size_limit(Some(64 << 20))
                .hybrid_cache_capacity(8 << 20),
        )
        .build(pattern)
        .map_err(|err| format!("PTB rule {name}: {err}"))
}

/// One lazy DFA over all `patterns` that reports every pattern's every match end.
fn union_dfa(patterns: &[&str]) -> Result<DFA, String> {
    DFA::builder()
        .configure(
            DFA::config()
                .match_kind(MatchKind::All)
                .cache_capacity(32 << 20)
                .minimum_cache_clear_count(None),
        )
        .thompson(thompson::Config::new().nfa_size_limit(Some(512 << 20)))
        .build_many(patterns)
        .map_err(|err| format!("PTB rules: {err}"))
}

fn is_special(word: &str) -> bool {
    SPECIAL.iter().any(|s| s.eq_ignore_ascii_case(word))
}

fn cache_of<'a>(slot: &'a mut Option<meta::Cache>, regex: &Regex) -> &'a mut meta::Cache {
    slot.get_or_insert_with(|| regex.create_cache())
}

/// `text` without its last `n` characters.
fn cut_last(text: &str, n: usize) -> usize {
    text.char_indices()
        .rev()
        .nth(n - 1)
        .map_or(0, |(index, _)| index)
}

fn no_soft_hyphens(text: &str) -> Cow<'_, str> {
    if !text.contains('\u{ad}') {
        return Cow::Borrowed(text);
    }
    let out: String = text.chars().filter(|&c| c != '\u{ad}').collect();
    Cow::Owned(if out.is_empty() { "-".to_string() } else { out })
}

/// `text` with every non-overlapping occurrence of one of `needles` (tried in order at each
/// position) replaced by `with`; `ascii_caseless` compares ASCII letters in either case.
fn replace_any(text: &str, needles: &[&str], with: &str, ascii_caseless: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let bytes = text.as_bytes();
    'outer: while i < bytes.len() {
        for needle in needles {
            let n = needle.len();
            if i + n <= bytes.len() {
                let here = &bytes[i..i + n];
                let hit = if ascii_caseless {
                    here.eq_ignore_ascii_case(needle.as_bytes())
                } else {
                    here == needle.as_bytes()
                };
                if hit {
                    out.push_str(with);
                    i += n;
                    continue 'outer;
                }
            }
        }
        let c = text[i..].chars().next().expect("char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn latex_quotes(text: &str, left: bool) -> String {
    let text = replace_any(text, &["&apos;", "'"], if left { "`" } else { "'" }, false);
    let text = replace_any(
        &text,
        &["\"", "&quot;"],
        if left { "``" } else { "''" },
        false,
    );
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{91}' | '\u{2018}' | '\u{201b}' | '\u{2039}' => out.push('`'),
            '\u{92}' | '\u{2019}' | '\u{203a}' => out.push('\''),
            '\u{93}' | '\u{201c}' | '\u{ab}' => out.push_str("``"),
            '\u{94}' | '\u{201d}' | '\u{bb}' => out.push_str("''"),
            _ => out.push(c),
        }
    }
    out
}

fn parens(text: &str) -> String {
    text.replace('(', "-LRB-").replace(')', "-RRB-")
}

/// The token an action makes of the matched `text` and how many bytes it consumes.
fn act(action: Action, text: &str) -> (Option<Cow<'_, str>>, usize) {
    let size = text.len();
    let token: String = match action {
        Action::Plain => return (Some(Cow::Borrowed(text)), size),
        Action::Word => return (Some(no_soft_hyphens(text)), size),
        Action::Skip => return (None, size),
        Action::Newline => "\n".to_string(),
        Action::QuoteRight => latex_quotes(text, false),
        Action::QuoteLeft => latex_quotes(text, true),
        Action::Pushback(n) => {
            let cut = cut_last(text, n);
            return (Some(Cow::Borrowed(&text[..cut])), cut);
        }
        Action::Nbsp => text.replace(' ', "\u{a0}"),
        Action::Mdash => "--".to_string(),
        Action::Amp => replace_any(text, &["&amp;"], "&", true),
        Action::Fraction => text
            .chars()
            .map(|c| match c {
                '\u{bc}' => "1/4".to_string(),
                '\u{bd}' => "1/2".to_string(),
                '\u{be}' => "3/4".to_string(),
                '\u{2153}' => "1/3".to_string(),
                '\u{2154}' => "2/3".to_string(),
                _ => c.to_string(),
            })
            .collect(),
        Action::Currency => text
            .chars()
            .map(|c| match c {
                '\u{a2}' => "cents".to_string(),
                '\u{a3}' => "#".to_string(),
                '\u{80}' | '\u{a4}' | '\u{20a0}' | '\u{20ac}' => "$".to_string(),
                _ => c.to_string(),
            })
            .collect(),
        Action::Acronym => {
            let text = text.trim_end_matches(TRAILING_SPACE);
            let mut chars = text.char_indices();
            if text.chars().count() == 2 {
                let (_, first) = chars.next().expect("two characters");
                return (Some(Cow::Owned(first.to_string())), first.len_utf8());
            }
            return (Some(Cow::Borrowed(text)), cut_last(text, 1));
        }
        Action::Abbrev1End => return (Some(Cow::Borrowed(text)), cut_last(text, 1)),
        Action::Phone => parens(&text.replace(' ', "\u{a0}")),
        Action::Lt => "<".to_string(),
        Action::Gt => ">".to_string(),
        Action::Parens => parens(text),
        Action::Bracket(name) => name.to_string(),
        Action::Hyphens => {
            let n = text.chars().count();
            if (3..=4).contains(&n) {
                "--".to_string()
            } else {
                text.to_string()
            }
        }
        Action::Ellipsis => "...".to_string(),
    };
    (Some(Cow::Owned(token)), size)
}

impl Lexer {
    /// Compiles the rules (in priority order) over Python's character tables.
    pub fn new(specs: Vec<RuleSpec>, tables: CharTables) -> Result<Lexer, String> {
        if specs.len() >= u16::MAX as usize {
            return Err("too many PTB rules".to_string());
        }
        let mut rules = Vec::with_capacity(specs.len());
        for spec in specs {
            let needs = match spec.needs {
                Needs::Nothing => NeedsRe::Nothing,
                Needs::AnyOf(chars) if chars.iter().all(char::is_ascii) => NeedsRe::Ascii(
                    chars
                        .iter()
                        .fold(0u128, |mask, &c| mask | 1u128 << (c as u32)),
                ),
                Needs::AnyOf(chars) => NeedsRe::Chars(chars),
                Needs::Pattern(pattern) => NeedsRe::Pattern(compile(&pattern, &spec.name)?),
            };
            rules.push(Rule {
                regex: compile(&spec.pattern, &spec.name)?,
                pattern: spec.pattern,
                first: compile(&spec.first, &spec.name)?,
                name: spec.name,
                context: spec.context,
                action: spec.action,
                needs,
            });
        }
        let union = if rules.len() <= 128 {
            let patterns: Vec<&str> = rules.iter().map(|r| r.pattern.as_str()).collect();
            Some(union_dfa(&patterns)?)
        } else {
            None
        };
        let mut lexer = Lexer {
            union,
            url_rules: rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.name == "email" || r.name == "likelyurl")
                .map(|(i, _)| i)
                .collect(),
            abbrev_rules: rules
                .iter()
                .enumerate()
                .filter(|(_, r)| r.name == "abbrev1" || r.name == "abbrev2")
                .map(|(i, _)| i)
                .collect(),
            rules,
            ascii: Vec::new(),
            tables,
        };
        let mut scratch = lexer.scratch();
        lexer.ascii = (0u8..128)
            .map(|b| lexer.first_candidates(&mut scratch, char::from(b)))
            .collect();
        Ok(lexer)
    }

    /// Caches for one call (one thread).
    pub fn scratch(&self) -> Scratch {
        Scratch {
            union: self.union.as_ref().map(DFA::create_cache),
            ends: vec![usize::MAX; self.rules.len()],
            bounds: Vec::new(),
            caches: (0..self.rules.len()).map(|_| None).collect(),
            needs: (0..self.rules.len()).map(|_| None).collect(),
            captures: (0..self.rules.len()).map(|_| None).collect(),
            firsts: FxHashMap::default(),
            first_caches: (0..self.rules.len()).map(|_| None).collect(),
        }
    }

    fn first_candidates(&self, scratch: &mut Scratch, c: char) -> Vec<u16> {
        let mut buf = [0u8; 4];
        let one = c.encode_utf8(&mut buf);
        let input = Input::new(one.as_bytes()).anchored(Anchored::Yes);
        self.rules
            .iter()
            .enumerate()
            .filter(|(i, rule)| {
                let cache = cache_of(&mut scratch.first_caches[*i], &rule.first);
                rule.first.search_half_with(cache, &input).is_some()
            })
            .map(|(i, _)| i as u16)
            .collect()
    }

    /// The rules that cannot match anywhere in `text` (`ptb._disabled`).
    fn disabled(&self, scratch: &mut Scratch, text: &str) -> Vec<bool> {
        let mut present = 0u128;
        for b in text.bytes().filter(u8::is_ascii) {
            present |= 1u128 << b;
        }
        self.rules
            .iter()
            .enumerate()
            .map(|(i, rule)| match &rule.needs {
                NeedsRe::Nothing => false,
                NeedsRe::Ascii(mask) => present & mask == 0,
                NeedsRe::Chars(chars) => !text.chars().any(|c| chars.contains(&c)),
                NeedsRe::Pattern(regex) => {
                    let cache = cache_of(&mut scratch.needs[i], regex);
                    regex.search_half_with(cache, &Input::new(text)).is_none()
                }
            })
            .collect()
    }

    /// Lexes `text` from byte `pos` until a token ends at or after `stop` (`ptb._lex`);
    /// `None` if no rule matches somewhere.
    fn lex<'t>(
        &self,
        scratch: &mut Scratch,
        text: &'t str,
        mut pos: usize,
        stop: usize,
        disabled: &[bool],
        tokens: &mut Vec<Cow<'t, str>>,
    ) -> Option<usize> {
        let quick = self.url_rules.iter().all(|&i| disabled[i]);
        while pos < stop {
            if quick {
                if let Some(end) = self.quick_word(text, pos) {
                    tokens.push(Cow::Borrowed(&text[pos..end]));
                    pos = end;
                    continue;
                }
            }
            let c = text[pos..].chars().next()?;
            let owned;
            let candidates: &[u16] = if c.is_ascii() {
                &self.ascii[c as usize]
            } else {
                owned = match scratch.firsts.get(&c) {
                    Some(found) => found.clone(),
                    None => {
                        let found = self.first_candidates(scratch, c);
                        scratch.firsts.insert(c, found.clone());
                        found
                    }
                };
                &owned
            };
            let input = Input::new(text).range(pos..).anchored(Anchored::Yes);
            let (mut best, mut best_len) = (None, 0);
            if self.bounds(scratch, &input, candidates, disabled) {
                // the rules in order of their longest possible match: a rule whose bound is
                // below the best match so far (or equal, and later) cannot win
                for &(end, index) in &scratch.bounds {
                    let bound = end - pos;
                    if bound < best_len || (bound == best_len && best.is_some_and(|b| index > b)) {
                        if bound < best_len {
                            break;
                        }
                        continue;
                    }
                    let rule = &self.rules[index];
                    let cache = cache_of(&mut scratch.caches[index], &rule.regex);
                    if let Some(found) = rule.regex.search_half_with(cache, &input) {
                        let length = found.offset() - pos;
                        if length > best_len
                            || (length == best_len && length > 0 && best.is_some_and(|b| index < b))
                        {
                            best = Some(index);
                            best_len = length;
                        }
                    }
                }
            } else {
                for &index in candidates {
                    let index = index as usize;
                    if disabled[index] {
                        continue;
                    }
                    let rule = &self.rules[index];
                    let cache = cache_of(&mut scratch.caches[index], &rule.regex);
                    if let Some(found) = rule.regex.search_half_with(cache, &input) {
                        let length = found.offset() - pos;
                        if length > best_len {
                            best = Some(index);
                            best_len = length;
                        }
                    }
                }
            }
            let index = best?;
            let rule = &self.rules[index];
            let end = if rule.context {
                let cache = cache_of(&mut scratch.caches[index], &rule.regex);
                let caps =
                    scratch.captures[index].get_or_insert_with(|| rule.regex.create_captures());
                rule.regex.search_captures_with(cache, &input, caps);
                caps.get_group(1)?.end
            } else {
                pos + best_len
            };
            let (token, consumed) = act(rule.action, &text[pos..end]);
            if let Some(token) = token {
                tokens.push(token);
            }
            pos += consumed;
        }
        Some(pos)
    }

    /// Fills `scratch.bounds` with `(longest match end, rule)` of every candidate rule not
    /// disabled that matches at the input's start, longest first (then in rule order); false
    /// if the union DFA is not there or gave up (then every candidate is searched).
    fn bounds(
        &self,
        scratch: &mut Scratch,
        input: &Input<'_>,
        candidates: &[u16],
        disabled: &[bool],
    ) -> bool {
        let (Some(dfa), Some(cache)) = (&self.union, scratch.union.as_mut()) else {
            return false;
        };
        scratch.bounds.clear();
        let mut state = OverlappingState::start();
        loop {
            if dfa
                .try_search_overlapping_fwd(cache, input, &mut state)
                .is_err()
            {
                return false;
            }
            let Some(found) = state.get_match() else {
                break;
            };
            let index = found.pattern().as_usize();
            if scratch.ends[index] == usize::MAX {
                scratch.bounds.push((0, index));
            }
            scratch.ends[index] = found.offset();
        }
        let ends = &mut scratch.ends;
        scratch.bounds.retain_mut(|(end, index)| {
            *end = std::mem::replace(&mut ends[*index], usize::MAX);
            !disabled[*index] && candidates.contains(&(*index as u16))
        });
        scratch
            .bounds
            .sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        true
    }

    /// The end of the letter run at `pos` if the lexer takes it whole as a word (the quick path
    /// of `ptb._lex`).
    fn quick_word(&self, text: &str, pos: usize) -> Option<usize> {
        let mut end = pos;
        let mut alpha = true;
        for c in text[pos..].chars() {
            let flag = self.tables.flag(c);
            if flag & ALNUM == 0 || flag & DECIMAL != 0 {
                break;
            }
            alpha &= flag & ALPHA != 0;
            end += c.len_utf8();
        }
        if end == pos || !alpha {
            return None;
        }
        let after = text[end..].chars().next();
        if after.is_some_and(|c| !SAFE_AFTER.contains(c)) {
            return None;
        }
        let word = &text[pos..end];
        if is_special(word) {
            return None;
        }
        if after == Some(':')
            && (word.eq_ignore_ascii_case("http") || word.eq_ignore_ascii_case("https"))
        {
            return None;
        }
        Some(end)
    }

    /// Whether `rule` matches `text` whole as its token (`ptb._whole`).
    fn whole(&self, scratch: &mut Scratch, index: usize, text: &str) -> bool {
        let rule = &self.rules[index];
        let cache = cache_of(&mut scratch.caches[index], &rule.regex);
        let caps = scratch.captures[index].get_or_insert_with(|| rule.regex.create_captures());
        rule.regex
            .search_captures_with(cache, &Input::new(text).anchored(Anchored::Yes), caps);
        caps.get_group(1)
            .is_some_and(|span| span.start == 0 && span.end == text.len())
    }

    /// `ptb._simple_caption`: `Some(line)` for a caption of ASCII words with at most a final
    /// period, `None` when the general path must decide.
    fn simple_caption(&self, scratch: &mut Scratch, caption: &str) -> Option<String> {
        if !simple_shape(caption.as_bytes()) {
            return None;
        }
        let mut words: Vec<&str> = caption.split(' ').filter(|w| !w.is_empty()).collect();
        let last = *words.last()?;
        if last == "." {
            words.pop();
        } else if let Some(stem) = last.strip_suffix('.') {
            if last.len() == 2
                || ABBREV3.iter().any(|a| a.eq_ignore_ascii_case(last))
                || self
                    .abbrev_rules
                    .clone()
                    .into_iter()
                    .any(|index| self.whole(scratch, index, last))
            {
                return None;
            }
            *words.last_mut()? = stem;
        }
        if words.iter().any(|w| is_special(w)) {
            return None;
        }
        Some(words.join(" ").to_ascii_lowercase())
    }

    /// pycocoevalcap's line of one caption (`ptb.coco_line`), `None` where the Python
    /// tokenizer must decide. `following`: the next caption of the batch, its `\n` made spaces.
    pub fn coco_line(
        &self,
        scratch: &mut Scratch,
        caption: &str,
        following: Option<&str>,
    ) -> Option<String> {
        let caption: Cow<'_, str> = if caption.contains('\n') {
            Cow::Owned(caption.replace('\n', " "))
        } else {
            Cow::Borrowed(caption)
        };
        if let Some(line) = self.simple_caption(scratch, &caption) {
            return Some(line);
        }
        let text = with_context(&caption, following);
        if text.chars().any(|c| c as u32 > 0xFFFF)
            || caption
                .chars()
                .any(|c| matches!(c, '\u{3a3}' | '\u{130}' | '\u{131}'))
        {
            return None;
        }
        let disabled = self.disabled(scratch, &text);
        let mut tokens = Vec::new();
        // the lowercased tokens joined by spaces (ptb._finish's first line)
        let mut joined = String::with_capacity(caption.len() + 8);
        let mut first = true;
        if self.crossing(&caption) {
            self.lex(scratch, &text, 0, caption.len(), &disabled, &mut tokens)?;
            for token in &tokens {
                self.push_lowered(&mut joined, &mut first, token);
            }
            return Some(finish(&joined));
        }
        let mut start = 0;
        for chunk in caption.split(' ') {
            let (from, to) = (start, start + chunk.len());
            start = to + 1;
            if chunk.is_empty() {
                continue;
            }
            if chunk.chars().all(|c| self.tables.is_alpha(c)) && !is_special(chunk) {
                self.push_lowered(&mut joined, &mut first, chunk);
                continue;
            }
            let from = if from == 0 {
                0
            } else {
                skip_spaces(&text, from)
            };
            tokens.clear();
            self.lex(scratch, &text, from, to, &disabled, &mut tokens)?;
            for token in &tokens {
                for word in token.split(' ').filter(|w| !w.is_empty()) {
                    self.push_lowered(&mut joined, &mut first, word);
                }
            }
        }
        Some(finish(&joined))
    }

    /// Appends `token` lowercased to the line (after a space unless it is the first), except
    /// the line breaks `"\n"`.
    fn push_lowered(&self, joined: &mut String, first: &mut bool, token: &str) {
        if token == "\n" {
            return;
        }
        if !*first {
            joined.push(' ');
        }
        *first = false;
        self.tables.lower_into(token, joined);
    }

    /// The PTB tokens of `text` (`ptb.ptb_tokens`; `"\n"` marks a line break), `None` where the
    /// Python tokenizer must decide.
    pub fn ptb_tokens(
        &self,
        scratch: &mut Scratch,
        text: &str,
        following: Option<&str>,
    ) -> Option<Vec<String>> {
        let context = match following {
            Some(next) => format!("{text}\n{}", prefix_chars(next, CONTEXT_CHARS)),
            None => text.to_string(),
        };
        if context.chars().any(|c| c as u32 > 0xFFFF) {
            return None;
        }
        let disabled = self.disabled(scratch, &context);
        let mut tokens = Vec::new();
        self.lex(scratch, &context, 0, text.len(), &disabled, &mut tokens)?;
        Some(tokens.into_iter().map(Cow::into_owned).collect())
    }

    /// `ptb._CROSSING`: where a token may run across a space.
    fn crossing(&self, caption: &str) -> bool {
        let chars: Vec<char> = caption.chars().collect();
        let at = |i: usize| chars.get(i).copied();
        let digit = |c: Option<char>| c.is_some_and(|c| self.tables.is_decimal(c));
        (0..chars.len()).any(|i| {
            let c = chars[i];
            (self.tables.is_decimal(c)
                && at(i + 1) == Some(' ')
                && (digit(at(i + 2)) || at(i + 2) == Some('(')))
                || (c == ')' && (digit(at(i + 1)) || (at(i + 1) == Some(' ') && digit(at(i + 2)))))
                || (c == '.' && at(i + 1) == Some(' ') && at(i + 2) == Some('.'))
                || c == '<'
                || (c == '+' && (digit(at(i + 1)) || (at(i + 1) == Some(' ') && digit(at(i + 2)))))
        })
    }

    /// `ptb.coco_tokenize` without its Python fallback: each caption's line or `None`. Large
    /// batches are cut into one block per thread of the pool; a caption that no rule can read
    /// past (`ptb._context_free`) then takes the line of its first occurrence, as the Python
    /// tokenizer's cache gives it.
    pub fn coco_lines(&self, captions: &[&str]) -> Vec<Option<String>> {
        use rayon::prelude::*;
        let threads = crate::common::parallel::current_num_threads();
        let blocks = threads.min(captions.len() / BLOCK_MIN).max(1);
        let mut lines = if blocks == 1 {
            self.coco_block(captions, 0, captions.len())
        } else {
            let size = captions.len().div_ceil(blocks);
            let parts: Vec<Vec<Option<String>>> = crate::common::parallel::install(|| {
                (0..blocks)
                    .into_par_iter()
                    .map(|b| {
                        self.coco_block(captions, b * size, ((b + 1) * size).min(captions.len()))
                    })
                    .collect()
            });
            parts.concat()
        };
        let mut first: FxHashMap<&str, usize> = FxHashMap::default();
        for (index, &caption) in captions.iter().enumerate() {
            if context_free(caption) {
                let at = *first.entry(caption).or_insert(index);
                if at != index {
                    lines[index] = lines[at].clone();
                }
            }
        }
        lines
    }

    /// The lines of `captions[start..end]` (the next caption after the block is its last one's
    /// context), repeated context-free captions tokenized once.
    fn coco_block(&self, captions: &[&str], start: usize, end: usize) -> Vec<Option<String>> {
        let mut scratch = self.scratch();
        let mut cache: FxHashMap<&str, Option<String>> = FxHashMap::default();
        let mut out = Vec::with_capacity(end - start);
        for index in start..end {
            let caption = captions[index];
            if let Some(line) = cache.get(caption) {
                out.push(line.clone());
                continue;
            }
            let following = captions.get(index + 1).map(|next| next.replace('\n', " "));
            let line = self.coco_line(&mut scratch, caption, following.as_deref());
            if context_free(caption) {
                cache.insert(caption, line.clone());
            }
            out.push(line);
        }
        out
    }
}

/// pycocoevalcap's last step (`ptb._finish`) on the lowercased tokens joined by spaces:
/// right-stripped, its punctuation removed.
fn finish(joined: &str) -> String {
    let mut out = String::with_capacity(joined.len());
    let mut first = true;
    for word in py_rstrip(joined).split(' ') {
        if PUNCTUATION.contains(&word) {
            continue;
        }
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(word);
    }
    out
}

/// `[A-Za-z]+(?: +[A-Za-z]+)* *(?:\. *)?` matches all of `b`.
fn simple_shape(b: &[u8]) -> bool {
    let mut i = 0;
    loop {
        let start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        if i == start {
            return false;
        }
        let spaces = i;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if !(i > spaces && i < b.len() && b[i].is_ascii_alphabetic()) {
            break;
        }
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
    }
    i == b.len()
}

/// `ptb._SPACE_RUN.match(text, pos).end()`.
fn skip_spaces(text: &str, pos: usize) -> usize {
    let rest = &text[pos..];
    let kept = rest.trim_start_matches(|c: char| {
        matches!(
            c,
            ' ' | '\t' | '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{3000}'
        )
    });
    pos + rest.len() - kept.len()
}

fn prefix_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}

/// The caption and the start of the next line the rules may look at.
fn with_context(caption: &str, following: Option<&str>) -> String {
    match following {
        Some(next) => format!("{caption}\n{}", prefix_chars(next, CONTEXT_CHARS)),
        None => caption.to_string(),
    }
}

/// `ptb._context_free`: no rule can look past the end of `caption`.
fn context_free(caption: &str) -> bool {
    let tail = caption.trim_end_matches(' ');
    tail.chars().last().is_none_or(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(
        name: &str,
        pattern: &str,
        context: Option<&str>,
        action: &str,
        first: &str,
    ) -> RuleSpec {
        RuleSpec {
            name: name.to_string(),
            pattern: format!("({pattern})")
                + &context.map(|c| format!("(?:{c})")).unwrap_or_default(),
            context: context.is_some(),
            action: Action::from_name(action).expect("known action"),
            needs: Needs::Nothing,
            first: first.to_string(),
        }
    }

    /// A few rules in `ptb_rules`' shape: words, clitics, numbers, parentheses, quotes, spaces.
    fn small_lexer() -> Lexer {
        let rules = vec![
            spec("cannot", "[cC]annot", None, "pushback3", "[cC]"),
            spec(
                "word_redaux",
                "[A-Za-z]+",
                Some("'(?:s|re)"),
                "word",
                "[A-Za-z]",
            ),
            spec("word", "[A-Za-z]+", None, "word", "[A-Za-z]"),
            spec("redaux", "'(?:s|re)", None, "quote_right", "'"),
            spec(
                "number",
                "[0-9]+(?:\\.[0-9]+)?",
                None,
                "softhyphen",
                "[0-9]",
            ),
            spec("lrb", "\\(", None, "lrb", "\\("),
            spec("rrb", "\\)", None, "rrb", "\\)"),
            spec("dblquot", "\"", None, "quote_right", "\""),
            spec("period", "\\.", None, "plain", "\\."),
            spec("spaces", "[ \t]+", None, "skip", "[ \t]"),
            spec("newline", "\n", None, "newline", "\n"),
            spec("any", "[^\n]", None, "delete", "[^\n]"),
        ];
        Lexer::new(rules, CharTables::from_rust()).expect("rules compile")
    }

    #[test]
    fn longest_match_earlier_rule_and_actions() {
        let lexer = small_lexer();
        let mut scratch = lexer.scratch();
        let tokens = lexer
            .ptb_tokens(&mut scratch, "He's (cannot) pay 5.50 \"now\".", None)
            .expect("covered");
        assert_eq!(
            tokens,
            ["He", "'s", "-LRB-", "can", "not", "-RRB-", "pay", "5.50", "''", "now", "''", "."]
        );
    }

    #[test]
    fn coco_lines_lowercase_filter_and_fall_back() {
        let lexer = small_lexer();
        let captions = [
            "A Dog runs.",
            "It's 3 (big).",
            "x \u{1F600}",
            "",
            "A  b .",
            "It's 3 (big).",
        ];
        let lines = lexer.coco_lines(&captions);
        assert_eq!(lines[0].as_deref(), Some("a dog runs"));
        // beyond the BMP, in the caption or in the next one the rules may look at: Python decides
        assert_eq!(lines[1], None);
        assert_eq!(lines[2], None);
        assert_eq!(lines[3].as_deref(), Some(""));
        assert_eq!(lines[4].as_deref(), Some("a b"));
        assert_eq!(lines[5].as_deref(), Some("it 's 3 -lrb- big -rrb-"));
    }

    #[test]
    fn simple_shape_is_the_plain_caption_pattern() {
        for (text, expected) in [
            ("a dog", true),
            ("a dog.", true),
            ("a dog .  ", true),
            ("a  dog ", true),
            ("dog..", false),
            (" dog", false),
            ("", false),
            ("a1", false),
        ] {
            assert_eq!(simple_shape(text.as_bytes()), expected, "{text:?}");
        }
    }

    #[test]
    fn actions_as_the_python_tokenizer_makes_them() {
        let made = |action, text| {
            let (token, consumed): (Option<Cow<'_, str>>, usize) = act(action, text);
            (token.map(Cow::into_owned), consumed)
        };
        let some = |token: &str, consumed| (Some(token.to_string()), consumed);
        assert_eq!(made(Action::QuoteLeft, "&apos;"), some("`", 6));
        assert_eq!(made(Action::QuoteRight, "\u{201c}"), some("``", 3));
        assert_eq!(made(Action::Pushback(2), "gonna"), some("gon", 3));
        assert_eq!(made(Action::Acronym, "U.S."), some("U.S.", 3));
        assert_eq!(made(Action::Acronym, "I."), some("I", 1));
        assert_eq!(made(Action::Amp, "AT&AMP;T"), some("AT&T", 8));
        assert_eq!(made(Action::Word, "\u{ad}"), some("-", 2));
        assert_eq!(made(Action::Hyphens, "---"), some("--", 3));
        assert_eq!(made(Action::Currency, "\u{20ac}"), some("$", 3));
        assert_eq!(made(Action::Skip, "  "), (None, 2));
    }
}
