#!/usr/bin/env python3
"""How easy the visitor's consent and session texts are to read, per language, by the readability formula made for
that language (Python 3, standard library only, no network):

  - English: Flesch reading ease = 206.835 - 1.015 * W/S - 84.6 * Syl/W
    (R. Flesch, "A new readability yardstick", Journal of Applied Psychology 32, 1948)
  - German: Amstad = 180 - W/S - 58.5 * Syl/W
    (T. Amstad, "Wie verständlich sind unsere Zeitungen?", dissertation, Zürich 1978)
  - French: Kandel-Moles = 207 - 1.015 * W/S - 73.6 * Syl/W
    (L. Kandel, A. Moles, "Application de l'indice de Flesch à la langue française", Cahiers Études de
    Radio-Télévision 19, 1958)
  - Italian: Gulpease = 89 + (300 * S - 10 * Letters) / W
    (P. Lucisano, M. E. Piemontese, "GULPEASE: una formula per la predizione della difficoltà dei testi in lingua
    italiana", Scuola e Città 39, 1988)

W is words, S sentences, Syl syllables, Letters the letters (and digits) of the words. Higher is easier in all four.

    Tools/readability/readability.py [--check] [--lowest N] [--catalogs DIR]
    Tools/readability/readability.py --score LANGUAGE "a text to try"

It prints, per language, the score of the consent group and of the session group (every text of the group counted
together, as one passage) and the lowest-scoring texts of 8 words or more (a shorter text's own score swings with a
single long word; it counts in its group). `--check` exits 1 when a group scores below its language's threshold
(`THRESHOLDS`), or when a key it scores is missing from a catalog. `--score` scores one text.

What is counted, and how (an approximation: no dictionary, no hyphenation patterns):

  - Placeholders (`{venue}`, `{count}`, …) are replaced by a typical value in the text's language (`TYPICAL`) first:
    a place's name, a day and times as the kiosk writes them, small numbers.
  - Words: runs of letters or digits, joined by an apostrophe or a hyphen into one word ("l’alerte",
    "Corona-Warn-App", "don't"); a number or a time ("10:00") is one word of one syllable.
  - Sentences: ended by ".", "!" or "?" before a space or the end (a colon or a semicolon does not end one); a text
    that ends without one is a sentence too. A German ordinal's dot ("29. November") ends nothing; no abbreviation
    is known (the catalogs write none: an "e.g." would count as sentence ends).
  - Syllables: groups of consecutive vowels (y counts as a vowel, accented vowels too), at least one per word, with
    each language's commonest silent letters taken off — English: a final silent "e" ("share", but not "-le",
    "-ee", "-ye"), "-es" not after a hissing sound ("codes", not "places"), "-ed" not after t or d ("used", not
    "ended"); French: a final unaccented "e" or "es" ("borne", "heures"); German and Italian: none. Diphthongs
    ("ei", "au", "ie", "oi", "uo") are one syllable, and so are the hiatuses the rule cannot tell from them
    ("Museum", "kiosk"), which undercounts a little. Gulpease needs no syllables.

Which texts are scored: the running text a visitor reads or hears in the two places the formulas matter most, named
by key in `CONSENT` and `SESSION` (where each key is used: Sources/KioskCore/Reports/ConsentFlow.swift,
Sources/KioskCore/Session/SessionTexts.swift, Sources/KioskCore/Station/StationTexts.swift and, for the paper the
holder takes, Sources/KioskPrinter/ReportReceipt.swift and StationReceipts.swift). Titles, choice labels
and one- or two-word acknowledgements ("Saved.") are left out: counted as sentences they would raise a score without
making any text easier to read.
"""
import argparse
import json
import os
import re
import sys

LANGUAGES = ["en", "de", "fr", "it"]

FORMULA_NAMES = {
    "en": "Flesch reading ease",
    "de": "Amstad",
    "fr": "Kandel-Moles",
    "it": "Gulpease",
}

# The lowest score a group may have. Flesch's published scale, which Amstad and Kandel-Moles adapted to German and
# French so that their scores read on the same scale: 90-100 very easy, 80-90 easy, 70-80 fairly easy, 60-70
# standard ("plain English", read by 13- to 15-year-olds), 50-60 fairly difficult, 30-50 difficult, 0-30 very
# difficult. 70 asks for "fairly easy": plainer than standard prose, for visitors who are often older or read the
# language poorly. Gulpease's published scale is by schooling: below 80 a text is hard for a reader with elementary
# school only, below 60 for one with middle school, below 40 for one with a high-school diploma; 60 asks that the
# texts be easy for a reader with middle school.
THRESHOLDS = {"en": 70.0, "de": 70.0, "fr": 70.0, "it": 60.0}

