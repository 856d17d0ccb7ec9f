#!/usr/bin/env python3
"""Check a Roshambo match record (docs/MATCH-RECORD.md) from the document alone.

Usage: scripts/verify_record.py FILE.json   (- for standard input)

Prints each check (+ holds, x fails, - not checked) and exits 0 when nothing fails,
65 when something does or the file is not a record, 66 when it cannot be opened.
Python's standard library only, written apart from the Swift code, so it is a second
opinion on the same format.
"""
import hashlib
import json
import re
import sys
import unicodedata

RULES = {
    "classic": {
        ("rock", "scissors"): "crushes", ("scissors", "paper"): "cuts",
        ("paper", "rock"): "covers",
    },
    "lizardSpock": {
        ("rock", "scissors"): "crushes", ("scissors", "paper"): "cuts",
        ("paper", "rock"): "covers", ("rock", "lizard"): "crushes",
        ("lizard", "spock"): "poisons", ("spock", "scissors"): "smashes",
        ("scissors", "lizard"): "decapitates", ("lizard", "paper"): "eats",
        ("paper", "spock"): "disproves", ("spock", "rock"): "vaporizes",
    },
}
HEX64 = re.compile(r"\A[0-9a-f]{64}\Z")
ROOM = re.compile(r"\A[A-Za-z0-9_-]{1,32}\Z")
MAX_BYTES = 256 * 1024  # the format's limits (docs/MATCH-RECORD.md), as Roshambo reads it
MAX_DEPTH = 64
MAX_ROUNDS = 100
MAX_NAME_BYTES = 256
LATEST_MOMENT = 2**53 - 1  # ms since 1970 that every JSON reader holds exactly
LAST_ROUND = 2**31 - 1


def whole(value, low, high):
    """Whether `value` is a JSON integer (not true or false, not 1.0) from low to high."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def too_deep(text):
    """Whether arrays and objects nest deeper than MAX_DEPTH (checked before parsing,
    which would otherwise recurse once a level)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif char in "]}":
            depth -= 1
    return False


def limits(record):
    """What breaks the format's limits, or None."""
    if not isinstance(record, dict):
        return "a record is a JSON object"
    room = record.get("room")
    if not (isinstance(room, str) and ROOM.match(room)):
        return '"room" must be 1 to 32 of A-Z a-z 0-9 _ -'
    players, scores = record.get("players"), record.get("scores")
    if not (isinstance(players, list) and isinstance(scores, list)
            and len(players) == 2 and len(scores) == 2):
        return "a record has two players and two scores, seat 1's first"
    names = players + [record.get("winner")]
    if not all(isinstance(name, str) for name in names):
        return "players and winner are names (strings)"
    if any(len(name.encode("utf-8")) > MAX_NAME_BYTES for name in names):
        return f"a name in a record is at most {MAX_NAME_BYTES} bytes"
    if any(unicodedata.category(char) == "Cc" for name in names for char in name):
        return "a name in a record holds a control character"
    if not whole(record.get("finishedAt"), 0, LATEST_MOMENT):
        return f'"finishedAt" is ms since 1970, from 0 to {LATEST_MOMENT}'
    if not all(whole(score, 0, 99) for score in scores):
        return "a score is a number of rounds won, 0 to 99"
    rounds = record.get("rounds")
    if rounds is not None:
        if not isinstance(rounds, list):
            return '"rounds" is an array or null'
        if len(rounds) > MAX_ROUNDS:
            return f"a match keeps at most {MAX_ROUNDS} rounds"
        for r in rounds:
            if not isinstance(r, dict):
                return "a round is a JSON object"
            if not whole(r.get("round"), 1, LAST_ROUND):
                return f"a round's number is 1 to {LAST_ROUND}, a whole number"
            weapons = r.get("weapons")
            if not (isinstance(weapons, list) and len(weapons) == 2
                    and all(w is None or isinstance(w, str) for w in weapons)):
                return "a round's weapons are two names of weapons (or null), seat 1's first"
            if not whole(r.get("winner"), 0, 2):
                return "a round's winner must be 0, 1 or 2"
            if r.get("at") is not None and not whole(r.get("at"), 0, LATEST_MOMENT):
                return f'a round\'s "at" is ms since 1970, from 0 to {LATEST_MOMENT}'
            if len(r.get("commitments") or []) > 2 or len(r.get("nonces") or []) > 2:
                return "a round has at most two commitments and two nonces"
    return None


def commitment(room, round_number, seat, weapon, nonce_hex):
    message = b"\0".join(
        part.encode() for part in
        ["roshambo-commit-v1", room, str(round_number), str(seat), weapon])
    return hashlib.sha256(message + b"\0" + bytes.fromhex(nonce_hex)).hexdigest()


def decide(rules, first, second):
    """(winning seat or 0, reason or None), a missing weapon losing."""
    if first and second:
        if (first, second) in rules:
            return 1, f"{first} {rules[(first, second)]} {second}"
        if (second, first) in rules:
            return 2, f"{second} {rules[(second, first)]} {first}"
        return 0, None
    if first:
        return 1, None
    if second:
        return 2, None
    return 0, None


