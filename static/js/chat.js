// The chat drawer (chat/drawer.html), fetched with it when it is opened (penta.js, data-script): a sent
// line empties the form (a refused one stays, its message shown: htmx swaps a 4xx's answer). A reaction
// comes as a moment (chat/push.html), which moments.js shows on every screen, the drawer open or not.
(function () {
  if (window.pentaChat) return;
  window.pentaChat = true;
  document.addEventListener("htmx:afterRequest", function (event) {
    const form = event.detail.elt;
    if (form.matches && form.matches("[data-chat-form]") && event.detail.successful) form.reset();
  });
})();
