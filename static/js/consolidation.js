// Consolidation page: confirm a real run, and follow a running run until it finishes.
(function () {
  "use strict";

  document.querySelectorAll("button[data-confirm]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      if (!window.confirm(button.dataset.confirm)) {
        event.preventDefault();
      }
    });
  });

  var card = document.getElementById("run-progress");
  if (!card) {
    return;
  }
  var bar = card.querySelector(".progress-bar");
  var phase = document.getElementById("run-phase");

  function poll() {
    fetch(card.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (run) {
        var share = run.phases_total ? run.phases_done / run.phases_total : 0;
        bar.style.width = Math.max(5, Math.round(share * 100)) + "%";
        phase.textContent = "phase: " + (run.phase || "starting") + " (" + run.phases_done + " of " + run.phases_total + " done)";
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
