"""The rules of each upstream release, one folder per release (`openclaw_2026_4_12/`: OpenClaw 2026.4.12 with pi 0.66.1)."""
