/// A match's replay page on the party's board (`/match/N`): the two names, the result,
/// and the record stepped through round by round (first, previous, next, last; the
/// arrow keys, Home and End; `#last` or `?round=last` in the address opens at the last
/// round, `#round-3` at round 3), with the check of the record the board made
/// (``BoardRecordReply``). Its script fetches `/match/N.json`.
///
/// Invariant: the page runs no inline script and is the same bytes for every match (N
/// is read from the address by its script, never written into the page); every name,
/// weapon and word from a record goes in through `textContent`, never as markup.
enum ReplayPage {
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Roshambo match</title>
    <link rel="stylesheet" href="/board.css">
    <link rel="stylesheet" href="/replay.css">
    <script src="/replay.js" defer></script>
    </head>
    <body>
    <header><h1 id="title">Match</h1><a class="back" href="/">← the party board</a></header>
    <p id="message" class="message muted">Reading the match's record…</p>
    <main class="replay" id="replay" hidden>
    <section class="panel wide" id="match">
    <div class="duel"><span id="player1" class="name"></span><span id="score" class="score"></span><span id="player2" class="name right"></span></div>
    <p id="result" class="result"></p>
    <p id="terms" class="muted"></p>
    </section>
    <section class="panel" id="stepper">
    <div class="controls">
    <button id="first" type="button" title="First round (Home)">◀◀ First</button>
    <button id="previous" type="button" title="Previous round (←)">◀ Previous</button>
    <span id="step" class="step"></span>
    <button id="next" type="button" title="Next round (→)">Next ▶</button>
    <button id="last" type="button" title="Last round (End)">Last ▶▶</button>
    </div>
    <div id="now" class="now">
    <div class="pick"><span id="weapon1" class="weapon"></span><span id="name1" class="muted name"></span></div>
    <span class="versus">vs</span>
    <div class="pick"><span id="weapon2" class="weapon"></span><span id="name2" class="muted name"></span></div>
    </div>
    <p id="outcome" class="outcome"></p>
    <p id="running" class="muted running"></p>
    <p id="commitments" class="muted commitments"></p>
    </section>
    <section class="panel" id="history">
    <h2>Rounds</h2>
    <table id="rounds" class="rounds"><thead><tr><th class="num">#</th><th id="head1" class="name"></th><th id="head2" class="name"></th><th>won</th></tr></thead><tbody></tbody></table>
    </section>
    <section class="panel wide" id="verification">
    <h2 id="verification-title">Verification</h2>
    <p id="verdict" class="verdict"></p>
    <ul id="findings" class="findings"></ul>
    </section>
    </main>
    </body>
    </html>
    """#

  static let script = #"""
    "use strict";
    (function () {
      const $ = (id) => document.getElementById(id);
      function el(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined) node.textContent = String(text);
        return node;
      }
      function fail(words) {
        const message = $("message");
        message.textContent = words;
        message.className = "message error";
        message.hidden = false;
        document.body.dataset.loaded = "failed";
      }

      const found = /^\/match\/([1-9][0-9]{0,17})$/.exec(location.pathname);
      if (!found) {
        fail("No such match: a match's page is /match/N, N its number.");
        return;
      }
      const id = found[1];
      let record = null;
      let rounds = [];
      let step = 0;

      // The round the address asks for: `#last`, `#first`, `#round-3`, or `?round=…`.
      function wanted() {
        const hash = location.hash.replace(/^#/, "");
        const query = new URLSearchParams(location.search).get("round") || "";
        const asked = hash || query;
        if (asked === "last") return rounds.length - 1;
        const number = /^(?:round-)?([0-9]+)$/.exec(asked);
        if (number) {
          const index = rounds.findIndex((round) => round.round === Number(number[1]));
          if (index >= 0) return index;
        }
        return 0;
      }

      function weaponText(round, seat) {
        const weapon = round.weapons[seat];
        if (weapon) return weapon;
        const committed = round.commitments && round.commitments[seat];
        return committed ? "(no reveal)" : "(none)";
      }
      function winnerText(round) {
        if (round.winner === 1 || round.winner === 2) return record.players[round.winner - 1];
        return "draw";
      }

      function go(index) {
        if (rounds.length === 0) return;
        step = Math.max(0, Math.min(rounds.length - 1, index));
        draw();
        const target = "#round-" + rounds[step].round;
        if (location.hash !== target) history.replaceState(null, "", target);
      }

      function draw() {
        const round = rounds[step];
        const last = rounds[rounds.length - 1];
        $("stepper").dataset.round = String(round.round);
        $("step").textContent = "round " + round.round + " of " + last.round;
        for (const seat of [0, 1]) {
          const weapon = $("weapon" + (seat + 1));
          weapon.textContent = weaponText(round, seat);
          weapon.className = "weapon" + (round.winner === seat + 1 ? " won" : "");
        }
        let outcome = round.winner === 0 ? "A draw" : winnerText(round) + " wins the round";
        if (round.reason) outcome += ": " + round.reason;
        $("outcome").textContent = outcome;
        const wins = [0, 0];
        for (const earlier of rounds.slice(0, step + 1)) {
          if (earlier.winner === 1 || earlier.winner === 2) wins[earlier.winner - 1] += 1;
        }
        $("running").textContent = rounds[0].round === 1
          ? "After this round: " + wins[0] + " – " + wins[1]
          : "Rounds before " + rounds[0].round + " are not kept (a long match keeps its last 100).";
        const commitments = round.commitments || [];
        $("commitments").textContent = commitments.length === 2
          ? "Committed: " + commitments.map((c) => (c ? c.slice(0, 12) + "…" : "nothing")).join(" · ")
          : "";
        $("first").disabled = $("previous").disabled = step === 0;
        $("next").disabled = $("last").disabled = step === rounds.length - 1;
        // Rounds after this one are not given away: their weapons and winner wait.
        const rows = $("rounds").tBodies[0].rows;
        for (let index = 0; index < rows.length; index++) {
          const later = index > step;
          rows[index].className = index === step ? "current" : later ? "later" : "";
          const cells = rows[index].cells;
          cells[1].textContent = later ? "·" : weaponText(rounds[index], 0);
          cells[2].textContent = later ? "·" : weaponText(rounds[index], 1);
          cells[3].textContent = later ? "·" : winnerText(rounds[index]);
        }
      }

      function show(body) {
        record = body.record;
        rounds = record.rounds || [];
        const [a, b] = record.players;
        document.title = "Match " + id + ": " + a + " vs " + b;
        $("title").textContent = "Match " + id;
        $("player1").textContent = a;
        $("player2").textContent = b;
        $("name1").textContent = a;
        $("name2").textContent = b;
        $("head1").textContent = a;
        $("head2").textContent = b;
        const winnerSeat = record.winner === a ? 1 : record.winner === b ? 2 : 0;
        $("player1").className = "name" + (winnerSeat === 1 ? " won" : "");
        $("player2").className = "name right" + (winnerSeat === 2 ? " won" : "");
        $("score").textContent = record.scores[0] + " – " + record.scores[1];
        // The winner's score first: "Dan won 2 – 1".
        const scores = winnerSeat === 2 ? [record.scores[1], record.scores[0]] : record.scores;
        $("result").textContent = record.winner + " won " + scores[0] + " – " + scores[1] +
          (record.forfeit ? " by forfeit" : "");
        const terms = [record.ruleset === "lizardSpock" ? "rock paper scissors lizard Spock" : "classic",
          "best of " + record.bestOf, "in " + record.room];
        if (record.fair) terms.push("fair play: every pick committed, then revealed");
        terms.push("finished " + new Date(record.finishedAt).toLocaleString());
        $("terms").textContent = terms.join(" · ");

        const tbody = $("rounds").tBodies[0];
        for (const [index, round] of rounds.entries()) {
          const row = document.createElement("tr");
          row.append(el("td", "num", round.round), el("td", "", weaponText(round, 0)),
            el("td", "", weaponText(round, 1)), el("td", "name", winnerText(round)));
          row.addEventListener("click", () => go(index));
          tbody.append(row);
        }
        if (rounds.length === 0) {
          $("step").textContent = record.rounds ? "no round was played" : "no rounds kept";
          $("stepper").dataset.round = "0";
          for (const button of ["first", "previous", "next", "last"]) $(button).disabled = true;
          $("outcome").textContent = record.rounds
            ? "The match ended before its first round."
            : "This match was kept before the server kept rounds.";
        }

        const check = body.verification;
        const verdict = $("verdict");
        verdict.textContent = check.verdict;
        const kind = !check.holds ? "fails" : check.proof ? "proof" : "consistent";
        verdict.className = "verdict " + kind;
        $("verification").dataset.verdict = kind;
        $("verification-title").textContent = record.fair
          ? "Verification of the fair match"
          : "Verification (an ordinary match: its weapons are the host's word)";
        const marks = { holds: "✓", fails: "✗", unchecked: "–" };
        for (const finding of check.findings) {
          const item = el("li", finding.kind);
          item.append(el("span", "mark", marks[finding.kind] || "?"), el("span", "", finding.text));
          $("findings").append(item);
        }

        $("message").hidden = true;
        $("replay").hidden = false;
        if (rounds.length > 0) go(wanted());
        document.body.dataset.loaded = "done";
      }

      $("first").addEventListener("click", () => go(0));
      $("previous").addEventListener("click", () => go(step - 1));
      $("next").addEventListener("click", () => go(step + 1));
      $("last").addEventListener("click", () => go(rounds.length - 1));
      document.addEventListener("keydown", (event) => {
        if (!record) return;
        if (event.key === "ArrowLeft") go(step - 1);
        else if (event.key === "ArrowRight") go(step + 1);
        else if (event.key === "Home") go(0);
        else if (event.key === "End") go(rounds.length - 1);
        else return;
        event.preventDefault();
      });
      window.addEventListener("hashchange", () => { if (record) go(wanted()); });

      fetch("/match/" + id + ".json", { cache: "no-store" }).then(async (response) => {
        let body = null;
        try { body = await response.json(); } catch (error) { body = null; }
        if (!response.ok || !body || !body.record) {
          fail((body && body.error) || "The board answered " + response.status + "; try again.");
          return;
        }
        show(body);
      }, () => fail("The board cannot be reached: is the server still running?"));
    })();
    """#

  static let style = #"""
    header { justify-content: space-between; }
    header .back { color: var(--accent); text-decoration: none; }
    .message { padding: 0 1em; }
    .message.error { color: #ff8a7a; font-weight: 600; }
    main.replay { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
    main.replay[hidden] { display: none; }
    .duel { display: grid; grid-template-columns: 1fr auto 1fr; gap: 1em; align-items: center;
      font-size: 1.6em; font-weight: 700; }
    .duel .right { text-align: right; }
    .duel .score { font-size: 1.2em; }
    .result { margin: 0.3em 0 0; font-size: 1.2em; text-align: center; }
    #terms { margin: 0.3em 0 0; text-align: center; font-size: 0.85em; }
    .controls { display: flex; align-items: center; gap: 0.5em; flex-wrap: wrap; }
    .controls button { font: inherit; color: var(--ink); background: #22313f;
      border: 1px solid var(--line); border-radius: 6px; padding: 0.25em 0.7em; cursor: pointer; }
    .controls button:disabled { color: var(--muted); cursor: default; opacity: 0.6; }
    .step { flex: 1; text-align: center; font-weight: 700; color: var(--accent); }
    .now { display: grid; grid-template-columns: 1fr auto 1fr; align-items: center; gap: 1em;
      margin: 0.8em 0 0.4em; }
    .pick { display: flex; flex-direction: column; align-items: center; min-width: 0; }
    .weapon { font-size: 2.2em; font-weight: 800; text-transform: capitalize; }
    .weapon.won { color: var(--win); }
    .versus { color: var(--muted); }
    .outcome { text-align: center; font-size: 1.1em; margin: 0.3em 0; }
    .running, .commitments { text-align: center; margin: 0.2em 0; font-size: 0.85em; }
    .commitments { font-family: ui-monospace, monospace; }
    #history { max-height: 19em; overflow-y: auto; }
    table.rounds td, table.rounds th { white-space: nowrap; }
    table.rounds th.name { max-width: 7em; overflow: hidden; text-overflow: ellipsis; }
    table.rounds tr { cursor: pointer; }
    table.rounds tr.current td { color: var(--accent); font-weight: 700; }
    table.rounds tr.later td { color: var(--muted); opacity: 0.5; }
    .verdict { margin: 0 0 0.5em; font-weight: 600; }
    .verdict.proof { color: var(--win); }
    .verdict.fails { color: #ff8a7a; }
    .findings li { padding: 0.1em 0; font-size: 0.9em; }
    .findings .mark { display: inline-block; width: 1.4em; font-weight: 700; }
    .findings .holds .mark { color: var(--win); }
    .findings .fails .mark { color: #ff8a7a; }
    .findings .unchecked .mark { color: var(--muted); }
    """#
}
