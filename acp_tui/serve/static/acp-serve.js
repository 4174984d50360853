// acp-tui serve: point the terminal at this page's own websocket, before textual.js connects.
// The address is this page's (scheme, host and port as the browser reached it, and the token
// in the path), so it works as well through an SSH tunnel or a proxy.
(function () {
  "use strict";
  var terminal = document.getElementById("terminal");
  var scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  var base = window.location.pathname.replace(/\/?$/, "/");
  terminal.dataset.sessionWebsocketUrl = scheme + "//" + window.location.host + base + "ws";
  // Once textual.js has made the terminal (its load handler runs first), type into it at once.
  window.addEventListener("load", function () {
    var input = document.querySelector(".xterm-helper-textarea");
    if (input) {
      input.focus();
    }
  });
})();
