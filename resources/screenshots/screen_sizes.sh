#!/usr/bin/env bash
# The README's screen-size shots, in a real X window (Xvfb, no window manager) driven as a
# person drives it (xdotool: clicks and keys), then grabbed from the X screen:
#   studio_1280x720.png   parallel_search at 1280x720: a click on `merge`, F9, F5 -> paused on the breakpoint
#   studio_1920x1080.png  subgraph at 1920x1080: a click on `plan`, F10 twice -> the superstep frame
#                         around the research cluster
# Needs: apt-get install xvfb xdotool (and the README's Qt libraries). Usage: sh screen_sizes.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
studio=${RETROGRAPH:-$root/.venv/bin/retrograph}
work=$(mktemp -d)

grab() {  # grab OUT.png: the whole X screen
  "$py" -c "import sys; from PySide6.QtGui import QGuiApplication as A; a = A([sys.argv[0], '-platform', 'xcb']); \
sys.exit(0 if a.primaryScreen().grabWindow(0).save(sys.argv[1]) else 1)" "$1"
}

session() {  # session DISPLAY WxH EXAMPLE: Xvfb and the studio on it, fresh settings
  Xvfb ":$1" -screen 0 "${2}x24" -nolisten tcp >"$work/xvfb$1.log" 2>&1 &
  echo $! >"$work/xvfb$1.pid"
  sleep 1
  HOME="$work/home$1" XDG_CONFIG_HOME="$work/home$1/config" XDG_DATA_HOME="$work/home$1/data" DISPLAY=":$1" \
    "$studio" "$root/resources/examples/$3" --db "$work/runs$1.sqlite" >"$work/app$1.log" 2>&1 &
  echo $! >"$work/app$1.pid"
  sleep 10  # the import and the graph's layout
}

end() {  # end DISPLAY
  kill "$(cat "$work/app$1.pid")" "$(cat "$work/xvfb$1.pid")" 2>/dev/null || true
}

session 77 1280x720 parallel_search.py
export DISPLAY=:77
xdotool mousemove 625 499 click 1; sleep 0.7   # the `merge` node: selected (and the keyboard focus)
xdotool key F9; sleep 0.5                       # a breakpoint before it
xdotool key F5; sleep 3                         # continue: paused on the breakpoint
grab "$here/studio_1280x720.png"
end 77

session 78 1920x1080 subgraph.py
export DISPLAY=:78
xdotool mousemove 901 200 click 1; sleep 0.7   # the `plan` node
xdotool key F10; sleep 1.5; xdotool key F10; sleep 2
grab "$here/studio_1920x1080.png"
end 78
rm -rf "$work"
