#!/bin/sh
# Re-render the studio screenshots of the README (offscreen; run from the repository root):
#   sh resources/screenshots/make.sh [OUT_DIR]
# Each is `retrograph FILE --do SCRIPT --screenshot OUT`: the window after those user actions
# (see `retrograph --help`), at its default size and layout.
set -e
out=${1:-resources/screenshots}
tmp=$(mktemp -d)
export QT_QPA_PLATFORM=offscreen
rg() { python -m studio "$@"; }
ex=resources/examples

rg $ex/react_agent.py --db "$tmp/runs.sqlite" --do "step*4 legend" --screenshot "$out/react_agent.png"
rg $ex/parallel_search.py --db "$tmp/runs.sqlite" --steps 3 --screenshot "$out/parallel_search.png"
rg $ex/bluetooth.py --db "$tmp/runs.sqlite" --steps 4 --screenshot "$out/bluetooth.png"
rg $ex/subgraph.py --db "$tmp/runs.sqlite" --steps 3 --screenshot "$out/subgraph.png"
rg $ex/approval.py --db "$tmp/runs.sqlite" \
   --do 'step*3 answer:{"approved": true, "note": "photos checked"}' --screenshot "$out/approval.png"
# a LangGraph app (langgraph imports, ToolNode, interrupt) paused at its approval
rg $ex/langchain_approval.py --db "$tmp/runs.sqlite" --do "step*4" --screenshot "$out/langchain_approval.png"
# a rewind: back to step 1, then two steps make a new branch beside the old one
rg $ex/react_agent.py --db "$tmp/runs.sqlite" --do "step*4 rewind:1 step*2" --screenshot "$out/timeline_branch.png"
# post-mortem: a run that went wrong, recorded by `retrograph run`, opened without its code
rg run $ex/react_agent.py --db "$tmp/recorded.sqlite" --thread support-ticket-4512 \
   --input '{"messages": [{"role": "user", "content": "What is 6 / 0, and what is the weather in Paris?"}]}' \
   >/dev/null 2>&1 || true
rg open "$tmp/recorded.sqlite" --thread support-ticket-4512 --screenshot "$out/postmortem.png"
# teaching (issue 13): why on the graph, Send badges, pending writes, reducers, a conflict,
# autoplay, the scrubber, presentation mode, focus layout, a lesson
rg2() { rg "$@" --db "$tmp/teach.sqlite"; }
rg2 $ex/parallel_search.py --do "step*3 hover:merge why" --screenshot "$out/teach_why.png"
rg2 $ex/map_reduce.py --do "step*2 hover:summarize why" --screenshot "$out/teach_send.png"
rg2 $ex/parallel_search.py --do "step*2 why" --screenshot "$out/teach_pending.png"
rg2 $ex/lessons/reducers_conflicts.py --do "superstep*2" --screenshot "$out/teach_reducers.png"
rg2 $ex/lessons/reducers_conflicts.py --input '{"draft": "x", "clash": true, "score": 0}' --do "step*3" \
   --screenshot "$out/teach_conflict.png"
rg2 $ex/lessons/supersteps_joins.py --do "play:3" --screenshot "$out/teach_autoplay.png"
rg2 $ex/parallel_search.py --do "continue scrub:2 why" --screenshot "$out/teach_scrubber.png"
rg2 $ex/lessons/supersteps_joins.py --do "step*2 zoom:150 contrast focus" --screenshot "$out/teach_presentation.png"
rg2 $ex/parallel_search.py --do "step*3 focus" --screenshot "$out/teach_focus.png"
rg2 $ex/lessons/supersteps_joins.py --do "step*5 hover:itinerary" --screenshot "$out/teach_lesson.png"
rm -rf "$tmp"
