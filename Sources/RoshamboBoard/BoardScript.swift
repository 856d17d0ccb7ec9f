extension BoardPage {
  /// The page's script: follows `/events` as a lobby follower does (the whole view, then
  /// patches checked against their fingerprint, the stream opened again on a mismatch)
  /// and draws the view. Every name goes in through `textContent`.
  static let script = #"""
    "use strict";
    (function () {
      // SHA-256, for the patches' fingerprints: `crypto.subtle` exists only on https or
      // localhost, and a board on the LAN is neither.
      const K = new Uint32Array([
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
      function sha256(bytes) {
        const length = bytes.length;
        const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
        padded.set(bytes);
        padded[length] = 0x80;
        const view = new DataView(padded.buffer);
        view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
        view.setUint32(padded.length - 4, (length << 3) >>> 0);
        const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
        const w = new Uint32Array(64);
        const rotr = (x, n) => (x >>> n) | (x << (32 - n));
        for (let offset = 0; offset < padded.length; offset += 64) {
          for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
          for (let i = 16; i < 64; i++) {
            const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
            const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
            w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
          }
          let [a, b, c, d, e, f, g, k] = h;
          for (let i = 0; i < 64; i++) {
            const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
            const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
            k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
          }
          h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
        }
        return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
      }

      // The view as the server writes it (keys in its order; `recent` and `server` only
      // when present), so that its hash is the server's fingerprint.
      function canonical(view) {
        const copy = {
          people: view.people, peopleCount: view.peopleCount, rooms: view.rooms,
          roomCount: view.roomCount, leaders: view.leaders, tournament: view.tournament,
        };
        if (view.recent && view.recent.length > 0) copy.recent = view.recent;
        if (view.server !== undefined && view.server !== null) copy.server = view.server;
        return copy;
      }
      function fingerprint(view) {
        return sha256(new TextEncoder().encode(JSON.stringify(canonical(view)))).slice(0, 16);
      }
      function patchList(old, pieces) {
        const result = [];
        for (const piece of pieces) {
          if (Array.isArray(piece)) {
            if (piece[0] < 0 || piece[1] > old.length) return null;
            result.push(...old.slice(piece[0], piece[1]));
          } else {
            result.push(piece);
          }
        }
        return result;
      }
      function applyPatch(view, patch) {
        const next = Object.assign({}, view);
        for (const key of ["people", "rooms", "leaders", "recent"]) {
          if (patch[key] === undefined) continue;
          const list = patchList(view[key] || [], patch[key]);
          if (list === null) return null;
          next[key] = list;
        }
        for (const key of ["peopleCount", "roomCount", "tournament", "server"]) {
          if (patch[key] !== undefined) next[key] = patch[key];
        }
        return next;
      }

      const $ = (id) => document.getElementById(id);
      function el(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined && text !== null) node.textContent = String(text);
        return node;
      }
      const SVG = "http://www.w3.org/2000/svg";
      function svg(tag, attributes, text) {
        const node = document.createElementNS(SVG, tag);
        for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
        if (text !== undefined) node.textContent = String(text);
        return node;
      }

      // `?events=N`: stop after N messages (a snapshot: a headless browser's dump or
      // screenshot waits for the page's network to be idle); `?views=N`: after the N-th
      // whole view (the second comes after the stream was lost and opened again).
      const query = new URLSearchParams(location.search);
      const stopAfter = Number(query.get("events")) || 0;
      const stopAfterViews = Number(query.get("views")) || 0;
      let messages = 0;
      let wholeViews = 0;
      // Each room's score as last drawn: a score that changes flashes.
      let scores = new Map();
      let view = null;
      let seq = -1;
      let source = null;
      let resyncs = 0;
      // Each round's pairings as this page saw them (the view carries the current one).
      let bracket = { key: null, rounds: {} };
      // The leaders' ratings as they changed (server time), from the `ratings` events.
      let ratingPoints = [];

      function banner(text) {
        const node = $("banner");
        node.textContent = text || "";
        node.hidden = !text;
      }

      function open() {
        if (source) source.close();
        source = new EventSource("/events");
        source.onopen = () => {
          delete document.body.dataset.closing;
          banner(null);
        };
        source.onmessage = (event) => {
          receive(JSON.parse(event.data));
          messages += 1;
          if ((stopAfter > 0 && messages >= stopAfter) || (stopAfterViews > 0 && wholeViews >= stopAfterViews)) {
            source.close();
            document.body.dataset.snapshot = "done";
          }
        };
        source.addEventListener("ratings", (event) => {
          const points = JSON.parse(event.data).points || [];
          ratingPoints = ratingPoints.concat(points).slice(-4000);
          if (view) renderLeaders(view.leaders);
        });
        source.addEventListener("closing", () => {
          document.body.dataset.closing = "true";
          banner("The server is closing: reconnecting… (the board comes back by itself)");
        });
        source.onerror = () => {
          if (!document.body.dataset.closing) banner("Connection to the server lost: reconnecting…");
          // A refusal (the board is full) closes the stream for good: try again later.
          if (source.readyState === EventSource.CLOSED) setTimeout(open, 3000);
        };
      }

      function resync(why) {
        resyncs += 1;
        document.body.dataset.resyncs = String(resyncs);
        console.warn("board: out of step (" + why + "): opening the stream again");
        seq = -1;
        view = null;
        ratingPoints = [];
        open();
      }

      function receive(message) {
        if (message.type === "lobby") {
          view = message.lobby;
          seq = message.seq;
          wholeViews += 1;
          document.body.dataset.views = String(wholeViews);
        } else if (message.type === "lobbyPatch") {
          if (view === null || message.base !== seq) return resync("base " + message.base);
          const next = applyPatch(view, message.patch);
          if (next === null) return resync("patch does not apply");
          if (fingerprint(next) !== message.hash) return resync("fingerprint");
          view = next;
          seq = message.seq;
        } else {
          return;
        }
        document.body.dataset.seq = String(seq);
        render();
      }

      function render() {
        $("title").textContent = view.server ? "Roshambo at " + view.server : "Roshambo";
        $("people").textContent = view.peopleCount + (view.peopleCount === 1 ? " person" : " people") + " here";
        renderTournament(view.tournament);
        renderRooms(view.rooms, view.roomCount);
        renderLeaders(view.leaders);
        renderRecent(view.recent || []);
      }

      const kinds = { "single-elimination": "Single elimination", "round-robin": "Round robin", swiss: "Swiss" };

      function renderTournament(t) {
        const box = $("tournament");
        box.replaceChildren();
        box.className = "";
        if (!t) {
          $("tournament-title").textContent = "Tournament";
          box.className = "muted";
          box.textContent = "No tournament right now.";
          return;
        }
        let title = (kinds[t.kind] || t.kind) + " tournament";
        if (t.phase === "entry") title += ": taking entries";
        else if (t.phase === "running") title += ": round " + t.round + " of " + t.rounds;
        else title += ": finished";
        $("tournament-title").textContent = title;
        if (t.phase === "entry") {
          const line = el("p", "muted", t.standings.length + " entered" +
            (t.startsWith ? ", starts with " + t.startsWith : "") +
            (t.startsAt ? ", entries close at " + new Date(t.startsAt).toLocaleTimeString() : ""));
          box.append(line);
        }
        // The countdown to the start, or to the next round's pairing (the server's time).
        if (t.startsAt && t.phase !== "finished") {
          const countdown = el("p", "countdown");
          countdown.id = "countdown";
          countdown.dataset.at = String(t.startsAt);
          countdown.dataset.what = t.phase === "entry" ? "Starts in " : "Next round in ";
          box.append(countdown);
          tick();
          if (ticking === null) ticking = setInterval(tick, 1000);
        }
        // The drawing and the standings side by side where the screen is wide enough (a TV
        // does not scroll: the panels below must stay in sight), else one under the other.
        const body = el("div", "tournament-body");
        if (t.kind === "single-elimination" && t.phase !== "entry") body.append(drawBracket(t));
        else if (t.kind === "round-robin" && t.phase !== "entry") body.append(drawCrossTable(t));
        else if (t.phase !== "entry" && t.pairings.length > 0) body.append(drawPairings(t));
        const side = el("div", "standings-wrap");
        side.append(drawStandings(t));
        body.append(side);
        box.append(body);
      }

      // Each second while there is one, the countdown says what is left (0:00 once due).
      let ticking = null;
      function tick() {
        const countdown = $("countdown");
        if (!countdown) {
          clearInterval(ticking);
          ticking = null;
          return;
        }
        const left = Math.max(0, Math.round((Number(countdown.dataset.at) - Date.now()) / 1000));
        countdown.textContent = countdown.dataset.what + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      }

      function slot(name, score, won) {
        const row = el("div", "slot");
        const who = el("span", "name" + (won ? " won" : ""), name);
        row.append(who, el("span", "score", score));
        return row;
      }

      function drawMatch(pairing) {
        const match = el("div", "match");
        if (pairing.players.length === 1) {
          match.classList.add("bye");
          match.dataset.bye = "true";
          match.append(slot(pairing.players[0], "", true), slot("bye", ""));
          return match;
        }
        if (!pairing.winner) match.classList.add("live");
        pairing.players.forEach((name, seat) => {
          const score = pairing.scores.length > seat ? pairing.scores[seat] : "";
          match.append(slot(name, score, pairing.winner === name));
        });
        if (pairing.graceRanOut) match.title = "won by forfeit: the other did not come back";
        return match;
      }

      // Every round's pairings this page knows: the earlier rounds the server sends (the
      // latest, whole), and each round as it was seen.
      function remember(t) {
        const key = t.kind + "/" + t.rounds + "/" + t.standings.map((s) => s.name).sort().join(",");
        if (bracket.key !== key) bracket = { key, rounds: {} };
        const earlier = t.earlier || [];
        earlier.forEach((pairings, index) => { bracket.rounds[t.round - earlier.length + index] = pairings; });
        if (t.round > 0) bracket.rounds[t.round] = t.pairings;
      }

      // A round's pairings in the bracket's order (the view lists matches still played
      // first): byes first, then the matches by their room's number, so that each box of
      // the next round sits between the two whose winners it pairs.
      function bracketOrder(pairings) {
        const number = (pairing) => pairing.room ? Number(pairing.room.split("-").pop()) : 0;
        return pairings.slice().sort((a, b) => (a.room ? 1 : 0) - (b.room ? 1 : 0) || number(a) - number(b));
      }

      function drawChampion(name) {
        const crown = el("div", "champion");
        crown.id = "champion";
        crown.append(el("span", "crown", "Champion"), el("span", "who", name));
        return crown;
      }

      function drawBracket(t) {
        remember(t);
        const tree = el("div", "bracket");
        tree.id = "bracket";
        for (let round = 1; round <= t.rounds; round++) {
          const column = el("div", "round");
          column.dataset.round = String(round);
          column.append(el("h3", null, round === t.rounds ? "Final" : "Round " + round));
          const seen = bracket.rounds[round];
          if (seen) {
            for (const pairing of bracketOrder(seen)) column.append(drawMatch(pairing));
          } else {
            const matches = Math.max(1, Math.pow(2, t.rounds - round));
            for (let i = 0; i < matches; i++) {
              const match = el("div", "match unknown");
              match.append(el("div", "slot", round < t.round ? "played before this page opened" : "to be decided"));
              column.append(match);
            }
          }
          tree.append(column);
        }
        tree.append(drawChampion(t.champion || "…"));
        return tree;
      }

      // Round robin: who beat whom, a row for each entrant (its results against each
      // column's), from every round this page knows.
      function drawCrossTable(t) {
        remember(t);
        const names = t.standings.map((line) => line.name);
        const results = new Map();
        for (const pairings of Object.values(bracket.rounds)) {
          for (const pairing of pairings) {
            if (pairing.players.length !== 2) continue;
            const [a, b] = pairing.players;
            const scores = pairing.scores.length === 2 ? pairing.scores : ["", ""];
            results.set(a + "\n" + b, { winner: pairing.winner, mine: scores[0], theirs: scores[1] });
            results.set(b + "\n" + a, { winner: pairing.winner, mine: scores[1], theirs: scores[0] });
          }
        }
        const table = el("table", "cross");
        table.id = "cross-table";
        const head = el("tr");
        head.append(el("th", null, ""));
        for (const name of names) head.append(el("th", "name", name));
        table.append(head);
        for (const row of names) {
          const line = el("tr");
          line.append(el("th", "name", row));
          for (const column of names) {
            if (row === column) { line.append(el("td", "self", "—")); continue; }
            const result = results.get(row + "\n" + column);
            if (!result) { line.append(el("td", "muted", "")); continue; }
            if (!result.winner) { line.append(el("td", "live", "playing")); continue; }
            const won = result.winner === row;
            const cell = el("td", won ? "won" : "lost", (won ? "won " : "lost ") + result.mine + "–" + result.theirs);
            cell.dataset.result = won ? "won" : "lost";
            line.append(cell);
          }
          table.append(line);
        }
        const list = el("div", "cross-wrap");
        list.append(table);
        if (t.champion) list.append(drawChampion(t.champion));
        return list;
      }

      // Swiss: each round's pairings this page knows, a column a round.
      function drawPairings(t) {
        remember(t);
        const list = el("div", "bracket");
        for (let round = 1; round <= t.round; round++) {
          const seen = bracket.rounds[round];
          if (!seen) continue;
          const column = el("div", "round");
          column.dataset.round = String(round);
          column.append(el("h3", null, "Round " + round));
          for (const pairing of seen) column.append(drawMatch(pairing));
          list.append(column);
        }
        if (t.champion) list.append(drawChampion(t.champion));
        return list;
      }

      function drawStandings(t) {
        const table = el("table", "standings");
        table.id = "standings";
        const head = el("tr");
        for (const [text, cls] of [["#", "num"], ["Player", ""], ["Won", "num"], ["Lost", "num"], ["Rounds ±", "num"], ["", ""]]) {
          head.append(el("th", cls, text));
        }
        table.append(head);
        t.standings.forEach((line, index) => {
          const row = el("tr");
          const state = line.withdrawn ? "withdrew" : (!line.alive && t.kind === "single-elimination" ? "out" : "");
          row.append(el("td", "num", index + 1), el("td", "name", line.name), el("td", "num", line.wins),
            el("td", "num", line.losses), el("td", "num", (line.roundDifference > 0 ? "+" : "") + line.roundDifference),
            el("td", "muted", state));
          table.append(row);
        });
        return table;
      }

      function renderRooms(rooms, count) {
        const list = $("rooms");
        list.replaceChildren();
        const playing = rooms.filter((room) => room.players.filter((p) => p !== null).length === 2);
        if (playing.length === 0) {
          list.append(el("li", "muted", "Nobody is playing right now."));
          return;
        }
        const drawn = new Map();
        for (const room of playing) {
          const item = el("li", "room");
          item.dataset.room = room.name;
          const over = room.phase === "over";
          const [a, b] = room.players;
          const [sa, sb] = room.scores;
          const score = sa + " – " + sb;
          const before = scores.get(room.name);
          if (before !== undefined && before !== score) {
            item.classList.add("changed");
            item.dataset.changed = "true";
          }
          drawn.set(room.name, score);
          item.append(el("span", "name" + (over && sa > sb ? " won" : ""), a),
            el("span", "score", score),
            el("span", "name right" + (over && sb > sa ? " won" : ""), b));
          const parts = [room.name, "best of " + room.bestOf, over ? "over" : "round " + room.round];
          if (room.ruleset !== "classic") parts.push(room.ruleset);
          if (room.fair) parts.push("fair play ✓");
          if (room.spectators > 0) parts.push(room.spectators + " watching");
          item.append(el("span", "meta", parts.join(" · ")));
          list.append(item);
        }
        scores = drawn;
        if (count > rooms.length) list.append(el("li", "muted", (count - rooms.length) + " more rooms"));
      }

      function renderLeaders(leaders) {
        const box = $("leaders");
        box.replaceChildren();
        if (leaders.length === 0) {
          box.append(el("p", "muted", "Nobody ranked yet: players are ranked once they have played enough different people."));
          return;
        }
        const rated = leaders.filter((l) => typeof l.rating === "number");
        // As the lobby shows them: the settled ranked and numbered, then the new players
        // apart under a line saying why they are not ranked yet (the server sends them in
        // that order), so that a settled 1449 above a new 1600 reads right.
        const settled = leaders.filter((l) => !l.provisional).length;
        const apart = settled < leaders.length ? 1 : 0;
        const width = 560, row = 30, left = 150, right = 20, top = 24;
        const height = top + (leaders.length + apart) * row + 10;
        let low = 1500, high = 1500;
        for (const l of rated) {
          low = Math.min(low, l.rating - 1.96 * l.deviation);
          high = Math.max(high, l.rating + 1.96 * l.deviation);
        }
        low = Math.floor(low / 100) * 100;
        high = Math.ceil(high / 100) * 100;
        if (high === low) high = low + 100;
        const x = (value) => left + (value - low) / (high - low) * (width - left - right);
        const chart = svg("svg", { id: "leaderboard", viewBox: "0 0 " + width + " " + height, width: "100%", role: "img" });
        chart.append(svg("title", {}, "Ratings with their 95% interval"));
        const step = (high - low) > 1000 ? 500 : (high - low) > 400 ? 200 : 100;
        for (let tick = low; tick <= high; tick += step) {
          chart.append(svg("line", { class: "axis", x1: x(tick), x2: x(tick), y1: top - 6, y2: height - 6 }));
          chart.append(svg("text", { class: "tick", x: x(tick), y: 14, "text-anchor": "middle" }, tick));
        }
        if (apart) {
          const y = top + settled * row + row / 2;
          chart.append(svg("text", { class: "tick new-players", x: 0, y: y + 5 }, "New players, not ranked until their rating settles:"));
        }
        leaders.forEach((leader, index) => {
          const isNew = index >= settled;
          const y = top + (index + (isNew ? apart : 0)) * row + row / 2;
          const group = svg("g", { class: isNew ? "leader new" : "leader" });
          const record = leader.won + "–" + leader.lost;
          group.append(svg("text", { x: 0, y: y + 5 }, (isNew ? "· " : (index + 1) + ". ") + leader.name));
          if (typeof leader.rating === "number") {
            const spread = 1.96 * leader.deviation;
            group.append(svg("line", { class: "bar", x1: x(leader.rating - spread), x2: x(leader.rating + spread), y1: y, y2: y }));
            group.append(svg("circle", { class: leader.provisional ? "point provisional" : "point", cx: x(leader.rating), cy: y, r: 6 }));
            // A provisional rating is marked as the lobby marks it.
            const label = Math.round(leader.rating) + (leader.provisional ? "?" : "") + " ± " + Math.round(spread) + "  (" + record + ")";
            group.append(svg("text", { class: "tick", x: Math.min(x(leader.rating) + 10, width - 150), y: y - 8 }, label));
          } else {
            group.append(svg("text", { class: "tick", x: left, y: y + 5 }, record));
          }
          chart.append(group);
        });
        box.append(chart);
        const history = drawRatingHistory(rated);
        if (history) box.append(history);
      }

      // The evening's ratings of the listed players, a line each, from the `ratings`
      // events (the server keeps them from its start).
      function drawRatingHistory(rated) {
        const names = rated.map((l) => l.name);
        const lines = names.map((name) => ratingPoints.filter((p) => p.name === name));
        const shown = lines.flat();
        if (shown.length < 2) return null;
        const width = 560, height = 220, left = 50, right = 16, top = 14, bottom = 40;
        const first = Math.min(...shown.map((p) => p.at));
        const last = Math.max(Date.now() > first ? Math.min(Date.now(), first + 86400000) : first, ...shown.map((p) => p.at));
        let low = Math.min(...shown.map((p) => p.rating)), high = Math.max(...shown.map((p) => p.rating));
        low = Math.floor(low / 50) * 50 - 50;
        high = Math.ceil(high / 50) * 50 + 50;
        const x = (at) => left + (last === first ? 0 : (at - first) / (last - first)) * (width - left - right);
        const y = (r) => top + (high - r) / (high - low) * (height - top - bottom);
        const chart = svg("svg", { id: "rating-history", viewBox: "0 0 " + width + " " + (height + 16 * Math.ceil(names.length / 3)), width: "100%", role: "img" });
        chart.append(svg("title", {}, "The evening's ratings"));
        const step = (high - low) > 600 ? 200 : 100;
        for (let tick = Math.ceil(low / step) * step; tick <= high; tick += step) {
          chart.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: y(tick), y2: y(tick) }));
          chart.append(svg("text", { class: "tick", x: left - 6, y: y(tick) + 4, "text-anchor": "end" }, tick));
        }
        for (const at of [first, last]) {
          chart.append(svg("text", { class: "tick", x: x(at), y: height - bottom + 16, "text-anchor": at === first ? "start" : "end" },
            new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })));
        }
        const colours = ["#f0b429", "#5bd67f", "#6cb6ff", "#ff7b72", "#d2a8ff", "#ffffff", "#7ee0d2", "#f778ba", "#b5e853", "#a5b4c4"];
        lines.forEach((points, index) => {
          if (points.length === 0) return;
          const colour = colours[index % colours.length];
          let path = "";
          points.forEach((p, i) => {
            path += (i === 0 ? "M" : "H" + x(p.at).toFixed(1) + "V") + (i === 0 ? x(p.at).toFixed(1) + "," : "") + y(p.rating).toFixed(1);
          });
          path += "H" + x(last).toFixed(1);
          const line = svg("path", { class: "history", d: path, stroke: colour, fill: "none", "stroke-width": 2 });
          line.dataset.name = names[index];
          chart.append(line);
          const row = Math.floor(index / 3), column = index % 3;
          const legend = svg("g", { class: "legend" });
          legend.append(svg("rect", { x: left + column * 170, y: height - 12 + row * 16, width: 10, height: 10, fill: colour }));
          legend.append(svg("text", { class: "tick", x: left + column * 170 + 14, y: height - 3 + row * 16 }, names[index]));
          chart.append(legend);
        });
        return chart;
      }

      function renderRecent(recent) {
        const list = $("recent");
        list.replaceChildren();
        if (recent.length === 0) {
          list.append(el("li", "muted", "No match finished yet."));
          return;
        }
        for (const match of recent) {
          const item = el("li");
          const [a, b] = match.players;
          item.append(el("span", "name" + (match.winner === 1 ? " won" : ""), a),
            el("span", "score", match.scores[0] + " – " + match.scores[1]),
            el("span", "name right" + (match.winner === 2 ? " won" : ""), b));
          const parts = [match.room];
          if (match.forfeit) parts.push("forfeit");
          if (match.fair) parts.push("fair play ✓");
          // Each match links to its replay page (/match/N), round by round.
          const meta = el("span", "meta");
          if (Number.isSafeInteger(match.id) && match.id > 0) {
            const link = el("a", "replay", "match " + match.id);
            link.href = "/match/" + match.id;
            item.dataset.match = String(match.id);
            meta.append(link, " · " + parts.join(" · "));
          } else {
            meta.textContent = ["match " + match.id].concat(parts).join(" · ");
          }
          item.dataset.room = match.room;
          item.append(meta);
          list.append(item);
        }
      }

      open();
    })();
    """#
}
