// Penta's page behaviour. The server decides everything; this file only makes the page pleasant:
// keyboard shortcuts, the visible countdown, and one action at a time on the game board.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  // What the page needs only once it is shown (base.html's meta "penta-later": the morphing of answers,
  // and live.js where a socket opens, which connects it) is fetched after the page's load, all at once,
  // run in order. A request asked for before then (a tap, a timer's tick) waits for it: its answer is
  // morphed in.
  let laterLoaded = false;
  const afterLater = [];
  document.addEventListener("htmx:confirm", function (event) {
    if (laterLoaded) return;
    event.preventDefault();
    afterLater.push(function () {
      event.detail.issueRequest(true);
    });
  });
  function fetchScript(url) {
    const script = document.createElement("script");
    script.src = url;
    script.async = false;
    document.head.appendChild(script);
    return new Promise(function (resolve) {
      script.onload = script.onerror = resolve;
    });
  }
  function loadLater() {
    const meta = document.querySelector('meta[name="penta-later"]');
    const urls = meta ? meta.content.split(/\s+/).filter(Boolean) : [];
    Promise.all(urls.map(fetchScript)).then(function () {
      laterLoaded = true;
      keepDetailsOpen();
      if (momentsNeeded()) loadMoments();
      afterLater.splice(0).forEach(function (run) {
        run();
      });
    });
  }
  if (document.readyState === "complete") loadLater();
  else window.addEventListener("load", loadLater);

  // A <details> the player opened (Resign…, the exact figures) stays open when its region is morphed:
  // the server never renders `open`, so morphing would otherwise close it at every update.
  function keepDetailsOpen() {
    const callbacks = window.Idiomorph && window.Idiomorph.defaults && window.Idiomorph.defaults.callbacks;
    if (!callbacks) return;
    const previous = callbacks.beforeAttributeUpdated;
    callbacks.beforeAttributeUpdated = function (name, node, mutation) {
      if (name === "open" && node.tagName === "DETAILS") return false;
      return previous ? previous(name, node, mutation) : true;
    };
  }

  // moments.js (the banners, the sounds, the copy buttons) is fetched when the page first needs it: a
  // moment in the #moments region or a game's result to celebrate, the sound switched on, or a tap on
  // the sound or a copy button (taken again once it is there).
  let moments = null;
  function loadMoments() {
    const meta = document.querySelector('meta[name="penta-moments"]');
    if (!moments) moments = meta ? fetchScript(meta.content) : Promise.resolve();
    return moments;
  }
  function momentsNeeded() {
    let sound = false;
    try {
      sound = window.localStorage.getItem("penta.sound") === "on";
    } catch (e) {
      /* no storage: no sound */
    }
    return sound || document.querySelector("#moments [data-moment], #game-result[data-moment]") !== null;
  }
  document.addEventListener("htmx:oobAfterSwap", function () {
    if (!moments && momentsNeeded()) loadMoments();
  });
  document.addEventListener("click", function (event) {
    const button = !moments && event.target.closest && event.target.closest("[data-sound-toggle], [data-copy-link]");
    if (!button) return;
    event.preventDefault();
    loadMoments().then(function () {
      button.click();
    });
  });

  // The language menu applies as soon as it changes (its Go button is for pages without JS).
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[data-autosubmit]")) event.target.form.requestSubmit();
  });

  // One action at a time. A tap made while the previous action is on its way is replayed on the fresh
  // board once that answer has arrived, so it applies to the dice the player will see. The queue can
  // never wedge: whatever becomes of the action (answered, refused, lost, late, aborted before it was
  // sent), the page releases it, and when the answer did not arrive the board is fetched afresh. An
  // action travels on the game's socket when it is open (live.js), else as htmx's POST.
  const QUEUE_LIMIT = 4;
  // A request still unanswered after this long is given up (htmx's own timeout, in base.html, is 10 s).
  const STUCK_MS = 12000;
  // Two presses of Roll this close together are one press (a double click, or two clicks 120-250 ms
  // apart): a roll is always followed by a chance to look and hold. #game carries data-roll-cooling
  // meanwhile (tests wait for it to go).
  const ROLL_GUARD_MS = 350;
  // {ticket, key, since}: the ticket is the POST's xhr, or the id of an action sent on the socket (which
  // also keeps the version its answer says it made, or that it was refused).
  let inflight = null;
  const queued = [];
  let lastRollAt = 0;
  let lastRollTurn = null;
  let cooling = null;

  function turnShown() {
    const field = document.querySelector('#game-form input[name="turn"]');
    return field ? field.value : null;
  }
  // #game[data-busy] while an action is on its way (for the cursor, and for tests to wait on).
  function markBusy(on) {
    const game = document.getElementById("game");
    if (!game) return;
    if (on) game.dataset.busy = "";
    else delete game.dataset.busy;
  }

  function rollPressed() {
    lastRollAt = Date.now();
    lastRollTurn = turnShown();
    const game = document.getElementById("game");
    if (!game) return;
    game.dataset.rollCooling = "";
    if (cooling) window.clearTimeout(cooling);
    cooling = window.setTimeout(function () {
      delete game.dataset.rollCooling;
    }, ROLL_GUARD_MS);
  }

  function actionElement(key) {
    return document.querySelector('#game [data-action="' + key + '"]');
  }
  function gameAction(target) {
    return target && target.closest && target.closest("#game") ? target.dataset.action || "" : null;
  }

  // A double click on Roll reaches the page as two clicks, the second with detail 2: drop it before
  // htmx sees it. A replayed tap (element.click()) has detail 0.
  document.addEventListener(
    "click",
    function (event) {
      const roll = event.target.closest && event.target.closest('#game [data-action="roll"]');
      if (roll && event.detail > 1) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    },
    true,
  );

  document.addEventListener("htmx:confirm", function (event) {
    if (event.defaultPrevented) return; // waiting for the page's later scripts (above)
    const key = gameAction(event.target);
    // Not a player's action (a timer's tick, a resync): never held back.
    if (!key) return;
    if (inflight && Date.now() - inflight.since > STUCK_MS) release(inflight.ticket, true);
    if (key === "roll") {
      const rolling = (inflight && inflight.key === "roll") || queued.indexOf("roll") >= 0;
      // Only within a turn: the first roll of the next one (the computer may play in between, in a
      // moment, after "Speed up") is never a double click.
      const doubled = Date.now() - lastRollAt < ROLL_GUARD_MS && lastRollTurn === turnShown();
      if (rolling || doubled) {
        event.preventDefault();
        return;
      }
      if (!inflight) rollPressed();
    }
    if (inflight) {
      event.preventDefault();
      if (key && queued.length < QUEUE_LIMIT) queued.push(key);
    } else if (window.pentaLive && window.pentaLive.send(event.target, event.detail.path)) {
      event.preventDefault(); // on the game socket (live.js)
    }
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    const key = gameAction(event.target);
    // A tick sent while an action is on its way does not take its place in the queue.
    if (key === null || (inflight && !key)) return;
    const xhr = event.detail.xhr;
    inflight = { ticket: xhr, key: key, since: Date.now() };
    markBusy(true);
    rememberFocus(event.target);
    // The element that sent the request may be gone by the time the answer comes: follow the
    // request itself. loadend comes after htmx's swap.
    xhr.addEventListener("loadend", function () {
      window.setTimeout(function () {
        release(xhr, xhr.status === 0);
      }, 0);
    });
  });
  // Lost answers (no connection, timeout, aborted, an answer that failed to apply): release and resync.
  ["htmx:sendError", "htmx:timeout", "htmx:sendAbort", "htmx:onLoadError", "htmx:swapError"].forEach(
    function (name) {
      document.addEventListener(name, function (event) {
        if (gameAction(event.target) === null) return;
        const xhr = event.detail && event.detail.xhr;
        window.setTimeout(function () {
          release(xhr || (inflight && inflight.ticket), true);
        }, 0);
      });
    },
  );

  // The queue's side for live.js, which sends an action on the socket (`ticket`: its id) and says when
  // its answer is in (`lost`: it will not come), and the version the page shows.
  window.pentaQueue = {
    version: function () {
      return lastVersion;
    },
    versionOf: versionOf,
    adopt: function () {
      adoptVersion = true;
    },
    begin: function (ticket, element) {
      inflight = { ticket: ticket, key: gameAction(element), since: Date.now() };
      markBusy(true);
      rememberFocus(element);
    },
    current: function () {
      return inflight;
    },
    done: release,
  };

  function release(ticket, lost) {
    if (!inflight || (ticket && inflight.ticket !== ticket)) return;
    inflight = null;
    markBusy(false);
    if (lost) {
      queued.length = 0;
      resync();
      return;
    }
    restoreFocus();
    replay(queued.shift(), 0);
  }

  // A tap waiting for its turn is replayed on the fresh element; if the board that enables it is still
  // on its way (a push on the socket), it waits for it (up to 3 s) rather than being lost.
  function replay(key, attempt) {
    if (!key) return;
    const element = actionElement(key);
    if (element && !element.disabled) {
      element.click();
    } else if (attempt < 20) {
      window.setTimeout(function () {
        if (!inflight) replay(key, attempt + 1);
      }, 150);
    } else {
      queued.length = 0;
    }
  }

  // The board afresh: by the socket when it is open, else by asking the page's own address.
  let resyncing = false;
  function resync() {
    const game = document.getElementById("game");
    if (!game || resyncing) return;
    if (window.pentaLive && window.pentaLive.sync()) return;
    resyncing = true;
    htmx
      .ajax("GET", window.location.pathname + window.location.search, {
        source: game,
        swap: "none",
        headers: { "X-Penta-Resync": "1" },
      })
      .finally(function () {
        resyncing = false;
      });
  }
  // Watchdog: a request that never settles (no answer, no error) is given up, and the board resynced; an
  // action sent on the socket waits for its answer as long as htmx waits for a POST's.
  window.setInterval(function () {
    if (!inflight) return;
    const bySocket = typeof inflight.ticket === "number";
    if (Date.now() - inflight.since > (bySocket ? htmx.config.timeout || STUCK_MS : STUCK_MS)) {
      try {
        if (!bySocket) inflight.ticket.abort();
      } catch (e) {
        /* already done */
      }
      release(inflight && inflight.ticket, true);
    }
  }, 250);

  // Focus stays where the player was: after an action the same control (or, when it went away or
  // became disabled, the next one they need) has the focus, not the page.
  let focusKey = null;
  function rememberFocus(source) {
    const focused = document.activeElement;
    const within = focused && focused !== document.body && focused.closest && focused.closest("#game");
    focusKey = within ? focused.id || focused.dataset.action || null : null;
    if (!focusKey && source && source.dataset && source.dataset.action) {
      focusKey = source.matches(":focus-visible") ? source.dataset.action : null;
    }
  }
  function findControl(key) {
    if (!key) return null;
    return document.getElementById(key) || actionElement(key);
  }
  function usable(element) {
    return element && !element.disabled && element.offsetParent !== null;
  }
  function restoreFocus() {
    // A zero's question, just asked at its box: in view, its Yes focused.
    const yes = document.querySelector("[data-zero-question] button:not([data-shown])");
    if (yes) {
      yes.dataset.shown = "";
      yes.scrollIntoView({ block: "center" });
      yes.focus({ preventScroll: true });
      return;
    }
    if (!focusKey) return;
    const focused = document.activeElement;
    if (focused && focused !== document.body && document.contains(focused) && !focused.disabled) return;
    const candidates = [findControl(focusKey), actionElement("confirm"), actionElement("roll")];
    const target = candidates.find(usable);
    if (target) target.focus({ preventScroll: true });
  }

  // Keyboard: Space rolls, 1-5 hold dice, Enter confirms, unless a control has the focus; a die, box,
  // Roll or Confirm that a click (not Tab) focused keeps them, and Enter on the chosen box confirms it.
  let byPointer = false;
  document.addEventListener("pointerdown", function () {
    byPointer = true;
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Tab") byPointer = false;
    if (event.altKey || event.ctrlKey || event.metaKey || !document.getElementById("game")) return;
    // A key held down repeats: one press is one action.
    if (event.repeat) return;
    const focused = document.activeElement;
    const clicked = byPointer && focused && focused.matches("#game :is(.die, .box-button, .actions button)");
    const inControl =
      !clicked && focused && focused.matches("input, select, textarea, button, a, summary, [contenteditable]");
    let key = null;
    if (/^[1-5]$/.test(event.key) && !(focused && focused.matches("input, select, textarea"))) {
      key = "die-" + event.key;
    } else if (event.key === " " && !inControl) {
      key = "roll";
    } else if (event.key === "Enter" && (!inControl || focused.matches('.box-button[aria-pressed="true"]'))) {
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
  // The game's version the page shows. Every answer and push carries it with the game's status: an answer
  // or push older than the page (pushes and answers travel on different connections; a tick's answer of
  // a board unchanged) is not applied; a page whose shape no longer fits (the room started, the game
  // ended) reloads.
  let lastVersion = null;
  // After a resync the page shows the server's version, whatever it believed before.
  let adoptVersion = false;
  let rematchYes;
  document.addEventListener("DOMContentLoaded", function () {
    const marker = document.getElementById("game-status");
    if (!marker) return;
    lastVersion = Number(marker.dataset.version);
    rematchYes = marker.dataset.rematchYes;
  });
  function versionOf(html) {
    const match = /id="game-status"[^>]*data-version="(\d+)"/.exec(html || "");
    return match ? Number(match[1]) : null;
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    const xhr = event.detail.xhr;
    const config = event.detail.requestConfig;
    if (config && config.headers && config.headers["X-Penta-Resync"]) {
      adoptVersion = true;
      return;
    }
    const version = versionOf(xhr && xhr.responseText);
    if (version !== null && lastVersion !== null && version <= lastVersion && xhr.status < 400) {
      event.detail.shouldSwap = false;
      // The push came first: the mover's next game is in this answer alone.
      const doc = version === lastVersion && new DOMParser().parseFromString(xhr.responseText, "text/html");
      const fresh = doc && doc.getElementById("next-game");
      if (fresh) document.getElementById("next-game")?.replaceWith(fresh);
    }
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    const marker = event.detail && event.detail.target;
    if (!marker || marker.id !== "game-status") return;
    const game = document.getElementById("game");
    const version = Number(marker.dataset.version);
    if (game && marker.dataset.nextGame && document.querySelector("[data-rematch]")) {
      // Everyone said yes to the rematch: every player goes to it at once (a spectator too, to watch).
      const watching = document.querySelector("[data-rematch-watch]");
      window.location.assign(watching ? marker.dataset.nextWatch : marker.dataset.nextGame);
      return;
    }
    if (game && marker.dataset.status !== game.dataset.status) {
      window.location.reload();
      return;
    }
    if (game && game.dataset.status === "finished" && marker.dataset.rematchYes !== rematchYes) {
      // After the end the rematch offer is what changes (someone said yes): show it.
      window.location.reload();
      return;
    }
    if (adoptVersion) {
      adoptVersion = false;
      lastVersion = version;
      return;
    }
    // A version missed: the whole board, by the socket (live.js) if it is open.
    if (lastVersion !== null && version > lastVersion + 1 && window.pentaLive) window.pentaLive.sync();
    lastVersion = Math.max(lastVersion || 0, version);
  });


  document.addEventListener("DOMContentLoaded", refreshTimers);
  document.addEventListener("htmx:afterSettle", refreshTimers);
  document.addEventListener("htmx:oobAfterSwap", refreshTimers);

})();

