"""The rules of Stanford CoreNLP 3.4.1's ``PTBLexer`` (the lexer of ``PTBTokenizer``), as Python regexes.

Written from the behaviour documented in CoreNLP's lexer specification for the options
pycocoevalcap runs (``-preserveLines -lowerCase``: PTB3 escaping, ``americanize`` off, assimilations
split, untokenizable characters deleted). The lexer is case-insensitive for letters written
outside character classes (JFlex ``%caseless``) and case-sensitive inside them; :func:`caseless`
reproduces that. Each rule is a pattern, an optional trailing context (matched but not consumed;
its length counts for the longest-match choice, as in JFlex) and an action name that
:mod:`nlpeval.tokenizers.ptb` interprets.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass


def caseless(pattern: str) -> str:
    """``pattern`` with every ASCII letter outside a character class matching both cases, as CoreNLP's caseless
    JFlex rules match them: ``i`` also matches ``İ`` (U+0130) and ``ı`` (U+0131), the two characters whose case
    mapping leads to ``i``/``I`` (the Java tokenizer splits ``gİmme`` and keeps ``İnc.``'s period).

    Examples
    --------
    >>> caseless(r"ab[c]\\.d")
    '[aA][bB][c]\\\\.[dD]'
    >>> caseless("it")
    '[iI\u0130\u0131][tT]'
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if i + 1 < n and pattern[i + 1] == "^":  # a leading ] stays literal after [ or [^
                out.append("^")
                i += 1
            if i + 1 < n and pattern[i + 1] == "]":
                out.append("]")
                i += 1
        elif ch in "iI":
            out.append("[iI\u0130\u0131]")
        elif ch.isascii() and ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _ranges(test: Callable[[str], bool]) -> str:
    """A character-class body for the BMP characters satisfying ``test``."""
    parts: list[str] = []
    start = None
    for code in range(0x10000 + 1):
        inside = code < 0x10000 and not 0xD800 <= code < 0xE000 and test(chr(code))
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            end = code - 1
            parts.append(_escape(start) if start == end else f"{_escape(start)}-{_escape(end)}")
            start = None
    return "".join(parts)


def _escape(code: int) -> str:
    return f"\\u{code:04x}"


@functools.cache
def _letter_class() -> str:
    # JFlex's [:letter:] (Java Character.isLetter) over the BMP, plus the extra ranges of PTBLexer's LETTER
    return _ranges(str.isalpha)


@functools.cache
def _digit_class() -> str:
    return _ranges(str.isdecimal)


@functools.cache
def _upper_class() -> str:
    return _ranges(str.isupper)


_LETTER_EXTRA = (
    "\u00ad\u0237-\u024f\u02c2-\u02c5\u02d2-\u02df\u02e5-\u02ff\u0300-\u036f\u0370-\u037d\u0384\u0385\u03cf\u03f6"
    "\u03fc-\u03ff\u0483-\u0487\u04cf\u04f6-\u04ff\u0510-\u0525\u055a-\u055f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4"
    "\u05c5\u05c7\u0615-\u061a\u063b-\u063f\u064b-\u065e\u0670\u06d6-\u06ef\u06fa-\u06ff\u070f\u0711\u0730-\u074f"
    "\u0750-\u077f\u07a6-\u07b1\u07ca-\u07f5\u07fa\u0900-\u0903\u093c\u093e-\u094e\u0951-\u0955\u0962-\u0963"
    "\u0981-\u0983\u09bc-\u09c4\u09c7\u09c8\u09cb-\u09cd\u09d7\u09e2\u09e3\u0a01-\u0a03\u0a3c\u0a3e-\u0a4f"
    "\u0a81-\u0a83\u0abc-\u0acf\u0b82\u0bbe-\u0bc2\u0bc6-\u0bc8\u0bca-\u0bcd\u0c01-\u0c03\u0c3e-\u0c56\u0d3e-\u0d44"
    "\u0d46-\u0d48\u0e30-\u0e3a\u0e47-\u0e4e\u0eb1-\u0ebc\u0ec8-\u0ecd"
)


#: The words after which an acronym's period also ends the sentence (first letter case-sensitive).
_ACRONYM_NEXT = (
    "About According Additionally After An A As At But Earlier He Her Here However If In It Last Many More Now"
    " Once One Other Our She Since So Some Such That The Their Then There These They This We When While What Yet You"
)


@dataclass(frozen=True, eq=False)
class Rule:
    """One lexer rule: ``regex`` matches the token (group 1) followed by its trailing context."""

    name: str
    regex: re.Pattern[str]
    action: str
    #: what must occur in the text for the rule to match anywhere (a pre-filter), or None
    needs: re.Pattern[str] | None = None
    #: a one-character pattern every match starts with (for dispatch on the first character)
    first: re.Pattern[str] | None = None
    #: whether ``regex`` has a trailing context after group 1
    context: bool = False


@functools.cache
def rules() -> tuple[Rule, ...]:
    """The lexer's rules in priority order (the earlier rule wins a tie in length)."""
    letter_class = f"[{_letter_class()}]"
    digit = f"(?:[{_digit_class()}]|[\u07c0-\u07c9])"
    upper = f"[{_upper_class()}]"
    splet = caseless("&[aeiouAEIOU](?:acute|grave|uml);")
    letter = f"(?:{letter_class}|{splet}|[{_LETTER_EXTRA}])"
    sgml = (
        r"<(?:[!?][A-Za-z\-][^>\r\n]*|[A-Za-z][A-Za-z0-9_:.\-]*(?:[ ]+(?:[A-Za-z][A-Za-z0-9_:.\-]*[ ]*=[ ]*"
        r"(?:'[^']*'|\"[^\"]*\")|[A-Za-z][A-Za-z0-9_:.\-]*))*[ ]*/?|/[A-Za-z][A-Za-z0-9_:.\-]*)[ ]*>"
    )
    space = "[ \t\u00a0\u2000-\u200a\u3000]"
    newline = "(?:\r?\n|\r|[\u2028\u2029\u000b\u000c\u0085])"
    spacenl = f"(?:{space}|{newline})"
    sentend = f"{spacenl}(?:{spacenl}|{upper}|{sgml})"
    date = f"{digit}{{1,2}}[\\-/]{digit}{{1,2}}[\\-/]{digit}{{2,4}}"
    num = f"(?:{digit}*(?:[.:,\u00ad\u066b\u066c]{digit}+)+|{digit}+)"
    number = f"[\\-+]?{num}"
    subsupnum = "[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+|[\u2080-\u2089]+)"
    frac = f"(?:{digit}{{1,4}}[\\- \u00a0])?{digit}{{1,4}}(?:\\\\?/|\u2044){digit}{{1,4}}"
    frac2 = "[\u00bc\u00bd\u00be\u2153-\u215e]"
    dolsign = r"(?:[A-Z]*\$|#)"
    dolsign2 = "[\u00a2\u00a3\u00a4\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]"
    word = f"{letter}(?:{letter}|{digit})*(?:[.!?]{letter}(?:{letter}|{digit})*)*"
    fext = caseless(
        "(?:docx|doc|bat|bmp|class|cgi|cpp|c|dll|exe|gif|gz|html|htm|h|jar|java|jpeg|jpg|mov|mp3|pdf|php|pl|png|"
        "ppt|ps|py|sql|tar|txt|wav|xml|x|zip)"
    )
    filename = f"(?:{letter}|{digit})+(?:[.](?:{letter}|{digit})+)*[.]{fext}"
    apos = caseless("(?:['\u0092\u2019]|&apos;)")
    aposetc = f"(?:{apos}|[`\u0091\u2018\u201b])"
    hyphen = "[-_\u058a\u2010\u2011]"
    ld = f"(?:{letter_class}|{digit})"
    thing_part = f"(?:[dDoOlL]{aposetc}{ld})?{ld}+"
    thing = f"{thing_part}(?:{hyphen}{thing_part})*"
    spamp = caseless("&amp;")
    thinga = f"[A-Z]+(?:(?:[+&]|{spamp})[A-Z]+)+"
    thing3 = r"[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}"
    acro2 = caseless(r"(?:(?:Canada|Sino|Korean|EU|Japan|non)-U\.S|U\.S\.-(?:U\.S\.S\.R|U\.K)|[A-Za-z](?:\.[A-Za-z])+)")
    hthing = f"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:[A-Za-z0-9\u00ad]+|{acro2}\\.))+"
    redaux = f"{apos}(?:[msdMSD]|{caseless('re|ve|ll')})"
    sword = "[A-Za-z\u00ad]*[A-MO-Za-mo-z]\u00ad*"
    sredaux = f"{caseless('n')}{aposetc}{caseless('t')}"
    apowords = [
        f"{apos}{caseless('n')}{apos}?",
        f"[lLdDjJ]{apos}",
        f"{caseless('Dunkin')}{apos}",
        f"{caseless('somethin')}{apos}",
        f"{caseless('ol')}{apos}",
        f"{apos}{caseless('em')}",
        f"[A-HJ-XZn]{aposetc}{letter_class}{{2}}{letter_class}*",
        f"{apos}[2-9]0{caseless('s')}",
        f"{apos}{caseless('till?')}",
        f"{letter_class}{letter_class}*[aeiouyAEIOUY]{aposetc}[aeiouA-Z]{letter_class}*",
        f"{apos}{caseless('cause')}",
        caseless(r"cont'd\.?"),
        caseless("'twas|nor'easter|c'mon|e'er|s'mores|ev'ry|li'l|nat'l"),
        f"{caseless('O')}{aposetc}{caseless('o')}",
    ]
    apoword2 = f"{caseless('y')}{apos}"
    fullurl = caseless(r"https?://") + r"[^ \t\n\f\r\"<>|(){}]+[^ \t\n\f\r\"<>|.!?(){},\-]"
    likelyurl = (
        f'(?:(?:{caseless("www")}\\.(?:[^ \\t\\n\\f\\r\\"<>|.!?(){{}},]+\\.)+[a-zA-Z]{{2,4}})'
        f"|(?:(?:[^ \\t\\n\\f\\r\\\"`'<>|.!?(){{}},-_$]+\\.)+{caseless('(?:com|net|org|edu)')}))"
        r"(?:/[^ \t\n\f\r\"<>|()]+[^ \t\n\f\r\"<>|.!?(){},\-])?"
    )
    email = (
        caseless("(?:&lt;|<)?")
        + '[a-zA-Z0-9][^ \\t\\n\\f\\r\\"<>|()\u00a0{}]*@(?:[^ \\t\\n\\f\\r\\"<>|(){}.\u00a0]+\\.)*'
        + '(?:[^ \\t\\n\\f\\r\\"<>|(){}.\u00a0]+)'
        + caseless("(?:&gt;|>)?")
    )
    twitter = f"(?:@[a-zA-Z_][a-zA-Z_0-9]*|#{letter}+)"
    abmonth = "Sept|Sep|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Oct|Nov|Dec"
    abdays = "Thurs|Tues|Mon|Tue|Wed|Thu|Fri"
    abstate = (
        "Ariz|Ala|[A]z|[A]rk|Calif|Colo|Conn|Ct|Dak|[D]el|Fla|Ga|[I]ll|Ind|Kans|Kan|Ky|[L]a|[M]ass|Md|Mich|Minn|[M]iss"
        "|Mont|Mo|Neb|Nev|Okla|[O]re|Penn|[P]a|Tenn|[T]ex|Va|Vt|[W]ash|Wisc|Wis|Wyo"
    )
    abcomp = "Inc|Cos|Co|Corp|Pp?t[ye]s?|Ltd|Plc|Rt|Bancorp|Bhd|Assn|Univ|Intl|Sys"
    abnum = "tel|est|ext|sq"
    abptit = r"Jr|Sr|Bros|(?:Ed|Ph)\.D|Blvd|Rd|Esq"
    abbrev1 = caseless(f"(?:{abmonth}|{abdays}|{abstate}|{abcomp}|{abnum}|{abptit}|etc|al|seq|Bldg)") + r"\."
    acro = caseless(r"(?:(?:Canada|Sino|Korean|EU|Japan|non)-U\.S|U\.S\.-(?:U\.S\.S\.R|U\.K)|[A-Za-z](?:\.[A-Za-z])*)")
    abtitle = (
        "Mrs|Mr|Ms|[M]iss|Drs|Dr|Profs|Prof|Sens|Sen|Reps|Rep|Attys|Atty|Lt|Col|Gen|Messrs|Govs|Gov|Adm|Rev|Maj|Sgt"
        "|Cpl|Pvt|Capt|Ste|St|Ave|Pres|Lieut|Hon|Brig|Comdr|Cmdr|Pfc|Spc|Supts|Supt|Det|Mt|Ft|Adj|Adv|Asst|Assoc|Ens"
        "|Insp|Mlle|Mme|Msgr|Sfc"
    )
    abcomp2 = "Invt|Elec|Natl|M[ft]g|Dept"
    titles = caseless(f"(?:{abtitle}|vs|Alex|Wm|Jos|Cie|a\\.k\\.a|cf|TREAS|Ph|{abcomp2})")
    acronym = f"{acro}\\."
    abbrev3 = caseless(r"(?:figs|fig|ca|prop|nos|no|art|bldg|pp|op)\.")
    phone = (
        r"(?:(?:\([0-9]{2,3}\)[ \u00a0]?|(?:\+\+?)?(?:[0-9]{2,4}[\- \u00a0])?[0-9]{2,4}[\- \u00a0])[0-9]{3,4}"
        r"[\- \u00a0]?[0-9]{3,5}|(?:(?:\+\+?)?[0-9]{2,4}\.)?[0-9]{2,4}\.[0-9]{3,4}\.[0-9]{3,5})"
    )
    ldots = "(?:\\.{3,5}|(?:\\.[ \u00a0]){2,4}\\.|[\u0085\u2026])"
    quote_chars = "`\u2018\u2019\u201a\u201b\u201c\u201d\u0091\u0092\u0093\u0094\u201e\u201f\u2039\u203a\u00ab\u00bb"
    quotes = f"(?:[{quote_chars}]{{1,2}}|''|{apos})"
    dblquot = caseless('(?:"|&quot;)')
    tbspec = caseless(r"(?:-(?:RRB|LRB|RCB|LCB|RSB|LSB)-|C\.D\.s|pro-|anti-|S(?:&amp;|&)P-500|S(?:&amp;|&)Ls)") + (
        f"|{caseless('Cap')}{apos}{caseless('n')}|{caseless('c')}{apos}{caseless('est')}"
    )
    tbspec2 = f"{apos}[0-9][0-9]"
    smiley = r"[<>]?[:;=][\-o*']?[()DPdpO\\{@|\[\]]"
    asiansmiley = (
        r"[\^x=~<>]\.\[\^x=~<>]|[\-\^x=~<>']_[\-\^x=~<>']|\([\-\^x=~<>'][_.]?[\-\^x=~<>']\)|\([\^x=~<>']-[\^x=~<>'`]\)"
    )
    miscsymbol = (
        "[+%&~\\^|\\\\\u00a6\u00a7\u00a8\u00a9\u00ac\u00ae\u00af\u00b0-\u00b3\u00b4-\u00ba\u00d7\u00f7\u0387\u05be"
        "\u05c0\u05c3\u05c6\u05f3\u05f4\u0600-\u0603\u0606-\u060a\u060c\u0614\u061b\u061e\u066a\u066d\u0703-\u070d"
        "\u07f6\u07f7\u07f8\u0964\u0965\u0e4f\u1fbd\u2016\u2017\u2020-\u2023\u2030-\u2038\u203b\u203e-\u2042\u2044"
        "\u207a-\u207f\u208a-\u208e\u2100-\u214f\u2190-\u21ff\u2200-\u2bff\u3012\u30fb\uff01-\uff0f\uff1a-\uff20"
        "\uff3b-\uff40\uff5b-\uff65]"
    )
    acronym_next = "|".join(f"[{w[0]}]{caseless(w[1:])}" for w in _ACRONYM_NEXT.split())
    acronym_next = f"(?:{acronym_next}|[M]{caseless('r')}\\.|[M]{caseless('s')}\\.|{sgml})"
    table: list[tuple[str, str, str | None, str, str | None]] = [
        ("cpp", caseless(r"c[+][+]"), None, "plain", "+"),
        ("csharp", caseless("(?:c|f)#"), None, "plain", "#"),
        ("cannot", caseless("cannot"), None, "pushback3", None),
        ("twas", caseless("'twas"), None, "pushback3", "'"),
        ("tis", caseless("'tis"), None, "pushback2", "'"),
        ("gonna", caseless("gonna|gotta|lemme|gimme|wanna"), None, "pushback2", None),
        ("sgml", sgml, None, "nbsp", "<"),
        ("spmdash", caseless("&(?:MD|mdash|ndash);") + "|[\u0096\u0097\u2013\u2014\u2015]", None, "mdash", None),
        ("spamp", spamp, None, "amp", "&"),
        ("sppunc", caseless("&(?:HT|TL|UR|LR|QC|QL|QR|odq|cdq|#[0-9]+);"), None, "plain", "&"),
        ("word_redaux", word, redaux, "word", None),
        ("sword_sredaux", sword, sredaux, "softhyphen", None),
        ("word", word, None, "word", None),
        *(("apoword", alternative, None, "plain", None) for alternative in apowords),
        ("apoword2", apoword2, letter_class, "plain", None),
        ("fullurl", fullurl, None, "plain", "re:(?i)https?://"),
        ("likelyurl", likelyurl, None, "plain", "re:(?i)www\\.|\\.(?:com|net|org|edu)"),
        ("email", email, None, "plain", "@"),
        ("twitter", twitter, None, "plain", "@#"),
        ("redaux_ctx", redaux, "[^A-Za-z]", "quote_right", None),
        ("sredaux_ctx", sredaux, "[^A-Za-z]", "quote_right", None),
        ("date", date, None, "plain", None),
        ("number", number, None, "softhyphen", None),
        ("subsupnum", subsupnum, None, "plain", None),
        ("frac", frac, None, "nbsp", None),
        ("frac2", frac2, None, "fraction", None),
        ("tbspec", tbspec, None, "amp", None),
        ("thing3", thing3, None, "plain", "/"),
        ("dolsign", dolsign, None, "plain", "$#"),
        ("dolsign2", dolsign2, None, "currency", None),
        ("acronym_ctx", acronym, f"{spacenl}+(?:{acronym_next}){spacenl}", "acronym", "."),
        ("abbrev3", abbrev3, f"{spacenl}?{digit}", "plain", "."),
        ("pty", caseless(r"(?:pt[eyEY]|co)\."), f"{space}{caseless('(?:ltd|lim)')}", "plain", "."),
        ("abbrev1_sentend", abbrev1, sentend, "abbrev1_end", "."),
        ("abbrev1_ctx", abbrev1, "[\\s\\S][\\s\\S]", "plain", "."),
        ("abbrev1", abbrev1, None, "abbrev1_end", "."),
        # an alternation is ordered in Python, longest in JFlex: each alternative is its own rule
        ("abbrev2", f"{titles}\\.", None, "plain", "."),
        ("abbrev2", f"{acro}\\.", None, "plain", "."),
        ("abbrev4_ctx", titles, space, "plain", None),
        ("abbrev4_ctx", acro, space, "plain", None),
        ("acro_ctx", acro, spacenl, "plain", None),
        ("tbspec2_ctx", tbspec2, spacenl, "plain", None),
        ("filename_ctx", filename, f"(?:{spacenl}|[.?!,])", "plain", "."),
        ("word_dot_ctx", f"{word}\\.", "[,;:\u3001]", "softhyphen", "."),
        ("phone", phone, None, "phone", None),
        ("dblquot_left", dblquot, "[A-Za-z0-9$]", "quote_left", None),
        ("dblquot", dblquot, None, "quote_right", None),
        ("del", "\x7f", None, "skip", None),
        ("lessthan", caseless("<|&lt;"), None, "lt", None),
        ("greaterthan", caseless(">|&gt;"), None, "gt", None),
        ("smiley_ctx", smiley, "[^A-Za-z0-9]", "parens", None),
        ("asiansmiley", asiansmiley, None, "parens", None),
        ("lcb", r"\{", None, "lcb", None),
        ("rcb", r"\}", None, "rcb", None),
        ("lsb", r"\[", None, "lsb", None),
        ("rsb", r"\]", None, "rsb", None),
        ("lrb", r"\(", None, "lrb", None),
        ("rrb", r"\)", None, "rrb", None),
        ("hyphens", r"-+", None, "hyphens", None),
        ("ldots", ldots, None, "ellipsis", None),
        ("fnmarks", "@+|#+|_+", None, "plain", None),
        ("asts", r"\*+|(?:\\\*){1,3}", None, "plain", None),
        ("insentp", "[,;:\u3001]", None, "plain", None),
        ("qmarks", "[?!]+", None, "plain", None),
        ("period", "[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]", None, "plain", None),
        ("equals", "=", None, "plain", None),
        ("slash", "/", None, "plain", None),
        ("hthing_dot_ctx", f"{hthing}\\.", "[,;:\u3001]", "softhyphen", "-"),
        ("hthing", hthing, None, "softhyphen", "-"),
        ("thing_dot_ctx", f"{thing}\\.", "[,;:\u3001]", "plain", "."),
        ("thing", thing, None, "plain", None),
        ("thinga_dot_ctx", f"{thinga}\\.", "[,;:\u3001]", "amp", "."),
        ("thinga", thinga, None, "amp", None),
        ("quote_ctx", "'", "[A-Za-z][^ \t\n\r\u00a0]", "quote_left", "'"),
        ("redaux", redaux, None, "quote_right", None),
        ("sredaux", sredaux, None, "quote_right", None),
        ("quotes", quotes, None, "quote_right", None),
        ("duckfeet", "<<|>>", None, "plain", None),
        ("miscsymbol", miscsymbol, None, "plain", None),
        ("spaces", f"\x00|{space}+|[\u200b\u200e\u200f\ufeff]", None, "skip", None),
        ("newline", newline, None, "newline", None),
        ("nbsp_entity", caseless("&nbsp;"), None, "skip", "&"),
        ("any", "[^\n]", None, "delete", None),
    ]
    first = _first_chars(letter_class, digit)
    compiled = []
    for name, token, context, action, needs in table:
        pattern = f"({token})" + (f"(?:{context})" if context is not None else "")
        if needs is None:
            need = None
        elif needs.startswith("re:"):
            need = re.compile(needs[3:])
        else:
            need = re.compile(f"[{re.escape(needs)}]")
        compiled.append(
            Rule(name, re.compile(pattern), action, need, re.compile(first.get(name, token)), context is not None)
        )
    return tuple(compiled)


def _first_chars(letter_class: str, digit: str) -> dict[str, str]:
    """For each rule, a one-character pattern that every text it matches starts with (a superset)."""
    letter = f"(?:{letter_class}|[{_LETTER_EXTRA}&])"
    ld = f"(?:{letter}|{digit})"
    apos = "['\u0092\u2019&]"
    alpha = "[A-Za-z\u0130\u0131]"  # the caseless rules' i also matches these (caseless)
    table = {
        "cpp": "[cC]",
        "csharp": "[cCfF]",
        "cannot": "[cC]",
        "twas": "'",
        "tis": "'",
        "gonna": "[gGlLwW]",
        "sgml": "<",
        "spmdash": "[&\u0096\u0097\u2013\u2014\u2015]",
        "spamp": "&",
        "sppunc": "&",
        "word_redaux": letter,
        "sword_sredaux": "[A-Za-z\u00ad]",
        "word": letter,
        "apoword": f"(?:{letter}|{apos})",
        "apoword2": "[yY]",
        "fullurl": "[hH]",
        "likelyurl": "[^ \t\n\f\r\"`'<>|.!?(){},-_$]|[wW]",
        "email": "[a-zA-Z0-9<&]",
        "twitter": "[@#]",
        "redaux_ctx": apos,
        "sredaux_ctx": "[nN]",
        "date": digit,
        "number": f"(?:{digit}|[-+.:,\u00ad\u066b\u066c])",
        "subsupnum": "[\u207a\u207b\u208a\u208b\u2070\u00b9\u00b2\u00b3\u2074-\u2079\u2080-\u2089]",
        "frac": digit,
        "frac2": "[\u00bc\u00bd\u00be\u2153-\u215e]",
        "tbspec": "[-cCpPaAsS'\u0092\u2019&]",
        "thing3": "[A-Za-z0-9]",
        "dolsign": "[A-Z$#]",
        "dolsign2": "[\u00a2\u00a3\u00a4\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]",
        "acronym_ctx": alpha,
        "abbrev3": alpha,
        "pty": "[pPcC]",
        "abbrev1_sentend": alpha,
        "abbrev1_ctx": alpha,
        "abbrev1": alpha,
        "abbrev2": alpha,
        "abbrev4_ctx": alpha,
        "acro_ctx": alpha,
        "tbspec2_ctx": apos,
        "filename_ctx": ld,
        "word_dot_ctx": letter,
        "phone": "[0-9(+]",
        "dblquot_left": '["&]',
        "dblquot": '["&]',
        "del": "\x7f",
        "lessthan": "[<&]",
        "greaterthan": "[>&]",
        "smiley_ctx": "[<>:;=]",
        "asiansmiley": "[\\^x=~<>\\-'(]",
        "lcb": "\\{",
        "rcb": "\\}",
        "lsb": "\\[",
        "rsb": "\\]",
        "lrb": "\\(",
        "rrb": "\\)",
        "hyphens": "-",
        "ldots": "[.\u0085\u2026]",
        "fnmarks": "[@#_]",
        "asts": "[*\\\\]",
        "insentp": "[,;:\u3001]",
        "qmarks": "[?!]",
        "period": "[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]",
        "equals": "=",
        "slash": "/",
        "hthing_dot_ctx": "[A-Za-z0-9]",
        "hthing": "[A-Za-z0-9]",
        "thing_dot_ctx": f"(?:{letter_class}|{digit})",
        "thing": f"(?:{letter_class}|{digit})",
        "thinga_dot_ctx": "[A-Z]",
        "thinga": "[A-Z]",
        "quote_ctx": "'",
        "redaux": apos,
        "sredaux": "[nN]",
        "quotes": "['\u0092\u2019&`\u2018\u201a\u201b\u201c\u201d\u0091\u0093\u0094"
        "\u201e\u201f\u2039\u203a\u00ab\u00bb]",
        "duckfeet": "[<>]",
        "spaces": "[\x00 \t\u00a0\u2000-\u200a\u3000\u200b\u200e\u200f\ufeff]",
        "newline": "[\r\n\u2028\u2029\x0b\x0c\x85]",
        "nbsp_entity": "&",
        "any": "[^\n]",
    }
    return table


__all__ = ["Rule", "caseless", "rules"]

if __name__ == "__main__":  # pragma: no cover - a developer's check that every rule compiles
    print(len(rules()), "rules", file=sys.stderr)