def check(record):
    found = []  # (mark, text)
    if record.get("format") != 1:
        return [("x", f"format {record.get('format')!r}; this checker reads format 1")]
    rules = RULES.get(record.get("ruleset"))
    if rules is None:
        return [("x", f"unknown ruleset {record.get('ruleset')!r}")]
    weapons_allowed = {w for pair in rules for w in pair}
    best_of = record["bestOf"]
    if not (isinstance(best_of, int) and 1 <= best_of <= 99 and best_of % 2 == 1):
        return [("x", f"best of {best_of} is not a match length")]
    rounds = record.get("rounds")
    if rounds is None:
        return [("-", "the record has no rounds")]
    fair, room, players = record["fair"], record["room"], record["players"]
    wins_needed = best_of // 2 + 1
    wins = [0, 0]
    reached_at = None
    rounds_hold = True
    reveals = 0
    for index, r in enumerate(rounds):
        label = f"round {r['round']}"
        if index and r["round"] != rounds[index - 1]["round"] + 1:
            found.append(("x", f"{label} follows round {rounds[index - 1]['round']}"))
            rounds_hold = False
        weapons = r["weapons"]
        if len(weapons) != 2 or any(w is not None and w not in weapons_allowed for w in weapons):
            found.append(("x", f"{label} has weapons {weapons!r}"))
            rounds_hold = False
            continue
        commitments, nonces = r.get("commitments", []), r.get("nonces", [])
        if fair != bool(commitments):
            found.append(("x", f"{label}: commitments do not match the match's fairness"))
            rounds_hold = False
            continue
        played = list(weapons)
        if fair:
            for seat in (1, 2):
                weapon = weapons[seat - 1]
                if weapon is None:
                    continue
                digest = commitments[seat - 1] if seat - 1 < len(commitments) else None
                nonce = nonces[seat - 1] if seat - 1 < len(nonces) else None
                if not (digest and nonce and HEX64.match(nonce)
                        and commitment(room, r["round"], seat, weapon, nonce) == digest):
                    found.append(("x", f"{label}: seat {seat}'s {weapon} and nonce do not "
                                       "match the commitment"))
                    rounds_hold = False
                    played[seat - 1] = None
                else:
                    reveals += 1
            if played == [None, None]:
                committed = [c is not None for c in commitments[:2]] + [False, False]
                expected = (0 if committed[0] == committed[1] else 1 if committed[0] else 2,
                            None)
            else:
                expected = decide(rules, *played)
        else:
            expected = decide(rules, *played)
        if r["winner"] != expected[0]:
            found.append(("x", f"{label} is given to {r['winner']}; its weapons give it to "
                               f"{expected[0]}"))
            rounds_hold = False
        elif r.get("reason") != expected[1]:
            found.append(("x", f"{label} says {r.get('reason')!r}; the rule is {expected[1]!r}"))
            rounds_hold = False
        if r["winner"] in (1, 2):
            wins[r["winner"] - 1] += 1
            if wins[r["winner"] - 1] == wins_needed and reached_at is None:
                reached_at = index
    if rounds_hold:
        found.append(("+", f"{len(rounds)} rounds: each winner follows the rules"))
        if fair:
            found.append(("+", f"{reveals} reveals match their commitments"))
    if not fair:
        found.append(("-", "not a fair match: the weapons are the host's word"))
    if rounds and rounds[0]["round"] != 1:
        found.append(("-", "the record does not start at round 1: scores not counted"))
        return found
    if wins == record["scores"]:
        found.append(("+", f"the scores {wins[0]}-{wins[1]} count the rounds won"))
    else:
        found.append(("x", f"the scores say {record['scores']}; the rounds give {wins}"))
    if reached_at is not None and reached_at != len(rounds) - 1:
        found.append(("x", "rounds go on after the match was won"))
    champion = next((seat for seat in (1, 2) if wins[seat - 1] >= wins_needed), None)
    if champion:
        if record["forfeit"]:
            found.append(("x", "called a forfeit, yet won outright"))
        elif record["winner"] == players[champion - 1]:
            found.append(("+", f"the winner won {wins_needed} rounds"))
        else:
            found.append(("x", f"the winner is said to be {record['winner']!r}; the rounds "
                               f"give the match to seat {champion}"))
    elif record["forfeit"] and record["winner"] in players:
        found.append(("+", "won by forfeit"))
    else:
        found.append(("x", "nobody won on rounds, and it is not a forfeit of a player"))
    return found


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 64
    path = sys.argv[1]
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(MAX_BYTES + 1)
    except OSError as error:
        print(f"verify_record: cannot open {path}: {error.strerror}", file=sys.stderr)
        return 66

    def refuse(why):
        print(f"verify_record: {path} is not a match record: {why}", file=sys.stderr)
        return 65

    if len(data) > MAX_BYTES:
        return refuse(f"a record is at most {MAX_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return refuse("it is not UTF-8")
    if too_deep(text):
        return refuse(f"arrays and objects are nested more than {MAX_DEPTH} deep")
    try:
        record = json.loads(text)
        broken = limits(record)
        if broken:
            return refuse(broken)
        findings = check(record)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError,
            RecursionError) as error:
        return refuse(repr(error))
    for mark, line in findings:
        print(f"{mark} {line}")
    failed = any(mark == "x" for mark, _ in findings)
    print("refused" if failed else "holds")
    return 65 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
