#!/usr/bin/env python3
"""An arena bot in Python, for `arena-bench.sh`: `exec:python3 python-bot.py STYLE`.

Reads one JSON line per pick on standard input (the arena's stand-in protocol: round,
match, seat, ruleset, seed, and the round before as "last") and answers one line,
{"weapon": ...}. STYLE is how it picks: random, rock, paper, scissors, cycle, copy (their
last), beat-last (what beats their last), beat-most (what beats their favourite).
"""
import json
import random
import sys

WEAPONS = ["rock", "paper", "scissors"]
BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}


def main():
    style = sys.argv[1] if len(sys.argv) > 1 else "random"
    theirs = []
    generator = None
    for line in sys.stdin:
        ask = json.loads(line)
        if generator is None:
            generator = random.Random(ask.get("seed", 0))
        last = ask.get("last")
        if ask.get("round") == 1:
            theirs = []
        if last and last.get("them"):
            theirs.append(last["them"])
        if style in WEAPONS:
            weapon = style
        elif style == "cycle":
            weapon = WEAPONS[(ask["round"] - 1) % 3]
        elif style == "copy" and theirs:
            weapon = theirs[-1]
        elif style == "beat-last" and theirs:
            weapon = BEATS[theirs[-1]]
        elif style == "beat-most" and theirs:
            weapon = BEATS[max(WEAPONS, key=theirs.count)]
        else:
            weapon = generator.choice(WEAPONS)
        sys.stdout.write(json.dumps({"weapon": weapon}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
