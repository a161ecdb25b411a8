// Penta as an installable app: the service worker (sw.js, from the site's root so that it controls
// every page), and, on the notification settings page, "Notify me": the browser asks for permission
// only then, and the device's push subscription goes to the server. First, the browser's time zone,
// told to the server once in a cookie (penta.middleware.TimeZoneMiddleware shows times in it).
(function () {
  "use strict";
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && document.cookie.split("; ").indexOf("penta_tz=" + zone) === -1) {
      document.cookie = "penta_tz=" + zone + "; path=/; max-age=31536000; samesite=lax" +
        (location.protocol === "https:" ? "; secure" : "");
    }
  } catch (error) { /* no Intl: the server's default zone */ }

  if (!("serviceWorker" in navigator)) return;
  const ready = navigator.serviceWorker.register("/sw.js", { scope: "/" });

  function base64urlToBytes(text) {
    const padded = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    return Uint8Array.from(atob(padded), function (c) { return c.charCodeAt(0); });
  }

  function say(button, text, failed) {
    const out = document.getElementById(button.dataset.status);
    if (!out) return;
    out.textContent = text;
    out.classList.toggle("msg-error", Boolean(failed));
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-notify-me]");
    if (!button) return;
    event.preventDefault();
    if (!("PushManager" in window) || !("Notification" in window)) {
      say(button, button.dataset.unsupported, true);
      return;
    }
    button.disabled = true;
    // A refusal of the page's own (or the server's) says so in the page's words; the browser's own
    // errors are in its language and technical, so they get the page's sentence for their kind.
    function refusal(text) {
      const error = new Error(text);
      error.ours = true;
      return error;
    }
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw refusal(button.dataset.denied);
      return ready;
    }).then(function (registration) {
      return registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: base64urlToBytes(button.dataset.key),
      });
    }).then(function (subscription) {
      return fetch(button.dataset.url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": button.dataset.csrf },
        body: JSON.stringify(subscription.toJSON()),
      });
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw refusal(body.error || button.dataset.failed);
        say(button, button.dataset.done, false);
        window.setTimeout(function () { window.location.reload(); }, 600);
      });
    }).catch(function (error) {
      let text = button.dataset.failed;
      if (error && error.ours) text = error.message;
      else if (error && error.name === "NotAllowedError") text = button.dataset.denied;
      say(button, text, true);
      button.disabled = false;
    });
  });
})();

// "Install Penta": where the browser offers to install the site (beforeinstallprompt), the menu's button
// does it; it stays hidden everywhere else (and once installed).
(function () {
  "use strict";
  let offer = null;
  function show(on) {
    document.querySelectorAll("[data-install-app]").forEach(function (button) { button.hidden = !on; });
  }
  window.addEventListener("beforeinstallprompt", function (event) {
    event.preventDefault();
    offer = event;
    show(true);
  });
  window.addEventListener("appinstalled", function () {
    offer = null;
    show(false);
  });
  document.addEventListener("click", function (event) {
    const button = event.target.closest && event.target.closest("[data-install-app]");
    if (!button || !offer) return;
    const asked = offer;
    offer = null;
    show(false);
    asked.prompt();
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
