"""The script check of docmetrics.algorithms.scripts (issue 37): a text's most common script against the
scripts a language is written in, and Latin-script languages told from English by their common words."""

from __future__ import annotations

import pytest

from docmetrics.algorithms.scripts import dominant_script, latin_language, outside_languages, script_mismatch

GERMAN = ["Das Wetter ist heute schön.", "Wir gehen in den Park.", "Er hat gestern ein neues Buch gekauft."]
ENGLISH = ["The weather is nice today.", "Let us walk in the park.", "He bought a new book yesterday."]
CHINESE = ["今天的天气很好。", "我们去公园散步。", "他昨天买了一本新书。", "这本书非常有意思。"]
JAPANESE = ["今日はいい天気です。", "公園を散歩しましょう。", "彼は昨日新しい本を買った。", "この本はとても面白い。"]
KOREAN = ["오늘 날씨가 좋다.", "공원에 산책하러 가자.", "그는 어제 새 책을 샀다.", "이 책은 아주 재미있다."]
RUSSIAN = ["Сегодня хорошая погода.", "Пойдём гулять в парк.", "Вчера он купил новую книгу."]


@pytest.mark.parametrize("texts,script", [(GERMAN, "Latin"), (CHINESE, "Han"), (JAPANESE, "Hiragana"),
                                          (KOREAN, "Hangul"), (RUSSIAN, "Cyrillic"), (["a", "b", "42"], None)])
def test_dominant_script(texts, script):
    found = dominant_script(texts)
    assert (found.script if found else None) == script


@pytest.mark.parametrize("lang,texts,mismatch", [
    ("zh", GERMAN, "Latin"), ("zh", CHINESE, None), ("ja", CHINESE, None), ("zh", JAPANESE, "Hiragana"),
    ("ko", JAPANESE, "Hiragana"), ("de", CHINESE, "Han"), ("de", GERMAN, None), ("sr", RUSSIAN, None),
    ("xx", CHINESE, None), (None, CHINESE, None),
])
def test_script_mismatch(lang, texts, mismatch):
    found = script_mismatch(lang, texts)
    assert (found.script if found else None) == mismatch


@pytest.mark.parametrize("texts,guess", [(GERMAN, "de"), (ENGLISH, None), (["Das ist."], None),
                                         (["seg one two three four five six seven eight nine ten eleven"], None)])
def test_latin_language(texts, guess):
    found = latin_language(texts)
    assert (found.language if found else None) == guess


@pytest.mark.parametrize("covered,texts,said", [
    ({"en"}, GERMAN, "reads as de ("), ({"en"}, CHINESE, "is written in Han script"), ({"en"}, ENGLISH, None),
    ({"en", "de"}, GERMAN, None), ({"xx"}, CHINESE, None),
])
def test_outside_languages(covered, texts, said):
    why = outside_languages(frozenset(covered), texts)
    assert (why is None) if said is None else (said in (why or ""))


def test_a_long_text_is_sampled():
    """A million lines are judged from a sample: the check costs no more than a few hundred lines."""
    import time

    texts = GERMAN * 400_000
    start = time.perf_counter()
    assert script_mismatch("zh", texts) is not None and latin_language(texts) is not None
    assert time.perf_counter() - start < 0.5
