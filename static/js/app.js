// Penta as an installable app: the service worker (sw.js, from the site's root so that it controls
// every page), and, on the notification settings page, "Notify me": the browser asks for permission
// only then, and the device's push subscription goes to the server.
(function () {
  "use strict";

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
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error(button.dataset.denied);
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
        if (!response.ok) throw new Error(body.error || button.dataset.failed);
        say(button, button.dataset.done, false);
        window.setTimeout(function () { window.location.reload(); }, 600);
      });
    }).catch(function (error) {
      say(button, error.message || button.dataset.failed, true);
      button.disabled = false;
    });
  });
})();
