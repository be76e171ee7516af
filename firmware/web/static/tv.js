// The TV page: each frame of the panel as the referee drew it (server-sent events), scaled by the largest
// whole number that fits, so every pixel of the panel is a square block on the TV; the chirps with Web Audio.
"use strict";
(function () {
  const body = document.body;
  const screen = document.getElementById("screen");
  const keys = document.getElementById("keys");

  function fit() {
    const width = screen.naturalWidth || Number(screen.getAttribute("width")) || 128;
    const height = screen.naturalHeight || Number(screen.getAttribute("height")) || 64;
    const room = window.innerHeight - (keys ? keys.offsetHeight : 0);
    const scale = Math.max(1, Math.floor(Math.min(window.innerWidth / width, room / height)));
    screen.style.width = width * scale + "px";
    screen.style.height = height * scale + "px";
    body.dataset.scale = String(scale);
  }
  window.addEventListener("resize", fit);
  screen.addEventListener("load", fit);
  fit();

  // Sounds: the notes of the buzzer's patterns. A browser plays nothing before a tap on the page (the
  // Pi's kiosk is started allowing it); until then the page says "tap for the sounds".
  let audio = null;
  function context() {
    if (!audio && window.AudioContext) audio = new AudioContext();
    if (audio && audio.state === "suspended") audio.resume();
    body.classList.toggle("muted", !audio || audio.state !== "running");
    return audio;
  }
  function play(notes) {
    const sound = context();
    if (!sound) return;
    let at = sound.currentTime + 0.02;
    for (const [hertz, seconds] of notes) {
      if (hertz > 0) {
        const tone = sound.createOscillator();
        const gain = sound.createGain();
        tone.type = "triangle";
        tone.frequency.value = hertz;
        gain.gain.setValueAtTime(0, at);
        gain.gain.linearRampToValueAtTime(0.3, at + 0.005);
        gain.gain.setValueAtTime(0.3, at + seconds - 0.01);
        gain.gain.linearRampToValueAtTime(0, at + seconds);
        tone.connect(gain).connect(sound.destination);
        tone.start(at);
        tone.stop(at + seconds);
      }
      at += seconds;
    }
    body.dataset.sounds = String(Number(body.dataset.sounds || 0) + 1);
  }
  if (body.dataset.sound === "on") {
    context();
    for (const kind of ["click", "touchend", "keydown"]) document.addEventListener(kind, context);
  }

  const source = new EventSource("/tv/events");
  source.addEventListener("screen", function (event) {
    const frame = JSON.parse(event.data);
    screen.src = "data:image/png;base64," + frame.png;
    body.classList.remove("gone");
    body.dataset.frame = String(frame.seq);
  });
  source.addEventListener("gone", function () { body.classList.add("gone"); });
  source.addEventListener("sound", function (event) {
    if (body.dataset.sound === "on") play(JSON.parse(event.data).notes);
  });
  source.onopen = function () { body.classList.remove("offline"); };
  source.onerror = function () { body.classList.add("offline"); };
})();
