#!/usr/bin/env python3
"""The bot written from docs/BOTS.md alone, to check that the document is enough:
it reads only what the document promises, answers in its JSON form, and ignores
what it does not know. It plays what beats the opponent's commonest weapon in the
last five rounds of the pick's history, and keeps a tally on standard error."""
import json
import sys

beats, tally = {}, {"won": 0, "lost": 0, "unfinished": 0}
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "start":
        beats = message["beats"]
    elif kind == "pick":
        recent = [r["them"] for r in message["history"][-5:] if r["them"] is not None]
        common = max(set(recent), key=recent.count) if recent else None
        answers = [w for w in beats if common in beats[w]] or sorted(beats)
        print(json.dumps({"pick": answers[0], "bank": message["bankMs"]}), flush=True)
    elif kind == "end":
        tally[message["result"]] += 1
    elif kind == "bye":
        print("docbot:", tally, file=sys.stderr)
        break
