// The chat drawer (chat/drawer.html), fetched with it when it is opened: a refused line's message shows
// in the drawer (the server answers 4xx with it), a sent line empties the form, and a reaction shows
// briefly as a moment does.
(function () {
  if (window.pentaChat) return;
  window.pentaChat = true;
  function inChat(element) {
    return element && element.closest && element.closest("[data-chat-drawer]");
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    const status = event.detail.xhr.status;
    if (inChat(event.detail.elt) && status >= 400 && status < 500) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    const form = event.detail.elt;
    if (form.matches && form.matches("[data-chat-form]") && event.detail.successful) form.reset();
  });
  document.addEventListener("htmx:oobAfterSwap", function (event) {
    const target = event.detail.target;
    if (!target || !target.matches || !target.matches("[data-chat-room]")) return;
    const line = target.lastElementChild;
    if (!line || line.dataset.kind !== "reaction") return;
    const toasts = document.getElementById("moment-toasts");
    if (!toasts) return;
    const toast = document.createElement("p");
    toast.className = "chat-reaction-moment";
    toast.dataset.chatMoment = "";
    toast.textContent = line.textContent.replace(/Report$/, "").trim();
    toasts.appendChild(toast);
    window.setTimeout(function () { toast.remove(); }, 3000);
  });
})();
