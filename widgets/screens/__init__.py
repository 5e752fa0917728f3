"""The inspector of one session (`inspector`; its side panel: `side_panel`), the objects it owns that talk to it in
messages (`opening`: the session opener, `live_follow`: the live follower), and its dialogs: diagnostics, error,
filter, help."""
