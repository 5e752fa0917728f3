"""The text of a message that reaches the model, as pi's `convertToLlm` renders it ([PI66] `core/messages.ts`).

The one home of pi's summary wrappers: a compaction summary and a branch summary reach the model as user text
wrapped in these exact prefixes and suffixes (`compaction_summary_text`, `branch_summary_text`), and a
`bashExecution` message as `bash_execution_to_text`. `model_visible_texts` lists what a real tokenizer should
count for a message (`inspector.counting.counter.TokenCounter.count_message`).
"""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import js_number_to_string, js_stringify, js_truthy

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "bash_execution_to_text",
    "branch_summary_text",
    "compaction_summary_text",
    "model_visible_texts",
]

COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
"""pi `COMPACTION_SUMMARY_PREFIX`: the text before a compaction summary in the context."""
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
"""pi `COMPACTION_SUMMARY_SUFFIX`."""
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
"""pi `BRANCH_SUMMARY_PREFIX`: the text before a branch summary in the context."""
BRANCH_SUMMARY_SUFFIX = "</summary>"
"""pi `BRANCH_SUMMARY_SUFFIX` (no newline before it, unlike the compaction one)."""


def compaction_summary_text(summary: str) -> str:
    """The user text a compaction summary becomes for the model (pi `convertToLlm`, `compactionSummary`)."""
    return COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX


def branch_summary_text(summary: str) -> str:
    """The user text a branch summary becomes for the model (pi `convertToLlm`, `branchSummary`)."""
    return BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX


def _js_template(value: Any) -> str:
    """`${value}` in a JS template literal, for JSON values."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return js_number_to_string(value)  # also `true`/`false`
    if isinstance(value, list):
        return ",".join("" if v is None else _js_template(v) for v in value)
    return "[object Object]"


def bash_execution_to_text(msg: dict[str, Any]) -> str:
    """pi `bashExecutionToText` ([PI66] `MSG`): the user text a `bashExecution` message becomes."""
    command = _js_template(msg.get("command")) if "command" in msg else "undefined"
    text = f"Ran `{command}`\n"
    output = msg.get("output")
    if js_truthy(output):
        text += f"```\n{_js_template(output)}\n```"
    else:
        text += "(no output)"
    exit_code = msg.get("exitCode")
    if js_truthy(msg.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and (exit_code is False or exit_code != 0):  # `!== null/undefined/0`
        text += f"\n\nCommand exited with code {_js_template(exit_code)}"
    full_path = msg.get("fullOutputPath")
    if js_truthy(msg.get("truncated")) and js_truthy(full_path):
        text += f"\n\n[Output truncated. Full output: {_js_template(full_path)}]"
    return text


def _text_blocks(content: Any) -> list[str]:
    if type(content) is str:
        return [content]
    if type(content) is not list:
        return []
    return [b["text"] for b in content if type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str]


def model_visible_texts(msg: dict[str, Any]) -> list[str]:
    """The texts of a message that reach the model, as `TokenCounter.count_message` tokenizes them.

    * user, toolResult, custom: the string content or each text block (images are not text: not counted;
      `details` never reaches the model).
    * assistant: each text block, each thinking block's `thinking`, and for each toolCall its `name` and
      `JSON.stringify(arguments)`; redacted thinking and signatures are opaque and not counted.
    * bashExecution: pi's `bashExecutionToText` rendering, nothing when `excludeFromContext`.
    * compactionSummary / branchSummary: the summary wrapped in pi's `convertToLlm` prefix and suffix.
    * any other role: nothing.
    Role markers and per-message framing tokens of a provider are not included.
    """
    if type(msg) is not dict:
        return []
    role = msg.get("role")
    if role in ("user", "toolResult", "custom"):
        return _text_blocks(msg.get("content"))
    if role == "assistant":
        content = msg.get("content")
        if type(content) is not list:
            return []
        texts: list[str] = []
        for block in content:
            if type(block) is not dict:
                continue
            btype = block.get("type")
            if btype == "text" and type(block.get("text")) is str:
                texts.append(block["text"])
            elif btype == "thinking" and type(block.get("thinking")) is str:
                texts.append(block["thinking"])
            elif btype == "toolCall":
                if type(block.get("name")) is str:
                    texts.append(block["name"])
                if "arguments" in block:
                    try:
                        texts.append(js_stringify(block["arguments"]))
                    except (TypeError, ValueError):
                        pass
        return texts
    if role == "bashExecution":
        return [] if js_truthy(msg.get("excludeFromContext")) else [bash_execution_to_text(msg)]
    if role == "compactionSummary" and type(msg.get("summary")) is str:
        return [compaction_summary_text(msg["summary"])]
    if role == "branchSummary" and type(msg.get("summary")) is str:
        return [branch_summary_text(msg["summary"])]
    return []

