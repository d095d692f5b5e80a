"""sacrebleu's own signatures (``BLEU|nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``, long
or short form) read as docmetrics specs: the ``bleu``, ``chrf`` and ``ter`` metrics with the same options,
and the facts no option gives (the number of references, the sacrebleu version) to compare after scoring.

sacrebleu names its metrics ``BLEU``, ``chrF<beta>`` (``chrF2``, ``chrF2++`` with word n-grams) and ``TER``;
docmetrics' names are lower case, so the two never clash.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import SpecError
from .signature import ParsedSignature
from .spec import MetricSpec

__all__ = ["SacrebleuSignature", "mecab_fact", "read_sacrebleu_signature", "with_mecab_fact"]

#: sacrebleu's short keys -> its long keys (``format(short=True)``); ``s`` (BLEU's smooth, chrF's space)
#: and ``t`` (the test set, TER's tok) depend on the metric: :func:`_long_key`
SHORT = {"#": "nrefs", "c": "case", "e": "eff", "nr": "norm", "pn": "punct", "as": "asian", "v": "version",
         "l": "lang", "S": "subset", "o": "origlang", "rs": "seed"}
#: the fields each of sacrebleu's signatures has (long keys)
FIELDS = {
    "BLEU": ("nrefs", "case", "eff", "tok", "smooth", "version"),
    "chrF": ("nrefs", "case", "eff", "nc", "nw", "space", "version"),
    "TER": ("nrefs", "case", "tok", "norm", "punct", "asian", "version"),
}
#: fields of a signature of a sacrebleu test set or paired test: facts of the run, not of the metric (a
#: test set given with -t is read from files here); their values are not read
RUN_FIELDS = ("test", "lang", "subset", "origlang", "bs", "ar", "seed")
#: sacrebleu's default value of each smoothing method (BLEU.SMOOTH_DEFAULTS)
SMOOTH_DEFAULTS = {"floor": 0.1, "add-k": 1.0}
#: how sacrebleu's tokenizers sign (Tokenizer.signature()) -> their name, where the two differ; MeCab's
#: tokenizers add their version and dictionary (``ja-mecab-0.996-IPA``, ``ko-mecab-0.996/ko-0.9.2-KO``)
TOKENIZER_PREFIXES = ("ja-mecab", "ko-mecab")
TOKENIZERS = ("none", "zh", "13a", "intl", "char", "ja-mecab", "ko-mecab", "spm", "flores101", "flores200",
              "spBLEU-1K")
_CHRF = re.compile(r"^chrF(\d+)(\+*)$")
_SMOOTH = re.compile(r"^(exp|none|floor|add-k)(?:\[([0-9.eE+-]+)\])?$")
_NREFS = re.compile(r"^(\d+|var)$")
_VERSION = re.compile(r"^\d[0-9A-Za-z.+-]*$")


@dataclass(frozen=True)
class SacrebleuSignature:
    """A sacrebleu signature read back: the docmetrics spec that computes the same metric, and the
    fields to compare with the run's signature (``nrefs``, BLEU's ``eff``, TER's ``tok``, ``sacrebleu``)."""

    text: str
    spec: str
    expected: ParsedSignature


#: sacrebleu's fields that are one docmetrics parameter each: field -> (metric, parameter)
PARAMETER_OF = {"tok": ("bleu", "tokenize"), "nc": ("chrf", "char_order"), "nw": ("chrf", "word_order")}


def _bad(key: str, value: str, what: str) -> SpecError:
    """Exit 2 naming the field and its value; a ``,`` or ``=`` in it is an option hidden in the field,
    and the docmetrics spec that would compute it is named."""
    hidden = ""
    if any(c in value for c in ",="):
        metric, param = PARAMETER_OF.get(key, (None, None))
        spec = f"-m {metric}:{param}={value}" if metric else "a docmetrics spec (docmetrics --describe bleu, chrf, ter)"
        hidden = f"; a ',' or '=' is no part of a sacrebleu signature: to score with those options, write {spec}"
    return SpecError(f"sacrebleu signature field {key!r}: {value!r} {what}{hidden}")


def _yes_no(key: str, value: str) -> bool:
    if value not in ("yes", "no"):
        raise _bad(key, value, "must be yes or no")
    return value == "yes"


def _whole(key: str, value: str, what: str) -> str:
    if not value.isascii() or not value.isdigit():
        raise _bad(key, value, f"is not a whole number ({what})")
    return value


def _tokenizer(value: str) -> str:
    """sacrebleu's tokenizer of a ``tok`` field: its name, or its signature with MeCab's version."""
    if value in TOKENIZERS:
        return value
    for prefix in TOKENIZER_PREFIXES:
        if value.startswith(prefix + "-") and not any(c in value for c in ",="):
            return prefix
    raise _bad("tok", value, "is not a tokenizer name; sacrebleu's are " + ", ".join(TOKENIZERS))


def mecab_fact(value: str) -> str | None:
    """MeCab's version and dictionary in sacrebleu's ``tok:ja-mecab-0.996-IPA`` (``0.996-IPA``), which
    docmetrics' signatures give once as ``mecab:0.996-IPA`` beside ``tokenize:ja-mecab``; else None."""
    for prefix in TOKENIZER_PREFIXES:
        if value.startswith(prefix + "-"):
            return value[len(prefix) + 1:]
    return None


def with_mecab_fact(parsed: ParsedSignature) -> ParsedSignature:
    """A docmetrics signature of 0.3.0 that printed ``tok:ja-mecab-0.996-IPA`` beside ``tokenize:``,
    with that field read as ``mecab:0.996-IPA``, so MeCab's version is still compared after scoring."""
    items = [("mecab", fact) if key == "tok" and (fact := mecab_fact(value)) else (key, value)
             for key, value in parsed.items]
    return ParsedSignature(parsed.metric, items, parsed.version) if items != parsed.items else parsed


