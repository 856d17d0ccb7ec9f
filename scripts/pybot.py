#!/usr/bin/env python3
# The bot from docs/PROTOCOL.md, written from the contract alone with the standard
# library: plays one match with random picks and prints the winner.
#   scripts/pybot.py CA_FILE HOST PORT [ROOM [--fair]]
#   scripts/pybot.py CA_FILE HOST PORT --who
#   scripts/pybot.py CA_FILE HOST PORT --accept NAME
# Without ROOM it joins quick match. With --fair it asks for a fair room (commit-reveal,
# "Fair rooms" in docs/PROTOCOL.md), plays it, checks every round itself and prints
# "verified" per round; a round that does not check out ends it with "server lied".
# With --who it follows the lobby ("Following the lobby") and prints its first view.
# With --accept it follows the lobby as NAME taking challenges ("Challenges"), accepts
# the first challenge to it, and plays that match.
import hashlib, json, os, random, socket, ssl, struct, sys

ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
host, port = sys.argv[2], int(sys.argv[3])
who = sys.argv[4:5] == ["--who"]
accept = sys.argv[5] if sys.argv[4:5] == ["--accept"] else None
room = sys.argv[4] if len(sys.argv) > 4 and not who and not accept else None
fair = "--fair" in sys.argv[5:]
sock = ctx.wrap_socket(socket.create_connection((host, port)), server_hostname=host)
RULES = {("rock", "scissors"), ("paper", "rock"), ("scissors", "paper")}

def send(obj):
    data = json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)

def recv():
    def exactly(n):
        buf = b""
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk: raise EOFError("server closed the connection")
            buf += chunk
        return buf
    (length,) = struct.unpack(">I", exactly(4))
    return json.loads(exactly(length))                         # trailing spaces are fine

def digest(room, rnd, seat, weapon, nonce):
    parts = [b"roshambo-commit-v1", room.encode(), str(rnd).encode(), str(seat).encode(),
             weapon.encode(), nonce]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()

if who:                                                        # follow the lobby: one view
    send({"type": "hello", "protocol": 1, "name": "pywho", "role": "lobby"})
    msg = recv()
    if msg["type"] != "lobby": sys.exit(f"expected a lobby view, got {msg['type']}")
    lobby = msg["lobby"]
    print(f"{lobby['peopleCount']} people, {lobby['roomCount']} rooms")
    for person in lobby["people"]:
        print(" ", person["name"], person["status"], person["room"] or "")
    for r in lobby["rooms"]:
        print(" ", r["name"], r["phase"], r["players"], r["scores"])
    for leader in lobby["leaders"]:
        print(" ", leader["name"], leader["won"], "won", leader["lost"], "lost")
    sys.exit(0)

if accept:                                                     # wait in the lobby for a challenge
    send({"type": "hello", "protocol": 1, "name": accept, "role": "lobby", "fair": False,
          "challenges": True})
    while True:
        msg = recv()
        if msg["type"] == "error": sys.exit(f"refused: {msg['message']}")
        if msg["type"] == "challenge" and msg["status"] == "pending" and msg["to"] == accept:
            print(f"accepting {msg['from']}'s challenge, best of {msg['bestOf']}")
            send({"type": "accept", "challenge": msg["challenge"]})
        if msg["type"] == "welcome":
            print("seated in", msg["room"]); break
else:
    hello = {"type": "hello", "protocol": 1, "name": "pybot", "fair": fair}
    if room: hello["room"] = room
    send(hello)
picked = set()                  # a state can predate our own pick: pick once per round
secrets, shown, checked = {}, {}, set()
while True:
    msg = recv()
    if msg["type"] == "error":
        print("error:", msg["code"], msg["message"])
        if msg["fatal"]: break
    if msg["type"] != "state": continue
    view = msg["view"]
    you = view["you"]
    me = next(p for p in view["players"] if p["seat"] == you)
    other = next((p for p in view["players"] if p["seat"] != you), None)
    rnd = view["round"]
    if view.get("fair"):
        for r in view["history"]:                              # check every resolved round
            n = r["round"]
            if n in checked or n not in secrets: continue
            checked.add(n)
            mine, theirs = r["weapons"][you - 1], r["weapons"][2 - you]
            ok = r["commitments"][you - 1] == secrets[n][2] and shown.get(n) == r["commitments"][2 - you]
            if ok and theirs is not None:
                ok = digest(view["room"], n, 3 - you, theirs, bytes.fromhex(r["nonces"][2 - you])) == shown[n]
            if ok and mine is not None and theirs is not None:
                expect = 0 if mine == theirs else (you if (mine, theirs) in RULES else 3 - you)
                ok = r["winner"] == expect
            print(f"round {n}: {mine} vs {theirs}: {'verified' if ok else 'server lied'}")
            if not ok: sys.exit(3)
        if view["phase"] == "choosing":
            if not me["chosen"] and rnd not in picked:         # commit
                picked.add(rnd)
                weapon, nonce = random.choice(["rock", "paper", "scissors"]), os.urandom(32)
                secrets[rnd] = (weapon, nonce, digest(view["room"], rnd, you, weapon, nonce))
                send({"type": "commit", "round": rnd, "digest": secrets[rnd][2]})
            if other and other.get("commitment") and rnd in secrets and rnd not in shown:
                shown[rnd] = other["commitment"]               # kept, then reveal
                weapon, nonce, _ = secrets[rnd]
                send({"type": "reveal", "round": rnd, "weapon": weapon, "nonce": nonce.hex()})
    elif view["phase"] == "choosing" and not me["chosen"] and rnd not in picked:
        picked.add(rnd)
        send({"type": "choose", "round": rnd,
              "weapon": random.choice(["rock", "paper", "scissors"])})
    if view["phase"] == "over":
        print("winner: seat", view["winner"]); break
