/// The board's page: its HTML, script and style, kept in the binary (a LAN party has no
/// internet, and there is no build step).
///
/// Invariant: the page runs no inline script (the Content-Security-Policy forbids it) and
/// puts every name it shows in as text, never as markup.
enum BoardPage {
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Roshambo party board</title>
    <link rel="stylesheet" href="/board.css">
    <script src="/board.js" defer></script>
    </head>
    <body>
    <div id="banner" class="banner" hidden></div>
    <header><h1 id="title">Roshambo</h1><span id="people" class="muted"></span></header>
    <main>
    <section id="tournament-section" class="panel wide">
    <h2 id="tournament-title">Tournament</h2>
    <div id="tournament" class="muted">No tournament right now.</div>
    </section>
    <section class="panel">
    <h2>Playing now</h2>
    <ul id="rooms" class="rooms"></ul>
    </section>
    <section class="panel">
    <h2>Leaderboard</h2>
    <div id="leaders"></div>
    </section>
    <section class="panel">
    <h2>Recent matches</h2>
    <ul id="recent" class="recent"></ul>
    </section>
    </main>
    </body>
    </html>
    """#

  static let style = #"""
    :root { --bg: #0f1720; --panel: #17222e; --ink: #e8eef5; --muted: #8a9bb0;
      --accent: #f5b942; --win: #5fd38d; --line: #2c3b4c; }
    * { box-sizing: border-box; }
    body { margin: 0; background: var(--bg); color: var(--ink);
      font: 18px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
    header { display: flex; align-items: baseline; gap: 1em; padding: 0.6em 1em 0; }
    h1 { margin: 0; font-size: 1.8em; }
    h2 { margin: 0 0 0.5em; font-size: 1.1em; color: var(--accent); text-transform: uppercase;
      letter-spacing: 0.08em; }
    main { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 1em;
      padding: 1em; }
    .panel { background: var(--panel); border-radius: 10px; padding: 0.8em 1em;
      min-width: 0; overflow: hidden; }
    .wide { grid-column: 1 / -1; }
    .muted { color: var(--muted); }
    .banner { position: sticky; top: 0; z-index: 2; background: #b3412e; color: #fff;
      padding: 0.5em 1em; font-weight: 600; text-align: center; }
    .banner[hidden] { display: none; }
    ul { list-style: none; margin: 0; padding: 0; }
    .rooms li, .recent li { display: grid; grid-template-columns: 1fr auto 1fr; gap: 0.5em;
      align-items: center; padding: 0.35em 0; border-bottom: 1px solid var(--line); }
    .rooms .right, .recent .right { text-align: right; }
    .score { font-variant-numeric: tabular-nums; font-weight: 700; font-size: 1.2em;
      text-align: center; white-space: nowrap; }
    .meta { grid-column: 1 / -1; font-size: 0.8em; color: var(--muted); }
    .meta a.replay { color: var(--accent); }
    .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .won { color: var(--win); font-weight: 700; }
    .bracket { display: flex; gap: 2em; align-items: stretch; overflow-x: auto; }
    .round { display: flex; flex-direction: column; justify-content: space-around;
      gap: 0.6em; min-width: 12em; }
    .round h3 { margin: 0; font-size: 0.85em; color: var(--muted); font-weight: 600; }
    .match { border: 1px solid var(--line); border-radius: 6px; background: #1d2a38;
      position: relative; }
    .match .slot { display: flex; justify-content: space-between; gap: 0.5em;
      padding: 0.2em 0.5em; }
    .match .slot + .slot { border-top: 1px solid var(--line); }
    .match.live { border-color: var(--accent); }
    .match.bye .slot:last-child { color: var(--muted); font-style: italic; }
    .match.unknown { border-style: dashed; color: var(--muted); }
    .round:not(:first-of-type) .match::before { content: ""; position: absolute; left: -1em;
      top: 50%; width: 1em; border-top: 1px solid var(--line); }
    .champion { display: flex; flex-direction: column; justify-content: center;
      min-width: 10em; }
    .champion .crown { font-size: 0.85em; color: var(--muted); }
    .champion .who { font-size: 1.6em; font-weight: 800; color: var(--accent); }
    table { border-collapse: collapse; width: 100%; }
    .tournament-body { display: flex; flex-wrap: wrap; gap: 1em 1.5em; align-items: flex-start; }
    .tournament-body > .bracket, .tournament-body > .cross-wrap { flex: 0 1 auto; min-width: 0; }
    .standings-wrap { flex: 1 1 22em; min-width: 18em; }
    .standings-wrap table { table-layout: fixed; }
    .standings-wrap th.num { width: 3.5em; }
    .standings-wrap th.num:nth-child(5) { width: 6.5em; white-space: nowrap; }
    .standings-wrap th:last-child { width: 3em; }
    .standings-wrap td.name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .tournament-body .round { max-width: 13em; }
    .tournament-body .champion { max-width: 12em; }
    .champion .who { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .countdown { font-size: 1.6em; font-weight: 800; color: var(--accent); margin: 0.2em 0; }
    .room.changed .score { animation: flash 1.2s ease-out; }
    @keyframes flash { from { color: var(--accent); transform: scale(1.25); } to { color: inherit; transform: none; } }
    .cross-wrap { display: flex; gap: 2em; align-items: center; overflow-x: auto; }
    table.cross { width: auto; }
    table.cross td { text-align: center; white-space: nowrap; }
    table.cross th.name { max-width: 8em; }
    table.cross td.lost { color: var(--muted); }
    table.cross td.live { color: var(--accent); }
    th, td { padding: 0.2em 0.4em; text-align: left; border-bottom: 1px solid var(--line); }
    td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
    svg text { fill: var(--ink); font-size: 14px; }
    svg .axis { stroke: var(--line); }
    svg .bar { stroke: var(--accent); stroke-width: 3; }
    svg .point { fill: var(--accent); }
    svg .provisional { fill: var(--muted); }
    svg .tick { fill: var(--muted); font-size: 12px; }
    @media (max-width: 1400px) { body { font-size: 15px; } }
    """#
}