def _long_key(key: str, family: str) -> str:
    if key == "s":
        return "smooth" if family == "BLEU" else "space"
    if key == "t":
        return "tok" if family == "TER" else "test"
    return SHORT.get(key, key)


def _fields(name: str, family: str, rest: str) -> dict[str, str]:
    """Each ``key:value`` of the signature under its long key; a field that is not key:value, not one
    of the metric's, or given twice is a SpecError naming it."""
    fields: dict[str, str] = {}
    for part in rest.split("|") if rest else []:
        key, sep, value = part.partition(":")
        if not sep:
            raise SpecError(f"sacrebleu signature field {part!r} is not key:value")
        long_key = _long_key(key, family)
        if long_key not in FIELDS[family] and long_key not in RUN_FIELDS:
            raise SpecError(f"sacrebleu signature field {key!r} ({part!r}) is not a field of sacrebleu's {name} "
                            f"signature: {', '.join(FIELDS[family])} (and of a test set: {', '.join(RUN_FIELDS)})")
        if long_key in fields:
            raise SpecError(f"sacrebleu signature field {long_key!r} is given twice ({fields[long_key]!r} and "
                            f"{value!r}); give each field once")
        fields[long_key] = value
    return fields


def read_sacrebleu_signature(text: str) -> SacrebleuSignature | None:
    """The docmetrics form of sacrebleu's signature ``text``, or None when ``text`` is not one (it
    does not start with ``BLEU|``, ``chrF<beta>|`` or ``TER|``).  Every field is read by itself and
    checked against what sacrebleu writes there: a value docmetrics cannot compute, or one that hides
    another option (``tok:13a,lowercase=yes``), is a SpecError naming the field and its value."""
    name, _, rest = text.strip().partition("|")
    chrf = _CHRF.match(name)
    if name not in ("BLEU", "TER") and chrf is None:
        return None
    family = "chrF" if chrf is not None else name
    fields = _fields(name, family, rest)
    params: dict[str, str] = {}
    expected: list[tuple[str, str]] = []
    if "nrefs" in fields:
        if not _NREFS.match(fields["nrefs"]):
            raise _bad("nrefs", fields["nrefs"], "is not a number of references (a whole number or var)")
        expected.append(("nrefs", fields["nrefs"]))
    case = fields.get("case")
    if case not in (None, "mixed", "lc"):
        raise _bad("case", case, "must be mixed or lc")
    if family == "BLEU":
        metric = "bleu"
        if "tok" in fields:
            params["tokenize"] = _tokenizer(fields["tok"])
            if params["tokenize"] != fields["tok"] and params["tokenize"] in TOKENIZER_PREFIXES:
                expected.append(("mecab", mecab_fact(fields["tok"]) or ""))  # MeCab's version and dictionary
        if case:
            params["lowercase"] = "yes" if case == "lc" else "no"
        smooth = fields.get("smooth")
        if smooth:
            m = _SMOOTH.match(smooth)
            if m is None:
                raise _bad("smooth", smooth, "is none of exp, none, floor[VALUE], add-k[VALUE]")
            params["smooth_method"] = m.group(1)
            if m.group(2) is not None and float(m.group(2)) != SMOOTH_DEFAULTS.get(m.group(1)):
                params["smooth_value"] = m.group(2)  # sacrebleu prints its default value too: floor[0.10]
        if "eff" in fields and _yes_no("eff", fields["eff"]):
            raise SpecError(f"sacrebleu signature {text!r}: 'eff:yes' is BLEU with effective order, sacrebleu's "
                            "sentence-level BLEU; docmetrics' bleu is corpus BLEU (eff:no), and its per-segment "
                            "scores (--level seg) are the effective-order ones")
        expected += [(k, fields[k]) for k in ("eff",) if k in fields]
    elif chrf is not None:
        metric = "chrf"
        params["beta"] = chrf.group(1)
        params["word_order"] = (_whole("nw", fields["nw"], "chrF's word n-gram order") if "nw" in fields
                                else str(len(chrf.group(2))))
        if "nc" in fields:
            params["char_order"] = _whole("nc", fields["nc"], "chrF's character n-gram order")
        if "space" in fields:
            params["whitespace"] = "yes" if _yes_no("space", fields["space"]) else "no"
        if case:
            params["lowercase"] = "yes" if case == "lc" else "no"
        if "eff" in fields:  # chrF's effective order is the absence of epsilon smoothing
            params["eps_smoothing"] = "no" if _yes_no("eff", fields["eff"]) else "yes"
    else:
        metric = "ter"
        if case:
            params["case_sensitive"] = "yes" if case == "mixed" else "no"
        for key, param in (("norm", "normalized"), ("asian", "asian_support")):
            if key in fields:
                params[param] = "yes" if _yes_no(key, fields[key]) else "no"
        if "punct" in fields:
            params["no_punct"] = "no" if _yes_no("punct", fields["punct"]) else "yes"
        if "tok" in fields:
            if fields["tok"] != "tercom":
                raise _bad("tok", fields["tok"], "is not TER's tokenizer; sacrebleu's TER signs tok:tercom")
            expected.append(("tok", fields["tok"]))
    if "version" in fields:
        if not _VERSION.match(fields["version"]):
            raise _bad("version", fields["version"], "is not a sacrebleu version (e.g. 2.6.0)")
        expected.append(("sacrebleu", fields["version"]))
    return SacrebleuSignature(text, MetricSpec(metric, params).format(), ParsedSignature(metric, expected, None))
