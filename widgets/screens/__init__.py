"""Screens: the session browser, the inspector of one session, errors, diagnostics, filters and help."""
