"""The Textual UI of Session Inspector. Everything shown comes from `inspector` (the engine): typed figures
(`inspector.figures.overview`, `inspector.figures.breakdown`, `inspector.figures.file_summary`), per-row sizes (`inspector.figures.sizes`) and row
marks (`inspector.figures.marks`); modules here only arrange, format and wire them.

Layout, by feature:
  app.py, launch.py, options.py   the app (wires screens, bindings, the command palette), its command line, options
  commands.py                     command palette provider, help rows and palette commands shared by the screens
  screens/                        the inspector of one session, its opener and live follower, and the dialogs
  transcript/                     the transcript widget, its model, columns, previews, marks drawing, search, jumps
  detail/                         the selected message in full
  browser/                        the session browser: screen, table, directory watchers
  pruning/                        the pruning preview screen and its panels
  compaction/                     the place for the compaction view (empty until it lands)
  diagnosis/                      the timeline screen (chart, call figures, repeats), its runner, the inspector's mixin
  gauge.py, breakdown.py, session_header.py, notice_bar.py   the inspector's side panels and bars
  heap.py, warm.py                GC freezing after a big index; importing the lazily loaded screens in a worker
  screenshots.py                  the README's screenshots
  inert.py                        the inert-text path for everything from a file (`inspector.base.textsafe` + lone surrogates)

Engine work runs in thread workers that post Textual messages (`@on` handlers apply them on the UI thread).
"""
