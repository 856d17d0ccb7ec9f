#!/usr/bin/env bash
# The arena's HTML page in a real browser (issue 52): runs the debug `roshambo arena` with
# three built-in bots for a few hundred rounds, writing both --json and --html, opens the
# page from its file in Debian's headless Chromium (--dump-dom) and asserts with python3
# on the DOM: the heat map has one cell per ordered pairing of the bots, each with the
# JSON's rate and the whole percent the text report prints; each pairing's row has the
# JSON's verdict and win rate; the ratings chart has a point per bot; nothing is loaded
# and no script is on the page. A screenshot at 1280×720 (and one of the whole page) go
# to .build/arena-html/. Run by .ci/run after `swift build`; needs chromium.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/.build/debug"
shots="$root/.build/arena-html"
[ -x "$bin/roshambo" ] || { echo "arena-html-browser: run swift build first" >&2; exit 66; }
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
  echo "arena-html-browser: no chromium on this machine; install Debian's (apt-get install -y chromium)" >&2
  exit 69
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The arena makes its development certificates in ./certs: here, not in the checkout.
cd "$work"
fail() {
  echo "arena-html-browser: $*" >&2
  echo "--- the arena's output:" >&2
  cat arena.out >&2 2>/dev/null || true
  exit 1
}

"$bin/roshambo" arena markov cycle iocaine --rounds 200 --seed 52 \
  --json result.json --html arena.html > arena.out 2>&1 || fail "the arena failed"
[ -s result.json ] && [ -s arena.html ] || fail "the arena wrote no JSON or no page"

browse() { # then Chromium's flags
  timeout 30 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars "$@" \
    "file://$work/arena.html"
}
browse --dump-dom > dom.html 2>/dev/null || true
[ -s dom.html ] || fail "Chromium dumped no DOM"

python3 - result.json dom.html <<'PY' || fail "the page's DOM does not hold the JSON's numbers"
import json, math, sys
from html.parser import HTMLParser

result = json.load(open(sys.argv[1]))
bots = [bot["name"] for bot in result["bots"]]
n = len(bots)


class Page(HTMLParser):
    """The page's heat-map cells, pairing rows and rating points, with their text."""

    def __init__(self):
        super().__init__()
        self.cells, self.rows, self.ratings, self.tags = [], [], [], []
        self.headers = []
        self.open = None  # the element whose text is being read: (kind, attributes, text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        classes = (attributes.get("class") or "").split()
        if tag == "td" and "rate" in classes and "data-row" in attributes:
            self.open = ("cell", attributes, [])
        elif tag == "td" and "rate" in classes and self.rows:
            self.open = ("row-rate", attributes, [])
        elif tag == "td" and "verdict" in classes and self.rows:
            self.open = ("verdict", attributes, [])
        elif tag == "th" and "row" in classes:
            self.headers.append(attributes.get("title"))
        elif tag == "tr" and "data-first" in attributes:
            self.rows.append({"attributes": attributes})
        elif tag == "g" and "rating" in classes:
            self.ratings.append(attributes)

    def handle_data(self, data):
        if self.open:
            self.open[2].append(data)

    def handle_endtag(self, tag):
        if self.open and tag == "td":
            kind, attributes, text = self.open
            text = "".join(text).strip()
            if kind == "cell":
                self.cells.append((attributes, text))
            elif kind == "row-rate":
                self.rows[-1]["rate"] = text
            else:
                self.rows[-1]["verdict"] = text
            self.open = None


page = Page()
page.feed(open(sys.argv[2]).read())
problems = []

def whole_percent(rate):  # Swift's .rounded(): halves away from zero (rates are ≥ 0)
    return str(int(math.floor(rate * 100 + 0.5)))

# The decisive rounds of each ordered pair, and who won them, from the JSON's pairings.
decisive = {}
for pairing in result["pairings"]:
    first, second = bots.index(pairing["first"]), bots.index(pairing["second"])
    decisive[(first, second)] = pairing["firstWins"] + pairing["secondWins"]
    decisive[(second, first)] = decisive[(first, second)]

if page.headers != bots:
    problems.append(f"the heat map's rows are {page.headers}, the JSON's bots {bots}")
if len(page.cells) != n * (n - 1):
    problems.append(f"{len(page.cells)} heat-map cells for {n} bots, not {n * (n - 1)}")
seen = set()
for attributes, text in page.cells:
    row, column = int(attributes["data-row"]), int(attributes["data-column"])
    seen.add((row, column))
    expected = result["matrix"][row][column]
    if row == column or float(attributes["data-rate"]) != expected:
        problems.append(f"cell {row},{column}: data-rate {attributes['data-rate']}, the JSON {expected}")
    shown = whole_percent(expected) if decisive[(row, column)] > 0 else "·"
    if text != shown:
        problems.append(f"cell {row},{column} shows {text!r}, the JSON's rate is {shown}%")
    if int(attributes["data-decisive"]) != decisive[(row, column)]:
        problems.append(f"cell {row},{column}: {attributes['data-decisive']} decisive rounds")
if len(seen) != n * (n - 1):
    problems.append(f"the cells cover {len(seen)} ordered pairs, not {n * (n - 1)}")

if len(page.rows) != len(result["pairings"]):
    problems.append(f"{len(page.rows)} pairing rows for {len(result['pairings'])} pairings")
for row, pairing in zip(page.rows, result["pairings"]):
    attributes = row["attributes"]
    names = (bots[int(attributes["data-first"])], bots[int(attributes["data-second"])])
    if names != (pairing["first"], pairing["second"]):
        problems.append(f"pairing row {names}, the JSON's {pairing['first']}–{pairing['second']}")
    if attributes["data-verdict"] != pairing["verdict"]:
        problems.append(f"{names}: verdict {attributes['data-verdict']}, the JSON's {pairing['verdict']}")
    if pairing["firstWins"] + pairing["secondWins"] > 0:
        rate = "%.1f" % (100 * pairing["firstWinRate"])
        if row.get("rate") != rate:
            problems.append(f"{names}: win% {row.get('rate')!r}, the JSON's {rate}")

if sorted(int(g["data-bot"]) for g in page.ratings) != list(range(n)):
    problems.append(f"the ratings chart has {len(page.ratings)} points for {n} bots")

for tag, attributes in page.tags:
    if tag in ("script", "img", "iframe", "object", "embed", "link"):
        problems.append(f"a <{tag}> on the page")
    for name in ("src", "href"):
        if name in attributes:
            problems.append(f"<{tag} {name}={attributes[name]!r}>")
if not any(tag == "meta" and attributes.get("http-equiv") == "Content-Security-Policy"
           and "default-src 'none'" in attributes.get("content", "") for tag, attributes in page.tags):
    problems.append("no Content-Security-Policy that forbids loading")

for problem in problems:
    print("arena-html-browser:", problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"arena-html-browser: {len(page.cells)} heat-map cells, {len(page.rows)} pairings and "
      f"{len(page.ratings)} ratings, as the JSON has them")
PY

mkdir -p "$shots"
shot() { # width height file
  browse --window-size="$1,$2" --screenshot="$3" > /dev/null 2>&1 || fail "no screenshot at $1×$2"
  [ -s "$3" ] || fail "the screenshot at $1×$2 is empty"
}
shot 1280 720 "$shots/arena-1280x720.png"
shot 1280 1700 "$shots/arena-whole-1280x1700.png"
cp arena.html "$shots/arena.html"
echo "arena-html-browser: ok (screenshots and the page in $shots)"
