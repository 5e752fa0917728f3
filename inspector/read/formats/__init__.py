"""Claude Code and Codex CLI transcripts, read through a pi-format mirror (one line for each line of the file).

`claude_code` and `codex` translate one line of their format at a time into one pi v3 JSONL entry line (state is
carried from line to line, never from later lines, so a file that grows is translated by appending); `mirror` keeps
the translation in the cache directory and in step with the file. The engine then reads the mirror as any OpenClaw
session: the line numbers it shows are the file's own. See the shared spec `other-formats.md`.
"""
