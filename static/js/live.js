// The page's sockets: a live game's, a logged-in person's notices, a tournament's standings. Fetched by
// penta.js after the page's load where one opens (base.html's meta "penta-later"); the server decides
// everything, as ever.
(function () {
  "use strict";

  // -- the sockets ------------------------------------------------------------------------------------
  // Each [data-ws-connect] element opens its socket; every frame is regions for out-of-band swaps, as
  // htmx's own answers. A close that says "try again" (1006 dropped, 1011-1013 the server's trouble or
  // restart) is followed by a new socket after a random pause that grows with the tries (up to a
  // minute); the server's own codes (4401, 4404, ...) end it. The events are the names of htmx's socket
  // extension (htmx:wsOpen, htmx:wsBeforeMessage: cancelable, htmx:wsAfterMessage, htmx:wsClose), with
  // `socketWrapper.send` in their detail.
  function connect(element) {
    const path = element.dataset.wsConnect;
    element.setAttribute("ws-connect", path);
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
    let tries = 0;
    let ws = null;
    const wrapper = {
      send: function (text) {
        if (ws && ws.readyState === WebSocket.OPEN) ws.send(text);
      },
    };
    function open() {
      ws = new WebSocket(url);
      ws.onopen = function (event) {
        tries = 0;
        htmx.trigger(element, "htmx:wsOpen", { event: event, socketWrapper: wrapper });
      };
      ws.onmessage = function (event) {
        if (!document.body.contains(element)) return ws.close();
        const detail = { message: event.data, socketWrapper: wrapper };
        if (!htmx.trigger(element, "htmx:wsBeforeMessage", detail)) return;
        htmx.swap(element, event.data, { swapStyle: "none" });
        htmx.trigger(element, "htmx:wsAfterMessage", detail);
      };
      ws.onclose = function (event) {
        if ([1006, 1011, 1012, 1013].indexOf(event.code) >= 0 && document.body.contains(element)) {
          window.setTimeout(open, Math.random() * 1000 * Math.pow(2, Math.min(tries++, 6)));
        }
        htmx.trigger(element, "htmx:wsClose", { event: event, socketWrapper: wrapper });
      };
    }
    open();
  }

  function inGame(event) {
    return event.target.closest && event.target.closest("#game");
  }
  const queue = window.pentaQueue;

  // -- the game socket ------------------------------------------------------------------------------------
  // Every push carries the game's status and version (penta.js keeps the version the page shows): a
  // page that missed a version, or was away, asks for the full state.
  let socket = null;
  let socketOpen = false;
  let opened = false;
  // The answer to a sync is taken even when its version is the page's own: the page asked because
  // it may not show what its version says.
  let syncAsked = false;
  function askForSync() {
    syncAsked = true;
    socket.send(JSON.stringify({ action: "sync" }));
  }
  document.addEventListener("htmx:wsOpen", function (event) {
    if (!inGame(event)) return;
    socket = event.detail.socketWrapper;
    socketOpen = true;
    liveMark(true);
    // After a reconnect, ask for the full state: pushes may have been missed while away.
    if (opened) askForSync();
    opened = true;
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (!inGame(event)) return;
    socketOpen = false;
    liveMark(false);
    // An action sent on it will get no answer now: the board afresh, by the page's address.
    const inflight = queue.current();
    if (inflight && typeof inflight.ticket === "number") queue.done(inflight.ticket, true);
  });
  // #game[data-live] while the page's actions travel on its socket (for tests to wait on).
  function liveMark(on) {
    const game = document.getElementById("game");
    if (game && on) game.dataset.live = "";
    else if (game) delete game.dataset.live;
  }

  // -- a player's action over the game socket -----------------------------------------------------------
  // While the game's socket is open the page sends its actions on it (docs/live-play.md): the POST's
  // fields as JSON, with an id the answer echoes. The board comes with the push, as to every screen; the
  // answer is the message area, marked with the id and the version the action made (the action is done
  // once the page shows that version) or, refused, with its status and the whole board, as a 409.
  const SOCKET_ACTION = /\/(?:(roll|confirm|hurry|take-back)|hold\/([1-5])|choose\/([A-Z_]+))\/$/;
  const ANSWER = /^<div id="messages"[^>]* data-answer="(\d+)"(?: data-answer-version="(\d+)")?/;
  let actionCount = 0;
  // The answer each action sent is waiting for: the version it made, or true once refused.
  const answered = {};
  function socketFrame(element, path) {
    const found = SOCKET_ACTION.exec(path || "");
    if (!found) return null;
    const frame = { action: found[1] ? found[1].replace("-", "_") : found[2] ? "hold" : "choose" };
    if (found[2]) frame.die = Number(found[2]);
    if (found[3]) frame.box = found[3];
    // The fields the POST sends (turn, roll; a zero's Yes adds confirm_zero and write), as numbers.
    if (element.form) {
      new FormData(element.form).forEach(function (value, name) {
        if (name !== "csrfmiddlewaretoken" && /^\d+$/.test(value)) frame[name] = Number(value);
      });
    }
    return frame;
  }
  function sendBySocket(element, path) {
    if (!socket || !socketOpen) return false; // not open yet, closed or reconnecting: the POST
    const frame = socketFrame(element, path);
    if (!frame) return false;
    frame.id = ++actionCount;
    queue.begin(frame.id, element);
    socket.send(JSON.stringify(frame));
    return true;
  }
  // The answer to the action on its way: true when it is a refusal, whose board is taken as it is.
  function takeAnswer(message) {
    const found = ANSWER.exec(message);
    const inflight = queue.current();
    if (!found || !inflight || inflight.ticket !== Number(found[1])) return false;
    answered[found[1]] = found[2] ? Number(found[2]) : true;
    return !found[2];
  }
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    const inflight = queue.current();
    if (!inGame(event) || !inflight || typeof inflight.ticket !== "number") return;
    const answer = answered[inflight.ticket];
    const shown = queue.version();
    if (answer === true || (answer !== undefined && shown !== null && shown >= answer)) {
      delete answered[inflight.ticket];
      queue.done(inflight.ticket, false);
    }
  });
  window.pentaLive = {
    send: sendBySocket,
    sync: function () {
      if (!socket || !socketOpen) return false;
      askForSync();
      return true;
    },
  };

  // Pushes and answers travel on different connections: never let an older state replace a newer one.
  document.addEventListener("htmx:wsBeforeMessage", function (event) {
    if (!inGame(event)) return;
    const refused = takeAnswer(event.detail.message);
    const version = queue.versionOf(event.detail.message);
    const lastVersion = queue.version();
    if (version === null || lastVersion === null) return;
    if (refused) {
      // The board from the database, as a POST's 409 answer carries it.
      queue.adopt();
      return;
    }
    if (syncAsked && version >= lastVersion) {
      syncAsked = false;
      queue.adopt();
      return;
    }
    // The same version as the page already shows (the push of this page's own POST, whose answer came
    // first; a version the page took from a refusal) is not applied again.
    if (version <= lastVersion) event.preventDefault();
  });
  // -- the notices' socket ----------------------------------------------------------------------------
  // A heartbeat every 30 s keeps the player "online" for their friends, and a notice's close button
  // removes it. The server does the rest.
  const PING_MS = 30000;
  let pinger = null;
  function isNotifications(event) {
    return event.target && event.target.id === "notifications";
  }
  document.addEventListener("htmx:wsOpen", function (event) {
    if (!isNotifications(event)) return;
    const notices = event.detail.socketWrapper;
    if (pinger) window.clearInterval(pinger);
    pinger = window.setInterval(function () {
      notices.send(JSON.stringify({ type: "ping" }));
    }, PING_MS);
  });
  document.addEventListener("htmx:wsClose", function (event) {
    if (!isNotifications(event)) return;
    if (pinger) window.clearInterval(pinger);
    pinger = null;
  });
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-notice-close]");
    if (!button) return;
    const notice = button.closest(".notice");
    if (notice) notice.remove();
  });

  document.querySelectorAll("[data-ws-connect]").forEach(connect);
})();
