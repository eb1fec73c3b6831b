// "Request a computation": POST the form (with its CSRF token) and poll the computation's
// status until it finishes, without reloading the page; once it is done, refresh.js puts
// the page's fresh results in place. Without JavaScript the form posts normally and the
// page reloads.
(function () {
  "use strict";
  var POLL_MS = 1000;

  function show(form, text, progress) {
    var box = form.querySelector(".compute-progress");
    box.hidden = false;
    form.querySelector(".compute-status").textContent = text;
    if (typeof progress === "number") {
      form.querySelector("progress").value = progress;
    }
  }

  function finish(form, body) {
    var button = form.querySelector("button[type=submit]");
    button.disabled = false;
    form.dataset.state = body.status;
    if (body.status === "done") {
      show(form, "Computation " + body.id + " done.", 1);
      if (body.report_url) {
        var link = form.querySelector(".compute-report");
        link.href = body.report_url;
        link.hidden = false;
      }
      document.dispatchEvent(new CustomEvent("computation-finished", { detail: body }));
    } else {
      show(form, "Computation " + body.id + " failed: " + (body.error || "unknown error"), 0);
    }
  }

  function poll(form, url) {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (body) {
        if (body.finished) {
          finish(form, body);
          return;
        }
        show(form, "Computation " + body.id + " " + body.status + " (" +
          Math.round(100 * body.progress) + " %)", body.progress);
        window.setTimeout(function () { poll(form, url); }, POLL_MS);
      })
      .catch(function () { show(form, "Lost contact with the server; reload the page."); });
  }

  function submit(event) {
    var form = event.target;
    event.preventDefault();
    form.querySelector("button[type=submit]").disabled = true;
    form.querySelector(".compute-report").hidden = true;
    form.dataset.state = "requesting";
    show(form, "Requesting…", 0);
    fetch(form.action, {
      method: "POST",
      body: new FormData(form), // carries csrfmiddlewaretoken
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (answer) {
        if (!answer.ok) {
          form.querySelector("button[type=submit]").disabled = false;
          form.dataset.state = "error";
          show(form, answer.body.error || "The request was refused.", 0);
          return;
        }
        if (answer.body.finished) {
          finish(form, answer.body);
        } else {
          show(form, "Computation " + answer.body.id + " " + answer.body.status, answer.body.progress);
          poll(form, answer.body.status_url);
        }
      })
      .catch(function () {
        form.querySelector("button[type=submit]").disabled = false;
        show(form, "The request failed; try again.");
      });
  }

  // Choosing a question proposes its latest round with annotations (data-latest-rounds:
  // {question id: round id}); a question without annotations keeps the chosen round.
  function proposeRound(form) {
    var latest = JSON.parse(form.dataset.latestRounds || "{}");
    var question = form.querySelector("select[name=question]");
    var round = form.querySelector("select[name=round]");
    if (!question || !round) { return; }
    question.addEventListener("change", function () {
      var proposed = latest[question.value];
      if (proposed !== undefined) { round.value = String(proposed); }
    });
  }

  document.querySelectorAll("form.compute-form").forEach(function (form) {
    form.addEventListener("submit", submit);
    proposeRound(form);
  });
})();
