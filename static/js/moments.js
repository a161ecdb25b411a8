// Moments, sounds and the copy-link buttons, fetched by penta.js when a page first needs them (a moment
// to show, sound switched on, a tap on the sound or a copy button). The server decides what happened
// (the #moments region lists each moment with a key naming its turn); this file shows each once as a
// short banner, plays optional sounds (off by default), and copies links. Regions may be morphed in
// place, so everything here reads attribute values after each swap rather than waiting for new elements.
(function () {
  "use strict";

  const SHOW_MS = 5000;
  const seen = new Set();
  const SEEN_KEY = "penta.moments.seen";

  function gameId() {
    const game = document.getElementById("game");
    return game ? game.dataset.game : "";
  }

  // Seen keys survive a reload of the same game (sessionStorage), so a page load does not repeat them.
  function loadSeen() {
    try {
      const stored = JSON.parse(window.sessionStorage.getItem(SEEN_KEY) || "{}");
      (stored[gameId()] || []).forEach(function (key) { seen.add(key); });
    } catch (e) { /* storage unavailable: in-memory only */ }
  }
  function remember(key) {
    seen.add(key);
    try {
      const stored = JSON.parse(window.sessionStorage.getItem(SEEN_KEY) || "{}");
      stored[gameId()] = Array.from(seen).slice(-40);
      window.sessionStorage.setItem(SEEN_KEY, JSON.stringify(stored));
    } catch (e) { /* ignore */ }
  }

  function reducedMotion() {
    return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  // One banner at a time (they would pile up over the board): a change's moments share it.
  function toast(text, kind) {
    const box = document.getElementById("moment-toasts");
    if (!box) return;
    const item = document.createElement("div");
    item.className = "moment moment-" + kind + (reducedMotion() ? "" : " moment-animate");
    item.dataset.momentToast = kind;
    const p = document.createElement("p");
    p.textContent = text;
    const close = document.createElement("button");
    close.type = "button";
    close.className = "moment-close";
    close.setAttribute("aria-label", box.dataset.dismissLabel || "Dismiss");
    close.textContent = "\u00d7";
    close.addEventListener("click", function () { item.remove(); });
    item.append(p, close);
    box.replaceChildren(item);
    keepJokerClear(box);
    window.setTimeout(function () { item.remove(); }, SHOW_MS);
  }

  // The banner's place is under the header. Where the joker's sentence sits there (a phone's sheet
  // starts at the top), the sentence is what the player must read: the banner goes just above the
  // dice instead, by the roll it is about.
  function keepJokerClear(box) {
    box.style.removeProperty("top");
    box.style.removeProperty("bottom");
    const joker = document.querySelector("[data-joker]");
    if (!joker) return;
    const b = box.getBoundingClientRect();
    const j = joker.getBoundingClientRect();
    if (!j.height || b.bottom <= j.top || b.top >= j.bottom) return;
    const dock = document.querySelector(".dock");
    const dockTop = dock ? dock.getBoundingClientRect().top : window.innerHeight;
    box.style.top = "auto";
    box.style.bottom = Math.max(0, window.innerHeight - dockTop) + 8 + "px";
  }

  function showMoments() {
    const region = document.getElementById("moments");
    const texts = [];
    let kind;
    if (region) {
      region.querySelectorAll("[data-moment]").forEach(function (m) {
        if (seen.has(m.dataset.moment)) return;
        remember(m.dataset.moment);
        // A box written for its player is said by the turn status itself ("Written for you: …"): a
        // banner would only repeat it.
        if (m.dataset.kind === "written") return;
        texts.push(m.textContent);
        kind = kind || m.dataset.kind;
      });
    }
    if (texts.length) {
      toast(texts.join("\n"), kind);
      // A reaction (chat) is a friend's word, not the game's: no sound.
      if (kind !== "written" && kind !== "reaction") sound(kind === "penta-rolled" ? "penta" : "cheer");
    }
    // The end of a game: its result section celebrates once.
    const result = document.querySelector("#game-result[data-moment]");
    if (result && !seen.has(result.dataset.moment)) {
      remember(result.dataset.moment);
      if (!reducedMotion()) result.classList.add("celebrate");
    }
  }

  // -- sounds: short tones made with the Web Audio API, off unless the player turns them on ---------

  const SOUND_KEY = "penta.sound";
  let audio = null;

  function soundOn() {
    try { return window.localStorage.getItem(SOUND_KEY) === "on"; } catch (e) { return false; }
  }

  function tone(ctx, frequency, start, length, type) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type || "sine";
    osc.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, ctx.currentTime + start);
    gain.gain.exponentialRampToValueAtTime(0.08, ctx.currentTime + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, ctx.currentTime + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(ctx.currentTime + start);
    osc.stop(ctx.currentTime + start + length + 0.02);
  }

  const SOUNDS = {
    roll: function (ctx) { [0, 0.05, 0.1].forEach(function (t, i) { tone(ctx, 180 + 60 * i, t, 0.05, "square"); }); },
    score: function (ctx) { tone(ctx, 660, 0, 0.12); },
    cheer: function (ctx) { [523, 659, 784].forEach(function (f, i) { tone(ctx, f, i * 0.09, 0.15); }); },
    penta: function (ctx) { [523, 659, 784, 1047].forEach(function (f, i) { tone(ctx, f, i * 0.08, 0.18, "triangle"); }); },
  };

  function sound(name) {
    if (!soundOn() || !SOUNDS[name]) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      if (audio.state === "suspended") audio.resume();
      SOUNDS[name](audio);
      document.documentElement.dataset.lastSound = name; // lets the tests see what played
    } catch (e) { /* no sound: never in the way of the game */ }
  }

  function showSoundToggle() {
    document.querySelectorAll("[data-sound-toggle]").forEach(function (button) {
      const on = soundOn();
      button.setAttribute("aria-pressed", on ? "true" : "false");
      const label = on ? button.dataset.labelOn : button.dataset.labelOff;
      if (label) button.textContent = label;
    });
  }

  // A roll (the turn's roll count went up) and a written box (more filled cells) each make a sound.
  let lastRoll = null;
  let lastFilled = null;
  function boardSounds() {
    const turn = document.querySelector('#game-form input[name="turn"]');
    const roll = document.querySelector('#game-form input[name="roll"]');
    const rollKey = turn && roll ? turn.value + ":" + roll.value : null;
    const filled = document.querySelectorAll("#scoresheet td.filled").length;
    if (lastFilled !== null && filled > lastFilled) sound("score");
    else if (lastRoll !== null && rollKey !== lastRoll && roll && roll.value !== "0") sound("roll");
    lastRoll = rollKey;
    lastFilled = filled;
  }

  // -- copy the link ------------------------------------------------------------------------------

  function copyLink(button) {
    const link = document.querySelector(button.dataset.copyLink);
    if (!link) return;
    const text = link.href || link.textContent.trim();
    function done() {
      // While it says "Copied" the button is not morphed (see the callbacks below), so a push to its
      // region can't take the word away before it is read.
      if (button.dataset.copied) return;
      const label = button.textContent;
      button.textContent = button.dataset.copiedLabel || "Copied";
      button.dataset.copied = "true";
      window.setTimeout(function () {
        button.textContent = label;
        delete button.dataset.copied;
      }, 2500);
    }
    function select() {
      // No clipboard (an insecure page, a refusal): select the link's text for a manual copy.
      const range = document.createRange();
      range.selectNodeContents(link);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, select);
    } else {
      select();
    }
  }

  document.addEventListener("click", function (event) {
    const copy = event.target.closest && event.target.closest("[data-copy-link]");
    if (copy) {
      copyLink(copy);
      return;
    }
    const toggle = event.target.closest && event.target.closest("[data-sound-toggle]");
    if (toggle) {
      try { window.localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on"); } catch (e) { /* ignore */ }
      showSoundToggle();
      sound("score");
    }
  });

  // A button that says "Copied" is not morphed meanwhile (a <details> the player opened stays open:
  // penta.js).
  if (window.Idiomorph && window.Idiomorph.defaults && window.Idiomorph.defaults.callbacks) {
    const callbacks = window.Idiomorph.defaults.callbacks;
    const previousNode = callbacks.beforeNodeMorphed;
    callbacks.beforeNodeMorphed = function (oldNode, newNode) {
      if (oldNode.nodeType === 1 && oldNode.hasAttribute("data-copied")) return false;
      return previousNode ? previousNode(oldNode, newNode) : true;
    };
  }

  function refresh() {
    showMoments();
    boardSounds();
  }

  function start() {
    loadSeen();
    showSoundToggle();
    refresh();
  }
  // Loaded when the page first needs it (penta.js): the page is there already.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:oobAfterSwap", refresh);
})();