// A box's key (a-m, in the sheet's order: dicegame.screen.markup.BOX_KEYS) chooses it, as a tap would;
// "?" opens the key help (a popover, which its button opens without JavaScript too).
(function () {
  "use strict";
  const BOXES = "ONES TWOS THREES FOURS FIVES SIXES THREE_OF_A_KIND FOUR_OF_A_KIND FULL_HOUSE SMALL_STRAIGHT LARGE_STRAIGHT CHANCE PENTA".split(" ");
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.repeat || event.key.length !== 1) return;
    const focused = document.activeElement;
    if (focused && focused.matches("input, select, textarea, [contenteditable]")) return;
    const help = document.getElementById("key-help");
    if (event.key === "?" && help && help.togglePopover) {
      event.preventDefault();
      help.togglePopover();
      return;
    }
    const box = BOXES["abcdefghijklm".indexOf(event.key.toLowerCase())];
    const button = box && document.querySelector('#game [data-action="box-' + box + '"]');
    if (!button) return;
    event.preventDefault();
    if (!button.disabled) button.click();
  });
})();

// The compact header's menu (game pages, a <details>): Escape or a tap elsewhere closes it, and Escape
// gives the focus back to its button.
(function () {
  "use strict";
  function openMenu() {
    return document.querySelector("[data-header-menu][open]");
  }
  document.addEventListener("keydown", function (event) {
    const menu = event.key === "Escape" && openMenu();
    if (!menu) return;
    menu.open = false;
    menu.querySelector("summary").focus();
  });
  document.addEventListener("click", function (event) {
    const menu = openMenu();
    if (menu && !menu.contains(event.target)) menu.open = false;
  });
})();

// data-hidden-report: see game.html.
document.addEventListener("visibilitychange", () => {
  const f = document.getElementById("game-form");
  if (!document.hidden || !f || !f.dataset.hiddenReport) return;
  const data = new FormData(f);
  data.set("csrfmiddlewaretoken", JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]);
  navigator.sendBeacon(f.dataset.hiddenReport, data);
});
