"""inspector.js.timeutil: ISO-8601 <-> epoch ms as JavaScript's `toISOString()` / `new Date(iso).getTime()`."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from datetime import UTC, datetime, timedelta

import pytest

from inspector.js.timeutil import iso_from_ms, iso_to_ms, ms_from_iso

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
NODE = shutil.which("node")


@pytest.mark.parametrize(
    ("ms", "iso"),
    [
        (0, "1970-01-01T00:00:00.000Z"),
        (1767323045678, "2026-01-02T03:04:05.678Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1234.9, "1970-01-01T00:00:01.234Z"),  # TimeClip truncates toward zero
        (-0.5, "1970-01-01T00:00:00.000Z"),
        (-1.5, "1969-12-31T23:59:59.999Z"),
        (951782400000, "2000-02-29T00:00:00.000Z"),
        (-62135596800000, "0001-01-01T00:00:00.000Z"),
        (-62167219200000, "0000-01-01T00:00:00.000Z"),
        (-62198755200000, "-000001-01-01T00:00:00.000Z"),
        (253402300800000, "+010000-01-01T00:00:00.000Z"),
        (8.64e15, "+275760-09-13T00:00:00.000Z"),
        (-8.64e15, "-271821-04-20T00:00:00.000Z"),
    ],
)
def test_iso_from_ms_is_to_iso_string(ms: float, iso: str) -> None:
    assert iso_from_ms(ms) == iso


@pytest.mark.parametrize("ms", [float("nan"), float("inf"), float("-inf"), 8.64e15 + 1, -(10**400)])
def test_iso_from_ms_rejects_what_js_calls_an_invalid_date(ms: float) -> None:
    with pytest.raises(ValueError):
        iso_from_ms(ms)


def test_iso_from_ms_passes_none_through() -> None:
    assert iso_from_ms(None) is None


def test_iso_from_ms_agrees_with_pythons_calendar_and_round_trips() -> None:
    rng = random.Random(42)
    for _ in range(20_000):
        ms = rng.randint(-62135596800000, 253402300799999)  # years 1..9999, where datetime can check it
        dt = EPOCH + timedelta(milliseconds=ms)
        expected = f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}." \
                   f"{dt.microsecond // 1000:03d}Z"
        assert iso_from_ms(ms) == expected
        assert ms_from_iso(expected) == ms
    for _ in range(2_000):  # the whole JS range, six-digit years included
        ms = rng.randint(-8_640_000_000_000_000, 8_640_000_000_000_000)
        assert ms_from_iso(iso_from_ms(ms)) == ms


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2026-01-02T03:04:05.678Z", 1767323045678),
        ("2026-01-02T03:04:05.678z", 1767323045678),
        ("2026-01-02T04:04:05.678+01:00", 1767323045678),
        ("2026-01-02T03:04:05.678", 1767323045678),  # no offset: taken as UTC
        ("2026-01-02T03:04:05.6789Z", 1767323045678),  # digits past the millisecond are dropped
        ("2026-01-02T03:04:05Z", 1767323045000),
        ("1969-12-31T23:59:59.9995Z", -1),
        ("2026", 1767225600000),  # date-only forms are UTC
        ("2026-01-02", 1767312000000),
        ("2026-01-01T24:00Z", 1767312000000),
        ("+002026-01-02T03:04:05.678Z", 1767323045678),
        ("-000001-01-01T00:00:00.000Z", -62198755200000),
        ("2026-01-02 03:04:05Z", 1767323045000),  # V8's fallback parser: a space for the T, a colon-less offset
        ("2026-01-02T04:04:05.678+0100", 1767323045678),
        ("2026-02-30T00:00:00Z", 1772409600000),  # V8 only checks the day against 31: March 2nd
    ],
)
def test_ms_from_iso_is_get_time(text: str, ms: int) -> None:
    assert ms_from_iso(text) == ms
    assert type(ms_from_iso(text)) is int
    assert iso_to_ms(text) == ms


def test_ms_from_iso_is_exact_where_float_seconds_are_not() -> None:
    # dt.timestamp() * 1000 gives 1767225601233.9998 style values for some of these; whole ms are exact here.
    rng = random.Random(7)
    for _ in range(5_000):
        ms = rng.randint(1577836800000, 1893456000000)
        assert ms_from_iso(iso_from_ms(ms)) == ms


@pytest.mark.parametrize(
    "text",
    ["", "yesterday", "2026-13-01T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-02T03:04:05.678ZZ", "20260102T030405Z",
     "2026-01-01T24:00:01Z", "2026-01-02T03:04:60Z", "2026-01-02T00:00:00+24:00", "+275760-09-13T00:00:00.001Z",
     " 2026-01-02T03:04:05.678Z", "2026-W01-1", "0049-01-02 03:04Z"],
)
def test_unparsable_text_is_nan(text: str) -> None:
    with pytest.raises(ValueError):
        ms_from_iso(text)
    assert iso_to_ms(text) is None


@pytest.mark.parametrize("value", [None, 1767323045678, 1.5, True, ["2026-01-02T03:04:05.678Z"], {"t": 1}])
def test_iso_to_ms_is_none_for_anything_but_a_string(value: object) -> None:
    assert iso_to_ms(value) is None


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_matches_node() -> None:
    rng = random.Random(3)
    values = [rng.randint(-8_640_000_000_000_000, 8_640_000_000_000_000) for _ in range(300)]
    values += [rng.randint(0, 2_000_000_000_000) + rng.random() for _ in range(300)]
    values += [-62198755200000, 8_640_000_000_000_000, -8_640_000_000_000_000, -0.5, -1.5]
    script = ("let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>{const vs=JSON.parse(d);"
              "process.stdout.write(JSON.stringify(vs.map(v=>{const s=new Date(v).toISOString();"
              "return [s,new Date(s).getTime()];})));});")
    done = subprocess.run([NODE, "-e", script], input=json.dumps(values), capture_output=True, text=True, timeout=60,
                          check=True)
    for value, (iso, back) in zip(values, json.loads(done.stdout)):
        assert iso_from_ms(value) == iso
        assert ms_from_iso(iso) == back


def _iso_like(rng: random.Random) -> str:
    """Strings around the ISO forms: valid, out of range, odd separators and offsets."""
    s = rng.choice(["2026", "1969", "0000", "0049", "0100", "9999", "+002026", "-000001", "+275760", "-271821", "202"])
    if rng.random() < 0.9:
        s += "-" + rng.choice(["01", "02", "12", "13", "00", "1"])
        if rng.random() < 0.9:
            s += "-" + rng.choice(["01", "29", "30", "31", "32", "00"])
    if rng.random() < 0.85:
        s += rng.choice(["T", "t", " ", "", "TT"]) + rng.choice(["00", "03", "23", "24", "25"]) + ":"
        s += rng.choice(["00", "04", "59", "60"])
        if rng.random() < 0.8:
            s += ":" + rng.choice(["00", "05", "59", "60"])
            if rng.random() < 0.8:
                s += "." + rng.choice(["0", "6", "67", "678", "6789", ""])
        if rng.random() < 0.85:
            s += rng.choice(["Z", "z", "+01:00", "-05:30", "+0100", "+24:00", "+23:59", "-00:60", "+1", "ZZ", "UTC"])
    return s


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_parsing_matches_node() -> None:
    rng = random.Random(11)
    texts = sorted({_iso_like(rng) for _ in range(4000)})
    script = ("let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>{const vs=JSON.parse(d);"
              "process.stdout.write(JSON.stringify(vs.map(v=>{const t=new Date(v).getTime();"
              "return Number.isNaN(t)?null:t;})));});")
    done = subprocess.run([NODE, "-e", script], input=json.dumps(texts), capture_output=True, text=True, timeout=60,
                          check=True, env={"TZ": "UTC"})
    strict = re.compile(r"([+-]\d{6}|\d{4})(-\d\d(-\d\d)?)?([Tt]\d\d:\d\d(:\d\d(\.\d+)?)?([Zz]|[+-]\d\d:\d\d)?)?")
    for text, js in zip(texts, json.loads(done.stdout)):
        ours = iso_to_ms(text)
        if strict.fullmatch(text):  # ECMAScript's own format: the same value, or NaN on both sides
            assert ours == js, text
        else:  # V8's fallback parser reads far more; what we do read, we read as it does
            assert ours is None or ours == js, text
