#!/bin/bash
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# bench/ui_scroll.sh SESSION OUT : run the app in tmux 160x48, wait for the transcript, scroll with keys, quit, print results
S=$1; OUT=$2; rm -f $OUT
tmux kill-session -t bench 2>/dev/null
tmux new -d -s bench -x 160 -y 48 "PROFILE=$PROFILE $ROOT/.venv/bin/python $ROOT/bench/ui_latency.py $S $OUT"
for i in $(seq 1 1200); do
  if tmux capture-pane -p -t bench 2>/dev/null | grep -q "Context now"; then break; fi; sleep 0.05
done
sleep 1
if [ -n "$OFFPATH" ]; then tmux send-keys -t bench o; sleep 4; fi
tmux send-keys -t bench Home; sleep 0.3
for i in $(seq 1 ${DOWNS:-60}); do tmux send-keys -t bench Down; sleep 0.06; done
for i in $(seq 1 ${PAGES:-40}); do tmux send-keys -t bench PageDown; sleep 0.08; done
for i in $(seq 1 ${PAGES:-40}); do tmux send-keys -t bench PageUp; sleep 0.08; done
for i in $(seq 1 ${DOWNS:-60}); do tmux send-keys -t bench Up; sleep 0.06; done
tmux send-keys -t bench End; sleep 0.5
tmux send-keys -t bench q
for i in $(seq 1 100); do [ -f $OUT ] && break; sleep 0.1; done
cat $OUT
