#!/usr/bin/env python3
"""An arena bot in Python, for `arena-bench.sh`: `exec:python3 python-bot.py STYLE`.

Speaks docs/BOTS.md (as `roshambo bot --exec` does): a `start` line at each match,
`result` after each round, `pick` when a pick is wanted (answered with one line), `end`,
`bye`. STYLE is how it picks: random, rock, paper, scissors, cycle, copy (their last),
beat-last (what beats their last), beat-most (what beats their favourite).
"""
import json
import random
import sys

WEAPONS = ["rock", "paper", "scissors"]
BEATS = {"rock": "paper", "paper": "scissors", "scissors": "rock"}


def main():
    style = sys.argv[1] if len(sys.argv) > 1 else "random"
    theirs = []
    generator = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            theirs = []
        elif kind == "result" and message.get("them"):
            theirs.append(message["them"])
        elif kind == "bye":
            break
        elif kind == "pick":
            if style in WEAPONS:
                weapon = style
            elif style == "cycle":
                weapon = WEAPONS[(message["round"] - 1) % 3]
            elif style == "copy" and theirs:
                weapon = theirs[-1]
            elif style == "beat-last" and theirs:
                weapon = BEATS[theirs[-1]]
            elif style == "beat-most" and theirs:
                weapon = BEATS[max(WEAPONS, key=theirs.count)]
            else:
                weapon = generator.choice(WEAPONS)
            sys.stdout.write(weapon + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
