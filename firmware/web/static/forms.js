// Small conveniences for the forms; every form also works without this script.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // A choice that changes the page (the player filter, the edition) sends its form at once.
  document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
  // The setup form shows only the names of the seats the chosen player count uses.
  const players = document.querySelector("form.setup select[name=players]");
  if (!players) return;
  function showSeats() {
    const count = parseInt(players.value, 10);
    document.querySelectorAll("form.setup label[data-seat]").forEach(function (label) {
      label.hidden = Number(label.dataset.seat) >= count;
    });
  }
  players.addEventListener("change", showSeats);
  showSeats();
});
