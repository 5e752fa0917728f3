"""Diagnosing runaway context in the app (issue 13): the views of `inspector.figures.diagnosis`'s `Timeline`.

  runner.py          `DiagnosisRunner`: fill state and timeline in thread workers, posted to the inspector screen
  screen.py          the timeline screen (`l`; `R` opens it on the repeats): summary, chart, call figures, repeats
  chart.py           `TimelineChart` (textual-plot): tokens over calls, window / reserve / early lines, compactions,
                     jumps, a cursor; `calls_table.py` is its fallback in a terminal too small for a chart
  call_panel.py      the selected call's figures (recorded vs derived, cache, cost, jump causes, thresholds)
  summary.py         the screen's head: cost, cache-hit ratio, TTL-expiry writes, not in the transcript, fill
  repeats.py         the ranked repeats (Enter: each occurrence in the transcript, then n / N)
  overhead_panel.py  "not in the transcript" as its own share of the breakdown, with its trend
  occurrences.py     `DiagnosisJump` (what the screen dismisses with) and the `Occurrences` n / N step through
  inspector_views.py `DiagnosisViews`, the inspector screen's mixin: runner messages, the timeline screen, jumps
  texts.py           how fill, guard and not-in-transcript figures read in the header, gauge, breakdown and screen

Every figure is the engine's; nothing here computes one.
"""
