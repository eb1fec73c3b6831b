// Pages that wait for a computation update themselves when it finishes, without a reload.
//
// A page lists its unfinished computations in a section with data-status-url (the study's
// JSON read of its unfinished computations) and data-waiting (their ids). This script polls
// that read; once one of them is no longer unfinished, it fetches the page again and puts
// the fresh parts marked data-refresh-region in place of the old ones. The "Request a
// computation" button (pages.js) sends "computation-finished" when its computation is done,
// which refreshes the same parts. Without JavaScript, the page's refresh link and its
// <noscript> refresh do the same.
(function () {
  "use strict";
  var POLL_MS = 1500;
  var RETRY_MS = 5000;
  var generation = 0;

  function replaceRegions(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-refresh-region]").forEach(function (old) {
      var name = old.getAttribute("data-refresh-region");
      var next = fresh.querySelector('[data-refresh-region="' + name + '"]');
      if (next) {
        old.replaceWith(document.importNode(next, true));
      }
    });
    var root = document.documentElement;
    root.dataset.refreshed = String(Number(root.dataset.refreshed || "0") + 1);
  }

  function refresh() {
    generation += 1;
    return fetch(window.location.href, {
      headers: { Accept: "text/html" },
      credentials: "same-origin",
    })
      .then(function (response) {
        if (!response.ok) { throw new Error("status " + response.status); }
        return response.text();
      })
      .then(function (html) {
        replaceRegions(html);
        watch();
      })
      .catch(function () {
        window.setTimeout(refresh, RETRY_MS);
      });
  }

  function showProgress(box, pending) {
    pending.forEach(function (computation) {
      var row = box.querySelector('li[data-computation="' + computation.id + '"]');
      if (!row) { return; }
      row.querySelector(".pending-status").textContent = computation.status;
      row.querySelector(".pending-progress").textContent =
        Math.round(100 * computation.progress) + " %";
    });
  }

  function poll(box, url, waiting, mine) {
    if (mine !== generation) { return; } // a refresh started another watch
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        if (mine !== generation) { return; }
        var still = {};
        body.pending.forEach(function (computation) { still[computation.id] = true; });
        var finished = waiting.some(function (id) { return !still[id]; });
        if (finished) {
          refresh();
          return;
        }
        showProgress(box, body.pending);
        window.setTimeout(function () { poll(box, url, waiting, mine); }, POLL_MS);
      })
      .catch(function () {
        window.setTimeout(function () { poll(box, url, waiting, mine); }, RETRY_MS);
      });
  }

  function watch() {
    var box = document.querySelector("[data-waiting][data-status-url]");
    if (!box) { return; }
    var waiting = box.dataset.waiting.split(/\s+/).filter(Boolean).map(Number);
    if (!waiting.length) { return; }
    box.dataset.watching = "true";
    poll(box, box.dataset.statusUrl, waiting, generation);
  }

  document.addEventListener("computation-finished", function () { refresh(); });
  watch();
})();
