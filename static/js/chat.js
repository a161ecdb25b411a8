// The chat drawer (chat/drawer.html), fetched with it when it is opened: a refused line's message shows
// in the drawer (the server answers 4xx with it), and a sent line empties the form. A reaction comes as a
// moment (chat/push.html), which moments.js shows on every screen, the drawer open or not.
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
})();
