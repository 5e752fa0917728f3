"""The Textual UI of Session Inspector: the app, its screens, and one widget per module.

Everything shown comes from `inspector` (the engine); modules here only arrange, format and wire it.
"""
