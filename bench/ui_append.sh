#!/bin/bash
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# bench/ui_append.sh SESSION OUT N : the app appends N lines to SESSION (then truncates it back) while following
S=$1; OUT=$2; N=$3; rm -f $OUT; SIZE=$(stat -c %s $S)
tmux kill-session -t bench 2>/dev/null
tmux new -d -s bench -x 160 -y 48 "PROFILE=$PROFILE APPEND=$N $ROOT/.venv/bin/python $ROOT/bench/ui_latency.py $S $OUT"
for i in $(seq 1 1200); do
  if tmux capture-pane -p -t bench 2>/dev/null | grep -q "Context now"; then break; fi; sleep 0.05
done
sleep $(python3 -c "print(4 + 0.34 * $N)")
tmux send-keys -t bench q
for i in $(seq 1 600); do [ -f $OUT ] && break; sleep 0.1; done
truncate -s $SIZE $S
cat $OUT
