// Penta's page behaviour. The server decides everything; this file only makes the page pleasant:
// keyboard shortcuts, the visible countdown, and one action at a time on the game board.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  // The language menu applies as soon as it changes (its Go button is for pages without JS).
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[data-autosubmit]")) event.target.form.requestSubmit();
  });

  // One action at a time: a tap made while the previous action is on its way is replayed on the
  // fresh board once that answer has arrived, so it applies to the dice the player will see.
  let busy = false;
  const queued = [];

  function actionElement(key) {
    return document.querySelector('#game [data-action="' + key + '"]');
  }

  document.addEventListener("htmx:confirm", function (event) {
    const key = event.target.dataset && event.target.dataset.action;
    if (!key || !event.target.closest("#game")) return;
    if (busy) {
      event.preventDefault();
      queued.push(key);
    }
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!event.target.closest || !event.target.closest("#game")) return;
    busy = true;
    // The element that sent the request is usually replaced by the answer, so its own htmx events
    // may never reach the document: follow the request itself. loadend comes after htmx's swap.
    event.detail.xhr.addEventListener("loadend", function () {
      window.setTimeout(releaseAndReplay, 0);
    });
  });

  function releaseAndReplay() {
    busy = false;
    replay(queued.shift(), 0);
  }

  // A tap waiting for its turn is replayed on the fresh element; if the board that enables it is still
  // on its way (a push on the socket), it waits a little for it rather than being lost.
  function replay(key, attempt) {
    if (!key) return;
    const element = actionElement(key);
    if (element && !element.disabled) {
      element.click();
    } else if (attempt < 8) {
      window.setTimeout(function () {
        if (!busy) replay(key, attempt + 1);
      }, 150);
    } else {
      queued.length = 0;
    }
  }

  // Keyboard: Space rolls, 1-5 hold dice, Enter confirms, unless a control has the focus.
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || !document.getElementById("game")) return;
    const focused = document.activeElement;
    const inControl = focused && focused.matches("input, select, textarea, button, a, summary, [contenteditable]");
    let key = null;
    if (/^[1-5]$/.test(event.key) && !(focused && focused.matches("input, select, textarea"))) {
      key = "die-" + event.key;
    } else if (event.key === " " && !inControl) {
      key = "roll";
    } else if (event.key === "Enter" && !inControl) {
      key = "confirm";
    }
    if (!key) return;
    const element = actionElement(key);
    if (!element) return;
    event.preventDefault();
    if (!element.disabled) element.click();
  });

  // The visible countdown before the auto-commit. The server set the deadline; the page only counts.
  let timer = null;
  function startCountdown() {
    const box = document.querySelector("[data-countdown-ms]");
    if (timer) window.clearInterval(timer);
    timer = null;
    if (!box) return;
    const deadline = Date.now() + Number(box.dataset.countdownMs);
    const label = box.querySelector("[data-countdown-seconds]");
    timer = window.setInterval(function () {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      if (label) label.textContent = String(left);
      if (left === 0) window.clearInterval(timer);
    }, 100);
  }
  // The turn timer of a game against friends, counted the same way.
  let turnTimer = null;
  function startTurnTimer() {
    const box = document.querySelector("[data-deadline-ms]");
    if (turnTimer) window.clearInterval(turnTimer);
    turnTimer = null;
    if (!box) return;
    const deadline = Date.now() + Number(box.dataset.deadlineMs);
    const label = box.querySelector("[data-deadline-seconds]");
    turnTimer = window.setInterval(function () {
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      if (label) label.textContent = String(left);
      if (left === 0) window.clearInterval(turnTimer);
    }, 250);
  }
  function refreshTimers() {
    startCountdown();
    startTurnTimer();
  }
  document.addEventListener("DOMContentLoaded", refreshTimers);
  document.addEventListener("htmx:afterSettle", refreshTimers);
  document.addEventListener("htmx:oobAfterSwap", refreshTimers);

  // Live games: every push carries the game's status and version. A page whose shape no longer fits
  // (the room started, the game ended) reloads; a page that missed a version asks for the full state.
  let socket = null;
  let lastVersion = null;
  let opened = false;
  document.addEventListener("DOMContentLoaded", function () {
    const marker = document.getElementById("game-status");
    if (marker) lastVersion = Number(marker.dataset.version);
  });
  document.addEventListener("htmx:wsOpen", function (event) {
    if (!event.target.closest || !event.target.closest("#game")) return;
    socket = event.detail.socketWrapper;
    // After a reconnect, ask for the full state: pushes may have been missed while away.
    if (opened) socket.send(JSON.stringify({ action: "sync" }));
    opened = true;
  });
  // Pushes and answers travel on different connections: never let an older state replace a newer one.
  function versionOf(html) {
    const match = /id="game-status"[^>]*data-version="(\d+)"/.exec(html || "");
    return match ? Number(match[1]) : null;
  }
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    const version = versionOf(event.detail.message);
    // The same version as the page already shows (usually the answer to this page's own action) is
    // not swapped in again: a second swap could swallow a tap on a button it replaces.
    if (version !== null && lastVersion !== null && version <= lastVersion) event.preventDefault();
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    const xhr = event.detail.xhr;
    const version = versionOf(xhr && xhr.responseText);
    if (version !== null && lastVersion !== null && version <= lastVersion && xhr.status < 400) {
      event.detail.shouldSwap = false;
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    const marker = event.detail && event.detail.target;
    if (!marker || marker.id !== "game-status") return;
    const game = document.getElementById("game");
    if (game && marker.dataset.status !== game.dataset.status) {
      window.location.reload();
      return;
    }
    const version = Number(marker.dataset.version);
    if (lastVersion !== null && version > lastVersion + 1 && socket) {
      socket.send(JSON.stringify({ action: "sync" }));
    }
    lastVersion = Math.max(lastVersion || 0, version);
  });
})();

// The notification socket (accounts): a heartbeat every 30 s keeps the player "online" for their
// friends, and a notice's close button removes it. The server does the rest.
(function () {
  "use strict";

  const PING_MS = 30000;
  let socket = null;
  let pinger = null;

  function isNotifications(event) {
    return event.target && event.target.id === "notifications";
  }

  function ping() {
    if (socket) socket.send(JSON.stringify({ type: "ping" }));
  }

  document.addEventListener("htmx:wsOpen", function (event) {
    if (!isNotifications(event)) return;
    socket = event.detail.socketWrapper;
    if (pinger) window.clearInterval(pinger);
    pinger = window.setInterval(ping, PING_MS);
  });

  document.addEventListener("htmx:wsClose", function (event) {
    if (!isNotifications(event)) return;
    socket = null;
    if (pinger) window.clearInterval(pinger);
    pinger = null;
  });

  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-notice-close]");
    if (!button) return;
    const notice = button.closest(".notice");
    if (notice) notice.remove();
  });
})();

// Game review: the left and right arrow keys step through the replay's decisions (the page's own
// Previous/Next links), unless a form control has the focus.
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    if (!document.getElementById("replay")) return;
    const focused = document.activeElement;
    if (focused && focused.matches("input, select, textarea, [contenteditable]")) return;
    if (document.querySelector("#replay.htmx-request, #replay .htmx-request")) return;
    const link = document.querySelector('#replay [data-replay="' + (event.key === "ArrowLeft" ? "prev" : "next") + '"]');
    if (!link) return;
    event.preventDefault();
    link.click();
  });
})();
