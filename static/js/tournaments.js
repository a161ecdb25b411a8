// The tournament page's live standings (tournaments/consumers.py): the server pushes the table, the
// same for everyone, over the page's socket, and htmx swaps it in by its id. Here: a push from another
// stage of the tournament (a round opened or closed) reloads the page, whose shape changes; the
// viewer's own row is marked again; and the table among friends is rebuilt from the pushed rows.
(function () {
  "use strict";

  function page() {
    return document.getElementById("tournament");
  }

  function refresh() {
    const root = page();
    const standings = document.getElementById("standings");
    if (!root || !standings) return;
    if (standings.dataset.phase && standings.dataset.phase !== root.dataset.phase) {
      window.location.reload();
      return;
    }
    const me = root.dataset.me;
    standings.querySelectorAll("tbody tr[data-user-id]").forEach(function (row) {
      row.classList.toggle("me", Boolean(me) && row.dataset.userId === me);
    });
    const friends = document.getElementById("friends-standings");
    if (!friends) return;
    const ids = new Set((friends.dataset.friends || "").split(" ").filter(Boolean));
    const body = friends.querySelector("tbody");
    const rows = Array.from(standings.querySelectorAll("tbody tr[data-user-id]")).filter(function (row) {
      return ids.has(row.dataset.userId);
    });
    const places = rows.map(function (row) { return row.dataset.place ? Number(row.dataset.place) : null; });
    body.replaceChildren.apply(body, rows.map(function (row, i) {
      const line = document.createElement("tr");
      line.dataset.user = row.dataset.user;
      line.dataset.userId = row.dataset.userId;
      if (me && row.dataset.userId === me) line.className = "me";
      const mine = places[i];
      const place = mine === null ? "–" : String(1 + places.filter(function (p) { return p !== null && p < mine; }).length);
      [place, row.dataset.user, row.dataset.score ? Number(row.dataset.score).toFixed(1) + "%" : ""].forEach(function (text) {
        const cell = document.createElement("td");
        cell.textContent = text;
        line.appendChild(cell);
      });
      return line;
    }));
  }

  document.addEventListener("htmx:wsAfterMessage", function (event) {
    if (page() && event.target && event.target.id === "tournament") refresh();
  });
})();
