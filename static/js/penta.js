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
    if (event.target.closest && event.target.closest("#game")) busy = true;
  });

  function releaseAndReplay() {
    busy = false;
    const key = queued.shift();
    if (!key) return;
    const element = actionElement(key);
    if (element && !element.disabled) {
      element.click();
    } else {
      queued.length = 0;
    }
  }

  ["htmx:afterRequest", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function () {
      // After htmx has swapped the answer in.
      window.setTimeout(releaseAndReplay, 0);
    });
  });

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
  document.addEventListener("DOMContentLoaded", startCountdown);
  document.addEventListener("htmx:afterSettle", startCountdown);
  document.addEventListener("htmx:oobAfterSwap", startCountdown);
})();
