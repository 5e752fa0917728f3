"""Real token counts (tiktoken, offline): the counter, bulk counting of context lines, and the counting helper process."""
