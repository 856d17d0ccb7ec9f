#!/usr/bin/env python3
"""A bot for `roshambo bot --exec "python3 scripts/bots/frequency.py"` (docs/BOTS.md):
it plays what beats the weapon its opponent has played most this match."""
import json
import random
import sys
from collections import Counter

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        beats = message["beats"]  # each weapon: the weapons it beats
        seen = Counter()
    elif message["type"] == "result" and message["them"]:
        seen[message["them"]] += 1
    elif message["type"] == "pick":
        likely = seen.most_common(1)[0][0] if seen else None
        answers = [weapon for weapon in beats if likely in beats[weapon]]
        print(random.choice(answers or list(beats)), flush=True)