# The consent flow, after the holder chose to share: when symptoms began, how the reports leave (and the verification
# code for an upload), what sharing can reveal, the preview of exactly what leaves, the question, and what the
# holder reads once it is done or declined.
CONSENT = [
    "session.symptoms.body",
    "session.output.body",
    "session.output.none",
    "session.code.body",
    "session.code.format",
    "consent.disclosure",
    "preview.count.one",
    "preview.count.other",
    "preview.nothing",
    "preview.report",
    "preview.weight.less",
    "preview.weight.little",
    "preview.hourParts",
    "preview.rounded",
    "preview.decoys.one",
    "preview.decoys.other",
    "preview.noVenues",
    "preview.print",
    "preview.export",
    "preview.upload",
    "session.consent.question",
    "session.sent.print",
    "session.sent.export",
    "session.sent.upload",
    "receipt.report.handOver",
    "receipt.report.opaque",
    "session.share.declined",
    "session.askedAgain",
]

# The holder's own session: opening and closing it, how many stays it keeps, deleting, blocking the card, news and
# warnings (the tap's "news for this card", the session's warning and the slip it prints), the settings (checking
# for warnings, speech, the PIN), the PIN and its lock, and choosing stays to share.
SESSION = [
    "station.sessionPrompt.body",
    "session.keepCard",
    "session.closed",
    "session.closedInactive",
    "session.closingSoon",
    "time.runningOut",
    "session.enrolmentSaved.body",
    "receipt.card.use",
    "receipt.card.key",
    "session.count.zero",
    "session.count.one",
    "session.count.other",
    "session.noStays",
    "session.pickStay.body",
    "session.deleteForGood",
    "session.deleteAll.body.one",
    "session.deleteAll.body.other",
    "session.stayDeleted",
    "session.allDeleted",
    "session.nothingDeleted",
    "session.block.body",
    "session.block.askStaff",
    "session.blocked.body",
    "session.notBlocked",
    "station.news.body",
    "station.newsShowCode.body",
    "session.newsForYou",
    "session.warning.days",
    "session.warning.daysHigh",
    "session.warning.advice",
    "session.warning.private",
    "receipt.warning.oneDay",
    "receipt.warning.days",
    "receipt.warning.advice",
    "session.matchingOff",
    "session.matching.allowed",
    "session.matching.refused",
    "session.matching.undecided",
    "session.matchingQuestion.body",
    "session.matchingQuestion.local",
    "speech.alwaysOn",
    "speech.alwaysOff",
    "session.pinOffer.body",
    "session.pin.ask",
    "session.pin.format",
    "session.pin.rule",
    "session.pin.mismatch",
    "session.pin.wrong.one",
    "session.pin.wrong.other",
    "speech.pinRule",
    "session.locked",
    "session.share.nothing",
    "session.share.nothingShared",
    "session.share.select",
    "session.share.noneSelected",
    "session.share.selectedCount",
]

GROUPS = [("consent", CONSENT), ("session", SESSION)]

# Typical values for placeholders, as the kiosk fills them in (VisitorTime writes days and times; `{weight}` is the
# preview's own sentence for a stay that counts fully).
TYPICAL = {
    "en": {"when": "today, 10:00–11:30", "day": "Sunday 29 November", "days": "Sunday 29 November"},
    "de": {"when": "heute, 10:00–11:30", "day": "Sonntag, 29. November", "days": "Sonntag, 29. November"},
    "fr": {"when": "aujourd’hui, 10:00–11:30", "day": "dimanche 29 novembre", "days": "dimanche 29 novembre"},
    "it": {"when": "oggi, 10:00–11:30", "day": "domenica 29 novembre", "days": "domenica 29 novembre"},
}
TYPICAL_ANY = {
    "venue": "Café Rosa",
    "place": "Café Rosa",
    "windows": "10:00–12:00",
    "count": "3",
    "selected": "2",
    "total": "5",
    "seconds": "20",
    "time": "18:00",
    "from": "10:00",
    "end": "18:00",
}

VOWELS = {
    "en": "aeiouy",
    "de": "aeiouyäöü",
    "fr": "aeiouyàâäéèêëîïôöùûüÿœæ",
    "it": "aeiouàèéìíòóù",
}
GERMAN_MONTHS = (
    "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
)

WORD = re.compile(r"\d+(?:[:.,]\d+)*|[^\W\d_]+(?:['’\-][^\W\d_]+)*")
SENTENCE_END = re.compile(r"[.!?]+[”“»«\"')\]]*(?=\s|$)")


def fill(text, language, catalog):
    """The text with every placeholder replaced by its typical value."""

    def value(match):
        name = match.group(1)
        if name == "weight":
            return catalog["preview.weight.full"]
        if name in TYPICAL[language]:
            return TYPICAL[language][name]
        if name in TYPICAL_ANY:
            return TYPICAL_ANY[name]
        raise KeyError(f"no typical value for {{{name}}}")

    return re.sub(r"\{([a-zA-Z]+)\}", value, text)


