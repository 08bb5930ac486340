// A side's page, kept current: the server says when the game changed (server-sent
// events), and only then are the panel and, if it changed, the map fetched again.
"use strict";
(() => {
  const live = document.getElementById("live");
  const shown = () => document.getElementById("panel").dataset;
  let busy = false;
  let again = false;
  let mapUrl = null;

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        const reply = await fetch("panel", { cache: "no-store" });
        if (!reply.ok) throw new Error(String(reply.status));
        const box = document.createElement("div");
        box.innerHTML = await reply.text();
        const fresh = box.firstElementChild;
        const oldMap = shown().map;
        document.getElementById("panel").replaceWith(fresh);
        if (fresh.dataset.map !== oldMap) {
          const picture = await fetch("map.svg", { cache: "no-store" });
          if (!picture.ok) throw new Error(String(picture.status));
          const url = URL.createObjectURL(await picture.blob());
          document.getElementById("map").src = url;
          if (mapUrl) URL.revokeObjectURL(mapUrl);
          mapUrl = url;
        }
      } while (again);
    } catch (err) {
      setLive(false, "not live: " + err.message);
    } finally {
      busy = false;
    }
  }

  function setLive(on, text) {
    live.textContent = text;
    live.className = on ? "live on" : "live off";
  }

  function told(event) {
    if (JSON.parse(event.data).digest !== shown().digest) refresh();
  }

  const source = new EventSource("events");
  for (const kind of ["hello", "logged", "changed"]) source.addEventListener(kind, told);
  source.onopen = () => setLive(true, "live");
  source.onerror = () => setLive(false, source.readyState === 2 ? "not live" : "reconnecting");
})();
