// The upload page: drag and drop or pick a file, show upload progress, then the validation
// result per game. Every value from the server is put into the page with textContent, never
// as HTML, so player names and messages cannot inject markup.
"use strict";

(function () {
  const card = document.getElementById("upload-card");
  if (!card) return;
  const maxUpload = Number(card.dataset.maxUpload);
  const clubSelect = document.getElementById("club");
  const drop = document.getElementById("drop");
  const input = document.getElementById("file");
  const box = document.getElementById("progress-box");
  const bar = document.getElementById("progress");
  const barText = document.getElementById("progress-text");
  const errorLine = document.getElementById("upload-error");
  const SEATS = ["Forehand", "Middlehand", "Rearhand"];

  function clubQuery(prefix) {
    return clubSelect && clubSelect.value ? prefix + "club=" + encodeURIComponent(clubSelect.value) : "";
  }

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function row(cells) {
    const tr = document.createElement("tr");
    for (const cell of cells) {
      const td = document.createElement("td");
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell === null || cell === undefined ? "" : String(cell);
      tr.appendChild(td);
    }
    return tr;
  }

  function showError(message) {
    errorLine.textContent = message;
    errorLine.hidden = false;
  }

  function mib(n) { return (n / 1048576).toFixed(1) + " MiB"; }

  function newId() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function declarerText(game) {
    if (game.declarer === null || game.declarer === undefined || game.declarer < 0) return game.passed ? "all passed" : "";
    const seat = SEATS[game.declarer] || String(game.declarer);
    const name = game.players && game.players[game.declarer];
    return name ? name + " (" + seat + ")" : seat;
  }

  function contractText(game) {
    if (!game.contract) return "";
    const parts = [game.contract];
    if (game.ouvert) {
      parts.push("ouvert");  // suit and grand ouvert imply hand, schneider and schwarz (R6)
      if (game.contract === "null" && game.hand) parts.push("hand");
      return parts.join(" ");
    }
    if (game.hand) parts.push("hand");
    if (game.schwarz_announced) parts.push("schwarz ann.");
    else if (game.schneider_announced) parts.push("schneider ann.");
    return parts.join(" ");
  }

  function errorList(errors) {
    if (!errors || !errors.length) return "";
    const ul = el("ul", null, "errors");
    for (const e of errors) {
      const where = ["line " + (e.line ?? "?"), e.move === null || e.move === undefined ? "-" : "move " + e.move, e.rule || e.code || ""];
      const li = el("li");
      li.appendChild(el("span", where.join(" · "), "where"));
      li.appendChild(document.createTextNode(" " + (e.message || "")));
      ul.appendChild(li);
    }
    return ul;
  }

  // An upload's answer carries the first page of per-game results; the rest are fetched
  // page by page from games_next (GET /api/uploads/{id}/games), or downloaded as NDJSON.
  let nextPage = null;

  function renderResult(data) {
    document.getElementById("result").hidden = false;
    document.getElementById("result-source").textContent = data.source || "";
    document.getElementById("stored").textContent = data.stored;
    document.getElementById("duplicates").textContent = data.duplicates;
    document.getElementById("rejected").textContent = data.rejected;
    document.getElementById("result-rows").replaceChildren();
    appendResults(data.games || [], data.games_total, data.games_next, data.upload_id);
  }

  function appendResults(games, total, next, uploadId) {
    const body = document.getElementById("result-rows");
    for (const game of games) {
      const status = el("span", game.ok ? "valid" : "rejected", game.ok ? "status ok" : "status bad");
      const players = (game.players || []).filter(Boolean).join(", ");
      const tr = row([game.line, game.id, players, status, declarerText(game), contractText(game),
        game.recorded_value, game.value, game.value_check, errorList(game.errors)]);
      tr.className = game.ok ? "ok" : "bad";
      body.appendChild(tr);
    }
    const more = document.getElementById("result-more");
    const shown = body.children.length;
    nextPage = next || null;
    if (total === undefined || total === null || total <= shown) { more.hidden = true; return; }
    more.hidden = false;
    document.getElementById("result-shown").textContent = "Showing " + shown + " of " + total + " games;";
    document.getElementById("result-next").hidden = !nextPage;
    const link = document.getElementById("result-download");
    if (uploadId) link.href = "/api/uploads/" + encodeURIComponent(uploadId) + "/games?format=ndjson";
    link.hidden = !uploadId;
  }

  async function showMore() {
    if (!nextPage) return;
    const button = document.getElementById("result-next");
    button.disabled = true;
    try {
      const page = await getJSON(nextPage);
      const uploadId = decodeURIComponent(nextPage.split("/")[3]);
      appendResults(page.games, page.total, page.next, uploadId);
    } catch (err) {
      showError("Could not load more results: " + err.message);
    } finally {
      button.disabled = false;
    }
  }

  // "YYYY-MM-DD HH:MM" in UTC (the column says so), whatever offset the value carries.
  function utcText(value) {
    if (!value) return "";
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return String(value);
    return date.toISOString().replace("T", " ").slice(0, 16);
  }

  async function getJSON(url) {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) throw new Error((await response.json().catch(() => ({}))).detail || response.statusText);
    return response.json();
  }

  async function loadStats() {
    const body = document.getElementById("stats-rows");
    try {
      const data = await getJSON("/api/stats/contracts" + clubQuery("?"));
      body.replaceChildren();
      for (const s of data.contracts) {
        body.appendChild(row([s.game, s.n, s.k, s.rate === null ? "" : (100 * s.rate).toFixed(1) + " %",
          (100 * s.lo).toFixed(1) + " – " + (100 * s.hi).toFixed(1) + " %"]));
      }
      if (!data.contracts.length) body.appendChild(row(["no games yet", "", "", "", ""]));
    } catch (err) {
      body.replaceChildren(row(["could not load: " + err.message, "", "", "", ""]));
    }
  }

  async function loadGames() {
    const body = document.getElementById("games-rows");
    try {
      const data = await getJSON("/api/games?limit=50" + clubQuery("&"));
      document.getElementById("games-total").textContent = data.total;
      body.replaceChildren();
      for (const g of data.games) {
        const result = g.outcome !== "played" ? g.outcome : (g.won ? "won" : (g.overbid ? "overbid" : "lost"));
        const solved = g.could_it_have_been_won ? g.could_it_have_been_won.line : "";
        body.appendChild(row([utcText(g.played_at),
          g.forehand, g.middlehand, g.rearhand, g.declarer_name, g.contract, result, g.value,
          solved]));
      }
    } catch (err) {
      body.replaceChildren(row(["could not load: " + err.message, "", "", "", "", "", "", "", ""]));
    }
  }

  function upload(file) {
    errorLine.hidden = true;
    document.getElementById("result").hidden = true;
    if (file.size > maxUpload) {
      showError(file.name + " is " + mib(file.size) + ", more than the limit of " + mib(maxUpload) + ".");
      return;
    }
    const id = newId();
    const form = new FormData();
    form.append("file", file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/uploads" + clubQuery("?"));
    xhr.setRequestHeader("X-Upload-Id", id);
    xhr.responseType = "json";
    box.hidden = false;
    bar.value = 0;
    barText.textContent = "uploading " + file.name;
    let polling = null;
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) {
        bar.value = Math.round((100 * event.loaded) / event.total);
        barText.textContent = "uploading " + mib(event.loaded) + " of " + mib(event.total);
      }
    };
    xhr.upload.onload = () => {
      bar.removeAttribute("value");
      barText.textContent = "validating…";
      polling = setInterval(async () => {
        try {
          const p = await getJSON("/api/uploads/" + id + "/progress");
          barText.textContent = p.phase + ": " + mib(p.unpacked_bytes) + " read, " + p.games + " games validated";
        } catch (err) { /* the upload may already be finished */ }
      }, 400);
    };
    xhr.onloadend = () => {
      if (polling) clearInterval(polling);
      box.hidden = true;
      const data = xhr.response || {};
      if (xhr.status === 200) {
        renderResult(data);
        loadStats();
        loadGames();
      } else if (xhr.status === 401) {
        showError("Your token is no longer valid; log in again.");
      } else if (xhr.status === 0) {
        showError("The upload was interrupted (too large, or the server is unreachable).");
      } else {
        showError("Upload refused: " + (data.detail || xhr.statusText || "error " + xhr.status));
        if (Array.isArray(data.games) && data.games.length) {
          renderResult({ source: file.name, games: data.games, stored: 0, duplicates: 0,
            rejected: data.games_total || data.games.length, games_total: data.games_total,
            games_next: data.games_next, upload_id: id });
        }
      }
      input.value = "";
    };
    xhr.send(form);
  }

  document.getElementById("result-next").addEventListener("click", showMore);
  input.addEventListener("change", () => { if (input.files.length) upload(input.files[0]); });
  for (const name of ["dragenter", "dragover"]) {
    drop.addEventListener(name, (event) => { event.preventDefault(); drop.classList.add("over"); });
  }
  for (const name of ["dragleave", "drop"]) {
    drop.addEventListener(name, () => drop.classList.remove("over"));
  }
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    const files = event.dataTransfer && event.dataTransfer.files;
    if (files && files.length) upload(files[0]);
  });
  if (clubSelect) clubSelect.addEventListener("change", () => { loadStats(); loadGames(); });
  loadStats();
  loadGames();
})();
