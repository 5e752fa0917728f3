"""UI latency benchmark: the real app in a real terminal (tmux), driven with tmux send-keys.

Inside the app process it records: process start -> first frame written after the inspector screen is mounted
(first paint), -> first frame with the indexed transcript; for every key press, the time until the next frame
is written to the terminal (key-to-repaint), and how long compositing that frame took.
Usage (inside tmux, see bench/ui_scroll.sh and bench/ui_append.sh): python bench/ui_latency.py SESSION.jsonl OUT.json
It patches two Textual internals (the compositor's render_update and the driver's write) to timestamp frames:
a measuring harness, not product code.
"""
import json
import sys
import time
from pathlib import Path

T0 = time.perf_counter()
ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT))
from textual import events
from textual._compositor import Compositor

from widgets.app import InspectorApp
from widgets.launch import parse_args
from widgets.screens.inspector import InspectorScreen

STATE = {"key": None}
KEYLOG = []
PENDING = []
WRITES = []
SEEN = set()
from textual._time import get_time

RENDER, QUEUE, LAT, KEYS = [], [], [], []
_ru = Compositor.render_update
def _timed_ru(self, *a, **k):
    t = time.perf_counter()
    if STATE["key"] is not None:
        QUEUE.append(t - STATE["key"][0])
    r = _ru(self, *a, **k)
    RENDER.append(time.perf_counter() - t)
    return r
Compositor.render_update = _timed_ru

class TimedApp(InspectorApp):
    first_paint = None
    loaded_paint = None

    def on_mount(self) -> None:
        drv = self._driver
        orig = drv.write
        def write(data):
            now = time.perf_counter()
            screen = self.screen
            if self.first_paint is None and isinstance(screen, InspectorScreen) and screen.is_mounted:
                self.first_paint = now - T0
            if self.loaded_paint is None and isinstance(screen, InspectorScreen) and screen.model is not None:
                self.loaded_paint = now - T0
            WRITES.append((now, len(data)))
            if APPENDS and isinstance(screen, InspectorScreen) and screen.model is not None:
                try:
                    shown = sum(1 for e in screen.model.view[-60:] if str(screen.model.entry(e).id).startswith("app"))
                except Exception:
                    shown = 0
                while len(APPEND_LAT) < min(shown, len(APPENDS)):
                    APPEND_LAT.append(now - APPENDS[len(APPEND_LAT)])
            for kt, kk in PENDING:
                LAT.append(now - kt); KEYS.append(kk)
            PENDING.clear()
            STATE["key"] = None
            orig(data)
        drv.write = write

    async def on_event(self, event):
        if isinstance(event, events.Key) and "prof" in STATE and not STATE.get("prof_on"):
            STATE["prof_on"] = True; STATE["prof"].enable()
        if isinstance(event, events.Key) and not getattr(event, "_bench_seen", False):
            event._bench_seen = True
            KEYLOG.append((event.time, event.key, STATE["key"] is not None))
            if event.key != "q":
                # event.time: when the driver created the event (textual._time clock, monotonic)
                STATE["key"] = (time.perf_counter() - (get_time() - event.time), event.key)
                PENDING.append(STATE["key"])
        await super().on_event(event)

import gc
import os

GC_PAUSES = []
def _gc_cb(phase, info):
    if phase == "start": STATE["gc"] = time.perf_counter()
    else: GC_PAUSES.append((info.get("generation"), time.perf_counter() - STATE.get("gc", time.perf_counter())))
gc.callbacks.append(_gc_cb)
APPENDS, APPEND_LAT = [], []
def appender(path, n):
    import threading
    def run():
        while True:
            try:
                scr = app.screen
                if isinstance(scr, InspectorScreen) and scr.model is not None:
                    break
            except Exception:
                pass
            time.sleep(0.1)
        time.sleep(2.0)
        if "prof" in STATE:
            app.call_from_thread(STATE["prof"].enable)
        try:
            for i in range(n):
                line = ('{"type":"message","id":"app%05d","parentId":"%s","timestamp":"2026-01-01T00:00:00.000Z",'
                        '"message":{"role":"user","content":"appended line %d","timestamp":1767225600000}}\n')
                parent = scr.model.ctx.leaf_id if i == 0 else "app%05d" % (i - 1)
                with open(path, "a") as f:
                    f.write(line % (i, parent, i))
                APPENDS.append(time.perf_counter())
                time.sleep(0.3 + (i % 7) * 0.013)
            time.sleep(1.0)
        finally:
            pass  # the driver script truncates the file back after the app exits
    threading.Thread(target=run, daemon=True).start()
opts = parse_args([sys.argv[1]])
app = TimedApp(opts)
if os.environ.get("APPEND"):
    appender(sys.argv[1], int(os.environ["APPEND"]))
if os.environ.get("PROFILE"):
    import cProfile
    pr = cProfile.Profile()
    STATE["prof"] = pr
    app.run()
    OUT_DIR.mkdir(exist_ok=True)
    pr.dump_stats(str(OUT_DIR / "ui-app.prof"))
else:
    app.run()

def pct(values, p):
    v = sorted(values)
    return round(1000 * v[min(len(v) - 1, int(p * len(v)))], 1) if v else None

by_key = {}
for k, v in zip(KEYS, LAT):
    by_key.setdefault(k, []).append(v)
out = {
    "first_paint_s": round(app.first_paint or -1, 3),
    "transcript_shown_s": round(app.loaded_paint or -1, 3),
    "presses_with_a_frame": len(LAT),
    "key_to_repaint_p50_ms": pct(LAT, 0.5), "key_to_repaint_p95_ms": pct(LAT, 0.95), "key_to_repaint_max_ms": pct(LAT, 1.0),
    "key_to_composite_start_p95_ms": pct(QUEUE, 0.95),
    "composite_p50_ms": pct(RENDER, 0.5), "composite_p95_ms": pct(RENDER, 0.95),
    "by_key_p95_ms": {k: pct(v, 0.95) for k, v in by_key.items()},
}
out["gc_gen2_count"] = sum(1 for g, d in GC_PAUSES if g == 2)
out["gc_max_pause_ms"] = round(1000 * max((d for g, d in GC_PAUSES), default=0), 1)
out["gc_total_ms"] = round(1000 * sum(d for g, d in GC_PAUSES), 1)
out["appends"] = len(APPENDS)
out["append_to_visible_p50_ms"] = pct(APPEND_LAT, 0.5)
out["append_to_visible_p95_ms"] = pct(APPEND_LAT, 0.95)
out["append_to_visible_max_ms"] = pct(APPEND_LAT, 1.0)
out["appends_seen"] = len(APPEND_LAT)
out["key_events"] = len(KEYLOG)
out["keys_overwritten"] = sum(1 for k in KEYLOG if k[2])
json.dump(out, open(sys.argv[2], "w"), indent=1)
OUT_DIR.mkdir(exist_ok=True)
with open(OUT_DIR / "ui-timeline.txt", "w") as f:
    ev = [(t, "W", n) for t, n in WRITES] + [(time.perf_counter() - (get_time() - kt), "K", k) for kt, k, _ in KEYLOG]
    ev.sort()
    base = ev[0][0]
    for t, kind, x in ev: f.write(f"{1000*(t-base):10.1f} {kind} {x}\n")

