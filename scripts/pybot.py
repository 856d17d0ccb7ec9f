#!/usr/bin/env python3
# The bot from docs/PROTOCOL.md, written from the contract alone with the standard
# library: plays one quick match with random picks and prints the winner.
#   scripts/pybot.py CA_FILE HOST PORT
import json, random, socket, ssl, struct, sys

ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
host, port = sys.argv[2], int(sys.argv[3])
sock = ctx.wrap_socket(socket.create_connection((host, port)), server_hostname=host)

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

send({"type": "hello", "protocol": 1, "name": "pybot"})        # quick match
picked = set()                  # a state can predate our own pick: pick once per round
while True:
    msg = recv()
    if msg["type"] == "error":
        print("error:", msg["code"], msg["message"])
        if msg["fatal"]: break
    if msg["type"] != "state": continue
    view = msg["view"]
    me = next(p for p in view["players"] if p["seat"] == view["you"])
    if view["phase"] == "choosing" and not me["chosen"] and view["round"] not in picked:
        picked.add(view["round"])
        send({"type": "choose", "round": view["round"],
              "weapon": random.choice(["rock", "paper", "scissors"])})
    if view["phase"] == "over":
        print("winner: seat", view["winner"]); break