def sentences(text, language):
    """How many sentences the text holds (at least one when it has a word)."""
    count = 0
    last = 0
    for match in SENTENCE_END.finditer(text):
        if match.group(0).startswith(".") and language == "de":
            before = text[: match.start()]
            after = text[match.end() :].lstrip()
            if re.search(r"\b\d{1,2}$", before) and re.match(GERMAN_MONTHS, after):
                continue
        if WORD.search(text[last : match.start()]):
            count += 1
        last = match.end()
    if WORD.search(text[last:]):
        count += 1
    return count


def syllables(word, language):
    """The syllables of one word, by the vowel-group heuristic in the header (an approximation)."""
    if word[0].isdigit():
        return 1
    lower = word.lower().replace("’", "'")
    if language == "en" and lower.endswith("'s"):
        lower = lower[:-2]
    total = 0
    for part in re.split(r"['\-]", lower):
        groups = re.findall(f"[{VOWELS[language]}]+", part)
        count = len(groups)
        if language == "en" and count > 1:
            if part.endswith("e") and not part.endswith(("le", "ee", "ye")):
                count -= 1
            elif part.endswith("es") and not part.endswith(("ses", "xes", "zes", "ces", "ges", "ches", "shes")):
                count -= 1
            elif part.endswith("ed") and not part.endswith(("ted", "ded")):
                count -= 1
        if language == "fr" and count > 1 and re.search(r"[^aeiouy]es?$", part):
            count -= 1
        total += count
    return max(1, total)


def measure(text, language):
    """Sentences, words, syllables and letters of one text (placeholders already filled in)."""
    words = WORD.findall(text)
    return {
        "sentences": sentences(text, language),
        "words": len(words),
        "syllables": sum(syllables(word, language) for word in words),
        "letters": sum(1 for word in words for char in word if char.isalnum()),
    }


def score(counts, language):
    """The language's formula over `counts`."""
    words, sentences_, syllables_ = counts["words"], counts["sentences"], counts["syllables"]
    if words == 0 or sentences_ == 0:
        return None
    if language == "en":
        return 206.835 - 1.015 * words / sentences_ - 84.6 * syllables_ / words
    if language == "de":
        return 180 - words / sentences_ - 58.5 * syllables_ / words
    if language == "fr":
        return 207 - 1.015 * words / sentences_ - 73.6 * syllables_ / words
    return 89 + (300 * sentences_ - 10 * counts["letters"]) / words


def add(total, counts):
    for name, value in counts.items():
        total[name] = total.get(name, 0) + value
    return total


def load(directory, language):
    with open(os.path.join(directory, f"{language}.json"), encoding="utf-8") as file:
        return json.load(file)


def report(directory, lowest):
    """Prints every language's groups; returns what fails the check."""
    failures = []
    for language in LANGUAGES:
        catalog = load(directory, language)
        threshold = THRESHOLDS[language]
        print(f"{language}  {FORMULA_NAMES[language]} (threshold {threshold:g})")
        worst = []
        for group, keys in GROUPS:
            total = {}
            for key in keys:
                if key not in catalog:
                    failures.append(f"{language}: {key} is not in the catalog")
                    continue
                counts = measure(fill(catalog[key], language, catalog), language)
                add(total, counts)
                if counts["words"] >= 8:
                    worst.append((score(counts, language), group, key, counts))
            value = score(total, language)
            verdict = "" if value >= threshold else "  BELOW THRESHOLD"
            if value < threshold:
                failures.append(f"{language}: {group} group {value:.1f} < {threshold:g}")
            print(
                f"    {group:8s} {value:6.1f}   {len(keys)} texts, {total['sentences']} sentences, "
                f"{total['words']} words, {total['words'] / total['sentences']:.1f} words a sentence, "
                f"{total['syllables'] / total['words']:.2f} syllables a word{verdict}")
        if lowest:
            print("    lowest texts:")
            for value, group, key, counts in sorted(worst, key=lambda item: item[0])[:lowest]:
                words, sentences_ = counts["words"], counts["sentences"]
                sentence_word = "sentence" if sentences_ == 1 else "sentences"
                print(f"      {value:6.1f}  {group:8s} {key} ({words} words, {sentences_} {sentence_word})")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument(
        "--catalogs", default=os.path.join(here, "..", "..", "Sources", "KioskCore", "Language", "catalogs"))
    parser.add_argument("--check", action="store_true", help="exit 1 when a group scores below its threshold")
    parser.add_argument("--lowest", type=int, default=5, help="how many of the lowest texts to list per language")
    parser.add_argument("--score", nargs=2, metavar=("LANGUAGE", "TEXT"), help="score one text")
    arguments = parser.parse_args()
    if arguments.score:
        language, text = arguments.score
        catalog = load(arguments.catalogs, language)
        counts = measure(fill(text, language, catalog), language)
        print(f"{score(counts, language):.1f}  {FORMULA_NAMES[language]}: {counts}")
        return 0
    failures = report(arguments.catalogs, arguments.lowest)
    if arguments.check and failures:
        print("readability: " + "; ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
