"""Untrusted text is made inert: control sequences become visible escapes, markup stays literal text."""

from inspector.base.textsafe import make_inert, one_line


def test_escape_sequences_become_visible():
    evil = "a\x1b[31mred\x1b]8;;http://x\x1b\\link\x07\u202eevil\u2066 b\tc\nd\x9b"
    out = make_inert(evil)
    for ch in ("\x1b", "\x07", "\u202e", "\u2066", "\x9b"):
        assert ch not in out
    assert "\\x1b[31m" in out and "\\u202e" in out and "\\x9b" in out
    assert "\t" in out and "\n" in out


def test_markup_is_left_as_text_and_one_line_truncates():
    assert make_inert("[bold]x[/bold]") == "[bold]x[/bold]"
    assert one_line("a\n  b\x1b c", 40) == "a b\\x1b c"
    assert one_line("x" * 100, 10) == "x" * 9 + "\u2026"


def test_every_bidi_control_is_escaped_and_cut_says_what_it_left_out():
    from inspector.base.textsafe import cut

    bidi = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # Unicode's Bidi_Control set
    assert make_inert(bidi) == "".join(f"\\u{ord(c):04x}" for c in bidi)
    assert cut("abc", 3) == "abc" and cut("x" * 1005, 1000) == "x" * 1000 + "\u2026 [5 more characters cut]"
