// The game viewer: the arrow keys step through the game (the links work without this script).
"use strict";
document.addEventListener("keydown", function (event) {
  const link = document.querySelector('a.step[data-key="' + event.key + '"]');
  if (link) { event.preventDefault(); window.location.href = link.href; }
});
