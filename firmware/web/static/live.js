// The live table: the server sends the table's HTML on every journal change (server-sent events).
// No polling: the browser keeps one connection open and reconnects by itself if it drops.
"use strict";
(function () {
  const live = document.getElementById("live");
  function state(on) {
    if (!live) return;
    live.textContent = on ? live.dataset.textOn : live.dataset.textOff;
    live.classList.toggle("off", !on);
  }
  const source = new EventSource("/events");
  source.addEventListener("table", function (event) {
    const update = JSON.parse(event.data);
    const table = document.getElementById("table");
    if (table) table.outerHTML = update.html;
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    state(true);
  });
  source.onopen = function () { state(true); };
  source.onerror = function () { state(false); };
})();
