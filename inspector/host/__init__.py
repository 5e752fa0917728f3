"""What the machine holds: OpenClaw's config and state, discovery of session files, cheap listings of many files."""
