"""The selected message in full: the scrollable panel (`detail`) and the rendering of its blocks, text,
thinking, tool calls and results, images and raw JSON, with every estimator (`render`).
"""
