// Import page: while the import runs, show its lines done, and reload the page when it ends.
(function () {
  "use strict";

  var card = document.getElementById("import-progress");
  if (!card || !card.dataset.url) {
    return;
  }
  var status = document.getElementById("import-status");
  var lines = document.getElementById("import-lines");

  function poll() {
    fetch(card.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (run) {
        status.textContent = run.status;
        lines.textContent = run.done_lines + " of " + run.lines;
        if (run.status === "running" || run.status === "queued") {
          window.setTimeout(poll, 1000);
        } else {
          window.location.reload();
        }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  poll();
})();
